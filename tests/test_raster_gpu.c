/*
 * test_raster_gpu.c: the raster GPU kernels (cuda/recon_*.cu,
 * cuda/edt_*.cu) against the CPU core: PbGpuReconstruct must equal
 * PbReconstructSeq pixel for pixel, PbGpuDistance must equal PbDistanceCpu
 * bit for bit (its nearest pixels must be background and at exactly the
 * reported distance).  Images: random noise and blobs of every pixel type,
 * floats with infinities and signed zeros, sizes from 1x1 to 2048x2048 and
 * odd non-square ones, spirals and mazes (long propagation paths), border
 * floods (hole filling), h-maxima; a tiny memory budget forcing tiles and
 * strips; a tiny queue forcing overflow re-runs; polling; bad arguments.
 * Timings at 8192^2 (reconstruction) and 16384^2 (distance transform) are
 * printed with PB_TEST_VERBOSE=1.  Built only into pb_gpu_tests (make
 * gpu-check), which needs a CUDA device.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/pb_raster_gpu.h"
#include "../cuda/pb_raster_gpu_test.h"
#include "../src/core/raster/edt_hybrid.h"
#include "../src/core/raster/recon_hybrid.h"
#include "../src/core/raster/recon_window.h"
#include "harness.h"
#include "test_gpu_context.h"
#include "recon_ref.h"

#define GPU_BUDGET ((size_t) 8 << 30)	/* enough for every untiled test */

#define CPU_THREADS 16

/* malloc that aborts the test program on failure. */
static void *
RgMalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

/* Wall-clock milliseconds, for the timing notes. */
static double
NowMs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *const type_names[] = {"1BB", "8BUI", "16BUI", "32BF"};
static const char *const op_names[] = {"dilate", "erode"};

/* ---------------------------------------------------------------------- */
/* images */

/* A zeroed image. */
static PbImage
ImgNew(int w, int h, PbPixType t)
{
	PbImage		m;

	m.width = w;
	m.height = h;
	m.type = t;
	m.data = RgMalloc((size_t) w * h * PbPixSize(t));
	memset(m.data, 0, (size_t) w * h * PbPixSize(t));
	return m;
}

/* A copy of an image. */
static PbImage
ImgCopy(const PbImage *a)
{
	PbImage		m = ImgNew(a->width, a->height, a->type);

	memcpy(m.data, a->data, (size_t) a->width * a->height * PbPixSize(a->type));
	return m;
}

static void
ImgFree(PbImage *m)
{
	free(m->data);
	m->data = NULL;
}

/* The largest value of a type (+inf for floats). */
static double
TypeMax(PbPixType t)
{
	return t == PB_PIX_1BB ? 1 : t == PB_PIX_8BUI ? 255 : t == PB_PIX_16BUI ? 65535 : INFINITY;
}

/* The smallest value of a type (-inf for floats). */
static double
TypeMin(PbPixType t)
{
	return t == PB_PIX_32BF ? -INFINITY : 0;
}

/* A random value of the type; floats include infinities and signed zeros. */
static double
RandValue(Rng *r, PbPixType t)
{
	switch (t)
	{
		case PB_PIX_1BB:
			return (double) (RngNext(r) & 1);
		case PB_PIX_8BUI:
			return (double) RngRange(r, 0, 255);
		case PB_PIX_16BUI:
			return (double) RngRange(r, 0, 65535);
		case PB_PIX_32BF:
			switch (RngRange(r, 0, 15))
			{
				case 0:
					return INFINITY;
				case 1:
					return -INFINITY;
				case 2:
					return -0.0;
				case 3:
					return 0.0;
				case 4:
					return (double) (float) (RngDouble(r) * 1e-40);	/* subnormal */
				default:
					return (double) (float) ((RngDouble(r) - 0.5) * 2000.0);
			}
	}
	return 0;
}

/*
 * Fill m: style 0 uniform noise, 1 blobs (random rectangles of random
 * values painted over each other: plateaus, holes, long flat runs).
 */
static void
ImgFill(PbImage *m, Rng *r, int style)
{
	size_t		n = (size_t) m->width * m->height;

	if (style == 0)
	{
		for (size_t i = 0; i < n; i++)
			PbPixSet(m, i, RandValue(r, m->type));
		return;
	}
	for (size_t i = 0; i < n; i++)
		PbPixSet(m, i, RandValue(r, m->type));
	for (int k = 0; k < 40; k++)
	{
		int			x0 = (int) RngRange(r, 0, m->width - 1);
		int			y0 = (int) RngRange(r, 0, m->height - 1);
		int			x1 = (int) RngRange(r, x0, m->width - 1);
		int			y1 = (int) RngRange(r, y0, m->height - 1);
		double		v = RandValue(r, m->type);

		for (int y = y0; y <= y1; y++)
			for (int x = x0; x <= x1; x++)
				PbPixSet(m, (size_t) y * m->width + x, v);
	}
}

/* A marker for mask: random, clipped to it the way the operation needs. */
static PbImage
MarkerFor(const PbImage *mask, PbReconOp op, Rng *r, int style)
{
	PbImage		mk = ImgNew(mask->width, mask->height, mask->type);

	ImgFill(&mk, r, style);
	if (PbReconClip(&mk, mask, op) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "PbReconClip failed");
	return mk;
}

/* ---------------------------------------------------------------------- */
/* reconstruction checks */

/*
 * Reconstruct marker under mask on the GPU (budget bytes) and with
 * PbReconstructSeq; report the first differences.  Stats in *stats_out
 * (may be NULL).  Returns the number of differing pixels (or -1).
 */
static long
CheckRecon(const PbImage *marker, const PbImage *mask, int conn, PbReconOp op,
		   size_t budget, const char *what, PbRasterGpuStats *stats_out)
{
	PbImage		cpu = ImgCopy(marker);
	PbImage		gpu = ImgCopy(marker);
	PbRasterGpuStats st;
	char		err[256] = "";
	size_t		n = (size_t) marker->width * marker->height;
	long		diff = 0;
	int			rc;
	PbStatus cs;

	pb_test_context("%s: %dx%d %s conn %d %s budget %zu", what, marker->width,
					marker->height, type_names[marker->type], conn, op_names[op], budget);
	cs = PbReconstructSeq(&cpu, mask, conn, op);
	if (cs != PB_OK)
	{
		pb_check_fail(__FILE__, __LINE__, "PbReconstructSeq returned %d", (int) cs);
		diff = -1;
		goto out;
	}
	rc = PbGpuReconstruct(TestGpu(budget), &gpu, mask, conn, op, NULL, NULL, &st, err, sizeof(err));
	if (stats_out)
		*stats_out = st;
	if (rc != 0)
	{
		pb_check_fail(__FILE__, __LINE__, "PbGpuReconstruct returned %d: %s", rc, err);
		diff = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
	{
		double		a = PbPixGet(&cpu, i),
					b = PbPixGet(&gpu, i);

		if (a != b)
		{
			if (diff < 3)
				pb_check_fail(__FILE__, __LINE__,
							  "pixel (x %zu, y %zu): CPU %.9g, GPU %.9g (marker %.9g, mask %.9g)",
							  i % marker->width, i / marker->width, a, b,
							  PbPixGet(marker, i), PbPixGet(mask, i));
			diff++;
		}
	}
	if (diff > 0)
		pb_check_fail(__FILE__, __LINE__, "%ld of %zu pixels differ (tiles %d, rounds %d, overflows %d)",
					  diff, n, st.tiles, st.rounds, st.overflows);
out:
	ImgFree(&cpu);
	ImgFree(&gpu);
	return diff;
}

/* Random images of every type, size, connectivity and operation. */
void
test_rgpu_recon_random(void)
{
	static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {31, 17},
	{33, 64}, {64, 64}, {257, 129}, {1000, 3}, {3, 1000}, {515, 383}};
	Rng			r = {12345};

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int t = PB_PIX_1BB; t <= PB_PIX_32BF; t++)
			for (int conn = 4; conn <= 8; conn += 4)
				for (int op = 0; op < 2; op++)
					for (int style = 0; style < 2; style++)
					{
						PbImage		mask = ImgNew(sizes[s][0], sizes[s][1], (PbPixType) t);
						PbImage		mk;

						ImgFill(&mask, &r, style);
						mk = MarkerFor(&mask, (PbReconOp) op, &r, style);
						CheckRecon(&mk, &mask, conn, (PbReconOp) op, GPU_BUDGET, "random", NULL);
						ImgFree(&mask);
						ImgFree(&mk);
					}
}

