/*
 * testutil.c: truths, comparisons and shape generators for the tests.
 * Nothing here calls the code under test except the decode helpers.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/geom/shape_build.h"
#include "testutil.h"

/* Append an empty shape, so a test can go on after a failed decode. */
uint32_t
DummyShape(PbBatch *b)
{
	b->shapes = PbGrowArray(b->mem, b->shapes, &b->cap_shapes, b->nshapes + 1,
							sizeof(PbShape));
	memset(&b->shapes[b->nshapes], 0, sizeof(PbShape));
	b->shapes[b->nshapes].ring_first = b->nrings;
	return b->nshapes++;
}

/* Decode WKT (as EWKB) into b, checking that it succeeds. */
uint32_t
DecodeWkt(PbBatch *b, const char *wkt, int xdr)
{
	TBuf		buf = {0};
	PbError		err;
	uint32_t	shape = UINT32_MAX;
	PbStatus	st;

	WktToWkb(wkt, xdr, &buf);
	st = PbDecodeEwkb(b, buf.p, buf.n, &shape, &err);
	if (st != PB_OK)
	{
		pb_check_fail(__FILE__, __LINE__, "decoding %s failed: %d %s", wkt,
					  (int) st, err.message);
		shape = DummyShape(b);
	}
	TBufFree(&buf);
	return shape;
}

/* Decode a tree written as EWKB in the given byte order. */
PbStatus
DecodeTg(PbBatch *b, const TGeom *g, int xdr, uint32_t *shape, PbError *err)
{
	TBuf		buf = {0};
	TWkbOpt		opt = {xdr, 0, g->srid != 0, g->srid};
	PbStatus	st;

	TgWriteWkb(g, &opt, &buf);
	st = PbDecodeEwkb(b, buf.p, buf.n, shape, err);
	TBufFree(&buf);
	return st;
}

/* Decode a tree into b (DecodeTg); a failure is a failed check and an empty shape. */
uint32_t
DecodeTgChecked(PbBatch *b, const TGeom *g, int xdr)
{
	uint32_t	s = 0;
	PbError		err;

	if (DecodeTg(b, g, xdr, &s, &err) != PB_OK)
	{
		pb_check_fail(__FILE__, __LINE__, "decode failed: %s", err.message);
		s = DummyShape(b);
	}
	return s;
}

/* |shoelace area| of a ring, translated to its first point. */
static long double
RingArea(const TGeom *g, const TRing *r)
{
	int			d = TgDims(g);
	long double sum = 0;

	if (r->npts == 0)
		return 0;
	for (int i = 0; i < r->npts; i++)
	{
		int			j = (i + 1) % r->npts;
		long double xi = (long double) r->c[i * d] - r->c[0],
					yi = (long double) r->c[i * d + 1] - r->c[1],
					xj = (long double) r->c[j * d] - r->c[0],
					yj = (long double) r->c[j * d + 1] - r->c[1];

		sum += xi * yj - xj * yi;
	}
	return fabsl(sum) / 2;
}

/* ST_Area: per polygon |shell| - sum |holes|, summed over polygonal parts. */
long double
TruthArea(const TGeom *g)
{
	long double a = 0;

	if (g->type == PB_POLYGONTYPE || g->type == PB_TRIANGLETYPE)
	{
		for (int i = 0; i < g->nrings; i++)
			a += (i == 0 ? 1 : -1) * RingArea(g, &g->rings[i]);
		return a;
	}
	for (int i = 0; i < g->ngeoms; i++)
		a += TruthArea(g->geoms[i]);
	return a;
}

/* Crossing parity of a ray from (x, y) towards -x over one ring. */
static int
RingParity(const TGeom *g, const TRing *r, double x, double y)
{
	int			d = TgDims(g),
				in = 0;

	for (int i = 0; i < r->npts; i++)
	{
		int			j = (i + 1) % r->npts;
		double		ax = r->c[i * d],
					ay = r->c[i * d + 1],
					bx = r->c[j * d],
					by = r->c[j * d + 1];

		if ((ay > y) != (by > y))
		{
			long double cx = ax + (long double) (y - ay) * (bx - ax) / (by - ay);

			if (cx < x)
				in ^= 1;
		}
	}
	return in;
}

