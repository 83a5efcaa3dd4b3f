/*
 * test_engines.c: PbIntersectionArea with every method on rectilinear
 * shapes, against truths computed here: pixel counts of random masks
 * (the shapes are traced from them), cell areas of masks on stretched
 * lattices, and brute-force even-odd tests of pixel centres.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const PbMethod methods[] = {
	PB_METHOD_AUTO, PB_METHOD_PIXELBOX, PB_METHOD_BITMAP, PB_METHOD_SWEEP,
	PB_METHOD_GENERAL
};
static const char *const method_names[] = {"auto", "pixelbox", "bitmap", "sweep", "general"};

#define ALL_METHODS 0x1f
#define BIG_METHODS ((1 << 0) | (1 << 3))	/* auto, sweep: fine on any window */

/* Check the methods in mask (bit i: methods[i]) give exactly truth, in both argument orders. */
static void
CheckMethods(PbScratch *sc, const PbBatch *b, uint32_t p, uint32_t q,
			 double truth, int mask, const char *file, int line)
{
	for (int m = 0; m < 5; m++)
	{
		double		pq,
					qp;

		if (!(mask & (1 << m)))
			continue;
		pq = PbIntersectionArea(sc, b, p, q, methods[m]);
		qp = PbIntersectionArea(sc, b, q, p, methods[m]);
		if (pq != truth || qp != truth)
			pb_check_fail(file, line, "%s: %.17g / %.17g, truth %.17g",
						  method_names[m], pq, qp, truth);
	}
}

#define CHECK_METHODS(sc, b, p, q, truth, mask) \
	CheckMethods(sc, b, p, q, truth, mask, __FILE__, __LINE__)

/* A random mask of one of several kinds (noise, blobs, full, one pixel, one line). */
static void
RandomMask(Mask *m, Rng *r)
{
	switch (RngRange(r, 0, 6))
	{
		case 0:
		case 1:
			MaskNoise(m, r, 0.2 + 0.6 * RngDouble(r));
			break;
		case 2:
			memset(m->bit, 1, (size_t) m->w * m->h);
			break;
		case 3:
			memset(m->bit, 0, (size_t) m->w * m->h);
			m->bit[RngRange(r, 0, m->w * m->h - 1)] = 1;
			break;
		default:
			MaskRects(m, r, (int) RngRange(r, 1, 6));
			break;
	}
}

/* Mask m placed with its cell (0,0) at pixel (x0, y0): is pixel (x, y) set? */
static int
MaskAt(const Mask *m, int64_t x0, int64_t y0, int64_t x, int64_t y)
{
	int64_t		i = x - x0,
				j = y - y0;

	return i >= 0 && j >= 0 && i < m->w && j < m->h && m->bit[j * m->w + i];
}

/* Trace mask m at pixel offset (x0, y0) of the unit lattice. */
static TGeom *
TraceAt(const Mask *m, int64_t x0, int64_t y0, Rng *r)
{
	int64_t    *xs = malloc(sizeof(int64_t) * (m->w + 1)),
			   *ys = malloc(sizeof(int64_t) * (m->h + 1));
	TGeom	   *g;

	for (int i = 0; i <= m->w; i++)
		xs[i] = x0 + i;
	for (int j = 0; j <= m->h; j++)
		ys[j] = y0 + j;
	g = MaskTrace(m, xs, ys, r, RngRange(r, 0, 3) == 0);
	free(xs);
	free(ys);
	return g;
}

/* Pixels set in both masks at their offsets: the truth. */
static int64_t
MaskPairTruth(const Mask *a, int64_t ax, int64_t ay, const Mask *b, int64_t bx, int64_t by)
{
	int64_t		n = 0;

	for (int j = 0; j < a->h; j++)
		for (int i = 0; i < a->w; i++)
			n += a->bit[j * a->w + i] && MaskAt(b, bx, by, ax + i, ay + j);
	return n;
}

