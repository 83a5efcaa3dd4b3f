/*
 * pixelbox_rules.h: the per-edge rules of PixelBox (Wang et al., VLDB
 * 2012, sec. 3), written once for PixelBox-CPU (pixelbox_cpu.c) and the
 * PixelBox kernel (cuda/pixelbox_kernels.cu), which must agree on every
 * pair.  Each side keeps its own loops and data layout (shared-memory
 * staging, int2 points on the device); what one edge means for one pixel
 * or one sampling box is decided here, on scalars.
 *
 * Shapes are PB_SHAPE_INT: rectilinear rings with integer vertices, so
 * every edge is axis-parallel, a fixed coordinate c and a range [lo, hi)
 * along the other axis.  Pixel (px, py) is the unit square [px, px + 1) x
 * [py, py + 1); its centre (px + 1/2, py + 1/2) never lies on an edge, so
 * every test is exact on integers.
 */
#ifndef PB_GEOM_PIXELBOX_RULES_H
#define PB_GEOM_PIXELBOX_RULES_H

#include <stdint.h>

#include "../base/pb_xpu.h"

/* Where a sampling box lies relative to a shape (Lemma 1). */
typedef enum PbBoxPos
{
	PB_BOX_OUTSIDE,
	PB_BOX_INSIDE,
	PB_BOX_HOVER				/* an edge meets its interior: split or pixelize */
} PbBoxPos;

/* The axis of a ring edge; zero-length edges have none. */
typedef enum PbEdgeAxis
{
	PB_EDGE_NONE,
	PB_EDGE_VERTICAL,			/* x = c, y in [lo, hi) */
	PB_EDGE_HORIZONTAL			/* y = c, x in [lo, hi) */
} PbEdgeAxis;

/* An axis-parallel edge: fixed coordinate c, range [lo, hi) on the other axis. */
typedef struct PbAxisEdge
{
	int32_t		c,
				lo,
				hi;
} PbAxisEdge;

/* The axis edge at c from a to b along the other axis, in either order. */
PB_XPU PbAxisEdge
PbAxisEdgeAt(int32_t c, int32_t a, int32_t b)
{
	PbAxisEdge	edge;

	edge.c = c;
	edge.lo = a < b ? a : b;
	edge.hi = a < b ? b : a;
	return edge;
}

/*
 * The ring edge (xa, ya) -> (xb, yb) as an axis edge in *edge, and its
 * axis.  Zero-length edges (repeated vertices) are PB_EDGE_NONE and left
 * out: they cross no ray, and the edges at their vertex decide Lemma 1.
 */
PB_XPU PbEdgeAxis
PbAxisEdgeOf(int32_t xa, int32_t ya, int32_t xb, int32_t yb, PbAxisEdge *edge)
{
	if (xa == xb && ya != yb)
	{
		*edge = PbAxisEdgeAt(xa, ya, yb);
		return PB_EDGE_VERTICAL;
	}
	if (ya == yb && xa != xb)
	{
		*edge = PbAxisEdgeAt(ya, xa, xb);
		return PB_EDGE_HORIZONTAL;
	}
	return PB_EDGE_NONE;
}

/*
 * Ray casting, one edge: does the ray from the centre of pixel (px, py)
 * towards -x cross the vertical edge x = c, y in [lo, hi)?  A pixel is
 * inside a shape when an odd number of its vertical edges cross (even-odd
 * rule).  Branch-free, so loops over edges XOR it in.
 */
PB_XPU int
PbPixelRayCrosses(int64_t c, int64_t lo, int64_t hi, int64_t px, int64_t py)
{
	return (c <= px) & (lo <= py) & (py < hi);
}

/*
 * Lemma 1, one edge: does the edge at c on axis a, spanning [lo, hi) on
 * axis b, meet the open interior (a0, a1) x (b0, b1) of a sampling box?
 * Vertical edges pass the box as (x0, x1, y0, y1), horizontal ones as
 * (y0, y1, x0, x1).  When no edge of a shape meets it, every pixel of the
 * box is on the same side, so its first pixel decides (PbPixelRayCrosses).
 */
PB_XPU int
PbEdgeCutsBox(int64_t c, int64_t lo, int64_t hi, int64_t a0, int64_t a1,
			  int64_t b0, int64_t b1)
{
	return c > a0 && c < a1 && lo < b1 && hi > b0;
}

/*
 * Ray casting on a ring edge (xa, ya) -> (xb, yb) read in place, for loops
 * that walk the rings instead of axis-edge lists (the kernel's path for
 * polygons too large for shared memory): only a vertical edge can cross.
 */
PB_XPU int
PbRingEdgeRayCrosses(int32_t xa, int32_t ya, int32_t xb, int32_t yb,
					 int64_t px, int64_t py)
{
	PbAxisEdge	vert = PbAxisEdgeAt(xa, ya, yb);

	return xa == xb && PbPixelRayCrosses(vert.c, vert.lo, vert.hi, px, py);
}

/*
 * Lemma 1 on a ring edge (xa, ya) -> (xb, yb) read in place, either axis
 * (a zero-length edge is tested as a point).
 */
PB_XPU int
PbRingEdgeCutsBox(int32_t xa, int32_t ya, int32_t xb, int32_t yb,
				  int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
	PbAxisEdge	vert = PbAxisEdgeAt(xa, ya, yb),
				horz = PbAxisEdgeAt(ya, xa, xb);

	return (xa == xb && PbEdgeCutsBox(vert.c, vert.lo, vert.hi, x0, x1, y0, y1)) ||
		(ya == yb && PbEdgeCutsBox(horz.c, horz.lo, horz.hi, y0, y1, x0, x1));
}

/*
 * Sub-boxes along a side of len pixels when a hovering box is split at
 * most split ways: fewer on a short side, so each is at least one pixel.
 */
PB_XPU int
PbSplitCount(int64_t len, int split)
{
	return len < split ? (int) len : split;
}

/*
 * Boundary i (0 .. parts) of the side [lo, lo + len) split into parts
 * sub-boxes on integer lines: sub-box i spans boundaries i .. i + 1.
 */
PB_XPU int64_t
PbSplitAt(int64_t lo, int64_t len, int i, int parts)
{
	return lo + len * i / parts;
}

#endif							/* PB_GEOM_PIXELBOX_RULES_H */