/* Even-odd rule over all polygonal rings of g. */
int
TruthInside(const TGeom *g, double x, double y)
{
	int			in = 0;

	if (g->type == PB_POLYGONTYPE || g->type == PB_TRIANGLETYPE)
		for (int i = 0; i < g->nrings; i++)
			in ^= RingParity(g, &g->rings[i], x, y);
	for (int i = 0; i < g->ngeoms; i++)
		in ^= TruthInside(g->geoms[i], x, y);
	return in;
}

/* Fold the polygonal points of g into box; return whether there were any. */
int
TruthBox(const TGeom *g, double box[4])
{
	int			any = 0,
				d = TgDims(g);

	if (g->type == PB_POLYGONTYPE || g->type == PB_TRIANGLETYPE)
		for (int r = 0; r < g->nrings; r++)
			for (int i = 0; i < g->rings[r].npts; i++)
			{
				double		x = g->rings[r].c[i * d],
							y = g->rings[r].c[i * d + 1];

				if (!any && box[0] > box[2])
				{
					box[0] = box[2] = x;
					box[1] = box[3] = y;
				}
				box[0] = fmin(box[0], x);
				box[1] = fmin(box[1], y);
				box[2] = fmax(box[2], x);
				box[3] = fmax(box[3], y);
				any = 1;
			}
	for (int i = 0; i < g->ngeoms; i++)
		any |= TruthBox(g->geoms[i], box);
	return any;
}

/* Brute force: pixels whose centres are inside both a and b. */
int64_t
TruthPixelsBoth(const TGeom *a, const TGeom *b, int64_t x0, int64_t y0,
				int64_t x1, int64_t y1)
{
	int64_t		n = 0;

	for (int64_t y = y0; y < y1; y++)
		for (int64_t x = x0; x < x1; x++)
			n += TruthInside(a, x + 0.5, y + 0.5) && TruthInside(b, x + 0.5, y + 0.5);
	return n;
}

/* TruthPixelsBoth over the intersection of the boxes of a and b (all it can hold). */
double
TruthPixelsOverlap(const TGeom *a, const TGeom *b)
{
	double		ba[4] = {1, 1, 0, 0},	/* empty: TruthBox widens them */
				bb[4] = {1, 1, 0, 0};

	TruthBox(a, ba);
	TruthBox(b, bb);
	return (double) TruthPixelsBoth(a, b, (int64_t) (ba[0] > bb[0] ? ba[0] : bb[0]),
									(int64_t) (ba[1] > bb[1] ? ba[1] : bb[1]),
									(int64_t) (ba[2] < bb[2] ? ba[2] : bb[2]),
									(int64_t) (ba[3] < bb[3] ? ba[3] : bb[3]));
}

/* Point i of ring r of shape s as doubles. */
void
ShapePointXY(const PbBatch *b, const PbShape *s, uint32_t r, uint32_t i,
			 double *x, double *y)
{
	size_t		k = (size_t) b->rings[r].start + i;

	if (s->kind == PB_SHAPE_INT)
	{
		*x = b->ipts[2 * k];
		*y = b->ipts[2 * k + 1];
	}
	else
	{
		*x = b->dpts[2 * k];
		*y = b->dpts[2 * k + 1];
	}
}

