/*
 * recon_cpu.c: gray-scale morphological reconstruction on the CPU.
 *
 * Vincent's fast hybrid algorithm reconstructs an image in place: a
 * raster scan (each pixel takes the best of itself and its already-scanned
 * neighbours N+, clipped by the mask), an anti-raster scan (the same with
 * N-, queueing the pixels that can still improve a neighbour in N-), then
 * FIFO propagation until the queue is empty.  The tests' reference,
 * PbReconstructSeq (tests/recon_ref.c), runs it on the whole image.
 *
 * PbReconstructCpu is the tile-based parallelization of Teodoro et al.
 * (section 4 of the IWPP paper): the image is cut into square tiles that
 * run the same algorithm on a private padded copy whose one-pixel frame
 * holds the neighbour tiles' pixels, fixed for the round (frame pixels get
 * mask == marker, so they are sources that never change).  Rounds repeat:
 * the calling thread notes which tiles changed a border pixel, their
 * neighbour tiles re-read their frames (a separate phase in which nobody
 * writes), and each tile whose frame changed propagates from the changed
 * frame pixels through a FIFO (or, when that floods much of the tile, by
 * the full algorithm again), until no tile changes a border pixel.  The
 * reconstruction is unique, so the result equals the whole-image one.
 *
 * Dilation takes maxima under the mask, erosion (the dual) minima above
 * it.  Every pixel type x operation gets its own copy of the kernels from
 * the template recon_template.h, so inner loops compare values directly.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "raster_rules.h"

/*
 * Default tile side.  On 4096^2 images (2 threads) 512 and 1024 beat 256
 * and 128 by 10-30%; 512 keeps a uint8 tile's marker and mask in L2 and
 * leaves 256 tiles at 8192^2 for 16 threads to share.
 */
#define RECON_DEFAULT_TILE 512
/* Largest tile side: padded tile indices must fit int32. */
#define RECON_MAX_TILE 16384
/* Frames of at most this many pixels per round are gathered serially. */
#define RECON_SERIAL_GATHER 65536
/*
 * Seeded propagation past w * h / this updates falls back to the scans
 * (a flood through the whole tile is cheaper by scans; 4..16 measured best).
 */
#define RECON_SEED_BUDGET 16
/* PbParallelFor runs at most this many items at once (workers + caller). */
#define RECON_MAX_SLOTS 257

/* A growable FIFO ring of padded-tile pixel indices (capacity a power of two). */
typedef struct Queue32
{
	int32_t    *buf;
	size_t		cap;
	size_t		head;
	size_t		count;
} Queue32;

/* Double the ring (first size 4096), keeping its order; false on no memory. */
static bool
Queue32Grow(Queue32 *q)
{
	size_t		ncap = q->cap ? q->cap * 2 : 4096;
	size_t		first = q->cap - q->head;
	int32_t    *nb;

	if (ncap > SIZE_MAX / sizeof(int32_t))
		return false;
	nb = malloc(ncap * sizeof(int32_t));
	if (nb == NULL)
		return false;
	if (first > q->count)
		first = q->count;
	if (q->count > 0)
	{
		memcpy(nb, q->buf + q->head, first * sizeof(int32_t));
		memcpy(nb + first, q->buf, (q->count - first) * sizeof(int32_t));
	}
	free(q->buf);
	q->buf = nb;
	q->cap = ncap;
	q->head = 0;
	return true;
}

/* Append v; false when the ring is full and cannot grow. */
static inline bool
Queue32Push(Queue32 *q, int32_t v)
{
	if (q->count == q->cap && !Queue32Grow(q))
		return false;
	q->buf[(q->head + q->count) & (q->cap - 1)] = v;
	q->count++;
	return true;
}

/* Remove and return the oldest element (the ring must not be empty). */
static inline int32_t
Queue32Pop(Queue32 *q)
{
	int32_t		v = q->buf[q->head];

	q->head = (q->head + 1) & (q->cap - 1);
	q->count--;
	return v;
}

/* Dilation: larger values win; erosion: smaller ones. */
#define BETTER_DIL(a, b) ((a) > (b))
#define BETTER_ERO(a, b) ((a) < (b))

/* One worker's scratch: padded tile copies of marker and mask, and a FIFO. */
typedef struct TileSlot
{
	atomic_int	busy;			/* taken by a running item */
	void	   *J;				/* padded marker, (tw + 2) x (th + 2) */
	void	   *I;				/* padded mask, same size (same block) */
	void	   *row;			/* a row of tw + 2 pixels, then as many bytes */
	Queue32		q;
} TileSlot;

