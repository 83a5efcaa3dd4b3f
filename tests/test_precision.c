/*
 * test_precision.c: the general engine on ill-conditioned pairs (thin
 * slivers at 1e9 .. 1e17, rotated slivers, extreme coordinates) against
 * closed forms and a 113-bit shoelace, the cap that keeps a Jaccard index
 * at most 1, and the coordinate range the decoders accept.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* A float type with at least 113 bits of mantissa: products of doubles are exact. */
#ifdef __SIZEOF_FLOAT128__
typedef __float128 Wide;
#else
typedef long double Wide;
#endif

/* |signed area| of the ring xy by the shoelace, each cross product exact. */
static double
WideShoelace(const double *xy, int n)
{
	Wide		s = 0;

	for (int i = 0; i < n; i++)
	{
		int			j = (i + 1) % n;

		s += (Wide) xy[2 * i] * xy[2 * j + 1] - (Wide) xy[2 * j] * xy[2 * i + 1];
	}
	return (double) (s < 0 ? -s : s) / 2;
}

/* Decode the polygons a and b (n points each) and return the general engine's |a ∩ b|. */
static double
PairArea(PbBatch *b, PbScratch *sc, const double *pa, int na, const double *pb,
		 int nb, PbMethod m)
{
	TGeom	   *ga = TgPolygonOf(pa, na),
			   *gb = TgPolygonOf(pb, nb);
	uint32_t	p = 0,
				q = 0;
	PbError		err;
	double		area = NAN;

	PbBatchReset(b);
	if (DecodeTg(b, ga, 0, &p, &err) != PB_OK || DecodeTg(b, gb, 1, &q, &err) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "decode failed: %s", err.message);
	else
		area = PbIntersectionArea(sc, b, p, q, m);
	TgFree(ga);
	TgFree(gb);
	return area;
}

/*
 * The thin triangle (0 0, 1 0, X 1.5) at X = 1e9 .. 1e17: its
 * self-intersection is 0.75 (it was 0.75000006 at 1e9, 7.5e-18 at 1e17),
 * and its part left of x = X/2 has the closed form
 * 0.75/X + 1.5 (3X²/8 - X + 1/2) / (X (X - 1)).
 */
