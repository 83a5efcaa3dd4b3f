/*
 * test_threads.c: PbComputeAreasThreaded gives, for any thread count, the
 * areas the single-threaded engine gives, and stops when asked.
 */
#include <stdlib.h>

#include "../src/core/pair_threads.h"
#include "testutil.h"

/* A batch of many random mask-free pairs: rectilinear and general shapes. */
static void
FillBatch(PbBatch *b, Rng *r, int n)
{
	for (int k = 0; k < n; k++)
	{
		TGeom	   *ga = RandomOrthoShape(r, 1, 8, 0, 0, 40, 0);
		TGeom	   *gb = RandomOrthoShape(r, 1, 8, 5, 5, 40, 0);
		uint32_t	sa,
					sb;
		PbError		err;

		if (DecodeTg(b, ga, 0, &sa, &err) == PB_OK && DecodeTg(b, gb, 0, &sb, &err) == PB_OK)
			PbBatchAddPair(b, sa, sb);
		TgFree(ga);
		TgFree(gb);
	}
	/* a few general (diagonal) pairs too */
	for (int k = 0; k < 50; k++)
		PbBatchAddPair(b, DecodeWkt(b, "POLYGON((0 0,10 1,7 9,0 0))", 0),
					   DecodeWkt(b, "POLYGON((1 1,9 0.5,4 8,1 1))", 0));
}

/* Any thread count, with and without an index list, equals the plain engine. */
void
test_threads_match_sequential(void)
{
	Rng			r = {77};
	PbBatch		b;
	PbScratch	sc;
	double	   *seq,
			   *par;
	uint32_t   *idx;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	FillBatch(&b, &r, 3000);
	seq = malloc(sizeof(double) * b.npairs);
	par = malloc(sizeof(double) * b.npairs);
	idx = malloc(sizeof(uint32_t) * b.npairs);
	for (uint32_t i = 0; i < b.npairs; i++)
	{
		seq[i] = PbIntersectionArea(&sc, &b, b.pairs[i].a, b.pairs[i].b, PB_METHOD_AUTO);
		idx[i] = b.npairs - 1 - i;
	}
	for (int t = 1; t <= 9; t += 4)
	{
		CHECK_INT(PbComputeAreasThreaded(&b, NULL, b.npairs, par, PB_METHOD_AUTO, t, NULL, NULL), 1);
		for (uint32_t i = 0; i < b.npairs; i++)
			CHECK_DBL_EQ(par[i], seq[i]);
		CHECK_INT(PbComputeAreasThreaded(&b, idx, b.npairs, par, PB_METHOD_PIXELBOX, t, NULL, NULL), 1);
		for (uint32_t k = 0; k < b.npairs; k++)
			CHECK_DBL_EQ(par[k], seq[idx[k]]);
	}
	CHECK_INT(PbComputeAreasThreaded(&b, NULL, 0, par, PB_METHOD_AUTO, 4, NULL, NULL), 1);
	free(seq);
	free(par);
	free(idx);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* A stop request ends every thread and is reported. */
static int
StopNow(void *ctx)
{
	return ++*(int *) ctx > 2;
}

void
test_threads_stop(void)
{
	Rng			r = {78};
	PbBatch		b;
	double	   *par;
	int			calls = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	FillBatch(&b, &r, 3000);
	par = malloc(sizeof(double) * b.npairs);
	CHECK_INT(PbComputeAreasThreaded(&b, NULL, b.npairs, par, PB_METHOD_PIXELBOX, 4, StopNow, &calls), 0);
	CHECK(calls >= 3);
	free(par);
	PbBatchFree(&b);
}
