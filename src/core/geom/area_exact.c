/*
 * area_exact.c: the general engine's slab method in double-double
 * arithmetic, for the pairs where doubles are not precise enough.
 *
 * area_general.c computes each slab's area as width times the length of
 * the vertical line at the slab's middle inside both shapes, a difference
 * of interpolated y's.  When that length is tiny beside the y's (a polygon
 * 1.5 high and 1e9 long gives lengths of 1e-9 from y's near 0.75), the
 * difference keeps few correct digits; area_general.c bounds that error
 * and hands such pairs here.  This version works on the original
 * coordinates (no rounded translation), finds crossings with orientations
 * and crossing x's in double-double, and takes the slab midpoints, the
 * y's, the lengths and the sum in double-double (about 106 bits), so the
 * result is correct to about 1e-15 relative even at 1e17.
 *
 * About twenty times slower than the double version; ordinary pairs never
 * come here.
 */
#include <stdlib.h>

#include "area_exact.h"
#include "dd.h"
#include "ring_edges.h"

/* A non-vertical edge, left to right, in its original coordinates. */
typedef struct XEdge
{
	double		x0,
				y0,
				x1,
				y1;
	PbDD		ycur;			/* y at the current slab's middle */
	int			shape;
} XEdge;

/*
 * Append the non-vertical edges of s that reach into the window's x-range
 * to out, and every vertex x strictly inside that range to xs.
 */
static void
CollectExactEdges(const PbBatch *b, const PbShape *s, int tag, const PbBox *w,
				  XEdge *out, size_t *n, PbDD *xs, size_t *nx)
{
	PbEdgeWalk	walk = PbEdgeWalkStart(b, s);
	PbDoubleEdge edge;

	while (PbEdgeWalkNextDouble(&walk, &edge))
	{
		XEdge	   *kept;
		int			flip = edge.x0 > edge.x1;

		if (edge.x0 > w->xmin && edge.x0 < w->xmax)
			xs[(*nx)++] = PbDDFrom(edge.x0);
		if (edge.x0 == edge.x1 || fmax(edge.x0, edge.x1) <= w->xmin ||
			fmin(edge.x0, edge.x1) >= w->xmax)
			continue;
		kept = &out[(*n)++];
		kept->shape = tag;
		kept->x0 = flip ? edge.x1 : edge.x0;
		kept->y0 = flip ? edge.y1 : edge.y0;
		kept->x1 = flip ? edge.x0 : edge.x1;
		kept->y1 = flip ? edge.y0 : edge.y1;
	}
}

/* qsort comparator: double-doubles ascending. */
static int
CmpDD(const void *a, const void *b)
{
	PbDD		x = *(const PbDD *) a,
				y = *(const PbDD *) b;

	return PbDDLess(y, x) - PbDDLess(x, y);
}

/* qsort comparator: edges by left x. */
static int
CmpXEdgeX0(const void *a, const void *b)
{
	double		x = ((const XEdge *) a)->x0,
				y = ((const XEdge *) b)->x0;

	return (x > y) - (x < y);
}

/*
 * Orientation of c relative to the line a->b (>0 left, <0 right): the
 * differences are exact, the products and their difference carry about
 * 106 bits, so the sign is right unless c is within about 1e-30 relative
 * of the line.
 */
static PbDD
OrientDD(double ax, double ay, double bx, double by, double cx, double cy)
{
	return PbDDSub(PbDDMul(PbDDTwoSum(bx, -ax), PbDDTwoSum(cy, -ay)),
				   PbDDMul(PbDDTwoSum(by, -ay), PbDDTwoSum(cx, -ax)));
}

/* Whether e and f cross properly; if so their crossing x in *x. */
static int
CrossingXDD(const XEdge *e, const XEdge *f, PbDD *x)
{
	PbDD		d1 = OrientDD(f->x0, f->y0, f->x1, f->y1, e->x0, e->y0),
				d2 = OrientDD(f->x0, f->y0, f->x1, f->y1, e->x1, e->y1);
	int			s1 = PbDDSign(d1),
				s2 = PbDDSign(d2),
				s3 = PbDDSign(OrientDD(e->x0, e->y0, e->x1, e->y1, f->x0, f->y0)),
				s4 = PbDDSign(OrientDD(e->x0, e->y0, e->x1, e->y1, f->x1, f->y1));

	if (s1 * s2 >= 0 || s3 * s4 >= 0)
		return 0;
	*x = PbDDAdd(PbDDFrom(e->x0),
				 PbDDMul(PbDDTwoSum(e->x1, -e->x0),
						 PbDDDiv(d1, PbDDSub(d1, d2))));
	return 1;
}

/*
 * Append to xs (scratch slot 4, grown as needed) every x strictly inside
 * the window's x-range where two edges cross, testing only pairs whose
 * ranges overlap (edges sorted by x0).  Returns the new count.
 */
