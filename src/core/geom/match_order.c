/*
 * match_order.c: a total order of the shapes of a batch that depends on
 * the shapes alone, not on where they sit in it, for the tie-breaks of
 * the instance metrics (match.h): under a parallel plan the rows of an
 * aggregate arrive in a different order each run, and the metrics must
 * not change with it.
 */
#include <string.h>

#include "batch.h"
#include "match.h"

/* -1, 0 or 1 as a is below, equal to or above b. */
static inline int
Cmp(double a, double b)
{
	return (a > b) - (a < b);
}

/*
 * Compare shapes i and j of b: by area, then box (xmin, ymin, xmax,
 * ymax), storage kind, rings, and then every ring's points in order.
 * 0 only for shapes stored alike, point for point: the same polygon.
 */
int
PbShapeOrder(const struct PbBatch *b, uint32_t i, uint32_t j)
{
	const PbShape *p = &b->shapes[i],
			   *q = &b->shapes[j];
	int			c;

	if ((c = Cmp(p->area, q->area)) != 0 ||
		(c = Cmp(p->box.xmin, q->box.xmin)) != 0 ||
		(c = Cmp(p->box.ymin, q->box.ymin)) != 0 ||
		(c = Cmp(p->box.xmax, q->box.xmax)) != 0 ||
		(c = Cmp(p->box.ymax, q->box.ymax)) != 0 ||
		(c = Cmp(p->kind, q->kind)) != 0 ||
		(c = Cmp(p->nrings, q->nrings)) != 0)
		return c;
	for (uint32_t r = 0; r < p->nrings; r++)
	{
		const PbRing *rp = &b->rings[p->ring_first + r],
				   *rq = &b->rings[q->ring_first + r];

		if ((c = Cmp(rp->npoints, rq->npoints)) != 0)
			return c;
		for (uint32_t k = 0; k < 2 * rp->npoints; k++)
		{
			c = p->kind == PB_SHAPE_INT
				? Cmp(b->ipts[2 * (size_t) rp->start + k], b->ipts[2 * (size_t) rq->start + k])
				: Cmp(b->dpts[2 * (size_t) rp->start + k], b->dpts[2 * (size_t) rq->start + k]);
			if (c != 0)
				return c;
		}
	}
	return 0;
}
