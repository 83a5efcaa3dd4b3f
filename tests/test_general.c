/*
 * test_general.c: the general engine (diagonal edges, fractional and huge
 * coordinates) against Sutherland-Hodgman clipping plus the shoelace,
 * both computed here in long double, and against hand-computed areas.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define TWO_PI 6.283185307179586

/* A polygon as a plain point list (no closing point). */
typedef struct Poly
{
	int			n;
	long double x[512],
				y[512];
} Poly;

/* Signed shoelace area. */
static long double
PolyArea(const Poly *p)
{
	long double s = 0;

	for (int i = 0; i < p->n; i++)
	{
		int			j = (i + 1) % p->n;

		s += p->x[i] * p->y[j] - p->x[j] * p->y[i];
	}
	return s / 2;
}

/* Clip subject s by the convex counter-clockwise polygon c (Sutherland-Hodgman). */
static void
ClipConvex(const Poly *s, const Poly *c, Poly *out)
{
	Poly		cur = *s;

	for (int e = 0; e < c->n && cur.n > 0; e++)
	{
		long double ax = c->x[e],
					ay = c->y[e],
					bx = c->x[(e + 1) % c->n],
					by = c->y[(e + 1) % c->n];
		Poly		next;

		next.n = 0;
		for (int i = 0; i < cur.n; i++)
		{
			int			j = (i + 1) % cur.n;
			long double di = (bx - ax) * (cur.y[i] - ay) - (by - ay) * (cur.x[i] - ax),
						dj = (bx - ax) * (cur.y[j] - ay) - (by - ay) * (cur.x[j] - ax);

			if (di >= 0)
			{
				next.x[next.n] = cur.x[i];
				next.y[next.n++] = cur.y[i];
			}
			if ((di >= 0) != (dj >= 0))
			{
				long double t = di / (di - dj);

				next.x[next.n] = cur.x[i] + t * (cur.x[j] - cur.x[i]);
				next.y[next.n++] = cur.y[i] + t * (cur.y[j] - cur.y[i]);
			}
		}
		cur = next;
	}
	*out = cur;
}

/* Random convex polygon (counter-clockwise): points of a rotated ellipse around (cx, cy). */
static int
RandomConvex(Rng *r, double *xy, double cx, double cy, double scale)
{
	int			n = (int) RngRange(r, 3, 24);
	double		a = scale * (0.2 + RngDouble(r)),
				b = scale * (0.2 + RngDouble(r)),
				rot = RngDouble(r) * TWO_PI,
				t[24];

	for (int i = 0; i < n; i++)
		t[i] = RngDouble(r) * TWO_PI;
	/* sort the angles */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && t[j - 1] > t[j]; j--)
		{
			double		tmp = t[j];

			t[j] = t[j - 1];
			t[j - 1] = tmp;
		}
	for (int i = 0; i < n; i++)
	{
		double		ex = a * cos(t[i]),
					ey = b * sin(t[i]);

		xy[2 * i] = cx + ex * cos(rot) - ey * sin(rot);
		xy[2 * i + 1] = cy + ex * sin(rot) + ey * cos(rot);
	}
	return n;
}

/*
 * Random star-shaped (simple, usually non-convex) polygon, counter-clockwise;
 * 16 or more vertices keep its edges farther than scale/5 from the centre.
 */
static int
RandomStar(Rng *r, double *xy, double cx, double cy, double scale)
{
	int			n = (int) RngRange(r, 16, 60);
	double		phase = RngDouble(r) * TWO_PI;

	for (int i = 0; i < n; i++)
	{
		double		t = phase + TWO_PI * (i + 0.9 * RngDouble(r)) / n,
					rad = scale * (0.3 + 0.7 * RngDouble(r));

		xy[2 * i] = cx + rad * cos(t);
		xy[2 * i + 1] = cy + rad * sin(t);
	}
	return n;
}

/* Poly of doubles translated by (-ox, -oy) (exact for nearby values). */
static void
ToPoly(const double *xy, int n, double ox, double oy, Poly *p)
{
	p->n = n;
	for (int i = 0; i < n; i++)
	{
		p->x[i] = (long double) xy[2 * i] - ox;
		p->y[i] = (long double) xy[2 * i + 1] - oy;
	}
}

