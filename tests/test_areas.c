/*
 * test_areas.c: shape->area (ST_Area semantics: per polygon |shell| minus
 * sum |holes|) against hand values and the test's own shoelace.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Hand-computed areas of small shapes, orientation and ring order irrelevant. */
void
test_area_known_shapes(void)
{
	static const struct
	{
		const char *wkt;
		double		area;
	}			v[] = {
		{"POLYGON((0 0,4 0,4 3,0 3,0 0))", 12},
		{"POLYGON((0 0,0 3,4 3,4 0,0 0))", 12},	/* clockwise shell */
		{"POLYGON((0 0,4 0,4 3,0 3,0 0),(1 1,2 1,2 2,1 2,1 1))", 11},	/* ccw hole */
		{"POLYGON((0 0,4 0,4 3,0 3,0 0),(1 1,1 2,2 2,2 1,1 1))", 11},	/* cw hole */
		{"POLYGON((0 0,3 0,3 1,1 1,1 3,0 3,0 0))", 5},	/* L */
		{"POLYGON((0 0,4 0,0 3,0 0))", 6},
		{"POLYGON((0 0,1 0,1 0.5,0.5 0.5,0.5 1,0 1,0 0))", 0.75},
		{"MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),((2 2,4 2,4 4,2 4,2 2),(3 3,3.5 3,3.5 3.5,3 3)))", 1 + 4 - 0.125},
		{"POLYGON((0 0,2 2,2 0,0 2,0 0))", 0},	/* bow-tie: signed lobes cancel, as in ST_Area */
		{"POLYGON((-1e6 -1e6,1e6 -1e6,1e6 1e6,-1e6 1e6,-1e6 -1e6))", 4e12},
		{"POLYGON((1e12 1e12,1000000000002 1e12,1000000000002 1000000000003,1e12 1e12))", 3},
		{"POLYGON((0 0,1073741824 0,1073741824 1073741824,0 1073741824,0 0))", 1152921504606846976.0},
		{"POLYGON((0 0,1 0,1 1,0 1))", 1},	/* unclosed ring */
		{"POLYGON((0 0,1 0,1 1,0 1,0 0),(5 5,5 5,5 5))", 1},	/* degenerate hole */
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint32_t	s = DecodeWkt(&b, v[i].wkt, (int) (i & 1));

		pb_test_context("%s", v[i].wkt);
		if (s != UINT32_MAX)
			CHECK_DBL_EQ(b.shapes[s].area, v[i].area);
	}
	PbBatchFree(&b);
}

/* Traced random masks (unit and stretched lattices, holes and islands): area == sum of the set cells. */
void
test_area_traced_masks(void)
{
	Rng			rng = {1234};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int iter = 0; iter < 400; iter++)
	{
		int			w = (int) RngRange(&rng, 1, 40),
					h = (int) RngRange(&rng, 1, 40);
		Mask		m = MaskNew(w, h);
		int64_t    *xs = malloc(sizeof(int64_t) * (w + 1)),
				   *ys = malloc(sizeof(int64_t) * (h + 1));
		int			stretch = iter & 1;
		int64_t		truth = 0;
		TGeom	   *g;
		uint32_t	s = 0;
		PbError		err;

		if (iter % 3 == 0)
			MaskNoise(&m, &rng, RngDouble(&rng));
		else
			MaskRects(&m, &rng, (int) RngRange(&rng, 1, 8));
		xs[0] = RngRange(&rng, -1000000, 1000000);
		ys[0] = RngRange(&rng, -1000000, 1000000);
		for (int i = 1; i <= w; i++)
			xs[i] = xs[i - 1] + (stretch ? RngRange(&rng, 1, 100000) : 1);
		for (int j = 1; j <= h; j++)
			ys[j] = ys[j - 1] + (stretch ? RngRange(&rng, 1, 100000) : 1);
		for (int j = 0; j < h; j++)
			for (int i = 0; i < w; i++)
				if (m.bit[j * w + i])
					truth += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j]);
		g = MaskTrace(&m, xs, ys, &rng, iter % 5 == 0);
		pb_test_context("iter %d (%dx%d)", iter, w, h);
		CHECK_INT(DecodeTg(&b, g, (iter & 2) != 0, &s, &err), PB_OK);
		CHECK_DBL_EQ(b.shapes[s].area, (double) truth);
		CHECK_DBL_EQ((double) TruthArea(g), (double) truth);	/* the tracer is right too */
		CHECK_INT(b.shapes[s].kind, truth ? PB_SHAPE_INT : PB_SHAPE_EMPTY);
		TgFree(g);
		free(xs);
		free(ys);
		MaskFree(&m);
		PbBatchReset(&b);
	}
	PbBatchFree(&b);
}

/*
 * A star-shaped polygon with n vertices around (cx, cy), radii in [r/3, r];
 * with n >= 16 its edges stay farther than r/5 from the centre.
 */
static TGeom *
StarPolygon(Rng *rng, int n, double cx, double cy, double r)
{
	TGeom	   *g = TgNew(PB_POLYGONTYPE, 0, 0);
	double	   *c = malloc(sizeof(double) * 2 * (n + 1));
	double		phase = RngDouble(rng) * 6.283185307179586;

	for (int i = 0; i < n; i++)
	{
		double		t = phase + 6.283185307179586 * (i + 0.8 * RngDouble(rng)) / n,
					rad = r * (1.0 / 3 + 2.0 / 3 * RngDouble(rng));

		c[2 * i] = cx + rad * cos(t);
		c[2 * i + 1] = cy + rad * sin(t);
	}
	c[2 * n] = c[0];
	c[2 * n + 1] = c[1];
	TgAddRing(g, c, n + 1);
	free(c);
	return g;
}

/* Random star polygons (fractional, offset up to 1e12) with a hole: area matches the long double shoelace. */
void
test_area_random_polygons(void)
{
	Rng			rng = {77};
	PbBatch		b;
	double		worst = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int iter = 0; iter < 500; iter++)
	{
		double		off = iter % 3 == 0 ? 0 : iter % 3 == 1 ? 1e6 : 1e12;
		double		cx = off + RngDouble(&rng) * 100,
					cy = off - RngDouble(&rng) * 100;
		TGeom	   *g = StarPolygon(&rng, (int) RngRange(&rng, 16, 40), cx, cy, 50);
		TGeom	   *hole = StarPolygon(&rng, (int) RngRange(&rng, 3, 10), cx, cy, 10);
		uint32_t	s = 0;
		PbError		err;
		double		truth,
					rel;

		TgAddRing(g, hole->rings[0].c, hole->rings[0].npts);
		truth = (double) TruthArea(g);
		pb_test_context("iter %d", iter);
		CHECK_INT(DecodeTg(&b, g, iter & 1, &s, &err), PB_OK);
		CHECK_INT(b.shapes[s].kind, PB_SHAPE_DOUBLE);
		rel = fabs(b.shapes[s].area - truth) / truth;
		worst = fmax(worst, rel);
		CHECK(rel <= 1e-12);
		TgFree(g);
		TgFree(hole);
	}
	pb_test_note("worst relative error %.3g", worst);
	CHECK(worst <= 1e-12);
	PbBatchFree(&b);
}