/* One random mask pair at the given base, checked with every method. */
static void
MaskPairCase(Rng *r, PbBatch *b, PbScratch *sc, int64_t base, int maxw,
			 int maxh, int span)
{
	Mask		ma = MaskNew((int) RngRange(r, 1, maxw), (int) RngRange(r, 1, maxh));
	Mask		mb = MaskNew((int) RngRange(r, 1, maxw), (int) RngRange(r, 1, maxh));
	int64_t		ax = base + RngRange(r, 0, span),
				ay = base + RngRange(r, 0, span),
				bx = base + RngRange(r, 0, span),
				by = base + RngRange(r, 0, span);
	int			relation = (int) RngRange(r, 0, 5);
	TGeom	   *ga,
			   *gb;
	uint32_t	pa,
				pb;

	RandomMask(&ma, r);
	RandomMask(&mb, r);
	if (relation == 0)
	{
		/* identical shape and place */
		MaskFree(&mb);
		mb = MaskNew(ma.w, ma.h);
		memcpy(mb.bit, ma.bit, (size_t) ma.w * ma.h);
		bx = ax, by = ay;
	}
	else if (relation == 1)
	{
		/* contained: a random subset of A */
		MaskFree(&mb);
		mb = MaskNew(ma.w, ma.h);
		for (int k = 0; k < ma.w * ma.h; k++)
			mb.bit[k] = ma.bit[k] && RngRange(r, 0, 3) != 0;
		bx = ax, by = ay;
	}
	ga = TraceAt(&ma, ax, ay, r);
	gb = TraceAt(&mb, bx, by, r);
	pa = DecodeTgChecked(b, ga, (int) RngRange(r, 0, 1));
	pb = DecodeTgChecked(b, gb, (int) RngRange(r, 0, 1));
	pb_test_context("base %lld A %dx%d at (%lld,%lld) B %dx%d at (%lld,%lld) rel %d",
					(long long) base, ma.w, ma.h, (long long) ax, (long long) ay,
					mb.w, mb.h, (long long) bx, (long long) by, relation);
	CHECK_METHODS(sc, b, pa, pb, (double) MaskPairTruth(&ma, ax, ay, &mb, bx, by),
				  ALL_METHODS);
	TgFree(ga);
	TgFree(gb);
	MaskFree(&ma);
	MaskFree(&mb);
}

