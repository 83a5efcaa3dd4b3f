/*
 * area_general.c: exact intersection area of any two polygonal shapes
 * (diagonal edges, fractional or huge coordinates) by vertical slabs.
 *
 * Slab boundaries are the window's sides, every vertex x and every x where
 * two edges cross.  Inside a slab no edge starts, ends or crosses another,
 * so the edges crossing a vertical line keep their order and the length of
 * the line inside both shapes (even-odd rule per shape) is linear in x: the
 * slab's area is its width times that length at its middle.  This is exact
 * up to floating-point rounding (no pixel approximation).  Coordinates are
 * translated to the window's corner first to keep precision for large
 * absolute coordinates.
 */
#include <math.h>
#include <stdlib.h>

#include "batch.h"
#include "ring_edges.h"

/* A non-vertical edge, left to right, translated, tagged with its shape. */
typedef struct DEdge
{
	double		x0,
				y0,
				x1,
				y1;
	double		ycur;			/* y at the current slab's middle */
	int			shape;
} DEdge;

/*
 * Append the non-vertical edges of s that reach into the window's x-range
 * to out, translated to the window's corner, and every vertex x strictly
 * inside that range to xs.
 */
static void
CollectEdges(const PbBatch *b, const PbShape *s, int tag, const PbBox *w,
			 DEdge *out, size_t *n, double *xs, size_t *nx)
{
	PbEdgeWalk	walk = PbEdgeWalkStart(b, s);
	PbDoubleEdge edge;

	while (PbEdgeWalkNextDouble(&walk, &edge))
	{
		DEdge	   *kept;

		if (edge.x0 > w->xmin && edge.x0 < w->xmax)
			xs[(*nx)++] = edge.x0 - w->xmin;
		if (edge.x0 == edge.x1 || fmax(edge.x0, edge.x1) <= w->xmin ||
			fmin(edge.x0, edge.x1) >= w->xmax)
			continue;
		kept = &out[(*n)++];
		kept->shape = tag;
		if (edge.x0 < edge.x1)
		{
			kept->x0 = edge.x0 - w->xmin, kept->y0 = edge.y0 - w->ymin;
			kept->x1 = edge.x1 - w->xmin, kept->y1 = edge.y1 - w->ymin;
		}
		else
		{
			kept->x0 = edge.x1 - w->xmin, kept->y0 = edge.y1 - w->ymin;
			kept->x1 = edge.x0 - w->xmin, kept->y1 = edge.y0 - w->ymin;
		}
	}
}