struct ReconImpl;

/* The state of one tiled reconstruction, shared by the items of a round. */
typedef struct TileCtx
{
	const struct ReconImpl *impl;
	void	   *J;				/* the marker image, written by tiles */
	const void *I;				/* the mask image */
	int64_t		W,
				H;
	int			conn;
	int			T;				/* tile side */
	int64_t		ntx,
				nty;			/* tiles per row, per column */
	size_t		hlen;			/* frame pixels kept per tile */
	void	   *halos;			/* per tile two frames: last used, gathered */
	uint8_t    *cur;			/* per tile, which of its frames was last used */
	uint8_t    *sides;			/* per tile, PbNbBlockBits of the pixels it changed */
	const int64_t *cand;		/* tiles of this round */
	bool		first;			/* first round: full scans, clip frames */
	TileSlot   *slots;
	int			nslots;
	size_t		slot_bytes;		/* bytes of one padded tile buffer */
	size_t		row_bytes;		/* bytes of TileSlot.row */
	atomic_int	nomem;			/* some item ran out of memory */
} TileCtx;

/* The kernels of one pixel type x operation. */
typedef struct ReconImpl
{
	void		(*clip) (void *J, const void *I, int64_t n);
	void		(*gather) (TileCtx *c, int64_t tile);
	void		(*process) (TileCtx *c, int64_t tile, TileSlot *sl);
} ReconImpl;

/* Origin and size of tile t (clipped to the image). */
static inline void
TileGeom(const TileCtx *c, int64_t t, int64_t *x0, int64_t *y0, int *w, int *h)
{
	*x0 = (t % c->ntx) * c->T;
	*y0 = (t / c->ntx) * c->T;
	*w = (int) (c->W - *x0 < c->T ? c->W - *x0 : c->T);
	*h = (int) (c->H - *y0 < c->T ? c->H - *y0 : c->T);
}

/*
 * Position (fx, fy) in the padded tile of frame pixel k; frames are laid
 * out as the top row (w + 2), the bottom row (w + 2), the left column (h)
 * and the right column (h).
 */
static inline void
FramePos(size_t k, int w, int h, int *fx, int *fy)
{
	size_t		row = (size_t) w + 2;

	if (k < row)
	{
		*fx = (int) k;
		*fy = 0;
	}
	else if (k < 2 * row)
	{
		*fx = (int) (k - row);
		*fy = h + 1;
	}
	else if (k < 2 * row + (size_t) h)
	{
		*fx = 0;
		*fy = (int) (k - 2 * row) + 1;
	}
	else
	{
		*fx = w + 1;
		*fy = (int) (k - 2 * row - (size_t) h) + 1;
	}
}

/*
 * The kernels of each pixel type x operation, from recon_template.h;
 * RT_WORST is the value that never wins.
 */
#define RT_PREFIX U8Dil
#define RT_TYPE uint8_t
#define RT_BETTER BETTER_DIL
#define RT_WORST 0
#include "recon_template.h"

#define RT_PREFIX U8Ero
#define RT_TYPE uint8_t
#define RT_BETTER BETTER_ERO
#define RT_WORST UINT8_MAX
#include "recon_template.h"

#define RT_PREFIX U16Dil
#define RT_TYPE uint16_t
#define RT_BETTER BETTER_DIL
#define RT_WORST 0
#include "recon_template.h"

#define RT_PREFIX U16Ero
#define RT_TYPE uint16_t
#define RT_BETTER BETTER_ERO
#define RT_WORST UINT16_MAX
#include "recon_template.h"

#define RT_PREFIX F32Dil
#define RT_TYPE float
#define RT_BETTER BETTER_DIL
#define RT_WORST (-INFINITY)
#include "recon_template.h"

#define RT_PREFIX F32Ero
#define RT_TYPE float
#define RT_BETTER BETTER_ERO
#define RT_WORST INFINITY
#include "recon_template.h"

/*
 * Whether marker and mask are images reconstruction accepts (same size and
 * type, known type, data present when there are pixels) and op is one.
 */
static bool
ReconImagesOk(const PbImage *marker, const PbImage *mask, PbReconOp op)
{
	if (marker == NULL || mask == NULL ||
		(op != PB_RECON_DILATE && op != PB_RECON_ERODE) ||
		marker->width != mask->width || marker->height != mask->height ||
		marker->type != mask->type || marker->width < 0 || marker->height < 0 ||
		PbPixSize(marker->type) == 0)
		return false;
	return marker->width == 0 || marker->height == 0 ||
		(marker->data != NULL && mask->data != NULL);
}

