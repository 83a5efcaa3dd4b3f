/*
 * recon_ref.c: the reference reconstruction the tests hold the tiled CPU
 * (PbReconstructCpu) and the GPU (PbGpuReconstruct) versions to:
 * Vincent's fast hybrid algorithm on the whole image in place, one
 * thread.  A raster scan (each pixel takes the best of itself and its
 * already-scanned neighbours N+, clipped by the mask), an anti-raster scan
 * (the same with N-, queueing the pixels that can still improve a
 * neighbour in N-), then FIFO propagation until the queue is empty.
 *
 * Plain on purpose: one function for every pixel type and both
 * operations.  Pixels are reconstructed as floats, which hold every
 * 8-bit and 16-bit value exactly and are the 32BF pixels themselves, and
 * dilation and erosion differ in one comparison (better), so each step
 * picks the very values a per-type version would.
 *
 * Also the random images the reconstruction tests share.
 */
#define _DEFAULT_SOURCE			/* rand_r */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/raster_rules.h"
#include "recon_ref.h"

/* A growable FIFO ring of pixel indices (capacity a power of two). */
typedef struct RefQueue
{
	int64_t    *buf;
	size_t		cap;
	size_t		head;
	size_t		count;
} RefQueue;

/* Append v, doubling the ring when it is full; false on no memory. */
static bool
RefPush(RefQueue *q, int64_t v)
{
	if (q->count == q->cap)
	{
		size_t		ncap = q->cap ? q->cap * 2 : 4096;
		int64_t    *nb = malloc(ncap * sizeof(int64_t));

		if (nb == NULL)
			return false;
		for (size_t k = 0; k < q->count; k++)
			nb[k] = q->buf[(q->head + k) & (q->cap - 1)];
		free(q->buf);
		q->buf = nb;
		q->cap = ncap;
		q->head = 0;
	}
	q->buf[(q->head + q->count) & (q->cap - 1)] = v;
	q->count++;
	return true;
}

/* Remove and return the oldest index (the ring must not be empty). */
static int64_t
RefPop(RefQueue *q)
{
	int64_t		v = q->buf[q->head];

	q->head = (q->head + 1) & (q->cap - 1);
	q->count--;
	return v;
}

/* Whether a beats b: larger for dilation, smaller for erosion. */
static inline bool
Better(bool erode, float a, float b)
{
	return erode ? a < b : a > b;
}

/* The better of a and b (a on a tie). */
static inline float
Best(bool erode, float a, float b)
{
	return Better(erode, b, a) ? b : a;
}

/* v clipped by mask value m (min for dilation, max for erosion). */
static inline float
Clip(bool erode, float v, float m)
{
	return Better(erode, v, m) ? m : v;
}

/*
 * The fast hybrid algorithm on the W x H image J under I, in place,
 * checking image bounds (int64 indices: W * H may pass 2^31).
 */