void
test_precision_thin_triangles(void)
{
	static const double xs[] = {1e9, 1e12, 1e15, 1e16, 1e17, 1e18, 1e30};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
	{
		double		X = xs[i],
					tri[] = {0, 0, 1, 0, X, 1.5},
					flip[] = {0, 0, X, 1.5, 1, 0},
					left[] = {0, -1, X / 2, -1, X / 2, 2, 0, 2};
		Wide		wx = X,
					half = 0.75 / wx + 1.5 * (3 * wx * wx / 8 - wx + 0.5) / (wx * (wx - 1));

		pb_test_context("X = %g", X);
		for (int m = PB_METHOD_AUTO; m <= PB_METHOD_GENERAL; m++)
		{
			CHECK_NEAR(PairArea(&b, &sc, tri, 3, tri, 3, (PbMethod) m), 0.75, 1e-14);
			CHECK_NEAR(PairArea(&b, &sc, tri, 3, flip, 3, (PbMethod) m), 0.75, 1e-14);
			CHECK_NEAR(PairArea(&b, &sc, tri, 3, left, 4, (PbMethod) m), (double) half, 1e-14);
			CHECK_NEAR(PairArea(&b, &sc, left, 4, tri, 3, (PbMethod) m), (double) half, 1e-14);
		}
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/*
 * Random slivers (width 1e-6 .. 1 over lengths up to 1e12, any angle,
 * offsets up to 1e9): their self-intersection and their intersection
 * with a box around them equal the 113-bit shoelace of their doubles
 * within 1e-10 relative.
 */
void
test_precision_random_slivers(void)
{
	Rng			rng = {20};
	PbBatch		b;
	PbScratch	sc;
	double		worst = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 3000; iter++)
	{
		double		len = pow(10, 3 + 9 * RngDouble(&rng)),
					wid = pow(10, -6 + 6 * RngDouble(&rng)),
					ang = RngDouble(&rng) * 6.283185307179586,
					ox = (RngDouble(&rng) - 0.5) * (iter % 3 ? 2e9 : 0),
					oy = (RngDouble(&rng) - 0.5) * (iter % 3 ? 2e9 : 0),
					c = cos(ang),
					s = sin(ang),
					t = RngDouble(&rng),
					p[6],
					box[8],
					truth,
					got;
		int			n = 3;

		/* a triangle with base wid and apex len away, or a thin quadrilateral */
		p[0] = ox, p[1] = oy;
		p[2] = ox + wid * -s, p[3] = oy + wid * c;
		p[4] = ox + len * c + t * wid * -s, p[5] = oy + len * s + t * wid * c;
		truth = WideShoelace(p, n);
		if (!(truth > 0))
			continue;
		box[0] = fmin(fmin(p[0], p[2]), p[4]) - 1, box[1] = fmin(fmin(p[1], p[3]), p[5]) - 1;
		box[4] = fmax(fmax(p[0], p[2]), p[4]) + 1, box[5] = fmax(fmax(p[1], p[3]), p[5]) + 1;
		box[2] = box[4], box[3] = box[1];
		box[6] = box[0], box[7] = box[5];
		pb_test_context("iter %d len %g wid %g angle %g", iter, len, wid, ang);
		got = PairArea(&b, &sc, p, n, p, n, PB_METHOD_GENERAL);
		CHECK_NEAR(got, truth, 1e-10 * truth);
		worst = fmax(worst, fabs(got - truth) / truth);
		got = PairArea(&b, &sc, p, n, box, 4, PB_METHOD_GENERAL);
		CHECK_NEAR(got, truth, 1e-10 * truth);
		worst = fmax(worst, fabs(got - truth) / truth);
	}
	pb_test_note("worst relative error %.3g", worst);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/*
 * Two bands crossing at a shallow angle: band 1 is [-L, L] x [0, h], band 2
 * lies between y = d x and y = d x + h over [-L, L] (d = D / L).  They
 * overlap in a parallelogram of area h² / d (h / d <= L).  With D large
 * the overlap is thin beside the y's, so the crossings and lengths need
 * the precise fallback.
 */
void
test_precision_shallow_crossing(void)
{
	static const double scales[] = {1e6, 1e9, 1e12};
	static const double rises[] = {1, 1e3, 1e6, 1e9};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
		for (size_t j = 0; j < sizeof(rises) / sizeof(rises[0]); j++)
		{
			double		L = scales[i],
						D = rises[j],
						h = 1.0 / 1024,
						s1[] = {-L, 0, L, 0, L, h, -L, h},
						s2[] = {-L, -D, L, D, L, D + h, -L, -D + h};
			Wide		truth = (Wide) h * h * L / D;

			pb_test_context("L = %g D = %g", L, D);
			CHECK_NEAR(PairArea(&b, &sc, s1, 4, s2, 4, PB_METHOD_GENERAL), (double) truth,
					   1e-10 * (double) truth);
			CHECK_NEAR(PairArea(&b, &sc, s2, 4, s1, 4, PB_METHOD_GENERAL), (double) truth,
					   1e-10 * (double) truth);
		}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/*
 * A Jaccard index never tops 1: the intersection a ratio uses is capped
 * by the smaller ST_Area (and by 0), so pb_jaccard(g, g) and the
 * aggregates give exactly 1 for any g, even when the shoelace and the
 * engine round apart.
 */
void
test_precision_jaccard_capped(void)
{
	PbCompareAcc acc;
	PbCompareResult res;

	CHECK_DBL_EQ(PbPairIntersection(0.75, 0.75, 0.75000006), 0.75);
	CHECK_DBL_EQ(PbPairIntersection(2, 3, 2.5), 2);
	CHECK_DBL_EQ(PbPairIntersection(2, 3, 1.5), 1.5);
	CHECK_DBL_EQ(PbPairIntersection(-1, 3, 1.5), 0);
	PbCompareInit(&acc);
	PbCompareAdd(&acc, 0.75, 0.75, 0.75000006);
	PbCompareAdd(&acc, 0.75, 0.75, 0.75);
	/* a hole outside its shell: ST_Area 100 - 4, even-odd area 100 + 4 */
	PbCompareAdd(&acc, 96, 96, 104);
	PbCompareResultOf(&acc, &res);
	CHECK_INT(res.intersecting, 3);
	CHECK_DBL_EQ(res.jaccard_mean, 1.0);
	CHECK_DBL_EQ(res.jaccard_total, 1.0);
	CHECK_DBL_EQ(res.dice_mean, 1.0);
	CHECK_DBL_EQ(res.intersection_area, 97.5);
}

/* Decode wkt as EWKB; return its status, the message in err. */
static PbStatus
DecodeText(PbBatch *b, const char *wkt, uint32_t *s, PbError *err)
{
	TGeom	   *g = TgParse(wkt);
	PbStatus	st = DecodeTg(b, g, 0, s, err);

	TgFree(g);
	return st;
}

/*
 * Polygon coordinates up to +-1e150 are accepted, and every area from
 * them is finite and right (no Orient or shoelace overflows to Inf or
 * NaN), even for a wide flat box against a tall thin one; beyond, an
 * error says why.  Tiny coordinates give tiny areas, never NaN.
 */
void
test_precision_extreme_coordinates(void)
{
	static const char *const beyond[] = {
		"POLYGON((0 0,1e151 0,1e151 1,0 0))",
		"POLYGON((0 0,1 0,1 -1.7976931348623157e308,0 0))",
		"GEOMETRYCOLLECTION(POINT(1e300 1e300),POLYGON((0 0,1 0,1 1,0 0),(0 0,1e200 0,0 1,0 0)))",
	};
	PbBatch		b;
	PbScratch	sc;
	PbError		err;
	uint32_t	p = 0,
				q = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(beyond) / sizeof(beyond[0]); i++)
	{
		pb_test_context("%s", beyond[i]);
		CHECK_INT(DecodeText(&b, beyond[i], &p, &err), PB_ERR_NONFINITE);
		CHECK_STR_HAS(err.message, "polygon coordinate beyond +-1e150");
	}
	pb_test_context("at the limit");
	/* a point or a line far away contributes nothing and is no error */
	CHECK_INT(DecodeText(&b, "GEOMETRYCOLLECTION(POINT(1e300 -1e300),LINESTRING(0 0,1e308 1),"
						 "POLYGON((-1e150 -1e150,1e150 -1e150,1e150 1e150,-1e150 1e150,-1e150 -1e150)))",
						 &p, &err), PB_OK);
	CHECK_NEAR(b.shapes[p].area, 4e300, 4e285);
	CHECK_NEAR(PbIntersectionArea(&sc, &b, p, p, PB_METHOD_GENERAL), 4e300, 4e285);
	/* wide flat against tall thin: the pair's box is 4e300 x 4e300 */
	CHECK_INT(DecodeText(&b, "POLYGON((-1e150 0,1e150 0,1e150 1,-1e150 1,-1e150 0))", &p, &err), PB_OK);
	CHECK_INT(DecodeText(&b, "POLYGON((0 -1e150,2 -1e150,2 1e150,0 1e150,0 -1e150))", &q, &err), PB_OK);
	CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, p, q, PB_METHOD_GENERAL), 2.0);
	/* a diagonal band against it too (orientations near 1e300) */
	CHECK_INT(DecodeText(&b, "POLYGON((-5e149 -5e149,5e149 5e149,5e149 1e150,-5e149 0,-5e149 -5e149))",
						 &p, &err), PB_OK);
	CHECK_NEAR(PbIntersectionArea(&sc, &b, p, q, PB_METHOD_GENERAL), 1e150, 1e135);
	/* tiny coordinates: a 1e-300 square has area 1e-600, which is 0 */
	CHECK_INT(DecodeText(&b, "POLYGON((0 0,1e-300 0,1e-300 1e-300,0 1e-300,0 0))", &p, &err), PB_OK);
	CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, p, p, PB_METHOD_GENERAL), 0.0);
	CHECK_INT(DecodeText(&b, "POLYGON((0 0,1e-150 0,1e-150 1e-150,0 1e-150,0 0))", &p, &err), PB_OK);
	CHECK_NEAR(PbIntersectionArea(&sc, &b, p, p, PB_METHOD_GENERAL), 1e-300, 1e-310);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}