/* Whether p is strictly convex and counter-clockwise (after rounding). */
static int
StrictlyConvex(const Poly *p)
{
	for (int i = 0; i < p->n; i++)
	{
		int			j = (i + 1) % p->n,
					k = (i + 2) % p->n;

		if ((p->x[j] - p->x[i]) * (p->y[k] - p->y[j]) -
			(p->y[j] - p->y[i]) * (p->x[k] - p->x[j]) <= 0)
			return 0;
	}
	return 1;
}

/* Run random pairs (subject star or convex, clip convex) and check the general engine. */
static void
RandomPairs(int iters, int star, uint64_t seed)
{
	static const double offsets[] = {0, 1000.5, -3e6, 1e12, -7.25e11};
	Rng			rng = {seed};
	PbBatch		b;
	PbScratch	sc;
	double		worst = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < iters; iter++)
	{
		double		off = offsets[iter % 5],
					sa[2 * 60],
					sb[2 * 24];
		int			na = star ? RandomStar(&rng, sa, off + 10 * RngDouble(&rng), off, 10)
			: RandomConvex(&rng, sa, off + 10 * RngDouble(&rng), off, 10);
		int			nb = RandomConvex(&rng, sb, off + 10 * RngDouble(&rng), off + 5 * RngDouble(&rng), 10);
		Poly		pa,
					pb,
					clip;
		TGeom	   *ga = TgPolygonOf(sa, na),
				   *gb = TgPolygonOf(sb, nb);
		uint32_t	p = 0,
					q = 0;
		PbError		err;
		long double truth;
		double		got,
					tol,
					small;

		ToPoly(sa, na, off, off, &pa);
		ToPoly(sb, nb, off, off, &pb);
		/* rounding near 1e12 can dent a convex clip polygon: draw again */
		if (!StrictlyConvex(&pb) || (!star && !StrictlyConvex(&pa)))
		{
			TgFree(ga);
			TgFree(gb);
			iter--;
			continue;
		}
		ClipConvex(&pa, &pb, &clip);
		truth = clip.n ? fabsl(PolyArea(&clip)) : 0;
		small = (double) fminl(fabsl(PolyArea(&pa)), fabsl(PolyArea(&pb)));
		DecodeTg(&b, ga, 0, &p, &err);
		DecodeTg(&b, gb, 1, &q, &err);
		pb_test_context("iter %d offset %g", iter, off);
		CHECK_INT(b.shapes[p].kind, PB_SHAPE_DOUBLE);
		/* 1e-9 relative; slivers are judged against the smaller polygon */
		tol = 1e-9 * fmax((double) truth, 1e-3 * small);
		for (int m = PB_METHOD_AUTO; m <= PB_METHOD_GENERAL; m++)
		{
			got = PbIntersectionArea(&sc, &b, p, q, (PbMethod) m);
			CHECK_NEAR(got, (double) truth, tol);
			worst = fmax(worst, fabs(got - (double) truth) / fmax((double) truth, 1e-3 * small));
		}
		CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, q, p, PB_METHOD_GENERAL),
					 PbIntersectionArea(&sc, &b, q, p, PB_METHOD_AUTO));
		TgFree(ga);
		TgFree(gb);
		PbBatchReset(&b);
	}
	pb_test_note("worst relative error %.3g", worst);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Random convex pairs (offsets up to 1e12): general engine within 1e-9 of Sutherland-Hodgman + shoelace. */
void
test_general_convex_clip(void)
{
	RandomPairs(2000, 0, 11);
}

/* Random star-shaped (non-convex) polygons clipped by convex ones: within 1e-9 of the clipped shoelace. */
void
test_general_star_vs_convex(void)
{
	RandomPairs(1500, 1, 12);
}