static PbStatus
RefHybrid(float *J, const float *I, int64_t W, int64_t H, int conn, bool erode)
{
	RefQueue	q = {0};

	for (int64_t y = 0; y < H; y++)
		for (int64_t x = 0; x < W; x++)
		{
			int64_t		i = y * W + x;
			float		v = J[i];

			if (x > 0)
				v = Best(erode, v, J[i - 1]);
			if (y > 0)
			{
				v = Best(erode, v, J[i - W]);
				if (conn == 8 && x > 0)
					v = Best(erode, v, J[i - W - 1]);
				if (conn == 8 && x + 1 < W)
					v = Best(erode, v, J[i - W + 1]);
			}
			J[i] = Clip(erode, v, I[i]);
		}
	for (int64_t y = H - 1; y >= 0; y--)
		for (int64_t x = W - 1; x >= 0; x--)
		{
			int64_t		i = y * W + x;
			int64_t		nb[4];
			int			nn = 0;
			float		v = J[i];

			if (x + 1 < W)
				nb[nn++] = i + 1;
			if (y + 1 < H)
			{
				nb[nn++] = i + W;
				if (conn == 8 && x > 0)
					nb[nn++] = i + W - 1;
				if (conn == 8 && x + 1 < W)
					nb[nn++] = i + W + 1;
			}
			for (int k = 0; k < nn; k++)
				v = Best(erode, v, J[nb[k]]);
			v = Clip(erode, v, I[i]);
			J[i] = v;
			for (int k = 0; k < nn; k++)
				if (Better(erode, v, J[nb[k]]) && Better(erode, I[nb[k]], J[nb[k]]))
				{
					if (!RefPush(&q, i))
					{
						free(q.buf);
						return PB_ERR_NOMEM;
					}
					break;
				}
		}
	while (q.count > 0)
	{
		int64_t		p = RefPop(&q);
		int64_t		px = p % W,
					py = p / W;
		float		v = J[p];

		for (int k = 0; k < conn; k++)
		{
			int64_t		x = px + PbNbDx(k),
						y = py + PbNbDy(k);
			int64_t		n = y * W + x;

			if (x < 0 || x >= W || y < 0 || y >= H)
				continue;
			if (Better(erode, v, J[n]) && J[n] != I[n])
			{
				J[n] = Clip(erode, v, I[n]);
				if (!RefPush(&q, n))
				{
					free(q.buf);
					return PB_ERR_NOMEM;
				}
			}
		}
	}
	free(q.buf);
	return PB_OK;
}

/*
 * A malloc'd copy of the n pixels of an 8-bit or 16-bit image as floats
 * (exact); NULL when memory runs out.
 */
static float *
FloatCopy(const PbImage *im, int64_t n)
{
	float	   *f = malloc(sizeof(float) * (size_t) n);

	for (int64_t i = 0; f != NULL && i < n; i++)
		f[i] = im->type == PB_PIX_16BUI ? ((const uint16_t *) im->data)[i]
			: ((const uint8_t *) im->data)[i];
	return f;
}

/* Whole-image sequential fast hybrid reconstruction (see recon_ref.h). */
PbStatus
PbReconstructSeq(PbImage *marker, const PbImage *mask, int connectivity,
				 PbReconOp op)
{
	bool		erode = op == PB_RECON_ERODE;
	int64_t		n;
	float	   *J,
			   *I;
	PbStatus st;

	if (PbReconCheck(marker, mask, connectivity, op) != PB_OK)
		return PB_ERR_BADARG;
	if (marker->width == 0 || marker->height == 0)
		return PB_OK;
	n = (int64_t) marker->width * marker->height;
	if (marker->type == PB_PIX_32BF)
		return RefHybrid(marker->data, mask->data, marker->width, marker->height,
						 connectivity, erode);
	/* integer pixels: reconstruct float copies, then store the marker back */
	J = FloatCopy(marker, n);
	I = FloatCopy(mask, n);
	st = J != NULL && I != NULL ?
		RefHybrid(J, I, marker->width, marker->height, connectivity, erode) : PB_ERR_NOMEM;
	for (int64_t i = 0; st == PB_OK && i < n; i++)
	{
		if (marker->type == PB_PIX_16BUI)
			((uint16_t *) marker->data)[i] = (uint16_t) J[i];
		else
			((uint8_t *) marker->data)[i] = (uint8_t) J[i];
	}
	free(J);
	free(I);
	return st;
}

/* A random image for the reconstruction tests (see recon_ref.h). */
PbImage
ReconRandomImage(int w, int h, PbPixType type, unsigned *rng, int top)
{
	PbImage		im = {w, h, type, calloc((size_t) w * h + 1, PbPixSize(type))};

	if (im.data == NULL)
		abort();
	for (int64_t i = 0; i < (int64_t) w * h; i++)
		PbPixSet(&im, i, rand_r(rng) % (top + 1));
	return im;
}
