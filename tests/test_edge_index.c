/*
 * test_edge_index.c: the edge-flag engine reading a large shape through
 * its index of edges by row band (src/core/geom/edge_index.c), against
 * brute-force pixel truths: a large shape and many small ones over it in
 * one batch, every pair asked twice (the first meeting walks every edge,
 * later ones read the bands), windows on band boundaries, edges spanning
 * many bands, self-crossing rings, negative coordinates; and a batch
 * refilled behind the same scratch, which must not be served the old
 * shape's index.  The large shape is in the batch twice and the pairs
 * alternate between the copies, so that neither comes back in the next
 * pair and has its pixels kept whole (bitmap_solid.h, tested apart):
 * both are read through their bands.
 */
#include <stdlib.h>

#include "../src/core/geom/edge_index.h"
#include "testutil.h"

/* Mask m traced with its cell (0, 0) at (x0, y0). */
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
	g = MaskTrace(m, xs, ys, r, 0);
	free(xs);
	free(ys);
	return g;
}

/*
 * A large shape g (box x0, y0, w, h), twice, and nsmall small random
 * shapes over it, half of them with their top or bottom on a multiple of 8
 * rows from the large one's top (band boundaries), all in batch b: the
 * bitmap engine gives each pair's pixel truth, in both orders (one copy
 * each), three times.
 */
static void
BlobCase(Rng *r, PbBatch *b, PbScratch *sc, const TGeom *g, int64_t x0, int64_t y0,
		 int64_t w, int64_t h, int nsmall)
{
	uint32_t	big = DecodeTgChecked(b, g, 0),
				big2 = DecodeTgChecked(b, g, 0);
	uint32_t   *small = malloc(sizeof(uint32_t) * nsmall);
	TGeom	  **sg = malloc(sizeof(TGeom *) * nsmall);
	double	   *truth = malloc(sizeof(double) * nsmall);

	CHECK(PbShapePoints(b, &b->shapes[big]) >= PB_EDGE_INDEX_MIN_POINTS);
	for (int i = 0; i < nsmall; i++)
	{
		int64_t		span = RngRange(r, 2, 20),
					sx = x0 + RngRange(r, -10, w),
					sy = y0 + RngRange(r, -10, h);
		double		box[4] = {1, 1, 0, 0};	/* empty: TruthBox widens it */

		if (i % 2)				/* a band boundary, or a row next to one */
			sy = y0 + 8 * RngRange(r, 0, h / 8) + RngRange(r, -1, 1) - (i % 4 == 1 ? span : 0);
		sg[i] = RandomOrthoShape(r, (int) RngRange(r, 1, 2), (int) RngRange(r, 2, 6), sx, sy, span,
								 (int) RngRange(r, 0, 1));
		small[i] = DecodeTgChecked(b, sg[i], 0);
		TruthBox(sg[i], box);
		truth[i] = (double) TruthPixelsBoth(g, sg[i], (int64_t) box[0], (int64_t) box[1],
											(int64_t) box[2], (int64_t) box[3]);
	}
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < nsmall; i++)
		{
			double		a = PbIntersectionArea(sc, b, big, small[i], PB_METHOD_BITMAP),
						c = PbIntersectionArea(sc, b, small[i], big2, PB_METHOD_BITMAP);

			pb_test_context("pass %d small %d", pass, i);
			CHECK_DBL_EQ(a, truth[i]);
			CHECK_DBL_EQ(c, truth[i]);
		}
	for (int i = 0; i < nsmall; i++)
		TgFree(sg[i]);
	free(sg);
	free(small);
	free(truth);
}