/* Decode a and b, check every method in both orders is within tol of truth. */
static void
CheckPairNear(PbBatch *b, PbScratch *sc, const TGeom *ga, const TGeom *gb,
			  double truth, double tol)
{
	uint32_t	p = 0,
				q = 0;
	PbError		err;

	if (DecodeTg(b, ga, 0, &p, &err) != PB_OK || DecodeTg(b, gb, 1, &q, &err) != PB_OK)
	{
		pb_check_fail(__FILE__, __LINE__, "decode failed: %s", err.message);
		return;
	}
	for (int m = PB_METHOD_AUTO; m <= PB_METHOD_GENERAL; m++)
	{
		CHECK_NEAR(PbIntersectionArea(sc, b, p, q, (PbMethod) m), truth, tol);
		CHECK_NEAR(PbIntersectionArea(sc, b, q, p, (PbMethod) m), truth, tol);
	}
}

/* Strictly convex hull (counter-clockwise, no collinear points) of n points. */
static int
Hull(double *pts, int n, double *out)
{
	int			k = 0;

	/* sort by x, then y */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && (pts[2 * j - 2] > pts[2 * j] ||
								  (pts[2 * j - 2] == pts[2 * j] && pts[2 * j - 1] > pts[2 * j + 1])); j--)
		{
			double		tx = pts[2 * j],
						ty = pts[2 * j + 1];

			pts[2 * j] = pts[2 * j - 2], pts[2 * j + 1] = pts[2 * j - 1];
			pts[2 * j - 2] = tx, pts[2 * j - 1] = ty;
		}
	/* Andrew's monotone chain: lower hull, then upper hull */
	for (int pass = 0; pass < 2; pass++)
	{
		int			start = k;

		for (int t = 0; t < n; t++)
		{
			int			i = pass ? n - 1 - t : t;

			while (k >= start + 2 &&
				   (out[2 * k - 2] - out[2 * k - 4]) * (pts[2 * i + 1] - out[2 * k - 3]) -
				   (out[2 * k - 1] - out[2 * k - 3]) * (pts[2 * i] - out[2 * k - 4]) <= 0)
				k--;
			out[2 * k] = pts[2 * i];
			out[2 * k + 1] = pts[2 * i + 1];
			k++;
		}
		k--;					/* the last point starts the other chain */
	}
	return k;
}