/* qsort comparator: doubles ascending. */
static int
CmpDouble(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* qsort comparator: edges by left x. */
static int
CmpEdgeX0(const void *a, const void *b)
{
	return CmpDouble(&((const DEdge *) a)->x0, &((const DEdge *) b)->x0);
}

/* Orientation of c relative to the line a->b: >0 left, <0 right. */
static inline double
Orient(double ax, double ay, double bx, double by, double cx, double cy)
{
	return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

/* x where edges e and f cross properly, or NAN when they do not. */
static double
CrossingX(const DEdge *e, const DEdge *f)
{
	double		d1 = Orient(f->x0, f->y0, f->x1, f->y1, e->x0, e->y0);
	double		d2 = Orient(f->x0, f->y0, f->x1, f->y1, e->x1, e->y1);
	double		d3 = Orient(e->x0, e->y0, e->x1, e->y1, f->x0, f->y0);
	double		d4 = Orient(e->x0, e->y0, e->x1, e->y1, f->x1, f->y1);

	if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) &&
		((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
		return e->x0 + (e->x1 - e->x0) * (d1 / (d1 - d2));
	return NAN;
}

/*
 * Append to xs (scratch slot 1, grown as needed) every x inside (0, width)
 * where two edges cross, testing only pairs whose x-ranges overlap (edges
 * sorted by x0).  Returns the new count.
 */
static size_t
CollectCrossings(PbScratch *s, const DEdge *e, size_t n, double width,
				 double **xs, size_t nx)
{
	for (size_t i = 0; i < n; i++)
	{
		double		ylo = fmin(e[i].y0, e[i].y1),
					yhi = fmax(e[i].y0, e[i].y1);

		for (size_t j = i + 1; j < n && e[j].x0 < e[i].x1; j++)
		{
			double		x;

			if (fmax(e[j].y0, e[j].y1) < ylo || fmin(e[j].y0, e[j].y1) > yhi)
				continue;
			x = CrossingX(&e[i], &e[j]);
			if (!(x > 0.0 && x < width))
				continue;
			*xs = PbScratchGrow(s, 1, (nx + 3) * sizeof(double));
			(*xs)[nx++] = x;
		}
		if (s->mem->check_interrupts && (i & 1023) == 1023)
			s->mem->check_interrupts(s->mem->ctx);
	}
	return nx;
}

/* Length of the vertical line inside both shapes; act sorted by ycur. */
static double
SlabLength(DEdge *const *act, size_t nact)
{
	int			in[2] = {0, 0};
	double		len = 0.0;

	for (size_t i = 0; i < nact; i++)
	{
		if (in[0] && in[1])
			len += act[i]->ycur - act[i - 1]->ycur;
		in[act[i]->shape] ^= 1;
	}
	return len;
}

/* Exact area of p ∩ q for any two non-empty shapes with overlapping boxes. */
double
PbAreaGeneral(PbScratch *s, const PbBatch *b, const PbShape *p,
			  const PbShape *q)
{
	PbBox		w = PbWindow(p, q);
	size_t		cap = PbShapePoints(b, p) + PbShapePoints(b, q);
	DEdge	   *edges = PbScratchGet(s, 0, cap * sizeof(DEdge));
	double	   *xs = PbScratchGet(s, 1, (cap + 2) * sizeof(double));
	DEdge	  **act = PbScratchGet(s, 2, (cap + 1) * sizeof(DEdge *));
	size_t		n = 0,
				nx = 0,
				nact = 0,
				next = 0;
	double		area = 0.0;

	if (!(w.xmax > w.xmin && w.ymax > w.ymin))
		return 0.0;
	CollectEdges(b, p, 0, &w, edges, &n, xs, &nx);
	CollectEdges(b, q, 1, &w, edges, &n, xs, &nx);
	qsort(edges, n, sizeof(DEdge), CmpEdgeX0);
	nx = CollectCrossings(s, edges, n, w.xmax - w.xmin, &xs, nx);
	/* CollectCrossings leaves room for these two */
	xs[nx++] = 0.0;
	xs[nx++] = w.xmax - w.xmin;
	qsort(xs, nx, sizeof(double), CmpDouble);
	for (size_t k = 0; k + 1 < nx; k++)
	{
		double		a = xs[k],
					c = xs[k + 1],
					xm;
		size_t		keep = 0;

		if (!(c > a))
			continue;
		xm = 0.5 * (a + c);
		for (size_t i = 0; i < nact; i++)
			if (act[i]->x1 > xm)
				act[keep++] = act[i];
		nact = keep;
		while (next < n && edges[next].x0 < xm)
		{
			if (edges[next].x1 > xm)
				act[nact++] = &edges[next];
			next++;
		}
		/* y at the middle; insertion sort (the order barely changes) */
		for (size_t i = 0; i < nact; i++)
		{
			DEdge	   *e = act[i];
			size_t		pos = i;

			e->ycur = e->y0 + (e->y1 - e->y0) * ((xm - e->x0) / (e->x1 - e->x0));
			while (pos > 0 && act[pos - 1]->ycur > e->ycur)
			{
				act[pos] = act[pos - 1];
				pos--;
			}
			act[pos] = e;
		}
		area += (c - a) * SlabLength(act, nact);
		if (s->mem->check_interrupts && (k & 255) == 255)
			s->mem->check_interrupts(s->mem->ctx);
	}
	return area;
}
