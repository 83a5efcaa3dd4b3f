/*
 * test_area_thread.c: a batch's areas computed on a thread of their own
 * (src/core/geom/area_thread.c): every pair equal to its pixel truth (the
 * rectilinear ones) and to PbIntersectionArea on the caller bit for bit
 * (all of them), over batches in turn on one thread whose scratch keeps
 * runs of shapes; an empty batch; a wait stopped by its poll and a thread
 * freed while it runs, the thread usable after; running out of memory,
 * which the wait reports, the thread usable after.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include "../src/core/geom/area_thread.h"
#include "testutil.h"

/* vertices of each star of the stop test: one pair takes a good part of a second */
#define STAR_VERTICES 5000

/*
 * Fill b with a join's worth of pairs: hosts (rectilinear, up to 300 px)
 * each against 30 shapes over it in a row, and a few triangles with
 * fractional coordinates against every host; truth[i] is pair i's pixel
 * truth, or -1 where there is none (a triangle).
 */
static void
FillJoin(PbBatch *b, Rng *rng, double *truth, uint32_t cap)
{
	double		tri[6];
	TGeom	   *t;
	uint32_t	it;

	for (int h = 0; h < 6; h++)
	{
		int64_t		span = RngRange(rng, 20, 300),
					x0 = RngRange(rng, -300, 300),
					y0 = RngRange(rng, -300, 300);
		TGeom	   *host = RandomOrthoShape(rng, (int) RngRange(rng, 1, 3),
											(int) RngRange(rng, 2, 30), x0, y0, span, h % 2);
		uint32_t	ih = DecodeTgChecked(b, host, 0);

		for (int i = 0; i < 30 && b->npairs < cap; i++)
		{
			int64_t		os = RngRange(rng, 1, 80);
			TGeom	   *o = RandomOrthoShape(rng, 1, (int) RngRange(rng, 2, 8),
											 x0 + RngRange(rng, -os, span),
											 y0 + RngRange(rng, -os, span), os, 0);

			truth[b->npairs] = TruthPixelsOverlap(host, o);
			PbBatchAddPair(b, ih, DecodeTgChecked(b, o, 0));
			TgFree(o);
		}
		for (int k = 0; k < 6; k++)
			tri[k] = x0 + RngDouble(rng) * span + 0.25;
		t = TgPolygonOf(tri, 3);
		it = DecodeTgChecked(b, t, 0);
		if (b->npairs < cap)
		{
			truth[b->npairs] = -1;
			PbBatchAddPair(b, it, ih);
		}
		TgFree(t);
		TgFree(host);
	}
}

/* Check the thread's areas of b against the truths and the caller's engine. */
static void
CheckAreas(const PbBatch *b, const double *areas, const double *truth, PbScratch *sc)
{
	for (uint32_t i = 0; i < b->npairs; i++)
	{
		pb_test_context("pair %u", i);
		CHECK_DBL_EQ(areas[i], PbIntersectionArea(sc, b, b->pairs[i].a, b->pairs[i].b,
												  PB_METHOD_AUTO));
		if (truth[i] >= 0)
			CHECK_DBL_EQ(areas[i], truth[i]);
	}
}

/*
 * Two batches filled and computed in turn on one thread (each computed
 * while the other is refilled, as the aggregate does), ten rounds, then
 * an empty batch: every area right.
 */