/* Convex polygons with vertices on a small grid (shared vertices, collinear and overlapping edges): within 1e-12 of clipping. */
void
test_general_grid_degenerate(void)
{
	static const double scales[] = {1, 0.001, 1024};
	static const double offsets[] = {0, 1e9, -12.5};
	Rng			rng = {14};
	PbBatch		b;
	PbScratch	sc;
	int			done = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	while (done < 3000)
	{
		double		pa[2 * 8],
					pb[2 * 8],
					ha[2 * 10],
					hb[2 * 10],
					sc_ = scales[done % 3],
					off = sc_ < 1 ? 0 : offsets[(done / 3) % 3];	/* keep coordinates exact */
		int			na = (int) RngRange(&rng, 3, 8),
					nb = (int) RngRange(&rng, 3, 8),
					ka,
					kb;
		Poly		qa,
					qb,
					clip;
		TGeom	   *ga,
				   *gb;
		long double truth;

		for (int i = 0; i < 2 * na; i++)
			pa[i] = (double) RngRange(&rng, 0, 6);
		for (int i = 0; i < 2 * nb; i++)
			pb[i] = (double) RngRange(&rng, 0, 6);
		ka = Hull(pa, na, ha);
		kb = Hull(pb, nb, hb);
		if (ka < 3 || kb < 3)
			continue;
		ToPoly(ha, ka, 0, 0, &qa);
		ToPoly(hb, kb, 0, 0, &qb);
		ClipConvex(&qa, &qb, &clip);
		truth = clip.n ? fabsl(PolyArea(&clip)) * sc_ * sc_ : 0;
		for (int i = 0; i < 2 * ka; i++)
			ha[i] = ha[i] * sc_ + off;
		for (int i = 0; i < 2 * kb; i++)
			hb[i] = hb[i] * sc_ + off;
		ga = TgPolygonOf(ha, ka);
		gb = TgPolygonOf(hb, kb);
		PbBatchReset(&b);
		pb_test_context("pair %d scale %g offset %g", done, sc_, off);
		CheckPairNear(&b, &sc, ga, gb, (double) truth, 1e-12 * 36 * sc_ * sc_);
		TgFree(ga);
		TgFree(gb);
		done++;
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* For simple polygons with a hole: area(p ∩ p) == area(p) and area(p ∩ huge box) == area(p). */
void
test_general_self_and_huge_box(void)
{
	static const double offsets[] = {0, 12345.678, 1e12, -1e9};
	Rng			rng = {13};
	PbBatch		b;
	PbScratch	sc;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int iter = 0; iter < 800; iter++)
	{
		double		off = offsets[iter % 4],
					xy[2 * 60],
					hole[2 * 24],
					boxc[10];
		int			n = RandomStar(&rng, xy, off, off, 100),
					nh = RandomConvex(&rng, hole, off, off, 10);
		TGeom	   *g = TgPolygonOf(xy, n),
				   *gh = TgPolygonOf(hole, nh),
				   *gbox;
		double		big = fabs(off) * 2 + 1e6;
		uint32_t	p = 0,
					p2 = 0,
					q = 0;
		PbError		err;
		double		area;

		/* the hole (within 12 of the centre) lies within the star (edges beyond 20) */
		TgAddRing(g, gh->rings[0].c, gh->rings[0].npts);
		boxc[0] = -big, boxc[1] = -big, boxc[2] = big, boxc[3] = -big;
		boxc[4] = big, boxc[5] = big, boxc[6] = -big, boxc[7] = big;
		gbox = TgPolygonOf(boxc, 4);
		DecodeTg(&b, g, 0, &p, &err);
		DecodeTg(&b, g, 1, &p2, &err);
		DecodeTg(&b, gbox, 0, &q, &err);
		area = (double) TruthArea(g);
		pb_test_context("iter %d offset %g", iter, off);
		CHECK_NEAR(PbIntersectionArea(&sc, &b, p, p2, PB_METHOD_GENERAL), area, 1e-12 * area);
		CHECK_NEAR(PbIntersectionArea(&sc, &b, p, q, PB_METHOD_AUTO), area, 1e-12 * area);
		CHECK_NEAR(PbIntersectionArea(&sc, &b, q, p, PB_METHOD_GENERAL), area, 1e-12 * area);
		CHECK_NEAR(b.shapes[p].area, area, 1e-12 * area);
		TgFree(g);
		TgFree(gh);
		TgFree(gbox);
		PbBatchReset(&b);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Rotated and scaled known shapes: square ∩ 45°-rotated square is an octagon of 8(√2-1), and others. */
void
test_general_known_shapes(void)
{
	static const struct
	{
		const char *a;
		const char *b;
		double		area;
		double		tol;
	}			v[] = {
		{"POLYGON((-1 -1,1 -1,1 1,-1 1,-1 -1))",
		"POLYGON((1.4142135623730951 0,0 1.4142135623730951,-1.4142135623730951 0,0 -1.4142135623730951,1.4142135623730951 0))",
		8 * (1.4142135623730951 - 1), 1e-14},
		{"POLYGON((0 0,2 0,0 2,0 0))", "POLYGON((0 0,2 2,2 0,0 0))", 1, 0},
		{"POLYGON((0 0,1 0,1 1,0 1,0 0))", "POLYGON((0.5 -1,2 0.5,0.5 2,-1 0.5,0.5 -1))", 1, 1e-15},
		{"POLYGON((0 0,1e-6 0,1e-6 1e-6,0 1e-6,0 0))", "POLYGON((0 0,1e-6 0,0 1e-6,0 0))", 0.5e-12, 1e-27},
		{"POLYGON((1e12 1e12,1000000000001 1e12,1000000000001 1000000000001,1e12 1000000000001,1e12 1e12))",
		"POLYGON((1000000000000.5 1e12,1000000000002 1e12,1000000000000.5 1000000000001,1000000000000.5 1e12))", 0.5 - 0.5 * (1.0 / 3) * 0.5, 1e-12},
		{"POLYGON((0 0,3 0,3 3,0 3,0 0))", "POLYGON((1 -1,4 2,1 5,-2 2,1 -1))", 8.5, 1e-14},
		/* sharing part of the hypotenuse x + y = 4: touching only */
		{"POLYGON((0 0,4 0,0 4,0 0))", "POLYGON((1 3,3 1,4 4,1 3))", 0, 1e-14},
		/* the hypotenuse through two corners of a square: half of it */
		{"POLYGON((0 0,4 0,0 4,0 0))", "POLYGON((1 1,3 1,3 3,1 3,1 1))", 2, 1e-14},
		/* three edges through one point */
		{"POLYGON((0 0,2 2,0 2,0 0))", "POLYGON((0 2,2 0,2 2,0 2))", 1, 1e-14},
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
		for (int m = PB_METHOD_AUTO; m <= PB_METHOD_GENERAL; m++)
		{
			CHECK_NEAR(PbIntersectionArea(&sc, &b, p, q, (PbMethod) m), v[i].area, v[i].tol);
			CHECK_NEAR(PbIntersectionArea(&sc, &b, q, p, (PbMethod) m), v[i].area, v[i].tol);
		}
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Invalid diagonal inputs follow even-odd: bow-tie, figure-8 of triangles, overlapping parts, hole crossing its shell. */
void
test_general_invalid_diagonal(void)
{
	static const struct
	{
		const char *a;
		const char *b;
		double		area;
	}			v[] = {
		{"POLYGON((0 0,2 2,2 0,0 2,0 0))", "POLYGON((0 0,2 2,2 0,0 2,0 0))", 2},
		{"POLYGON((0 0,2 2,2 0,0 2,0 0))", "POLYGON((0 0,1 0,1 2,0 2,0 0))", 1},
		{"POLYGON((0 0,2 2,2 0,0 2,0 0))", "POLYGON((0 0,2 0,2 1,0 1,0 0))", 1},
		{"POLYGON((0 0,2 2,2 0,0 2,0 0))", "POLYGON((0.5 0,1.5 0,1.5 2,0.5 2,0.5 0))", 0.5},
		/* two triangles touching at (1, 1), one ring */
		{"POLYGON((0 0,2 0,1 1,2 2,0 2,1 1,0 0))", "POLYGON((-1 -1,3 -1,3 3,-1 3,-1 -1))", 2},
		{"POLYGON((0 0,2 0,1 1,2 2,0 2,1 1,0 0))", "POLYGON((0 0,2 0,2 1,0 1,0 0))", 1},
		/* overlapping parts: the square inside the triangle is cut out */
		{"MULTIPOLYGON(((0 0,4 0,0 4,0 0)),((0 0,2 0,2 2,0 2,0 0)))", "POLYGON((0 0,4 0,4 4,0 4,0 0))", 4},
		{"MULTIPOLYGON(((0 0,4 0,0 4,0 0)),((0 0,2 0,2 2,0 2,0 0)))", "POLYGON((0 0,2 0,2 2,0 2,0 0))", 0},
		{"MULTIPOLYGON(((0 0,4 0,0 4,0 0)),((0 0,2 0,2 2,0 2,0 0)))", "MULTIPOLYGON(((0 0,4 0,0 4,0 0)),((0 0,2 0,2 2,0 2,0 0)))", 4},
		/* a hole poking out of its shell: symmetric difference */
		{"POLYGON((0 0,4 0,4 4,0 4,0 0),(3 3,5 3,3 5,3 3))", "POLYGON((0 0,6 0,6 6,0 6,0 0))", 16 + 2 - 2 * 1},
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
		for (int m = PB_METHOD_AUTO; m <= PB_METHOD_GENERAL; m++)
		{
			CHECK_NEAR(PbIntersectionArea(&sc, &b, p, q, (PbMethod) m), v[i].area, 1e-14);
			CHECK_NEAR(PbIntersectionArea(&sc, &b, q, p, (PbMethod) m), v[i].area, 1e-14);
		}
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}