/* Large blob images (2048 x 2048 and odd 1999 x 1237). */
void
test_rgpu_recon_large(void)
{
	static const int sizes[][2] = {{2048, 2048}, {1999, 1237}};
	Rng			r = {777};

	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 4; k++)
		{
			PbPixType	t = k == 0 ? PB_PIX_8BUI : k == 1 ? PB_PIX_16BUI : k == 2 ? PB_PIX_32BF : PB_PIX_1BB;
			PbImage		mask = ImgNew(sizes[s][0], sizes[s][1], t);
			PbImage		mk;
			PbReconOp	op = (PbReconOp) (k & 1);

			ImgFill(&mask, &r, 1);
			mk = MarkerFor(&mask, op, &r, 0);
			CheckRecon(&mk, &mask, k < 2 ? 8 : 4, op, GPU_BUDGET, "large", NULL);
			ImgFree(&mask);
			ImgFree(&mk);
		}
}

/*
 * Spiral of 1-pixel corridors with 1-pixel walls (one path through the
 * whole image, starting at (0, 0)); corridor pixels get random values in
 * [lo, hi], walls wall.
 */
static void
SpiralMask(PbImage *m, Rng *r, double lo, double hi, double wall)
{
	int			w = m->width,
				h = m->height;
	int			x0 = 0,
				y0 = 0,
				x1 = w - 1,
				y1 = h - 1;

	for (size_t i = 0; i < (size_t) w * h; i++)
		PbPixSet(m, i, wall);
#define SETC(x, y) PbPixSet(m, (size_t) (y) * w + (x), lo + floor(RngDouble(r) * (hi - lo + 1)))
	while (x0 <= x1 && y0 <= y1)
	{
		for (int x = x0; x <= x1; x++)
			SETC(x, y0);
		for (int y = y0; y <= y1; y++)
			SETC(x1, y);
		if (y1 > y0)
			for (int x = x1; x >= x0; x--)
				SETC(x, y1);
		if (x1 > x0)
			for (int y = y1; y >= y0 + 2; y--)
				SETC(x0, y);
		if (x0 + 1 <= x1 && y0 + 2 <= y1)
			SETC(x0 + 1, y0 + 2);
		x0 += 2;
		y0 += 2;
		x1 -= 2;
		y1 -= 2;
	}
#undef SETC
}

/*
 * A random maze (depth-first carving on cells of odd coordinates):
 * corridors random in [lo, hi], walls wall.
 */
static void
MazeMask(PbImage *m, Rng *r, double lo, double hi, double wall)
{
	int			cw = (m->width + 1) / 2,
				ch = (m->height + 1) / 2;
	int		   *stack = RgMalloc(sizeof(int) * (size_t) cw * ch);
	uint8_t    *seen = RgMalloc((size_t) cw * ch);
	int			sp = 0;

	memset(seen, 0, (size_t) cw * ch);
	for (size_t i = 0; i < (size_t) m->width * m->height; i++)
		PbPixSet(m, i, wall);
#define CELL(cx, cy) PbPixSet(m, (size_t) (2 * (cy)) * m->width + 2 * (cx), lo + floor(RngDouble(r) * (hi - lo + 1)))
	stack[sp++] = 0;
	seen[0] = 1;
	CELL(0, 0);
	while (sp > 0)
	{
		int			c = stack[sp - 1];
		int			cx = c % cw,
					cy = c / cw;
		int			opts[4],
					no = 0;
		static const int dx[4] = {1, -1, 0, 0},
					dy[4] = {0, 0, 1, -1};

		for (int d = 0; d < 4; d++)
		{
			int			nx = cx + dx[d],
						ny = cy + dy[d];

			if (nx >= 0 && nx < cw && ny >= 0 && ny < ch && !seen[ny * cw + nx] &&
				2 * nx < m->width && 2 * ny < m->height)
				opts[no++] = d;
		}
		if (no == 0)
		{
			sp--;
			continue;
		}
		{
			int			d = opts[RngRange(r, 0, no - 1)];
			int			nx = cx + dx[d],
						ny = cy + dy[d];

			PbPixSet(m, (size_t) (2 * cy + dy[d]) * m->width + 2 * cx + dx[d],
				   lo + floor(RngDouble(r) * (hi - lo + 1)));
			CELL(nx, ny);
			seen[ny * cw + nx] = 1;
			stack[sp++] = ny * cw + nx;
		}
	}
#undef CELL
	free(stack);
	free(seen);
}

/*
 * A long flood: mask a spiral (kind 0) or a maze of corridors in [20, 250]
 * between walls that stop op, the marker the weakest everywhere but at
 * the start (pixel 0).  Returns the marker; *mask gets the mask.
 */
static PbImage
FloodCase(int w, int h, PbPixType t, int kind, PbReconOp op, Rng *r, PbImage *mask)
{
	PbImage		mk = ImgNew(w, h, t);
	double		wall = op == PB_RECON_DILATE ? 0 : 255;

	*mask = ImgNew(w, h, t);
	if (kind == 0)
		SpiralMask(mask, r, 20, 250, wall);
	else
		MazeMask(mask, r, 20, 250, wall);
	for (size_t i = 0; i < (size_t) w * h; i++)
		PbPixSet(&mk, i, wall);
	PbPixSet(&mk, 0, PbPixGet(mask, 0));
	return mk;
}

/*
 * Spirals and mazes: a single seed at the path start must travel the
 * whole path, values dropping (dilation) or rising (erosion) on the way.
 */
void
test_rgpu_recon_spiral_maze(void)
{
	static const int sizes[][2] = {{64, 64}, {97, 31}, {512, 512}, {1023, 511}};
	Rng			r = {4242};

	for (int s = 0; s < 4; s++)
		for (int kind = 0; kind < 2; kind++)
			for (int conn = 4; conn <= 8; conn += 4)
				for (int op = 0; op < 2; op++)
				{
					PbPixType	t = (s + op) % 2 ? PB_PIX_32BF : PB_PIX_8BUI;
					PbImage		mask;
					PbImage		mk = FloodCase(sizes[s][0], sizes[s][1], t, kind, (PbReconOp) op,
											   &r, &mask);

					CheckRecon(&mk, &mask, conn, (PbReconOp) op, GPU_BUDGET,
							   kind == 0 ? "spiral" : "maze", NULL);
					ImgFree(&mask);
					ImgFree(&mk);
				}
}

