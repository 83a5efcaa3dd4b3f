/*
 * area_sweep.c: exact intersection area of two rectilinear integer shapes
 * by a slab sweep in 64-bit integers, for windows too large for bitmaps.
 *
 * Between consecutive x-coordinates of horizontal-edge endpoints the set of
 * horizontal edges crossing a vertical line is fixed, so the length of the
 * line inside both shapes (even-odd rule per shape) is constant over the
 * slab; area = sum of width x length.  Coordinates are within +-2^30, so
 * every product and sum fits in int64.
 */
#include <stdlib.h>

#include "batch.h"
#include "ring_edges.h"

/* A horizontal edge clipped to the window, tagged with its shape (0 or 1). */
typedef struct HEdge
{
	int64_t		xlo,
				xhi,
				y;
	int			shape;
} HEdge;

/* qsort comparator: int64 ascending. */
static int
CmpI64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* qsort comparator: edges by xlo. */
static int
CmpEdgeXlo(const void *a, const void *b)
{
	return CmpI64(&((const HEdge *) a)->xlo, &((const HEdge *) b)->xlo);
}

/* Append the horizontal edges of shape s meeting (x0,x1) to out. */
static size_t
CollectEdges(HEdge *out, size_t n, const PbBatch *b, const PbShape *s,
			 int tag, int64_t x0, int64_t x1)
{
	PbEdgeWalk	walk = PbEdgeWalkStart(b, s);
	PbIntEdge	e;

	while (PbEdgeWalkNextInt(&walk, &e))
	{
		int64_t		lo = e.x0 < e.x1 ? e.x0 : e.x1,
					hi = e.x0 < e.x1 ? e.x1 : e.x0;

		if (e.y0 != e.y1 || e.x0 == e.x1 || hi <= x0 || lo >= x1)
			continue;
		out[n].xlo = lo < x0 ? x0 : lo;
		out[n].xhi = hi > x1 ? x1 : hi;
		out[n].y = e.y0;
		out[n].shape = tag;
		n++;
	}
	return n;
}

/* Length of the vertical line inside both shapes, from edges sorted by y. */
static int64_t
SlabLength(const HEdge *const *act, size_t nact)
{
	int			in[2] = {0, 0};
	int64_t		len = 0;

	for (size_t i = 0; i < nact; i++)
	{
		if (in[0] && in[1])
			len += act[i]->y - act[i - 1]->y;
		in[act[i]->shape] ^= 1;
	}
	return len;
}

/* Exact area of p ∩ q for two PB_SHAPE_INT shapes with overlapping boxes. */
double
PbAreaSweep(PbScratch *s, const PbBatch *b, const PbShape *p, const PbShape *q)
{
	PbBox		w = PbWindow(p, q);
	int64_t		x0 = (int64_t) w.xmin,
				x1 = (int64_t) w.xmax;
	size_t		cap = PbShapePoints(b, p) + PbShapePoints(b, q);
	HEdge	   *edges = PbScratchGet(s, 0, cap * sizeof(HEdge));
	int64_t    *xs = PbScratchGet(s, 1, (2 * cap + 2) * sizeof(int64_t));
	const HEdge **act = PbScratchGet(s, 2, (cap + 1) * sizeof(HEdge *));
	size_t		n,
				nx = 0,
				nact = 0,
				next = 0;
	int64_t		area = 0;

	if (x1 <= x0)
		return 0.0;
	n = CollectEdges(edges, 0, b, p, 0, x0, x1);
	n = CollectEdges(edges, n, b, q, 1, x0, x1);
	qsort(edges, n, sizeof(HEdge), CmpEdgeXlo);
	for (size_t i = 0; i < n; i++)
	{
		xs[nx++] = edges[i].xlo;
		xs[nx++] = edges[i].xhi;
	}
	qsort(xs, nx, sizeof(int64_t), CmpI64);
	for (size_t k = 0; k + 1 < nx; k++)
	{
		int64_t		a = xs[k],
					c = xs[k + 1];
		size_t		keep = 0;

		if (c == a)
			continue;
		/* drop edges that ended, insert new ones keeping y order */
		for (size_t i = 0; i < nact; i++)
			if (act[i]->xhi > a)
				act[keep++] = act[i];
		nact = keep;
		while (next < n && edges[next].xlo <= a)
		{
			size_t		pos = nact;

			while (pos > 0 && act[pos - 1]->y > edges[next].y)
			{
				act[pos] = act[pos - 1];
				pos--;
			}
			act[pos] = &edges[next++];
			nact++;
		}
		area += (c - a) * SlabLength(act, nact);
		if (s->mem->check_interrupts && (k & 1023) == 1023)
			s->mem->check_interrupts(s->mem->ctx);
	}
	return (double) area;
}
