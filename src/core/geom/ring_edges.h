/*
 * ring_edges.h: the edges of a shape, walked ring by ring, each ring
 * closed from its last point back to its first (rings are stored without
 * the repeated closing point).  The walk of the CPU engines
 * (area_sweep.c, area_general.c, pixelbox_cpu.c; area_bitmap.c reads the
 * int rings in place, its inner loop being the hottest of the join path):
 *
 *		PbEdgeWalk	walk = PbEdgeWalkStart(b, s);
 *		PbIntEdge	e;
 *
 *		while (PbEdgeWalkNextInt(&walk, &e))
 *			... e.x0, e.y0 -> e.x1, e.y1 ...
 *
 * Plain C on a PbBatch: the kernels read their own packed layout.
 */
#ifndef PB_GEOM_RING_EDGES_H
#define PB_GEOM_RING_EDGES_H

#include <stdbool.h>
#include <stdint.h>

#include "batch.h"

/* Where a walk over the edges of one shape stands. */
typedef struct PbEdgeWalk
{
	const PbBatch *batch;
	uint8_t		kind;			/* PbShapeKind: which point pool to read */
	uint32_t	next_ring,		/* the ring to walk after this one */
				end_ring;		/* one past the shape's last ring */
	uint32_t	first,			/* first point of the ring being walked */
				point,			/* first point of its next edge */
				end;			/* one past its last point */
} PbEdgeWalk;

/* One edge of an integer shape, from (x0, y0) to (x1, y1). */
typedef struct PbIntEdge
{
	int32_t		x0,
				y0,
				x1,
				y1;
} PbIntEdge;

/* One edge of any shape, from (x0, y0) to (x1, y1), in doubles. */
typedef struct PbDoubleEdge
{
	double		x0,
				y0,
				x1,
				y1;
} PbDoubleEdge;

/* A walk over the edges of shape s of batch b, before its first edge. */
static inline PbEdgeWalk
PbEdgeWalkStart(const PbBatch *b, const PbShape *s)
{
	PbEdgeWalk	walk = {b, s->kind, s->ring_first, s->ring_first + s->nrings, 0, 0, 0};

	return walk;
}

/*
 * Step to the next edge: its first and last point as indices into the
 * shape's point pool (the last edge of a ring ends at the ring's first
 * point).  False when every ring is done.  Empty rings yield nothing.
 */
static inline bool
PbEdgeWalkNext(PbEdgeWalk *walk, uint32_t *from, uint32_t *to)
{
	while (walk->point == walk->end)
	{
		const PbRing *ring;

		if (walk->next_ring == walk->end_ring)
			return false;
		ring = &walk->batch->rings[walk->next_ring++];
		walk->first = walk->point = ring->start;
		walk->end = ring->start + ring->npoints;
	}
	*from = walk->point++;
	*to = walk->point == walk->end ? walk->first : walk->point;
	return true;
}

/* Step to the next edge of a PB_SHAPE_INT shape into *e; false when done. */
static inline bool
PbEdgeWalkNextInt(PbEdgeWalk *walk, PbIntEdge *e)
{
	const int32_t *pts = walk->batch->ipts;
	uint32_t	from,
				to;

	if (!PbEdgeWalkNext(walk, &from, &to))
		return false;
	e->x0 = pts[2 * (size_t) from];
	e->y0 = pts[2 * (size_t) from + 1];
	e->x1 = pts[2 * (size_t) to];
	e->y1 = pts[2 * (size_t) to + 1];
	return true;
}

/* Coordinate axis (0: x, 1: y) of point index point of the walked shape, as a double. */
static inline double
PbEdgeWalkCoord(const PbEdgeWalk *walk, uint32_t point, int axis)
{
	size_t		k = 2 * (size_t) point + axis;

	return walk->kind == PB_SHAPE_INT ? walk->batch->ipts[k] : walk->batch->dpts[k];
}

/*
 * Step to the next edge of a shape of either kind into *e, integer
 * coordinates converted exactly; false when done.
 */
static inline bool
PbEdgeWalkNextDouble(PbEdgeWalk *walk, PbDoubleEdge *e)
{
	uint32_t	from,
				to;

	if (!PbEdgeWalkNext(walk, &from, &to))
		return false;
	e->x0 = PbEdgeWalkCoord(walk, from, 0);
	e->y0 = PbEdgeWalkCoord(walk, from, 1);
	e->x1 = PbEdgeWalkCoord(walk, to, 0);
	e->y1 = PbEdgeWalkCoord(walk, to, 1);
	return true;
}

#endif							/* PB_GEOM_RING_EDGES_H */