/* The hole-filling marker: mask on the border, the type's max inside. */
static PbImage
BorderMarker(const PbImage *mask)
{
	PbImage		mk = ImgCopy(mask);
	int			w = mask->width,
				h = mask->height;

	for (int y = 1; y < h - 1; y++)
		for (int x = 1; x < w - 1; x++)
			PbPixSet(&mk, (size_t) y * w + x, TypeMax(mask->type));
	return mk;
}

/* Binary-ish blobs for hole filling: XOR of rectangles, some noise. */
static void
HoleMask(PbImage *m, Rng *r, int nrect, double noise)
{
	int			w = m->width,
				h = m->height;
	double		hi = TypeMax(m->type) == INFINITY ? 1.0 : TypeMax(m->type);

	for (size_t i = 0; i < (size_t) w * h; i++)
		PbPixSet(m, i, 0);
	for (int k = 0; k < nrect; k++)
	{
		int			x0 = (int) RngRange(r, 0, w - 1),
					y0 = (int) RngRange(r, 0, h - 1);
		int			x1 = x0 + (int) RngRange(r, 0, w / 4 + 1),
					y1 = y0 + (int) RngRange(r, 0, h / 4 + 1);

		for (int y = y0; y <= y1 && y < h; y++)
			for (int x = x0; x <= x1 && x < w; x++)
			{
				size_t		i = (size_t) y * w + x;

				PbPixSet(m, i, PbPixGet(m, i) == 0 ? hi : 0);
			}
	}
	for (size_t i = 0; i < (size_t) w * h; i++)
		if (RngDouble(r) < noise)
			PbPixSet(m, i, RngDouble(r) < 0.5 ? 0 : hi);
}

/* Border floods (fill holes: reconstruction by erosion) of every type. */
void
test_rgpu_recon_fill_holes(void)
{
	static const int sizes[][2] = {{1, 1}, {2, 9}, {50, 40}, {301, 299}, {2048, 1024}};
	Rng			r = {99};

	for (int s = 0; s < 5; s++)
		for (int t = PB_PIX_1BB; t <= PB_PIX_32BF; t++)
			for (int conn = 4; conn <= 8; conn += 4)
			{
				PbImage		mask = ImgNew(sizes[s][0], sizes[s][1], (PbPixType) t);
				PbImage		mk;

				HoleMask(&mask, &r, 30, 0.05);
				mk = BorderMarker(&mask);
				CheckRecon(&mk, &mask, conn, PB_RECON_ERODE, GPU_BUDGET, "fill holes", NULL);
				ImgFree(&mask);
				ImgFree(&mk);
			}
}

/* h-maxima style markers: mask - h, reconstruction by dilation. */
void
test_rgpu_recon_hmaxima(void)
{
	Rng			r = {31337};

	for (int t = PB_PIX_8BUI; t <= PB_PIX_32BF; t++)
		for (int conn = 4; conn <= 8; conn += 4)
		{
			PbImage		mask = ImgNew(733, 517, (PbPixType) t);
			PbImage		mk;
			double		hgt = t == PB_PIX_8BUI ? 20 : t == PB_PIX_16BUI ? 3000 : 37.5;

			ImgFill(&mask, &r, 1);
			if (t == PB_PIX_32BF)	/* finite values: mask - h must stay below */
				for (size_t i = 0; i < (size_t) 733 * 517; i++)
					if (isinf(PbPixGet(&mask, i)))
						PbPixSet(&mask, i, 0.25);
			mk = ImgCopy(&mask);
			for (size_t i = 0; i < (size_t) 733 * 517; i++)
			{
				double		v = PbPixGet(&mask, i) - hgt;

				PbPixSet(&mk, i, v < TypeMin(mk.type) ? TypeMin(mk.type) : v);
			}
			CheckRecon(&mk, &mask, conn, PB_RECON_DILATE, GPU_BUDGET, "h-maxima", NULL);
			ImgFree(&mask);
			ImgFree(&mk);
		}
}

/*
 * Case k of the tiled tests, into mask (made here, w x h of type t) and
 * the returned marker, *op possibly changed: k % 6 < 2 a spiral flooded
 * from its corner, < 4 holes filled from the border, else random fields.
 */
static PbImage
TiledCase(int k, int w, int h, PbPixType t, Rng *r, PbImage *mask, PbReconOp *op)
{
	PbImage		mk;

	if (k % 6 < 2)
		return FloodCase(w, h, t, 0, *op, r, mask);
	*mask = ImgNew(w, h, t);
	if (k % 6 < 4)
	{
		HoleMask(mask, r, 25, 0.02);
		mk = BorderMarker(mask);
		*op = PB_RECON_ERODE;
	}
	else
	{
		ImgFill(mask, r, 1);
		mk = MarkerFor(mask, *op, r, 0);
	}
	return mk;
}

/*
 * A tiny budget cuts the image into tiles: still equal to the CPU (and so
 * to the untiled run), also for a spiral crossing the tiles many times.
 */
void
test_rgpu_recon_tiles(void)
{
	Rng			r = {2024};

	for (int k = 0; k < 6; k++)
	{
		PbPixType	t = k % 3 == 0 ? PB_PIX_8BUI : k % 3 == 1 ? PB_PIX_16BUI : PB_PIX_32BF;
		PbReconOp	op = (PbReconOp) (k & 1);
		PbImage		mask;
		PbImage		mk = TiledCase(k, 301, 207, t, &r, &mask, &op);
		PbRasterGpuStats st;
		size_t		budget = (size_t) 96 << 10;

		memset(&st, 0, sizeof(st));
		CheckRecon(&mk, &mask, 4 + 4 * (k / 2 % 2), op, budget, "tiny budget", &st);
		if (st.tiles <= 1)
			pb_check_fail(__FILE__, __LINE__, "a budget of %zu bytes gave %d tiles for 301x207",
						  budget, st.tiles);
		CHECK(st.resident == 0);
		pb_test_note("k %d: %d tiles, %d rounds", k, st.tiles, st.rounds);
		ImgFree(&mask);
		ImgFree(&mk);
	}
}

/*
 * Tiles smaller than the budget allows (a forced largest tile) stay
 * resident on the device, their halos exchanged there: still equal to the
 * CPU, for floods crossing many tiles, every pixel type and both
 * operations, down to tiles one pixel wide at the image's edge.
 */
void
test_rgpu_recon_resident(void)
{
	Rng			r = {4711};

	for (int k = 0; k < 8; k++)
	{
		PbPixType	t = k % 3 == 0 ? PB_PIX_8BUI : k % 3 == 1 ? PB_PIX_16BUI : PB_PIX_32BF;
		PbReconOp	op = (PbReconOp) (k & 1);
		PbImage		mask;
		PbImage		mk = TiledCase(k, k < 6 ? 301 : 37, k < 6 ? 207 : 23, t, &r, &mask, &op);
		PbRasterGpuStats st;

		memset(&st, 0, sizeof(st));
		PbGpuReconTestTileCap(k < 6 ? 2000 : 16);
		CheckRecon(&mk, &mask, 4 + 4 * (k / 2 % 2), op, GPU_BUDGET, "resident tiles", &st);
		PbGpuReconTestTileCap(0);
		CHECK(st.tiles > 1);
		CHECK(st.resident == 1);
		pb_test_note("k %d: %d resident tiles, %d rounds", k, st.tiles, st.rounds);
		ImgFree(&mask);
		ImgFree(&mk);
	}
}

