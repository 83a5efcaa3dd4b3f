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
 *
 * The cost is the number of edge pairs whose x-ranges overlap (crossing
 * tests, edges alive per slab).  A big pair whose edges overlap far less
 * along y (a comb with teeth along y) is swept along y instead: x and y
 * swapped, which keeps every area.  Interrupts are polled by work done, so
 * one big pair sees a cancel within milliseconds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "area_exact.h"
#include "batch.h"
#include "ring_edges.h"

/* Work (edge visits) between two interrupt polls. */
#define GENERAL_POLL_WORK 65536
/* Pairs with fewer edges are always swept along x (as they always were). */
#define GENERAL_AXIS_MIN_EDGES 4096

/* A non-vertical edge, left to right, translated, tagged with its shape. */
typedef struct DEdge
{
	double		x0,
				y0,
				x1,
				y1;
	double		ycur;			/* y at the current slab's middle */
	double		mag;			/* error magnitude of ycur (area_exact.h) */
	int			shape;
} DEdge;

/* Edge e with x and y swapped when swap. */
static inline void
SwapXY(PbDoubleEdge *e, int swap)
{
	if (swap)
	{
		double		t = e->x0;

		e->x0 = e->y0, e->y0 = t;
		t = e->x1, e->x1 = e->y1, e->y1 = t;
	}
}

/*
 * Append the non-vertical edges of s that reach into the window's x-range
 * to out, translated to the window's corner, and every vertex x strictly
 * inside that range to xs (x and y of s swapped when swap; w is then the
 * swapped window).
 */
