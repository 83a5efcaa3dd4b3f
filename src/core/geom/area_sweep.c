/*
 * area_sweep.c: exact intersection area of two rectilinear integer shapes
 * by a sweep over x in 64-bit integers, for windows too large for bitmaps.
 *
 * A point is inside a shape when a ray from it to the left crosses the
 * shape's vertical edges an odd number of times (even-odd rule).  Sweeping
 * a vertical line left to right, each vertical edge of a shape flips that
 * shape's inside-parity over the edge's y-range for every x beyond it, so
 * between consecutive edge x-coordinates the length of the line inside
 * both shapes is constant; area = sum of width x length.  The line is a
 * segment tree over the edges' y-coordinates whose nodes count the length
 * in each of the four (inside p, inside q) states and flip lazily, so each
 * edge costs O(log n) and the whole pair O(n log n) whatever its shape
 * (combs, spirals).  Coordinates are within +-2^30, so every product and
 * sum fits in int64.
 */
#include <stdlib.h>

#include "batch.h"
#include "ring_edges.h"

/* Events between two interrupt polls (each costs O(log n) node visits). */
#define SWEEP_POLL_EVENTS 4096

/* A vertical edge clipped to the window: flips its shape over [ylo, yhi). */
typedef struct VEdge
{
	int64_t		x,
				ylo,
				yhi;
	int			shape;
} VEdge;

/*
 * The sweep line: a segment tree over the elementary intervals between
 * consecutive distinct ys.  Node k covers leaves [lo, hi); len[k][s] is
 * the length of it in state s (bit 0: inside p, bit 1: inside q) counting
 * the flips at k and below; flip[k] holds the flips applied to all of k.
 */
typedef struct SweepLine
{
	const int64_t *ys;
	uint32_t	nleaves;
	int64_t		(*len)[4];
	uint8_t    *flip;
} SweepLine;