/* PbReconRegionFn: one region of a hybrid run on the GPU context ctx. */
static int
GpuRegionOn(void *ctx, PbImage *marker, const PbImage *mask, const PbRasterWindow *win,
			int connectivity, PbReconOp op, char *err, size_t err_len)
{
	PbRasterGpuStats st;

	return PbGpuReconstructWindow((PbGpu *) ctx, marker, mask, win, connectivity, op, NULL,
								  NULL, &st, err, err_len);
}

/*
 * Run window [x0, x1) x [y0, y1) of marker (its halo: the image's ring of
 * the extent, every third pixel raised to the mask) on the GPU of g and
 * with PbReconWindowCpu: the same image and the same border, byte for
 * byte.
 */
static void
CheckWindowGpu(PbGpu *g, const PbImage *marker, const PbImage *mask, int x0, int y0, int x1,
			   int y1, int conn, PbReconOp op)
{
	size_t		px = PbPixSize(mask->type);
	PbRasterWindow win = {x0, y0, x1, y1, x0 > 0 ? x0 - 1 : 0, y0 > 0 ? y0 - 1 : 0,
		x1 < mask->width ? x1 + 1 : mask->width, y1 < mask->height ? y1 + 1 : mask->height,
	NULL, NULL};
	int64_t		ew = win.hx1 - win.hx0,
				eh = win.hy1 - win.hy0;
	int64_t		nh = PbRingPixels(ew, eh),
				nb = PbRingPixels(x1 - x0, y1 - y0);
	char	   *halo = (char *) RgMalloc((size_t) nh * px),
			   *mring = (char *) RgMalloc((size_t) nh * px),
			   *bcpu = (char *) RgMalloc((size_t) nb * px),
			   *bgpu = (char *) RgMalloc((size_t) nb * px);
	void	   *s0 = RgMalloc((size_t) (ew * eh) * px),
			   *s1 = RgMalloc((size_t) (ew * eh) * px);
	PbImage		cpu = ImgCopy(marker),
				gpu = ImgCopy(marker);
	PbRasterGpuStats st;
	char		err[256] = "";
	int			rc;

	pb_test_context("window [%d,%d) x [%d,%d) of %dx%d %s conn %d %s", x0, x1, y0, y1,
					mask->width, mask->height, type_names[mask->type], conn, op_names[op]);
	PbRingGather(marker, win.hx0, win.hy0, win.hx1, win.hy1, halo);
	PbRingGather(mask, win.hx0, win.hy0, win.hx1, win.hy1, mring);
	for (int64_t i = 0; i < nh; i += 3)
		memcpy(halo + i * px, mring + i * px, px);
	win.halo = halo;
	win.border = bcpu;
	CHECK_INT(PbReconWindowCpu(&cpu, mask, &win, conn, op, false, s0, s1), PB_OK);
	win.border = bgpu;
	rc = PbGpuReconstructWindow(g, &gpu, mask, &win, conn, op, NULL, NULL, &st, err, sizeof(err));
	if (rc != 0)
		pb_check_fail(__FILE__, __LINE__, "PbGpuReconstructWindow returned %d: %s", rc, err);
	else
	{
		/* by value: the GPU's keys do not keep the sign of a zero (see CheckRecon) */
		PbImage		bc = {(int32_t) nb, 1, mask->type, bcpu},
					bg = {(int32_t) nb, 1, mask->type, bgpu};

		for (int64_t i = 0; i < (int64_t) mask->width * mask->height; i++)
			if (PbPixGet(&cpu, i) != PbPixGet(&gpu, i))
			{
				pb_check_fail(__FILE__, __LINE__, "pixel %lld: CPU %g, GPU %g", (long long) i,
							  PbPixGet(&cpu, i), PbPixGet(&gpu, i));
				break;
			}
		for (int64_t i = 0; i < nb; i++)
			if (PbPixGet(&bc, i) != PbPixGet(&bg, i))
			{
				pb_check_fail(__FILE__, __LINE__, "border pixel %lld: CPU %g, GPU %g",
							  (long long) i, PbPixGet(&bc, i), PbPixGet(&bg, i));
				break;
			}
		CHECK_INT(st.tiles, 1);
	}
	free(halo);
	free(mring);
	free(bcpu);
	free(bgpu);
	free(s0);
	free(s1);
	ImgFree(&cpu);
	ImgFree(&gpu);
}

/*
 * A window of a larger image on the GPU (PbGpuReconstructWindow) against
 * the CPU's (PbReconWindowCpu): random images of every type, windows
 * inside, at the edges, one pixel thin and the whole image; a spiral
 * crossing a window; the largest window PbGpuReconstructWindowSide gives
 * taken, one pixel more refused; bad windows refused.
 */
void
test_rgpu_recon_window(void)
{
	Rng			r = {8080};
	PbGpu	   *g = TestGpu(GPU_BUDGET);
	PbGpu	   *small = TestGpu((size_t) 8 << 20);
	char		err[256] = "";

	for (int k = 0; k < 24; k++)
	{
		PbPixType	t = (PbPixType) (k % 4);
		PbReconOp	op = (PbReconOp) (k / 4 % 2);
		int			w = (int) RngRange(&r, 1, 300),
					h = (int) RngRange(&r, 1, 200);
		PbImage		mask = ImgNew(w, h, t);
		PbImage		mk;
		int			x0 = (int) RngRange(&r, 0, w - 1),
					y0 = (int) RngRange(&r, 0, h - 1);
		int			x1 = k % 6 == 5 ? x0 + 1 : (int) RngRange(&r, x0 + 1, w),
					y1 = k % 6 == 4 ? y0 + 1 : (int) RngRange(&r, y0 + 1, h);

		ImgFill(&mask, &r, k % 2);
		mk = MarkerFor(&mask, op, &r, 1 - k % 2);
		CheckWindowGpu(g, &mk, &mask, x0, y0, x1, y1, 4 + 4 * (k / 8 % 2), op);
		if (k % 6 == 0)
			CheckWindowGpu(g, &mk, &mask, 0, 0, w, h, 8, op);
		ImgFree(&mask);
		ImgFree(&mk);
	}
	for (int op = 0; op < 2; op++)
	{
		PbImage		mask;
		PbImage		mk = FloodCase(700, 500, PB_PIX_8BUI, 0, (PbReconOp) op, &r, &mask);

		CheckWindowGpu(g, &mk, &mask, 100, 50, 600, 450, 8, (PbReconOp) op);
		ImgFree(&mask);
		ImgFree(&mk);
	}
	{
		int			side = PbGpuReconstructWindowSide(small, PB_PIX_16BUI, 8, PB_RECON_DILATE,
													  err, sizeof(err));
		PbImage		mask = ImgNew(side + 4, side + 4, PB_PIX_16BUI);
		PbImage		mk;
		PbRasterWindow win = {1, 1, side - 1, side - 1, 0, 0, side, side, NULL, NULL};
		PbRasterGpuStats st;
		char	   *halo = (char *) RgMalloc((size_t) 8 * (side + 2) * 2),
				   *border = (char *) RgMalloc((size_t) 8 * (side + 2) * 2);

		pb_test_note("largest window of 16-bit pixels in 8 MB: %d", side);
		CHECK(side > 100 && side < 1100);
		ImgFill(&mask, &r, 1);
		mk = MarkerFor(&mask, PB_RECON_DILATE, &r, 0);
		CheckWindowGpu(small, &mk, &mask, 1, 1, side - 1, side - 1, 8, PB_RECON_DILATE);
		PbRingGather(&mk, 0, 0, side + 1, side + 1, halo);
		win.halo = halo;
		win.border = border;
		win.x1 = win.y1 = side;
		win.hx1 = win.hy1 = side + 1;
		CHECK_INT(PbGpuReconstructWindow(small, &mk, &mask, &win, 8, PB_RECON_DILATE, NULL, NULL,
										 &st, err, sizeof(err)), -1);
		CHECK(strstr(err, "window is more than one tile of the GPU's budget") != NULL);
		/* an empty region, a halo'd extent not around it, no rings */
		win.x1 = win.x0;
		CHECK_INT(PbGpuReconstructWindow(g, &mk, &mask, &win, 8, PB_RECON_DILATE, NULL, NULL,
										 &st, err, sizeof(err)), -1);
		CHECK(strstr(err, "invalid reconstruction window") != NULL);
		win.x1 = 10;
		win.hx0 = 2;
		CHECK_INT(PbGpuReconstructWindow(g, &mk, &mask, &win, 8, PB_RECON_DILATE, NULL, NULL,
										 &st, err, sizeof(err)), -1);
		CHECK(strstr(err, "invalid reconstruction window") != NULL);
		win.hx0 = 0;
		win.halo = NULL;
		CHECK_INT(PbGpuReconstructWindow(g, &mk, &mask, &win, 8, PB_RECON_DILATE, NULL, NULL,
										 &st, err, sizeof(err)), -1);
		CHECK(strstr(err, "invalid reconstruction window") != NULL);
		free(halo);
		free(border);
		ImgFree(&mask);
		ImgFree(&mk);
	}
}

