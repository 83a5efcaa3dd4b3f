/*
 * test_bitmap_solid.c: the edge-flag engine with a shape's pixels kept
 * whole for the pairs in a row that share it (src/core/geom/bitmap_solid.c),
 * against brute-force pixel truths: a shape against many others in a row,
 * in either argument, at every offset from its 64-pixel words, narrower and
 * wider than a word, with negative coordinates and self-crossing rings; a
 * shape against itself; when a shape is kept (a nucleus once it has been
 * in a few pairs in a row, a blob once its pairs would have paid for it,
 * never a shape over the size limit or one of an earlier batch).
 */
#include <stdlib.h>

#include "../src/core/geom/bitmap_solid.h"
#include "testutil.h"

/*
 * Host shapes of many sizes (3 px to 300 px across, a word's edges
 * included), each against 40 random shapes over it, in a row: the host
 * first, then second (the host is kept), then the others each three
 * times in a row against three other copies of the host (each other is
 * kept in turn, the host's flags filled on its words), then the host
 * against itself; every area is the pixel truth.
 */
void
test_bitmap_solid_pairs(void)
{
	Rng			rng = {4099};
	PbBatch		b;
	PbScratch	sc;
	const int	nother = 40;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	sc.keep_runs = true;
	for (int iter = 0; iter < 16; iter++)
	{
		int64_t		span = iter < 4 ? RngRange(&rng, 3, 70) : RngRange(&rng, 60, 300),
					x0 = RngRange(&rng, -400, 400),
					y0 = RngRange(&rng, -400, 400);
		TGeom	   *host = RandomOrthoShape(&rng, (int) RngRange(&rng, 1, 4),
											(int) RngRange(&rng, 2, 30), x0, y0, span,
											(int) (iter % 2));
		TGeom	   *other[40];
		double		truth[40];
		uint32_t	h = DecodeTgChecked(&b, host, 0),
					copy[3] = {DecodeTgChecked(&b, host, 0), DecodeTgChecked(&b, host, 0), DecodeTgChecked(&b, host, 0)},
					o[40];

		for (int i = 0; i < nother; i++)
		{
			int64_t		os = RngRange(&rng, 1, 90);

			other[i] = RandomOrthoShape(&rng, (int) RngRange(&rng, 1, 2), (int) RngRange(&rng, 2, 8),
										x0 + RngRange(&rng, -os, span), y0 + RngRange(&rng, -os, span),
										os, 0);
			o[i] = DecodeTgChecked(&b, other[i], 0);
			truth[i] = TruthPixelsOverlap(host, other[i]);
		}
		for (int i = 0; i < nother; i++)
		{
			pb_test_context("iter %d host first, other %d", iter, i);
			CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, h, o[i], PB_METHOD_BITMAP), truth[i]);
		}
		for (int i = 0; i < nother; i++)
		{
			pb_test_context("iter %d host second, other %d", iter, i);
			CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, o[i], h, PB_METHOD_BITMAP), truth[i]);
		}
		for (int i = 0; i < nother; i++)
		{
			pb_test_context("iter %d other %d three times", iter, i);
			CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, o[i], copy[0], PB_METHOD_BITMAP), truth[i]);
			CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, copy[1], o[i], PB_METHOD_BITMAP), truth[i]);
			CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, o[i], copy[2], PB_METHOD_BITMAP), truth[i]);
		}
		pb_test_context("iter %d host against itself", iter);
		CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, h, h, PB_METHOD_BITMAP), TruthPixelsOverlap(host, host));
		CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, h, h, PB_METHOD_BITMAP), TruthPixelsOverlap(host, host));
		for (int i = 0; i < nother; i++)
			TgFree(other[i]);
		TgFree(host);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* A rectangle [x0, x1) x [y0, y1). */
static TGeom *
Rect(double x0, double y0, double x1, double y1)
{
	double		xy[10] = {x0, y0, x1, y0, x1, y1, x0, y1, x0, y0};

	return TgPolygonOf(xy, 5);
}

/*
 * When a shape is kept: never in a scratch without keep_runs; not before
 * its PB_SOLID_MIN_RUN-th pair in a row, nor in a batch without a serial; then a nucleus, in either argument; a
 * blob of 10 x 200 words against windows of 10 words once it has been in
 * as many pairs in a row as its size asks; never a shape over
 * PB_SOLID_MAX_WORDS; a shape of an earlier batch is never served.
 */
