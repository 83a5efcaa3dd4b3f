/*
 * test_gpu.c: the bitmap and PixelBox kernels against the CPU engines and
 * independent truths (pixel counts of random masks), on random and
 * adversarial pairs: tiny, huge windows, long thin, many vertices (more
 * than the PixelBox kernel keeps in shared memory), self-crossing rings,
 * and the heavy tails of real segmentations (a blob against hundreds of
 * nuclei, 1,000,000-px windows, 10,000-vertex rings, every tile edge).
 * Then submissions of several
 * parts: host pairs against the CPU engines, and the device MBR filter
 * against a brute-force CPU filter with PostGIS's float boxes and the
 * reference-point window (cut windows, empty and one-set parts, shapes it
 * must skip, more pairs than its first room).  Built only into
 * pb_gpu_tests (make gpu-check), which needs a CUDA device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/pb_gpu.h"
#include "../src/core/sccg/pb_sccg.h"
#include "testutil.h"

static PbGpu *gpu;

/* The device handle, opened once; NULL (a failed check) without a GPU. */
static PbGpu *
Gpu(void)
{
	char		err[256];

	if (gpu == NULL && (gpu = PbGpuOpen((size_t) 1 << 30, 0, err, sizeof(err))) == NULL)
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

/*
 * Compare the GPU kernels (bitmap, PixelBox, and PixelOnly when truth is
 * given) with the CPU engine method and with truth, on every pair.
 */
static void
CheckBatchWith(const PbBatch *b, const int64_t *truth, PbMethod method)
{
	PbScratch	sc;
	int64_t    *bitmap = RunGpu(b, PB_GPU_BITMAP);
	int64_t    *pbox = RunGpu(b, PB_GPU_PIXELBOX);
	int64_t    *ponly = truth ? RunGpu(b, PB_GPU_PIXEL_ONLY) : NULL;

	PbScratchInit(&sc, &PbMallocAllocator);
	for (uint32_t i = 0; i < b->npairs; i++)
	{
		double		cpu = PbIntersectionArea(&sc, b, b->pairs[i].a, b->pairs[i].b, method);

		if ((double) pbox[i] != cpu || (double) bitmap[i] != cpu)
		{
			pb_check_fail(__FILE__, __LINE__, "pair %u: GPU PixelBox %lld, bitmap %lld, CPU %.17g", i,
						  (long long) pbox[i], (long long) bitmap[i], cpu);
			break;
		}
		if (truth && (cpu != (double) truth[i] || ponly[i] != truth[i]))
		{
			pb_check_fail(__FILE__, __LINE__, "pair %u: truth %lld, CPU %.17g, PixelOnly %lld", i,
						  (long long) truth[i], cpu, (long long) ponly[i]);
			break;
		}
	}
	PbScratchFree(&sc);
	free(bitmap);
	free(pbox);
	free(ponly);
}

/* The GPU kernels against PixelBox-CPU (and truth when given). */
static void
CheckBatch(const PbBatch *b, const int64_t *truth)
{
	CheckBatchWith(b, truth, PB_METHOD_PIXELBOX);
}

/* Pixels set in both masks, ma with cell (0,0) at (ax, ay) and mb at (bx, by). */
static int64_t
MaskOverlap(const Mask *ma, int64_t ax, int64_t ay, const Mask *mb, int64_t bx, int64_t by)
{
	int64_t		n = 0;

	for (int j = 0; j < ma->h; j++)
		for (int i = 0; i < ma->w; i++)
		{
			int64_t		u = ax + i - bx,
						v = ay + j - by;

			n += ma->bit[j * ma->w + i] && u >= 0 && v >= 0 && u < mb->w && v < mb->h &&
				mb->bit[v * mb->w + u];
		}
	return n;
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
	uint32_t	s;

	for (int i = 0; i <= m->w; i++)
		xs[i] = x0 + i;
	for (int j = 0; j <= m->h; j++)
		ys[j] = y0 + j;
	g = MaskTrace(m, xs, ys, r, 0);
	s = DecodeTgChecked(b, g, 0);
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
			truth[b.npairs] = MaskOverlap(&ma, ax, ay, &mb, bx, by);
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

/*
 * Add the pair of masks ma at (ax, ay) and mb at (bx, by) with its pixel
 * count to b and truth (when both trace to integer shapes).
 */
static void
AddMaskPair(PbBatch *b, int64_t *truth, const Mask *ma, int64_t ax, int64_t ay,
			const Mask *mb, int64_t bx, int64_t by, Rng *r)
{
	uint32_t	sa = DecodeMask(b, ma, ax, ay, r),
				sb = DecodeMask(b, mb, bx, by, r);

	if (b->shapes[sa].kind != PB_SHAPE_INT || b->shapes[sb].kind != PB_SHAPE_INT)
		return;
	truth[b->npairs] = MaskOverlap(ma, ax, ay, mb, bx, by);
	PbBatchAddPair(b, sa, sb);
}

/* A w x h mask of random rectangles whose box is all of it (corners set). */
static Mask
FullBoxMask(Rng *r, int w, int h, int nrect)
{
	Mask		m = MaskNew(w, h);

	MaskRects(&m, r, nrect);
	m.bit[0] = 1;
	m.bit[(size_t) (h - 1) * w + (w - 1)] = 1;
	return m;
}

/*
 * The bitmap kernel's heavy tails, against pixel counts and the CPU: one
 * merged blob against hundreds of nuclei, 1,000,000-px windows, rings of
 * 10,000 vertices, and windows one pixel either side of every tile width
 * and height, all in one submission with tiny pairs.
 */
void
test_gpu_bitmap_tails(void)
{
	static const int sides[] = {1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300};
	const int	nsides = (int) (sizeof(sides) / sizeof(sides[0]));
	Rng			r = {0xb17};
	PbBatch		b;
	int64_t    *truth = malloc(sizeof(int64_t) * 2000);
	Mask		blob = FullBoxMask(&r, 1000, 1000, 60);
	char	   *stair = Staircase(0, 0, 2500, 4);	/* 10,002 points */
	char	   *stair2 = Staircase(3, -2, 2500, 4);

	PbBatchInit(&b, &PbMallocAllocator);
	for (int k = 0; k < 400; k++)
	{
		Mask		nuc = MaskNew((int) RngRange(&r, 3, 25), (int) RngRange(&r, 3, 25));

		FillMask(&nuc, &r);
		AddMaskPair(&b, truth, &blob, 0, 0, &nuc, RngRange(&r, -20, 1000), RngRange(&r, -20, 1000), &r);
		MaskFree(&nuc);
	}
	for (int k = 0; k < 6; k++)
	{
		Mask		m1 = FullBoxMask(&r, 1000, 1000, 30),
					m2 = FullBoxMask(&r, 1000, 1000, 30);

		AddMaskPair(&b, truth, &m1, 0, 0, &m2, k, -k, &r);
		MaskFree(&m1);
		MaskFree(&m2);
	}
	for (int i = 0; i < nsides; i++)
		for (int j = 0; j < nsides; j++)
		{
			Mask		m1 = FullBoxMask(&r, sides[i], sides[j], 4),
						m2 = MaskNew(sides[i], sides[j]);

			MaskNoise(&m2, &r, 0.6);
			AddMaskPair(&b, truth, &m1, 5, 9, &m2, 5, 9, &r);
			MaskFree(&m1);
			MaskFree(&m2);
		}
	CHECK(b.npairs > 550);
	CheckBatchWith(&b, truth, PB_METHOD_AUTO);
	PbBatchReset(&b);
	PbBatchAddPair(&b, Wkt(&b, stair), Wkt(&b, stair2));
	PbBatchAddPair(&b, Wkt(&b, stair), Wkt(&b, "POLYGON((100 100,1100 100,1100 1100,100 1100,100 100))"));
	PbBatchAddPair(&b, Wkt(&b, stair), Wkt(&b, "POLYGON((4000 0,4003 0,4003 9000,4000 9000,4000 0))"));
	CheckBatchWith(&b, NULL, PB_METHOD_AUTO);
	PbBatchFree(&b);
	MaskFree(&blob);
	free(truth);
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
	PbGpu	   *small = PbGpuOpen(64, 0, err, sizeof(err));

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

/*
 * Run parts on handle h and wait: the host pairs' areas (malloc'd) and a
 * malloc'd copy of the found pairs in *found (*nfound of them).  NULL (a
 * failed check) when the GPU failed; the reason in err when err is given.
 */
static int64_t *
RunPartsOn(PbGpu *h, const PbDevicePart *parts, uint32_t nparts, PbGpuKernel kernel,
		   PbDeviceFound **found, uint32_t *nfound, char *err, size_t err_len)
{
	size_t		nhost = 0;
	const PbDeviceFound *f;
	int64_t    *out;
	int			st;

	*found = NULL;
	*nfound = 0;
	for (uint32_t i = 0; i < nparts; i++)
		nhost += parts[i].filter ? 0 : parts[i].npairs;
	if (PbGpuSubmitParts(h, parts, nparts, kernel, err, err_len) != 0)
		return NULL;
	while ((st = PbGpuPoll(h, err, err_len)) == 0)
		;
	if (st < 0)
		return NULL;
	out = malloc(sizeof(int64_t) * (nhost + 1));
	memcpy(out, PbGpuResults(h), sizeof(int64_t) * nhost);
	*nfound = PbGpuFoundPairs(h, &f);
	*found = malloc(sizeof(PbDeviceFound) * (*nfound + 1));
	if (*nfound > 0)
		memcpy(*found, f, sizeof(PbDeviceFound) * *nfound);
	return out;
}

/* Order found pairs by part, then a, then b. */
static int
CmpFound(const void *x, const void *y)
{
	const PbDeviceFound *p = x,
			   *q = y;

	if (p->part != q->part)
		return p->part < q->part ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/*
 * Append to *out (grown as needed) the pairs filter part number pi must
 * find, by brute force on the CPU with PbBoxAsPostgisFloat boxes and the
 * reference-point window, in (a, b) order, with their CPU areas.
 */
static void
BruteFilter(const PbDevicePart *part, uint32_t pi, PbScratch *sc, PbDeviceFound **out,
			uint32_t *n, uint32_t *cap)
{
	const PbBatch *b = part->batch;
	uint32_t	split = part->split < b->nshapes ? part->split : b->nshapes;

	for (uint32_t i = 0; i < split; i++)
		for (uint32_t j = split; j < b->nshapes; j++)
		{
			PbBox		fa,
						fb;
			double		x,
						y;

			if (b->shapes[i].kind != PB_SHAPE_INT || b->shapes[j].kind != PB_SHAPE_INT)
				continue;
			fa = PbBoxAsPostgisFloat(b->shapes[i].box);
			fb = PbBoxAsPostgisFloat(b->shapes[j].box);
			if (fa.xmin > fb.xmax || fb.xmin > fa.xmax || fa.ymin > fb.ymax || fb.ymin > fa.ymax)
				continue;
			x = fa.xmin > fb.xmin ? fa.xmin : fb.xmin;
			y = fa.ymin > fb.ymin ? fa.ymin : fb.ymin;
			if (!(x >= part->ref.xmin && x < part->ref.xmax && y >= part->ref.ymin && y < part->ref.ymax))
				continue;
			if (*n == *cap)
			{
				*cap = *cap * 2 + 64;
				*out = realloc(*out, sizeof(PbDeviceFound) * *cap);
			}
			(*out)[(*n)++] = (PbDeviceFound) {pi, i, j,
				(int64_t) PbIntersectionArea(sc, b, i, j, PB_METHOD_AUTO)};
		}
}

/*
 * Run parts on the GPU with kernel and check every answer against the CPU:
 * each host pair's area against PbIntersectionArea, and the found pairs
 * (exactly once each) against BruteFilter.  Returns how many were found.
 */
static uint32_t
CheckParts(const PbDevicePart *parts, uint32_t nparts, PbGpuKernel kernel)
{
	PbScratch	sc;
	PbDeviceFound *found,
			   *want = NULL;
	uint32_t	nfound,
				nwant = 0,
				cap = 0;
	size_t		k = 0;
	char		err[256];
	int64_t    *out;

	if (Gpu() == NULL)
		return 0;
	out = RunPartsOn(gpu, parts, nparts, kernel, &found, &nfound, err, sizeof(err));
	if (out == NULL)
	{
		pb_check_fail(__FILE__, __LINE__, "GPU failed: %s", err);
		return 0;
	}
	PbScratchInit(&sc, &PbMallocAllocator);
	for (uint32_t i = 0; i < nparts; i++)
	{
		const PbDevicePart *p = &parts[i];

		if (p->filter)
		{
			BruteFilter(p, i, &sc, &want, &nwant, &cap);
			continue;
		}
		for (uint32_t j = 0; j < p->npairs; j++, k++)
		{
			PbPair		pr = p->pairs[p->pair_idx ? p->pair_idx[j] : j];
			double		cpu = PbIntersectionArea(&sc, p->batch, pr.a, pr.b, PB_METHOD_AUTO);

			if ((double) out[k] != cpu)
				pb_check_fail(__FILE__, __LINE__, "part %u pair %u (%u, %u): GPU %lld, CPU %.17g",
							  i, j, pr.a, pr.b, (long long) out[k], cpu);
		}
	}
	qsort(found, nfound, sizeof(PbDeviceFound), CmpFound);
	CHECK_INT(nfound, nwant);
	for (uint32_t i = 0; i < nfound && i < nwant; i++)
		if (CmpFound(&found[i], &want[i]) != 0 || found[i].area != want[i].area)
		{
			pb_check_fail(__FILE__, __LINE__, "found pair %u: GPU part %u (%u, %u) area %lld, CPU part %u (%u, %u) area %lld",
						  i, found[i].part, found[i].a, found[i].b, (long long) found[i].area,
						  want[i].part, want[i].a, want[i].b, (long long) want[i].area);
			break;
		}
	PbScratchFree(&sc);
	free(out);
	free(found);
	free(want);
	return nfound;
}

/*
 * CheckParts with the bitmap kernel and with the PixelBox kernel; both
 * must find the same pairs.  Returns how many.
 */
static uint32_t
CheckPartsExact(const PbDevicePart *parts, uint32_t nparts)
{
	uint32_t	n = CheckParts(parts, nparts, PB_GPU_BITMAP);

	CHECK_INT(CheckParts(parts, nparts, PB_GPU_PIXELBOX), n);
	return n;
}

/*
 * Append n shapes with corners in [x0, x0 + span)^2 to b: traced random
 * masks up to maxw cells across; when mixed, every 7th is a double shape
 * (a triangle on half-integers) and every 13th an empty one, which the
 * device filter must skip.
 */
static void
AddShapes(PbBatch *b, Rng *r, int n, int64_t x0, int64_t y0, int64_t span,
		  int maxw, int mixed)
{
	for (int k = 0; k < n; k++)
	{
		int64_t		x = x0 + RngRange(r, 0, span - 1),
					y = y0 + RngRange(r, 0, span - 1);

		if (mixed && k % 7 == 3)
		{
			char		wkt[256];
			double		w = (double) RngRange(r, 1, maxw);
			uint32_t	s;

			snprintf(wkt, sizeof(wkt), "POLYGON((%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f))",
					 x + 0.5, (double) y, x + w, y + 0.5, (double) x, y + w, x + 0.5, (double) y);
			s = DecodeWkt(b, wkt, 0);
			CHECK(b->shapes[s].kind == PB_SHAPE_DOUBLE);
		}
		else if (mixed && k % 13 == 5)
		{
			uint32_t	s = DecodeWkt(b, "POLYGON EMPTY", 0);

			CHECK(b->shapes[s].kind == PB_SHAPE_EMPTY);
		}
		else
		{
			Mask		m = MaskNew((int) RngRange(r, 1, maxw), (int) RngRange(r, 1, maxw));

			FillMask(&m, r);
			DecodeMask(b, &m, x, y, r);
			MaskFree(&m);
		}
	}
}

/* Queue up to n random pairs of int shapes of b among shapes [lo, hi]. */
static void
AddNearPairs(PbBatch *b, Rng *r, int n, uint32_t lo, uint32_t hi)
{
	for (int k = 0; k < n; k++)
	{
		uint32_t	i = (uint32_t) RngRange(r, lo, hi),
					j = (uint32_t) RngRange(r, lo, hi);

		if (b->shapes[i].kind == PB_SHAPE_INT && b->shapes[j].kind == PB_SHAPE_INT)
			PbBatchAddPair(b, i, j);
	}
}

/* A filter part of b: set a = [0, split), window ref. */
static PbDevicePart
FilterPart(const PbBatch *b, uint32_t split, PbBox ref)
{
	PbDevicePart	p;

	memset(&p, 0, sizeof(p));
	p.batch = b;
	p.filter = 1;
	p.split = split;
	p.ref = ref;
	PbDevicePartCount(&p);
	return p;
}

/* A host-pair part: pairs (or pairs[idx[k]]) of b. */
static PbDevicePart
HostPart(const PbBatch *b, const PbPair *pairs, const uint32_t *idx, uint32_t n)
{
	PbDevicePart	p;

	memset(&p, 0, sizeof(p));
	p.batch = b;
	p.pairs = pairs;
	p.pair_idx = idx;
	p.npairs = n;
	PbDevicePartCount(&p);
	return p;
}

static const PbBox all_plane = {-INFINITY, -INFINITY, INFINITY, INFINITY};

/*
 * Several batches as host-pair parts of one submission: all pairs, pairs
 * picked (and repeated) through pair_idx, none, and a pair array that is
 * not the batch's: every area as on the CPU, in submission order.
 */
void
test_gpu_parts_host_pairs(void)
{
	Rng			r = {0xba7c4};
	PbBatch		b[4];
	PbPair		own[500];
	uint32_t	idx[700];
	PbDevicePart	parts[5];

	for (int i = 0; i < 4; i++)
	{
		PbBatchInit(&b[i], &PbMallocAllocator);
		AddShapes(&b[i], &r, 400 + 100 * i, -100 * i, 50 * i, 150, i == 2 ? 60 : 25, 0);
		AddNearPairs(&b[i], &r, 600, 0, b[i].nshapes - 1);
	}
	for (int k = 0; k < 700; k++)
		idx[k] = (uint32_t) RngRange(&r, 0, b[1].npairs - 1);
	for (int k = 0; k < 500; k++)
		own[k] = (PbPair) {(uint32_t) RngRange(&r, 0, b[3].nshapes - 1), (uint32_t) RngRange(&r, 0, b[3].nshapes - 1)};
	for (int k = 0; k < 500; k++)
		if (b[3].shapes[own[k].a].kind != PB_SHAPE_INT || b[3].shapes[own[k].b].kind != PB_SHAPE_INT)
			own[k] = b[3].pairs[0];
	parts[0] = HostPart(&b[0], b[0].pairs, NULL, b[0].npairs);
	parts[1] = HostPart(&b[1], b[1].pairs, idx, 700);
	parts[2] = HostPart(&b[2], b[2].pairs, NULL, 0);
	parts[3] = HostPart(&b[3], own, NULL, 500);
	parts[4] = HostPart(&b[2], b[2].pairs, NULL, b[2].npairs);
	CheckPartsExact(parts, 5);
	CheckParts(parts, 5, PB_GPU_PIXEL_ONLY);
	for (int i = 0; i < 4; i++)
		PbBatchFree(&b[i]);
}

/*
 * The device filter against the brute-force CPU filter: whole plane,
 * four windows cutting through boxes (which together find each pair of the
 * whole plane once), a fractional window, an empty part, parts with one
 * set only, double and empty shapes in the sets, and coordinates beyond
 * 2^24 where float boxes touch int boxes that do not.
 */
void
test_gpu_filter_parts(void)
{
	Rng			r = {0xf117e5};
	PbBatch		b,
				none,
				far;
	PbDevicePart	parts[13];
	uint32_t	nall;

	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&none, &PbMallocAllocator);
	PbBatchInit(&far, &PbMallocAllocator);
	AddShapes(&b, &r, 700, 0, 0, 600, 30, 1);
	AddShapes(&b, &r, 800, 20, -10, 600, 30, 1);
	/* ~1e8 and ~-1e9: floats 8 and 64 apart, so rounded boxes meet more often */
	AddShapes(&far, &r, 300, 100000000, 100000000, 400, 12, 1);
	AddShapes(&far, &r, 300, -1000000000, 100000000, 2000, 40, 1);
	AddShapes(&far, &r, 300, 100000000, 100000000, 400, 12, 1);
	AddShapes(&far, &r, 300, -1000000000, 100000000, 2000, 40, 1);

	parts[0] = FilterPart(&b, 700, all_plane);
	CHECK((nall = CheckPartsExact(parts, 1)) > 200);
	/* quadrants split at x = 300, y = 250 (integers: many boxes start there) */
	parts[0] = FilterPart(&b, 700, (PbBox) {-INFINITY, -INFINITY, 300, 250});
	parts[1] = FilterPart(&b, 700, (PbBox) {300, -INFINITY, INFINITY, 250});
	parts[2] = FilterPart(&b, 700, (PbBox) {-INFINITY, 250, 300, INFINITY});
	parts[3] = FilterPart(&b, 700, (PbBox) {300, 250, INFINITY, INFINITY});
	CHECK_INT(CheckPartsExact(parts, 4), nall);
	parts[4] = FilterPart(&b, 700, (PbBox) {100.5, -INFINITY, 300.25, 250});
	parts[5] = FilterPart(&none, 0, all_plane);
	parts[6] = FilterPart(&b, 0, all_plane);
	parts[7] = FilterPart(&b, b.nshapes, all_plane);
	parts[8] = FilterPart(&b, UINT32_MAX, all_plane);
	parts[9] = FilterPart(&far, 600, all_plane);
	parts[10] = FilterPart(&far, 300, (PbBox) {-1e9 + 1000, -INFINITY, 100000200, INFINITY});
	parts[11] = FilterPart(&b, 1, all_plane);
	parts[12] = FilterPart(&b, b.nshapes - 1, (PbBox) {0, 0, 300, 300});
	CheckPartsExact(parts, 13);
	/* the empty and one-set parts alone: nothing found */
	CHECK_INT(CheckPartsExact(parts + 5, 4), 0);
	PbBatchFree(&b);
	PbBatchFree(&none);
	PbBatchFree(&far);
}

/*
 * A view of shapes ids[0..n) of src: their own copies, in that order, with
 * the rings and points left in src's arrays (as a pipeline task's batch).
 */
static void
ViewOf(PbBatch *view, const PbBatch *src, const uint32_t *ids, uint32_t n)
{
	PbBatchInit(view, &PbMallocAllocator);
	PbBatchReserve(view, n, 0, 0, 0);
	for (uint32_t i = 0; i < n; i++)
		view->shapes[i] = src->shapes[ids[i]];
	view->nshapes = n;
	view->rings = src->rings;
	view->nrings = src->nrings;
	view->ipts = src->ipts;
	view->nipts = src->nipts;
	view->dpts = src->dpts;
	view->ndpts = src->ndpts;
}

/* Free a view made by ViewOf (not the arrays it borrows). */
static void
ViewFree(PbBatch *view)
{
	view->rings = NULL;
	view->ipts = NULL;
	view->dpts = NULL;
	PbBatchFree(view);
}

/*
 * Parts whose batches borrow the arrays of a larger batch, their shapes
 * picked out of order (mixed kinds among them): the device gets each
 * shape's own rings and points, so filter and host-pair parts give the
 * CPU's answers, whatever else the arrays hold.
 */
void
test_gpu_parts_borrowed_arrays(void)
{
	Rng			r = {0xb0770};
	PbBatch		src,
				v[3];
	PbDevicePart	parts[3];
	uint32_t   *ids = malloc(sizeof(uint32_t) * 2000);
	uint32_t	n[3] = {900, 700, 0};

	PbBatchInit(&src, &PbMallocAllocator);
	AddShapes(&src, &r, 1000, 0, 0, 500, 30, 1);
	AddShapes(&src, &r, 1000, 10, 10, 500, 30, 1);
	/* view 0: every other shape of each half, backwards; view 1: a random pick */
	for (uint32_t i = 0; i < 450; i++)
	{
		ids[i] = 998 - 2 * i;
		ids[450 + i] = 1999 - 2 * i;
	}
	for (uint32_t i = 0; i < n[1]; i++)
		ids[900 + i] = (uint32_t) RngRange(&r, 0, src.nshapes - 1);
	ViewOf(&v[0], &src, ids, n[0]);
	ViewOf(&v[1], &src, ids + 900, n[1]);
	ViewOf(&v[2], &src, ids, n[2]);
	AddNearPairs(&v[1], &r, 800, 0, n[1] - 1);
	parts[0] = FilterPart(&v[0], 450, all_plane);
	parts[1] = HostPart(&v[1], v[1].pairs, NULL, v[1].npairs);
	parts[2] = FilterPart(&v[2], 0, all_plane);
	CHECK(parts[0].nipts < src.nipts / 2 + 1);
	CHECK(CheckPartsExact(parts, 3) > 100);
	CheckParts(parts + 1, 1, PB_GPU_PIXEL_ONLY);
	for (int i = 0; i < 3; i++)
		ViewFree(&v[i]);
	PbBatchFree(&src);
	free(ids);
}

/*
 * The host pairs' areas of one part on the GPU (bitmap kernel), compared
 * with want (NULL: all 0); 1 when every one matched.
 */
static int
PartAreasAre(const PbDevicePart *part, const int64_t *want)
{
	PbDeviceFound *found;
	uint32_t	nfound;
	char		err[256];
	int64_t    *out = RunPartsOn(gpu, part, 1, PB_GPU_BITMAP, &found, &nfound, err, sizeof(err));
	int			same = out != NULL;

	if (out == NULL)
		pb_check_fail(__FILE__, __LINE__, "GPU failed: %s", err);
	for (uint32_t k = 0; same && k < part->npairs; k++)
		same = out[k] == (want ? want[k] : 0);
	free(out);
	free(found);
	return same;
}

/*
 * A held source (PbGpuHoldSource): parts borrowing its arrays read the
 * device's copy (their areas stay right with the host's points zeroed
 * after the hold), parts that do not, alone or beside borrowing ones, are
 * packed whole; a source over half the budget is not held; a submission
 * that does not fit beside the source runs packed whole and the source
 * is let go (parts read the host's points again); every answer is the
 * CPU's.
 */
void
test_gpu_held_source(void)
{
	Rng			r = {0x4e1d};
	PbBatch		src,
				other,
				v[2];
	PbDevicePart	parts[3];
	uint32_t	ids[600];
	uint32_t   *many;
	int64_t    *want;
	int32_t    *saved;
	PbScratch	sc;
	size_t		src_bytes,
				whole;
	const uint32_t nmany = 100000;

	if (Gpu() == NULL)
		return;
	PbScratchInit(&sc, &PbMallocAllocator);
	PbBatchInit(&src, &PbMallocAllocator);
	PbBatchInit(&other, &PbMallocAllocator);
	AddShapes(&src, &r, 1500, 0, 0, 400, 30, 1);
	AddShapes(&other, &r, 300, 0, 0, 300, 30, 1);
	AddNearPairs(&other, &r, 500, 0, other.nshapes - 1);
	for (uint32_t i = 0; i < 600; i++)
		ids[i] = (uint32_t) RngRange(&r, 0, src.nshapes - 1);
	ViewOf(&v[0], &src, ids, 600);
	ViewOf(&v[1], &src, ids, 12);
	AddNearPairs(&v[0], &r, 900, 0, 599);
	want = malloc(sizeof(int64_t) * v[0].npairs);
	for (uint32_t k = 0; k < v[0].npairs; k++)
		want[k] = (int64_t) PbIntersectionArea(&sc, &v[0], v[0].pairs[k].a, v[0].pairs[k].b,
											   PB_METHOD_AUTO);
	parts[0] = HostPart(&v[0], v[0].pairs, NULL, v[0].npairs);
	parts[1] = FilterPart(&v[0], 300, all_plane);
	parts[2] = HostPart(&other, other.pairs, NULL, other.npairs);
	saved = malloc(sizeof(int32_t) * 2 * src.nipts);
	memcpy(saved, src.ipts, sizeof(int32_t) * 2 * src.nipts);

	/* held: the device's copy is read, not the host's */
	CHECK_INT(PbGpuHoldSource(gpu, &src), 1);
	CHECK(CheckPartsExact(parts, 3) > 100);
	memset(src.ipts, 0, sizeof(int32_t) * 2 * src.nipts);
	CHECK(PartAreasAre(&parts[0], want));
	memcpy(src.ipts, saved, sizeof(int32_t) * 2 * src.nipts);
	CheckPartsExact(parts + 2, 1);

	/* let go: the host's points are read again */
	PbGpuReleaseSource(gpu);
	PbGpuReleaseSource(gpu);
	memset(src.ipts, 0, sizeof(int32_t) * 2 * src.nipts);
	CHECK(PartAreasAre(&parts[0], NULL));
	memcpy(src.ipts, saved, sizeof(int32_t) * 2 * src.nipts);

	/* over half the budget: not held */
	src_bytes = (size_t) src.nrings * sizeof(PbRing) + (size_t) src.nipts * 2 * sizeof(int32_t);
	PbGpuSetBudget(gpu, src_bytes);
	CHECK_INT(PbGpuHoldSource(gpu, &src), 0);
	PbGpuSetBudget(gpu, (size_t) 1 << 30);

	/*
	 * a part of 12 shapes and many pairs that fits the budget whole, but
	 * not beside the source (which takes half of what the part leaves)
	 */
	many = malloc(sizeof(uint32_t) * nmany);
	v[1].npairs = 0;
	AddNearPairs(&v[1], &r, 40, 0, 11);
	CHECK(v[1].npairs > 0);
	for (uint32_t k = 0; k < nmany && v[1].npairs > 0; k++)
		many[k] = k % v[1].npairs;
	parts[0] = HostPart(&v[1], v[1].pairs, many, nmany);
	whole = PbGpuPartsBytes(parts, 1);
	CHECK(whole > 3 * src_bytes);
	PbGpuSetBudget(gpu, whole + src_bytes / 2);
	CHECK_INT(PbGpuHoldSource(gpu, &src), 1);
	CheckParts(parts, 1, PB_GPU_BITMAP);
	memset(src.ipts, 0, sizeof(int32_t) * 2 * src.nipts);
	parts[1] = HostPart(&v[0], v[0].pairs, NULL, v[0].npairs);
	CHECK(PartAreasAre(&parts[1], NULL));
	memcpy(src.ipts, saved, sizeof(int32_t) * 2 * src.nipts);
	PbGpuSetBudget(gpu, (size_t) 1 << 30);

	free(many);
	free(saved);
	free(want);
	ViewFree(&v[0]);
	ViewFree(&v[1]);
	PbBatchFree(&src);
	PbBatchFree(&other);
	PbScratchFree(&sc);
}

/* Poll the submission in flight to its end; 1 done, 0 failed (a failed check). */
static int
WaitGpu(PbGpu *h)
{
	char		err[256];
	int			st;

	while ((st = PbGpuPoll(h, err, sizeof(err))) == 0)
		;
	if (st < 0)
		pb_check_fail(__FILE__, __LINE__, "GPU failed: %s", err);
	return st > 0;
}

/*
 * A submission staged while another runs: each gives what it gives alone
 * (host pairs' areas and found pairs), the first's results still there
 * after the second was packed, and starting with nothing staged fails.
 */
void
test_gpu_stage_while_running(void)
{
	Rng			r = {0x57a6e};
	PbBatch		b;
	PbDevicePart	host,
				filt;
	PbDeviceFound *want_found;
	uint32_t	nwant,
				nfound,
				nhost_found;
	int64_t    *want_areas;
	const int64_t *areas;
	const PbDeviceFound *found;
	char		err[256];

	PbBatchInit(&b, &PbMallocAllocator);
	AddShapes(&b, &r, 600, 0, 0, 400, 30, 1);
	AddNearPairs(&b, &r, 900, 0, b.nshapes - 1);
	host = HostPart(&b, b.pairs, NULL, b.npairs);
	filt = FilterPart(&b, 300, all_plane);
	if (Gpu() == NULL)
		return;
	want_areas = RunPartsOn(gpu, &host, 1, PB_GPU_PIXELBOX, &want_found, &nhost_found, err, sizeof(err));
	free(want_found);
	free(RunPartsOn(gpu, &filt, 1, PB_GPU_PIXELBOX, &want_found, &nwant, err, sizeof(err)));
	CHECK(want_areas != NULL && nwant > 50);

	CHECK_INT(PbGpuStage(gpu, &host, 1, PB_GPU_PIXELBOX, err, sizeof(err)), 0);
	CHECK_INT(PbGpuStartStaged(gpu, err, sizeof(err)), 0);
	CHECK_INT(PbGpuStage(gpu, &filt, 1, PB_GPU_BITMAP, err, sizeof(err)), 0);
	if (WaitGpu(gpu) && want_areas != NULL)
	{
		areas = PbGpuResults(gpu);
		for (uint32_t k = 0; k < b.npairs; k++)
			if (areas[k] != want_areas[k])
			{
				pb_check_fail(__FILE__, __LINE__, "pair %u: %lld staged beside, %lld alone", k,
							  (long long) areas[k], (long long) want_areas[k]);
				break;
			}
	}
	CHECK_INT(PbGpuStartStaged(gpu, err, sizeof(err)), 0);
	if (WaitGpu(gpu))
	{
		PbDeviceFound *got;

		nfound = PbGpuFoundPairs(gpu, &found);
		CHECK_INT(nfound, nwant);
		got = malloc(sizeof(PbDeviceFound) * (nfound + 1));
		memcpy(got, found, sizeof(PbDeviceFound) * nfound);
		qsort(got, nfound, sizeof(PbDeviceFound), CmpFound);
		qsort(want_found, nwant, sizeof(PbDeviceFound), CmpFound);
		for (uint32_t i = 0; i < nfound && i < nwant; i++)
			if (CmpFound(&got[i], &want_found[i]) != 0 || got[i].area != want_found[i].area)
			{
				pb_check_fail(__FILE__, __LINE__, "found pair %u differs", i);
				break;
			}
		free(got);
	}
	CHECK_INT(PbGpuStartStaged(gpu, err, sizeof(err)), -1);
	CHECK(strstr(err, "no GPU submission is staged") != NULL);
	free(want_areas);
	free(want_found);
	PbBatchFree(&b);
}

/*
 * The reference-point rule by hand: square [0,10]^2 against [5,15]^2
 * (point (5, 5), area 25) and against [10,20] x [0,10], which it only
 * touches (point (10, 0), area 0, found as PostGIS's && finds it), under
 * windows that take or leave each point.
 */
void
test_gpu_filter_reference_point(void)
{
	static const PbBox windows[8] = {
		{5, 5, 6, 6}, {0, 0, 5, 10}, {4.5, 4.5, 5.5, 5.5}, {0, 0, 10, 5},
		{5.5, -INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, INFINITY, INFINITY},
		{-INFINITY, 0, 10, INFINITY}, {10, 0, 11, 1}
	};
	static const int expect[8] = {1, 0, 1, 0, 1, 2, 1, 1};
	PbBatch		b;
	PbDevicePart	parts[8];
	PbDeviceFound *found;
	uint32_t	nfound = 0;
	char		err[256];
	int64_t    *out = NULL;

	PbBatchInit(&b, &PbMallocAllocator);
	Wkt(&b, "POLYGON((0 0,10 0,10 10,0 10,0 0))");
	Wkt(&b, "POLYGON((5 5,15 5,15 15,5 15,5 5))");
	Wkt(&b, "POLYGON((10 0,20 0,20 10,10 10,10 0))");
	for (int p = 0; p < 8; p++)
		parts[p] = FilterPart(&b, 1, windows[p]);
	CHECK_INT(CheckPartsExact(parts, 8), 7);
	if (Gpu() != NULL)
		out = RunPartsOn(gpu, parts, 8, PB_GPU_PIXELBOX, &found, &nfound, err, sizeof(err));
	CHECK(out != NULL);
	for (int p = 0; out != NULL && p < 8; p++)
	{
		int			n = 0;

		for (uint32_t i = 0; i < nfound; i++)
			if (found[i].part == (uint32_t) p)
			{
				n++;
				CHECK_INT(found[i].area, found[i].b == 1 ? 25 : 0);
			}
		pb_test_context("window %d", p);
		CHECK_INT(n, expect[p]);
	}
	pb_test_context("%s", "");
	if (out != NULL)
		free(found);
	free(out);
	PbBatchFree(&b);
}

/* A rectangle [x0,x1] x [y0,y1] as an int shape of b. */
static uint32_t
Rect(PbBatch *b, int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
	char		wkt[256];

	snprintf(wkt, sizeof(wkt), "POLYGON((%lld %lld,%lld %lld,%lld %lld,%lld %lld,%lld %lld))",
			 (long long) x0, (long long) y0, (long long) x1, (long long) y0, (long long) x1,
			 (long long) y1, (long long) x0, (long long) y1, (long long) x0, (long long) y0);
	return Wkt(b, wkt);
}

/*
 * 300 x 300 rectangles all over the origin: 90000 pairs, far more than the
 * filter's first room (8 per shape), so PbGpuPoll re-runs with more; the
 * host pairs of the same submission survive the re-run, and the handle
 * works on afterwards.  With a budget that holds the first room only, the
 * re-run is refused with a reason.
 */
void
test_gpu_filter_overflow(void)
{
	Rng			r = {0x0f10};
	PbBatch		b,
				h;
	PbDevicePart	parts[3];
	PbDeviceFound *found;
	uint32_t	nfound;
	char		err[256] = "";
	PbGpu	   *tight;
	int64_t    *out;

	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&h, &PbMallocAllocator);
	for (int k = 0; k < 600; k++)
		Rect(&b, -RngRange(&r, 1, 40), -RngRange(&r, 1, 40), RngRange(&r, 1, 40), RngRange(&r, 1, 40));
	for (uint32_t k = 0; k < 300; k++)
		PbBatchAddPair(&b, k, 599 - k);
	AddShapes(&h, &r, 300, 0, 0, 100, 20, 0);
	AddNearPairs(&h, &r, 400, 0, h.nshapes - 1);
	parts[0] = HostPart(&h, h.pairs, NULL, h.npairs);
	parts[1] = FilterPart(&b, 300, all_plane);
	parts[2] = HostPart(&b, b.pairs, NULL, b.npairs);
	/* the first room cannot hold them: this is an overflow */
	CHECK(PbGpuPartsBytes(parts + 1, 1) < 90000 * sizeof(PbDeviceFound));
	CHECK_INT(CheckPartsExact(parts, 3), 90000);
	/* again on the grown buffers, then a small submission */
	CHECK_INT(CheckParts(parts, 3, PB_GPU_PIXEL_ONLY), 90000);
	CheckPartsExact(parts, 1);

	tight = PbGpuOpen(PbGpuPartsBytes(parts, 2), 0, err, sizeof(err));
	CHECK(tight != NULL);
	if (tight != NULL)
	{
		out = RunPartsOn(tight, parts, 2, PB_GPU_BITMAP, &found, &nfound, err, sizeof(err));
		CHECK(out == NULL);
		CHECK_STR_HAS(err, "budget");
		/* the handle still works for what fits */
		out = RunPartsOn(tight, parts, 1, PB_GPU_BITMAP, &found, &nfound, err, sizeof(err));
		CHECK(out != NULL);
		free(out);
		free(found);
		PbGpuClose(tight);
	}
	PbBatchFree(&b);
	PbBatchFree(&h);
}

/*
 * Host-pair parts and filter parts mixed in one submission (one batch even
 * in both kinds of part), with both kernels.
 */
void
test_gpu_parts_mixed(void)
{
	Rng			r = {0x31c5ed};
	PbBatch		b[3];
	uint32_t	idx[300];
	PbDevicePart	parts[7];

	for (int i = 0; i < 3; i++)
	{
		PbBatchInit(&b[i], &PbMallocAllocator);
		AddShapes(&b[i], &r, 500, 1000 * i, -500 * i, 300, 25, i != 1);
		AddNearPairs(&b[i], &r, 400, 0, b[i].nshapes - 1);
	}
	for (int k = 0; k < 300; k++)
		idx[k] = (uint32_t) RngRange(&r, 0, b[2].npairs - 1);
	parts[0] = FilterPart(&b[0], 250, all_plane);
	parts[1] = HostPart(&b[1], b[1].pairs, NULL, b[1].npairs);
	parts[2] = FilterPart(&b[1], 200, (PbBox) {-INFINITY, -INFINITY, 1150, INFINITY});
	parts[3] = HostPart(&b[2], b[2].pairs, idx, 300);
	parts[4] = FilterPart(&b[2], 300, (PbBox) {2100, -1000, 2200.5, -800});
	parts[5] = HostPart(&b[0], b[0].pairs, NULL, b[0].npairs);
	parts[6] = FilterPart(&b[1], 200, (PbBox) {1150, -INFINITY, INFINITY, INFINITY});
	CHECK(CheckPartsExact(parts, 7) > 50);
	CheckParts(parts, 7, PB_GPU_PIXEL_ONLY);
	for (int i = 0; i < 3; i++)
		PbBatchFree(&b[i]);
}