/* Traced blobs with holes, self-crossing rings, long edges: the bands give the truth. */
void
test_edge_index_blob_pairs(void)
{
	Rng			rng = {8128};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 12; iter++)
	{
		int64_t		x0 = RngRange(&rng, -500, 500),
					y0 = RngRange(&rng, -500, 500),
					w = RngRange(&rng, 100, 220),
					h = RngRange(&rng, 100, 220);
		TGeom	   *g;

		pb_test_context("iter %d", iter);
		if (iter % 3 == 0)		/* blobs with holes and islands, ragged */
		{
			Mask		m = MaskNew((int) w, (int) h);

			MaskRects(&m, &rng, 12);
			for (int k = 0; k < m.w * m.h; k++)
				m.bit[k] ^= RngRange(&rng, 0, 30) == 0;
			g = TraceAt(&m, x0, y0, &rng);
			MaskFree(&m);
		}
		else if (iter % 3 == 1) /* self-crossing rings with long edges */
		{
			h = w;
			g = RandomOrthoShape(&rng, 8, 40, x0, y0, w, (int) (iter % 2));
		}
		else					/* a comb: columns the full height, so edges span every band */
		{
			Mask		m = MaskNew((int) w, (int) h);

			for (int j = 0; j < m.h; j++)
				for (int i = 0; i < m.w; i++)
					m.bit[j * m.w + i] = (i % 4 < 2) || (j % 16 == 0) || RngRange(&rng, 0, 9) == 0;
			g = TraceAt(&m, x0, y0, &rng);
			MaskFree(&m);
		}
		BlobCase(&rng, &b, &sc, g, x0, y0, w, h, 60);
		TgFree(g);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/*
 * When the index is used: not for a shape met the first time, a small
 * shape or a window nearly as tall as the shape, nor for a batch without
 * a serial; from the second meeting on for a large one.
 */
void
test_edge_index_when_used(void)
{
	Rng			rng = {31};
	PbBatch		b;
	PbScratch	sc;
	PbEdgeBands ix;
	Mask		m = MaskNew(200, 160);
	TGeom	   *g,
			   *tiny = RandomOrthoShape(&rng, 1, 3, 10, 10, 5, 0);
	uint32_t	big,
				small;
	const PbShape *s;
	uint64_t	serial;

	MaskNoise(&m, &rng, 0.5);
	g = TraceAt(&m, 0, 0, &rng);
	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	big = DecodeTgChecked(&b, g, 0);
	small = DecodeTgChecked(&b, tiny, 0);
	s = &b.shapes[big];
	CHECK(!PbEdgeBandsFor(&sc, &b, s, 40, 60, &ix));	/* first meeting */
	CHECK(PbEdgeBandsFor(&sc, &b, s, 40, 60, &ix));
	CHECK(ix.nbands > 1);
	CHECK(ix.start[0] == 0);
	CHECK(ix.ymin == 0);
	CHECK(PbEdgeBandsFor(&sc, &b, s, 0, 80, &ix));	/* half of 160 rows */
	CHECK(!PbEdgeBandsFor(&sc, &b, s, 0, 81, &ix));
	CHECK(!PbEdgeBandsFor(&sc, &b, &b.shapes[small], 10, 11, &ix));
	CHECK(!PbEdgeBandsFor(&sc, &b, &b.shapes[small], 10, 11, &ix));
	serial = b.serial;
	b.serial = 0;				/* a batch not made by PbBatchInit/Reset */
	CHECK(!PbEdgeBandsFor(&sc, &b, s, 40, 60, &ix));
	b.serial = serial;
	PbBatchReset(&b);
	CHECK(b.serial != serial && b.serial != 0);
	big = DecodeTgChecked(&b, g, 0);
	CHECK(!PbEdgeBandsFor(&sc, &b, &b.shapes[big], 40, 60, &ix));	/* met first in this batch */
	TgFree(g);
	TgFree(tiny);
	MaskFree(&m);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/*
 * One scratch, two batches: shape 0 indexed in the first, then the batch
 * refilled with another large shape at index 0 (same ring position): the
 * pairs give the new shape's truth, not the old index's.
 */
void
test_edge_index_batch_refilled(void)
{
	Rng			rng = {77};
	PbBatch		b;
	PbScratch	sc;
	Mask		m1 = MaskNew(120, 120),
				m2 = MaskNew(120, 120);
	TGeom	   *g1,
			   *g2,
			   *n = RandomOrthoShape(&rng, 1, 4, 50, 50, 12, 0);
	double		box[4] = {1, 1, 0, 0};	/* empty: TruthBox widens it */

	MaskNoise(&m1, &rng, 0.5);
	MaskNoise(&m2, &rng, 0.5);
	g1 = TraceAt(&m1, 0, 0, &rng);
	g2 = TraceAt(&m2, 0, 0, &rng);
	TruthBox(n, box);
	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int k = 0; k < 2; k++)
	{
		const TGeom *g = k ? g2 : g1;
		uint32_t	big = DecodeTgChecked(&b, g, 0),
					small = DecodeTgChecked(&b, n, 0);
		double		truth = (double) TruthPixelsBoth(g, n, (int64_t) box[0], (int64_t) box[1],
													 (int64_t) box[2], (int64_t) box[3]);

		pb_test_context("batch %d", k);
		CHECK_INT(big, 0);
		for (int pass = 0; pass < 3; pass++)
			CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, big, small, PB_METHOD_BITMAP), truth);
		PbBatchReset(&b);
	}
	TgFree(g1);
	TgFree(g2);
	TgFree(n);
	MaskFree(&m1);
	MaskFree(&m2);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}