static size_t
CollectExactCrossings(PbScratch *s, const XEdge *e, size_t n, const PbBox *w,
					  PbDD **xs, size_t nx)
{
	PbDD		lo = PbDDFrom(w->xmin),
				hi = PbDDFrom(w->xmax);

	for (size_t i = 0; i < n; i++)
	{
		double		ylo = fmin(e[i].y0, e[i].y1),
					yhi = fmax(e[i].y0, e[i].y1);

		for (size_t j = i + 1; j < n && e[j].x0 < e[i].x1; j++)
		{
			PbDD		x;

			if (fmax(e[j].y0, e[j].y1) < ylo || fmin(e[j].y0, e[j].y1) > yhi)
				continue;
			if (!CrossingXDD(&e[i], &e[j], &x) ||
				!(PbDDLess(lo, x) && PbDDLess(x, hi)))
				continue;
			*xs = PbScratchGrow(s, 4, (nx + 3) * sizeof(PbDD));
			(*xs)[nx++] = x;
		}
		if (s->mem->check_interrupts && (i & 255) == 255)
			s->mem->check_interrupts(s->mem->ctx);
	}
	return nx;
}

/* Length of the vertical line inside both shapes; act sorted by ycur. */
static PbDD
SlabLengthDD(XEdge *const *act, size_t nact)
{
	int			in[2] = {0, 0};
	PbDD		len = PbDDFrom(0.0);

	for (size_t i = 0; i < nact; i++)
	{
		if (in[0] && in[1])
			len = PbDDAdd(len, PbDDSub(act[i]->ycur, act[i - 1]->ycur));
		in[act[i]->shape] ^= 1;
	}
	return len;
}

/* y of edge e at x (inside its x-range), in double-double. */
static PbDD
EdgeYAt(const XEdge *e, PbDD x)
{
	PbDD		t = PbDDDiv(PbDDSub(x, PbDDFrom(e->x0)), PbDDTwoSum(e->x1, -e->x0));

	return PbDDAdd(PbDDFrom(e->y0), PbDDMul(PbDDTwoSum(e->y1, -e->y0), t));
}

/*
 * Area of p ∩ q for any two non-empty shapes with overlapping boxes, as
 * PbAreaGeneral computes it, in double-double throughout.
 */
double
PbAreaGeneralExact(PbScratch *s, const PbBatch *b, const PbShape *p,
				   const PbShape *q)
{
	PbBox		w = PbWindow(p, q);
	size_t		cap = PbShapePoints(b, p) + PbShapePoints(b, q);
	XEdge	   *edges = PbScratchGet(s, 3, cap * sizeof(XEdge));
	PbDD	   *xs = PbScratchGet(s, 4, (cap + 2) * sizeof(PbDD));
	XEdge	  **act = PbScratchGet(s, 5, (cap + 1) * sizeof(XEdge *));
	size_t		n = 0,
				nx = 0,
				nact = 0,
				next = 0;
	PbDD		area = PbDDFrom(0.0);

	if (!(w.xmax > w.xmin && w.ymax > w.ymin))
		return 0.0;
	CollectExactEdges(b, p, 0, &w, edges, &n, xs, &nx);
	CollectExactEdges(b, q, 1, &w, edges, &n, xs, &nx);
	qsort(edges, n, sizeof(XEdge), CmpXEdgeX0);
	nx = CollectExactCrossings(s, edges, n, &w, &xs, nx);
	/* CollectExactCrossings leaves room for these two */
	xs[nx++] = PbDDFrom(w.xmin);
	xs[nx++] = PbDDFrom(w.xmax);
	qsort(xs, nx, sizeof(PbDD), CmpDD);
	for (size_t k = 0; k + 1 < nx; k++)
	{
		PbDD		a = xs[k],
					c = xs[k + 1],
					xm;
		size_t		keep = 0;

		if (!PbDDLess(a, c))
			continue;
		xm = PbDDAdd(a, c);
		xm.hi *= 0.5, xm.lo *= 0.5;
		for (size_t i = 0; i < nact; i++)
			if (PbDDLess(xm, PbDDFrom(act[i]->x1)))
				act[keep++] = act[i];
		nact = keep;
		while (next < n && PbDDLess(PbDDFrom(edges[next].x0), xm))
		{
			if (PbDDLess(xm, PbDDFrom(edges[next].x1)))
				act[nact++] = &edges[next];
			next++;
		}
		/* y at the middle; insertion sort (the order barely changes) */
		for (size_t i = 0; i < nact; i++)
		{
			XEdge	   *e = act[i];
			size_t		pos = i;

			e->ycur = EdgeYAt(e, xm);
			while (pos > 0 && PbDDLess(e->ycur, act[pos - 1]->ycur))
			{
				act[pos] = act[pos - 1];
				pos--;
			}
			act[pos] = e;
		}
		area = PbDDAdd(area, PbDDMul(PbDDSub(c, a), SlabLengthDD(act, nact)));
		if (s->mem->check_interrupts && (k & 63) == 63)
			s->mem->check_interrupts(s->mem->ctx);
	}
	return PbDDValue(area);
}
