/*
 * pixelbox_cpu.c: PixelBox-CPU, the paper's algorithm (VLDB 2012, sec. 3)
 * on one core, for two rectilinear integer shapes.  It is the reference
 * the GPU kernel is checked against.
 *
 * The intersection window of the two boxes is the first sampling box.  A
 * box's position relative to a shape follows Lemma 1: when no boundary edge
 * of the shape meets the box's open interior (no edge crossing the box's
 * sides, no vertex inside it), the whole box is inside or outside and its
 * first pixel centre decides which; otherwise it hovers.  Boxes inside both
 * shapes add their size, boxes outside either add nothing, hovering boxes
 * are split (PB_PIXELBOX_SPLIT^2 sub-boxes) until smaller than the
 * pixelization threshold T, then every pixel centre is tested by ray
 * casting.  Pixels are unit squares with integer corners, so it is exact.
 * The tests of one edge against a pixel or a box are pixelbox_rules.h's,
 * which the kernel applies too.
 */
#include "batch.h"
#include "pixelbox_rules.h"
#include "ring_edges.h"

/* Pixelization threshold T (pixels) and sub-boxes per side when splitting. */
#define PB_PIXELBOX_T 64
#define PB_PIXELBOX_SPLIT 4
/* Edge tests between two interrupt polls. */
#define PIXELBOX_POLL_WORK 65536

/* The edges of one shape split by axis. */
typedef struct EdgeSet
{
	PbAxisEdge *vert;			/* x = c, y in [lo, hi) */
	PbAxisEdge *horz;			/* y = c, x in [lo, hi) */
	size_t		nvert,
				nhorz;
} EdgeSet;

/* A sampling box [x0,x1) x [y0,y1). */
typedef struct SampBox
{
	int64_t		x0,
				y0,
				x1,
				y1;
} SampBox;

/* Split the edges of shape s into vertical and horizontal lists in buf. */
static void
LoadEdges(EdgeSet *es, PbAxisEdge *buf, const PbBatch *b, const PbShape *s,
		  size_t cap)
{
	PbEdgeWalk	walk = PbEdgeWalkStart(b, s);
	PbIntEdge	edge;

	es->vert = buf;
	es->horz = buf + cap;
	es->nvert = es->nhorz = 0;
	while (PbEdgeWalkNextInt(&walk, &edge))
	{
		PbAxisEdge	axis_edge;

		switch (PbAxisEdgeOf(edge.x0, edge.y0, edge.x1, edge.y1, &axis_edge))
		{
			case PB_EDGE_VERTICAL:
				es->vert[es->nvert++] = axis_edge;
				break;
			case PB_EDGE_HORIZONTAL:
				es->horz[es->nhorz++] = axis_edge;
				break;
			case PB_EDGE_NONE:
				break;
		}
	}
}

/* Ray casting: is the centre of pixel (px, py) inside the shape? */
static inline int
PixelInside(const EdgeSet *es, int64_t px, int64_t py)
{
	int			inside = 0;

	for (size_t i = 0; i < es->nvert; i++)
		inside ^= PbPixelRayCrosses(es->vert[i].c, es->vert[i].lo, es->vert[i].hi, px, py);
	return inside;
}

/* Lemma 1: position of sampling box bx relative to the shape. */
static PbBoxPos
BoxPosition(const EdgeSet *es, const SampBox *bx)
{
	for (size_t i = 0; i < es->nvert; i++)
	{
		const PbAxisEdge *e = &es->vert[i];

		if (PbEdgeCutsBox(e->c, e->lo, e->hi, bx->x0, bx->x1, bx->y0, bx->y1))
			return PB_BOX_HOVER;
	}
	for (size_t i = 0; i < es->nhorz; i++)
	{
		const PbAxisEdge *e = &es->horz[i];

		if (PbEdgeCutsBox(e->c, e->lo, e->hi, bx->y0, bx->y1, bx->x0, bx->x1))
			return PB_BOX_HOVER;
	}
	return PixelInside(es, bx->x0, bx->y0) ? PB_BOX_INSIDE : PB_BOX_OUTSIDE;
}

/* Pixelization: count pixels of bx whose centres are inside both shapes. */
static int64_t
Pixelize(const EdgeSet *p, const EdgeSet *q, const SampBox *bx)
{
	int64_t		count = 0;

	for (int64_t y = bx->y0; y < bx->y1; y++)
		for (int64_t x = bx->x0; x < bx->x1; x++)
			count += PixelInside(p, x, y) && PixelInside(q, x, y);
	return count;
}

/* Exact area of p ∩ q for two PB_SHAPE_INT shapes by PixelBox-CPU. */
double
PbAreaPixelBox(PbScratch *s, const PbBatch *b, const PbShape *p,
			   const PbShape *q)
{
	size_t		pn = PbShapePoints(b, p),
				qn = PbShapePoints(b, q);
	PbBox		w = PbWindow(p, q);
	PbAxisEdge *buf = PbScratchGet(s, 0, 2 * (pn + qn) * sizeof(PbAxisEdge));
	/* depth <= 64 levels of SPLIT^2 children each */
	SampBox    *stack = PbScratchGet(s, 1, 64 * PB_PIXELBOX_SPLIT * PB_PIXELBOX_SPLIT * sizeof(SampBox));
	EdgeSet		ep,
				eq;
	size_t		top = 0,
				work = 0,
				box_work;
	int64_t		area = 0;

	LoadEdges(&ep, buf, b, p, pn);
	LoadEdges(&eq, buf + 2 * pn, b, q, qn);
	/* what placing one box costs at most; a pixel costs nvert of each */
	box_work = ep.nvert + ep.nhorz + eq.nvert + eq.nhorz + 1;
	stack[top++] = (SampBox) {(int64_t) w.xmin, (int64_t) w.ymin, (int64_t) w.xmax, (int64_t) w.ymax};
	while (top > 0)
	{
		SampBox		bx = stack[--top];
		int64_t		w = bx.x1 - bx.x0,
					h = bx.y1 - bx.y0;
		PbBoxPos	pp,
					pq;

		if (w <= 0 || h <= 0)
			continue;
		if ((work += box_work) >= PIXELBOX_POLL_WORK)
		{
			PbScratchPoll(s);
			work = 0;
		}
		if ((pp = BoxPosition(&ep, &bx)) == PB_BOX_OUTSIDE ||
			(pq = BoxPosition(&eq, &bx)) == PB_BOX_OUTSIDE)
			continue;
		if (pp == PB_BOX_INSIDE && pq == PB_BOX_INSIDE)
			area += w * h;
		else if (w * h < PB_PIXELBOX_T)
		{
			area += Pixelize(&ep, &eq, &bx);
			work += (size_t) (w * h) * box_work;
		}
		else
		{
			/* split into up to SPLIT x SPLIT sub-boxes on integer lines */
			int			kx = PbSplitCount(w, PB_PIXELBOX_SPLIT);
			int			ky = PbSplitCount(h, PB_PIXELBOX_SPLIT);

			for (int j = 0; j < ky; j++)
				for (int i = 0; i < kx; i++)
					stack[top++] = (SampBox)
				{
					PbSplitAt(bx.x0, w, i, kx), PbSplitAt(bx.y0, h, j, ky),
						PbSplitAt(bx.x0, w, i + 1, kx), PbSplitAt(bx.y0, h, j + 1, ky)
				};
		}
	}
	return (double) area;
}
