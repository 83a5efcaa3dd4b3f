/*
 * test_long_pairs.c: single pairs with many vertices (combs with teeth
 * along x and along y, rectangular spirals, near-circles; rectilinear and
 * sheared) through every engine, against truths from long_shapes.c (sums
 * of disjoint rectangles, the shoelace), and the interrupt hook called
 * often enough inside one pair that a cancel is seen within a fraction of
 * a second, honoured by jumping out of the engine.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdlib.h>

#include "long_shapes.h"
#include "testutil.h"

/* Check method m gives truth (to rel relative error) for p, q both ways. */
static void
CheckPair(PbScratch *sc, const PbBatch *b, uint32_t p, uint32_t q,
		  PbMethod m, double truth, double rel, const char *what)
{
	double		pq = PbIntersectionArea(sc, b, p, q, m),
				qp = PbIntersectionArea(sc, b, q, p, m);

	pb_test_context("%s, method %d", what, (int) m);
	CHECK_NEAR(pq, truth, rel * truth);
	CHECK_NEAR(qp, truth, rel * truth);
}

/*
 * Shape s against box (truth from its pieces) and against itself through
 * the given methods, unsheared (exact) and sheared by 1/2 (general engine,
 * to rounding).
 */
static void
CheckLong(LongShape *s, double x0, double y0, double x1, double y1,
		  const PbMethod *methods, int nmethods, const char *what)
{
	PbBatch		b;
	PbScratch	sc;
	double		truth = LongBoxArea(s, x0, y0, x1, y1),
				whole = LongBoxArea(s, -INFINITY, -INFINITY, INFINITY, INFINITY);

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int shear = 0; shear < 2; shear++)
	{
		LongShape	box = LongBox(x0, y0, x1, y1);
		uint32_t	p,
					q,
					p2;

		LongShear(s, 0.5 * shear);
		LongShear(&box, 0.5 * shear);
		p = LongAdd(&b, s);
		q = LongAdd(&b, &box);
		p2 = LongAdd(&b, s);
		pb_test_context("%s area", what);
		CHECK_NEAR(b.shapes[p].area, whole, 1e-12 * whole);
		for (int m = 0; m < (shear ? 1 : nmethods); m++)
		{
			PbMethod	method = shear ? PB_METHOD_GENERAL : methods[m];

			CheckPair(&sc, &b, p, q, method, truth, shear ? 1e-12 : 0, what);
			CheckPair(&sc, &b, p, p2, method, whole, shear ? 1e-12 : 0, what);
		}
		LongShear(s, -0.5 * shear);
		LongFree(&box);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

static const PbMethod int_methods[] = {
	PB_METHOD_AUTO, PB_METHOD_BITMAP, PB_METHOD_SWEEP, PB_METHOD_GENERAL
};

/* Combs of 32,000 vertices, teeth along x and along y: exact areas. */
void
test_long_combs_exact(void)
{
	LongShape	combx = LongComb(8000, 100, 0),
				comby = LongComb(8000, 100, 1);

	CheckLong(&combx, -1, -1, 8000, 50, int_methods, 4, "comb along x");
	CheckLong(&comby, -1, -1, 50, 8000, int_methods, 4, "comb along y");
	LongFree(&combx);
	LongFree(&comby);
}

/* A rectangular spiral of 2,002 vertices: exact areas. */
void
test_long_spiral_exact(void)
{
	LongShape	spiral = LongSpiral(1000);

	CheckLong(&spiral, -1e6, -1e6, 1, 1e6, int_methods, 4, "spiral");
	LongFree(&spiral);
}

/* A near-circle of 100,000 vertices against a box that holds it and one that halves it. */
void
test_long_ring(void)
{
	LongShape	circle = LongCircle(100000, 1e6, 3, 5),
				all = LongBox(-2e6, -2e6, 2e6, 2e6),
				half = LongBox(3, -2e6, 2e6, 2e6);
	PbBatch		b;
	PbScratch	sc;
	uint32_t	p,
				q,
				r;
	double		area;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	p = LongAdd(&b, &circle);
	q = LongAdd(&b, &all);
	r = LongAdd(&b, &half);
	area = b.shapes[p].area;
	CHECK_NEAR(area, 3.14159265358979324e12, 1e-9 * 3.14159265358979324e12);
	/* rounding over 100,000 slabs (how small it must be is item 7's) */
	CheckPair(&sc, &b, p, q, PB_METHOD_AUTO, area, 1e-10, "circle in box");
	CheckPair(&sc, &b, p, p, PB_METHOD_AUTO, area, 1e-10, "circle itself");
	/* symmetric about x = 3 (100,000 is a multiple of 4) */
	CheckPair(&sc, &b, p, r, PB_METHOD_AUTO, area / 2, 1e-9, "half circle");
	LongFree(&circle);
	LongFree(&all);
	LongFree(&half);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* The poll hook's record: when it was last called, the longest gap, calls left. */
static double poll_last,
			poll_gap;
static int	poll_left;
static jmp_buf poll_stop;

/* check_interrupts that notes the gap since the last call and stops when told. */
static void
StopPoll(void *ctx)
{
	double		t = TestSeconds();

	(void) ctx;
	if (t - poll_last > poll_gap)
		poll_gap = t - poll_last;
	poll_last = t;
	if (--poll_left == 0)
		longjmp(poll_stop, 1);
}

/*
 * Run method m on p, q with a hook that stops at its stop_after-th call;
 * check the hook was called at least once and never left more than 0.5 s
 * between calls (before this, one comb pair went seconds without a poll).
 * Returns whether it was stopped.
 */
static int
RunPolled(PbScratch *sc, const PbBatch *b, uint32_t p, uint32_t q, PbMethod m,
		  int stop_after, const char *what)
{
	volatile int stopped = 0;
	double		area = 0;

	pb_test_context("%s, method %d", what, (int) m);
	poll_gap = 0;
	poll_left = stop_after;
	poll_last = TestSeconds();
	if (setjmp(poll_stop) == 0)
		area = PbIntersectionArea(sc, b, p, q, m);
	else
		stopped = 1;
	CHECK(poll_left < stop_after);
	poll_left = -1;				/* no jump to this frame once it is gone */
	CHECK(fmax(poll_gap, TestSeconds() - poll_last) < 0.5);
	(void) area;
	return stopped;
}

/*
 * Every engine polls by work done inside one pair: a comb with teeth
 * along y against itself (sweep, general: quadratic slabs before), a
 * spiral (bitmap: its window; sweep), a comb against a box (PixelBox,
 * quadratic by design: it must be stopped, not finished).
 */
void
test_long_pairs_poll_stop(void)
{
	PbAllocator mem = PbMallocAllocator;
	PbBatch		b;
	PbScratch	sc;
	LongShape	comby = LongComb(16000, 1000, 1),
				spiral = LongSpiral(2000),
				small = LongComb(4000, 100, 0),
				box = LongBox(-1, -1, 4000, 50);
	uint32_t	c1,
				c2,
				s1,
				s2,
				k,
				bx;

	mem.check_interrupts = StopPoll;
	PbBatchInit(&b, &mem);
	PbScratchInit(&sc, &mem);
	c1 = LongAdd(&b, &comby);
	c2 = LongAdd(&b, &comby);
	s1 = LongAdd(&b, &spiral);
	s2 = LongAdd(&b, &spiral);
	k = LongAdd(&b, &small);
	bx = LongAdd(&b, &box);
	RunPolled(&sc, &b, c1, c2, PB_METHOD_SWEEP, 1000000, "comb y, sweep");
	RunPolled(&sc, &b, c1, c2, PB_METHOD_GENERAL, 1000000, "comb y, general");
	RunPolled(&sc, &b, s1, s2, PB_METHOD_BITMAP, 1000000, "spiral, bitmap");
	RunPolled(&sc, &b, s1, s2, PB_METHOD_SWEEP, 1000000, "spiral, sweep");
	CHECK(RunPolled(&sc, &b, k, bx, PB_METHOD_PIXELBOX, 3, "comb, pixelbox"));
	/* the scratch still works after a jump out of an engine */
	pb_test_context("after a stop");
	CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, k, bx, PB_METHOD_SWEEP),
				 LongBoxArea(&small, -1, -1, 4000, 50));
	LongFree(&comby);
	LongFree(&spiral);
	LongFree(&small);
	LongFree(&box);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}