void
test_area_thread_batches(void)
{
	Rng			rng = {5003};
	PbBatch		b[2];
	PbScratch	sc;
	PbAreaThread t;
	double		truth[2][256];
	const double *areas;

	PbBatchInit(&b[0], &PbMallocAllocator);
	PbBatchInit(&b[1], &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	PbAreaThreadInit(&t, &PbMallocAllocator, true);
	FillJoin(&b[0], &rng, truth[0], 256);
	for (int round = 0; round < 10; round++)
	{
		int			c = round % 2;

		CHECK(PbAreaThreadStart(&t, &b[c], PB_METHOD_AUTO));
		PbBatchReset(&b[1 - c]);
		FillJoin(&b[1 - c], &rng, truth[1 - c], 256);
		CHECK(PbAreaThreadWait(&t, NULL, NULL, &areas) == PB_OK);
		pb_test_context("round %d", round);
		CheckAreas(&b[c], areas, truth[c], &sc);
	}
	PbBatchReset(&b[0]);
	CHECK(PbAreaThreadStart(&t, &b[0], PB_METHOD_AUTO));
	CHECK(PbAreaThreadWait(&t, NULL, NULL, &areas) == PB_OK);
	CHECK(areas != NULL);
	PbAreaThreadFree(&t);
	PbAreaThreadFree(&t);
	PbScratchFree(&sc);
	PbBatchFree(&b[0]);
	PbBatchFree(&b[1]);
}

/* A poll that asks to stop from its first call on, counting its calls. */
static int
StopNow(void *arg)
{
	return ++*(int *) arg > 0;
}

/* A star of n vertices (k-th of its kind) with fractional points: the general engine's. */
static uint32_t
DecodeStar(PbBatch *b, int n, int k)
{
	double	   *xy = malloc(sizeof(double) * 2 * n);
	TGeom	   *g;
	uint32_t	s;

	for (int i = 0; i < n; i++)
	{
		double		r = (i % 2 ? 900.0 : 300.0) + k * 7.5,
					a = 6.283185307179586 * i / n;

		xy[2 * i] = r * __builtin_cos(a) + 0.125;
		xy[2 * i + 1] = r * __builtin_sin(a) - 0.375;
	}
	g = TgPolygonOf(xy, n);
	s = DecodeTgChecked(b, g, 0);
	TgFree(g);
	free(xy);
	return s;
}

/*
 * A batch of three heavy pairs (two stars, each pair timed here first):
 * a wait whose poll asks to stop at once says stopped, having polled
 * once, in well under one pair's time (the thread left inside the pair);
 * the thread then computes a batch right; a thread freed while it runs
 * is stopped and joined as soon.
 */
void
test_area_thread_stop(void)
{
	Rng			rng = {6007};
	PbBatch		b,
				small;
	PbScratch	sc;
	PbAreaThread t;
	double		truth[256],
				t0,
				pair;
	const double *areas;
	int			polls = 0;
	struct timespec nap = {0, 0};
	uint32_t	s0,
				s1;

	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&small, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	s0 = DecodeStar(&b, STAR_VERTICES, 0);
	s1 = DecodeStar(&b, STAR_VERTICES, 1);
	for (int i = 0; i < 3; i++)
		PbBatchAddPair(&b, s0, s1);
	t0 = TestSeconds();
	CHECK(PbIntersectionArea(&sc, &b, s0, s1, PB_METHOD_AUTO) > 0);
	pair = TestSeconds() - t0;
	PbAreaThreadInit(&t, &PbMallocAllocator, true);
	t0 = TestSeconds();
	CHECK(PbAreaThreadStart(&t, &b, PB_METHOD_AUTO));
	CHECK(PbAreaThreadWait(&t, StopNow, &polls, &areas) == PB_ERR_STOPPED);
	CHECK(TestSeconds() - t0 < pair / 2);
	CHECK(areas == NULL);
	CHECK(polls == 1);
	FillJoin(&small, &rng, truth, 256);
	CHECK(PbAreaThreadStart(&t, &small, PB_METHOD_AUTO));
	CHECK(PbAreaThreadWait(&t, NULL, NULL, &areas) == PB_OK);
	CheckAreas(&small, areas, truth, &sc);
	CHECK(PbAreaThreadStart(&t, &b, PB_METHOD_AUTO));
	nap.tv_sec = (time_t) (pair / 5);	/* into the first pair */
	nap.tv_nsec = (long) ((pair / 5 - (double) nap.tv_sec) * 1e9);
	nanosleep(&nap, NULL);
	t0 = TestSeconds();
	PbAreaThreadFree(&t);
	CHECK(TestSeconds() - t0 < pair / 2);
	PbScratchFree(&sc);
	PbBatchFree(&b);
	PbBatchFree(&small);
}

/* An allocator whose limit-th allocation fails (then it works again). */
typedef struct Failing
{
	int			calls,
				limit;
} Failing;

static void *
FailingAlloc(void *ctx, size_t size)
{
	Failing    *f = ctx;

	if (++f->calls == f->limit)
		PbOutOfMemory();
	return PbMallocAllocator.alloc(NULL, size);
}

static void *
FailingResize(void *ctx, void *ptr, size_t size)
{
	Failing    *f = ctx;

	if (++f->calls == f->limit)
		PbOutOfMemory();
	return PbMallocAllocator.resize(NULL, ptr, size);
}

static void
FailingRelease(void *ctx, void *ptr)
{
	PbMallocAllocator.release(ctx, ptr);
}

/*
 * The thread's scratch runs out of memory at its first, second, ...
 * allocation in turn: the wait reports it, and the same thread then
 * computes the batch right.
 */
void
test_area_thread_out_of_memory(void)
{
	Rng			rng = {7001};
	PbBatch		b;
	PbScratch	sc;
	double		truth[256];
	const double *areas;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	FillJoin(&b, &rng, truth, 256);
	for (int limit = 1; limit <= 4; limit++)
	{
		Failing		f = {0, limit};
		PbAllocator mem = {FailingAlloc, FailingResize, FailingRelease, NULL, &f};
		PbAreaThread t;

		pb_test_context("failing allocation %d", limit);
		PbAreaThreadInit(&t, &mem, true);
		CHECK(PbAreaThreadStart(&t, &b, PB_METHOD_AUTO));
		CHECK(PbAreaThreadWait(&t, NULL, NULL, &areas) == PB_ERR_NOMEM);
		CHECK(areas == NULL);
		CHECK(PbAreaThreadStart(&t, &b, PB_METHOD_AUTO));
		CHECK(PbAreaThreadWait(&t, NULL, NULL, &areas) == PB_OK);
		CheckAreas(&b, areas, truth, &sc);
		PbAreaThreadFree(&t);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}