/* Check the arguments of a reconstruction (see image.h). */
PbStatus
PbReconCheck(const PbImage *marker, const PbImage *mask, int connectivity,
			 PbReconOp op)
{
	if (!ReconImagesOk(marker, mask, op) || (connectivity != 4 && connectivity != 8))
		return PB_ERR_BADARG;
	return PB_OK;
}

/* Check marker, mask and op and pick the kernels; NULL when they are bad. */
static const ReconImpl *
ReconPick(const PbImage *marker, const PbImage *mask, PbReconOp op)
{
	bool		dil = op == PB_RECON_DILATE;

	if (!ReconImagesOk(marker, mask, op))
		return NULL;
	switch (marker->type)
	{
		case PB_PIX_1BB:
		case PB_PIX_8BUI:
			return dil ? &U8DilImpl : &U8EroImpl;
		case PB_PIX_16BUI:
			return dil ? &U16DilImpl : &U16EroImpl;
		case PB_PIX_32BF:
			break;
	}
	return dil ? &F32DilImpl : &F32EroImpl;
}

/* Clip marker to mask in place (see image.h). */
PbStatus
PbReconClip(PbImage *marker, const PbImage *mask, PbReconOp op)
{
	const ReconImpl *impl = ReconPick(marker, mask, op);

	if (impl == NULL)
		return PB_ERR_BADARG;
	if (marker->width > 0 && marker->height > 0)
		impl->clip(marker->data, mask->data,
				   (int64_t) marker->width * marker->height);
	return PB_OK;
}

/*
 * Take a free scratch slot (at most nslots items run at once, so one is
 * free) and make sure its buffers exist; NULL (slot released) when they
 * cannot be allocated.
 */
static TileSlot *
SlotTake(TileCtx *c)
{
	for (;;)
		for (int i = 0; i < c->nslots; i++)
		{
			TileSlot   *sl = &c->slots[i];
			int			expect = 0;

			if (!atomic_compare_exchange_strong(&sl->busy, &expect, 1))
				continue;
			if (sl->J == NULL)
			{
				sl->J = malloc(2 * c->slot_bytes + c->row_bytes);
				if (sl->J == NULL)
				{
					atomic_store(&sl->busy, 0);
					return NULL;
				}
				sl->I = (char *) sl->J + c->slot_bytes;
				sl->row = (char *) sl->J + 2 * c->slot_bytes;
			}
			return sl;
		}
}

/* PbParallelFor item: gather the frame of the round's i-th tile. */
static void
GatherItem(void *arg, int64_t i)
{
	TileCtx    *c = arg;

	c->impl->gather(c, c->cand[i]);
}

/* PbParallelFor item: run the round's i-th tile on a free scratch slot. */
static void
ProcessItem(void *arg, int64_t i)
{
	TileCtx    *c = arg;
	TileSlot   *sl;

	if (atomic_load(&c->nomem))
		return;
	sl = SlotTake(c);
	if (sl == NULL)
	{
		atomic_store(&c->nomem, 1);
		return;
	}
	c->impl->process(c, c->cand[i], sl);
	atomic_store(&sl->busy, 0);
}

/*
 * The next round's tiles: neighbours, across the sides (and, with
 * 8-connectivity, corners) they changed, of the tiles that ran this round.
 * stamp[] marks tiles already listed for round number round.
 */
static int64_t
NextRound(const TileCtx *c, const int64_t *ran, int64_t nran, int64_t *next,
		  int64_t *stamp, int64_t round)
{
	int64_t		n = 0;

	for (int64_t i = 0; i < nran; i++)
	{
		int64_t		t = ran[i];
		int64_t		tx = t % c->ntx,
					ty = t / c->ntx;

		if (c->sides[t] == 0)
			continue;
		for (int k = 0; k < c->conn; k++)
		{
			int64_t		nx = tx + PbNbDx(k),
						ny = ty + PbNbDy(k),
						nt = ny * c->ntx + nx;

			if (!(c->sides[t] & (1u << k)) || nx < 0 || ny < 0 ||
				nx >= c->ntx || ny >= c->nty || stamp[nt] == round)
				continue;
			stamp[nt] = round;
			next[n++] = nt;
		}
	}
	return n;
}