void
test_bitmap_solid_when_kept(void)
{
	PbBatch		b;
	PbScratch	sc;
	PbSolidView v;
	TGeom	   *nucleus = Rect(0, 0, 10, 10),
			   *dot = Rect(2, 2, 6, 6),
			   *blob = Rect(0, 0, 640, 200),	/* 10 words x 200 rows */
			   *huge = Rect(0, 0, 64 * 200, 100);	/* 200 words x 100 rows */
	uint32_t	n,
				d,
				s1,
				s2,
				bl,
				hu,
				step = PB_SOLID_WINDOWS * 10 + PB_SOLID_SLACK_WORDS,
				need = (2000 + step - 1) / step;
	uint64_t	serial;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	n = DecodeTgChecked(&b, nucleus, 0);
	d = DecodeTgChecked(&b, dot, 0);
	s1 = DecodeTgChecked(&b, dot, 0);
	s2 = DecodeTgChecked(&b, dot, 0);
	bl = DecodeTgChecked(&b, blob, 0);
	hu = DecodeTgChecked(&b, huge, 0);

	for (int run = 0; run < 8; run++)	/* a scratch that does not keep shapes */
		CHECK(!PbSolidFor(&sc, &b, d, n, 10, &v));
	sc.keep_runs = true;
	PbScratchFree(&sc);			/* the owner's choice survives */
	CHECK(sc.keep_runs);

	for (int run = 1; run < PB_SOLID_MIN_RUN; run++)
		CHECK(!PbSolidFor(&sc, &b, d, n, 10, &v));	/* too few pairs yet */
	CHECK(PbSolidFor(&sc, &b, d, n, 10, &v));	/* a nucleus, kept */
	CHECK_INT(v.shape, n);
	CHECK_INT(v.nw, 1);
	CHECK(v.x0 == 0 && v.y0 == 0);
	CHECK(v.bits[0] == 0x3ff && v.bits[9] == 0x3ff);	/* its 10 x 10 pixels */
	CHECK(PbSolidFor(&sc, &b, n, d, 10, &v));	/* either argument */
	CHECK_INT(v.shape, n);

	/* the blob against s1 and s2 in turn (neither in the pair before) */
	CHECK(!PbSolidFor(&sc, &b, bl, s1, 10, &v));
	for (uint32_t run = 2; run < need; run++)
	{
		pb_test_context("blob run %u", run);
		CHECK(!PbSolidFor(&sc, &b, run % 2 ? bl : s2, run % 2 ? s2 : bl, 10, &v));
	}
	pb_test_context("blob run %u", need);
	CHECK(need > PB_SOLID_MIN_RUN);
	CHECK(PbSolidFor(&sc, &b, bl, s1, 10, &v));
	CHECK_INT(v.shape, bl);
	CHECK_INT(v.nw, 10);

	for (int run = 0; run < 64; run++)	/* over the limit whatever the run */
	{
		pb_test_context("huge run %d", run);
		CHECK(!PbSolidFor(&sc, &b, hu, run % 2 ? s1 : s2, PB_SOLID_MAX_WORDS, &v));
	}

	serial = b.serial;
	b.serial = 0;				/* a batch not made by PbBatchInit/Reset */
	CHECK(!PbSolidFor(&sc, &b, d, n, 10, &v));
	CHECK(!PbSolidFor(&sc, &b, d, n, 10, &v));
	b.serial = serial;

	PbBatchReset(&b);			/* the blob's index again, another shape */
	for (uint32_t i = 0; i <= bl; i++)
		CHECK_INT(DecodeTgChecked(&b, dot, 0), i);
	pb_test_context("refilled batch");
	for (int run = 1; run < PB_SOLID_MIN_RUN; run++)
		CHECK(!PbSolidFor(&sc, &b, run % 2 ? n : d, bl, 10, &v));
	CHECK(PbSolidFor(&sc, &b, d, bl, 10, &v));
	CHECK_INT(v.shape, bl);
	CHECK(v.x0 == 2 && v.y0 == 2 && v.nw == 1);
	CHECK(v.bits[0] == 0xf && v.bits[3] == 0xf);	/* the dot's pixels, not the blob's */
	CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, d, bl, PB_METHOD_BITMAP), 16.0);

	TgFree(nucleus);
	TgFree(dot);
	TgFree(blob);
	TgFree(huge);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}