static void
CollectEdges(const PbBatch *b, const PbShape *s, int tag, const PbBox *w,
			 int swap, DEdge *out, size_t *n, double *xs, size_t *nx)
{
	PbEdgeWalk	walk = PbEdgeWalkStart(b, s);
	PbDoubleEdge edge;

	while (PbEdgeWalkNextDouble(&walk, &edge))
	{
		DEdge	   *kept;

		SwapXY(&edge, swap);

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

/* qsort comparator: edge pointers by y at the slab's middle. */
static int
CmpEdgeYcur(const void *a, const void *b)
{
	return CmpDouble(&(*(DEdge *const *) a)->ycur, &(*(DEdge *const *) b)->ycur);
}

/* Number of the sorted values v[0..n) that are < x. */
static size_t
CountBelow(const double *v, size_t n, double x)
{
	size_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Whether to sweep along y: the pairs of edges of p and q (in the window)
 * whose ranges overlap, counted along each axis in O(n log n), are at
 * least 4 times fewer along y.  Small pairs always go along x.
 */
static int
SweepAlongY(PbScratch *s, const PbBatch *b, const PbShape *p,
			const PbShape *q, const PbBox *w, size_t cap)
{
	double	   *lo = PbScratchGet(s, 3, 5 * cap * sizeof(double));
	double	   *hi = lo + 2 * cap,
			   *sorted = lo + 4 * cap;
	double		cost[2] = {0, 0};
	size_t		n = 0;

	if (cap < GENERAL_AXIS_MIN_EDGES)
		return 0;
	for (int shape = 0; shape < 2; shape++)
	{
		PbEdgeWalk	walk = PbEdgeWalkStart(b, shape ? q : p);
		PbDoubleEdge e;

		while (PbEdgeWalkNextDouble(&walk, &e))
		{
			if (fmax(e.x0, e.x1) <= w->xmin || fmin(e.x0, e.x1) >= w->xmax ||
				fmax(e.y0, e.y1) <= w->ymin || fmin(e.y0, e.y1) >= w->ymax)
				continue;
			lo[n] = fmin(e.x0, e.x1), hi[n] = fmax(e.x0, e.x1);
			lo[cap + n] = fmin(e.y0, e.y1), hi[cap + n] = fmax(e.y0, e.y1);
			n++;
		}
	}
	for (int axis = 0; axis < 2; axis++)
	{
		double	   *l = lo + axis * cap,
				   *h = hi + axis * cap;

		/* pairs (i, j) with lo[j] in [lo[i], hi[i]) */
		memcpy(sorted, l, n * sizeof(double));
		qsort(sorted, n, sizeof(double), CmpDouble);
		for (size_t i = 0; i < n; i++)
			cost[axis] += (double) (CountBelow(sorted, n, h[i]) -
									CountBelow(sorted, n, l[i]));
		PbScratchPoll(s);
	}
	return 4 * cost[1] < cost[0];
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
	size_t		work = 0;

	for (size_t i = 0; i < n; i++)
	{
		double		ylo = fmin(e[i].y0, e[i].y1),
					yhi = fmax(e[i].y0, e[i].y1);
		size_t		j;

		for (j = i + 1; j < n && e[j].x0 < e[i].x1; j++)
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
		if ((work += j - i) >= GENERAL_POLL_WORK)
		{
			PbScratchPoll(s);
			work = 0;
		}
	}
	return nx;
}

/* How far the doubles' slab lengths may be off, summed over the slabs. */
typedef struct ErrBound
{
	int			exempt;			/* copies of one edge are exact (see ErrBoundStart) */
	double		close;			/* neighbours nearer than this may be misordered */
	double		sum;			/* sum of width * error magnitudes */
} ErrBound;

/*
 * Whether x - m is exact for every x in [lo, hi]: m is 0, or Sterbenz's
 * lemma holds (x within a factor 2 of m).
 */
static int
TranslationExact(double m, double lo, double hi)
{
	if (m == 0.0)
		return 1;
	return m > 0.0 ? lo >= 0.5 * m && hi <= 2.0 * m : hi <= 0.5 * m && lo >= 2.0 * m;
}

/*
 * Start the error bound of the pair p, q: every edge's error magnitude
 * (area_exact.h), the nearness under which two edges may be in the wrong
 * order, and whether copies of one edge are exempt: when the translation
 * was exact, two copies of one edge (a shared boundary) have equal y's
 * exactly; otherwise distinct edges may have become copies.  w and the
 * edges are in the sweep's frame (x and y swapped when swap).
 */
static void
ErrBoundStart(ErrBound *eb, const PbShape *p, const PbShape *q, const PbBox *w,
			  int swap, DEdge *edges, size_t n)
{
	double		most = 0.0;
	PbBox		pb = p->box,
				qb = q->box;

	if (swap)
	{
		pb = (PbBox) {p->box.ymin, p->box.xmin, p->box.ymax, p->box.xmax};
		qb = (PbBox) {q->box.ymin, q->box.xmin, q->box.ymax, q->box.xmax};
	}

	for (size_t i = 0; i < n; i++)
	{
		DEdge	   *e = &edges[i];

		e->mag = fabs(e->y0) + fabs(e->y1) +
			fabs(e->y1 - e->y0) * (fabs(e->x0) + fabs(e->x1)) / (e->x1 - e->x0);
		most = e->mag > most ? e->mag : most;
	}
	eb->exempt = TranslationExact(w->xmin, fmin(pb.xmin, qb.xmin), fmax(pb.xmax, qb.xmax)) &&
		TranslationExact(w->ymin, fmin(pb.ymin, qb.ymin), fmax(pb.ymax, qb.ymax));
	eb->close = 2.0 * PB_GENERAL_ERR_SCALE * most;
	eb->sum = 0.0;
}

/* Whether lo and hi are copies of one edge whose y's are equal exactly. */
static inline int
ExemptCopies(const ErrBound *eb, const DEdge *lo, const DEdge *hi)
{
	return eb->exempt && lo->x0 == hi->x0 && lo->y0 == hi->y0 &&
		lo->x1 == hi->x1 && lo->y1 == hi->y1;
}

/*
 * Sum of the error magnitudes of neighbours in act that lie within their
 * rounding of each other: their order may be wrong.
 */
static double
NearMisses(const ErrBound *eb, DEdge *const *act, size_t nact)
{
	double		mag = 0.0;

	for (size_t i = 1; i < nact; i++)
	{
		const DEdge *lo = act[i - 1],
				   *hi = act[i];
		double		both = lo->mag + hi->mag;

		if (hi->ycur - lo->ycur <= PB_GENERAL_ERR_SCALE * both && !ExemptCopies(eb, lo, hi))
			mag += both;
	}
	return mag;
}

/*
 * Length of the vertical line inside both shapes; act sorted by ycur.
 * Adds to *mag the error magnitudes of the edges whose rounding could
 * change it: those bounding a counted interval and those within rounding
 * of a neighbour (NearMisses, looked for only when some gap is small).
 */
static double
SlabLength(const ErrBound *eb, DEdge *const *act, size_t nact, double *mag)
{
	int			in[2] = {0, 0};
	double		len = 0.0,
				least = INFINITY;

	for (size_t i = 0; i < nact; i++)
	{
		if (i > 0)
		{
			const DEdge *lo = act[i - 1],
						*hi = act[i];
			double		gap = hi->ycur - lo->ycur;

			least = gap < least ? gap : least;
			if (in[0] && in[1])
			{
				len += gap;
				if (gap != 0.0 || !ExemptCopies(eb, lo, hi))
					*mag += lo->mag + hi->mag;
			}
		}
		in[act[i]->shape] ^= 1;
	}
	if (least <= eb->close)
		*mag += NearMisses(eb, act, nact);
	return len;
}

/*
 * Whether the doubles' area may be off by more than PB_GENERAL_TOLERANCE
 * of it and by more than PB_GENERAL_FLOOR of the smaller polygon's area.
 */
static int
ErrBoundExceeded(const ErrBound *eb, double area, const PbShape *p,
				 const PbShape *q)
{
	double		bound = PB_GENERAL_ERR_SCALE * eb->sum;

	return bound > PB_GENERAL_TOLERANCE * area &&
		bound > PB_GENERAL_FLOOR * fmin(fabs(p->area), fabs(q->area));
}

/* y of edge e on the vertical line at x. */
static inline double
YAt(const DEdge *e, double x)
{
	return e->y0 + (e->y1 - e->y0) * ((x - e->x0) / (e->x1 - e->x0));
}

/*
 * Bring the active edges to the slab whose middle is xm: drop those that
 * ended, re-sort the survivors by y (insertion sort: their order changes
 * only where two crossed, at the slab's left side), then sort the edges
 * starting here on their own and merge them in, so a slab that many edges
 * enter at once costs O(k log k), not O(k^2).  Returns the new count;
 * *next, *work advance.
 */
static size_t
AdvanceSlab(PbScratch *s, DEdge *edges, size_t n, size_t *next, DEdge **act,
			size_t nact, double xm, size_t *work)
{
	DEdge	  **fresh = PbScratchGet(s, 3, (n + 1) * sizeof(DEdge *));
	size_t		keep = 0,
				nfresh = 0;

	for (size_t i = 0; i < nact; i++)
	{
		DEdge	   *e = act[i];
		size_t		pos = keep++;

		if (!(e->x1 > xm))
		{
			keep--;
			continue;
		}
		e->ycur = YAt(e, xm);
		while (pos > 0 && act[pos - 1]->ycur > e->ycur)
		{
			act[pos] = act[pos - 1];
			pos--;
		}
		act[pos] = e;
	}
	while (*next < n && edges[*next].x0 < xm)
	{
		DEdge	   *e = &edges[(*next)++];

		if (e->x1 > xm)
		{
			e->ycur = YAt(e, xm);
			fresh[nfresh++] = e;
		}
	}
	*work += nact + nfresh;
	if (nfresh == 0)
		return keep;
	qsort(fresh, nfresh, sizeof(DEdge *), CmpEdgeYcur);
	/* merge from the back; a newcomer goes after survivors of equal y */
	for (size_t k = keep + nfresh, i = keep, j = nfresh; j > 0;)
	{
		if (i > 0 && act[i - 1]->ycur > fresh[j - 1]->ycur)
			act[--k] = act[--i];
		else
			act[--k] = fresh[--j];
	}
	return keep + nfresh;
}

/*
 * Exact area of p ∩ q for any two non-empty shapes with overlapping boxes:
 * in doubles, redone in double-double (area_exact.c) when the bound on
 * the doubles' error is too large (ErrBoundExceeded).
 */
double
PbAreaGeneral(PbScratch *s, const PbBatch *b, const PbShape *p,
			  const PbShape *q)
{
	PbBox		w = PbWindow(p, q);
	size_t		cap = PbShapePoints(b, p) + PbShapePoints(b, q);
	DEdge	   *edges;
	double	   *xs;
	DEdge	  **act;
	size_t		n = 0,
				nx = 0,
				nact = 0,
				next = 0,
				work = 0;
	double		area = 0.0;
	int			swap;
	ErrBound	eb;

	if (!(w.xmax > w.xmin && w.ymax > w.ymin))
		return 0.0;
	if ((swap = SweepAlongY(s, b, p, q, &w, cap)) != 0)
		w = (PbBox) {w.ymin, w.xmin, w.ymax, w.xmax};
	edges = PbScratchGet(s, 0, cap * sizeof(DEdge));
	xs = PbScratchGet(s, 1, (cap + 2) * sizeof(double));
	act = PbScratchGet(s, 2, (cap + 1) * sizeof(DEdge *));
	CollectEdges(b, p, 0, &w, swap, edges, &n, xs, &nx);
	CollectEdges(b, q, 1, &w, swap, edges, &n, xs, &nx);
	ErrBoundStart(&eb, p, q, &w, swap, edges, n);
	qsort(edges, n, sizeof(DEdge), CmpEdgeX0);
	PbScratchPoll(s);
	nx = CollectCrossings(s, edges, n, w.xmax - w.xmin, &xs, nx);
	/* CollectCrossings leaves room for these two */
	xs[nx++] = 0.0;
	xs[nx++] = w.xmax - w.xmin;
	qsort(xs, nx, sizeof(double), CmpDouble);
	PbScratchPoll(s);
	for (size_t k = 0; k + 1 < nx; k++)
	{
		double		a = xs[k],
					c = xs[k + 1],
					len,
					mag = 0.0;

		if (!(c > a))
			continue;
		nact = AdvanceSlab(s, edges, n, &next, act, nact, 0.5 * (a + c), &work);
		len = SlabLength(&eb, act, nact, &mag);
		area += (c - a) * len;
		eb.sum += (c - a) * mag;
		if (work >= GENERAL_POLL_WORK)
		{
			PbScratchPoll(s);
			work = 0;
		}
	}
	if (ErrBoundExceeded(&eb, area, p, q))
		return PbAreaGeneralExact(s, b, p, q);
	/* p ∩ q lies in the window: more than its area is rounding */
	return fmax(0.0, fmin(area, (w.xmax - w.xmin) * (w.ymax - w.ymin)));
}