/* Compare two decoded shapes field by field and point by point. */
int
SameShape(const PbBatch *ba, uint32_t a, const PbBatch *bb, uint32_t b,
		  int compare_type_srid, char *why, size_t whylen)
{
	const PbShape *p = &ba->shapes[a],
			   *q = &bb->shapes[b];

	if (p->kind != q->kind || p->nrings != q->nrings)
	{
		snprintf(why, whylen, "kind %d/%d nrings %u/%u", p->kind, q->kind,
				 p->nrings, q->nrings);
		return 0;
	}
	if (compare_type_srid && (p->geomtype != q->geomtype || p->srid != q->srid))
	{
		snprintf(why, whylen, "geomtype %d/%d srid %d/%d", p->geomtype,
				 q->geomtype, p->srid, q->srid);
		return 0;
	}
	if (p->area != q->area || memcmp(&p->box, &q->box, sizeof(PbBox)) != 0)
	{
		snprintf(why, whylen, "area %.17g/%.17g or box differs", p->area, q->area);
		return 0;
	}
	for (uint32_t r = 0; r < p->nrings; r++)
	{
		uint32_t	ra = p->ring_first + r,
					rb = q->ring_first + r;

		if (ba->rings[ra].npoints != bb->rings[rb].npoints)
		{
			snprintf(why, whylen, "ring %u: %u/%u points", r,
					 ba->rings[ra].npoints, bb->rings[rb].npoints);
			return 0;
		}
		for (uint32_t i = 0; i < ba->rings[ra].npoints; i++)
		{
			double		x1, y1, x2, y2;

			ShapePointXY(ba, p, ra, i, &x1, &y1);
			ShapePointXY(bb, q, rb, i, &x2, &y2);
			if (x1 != x2 || y1 != y2)
			{
				snprintf(why, whylen, "ring %u point %u: (%g %g)/(%g %g)", r, i,
						 x1, y1, x2, y2);
				return 0;
			}
		}
	}
	return 1;
}

/* Walk the polygonal rings of g in order, matching them to shape rings. */
static int
MatchRings(const PbBatch *b, const PbShape *s, uint32_t *r, const TGeom *g,
		   char *why, size_t whylen)
{
	int			d = TgDims(g);

	if (g->type == PB_POLYGONTYPE || g->type == PB_TRIANGLETYPE)
		for (int k = 0; k < g->nrings; k++)
		{
			const TRing *tr = &g->rings[k];
			uint32_t	ri = s->ring_first + *r;

			if (tr->npts == 0)
				continue;
			if (*r >= s->nrings || b->rings[ri].npoints != (uint32_t) tr->npts)
			{
				snprintf(why, whylen, "ring %u missing or of another size", *r);
				return 0;
			}
			for (int i = 0; i < tr->npts; i++)
			{
				double		x, y;

				ShapePointXY(b, s, ri, (uint32_t) i, &x, &y);
				if (x != tr->c[i * d] || y != tr->c[i * d + 1])
				{
					snprintf(why, whylen, "ring %u point %d: (%.17g %.17g) != (%.17g %.17g)",
							 *r, i, x, y, tr->c[i * d], tr->c[i * d + 1]);
					return 0;
				}
			}
			(*r)++;
		}
	for (int i = 0; i < g->ngeoms; i++)
		if (!MatchRings(b, s, r, g->geoms[i], why, whylen))
			return 0;
	return 1;
}

/* Whether shape s holds exactly the non-empty polygon rings of g. */
int
ShapeMatchesTree(const PbBatch *b, uint32_t s, const TGeom *g, char *why,
				 size_t whylen)
{
	uint32_t	r = 0;

	if (!MatchRings(b, &b->shapes[s], &r, g, why, whylen))
		return 0;
	if (r != b->shapes[s].nrings)
	{
		snprintf(why, whylen, "shape has %u rings, tree %u", b->shapes[s].nrings, r);
		return 0;
	}
	return 1;
}

/* Copy a decoded shape's rings into a tree (for brute-force truths). */
TGeom *
TreeFromShape(const PbBatch *b, uint32_t s)
{
	const PbShape *sh = &b->shapes[s];
	TGeom	   *g = TgNew(PB_MULTIPOLYGONTYPE, 0, 0);

	for (uint32_t r = sh->ring_first; r < sh->ring_first + sh->nrings; r++)
	{
		TGeom	   *poly = TgNew(PB_POLYGONTYPE, 0, 0);
		double	   *c = malloc(sizeof(double) * 2 * (b->rings[r].npoints + 1));

		for (uint32_t i = 0; i < b->rings[r].npoints; i++)
			ShapePointXY(b, sh, r, i, &c[2 * i], &c[2 * i + 1]);
		TgAddRing(poly, c, (int) b->rings[r].npoints);
		TgAddChild(g, poly);
		free(c);
	}
	return g;
}

