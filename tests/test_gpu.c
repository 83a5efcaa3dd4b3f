/*
 * test_gpu.c: the PixelBox kernel against PixelBox-CPU and independent
 * truths (pixel counts of random masks), on random and adversarial pairs:
 * tiny, huge windows, long thin, many vertices (more than the kernel keeps
 * in shared memory), self-crossing rings.  Built only into pb_gpu_tests
 * (make gpu-check), which needs a CUDA device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/pb_gpu.h"
#include "testutil.h"

static PbGpu *gpu;

/* The device handle, opened once; NULL (a failed check) without a GPU. */
static PbGpu *
Gpu(void)
{
	char		err[256];

	if (gpu == NULL && (gpu = PbGpuOpen((size_t) 1 << 30, err, sizeof(err))) == NULL)
		pb_check_fail(__FILE__, __LINE__, "no GPU: %s", err);
	return gpu;
}

/* Run every pair of b on the GPU with the given kernel; malloc'd results. */
static int64_t *
RunGpu(const PbBatch *b, PbGpuKernel kernel)
{
	uint32_t   *idx = malloc(sizeof(uint32_t) * (b->npairs + 1));
	int64_t    *out = malloc(sizeof(int64_t) * (b->npairs + 1));
	char		err[256];
	int			st;

	for (uint32_t i = 0; i < b->npairs; i++)
		idx[i] = i;
	memset(out, 0xff, sizeof(int64_t) * (b->npairs + 1));
	if (Gpu() == NULL || PbGpuSubmit(gpu, b, idx, b->npairs, kernel, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "submit failed: %s", gpu ? err : "no GPU");
	else
	{
		while ((st = PbGpuPoll(gpu, err, sizeof(err))) == 0)
			;
		if (st < 0)
			pb_check_fail(__FILE__, __LINE__, "GPU failed: %s", err);
		else
			memcpy(out, PbGpuResults(gpu), sizeof(int64_t) * b->npairs);
	}
	free(idx);
	return out;
}

/* Compare both kernels with PixelBox-CPU (and truth when given) on every pair. */
static void
CheckBatch(const PbBatch *b, const int64_t *truth)
{
	PbScratch	sc;
	int64_t    *pbox = RunGpu(b, PB_GPU_PIXELBOX);
	int64_t    *ponly = truth ? RunGpu(b, PB_GPU_PIXEL_ONLY) : NULL;

	PbScratchInit(&sc, &PbMallocAllocator);
	for (uint32_t i = 0; i < b->npairs; i++)
	{
		double		cpu = PbAreaPixelBox(&sc, b, &b->shapes[b->pairs[i].a], &b->shapes[b->pairs[i].b]);

		if ((double) pbox[i] != cpu)
			pb_check_fail(__FILE__, __LINE__, "pair %u: GPU %lld, PixelBox-CPU %.17g", i,
						  (long long) pbox[i], cpu);
		if (truth && (cpu != (double) truth[i] || ponly[i] != truth[i]))
			pb_check_fail(__FILE__, __LINE__, "pair %u: truth %lld, CPU %.17g, PixelOnly %lld", i,
						  (long long) truth[i], cpu, (long long) ponly[i]);
	}
	PbScratchFree(&sc);
	free(pbox);
	free(ponly);
}

/* A mask filled by one of a few random recipes. */
static void
FillMask(Mask *m, Rng *r)
{
	if (RngRange(r, 0, 3) == 0)
		MaskNoise(m, r, 0.3 + 0.5 * RngDouble(r));
	else
		MaskRects(m, r, (int) RngRange(r, 1, 6));
}

/* Trace mask m with its cell (0,0) at (x0, y0) on the unit lattice; decode it. */
static uint32_t
DecodeMask(PbBatch *b, const Mask *m, int64_t x0, int64_t y0, Rng *r)
{
	int64_t    *xs = malloc(sizeof(int64_t) * (m->w + 1)),
			   *ys = malloc(sizeof(int64_t) * (m->h + 1));
	TGeom	   *g;
	uint32_t	s = 0;
	PbError		err;

	for (int i = 0; i <= m->w; i++)
		xs[i] = x0 + i;
	for (int j = 0; j <= m->h; j++)
		ys[j] = y0 + j;
	g = MaskTrace(m, xs, ys, r, 0);
	if (DecodeTg(b, g, 0, &s, &err) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "decode: %s", err.message);
	TgFree(g);
	free(xs);
	free(ys);
	return s;
}

/* Thousands of random mask pairs of nucleus size and larger: exact equality. */
void
test_gpu_random_masks(void)
{
	Rng			r = {0x5eed};
	PbBatch		b;
	int64_t    *truth = malloc(sizeof(int64_t) * 4000);

	PbBatchInit(&b, &PbMallocAllocator);
	for (int k = 0; k < 4000; k++)
	{
		int			big = k % 10 == 0;
		Mask		ma = MaskNew((int) RngRange(&r, 1, big ? 300 : 30), (int) RngRange(&r, 1, big ? 200 : 30));
		Mask		mb = MaskNew((int) RngRange(&r, 1, big ? 300 : 30), (int) RngRange(&r, 1, big ? 200 : 30));
		int64_t		ax = RngRange(&r, -50, 50),
					ay = RngRange(&r, -50, 50);
		int64_t		bx = RngRange(&r, -50, 50),
					by = RngRange(&r, -50, 50);
		uint32_t	sa,
					sb;

		FillMask(&ma, &r);
		FillMask(&mb, &r);
		sa = DecodeMask(&b, &ma, ax, ay, &r);
		sb = DecodeMask(&b, &mb, bx, by, &r);
		/* the kernel takes rectilinear integer shapes: skip empty masks */
		if (b.shapes[sa].kind == PB_SHAPE_INT && b.shapes[sb].kind == PB_SHAPE_INT)
		{
			int64_t		n = 0;

			for (int j = 0; j < ma.h; j++)
				for (int i = 0; i < ma.w; i++)
				{
					int64_t		u = ax + i - bx,
								v = ay + j - by;

					n += ma.bit[j * ma.w + i] && u >= 0 && v >= 0 && u < mb.w && v < mb.h &&
						mb.bit[v * mb.w + u];
				}
			truth[b.npairs] = n;
			PbBatchAddPair(&b, sa, sb);
		}
		MaskFree(&ma);
		MaskFree(&mb);
	}
	CHECK(b.npairs > 3500);
	CheckBatch(&b, truth);
	PbBatchFree(&b);
	free(truth);
}

/* Decode WKT (every test shape here is rectilinear integer). */
static uint32_t
Wkt(PbBatch *b, const char *wkt)
{
	uint32_t	s = DecodeWkt(b, wkt, 0);

	if (b->shapes[s].kind != PB_SHAPE_INT)
		pb_check_fail(__FILE__, __LINE__, "not an int shape: %.60s", wkt);
	return s;
}

/* A staircase ring of n steps from (x0, y0): 4n + 2 vertices. */
static char *
Staircase(int64_t x0, int64_t y0, int n, int step)
{
	size_t		cap = (size_t) n * 64 + 256;
	char	   *s = malloc(cap);
	size_t		len = (size_t) snprintf(s, cap, "POLYGON((%lld %lld", (long long) x0, (long long) y0);

	for (int i = 0; i < n; i++)
		len += (size_t) snprintf(s + len, cap - len, ",%lld %lld,%lld %lld",
								 (long long) (x0 + (int64_t) (i + 1) * step), (long long) (y0 + (int64_t) i * step),
								 (long long) (x0 + (int64_t) (i + 1) * step), (long long) (y0 + (int64_t) (i + 1) * step));
	snprintf(s + len, cap - len, ",%lld %lld,%lld %lld))", (long long) x0, (long long) (y0 + (int64_t) n * step),
			 (long long) x0, (long long) y0);
	return s;
}

/* Tiny, huge, long thin, many-vertex and self-crossing pairs. */
void
test_gpu_adversarial(void)
{
	PbBatch		b;
	Rng			r = {42};
	char	   *stair = Staircase(0, 0, 600, 3);	/* 2402 points: global path */
	char	   *stair2 = Staircase(5, -7, 300, 5);

	PbBatchInit(&b, &PbMallocAllocator);
	/* one pixel, touching, identical */
	PbBatchAddPair(&b, Wkt(&b, "POLYGON((0 0,1 0,1 1,0 1,0 0))"), Wkt(&b, "POLYGON((0 0,1 0,1 1,0 1,0 0))"));
	PbBatchAddPair(&b, Wkt(&b, "POLYGON((0 0,1 0,1 1,0 1,0 0))"), Wkt(&b, "POLYGON((1 0,2 0,2 1,1 1,1 0))"));
	/* huge windows near the +-2^30 limits: sampling boxes, never pixel by pixel */
	PbBatchAddPair(&b, Wkt(&b, "POLYGON((-1073741824 -1073741824,1073741824 -1073741824,1073741824 1073741824,-1073741824 1073741824,-1073741824 -1073741824))"),
				   Wkt(&b, "POLYGON((-5 -5,1000000000 -5,1000000000 7,-5 7,-5 -5),(0 0,3 0,3 3,0 3,0 0))"));
	PbBatchAddPair(&b, Wkt(&b, "POLYGON((0 0,1000000 0,1000000 1000000,0 1000000,0 0),(1 1,999999 1,999999 999999,1 999999,1 1))"),
				   Wkt(&b, "POLYGON((500000 -10,500003 -10,500003 1000010,500000 1000010,500000 -10))"));
	/* long and thin */
	PbBatchAddPair(&b, Wkt(&b, "POLYGON((0 0,100000 0,100000 1,0 1,0 0))"), Wkt(&b, "POLYGON((7 0,99990 0,99990 1,7 1,7 0))"));
	PbBatchAddPair(&b, Wkt(&b, "POLYGON((0 0,1 0,1 300000,0 300000,0 0))"), Wkt(&b, "POLYGON((-3 5,4 5,4 200000,-3 200000,-3 5))"));
	/* many vertices: more than the shared-memory edge cache */
	PbBatchAddPair(&b, Wkt(&b, stair), Wkt(&b, stair2));
	PbBatchAddPair(&b, Wkt(&b, stair), Wkt(&b, "POLYGON((10 10,900 10,900 1500,10 1500,10 10))"));
	/* random self-crossing / overlapping rectilinear rings (even-odd) */
	for (int k = 0; k < 300; k++)
	{
		TGeom	   *ga = RandomOrthoShape(&r, (int) RngRange(&r, 1, 3), 12, 0, 0, k % 3 ? 60 : 5000, k % 2);
		TGeom	   *gb = RandomOrthoShape(&r, (int) RngRange(&r, 1, 3), 12, 10, -5, k % 3 ? 60 : 5000, 0);
		uint32_t	sa,
					sb;
		PbError		err;

		if (DecodeTg(&b, ga, 0, &sa, &err) == PB_OK && DecodeTg(&b, gb, 0, &sb, &err) == PB_OK &&
			b.shapes[sa].kind == PB_SHAPE_INT && b.shapes[sb].kind == PB_SHAPE_INT)
			PbBatchAddPair(&b, sa, sb);
		TgFree(ga);
		TgFree(gb);
	}
	CheckBatch(&b, NULL);
	PbBatchFree(&b);
	free(stair);
	free(stair2);
}

/* A budget too small for the batch is an error with a reason, not a crash. */
void
test_gpu_budget_error(void)
{
	PbBatch		b;
	char		err[256] = "";
	uint32_t	idx = 0;
	PbGpu	   *small = PbGpuOpen(64, err, sizeof(err));

	CHECK(small != NULL);
	if (small == NULL)
		return;
	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchAddPair(&b, Wkt(&b, "POLYGON((0 0,4 0,4 4,0 4,0 0))"), Wkt(&b, "POLYGON((1 1,5 1,5 5,1 5,1 1))"));
	CHECK_INT(PbGpuSubmit(small, &b, &idx, 1, PB_GPU_PIXELBOX, err, sizeof(err)), -1);
	CHECK(strstr(err, "budget") != NULL);
	PbGpuClose(small);
	PbBatchFree(&b);
}