/* qsort comparator: int64 ascending. */
static int
CmpI64(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* qsort comparator: edges by x. */
static int
CmpEdgeX(const void *a, const void *b)
{
	return CmpI64(&((const VEdge *) a)->x, &((const VEdge *) b)->x);
}

/*
 * Append the vertical edges of shape s that flip parity inside the window
 * to out (x left of the window moved to its left side, y clipped to it),
 * and their y-ends to ys.
 */
static size_t
CollectEdges(VEdge *out, size_t n, int64_t *ys, const PbBatch *b,
			 const PbShape *s, int tag, const PbBox *w)
{
	PbEdgeWalk	walk = PbEdgeWalkStart(b, s);
	PbIntEdge	e;

	while (PbEdgeWalkNextInt(&walk, &e))
	{
		int64_t		lo = e.y0 < e.y1 ? e.y0 : e.y1,
					hi = e.y0 < e.y1 ? e.y1 : e.y0;

		if (e.x0 != e.x1 || e.x0 >= w->xmax)
			continue;
		if (lo < w->ymin)
			lo = (int64_t) w->ymin;
		if (hi > w->ymax)
			hi = (int64_t) w->ymax;
		if (lo >= hi)
			continue;
		out[n].x = e.x0 > w->xmin ? e.x0 : (int64_t) w->xmin;
		out[n].ylo = ys[2 * n] = lo;
		out[n].yhi = ys[2 * n + 1] = hi;
		out[n].shape = tag;
		n++;
	}
	return n;
}

/* Recompute node k's lengths from its children and its own flips. */
static inline void
Pull(SweepLine *t, size_t k)
{
	uint8_t		f = t->flip[k];

	for (int s = 0; s < 4; s++)
		t->len[k][s] = t->len[2 * k][s ^ f] + t->len[2 * k + 1][s ^ f];
}

/* Set up node k over leaves [lo, hi): nobody inside anything. */
static void
Build(SweepLine *t, size_t k, uint32_t lo, uint32_t hi)
{
	t->flip[k] = 0;
	t->len[k][0] = t->ys[hi] - t->ys[lo];
	t->len[k][1] = t->len[k][2] = t->len[k][3] = 0;
	if (hi - lo > 1)
	{
		Build(t, 2 * k, lo, lo + (hi - lo) / 2);
		Build(t, 2 * k + 1, lo + (hi - lo) / 2, hi);
	}
}

/* Flip bit (1: p, 2: q) over leaves [a, b) within node k over [lo, hi). */
static void
Flip(SweepLine *t, size_t k, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b,
	 uint8_t bit)
{
	uint32_t	mid = lo + (hi - lo) / 2;

	if (a <= lo && hi <= b)
	{
		int64_t		old[4] = {t->len[k][0], t->len[k][1], t->len[k][2], t->len[k][3]};

		t->flip[k] ^= bit;
		for (int s = 0; s < 4; s++)
			t->len[k][s] = old[s ^ bit];
		return;
	}
	if (a < mid)
		Flip(t, 2 * k, lo, mid, a, b, bit);
	if (b > mid)
		Flip(t, 2 * k + 1, mid, hi, a, b, bit);
	Pull(t, k);
}

/* Index of y in the sorted distinct ys. */
static uint32_t
LeafOf(const SweepLine *t, int64_t y)
{
	uint32_t	lo = 0,
				hi = t->nleaves;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (t->ys[mid] < y)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Exact area of p ∩ q for two PB_SHAPE_INT shapes with overlapping boxes. */
double
PbAreaSweep(PbScratch *s, const PbBatch *b, const PbShape *p, const PbShape *q)
{
	PbBox		w = PbWindow(p, q);
	size_t		cap = PbShapePoints(b, p) + PbShapePoints(b, q);
	VEdge	   *edges = PbScratchGet(s, 0, (cap ? cap : 1) * sizeof(VEdge));
	int64_t    *ys = PbScratchGet(s, 1, (2 * cap + 1) * sizeof(int64_t));
	SweepLine	t;
	size_t		n,
				ny = 0,
				nodes = 2;
	int64_t		area = 0,
				x;

	if (w.xmax <= w.xmin || w.ymax <= w.ymin)
		return 0.0;
	n = CollectEdges(edges, 0, ys, b, p, 0, &w);
	n = CollectEdges(edges, n, ys, b, q, 1, &w);
	if (n == 0)
		return 0.0;
	qsort(edges, n, sizeof(VEdge), CmpEdgeX);
	PbScratchPoll(s);
	qsort(ys, 2 * n, sizeof(int64_t), CmpI64);
	for (size_t i = 0; i < 2 * n; i++)
		if (ny == 0 || ys[i] != ys[ny - 1])
			ys[ny++] = ys[i];
	/* ny >= 2 distinct ys: ny - 1 leaves in a tree of 2 * 2^ceil(log2) nodes */
	PbScratchPoll(s);
	t.ys = ys;
	t.nleaves = (uint32_t) (ny - 1);
	while (nodes < 2 * (size_t) t.nleaves)
		nodes *= 2;
	t.len = PbScratchGet(s, 2, nodes * sizeof(*t.len));
	t.flip = PbScratchGet(s, 3, nodes);
	Build(&t, 1, 0, t.nleaves);
	x = edges[0].x;
	for (size_t i = 0; i < n; i++)
	{
		const VEdge *e = &edges[i];

		area += (e->x - x) * t.len[1][3];
		x = e->x;
		Flip(&t, 1, 0, t.nleaves, LeafOf(&t, e->ylo), LeafOf(&t, e->yhi),
			 (uint8_t) (1 << e->shape));
		if (i % SWEEP_POLL_EVENTS == SWEEP_POLL_EVENTS - 1)
			PbScratchPoll(s);
	}
	area += ((int64_t) w.xmax - x) * t.len[1][3];
	return (double) area;
}