/* ---- masks ---- */

Mask
MaskNew(int w, int h)
{
	Mask		m = {w, h, calloc((size_t) w * h + 1, 1)};

	if (m.bit == NULL)
		abort();
	return m;
}

void
MaskFree(Mask *m)
{
	free(m->bit);
	m->bit = NULL;
}

/* Random noise of the given density. */
void
MaskNoise(Mask *m, Rng *r, double density)
{
	for (int k = 0; k < m->w * m->h; k++)
		m->bit[k] = RngDouble(r) < density;
}

/* XOR of nrect random rectangles. */
void
MaskRects(Mask *m, Rng *r, int nrect)
{
	memset(m->bit, 0, (size_t) m->w * m->h);
	for (int k = 0; k < nrect; k++)
	{
		int			x0 = (int) RngRange(r, 0, m->w - 1),
					y0 = (int) RngRange(r, 0, m->h - 1),
					x1 = (int) RngRange(r, x0 + 1, m->w),
					y1 = (int) RngRange(r, y0 + 1, m->h);

		for (int j = y0; j < y1; j++)
			for (int i = x0; i < x1; i++)
				m->bit[j * m->w + i] ^= 1;
	}
}

/* Whether cell (i, j) is set (outside the mask: no). */
static int
Cell(const Mask *m, int i, int j)
{
	return i >= 0 && j >= 0 && i < m->w && j < m->h && m->bit[j * m->w + i];
}

static const int dir_dx[4] = {1, 0, -1, 0};
static const int dir_dy[4] = {0, 1, 0, -1};

/* A traced ring in cell-index space. */
typedef struct IRing
{
	int			n;
	int		   *xy;				/* n vertices */
	long		area2;			/* twice the signed area */
	double		sx,
				sy;				/* centre of a set cell just left of an edge */
} IRing;

/* Even-odd test of (x, y) against one index-space ring. */
static int
IRingContains(const IRing *r, double x, double y)
{
	int			in = 0;

	for (int i = 0; i < r->n; i++)
	{
		int			j = (i + 1) % r->n;
		double		ax = r->xy[2 * i],
					ay = r->xy[2 * i + 1],
					bx = r->xy[2 * j],
					by = r->xy[2 * j + 1];

		if ((ay > y) != (by > y) && ax + (y - ay) * (bx - ax) / (by - ay) < x)
			in ^= 1;
	}
	return in;
}

/* Append ring r (mapped through xs/ys, closed, maybe reversed) to poly. */
static void
EmitRing(TGeom *poly, const IRing *r, const int64_t *xs, const int64_t *ys,
		 Rng *rng)
{
	double	   *c = malloc(sizeof(double) * 2 * (r->n + 1));
	int			rot = (int) RngRange(rng, 0, r->n - 1),
				rev = (int) RngRange(rng, 0, 1);

	for (int k = 0; k <= r->n; k++)
	{
		int			i = rev ? (rot - k % r->n + r->n) % r->n : (rot + k) % r->n;

		c[2 * k] = (double) xs[r->xy[2 * i]];
		c[2 * k + 1] = (double) ys[r->xy[2 * i + 1]];
	}
	TgAddRing(poly, c, r->n + 1);
	free(c);
}