/* The rounds of the tiled reconstruction; c is fully set up. */
static PbStatus
TileRounds(TileCtx *c, const PbRun *run, int64_t *cand, int64_t *next,
		   int64_t *stamp)
{
	PbRun one = {1, 0, NULL, NULL};
	int64_t		ntiles = c->ntx * c->nty;
	int64_t		ncand = ntiles;

	for (int64_t t = 0; t < ntiles; t++)
		cand[t] = t;
	for (int64_t round = 1; ncand > 0; round++)
	{
		PbStatus st;
		int64_t    *swap;

		c->cand = cand;
		c->first = round == 1;
		/* small frame sets are not worth starting threads for */
		st = PbParallelFor((uint64_t) ncand * c->hlen <= RECON_SERIAL_GATHER ?
						   &one : run, ncand, GatherItem, c);
		if (st != PB_OK)
			return st;
		st = PbParallelFor(run, ncand, ProcessItem, c);
		if (st != PB_OK)
			return st;
		if (atomic_load(&c->nomem))
			return PB_ERR_NOMEM;
		ncand = NextRound(c, cand, ncand, next, stamp, round);
		swap = cand;
		cand = next;
		next = swap;
	}
	return PB_OK;
}

/* Tiled multi-threaded reconstruction (see image.h and the top). */
PbStatus
PbReconstructCpu(PbImage *marker, const PbImage *mask, int connectivity,
				 PbReconOp op, const PbRun *run)
{
	const ReconImpl *impl = ReconPick(marker, mask, op);
	PbRun one = {1, 0, NULL, NULL};
	TileCtx		c;
	size_t		sz;
	int64_t		ntiles;
	int			threads;
	int64_t    *cand,
			   *next,
			   *stamp;
	PbStatus st = PB_ERR_NOMEM;

	if (PbReconCheck(marker, mask, connectivity, op) != PB_OK ||
		(run != NULL && run->tile < 0))
		return PB_ERR_BADARG;
	if (marker->width == 0 || marker->height == 0)
		return PB_OK;
	if (run == NULL)
		run = &one;
	sz = PbPixSize(marker->type);
	threads = run->threads > 1 ? run->threads : 1;

	memset(&c, 0, sizeof(c));
	c.impl = impl;
	c.J = marker->data;
	c.I = mask->data;
	c.W = marker->width;
	c.H = marker->height;
	c.conn = connectivity;
	c.T = run->tile > 0 ? run->tile : RECON_DEFAULT_TILE;
	if (c.T > RECON_MAX_TILE)
		c.T = RECON_MAX_TILE;
	c.ntx = (c.W + c.T - 1) / c.T;
	c.nty = (c.H + c.T - 1) / c.T;
	ntiles = c.ntx * c.nty;
	{
		int64_t		tw = c.W < c.T ? c.W : c.T,
					th = c.H < c.T ? c.H : c.T;

		c.hlen = (size_t) (2 * (tw + 2) + 2 * th);
		c.slot_bytes = (size_t) ((tw + 2) * (th + 2)) * sz;
		c.row_bytes = (size_t) (tw + 2) * (sz + 1);
	}
	c.nslots = threads < RECON_MAX_SLOTS ? threads : RECON_MAX_SLOTS;
	atomic_init(&c.nomem, 0);

	if ((uint64_t) ntiles > SIZE_MAX / 2 / sz / c.hlen)
		return PB_ERR_NOMEM;
	c.halos = malloc((size_t) ntiles * 2 * c.hlen * sz);
	c.cur = calloc((size_t) ntiles, 1);
	c.sides = calloc((size_t) ntiles, 1);
	c.slots = calloc((size_t) c.nslots, sizeof(TileSlot));
	cand = malloc((size_t) ntiles * sizeof(int64_t));
	next = malloc((size_t) ntiles * sizeof(int64_t));
	stamp = calloc((size_t) ntiles, sizeof(int64_t));
	if (c.halos && c.cur && c.sides && c.slots && cand && next && stamp)
	{
		for (int i = 0; i < c.nslots; i++)
			atomic_init(&c.slots[i].busy, 0);
		st = TileRounds(&c, run, cand, next, stamp);
	}
	for (int i = 0; c.slots != NULL && i < c.nslots; i++)
	{
		free(c.slots[i].J);
		free(c.slots[i].q.buf);
	}
	free(c.halos);
	free(c.cur);
	free(c.sides);
	free(c.slots);
	free(cand);
	free(next);
	free(stamp);
	return st;
}