/* Thousands of random mask pairs (identical, contained, overlapping, disjoint; negative and near +-2^30): every engine equals the pixel count. */
void
test_engine_masks_unit_grid(void)
{
	static const int64_t bases[] = {0, -37, 5000, -1073741824, 1073741824 - 120};
	Rng			rng = {2024};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 3000; iter++)
	{
		MaskPairCase(&rng, &b, &sc, bases[iter % 5], iter % 2 ? 24 : 6,
					 iter % 2 ? 24 : 6, iter % 2 ? 60 : 8);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Windows wider than 64 and 128 pixels (bitmap rows span words), long thin shapes: every engine equals the pixel count. */
void
test_engine_masks_wide_windows(void)
{
	Rng			rng = {31337};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 400; iter++)
	{
		int			wide = iter % 4;
		Mask		ma = MaskNew(wide == 0 ? 1 : (int) RngRange(&rng, 60, 300),
								 wide == 1 ? 1 : (int) RngRange(&rng, 1, wide == 3 ? 150 : 12));
		Mask		mb = MaskNew(wide == 0 ? (int) RngRange(&rng, 60, 300) : (int) RngRange(&rng, 1, 300),
								 wide == 0 ? 1 : (int) RngRange(&rng, 1, 12));
		int64_t		ax = RngRange(&rng, -200, 200),
					ay = RngRange(&rng, -5, 5),
					bx = RngRange(&rng, -200, 200),
					by = RngRange(&rng, -5, 5);
		TGeom	   *ga,
				   *gb;
		uint32_t	pa,
					pb;

		if (wide == 0)
			ax = bx + RngRange(&rng, 0, mb.w - 1), by = ay - RngRange(&rng, 0, ma.h - 1);
		if (wide == 3)
		{
			MaskRects(&ma, &rng, 4);
			MaskRects(&mb, &rng, 4);
		}
		else
		{
			RandomMask(&ma, &rng);
			RandomMask(&mb, &rng);
		}
		ga = TraceAt(&ma, ax, ay, &rng);
		gb = TraceAt(&mb, bx, by, &rng);
		pa = DecodeTgChecked(&b, ga, 0);
		pb = DecodeTgChecked(&b, gb, 1);
		pb_test_context("iter %d A %dx%d at (%lld,%lld) B %dx%d at (%lld,%lld)", iter,
						ma.w, ma.h, (long long) ax, (long long) ay, mb.w, mb.h,
						(long long) bx, (long long) by);
		CHECK_METHODS(&sc, &b, pa, pb, (double) MaskPairTruth(&ma, ax, ay, &mb, bx, by),
					  ALL_METHODS);
		TgFree(ga);
		TgFree(gb);
		MaskFree(&ma);
		MaskFree(&mb);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Hand-computed cases: identical, contained, touching, disjoint, one pixel, thin, holes, negative coordinates. */
void
test_engine_special_cases(void)
{
	static const struct
	{
		const char *a;
		const char *b;
		double		area;
	}			v[] = {
		{"POLYGON((0 0,10 0,10 10,0 10,0 0))", "POLYGON((0 0,10 0,10 10,0 10,0 0))", 100},
		{"POLYGON((0 0,10 0,10 10,0 10,0 0))", "POLYGON((0 0,0 10,10 10,10 0,0 0))", 100},
		{"POLYGON((0 0,10 0,10 10,0 10,0 0))", "POLYGON((2 2,5 2,5 5,2 5,2 2))", 9},
		{"POLYGON((0 0,1 0,1 1,0 1,0 0))", "POLYGON((5 5,6 5,6 6,5 6,5 5))", 0},
		{"POLYGON((0 0,1 0,1 1,0 1,0 0))", "POLYGON((1 0,2 0,2 1,1 1,1 0))", 0},	/* shared edge */
		{"POLYGON((0 0,1 0,1 1,0 1,0 0))", "POLYGON((1 1,2 1,2 2,1 2,1 1))", 0},	/* shared corner */
		{"POLYGON((0 0,4 0,4 1,0 1,0 0))", "POLYGON((0 1,4 1,4 2,0 2,0 1))", 0},
		{"POLYGON((0 0,10 0,10 10,0 10,0 0))", "POLYGON((3 3,4 3,4 4,3 4,3 3))", 1},
		{"POLYGON((3 3,4 3,4 4,3 4,3 3))", "POLYGON((3 3,4 3,4 4,3 4,3 3))", 1},
		{"POLYGON((0 0,1000 0,1000 1,0 1,0 0))", "POLYGON((500 -5,501 -5,501 5,500 5,500 -5))", 1},
		{"POLYGON((0 0,200 0,200 1,0 1,0 0))", "POLYGON((70 0,270 0,270 1,70 1,70 0))", 130},
		{"POLYGON((0 0,1 0,1 200,0 200,0 0))", "POLYGON((0 70,1 70,1 270,0 270,0 70))", 130},
		{"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,5 2,5 5,2 5,2 2))", "POLYGON((2 2,5 2,5 5,2 5,2 2))", 0},
		{"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,5 2,5 5,2 5,2 2))", "POLYGON((1 1,6 1,6 6,1 6,1 1))", 16},
		{"MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0),(2 2,8 2,8 8,2 8,2 2)),((4 4,6 4,6 6,4 6,4 4)))",
		"POLYGON((-1 -1,11 -1,11 11,-1 11,-1 -1))", 68},
		{"POLYGON((-10 -10,-5 -10,-5 -5,-10 -5,-10 -10))", "POLYGON((-7 -7,-2 -7,-2 -2,-7 -2,-7 -7))", 4},
		{"MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),((2 0,3 0,3 1,2 1,2 0)),((1 1,2 1,2 2,1 2,1 1)))",
		"MULTIPOLYGON(((1 0,2 0,2 1,1 1,1 0)),((0 1,1 1,1 2,0 2,0 1)),((1 1,3 1,3 2,1 2,1 1)))", 1},
		{"POLYGON((63 0,129 0,129 3,63 3,63 0))", "POLYGON((64 1,200 1,200 2,64 2,64 1))", 65},
		{"POLYGON((-1073741824 -1073741824,-1073741820 -1073741824,-1073741820 -1073741820,-1073741824 -1073741820,-1073741824 -1073741824))",
		"POLYGON((-1073741823 -1073741823,1073741824 -1073741823,1073741824 -1073741822,-1073741823 -1073741822,-1073741823 -1073741823))", 3},
	};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint32_t	p = DecodeWkt(&b, v[i].a, 0),
					q = DecodeWkt(&b, v[i].b, 1);
		/* the last case lies near -2^30: no brute force there */
		int			brute = i + 1 != sizeof(v) / sizeof(v[0]);

		pb_test_context("%s x %s", v[i].a, v[i].b);
		CHECK_INT(b.shapes[p].kind, PB_SHAPE_INT);
		CHECK_INT(b.shapes[q].kind, PB_SHAPE_INT);
		CHECK_METHODS(&sc, &b, p, q, v[i].area, ALL_METHODS);
		if (brute)
		{
			TGeom	   *ga = TgParse(v[i].a),
					   *gb = TgParse(v[i].b);

			double		box[4] = {1, 1, 0, 0};

			/* the hand value agrees with brute force over both boxes */
			TruthBox(ga, box);
			TruthBox(gb, box);
			CHECK_DBL_EQ((double) TruthPixelsBoth(ga, gb, (int64_t) box[0], (int64_t) box[1],
												  (int64_t) box[2], (int64_t) box[3]), v[i].area);
			TgFree(ga);
			TgFree(gb);
		}
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Random self-crossing, overlapping, touching rectilinear rings: every engine follows the even-odd rule (brute force on pixel centres). */
void
test_engine_random_ortho_evenodd(void)
{
	Rng			rng = {555};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 1000; iter++)
	{
		int64_t		span = RngRange(&rng, 2, 40),
					x0 = RngRange(&rng, -60, 20),
					y0 = RngRange(&rng, -60, 20);
		TGeom	   *ga = RandomOrthoShape(&rng, (int) RngRange(&rng, 1, 3), (int) RngRange(&rng, 2, 8),
										  x0, y0, span, (int) RngRange(&rng, 0, 1));
		TGeom	   *gb = RandomOrthoShape(&rng, (int) RngRange(&rng, 1, 3), (int) RngRange(&rng, 2, 8),
										  x0 + RngRange(&rng, -span, span),
										  y0 + RngRange(&rng, -span, span), span,
										  (int) RngRange(&rng, 0, 1));
		uint32_t	pa = DecodeTgChecked(&b, ga, 0),
					pb = DecodeTgChecked(&b, gb, 1);

		pb_test_context("iter %d", iter);
		CHECK_METHODS(&sc, &b, pa, pb,
					  (double) TruthPixelsBoth(ga, gb, x0 - 2 * span, y0 - 2 * span,
											   x0 + 3 * span, y0 + 3 * span),
					  ALL_METHODS);
		TgFree(ga);
		TgFree(gb);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Invalid rectilinear inputs: figure-8 ring, overlapping parts (overlap cancels), stray and overlapping holes, doubled ring. */
void
test_engine_invalid_rectilinear(void)
{
	static const struct
	{
		const char *a;
		double		self;		/* even-odd area of a */
		double		with_box;	/* even-odd area of a inside box */
	}			v[] = {
		/* two squares touching at a corner, one ring */
		{"POLYGON((0 0,2 0,2 2,4 2,4 4,2 4,2 2,0 2,0 0))", 8, 2},
		/* overlapping parts: the overlap [2,4]^2 is outside under even-odd */
		{"MULTIPOLYGON(((0 0,4 0,4 4,0 4,0 0)),((2 2,6 2,6 6,2 6,2 2)))", 24, 3},
		/* a hole outside its shell is an island */
		{"POLYGON((0 0,2 0,2 2,0 2,0 0),(5 5,6 5,6 6,5 6,5 5))", 5, 1},
		/* a hole crossing the shell: symmetric difference */
		{"POLYGON((0 0,4 0,4 4,0 4,0 0),(3 3,6 3,6 6,3 6,3 3))", 23, 4},
		/* the same ring twice cancels */
		{"POLYGON((0 0,4 0,4 4,0 4,0 0),(0 0,4 0,4 4,0 4,0 0))", 0, 0},
		/* a self-crossing ring: two lobes of a rectilinear bow-tie */
		{"POLYGON((0 0,2 0,2 4,4 4,4 2,0 2,0 0))", 8, 2},
	};
	const char *box = "POLYGON((1 1,3 1,3 3,1 3,1 1))";
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		TGeom	   *ga = TgParse(v[i].a),
				   *gb = TgParse(box);
		uint32_t	p = DecodeWkt(&b, v[i].a, 0),
					p2 = DecodeWkt(&b, v[i].a, 1),
					q = DecodeWkt(&b, box, 0);

		pb_test_context("%s", v[i].a);
		CHECK_DBL_EQ((double) TruthPixelsBoth(ga, ga, -10, -10, 10, 10), v[i].self);
		CHECK_DBL_EQ((double) TruthPixelsBoth(ga, gb, -10, -10, 10, 10), v[i].with_box);
		CHECK_METHODS(&sc, &b, p, p2, v[i].self, ALL_METHODS);
		CHECK_METHODS(&sc, &b, p, q, v[i].with_box, ALL_METHODS);
		TgFree(ga);
		TgFree(gb);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Shapes spanning the whole int range (-2^30 .. 2^30): auto, sweep (and general) are exact. */
void
test_engine_near_int_limit(void)
{
	static const struct
	{
		const char *a;
		const char *b;
		double		area;
	}			v[] = {
		{"POLYGON((-1073741824 0,1073741824 0,1073741824 3,-1073741824 3,-1073741824 0))",
		"POLYGON((-1073741819 1,1073741817 1,1073741817 2,-1073741819 2,-1073741819 1))", 2147483636.0},
		{"POLYGON((-1073741824 -1073741824,1073741824 -1073741824,1073741824 1073741824,-1073741824 1073741824,-1073741824 -1073741824))",
		"POLYGON((-1073741824 -1073741824,1073741824 -1073741824,1073741824 1073741824,-1073741824 1073741824,-1073741824 -1073741824))",
		4611686018427387904.0},
		{"POLYGON((-1073741824 -1073741824,1073741824 -1073741824,1073741824 1073741824,-1073741824 1073741824,-1073741824 -1073741824),(-1073741823 -1073741823,1073741823 -1073741823,1073741823 1073741823,-1073741823 1073741823,-1073741823 -1073741823))",
		"POLYGON((-1073741824 -1073741824,1073741824 -1073741824,1073741824 1073741824,-1073741824 1073741824,-1073741824 -1073741824))",
		4.0 * 2147483647.0},	/* a frame one pixel wide */
	};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint32_t	p = DecodeWkt(&b, v[i].a, 0),
					q = DecodeWkt(&b, v[i].b, 1);

		pb_test_context("%s x %s", v[i].a, v[i].b);
		CHECK_INT(b.shapes[p].kind, PB_SHAPE_INT);
		CHECK_METHODS(&sc, &b, p, q, v[i].area, BIG_METHODS | (1 << 4));
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Strictly increasing random lattice lines in [lo, hi]. */
static void
RandomLattice(Rng *r, int64_t *xs, int n, int64_t lo, int64_t hi)
{
	for (int k = 0; k <= n; k++)
		xs[k] = lo + (int64_t) ((double) (hi - lo) * k / n);
	for (int k = 1; k < n; k++)
	{
		int64_t		a = xs[k - 1] + 1,
					c = (xs[k] + xs[k + 1]) / 2;

		if (c > a)
			xs[k] = RngRange(r, a, c);
	}
}

/* Masks on a huge stretched lattice (cells up to 2^30 wide; auto picks the sweep): exact cell-area truth. */
void
test_engine_large_lattice_sweep(void)
{
	Rng			rng = {8080};
	PbBatch		b;
	PbScratch	sc;
	double		worst = 0;
	int			over = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 300; iter++)
	{
		int			w = (int) RngRange(&rng, 2, 24),
					h = (int) RngRange(&rng, 2, 24);
		int64_t		xs[25],
					ys[25];
		Mask		ma = MaskNew(w, h),
					mb = MaskNew(w, h);
		__int128	truth = 0;
		TGeom	   *ga,
				   *gb;
		uint32_t	pa,
					pb;
		double		got,
					rel,
					ww,
					hh;

		RandomLattice(&rng, xs, w, -1073741824 + RngRange(&rng, 0, 1000), 1073741824 - RngRange(&rng, 0, 1000));
		RandomLattice(&rng, ys, h, RngRange(&rng, -1073741824, 0), RngRange(&rng, 1000000, 1073741824));
		RandomMask(&ma, &rng);
		RandomMask(&mb, &rng);
		for (int j = 0; j < h; j++)
			for (int i = 0; i < w; i++)
				if (ma.bit[j * w + i] && mb.bit[j * w + i])
					truth += (__int128) (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j]);
		ga = MaskTrace(&ma, xs, ys, &rng, 0);
		gb = MaskTrace(&mb, xs, ys, &rng, 1);
		pa = DecodeTgChecked(&b, ga, 0);
		pb = DecodeTgChecked(&b, gb, 1);
		pb_test_context("iter %d (%dx%d)", iter, w, h);
		CHECK_METHODS(&sc, &b, pa, pb, (double) truth, BIG_METHODS);
		/* count windows beyond the bitmap limit, where auto uses the sweep */
		ww = fmin(b.shapes[pa].box.xmax, b.shapes[pb].box.xmax) - fmax(b.shapes[pa].box.xmin, b.shapes[pb].box.xmin);
		hh = fmin(b.shapes[pa].box.ymax, b.shapes[pb].box.ymax) - fmax(b.shapes[pa].box.ymin, b.shapes[pb].box.ymin);
		over += truth != 0 && (ww + 63) / 64 * hh > PB_BITMAP_MAX_WORDS;
		/* the general engine rounds products beyond 2^53: near, not exact */
		got = PbIntersectionArea(&sc, &b, pa, pb, PB_METHOD_GENERAL);
		rel = truth ? fabs(got - (double) truth) / (double) truth : fabs(got);
		worst = fmax(worst, rel);
		CHECK(rel <= 1e-12);
		TgFree(ga);
		TgFree(gb);
		MaskFree(&ma);
		MaskFree(&mb);
		PbBatchReset(&b);
	}
	pb_test_note("general engine: worst relative error %.3g", worst);
	CHECK(over > 150);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Windows just under and just over the bitmap limit: auto (and all engines) exact either side. */
void
test_engine_auto_threshold(void)
{
	static const int steps[] = {40, 50, 51, 55, 64};	/* 20 cells: windows 800..1280 px */
	Rng			rng = {4242};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 20; iter++)
	{
		int			st = steps[iter % 5];
		int64_t		xs[21],
					ys[21],
					truth = 0;
		Mask		ma = MaskNew(20, 20),
					mb = MaskNew(20, 20);
		TGeom	   *ga,
				   *gb;
		uint32_t	pa,
					pb;

		for (int k = 0; k <= 20; k++)
			xs[k] = ys[k] = (int64_t) k * st - 300;
		MaskRects(&ma, &rng, 3);
		MaskRects(&mb, &rng, 3);
		ma.bit[0] = mb.bit[0] = 1;	/* both boxes span the whole lattice */
		ma.bit[399] = mb.bit[399] = 1;
		for (int k = 0; k < 400; k++)
			truth += (int64_t) (ma.bit[k] && mb.bit[k]) * st * st;
		ga = MaskTrace(&ma, xs, ys, &rng, 0);
		gb = MaskTrace(&mb, xs, ys, &rng, 0);
		pa = DecodeTgChecked(&b, ga, 0);
		pb = DecodeTgChecked(&b, gb, 0);
		pb_test_context("step %d", st);
		CHECK_METHODS(&sc, &b, pa, pb, (double) truth, ALL_METHODS);
		TgFree(ga);
		TgFree(gb);
		MaskFree(&ma);
		MaskFree(&mb);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Multiply x by sx and add dx (and y likewise) in every ring of g. */
static void
Transform(TGeom *g, double sx, double dx, double sy, double dy)
{
	for (int r = 0; r < g->nrings; r++)
		for (int i = 0; i < g->rings[r].npts; i++)
		{
			g->rings[r].c[i * TgDims(g)] = g->rings[r].c[i * TgDims(g)] * sx + dx;
			g->rings[r].c[i * TgDims(g) + 1] = g->rings[r].c[i * TgDims(g) + 1] * sy + dy;
		}
	for (int i = 0; i < g->ngeoms; i++)
		Transform(g->geoms[i], sx, dx, sy, dy);
}

/* Rectilinear shapes on half-pixel lattices are double shapes: every method (general underneath) is still exact, also paired with int shapes. */
void
test_engine_double_rectilinear_exact(void)
{
	Rng			rng = {6060};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 500; iter++)
	{
		/* a coarse mask (int shape, 2 x 2 fine cells each) and a fine one */
		int			cw = (int) RngRange(&rng, 1, 12),
					ch = (int) RngRange(&rng, 1, 12);
		Mask		coarse = MaskNew(cw, ch),
					fine = MaskNew(2 * cw, 2 * ch);
		int64_t		truth = 0;
		TGeom	   *ga,
				   *gb;
		uint32_t	pa,
					pb;
		int			both_double = iter & 1;

		RandomMask(&coarse, &rng);
		RandomMask(&fine, &rng);
		for (int j = 0; j < 2 * ch; j++)
			for (int i = 0; i < 2 * cw; i++)
				truth += coarse.bit[(j / 2) * cw + i / 2] && fine.bit[j * 2 * cw + i];
		ga = TraceAt(&coarse, 0, 0, &rng);
		gb = TraceAt(&fine, 0, 0, &rng);
		/* coarse cells are 1 x 1 at (-3, 7); fine cells 0.5 x 0.5 */
		Transform(ga, 1, -3, 1, 7);
		Transform(gb, 0.5, -3, 0.5, 7);
		if (both_double)
		{
			Transform(ga, 1, 0.25, 1, -0.75);
			Transform(gb, 1, 0.25, 1, -0.75);
		}
		pa = DecodeTgChecked(&b, ga, 0);
		pb = DecodeTgChecked(&b, gb, 1);
		pb_test_context("iter %d", iter);
		if (truth)
		{
			CHECK_INT(b.shapes[pa].kind, both_double ? PB_SHAPE_DOUBLE : PB_SHAPE_INT);
			CHECK(b.shapes[pb].kind == PB_SHAPE_DOUBLE || b.shapes[pb].kind == PB_SHAPE_INT);
		}
		CHECK_METHODS(&sc, &b, pa, pb, truth * 0.25, ALL_METHODS);
		TgFree(ga);
		TgFree(gb);
		MaskFree(&coarse);
		MaskFree(&fine);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Empty shapes, disjoint boxes, interleaved shapes with overlapping boxes and zero-area rings all give 0. */
void
test_engine_empty_and_disjoint(void)
{
	static const char *const v[][2] = {
		{"POLYGON EMPTY", "POLYGON((0 0,1 0,1 1,0 1,0 0))"},
		{"GEOMETRYCOLLECTION EMPTY", "GEOMETRYCOLLECTION EMPTY"},
		{"POLYGON((0 0,1 0,1 1,0 1,0 0))", "POLYGON((3 0,4 0,4 1,3 1,3 0))"},
		{"POLYGON((0 0,3 0,3 1,1 1,1 3,0 3,0 0))", "POLYGON((3 3,3 1,2 1,2 2,1 2,1 3,3 3))"},	/* nested Ls */
		{"POLYGON((0 0,5 0,5 0,0 0))", "POLYGON((0 -1,5 -1,5 1,0 1,0 -1))"},	/* zero-area ring */
		{"POLYGON((2 -1,2 5,2 -1))", "POLYGON((0 0,5 0,5 5,0 5,0 0))"},
		{"POLYGON((0 0,1 0,1 1,0 1,0 0))", "POLYGON((0.5 1,2.5 1,2.5 2,0.5 2,0.5 1))"},	/* touching, double */
	};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint32_t	p = DecodeWkt(&b, v[i][0], 0),
					q = DecodeWkt(&b, v[i][1], 0);

		pb_test_context("%s x %s", v[i][0], v[i][1]);
		CHECK_METHODS(&sc, &b, p, q, 0.0, ALL_METHODS);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

static long interrupt_calls;

static void
CountInterrupt(void *ctx)
{
	(void) ctx;
	interrupt_calls++;
}

/* A staircase of n unit steps: area n (n + 1) / 2. */
static TGeom *
Staircase(int n)
{
	TGeom	   *g = TgNew(PB_POLYGONTYPE, 0, 0);
	double	   *c = malloc(sizeof(double) * 2 * (2 * n + 4));
	int			k = 0;

	c[k++] = 0, c[k++] = 0;
	c[k++] = n, c[k++] = 0;
	for (int s = n; s >= 1; s--)
	{
		c[k++] = s, c[k++] = s;
		c[k++] = s - 1, c[k++] = s;
	}
	c[k++] = 0, c[k++] = 0;
	TgAddRing(g, c, k / 2);
	free(c);
	return g;
}

/* Long computations call check_interrupts, and still give the exact answer. */
void
test_engine_interrupt_hook(void)
{
	PbAllocator mem = PbMallocAllocator;
	PbBatch		b;
	PbScratch	sc;
	TGeom	   *stairs = Staircase(3000);
	uint32_t	p,
				q;
	double		truth = 3000.0 * 3001 / 2;

	mem.check_interrupts = CountInterrupt;
	PbBatchInit(&b, &mem);
	PbScratchInit(&sc, &mem);
	p = DecodeTgChecked(&b, stairs, 0);
	q = DecodeWkt(&b, "POLYGON((0 0,3000 0,3000 3000,0 3000,0 0))", 0);
	CHECK_DBL_EQ(b.shapes[p].area, truth);
	for (int m = 0; m < 5; m++)
	{
		interrupt_calls = 0;
		pb_test_context("%s", method_names[m]);
		CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, p, q, methods[m]), truth);
		if (methods[m] == PB_METHOD_SWEEP || methods[m] == PB_METHOD_GENERAL ||
			methods[m] == PB_METHOD_PIXELBOX)
			CHECK(interrupt_calls > 0);
	}
	TgFree(stairs);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}