/* Trace the boundary of the mask into rings; see testutil.h. */
TGeom *
MaskTrace(const Mask *m, const int64_t *xs, const int64_t *ys, Rng *rng,
		  int keep_collinear)
{
	int			W = m->w,
				H = m->h,
				nv = (W + 1) * (H + 1),
				ne = 0,
				nrings = 0;
	/* directed boundary edges, set cell on the left; up to 4 out of a vertex */
	int		   *efrom = malloc(sizeof(int) * 4 * (size_t) W * H + 4);
	int		   *edir = malloc(sizeof(int) * 4 * (size_t) W * H + 4);
	uint8_t    *used = calloc(4 * (size_t) W * H + 4, 1);
	int		   *out = malloc(sizeof(int) * 4 * (size_t) nv);
	IRing	   *rings = NULL;
	TGeom	   *mp = TgNew(PB_MULTIPOLYGONTYPE, 0, 0);
	TGeom	  **polys;

	for (int k = 0; k < 4 * nv; k++)
		out[k] = -1;
	for (int j = 0; j < H; j++)
		for (int i = 0; i < W; i++)
		{
			/* bottom, right, top, left sides; start vertex; direction */
			int			nb[4][2] = {{i, j - 1}, {i + 1, j}, {i, j + 1}, {i - 1, j}};
			int			st[4][2] = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}};

			if (!Cell(m, i, j))
				continue;
			for (int s = 0; s < 4; s++)
			{
				int			v = st[s][1] * (W + 1) + st[s][0];

				if (Cell(m, nb[s][0], nb[s][1]))
					continue;
				efrom[ne] = v;
				edir[ne] = s;	/* side s goes in direction s */
				out[4 * v + s] = ne++;
			}
		}
	for (int e0 = 0; e0 < ne; e0++)
	{
		IRing		r = {0, NULL, 0, 0, 0};
		int			cap = 16,
					e = e0,
					start = efrom[e0];
		int		   *vx = NULL;

		if (used[e0])
			continue;
		vx = malloc(sizeof(int) * 2 * cap);
		do
		{
			int			v = efrom[e],
						d = edir[e],
						x = v % (W + 1),
						y = v / (W + 1),
						nx = x + dir_dx[d],
						ny = y + dir_dy[d],
						nvtx = ny * (W + 1) + nx,
						next = -1;

			used[e] = 1;
			if (r.n == cap)
				vx = realloc(vx, sizeof(int) * 2 * (cap *= 2));
			vx[2 * r.n] = x;
			vx[2 * r.n + 1] = y;
			r.n++;
			if (nvtx == start)
				break;
			/* prefer a left turn, then straight on, then right */
			for (int t = 0; t < 3 && next < 0; t++)
			{
				int			nd = (d + (t == 0 ? 1 : t == 1 ? 0 : 3)) % 4;
				int			cand = out[4 * nvtx + nd];

				if (cand >= 0 && !used[cand])
					next = cand;
			}
			if (next < 0)
				abort();		/* cannot happen: boundaries are closed */
			e = next;
		} while (1);
		/* sample cell: left of the first unit edge */
		r.sx = vx[0] + 0.5 * dir_dx[edir[e0]] - 0.5 * dir_dy[edir[e0]];
		r.sy = vx[1] + 0.5 * dir_dy[edir[e0]] + 0.5 * dir_dx[edir[e0]];
		if (!keep_collinear)
		{
			int			k = 0;

			for (int i = 0; i < r.n; i++)
			{
				int			p = (i + r.n - 1) % r.n,
							n = (i + 1) % r.n;
				int			dx1 = vx[2 * i] - vx[2 * p],
							dy1 = vx[2 * i + 1] - vx[2 * p + 1],
							dx2 = vx[2 * n] - vx[2 * i],
							dy2 = vx[2 * n + 1] - vx[2 * i + 1];

				if (dx1 * dy2 - dy1 * dx2 != 0)
				{
					vx[2 * k] = vx[2 * i];
					vx[2 * k + 1] = vx[2 * i + 1];
					k++;
				}
			}
			r.n = k;
		}
		r.xy = vx;
		for (int i = 0; i < r.n; i++)
		{
			int			j = (i + 1) % r.n;

			r.area2 += (long) vx[2 * i] * vx[2 * j + 1] - (long) vx[2 * j] * vx[2 * i + 1];
		}
		rings = realloc(rings, sizeof(IRing) * (nrings + 1));
		rings[nrings++] = r;
	}
	/* outer rings (counter-clockwise) become polygons; holes join the smallest outer around them */
	polys = calloc((size_t) nrings + 1, sizeof(TGeom *));
	for (int k = 0; k < nrings; k++)
		if (rings[k].area2 > 0)
		{
			polys[k] = TgNew(PB_POLYGONTYPE, 0, 0);
			EmitRing(polys[k], &rings[k], xs, ys, rng);
		}
	for (int k = 0; k < nrings; k++)
	{
		int			best = -1;

		if (rings[k].area2 > 0)
			continue;
		for (int o = 0; o < nrings; o++)
			if (rings[o].area2 > 0 && IRingContains(&rings[o], rings[k].sx, rings[k].sy) &&
				(best < 0 || rings[o].area2 < rings[best].area2))
				best = o;
		if (best < 0)
			abort();
		EmitRing(polys[best], &rings[k], xs, ys, rng);
	}
	for (int k = 0; k < nrings; k++)
	{
		if (polys[k])
			TgAddChild(mp, polys[k]);
		free(rings[k].xy);
	}
	free(polys);
	free(rings);
	free(efrom);
	free(edir);
	free(used);
	free(out);
	return mp;
}