/*
 * Two GPU contexts in one hybrid run, each driven by its own thread
 * beside three CPU threads, as a backend drives several GPUs: the second
 * on device 1 where there is one, else a second context on device 0
 * standing in for it.  Spirals and mazes crossing every cell, both
 * operations: equal to the CPU, and both GPUs took regions.  A device
 * number CUDA does not list is refused with a reason.
 */
void
test_rgpu_recon_hybrid_gpus(void)
{
	char		err[256];
	int			count = PbGpuProbe(err, sizeof(err));
	PbGpu	   *g0 = TestGpu(GPU_BUDGET),
			   *g1;
	Rng			r = {3141};

	if (g0 == NULL)
		return;
	CHECK(PbGpuOpen(GPU_BUDGET, count, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "there is no CUDA device") != NULL);
	g1 = PbGpuOpen(GPU_BUDGET, count > 1 ? 1 : 0, err, sizeof(err));
	if (g1 == NULL)
		pb_check_fail(__FILE__, __LINE__, "a second context: %s", err);
	pb_test_note("second context on device %d of %d", count > 1 ? 1 : 0, count);
	for (int k = 0; k < 4; k++)
	{
		PbReconOp	op = (PbReconOp) (k & 1);
		PbPixType	t = k < 2 ? PB_PIX_8BUI : PB_PIX_32BF;
		PbImage		mask;
		PbImage		want = FloodCase(1201, 803, t, k % 2, op, &r, &mask);
		PbImage		got = ImgCopy(&want);
		PbReconDevice devs[2] = {
			{.run = GpuRegionOn, .ctx = g0, .block = 4},
			{.run = GpuRegionOn, .ctx = g1, .block = 3}
		};
		PbRun		run = {4, 0, NULL, NULL};
		PbReconHybridStats hs;

		CHECK_INT(PbReconstructCpu(&want, &mask, 8, op, &run), PB_OK);
		CHECK_INT(PbReconstructHybrid(&got, &mask, 8, op, &run, 64, devs, 2, &hs), PB_OK);
		CHECK(!devs[0].failed && !devs[1].failed);
		CHECK(devs[0].regions > 0 && devs[1].regions > 0);
		CHECK(memcmp(want.data, got.data, (size_t) mask.width * mask.height * PbPixSize(t)) == 0);
		pb_test_note("k %d: gpu regions %lld + %lld, cpu %lld", k, (long long) devs[0].regions,
					 (long long) devs[1].regions, (long long) hs.cpu_regions);
		ImgFree(&mask);
		ImgFree(&want);
		ImgFree(&got);
	}
	PbGpuClose(g1);
}

/* A tiny queue forces overflows and re-runs from the partial result. */
void
test_rgpu_recon_queue_overflow(void)
{
	Rng			r = {5150};
	int			overflows = 0;

	for (int k = 0; k < 4; k++)
	{
		PbImage		mask = ImgNew(257, 193, k < 2 ? PB_PIX_8BUI : PB_PIX_32BF);
		PbImage		mk;
		PbRasterGpuStats st;
		PbReconOp	op = (PbReconOp) (k & 1);

		memset(&st, 0, sizeof(st));
		if (k & 1)
		{
			HoleMask(&mask, &r, 20, 0.01);
			mk = BorderMarker(&mask);
		}
		else
		{
			MazeMask(&mask, &r, 20, 250, 0);
			mk = ImgNew(257, 193, mask.type);
			/* many seeds: a wide wavefront */
			for (size_t i = 0; i < (size_t) 257 * 193; i += 97)
				PbPixSet(&mk, i, PbPixGet(&mask, i));
		}
		PbGpuReconTestQueue(8);
		CheckRecon(&mk, &mask, k < 2 ? 8 : 4, op, GPU_BUDGET, "tiny queue", &st);
		PbGpuReconTestQueue(0);
		overflows += st.overflows;
		pb_test_note("k %d: %d rounds, %d overflows", k, st.rounds, st.overflows);
		ImgFree(&mask);
		ImgFree(&mk);
	}
	if (overflows == 0)
		pb_check_fail(__FILE__, __LINE__, "a queue of 8 items per block never overflowed");
}

/* A poll that says stop, and one that counts its calls. */
static int
PollStop(void *arg)
{
	(void) arg;
	return 1;
}

static int
PollCount(void *arg)
{
	(*(int *) arg)++;
	return 0;
}

/* Polling: a stop gives 1, a poll saying go on is called and changes nothing. */
void
test_rgpu_recon_poll(void)
{
	Rng			r = {8};
	PbImage		mask = ImgNew(300, 300, PB_PIX_8BUI);
	PbImage		mk,
				cpu;
	char		err[256] = "";
	int			calls = 0;
	int			rc;

	SpiralMask(&mask, &r, 20, 250, 0);
	mk = ImgNew(300, 300, PB_PIX_8BUI);
	PbPixSet(&mk, 0, PbPixGet(&mask, 0));
	cpu = ImgCopy(&mk);
	rc = PbGpuReconstruct(TestGpu(GPU_BUDGET), &cpu, &mask, 8, PB_RECON_DILATE, PollStop, NULL, NULL, err,
						  sizeof(err));
	if (rc != 1)
		pb_check_fail(__FILE__, __LINE__, "stop poll: returned %d (%s), want 1", rc, err);
	ImgFree(&cpu);
	cpu = ImgCopy(&mk);
	if (PbReconstructSeq(&cpu, &mask, 8, PB_RECON_DILATE) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "PbReconstructSeq failed");
	rc = PbGpuReconstruct(TestGpu(GPU_BUDGET), &mk, &mask, 8, PB_RECON_DILATE, PollCount, &calls, NULL, err,
						  sizeof(err));
	if (rc != 0)
		pb_check_fail(__FILE__, __LINE__, "counting poll: returned %d (%s)", rc, err);
	else if (memcmp(mk.data, cpu.data, (size_t) 300 * 300) != 0)
		pb_check_fail(__FILE__, __LINE__, "counting poll: result differs from the CPU");
	if (calls < 1)
		pb_check_fail(__FILE__, __LINE__, "poll was never called");
	ImgFree(&mask);
	ImgFree(&mk);
	ImgFree(&cpu);
}