/* Random self-crossing rectilinear rings; see testutil.h. */
TGeom *
RandomOrthoShape(Rng *r, int nrings, int maxk, int64_t x0, int64_t y0,
				 int64_t span, int multi)
{
	TGeom	   *g = TgNew(multi ? PB_MULTIPOLYGONTYPE : PB_POLYGONTYPE, 0, 0);

	for (int k = 0; k < nrings; k++)
	{
		int			n = (int) RngRange(r, 2, maxk);
		double	   *c = malloc(sizeof(double) * 2 * (2 * n + 1));
		int64_t    *xs = malloc(sizeof(int64_t) * n),
				   *ys = malloc(sizeof(int64_t) * n);
		TGeom	   *target = g;

		for (int i = 0; i < n; i++)
		{
			xs[i] = x0 + RngRange(r, 0, span - 1);
			ys[i] = y0 + RngRange(r, 0, span - 1);
		}
		for (int i = 0; i < n; i++)
		{
			c[4 * i] = (double) xs[i];
			c[4 * i + 1] = (double) ys[i];
			c[4 * i + 2] = (double) xs[(i + 1) % n];
			c[4 * i + 3] = (double) ys[i];
		}
		c[4 * n] = c[0];
		c[4 * n + 1] = c[1];
		if (multi)
		{
			target = TgNew(PB_POLYGONTYPE, 0, 0);
			TgAddChild(g, target);
		}
		TgAddRing(target, c, 2 * n + 1);
		free(c);
		free(xs);
		free(ys);
	}
	return g;
}

/* The tree of a one-ring polygon given as n points xy (ring closed here). */
TGeom *
TgPolygonOf(const double *xy, int n)
{
	TGeom	   *g = TgNew(PB_POLYGONTYPE, 0, 0);
	double	   *c = malloc(sizeof(double) * 2 * (n + 1));

	memcpy(c, xy, sizeof(double) * 2 * n);
	c[2 * n] = xy[0];
	c[2 * n + 1] = xy[1];
	TgAddRing(g, c, n + 1);
	free(c);
	return g;
}

/* Seconds on a monotonic clock (time bounds in tests). */
double
TestSeconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Write len bytes to dir/name; return the path (malloc). */
char *
TestWriteFile(const char *dir, const char *name, const char *data, size_t len)
{
	char	   *path = malloc(strlen(dir) + strlen(name) + 2);
	FILE	   *f;

	sprintf(path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f != NULL)
	{
		CHECK(fwrite(data, 1, len, f) == len);
		fclose(f);
	}
	return path;
}