/* Bad arguments fail with a reason and touch nothing; empty images are done. */
void
test_rgpu_recon_badarg(void)
{
	PbImage		a = ImgNew(10, 10, PB_PIX_8BUI);
	PbImage		b = ImgNew(10, 11, PB_PIX_8BUI);
	PbImage		e = {0, 5, PB_PIX_8BUI, NULL};
	char		err[256] = "";

	if (PbGpuReconstruct(TestGpu(GPU_BUDGET), &a, &a, 6, PB_RECON_DILATE, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "connectivity 6 accepted");
	else
		CHECK_STR_HAS(err, "invalid");
	if (PbGpuReconstruct(TestGpu(GPU_BUDGET), &a, &b, 4, PB_RECON_DILATE, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "different sizes accepted");
	if (PbGpuReconstruct(TestGpu(GPU_BUDGET), &e, &e, 4, PB_RECON_DILATE, NULL, NULL, NULL, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "empty image: %s", err);
	err[0] = '\0';
	if (PbGpuReconstruct(TestGpu(100), &a, &a, 4, PB_RECON_DILATE, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "a budget of 100 bytes accepted");
	else
		CHECK_STR_HAS(err, "budget");
	ImgFree(&a);
	ImgFree(&b);
}

/* ---------------------------------------------------------------------- */
/* distance transform checks */

/* The CPU's squared distance, products rounded apart (no contraction). */
static double
Sq2(int64_t y, int64_t x, int64_t by, int64_t bx, double sy, double sx)
{
	volatile double a = (double) (by - y) * sy;
	volatile double b = (double) (bx - x) * sx;
	volatile double a2 = a * a;
	volatile double b2 = b * b;

	return a2 + b2;
}

/*
 * Run both transforms on fg and compare: distances bit for bit, nearest
 * pixels background and at exactly the distance (-1 only when the CPU
 * says so).  Returns the number of bad pixels.
 */
static long
CheckEdt(const uint8_t *fg, int w, int h, double sy, double sx, int with_nearest,
		 size_t budget, const char *what, PbRasterGpuStats *stats_out)
{
	size_t		n = (size_t) w * h;
	float	   *dc = RgMalloc(n * sizeof(float));
	float	   *dg = RgMalloc(n * sizeof(float));
	int64_t    *nc = with_nearest ? RgMalloc(n * sizeof(int64_t)) : NULL;
	int64_t    *ng = with_nearest ? RgMalloc(n * sizeof(int64_t)) : NULL;
	PbRun run = {CPU_THREADS, 0, NULL, NULL};
	PbRasterGpuStats st;
	char		err[256] = "";
	long		bad = 0;
	int			rc;
	PbStatus cs;

	pb_test_context("%s: %dx%d spacing (%g, %g)%s budget %zu", what, w, h, sy, sx,
					with_nearest ? " nearest" : "", budget);
	memset(dg, 0xff, n * sizeof(float));
	if (ng)
		memset(ng, 0x7f, n * sizeof(int64_t));
	cs = PbDistanceCpu(fg, w, h, sy, sx, dc, nc, &run);
	if (cs != PB_OK)
	{
		pb_check_fail(__FILE__, __LINE__, "PbDistanceCpu returned %d", (int) cs);
		bad = -1;
		goto out;
	}
	rc = PbGpuDistance(TestGpu(budget), fg, w, h, sy, sx, dg, ng, NULL, NULL, &st, err, sizeof(err));
	if (stats_out)
		*stats_out = st;
	if (rc != 0)
	{
		pb_check_fail(__FILE__, __LINE__, "PbGpuDistance returned %d: %s", rc, err);
		bad = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
	{
		int64_t		y = (int64_t) (i / w),
					x = (int64_t) (i % w);

		if (memcmp(&dc[i], &dg[i], sizeof(float)) != 0)
		{
			if (bad < 3)
				pb_check_fail(__FILE__, __LINE__, "pixel (x %lld, y %lld): CPU %.9g, GPU %.9g (fg %d)",
							  (long long) x, (long long) y, dc[i], dg[i], fg[i]);
			bad++;
			continue;
		}
		if (ng)
		{
			int64_t		k = ng[i];
			int			ok;

			if (nc[i] < 0 || k < 0)
				ok = nc[i] == k;
			else
				ok = k < (int64_t) n && fg[k] == 0 &&
					(float) sqrt(Sq2(y, x, k / w, k % w, sy, sx)) == dg[i];
			if (!ok)
			{
				if (bad < 3)
					pb_check_fail(__FILE__, __LINE__,
								  "pixel (x %lld, y %lld): GPU nearest %lld is not a nearest background pixel (CPU %lld, dist %.9g)",
								  (long long) x, (long long) y, (long long) k, (long long) nc[i], dg[i]);
				bad++;
			}
		}
	}
	if (bad > 0)
		pb_check_fail(__FILE__, __LINE__, "%ld of %zu pixels wrong (strips %d)", bad, n, st.tiles);
out:
	free(dc);
	free(dg);
	free(nc);
	free(ng);
	return bad;
}

/* The spacings every distance comparison runs with. */
static const double rg_spacings[][2] = {{1.0, 1.0}, {0.5, 0.5}, {2.5, 0.5}, {0.3, 1.7}};

/* Random masks of several densities and sizes, all spacings. */
void
test_rgpu_edt_random(void)
{
	static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {31, 17}, {64, 64},
	{65, 130}, {257, 129}, {1000, 3}, {3, 1000}, {777, 555}, {2048, 2048}};
	static const double dens[] = {0.001, 0.05, 0.5, 0.97};
	Rng			r = {606};

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int d = 0; d < 4; d++)
		{
			int			w = sizes[s][0],
						h = sizes[s][1];
			uint8_t    *fg = RgMalloc((size_t) w * h);

			/* dens is the background density */
			for (size_t i = 0; i < (size_t) w * h; i++)
				fg[i] = RngDouble(&r) >= dens[d];
			for (int sp = 0; sp < 4; sp++)
				if (w * h <= 1000000 || sp < 2)
					CheckEdt(fg, w, h, rg_spacings[sp][0], rg_spacings[sp][1], sp != 1,
							 GPU_BUDGET, "random", NULL);
			free(fg);
		}
}

/* All background, all foreground, one background pixel, lines; up to the largest sides. */
void
test_rgpu_edt_special(void)
{
	static const int sizes[][2] = {{1, 1}, {5, 1}, {1, 5}, {37, 23}, {600, 400},
	{PB_EDT_MAX_SIDE, 2}, {2, PB_EDT_MAX_SIDE}};

	for (int s = 0; s < (int) (sizeof(sizes) / sizeof(sizes[0])); s++)
	{
		int			w = sizes[s][0],
					h = sizes[s][1];
		size_t		n = (size_t) w * h;
		uint8_t    *fg = RgMalloc(n);

		for (int sp = 0; sp < 4; sp++)
		{
			double		sy = rg_spacings[sp][0],
						sx = rg_spacings[sp][1];

			memset(fg, 0, n);
			CheckEdt(fg, w, h, sy, sx, 1, GPU_BUDGET, "all background", NULL);
			memset(fg, 1, n);
			CheckEdt(fg, w, h, sy, sx, 1, GPU_BUDGET, "all foreground", NULL);
			fg[0] = 0;
			CheckEdt(fg, w, h, sy, sx, 1, GPU_BUDGET, "corner background pixel", NULL);
			fg[0] = 1;
			fg[n - 1] = 0;
			CheckEdt(fg, w, h, sy, sx, 1, GPU_BUDGET, "last background pixel", NULL);
			fg[n - 1] = 1;
			fg[(size_t) (h / 2) * w + w / 2] = 0;
			CheckEdt(fg, w, h, sy, sx, 1, GPU_BUDGET, "centre background pixel", NULL);
			memset(fg, 1, n);
			for (int y = 0; y < h; y++)
				fg[(size_t) y * w + (y * 7) % w] = 0;
			CheckEdt(fg, w, h, sy, sx, 1, GPU_BUDGET, "slanted line", NULL);
			memset(fg, 1, n);
			for (int x = 0; x < w; x++)
				fg[(size_t) (h - 1) * w + x] = 0;
			CheckEdt(fg, w, h, sy, sx, 1, GPU_BUDGET, "bottom row", NULL);
		}
		free(fg);
	}
}

/* A tiny budget forces column and row strips; rows wider than shared memory. */
void
test_rgpu_edt_strips_wide(void)
{
	Rng			r = {17};
	PbRasterGpuStats st;
	int			w = 523,
				h = 411;
	uint8_t    *fg = RgMalloc((size_t) 523 * 411 > (size_t) 40000 * 5 ? (size_t) 523 * 411 : (size_t) 40000 * 5);

	for (size_t i = 0; i < (size_t) w * h; i++)
		fg[i] = RngDouble(&r) >= 0.002;
	for (int sp = 0; sp < 4; sp++)
	{
		memset(&st, 0, sizeof(st));
		CheckEdt(fg, w, h, rg_spacings[sp][0], rg_spacings[sp][1], 1, (size_t) 200 << 10,
				 "tiny budget", &st);
		if (st.tiles <= 1)
			pb_check_fail(__FILE__, __LINE__, "a budget of 200 KiB gave %d strips", st.tiles);
	}
	/* rows too wide for shared memory: the global-scratch row kernel */
	for (size_t i = 0; i < (size_t) 40000 * 5; i++)
		fg[i] = RngDouble(&r) >= 0.0005;
	for (int sp = 0; sp < 4; sp++)
		CheckEdt(fg, 40000, 5, rg_spacings[sp][0], rg_spacings[sp][1], 1, GPU_BUDGET, "wide rows", NULL);
	free(fg);
}

/* PbEdtColumnsFn: a column range on the GPU context ctx. */
static int
GpuColumnsOn(void *ctx, const uint8_t *fg, int32_t w, int32_t h, int32_t x0, int32_t x1,
			 void *colrows, char *err, size_t err_len)
{
	PbRasterGpuStats st;

	return PbGpuDistanceColumns((PbGpu *) ctx, fg, w, h, x0, x1, colrows, NULL, NULL, &st,
								err, err_len);
}

/* PbEdtRowsFn: a row range on the GPU context ctx. */
static int
GpuRowsOn(void *ctx, int32_t w, int32_t h, double sy, double sx, int32_t y0, int32_t y1,
		  float *dist, int64_t *nearest, char *err, size_t err_len)
{
	PbRasterGpuStats st;

	return PbGpuDistanceRows((PbGpu *) ctx, w, h, sy, sx, y0, y1, dist, nearest, NULL, NULL,
							 &st, err, err_len);
}

/*
 * The hybrid distance transform with two GPU contexts (the second on
 * device 1 where there is one), each in strips of a small budget, alone
 * (the GPUs computed every pixel of both passes) and beside three CPU
 * threads (the first GPU, driven by the calling thread, takes the first
 * range of the column pass): distances and nearest pixels equal to the CPU's,
 * bit for bit, every spacing.  Also the plan (one piece at a large budget,
 * strips at a small one) and the passes' range checks.
 */
void
test_rgpu_edt_hybrid(void)
{
	char		err[256];
	int			count = PbGpuProbe(err, sizeof(err));
	PbGpu	   *g0 = TestGpu((size_t) 2 << 20),
			   *g1;
	Rng			r = {2718};
	int			w = 2403,
				h = 1707;
	int32_t		cols = 0,
				rows = 0;
	uint8_t    *fg = RgMalloc((size_t) w * h);
	float	   *want = RgMalloc((size_t) w * h * sizeof(float)),
			   *got = RgMalloc((size_t) w * h * sizeof(float));
	int64_t    *want_near = RgMalloc((size_t) w * h * sizeof(int64_t)),
			   *got_near = RgMalloc((size_t) w * h * sizeof(int64_t));

	if (g0 == NULL)
		return;
	g1 = PbGpuOpen((size_t) 3 << 20, count > 1 ? 1 : 0, err, sizeof(err));
	if (g1 == NULL)
		pb_check_fail(__FILE__, __LINE__, "a second context: %s", err);
	for (size_t i = 0; i < (size_t) w * h; i++)
		fg[i] = RngDouble(&r) >= 0.001;
	CHECK_INT(PbGpuDistancePlan(g0, w, h, true, &cols, &rows, err, sizeof(err)), 0);
	CHECK(cols >= 1 && cols < w && rows >= 1 && rows < h);
	pb_test_note("strips at 2 MiB: %d columns, %d rows", cols, rows);
	for (int sp = 0; sp < 4; sp++)
	{
		PbRun		run = {sp < 2 ? 1 : 4, 0, NULL, NULL};
		PbEdtHybridStats hs;
		PbEdtDevice devs[2] = {
			{.columns = GpuColumnsOn, .rows = GpuRowsOn, .ctx = g0, .take_columns = cols,
			.take_rows = rows},
			{.columns = GpuColumnsOn, .rows = GpuRowsOn, .ctx = g1, .take_columns = 150,
			.take_rows = 100}
		};
		double		sy = rg_spacings[sp][0],
					sx = rg_spacings[sp][1];
		bool		with_near = sp % 2 == 0;

		CHECK_INT(PbDistanceCpu(fg, w, h, sy, sx, want, with_near ? want_near : NULL, &run), PB_OK);
		CHECK_INT(PbDistanceHybrid(fg, w, h, sy, sx, got, with_near ? got_near : NULL, &run, devs, 2,
								   &hs), PB_OK);
		if (devs[0].failed || devs[1].failed)
			pb_check_fail(__FILE__, __LINE__, "a GPU failed: %s / %s", devs[0].err, devs[1].err);
		CHECK(devs[0].ranges >= 1);	/* the column pass's first range, at least */
		if (run.threads == 1)
			CHECK(hs.cpu_pixels == 0 && devs[0].pixels + devs[1].pixels == (int64_t) 2 * w * h);
		CHECK(memcmp(want, got, (size_t) w * h * sizeof(float)) == 0);
		if (with_near)
			CHECK(memcmp(want_near, got_near, (size_t) w * h * sizeof(int64_t)) == 0);
		pb_test_note("spacing %d: gpu ranges %lld + %lld, cpu %lld", sp, (long long) devs[0].ranges,
					 (long long) devs[1].ranges, (long long) hs.cpu_ranges);
	}
	CHECK_INT(PbGpuDistancePlan(TestGpu(GPU_BUDGET), w, h, true, &cols, &rows, err, sizeof(err)), 1);
	CHECK(cols == w && rows == h);
	if (PbGpuDistanceColumns(g1, fg, w, h, 5, 5, got, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "an empty column range accepted");
	else
		CHECK_STR_HAS(err, "invalid column range");
	if (PbGpuDistanceRows(g1, w, h, 1, 1, 0, h + 1, got, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "rows past the image accepted");
	else
		CHECK_STR_HAS(err, "invalid row range");
	PbGpuClose(g1);
	free(fg);
	free(want);
	free(got);
	free(want_near);
	free(got_near);
}

/* Polling and bad arguments of the distance transform. */
void
test_rgpu_edt_poll_badarg(void)
{
	uint8_t		fg[64 * 64];
	float		d[64 * 64];
	char		err[256] = "";
	int			calls = 0;
	int			rc;

	memset(fg, 1, sizeof(fg));
	fg[100] = 0;
	rc = PbGpuDistance(TestGpu(GPU_BUDGET), fg, 64, 64, 1, 1, d, NULL, PollStop, NULL, NULL, err, sizeof(err));
	if (rc != 1)
		pb_check_fail(__FILE__, __LINE__, "stop poll: returned %d (%s), want 1", rc, err);
	rc = PbGpuDistance(TestGpu(GPU_BUDGET), fg, 64, 64, 1, 1, d, NULL, PollCount, &calls, NULL, err, sizeof(err));
	if (rc != 0 || calls < 1)
		pb_check_fail(__FILE__, __LINE__, "counting poll: returned %d (%s), %d calls", rc, err, calls);
	if (PbGpuDistance(TestGpu(GPU_BUDGET), fg, 64, 64, 0, 1, d, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "spacing 0 accepted");
	if (PbGpuDistance(TestGpu(GPU_BUDGET), fg, PB_EDT_MAX_SIDE + 1, 1, 1, 1, d, NULL, NULL, NULL, NULL,
					  err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "width %d accepted", PB_EDT_MAX_SIDE + 1);
	if (PbGpuDistance(TestGpu(GPU_BUDGET), fg, 1, PB_EDT_MAX_SIDE + 1, 1, 1, d, NULL, NULL, NULL, NULL,
					  err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "height %d accepted", PB_EDT_MAX_SIDE + 1);
	if (PbGpuDistance(TestGpu(64), fg, 64, 64, 1, 1, d, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "a budget of 64 bytes accepted");
	else
		CHECK_STR_HAS(err, "budget");
	if (PbGpuDistance(TestGpu(GPU_BUDGET), fg, 0, 64, 1, 1, d, NULL, NULL, NULL, NULL, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "empty image: %s", err);
}

/* ---------------------------------------------------------------------- */
/* timings */

/*
 * Time one reconstruction at full size (the second of two runs, the first
 * warming the memory pool) and check it against PbReconstructSeq.
 */
static void
TimeRecon(const PbImage *mk, const PbImage *mask, int conn, PbReconOp op, const char *what)
{
	PbImage		g1 = ImgCopy(mk);
	PbImage		g2 = ImgCopy(mk);
	PbImage		cpu = ImgCopy(mk);
	PbRasterGpuStats st;
	char		err[256] = "";
	double		t0,
				t1,
				t2,
				t3;
	size_t		n = (size_t) mk->width * mk->height * PbPixSize(mk->type);

	pb_test_context("%s %dx%d", what, mk->width, mk->height);
	if (PbGpuReconstruct(TestGpu(GPU_BUDGET), &g1, mask, conn, op, NULL, NULL, &st, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "PbGpuReconstruct (warm-up) failed: %s", err);
	t0 = NowMs();
	if (PbGpuReconstruct(TestGpu(GPU_BUDGET), &g2, mask, conn, op, NULL, NULL, &st, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "PbGpuReconstruct failed: %s", err);
	t1 = NowMs();
	t2 = NowMs();
	if (PbReconstructSeq(&cpu, mask, conn, op) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "PbReconstructSeq failed");
	t3 = NowMs();
	if (memcmp(g2.data, cpu.data, n) != 0 || memcmp(g1.data, cpu.data, n) != 0)
		pb_check_fail(__FILE__, __LINE__, "GPU result differs from PbReconstructSeq");
	pb_test_note("%s %dx%d conn %d: GPU %.1f ms (kernels %.1f, transfers %.1f, %d rounds, %d overflows), "
				 "CPU sequential %.0f ms", what, mk->width, mk->height, conn, t1 - t0, st.kernel_ms,
				 st.transfer_ms, st.rounds, st.overflows, t3 - t2);
	ImgFree(&g1);
	ImgFree(&g2);
	ImgFree(&cpu);
}

/* Fill holes and h-maxima at 8192^2, the distance transform at 16384^2. */
void
test_rgpu_timings(void)
{
	Rng			r = {1};
	int			side = 8192;
	PbImage		mask = ImgNew(side, side, PB_PIX_8BUI);
	PbImage		mk;
	PbRasterGpuStats st;
	int			es = 16384;
	size_t		en = (size_t) es * es;
	uint8_t    *fg;
	float	   *dg,
			   *dc;
	PbRun run = {CPU_THREADS, 0, NULL, NULL};
	char		err[256] = "";
	double		t0,
				t1,
				t2,
				t3;

	HoleMask(&mask, &r, 400, 0.01);
	mk = BorderMarker(&mask);
	TimeRecon(&mk, &mask, 8, PB_RECON_ERODE, "fill holes");
	ImgFree(&mk);
	ImgFill(&mask, &r, 1);
	for (int k = 0; k < 2000; k++)	/* smaller blobs: many regional maxima */
	{
		int			x0 = (int) RngRange(&r, 0, side - 1),
					y0 = (int) RngRange(&r, 0, side - 1);
		int			v = (int) RngRange(&r, 0, 255);

		for (int y = y0; y < y0 + 100 && y < side; y++)
			for (int x = x0; x < x0 + 100 && x < side; x++)
				((uint8_t *) mask.data)[(size_t) y * side + x] = (uint8_t) ((v + x + y) & 255);
	}
	mk = ImgCopy(&mask);
	for (size_t i = 0; i < (size_t) side * side; i++)
	{
		int			v = ((uint8_t *) mask.data)[i] - 20;

		((uint8_t *) mk.data)[i] = (uint8_t) (v < 0 ? 0 : v);
	}
	TimeRecon(&mk, &mask, 8, PB_RECON_DILATE, "h-maxima");
	ImgFree(&mk);
	ImgFree(&mask);

	pb_test_context("distance transform %dx%d", es, es);
	fg = RgMalloc(en);
	dg = RgMalloc(en * sizeof(float));
	dc = RgMalloc(en * sizeof(float));
	for (size_t i = 0; i < en; i++)
		fg[i] = (RngNext(&r) & 1023) != 0;
	if (PbGpuDistance(TestGpu(GPU_BUDGET), fg, es, es, 1, 1, dg, NULL, NULL, NULL, &st, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "PbGpuDistance (warm-up) failed: %s", err);
	t0 = NowMs();
	if (PbGpuDistance(TestGpu(GPU_BUDGET), fg, es, es, 1, 1, dg, NULL, NULL, NULL, &st, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "PbGpuDistance failed: %s", err);
	t1 = NowMs();
	t2 = NowMs();
	if (PbDistanceCpu(fg, es, es, 1, 1, dc, NULL, &run) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "PbDistanceCpu failed");
	t3 = NowMs();
	if (memcmp(dg, dc, en * sizeof(float)) != 0)
		pb_check_fail(__FILE__, __LINE__, "GPU distances differ from PbDistanceCpu");
	pb_test_note("distance transform %dx%d: GPU %.1f ms (kernels %.1f, transfers %.1f), CPU %d threads %.0f ms",
				 es, es, t1 - t0, st.kernel_ms, st.transfer_ms, CPU_THREADS, t3 - t2);
	free(fg);
	free(dg);
	free(dc);
}
