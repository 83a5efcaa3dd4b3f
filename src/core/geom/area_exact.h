/*
 * area_exact.h: the general engine's precise fallback and the error bound
 * that decides when it runs.
 */
#ifndef PB_GEOM_AREA_EXACT_H
#define PB_GEOM_AREA_EXACT_H

#include <float.h>

#include "batch.h"

/*
 * The general engine's result is redone in double-double when its error
 * bound (PB_GENERAL_ERR_SCALE times the sum it accumulates) exceeds both
 * this fraction of the area (the README promises 1e-9 relative) ...
 */
#define PB_GENERAL_TOLERANCE 1e-10

/*
 * ... and this fraction of the smaller polygon's area, about the rounding
 * of ST_Area itself: so touching polygons (area 0, error bound 1e-15 of
 * their size) keep the fast path.
 */
#define PB_GENERAL_FLOOR 1e-15

/*
 * An interpolated y of the general engine is off by at most this times
 * the edge's magnitude (|y0| + |y1| + |y1 - y0| (|x0| + |x1|) / (x1 - x0),
 * translated coordinates): a few roundings in the interpolation, the
 * rounded translation and the rounded slab midpoint, with room to spare.
 * Moving one edge's y by d changes the length inside both shapes by at
 * most d, and only if the edge bounds a counted interval or can pass a
 * neighbour; the slab's error is its width times the sum of those.
 */
#define PB_GENERAL_ERR_SCALE (8 * DBL_EPSILON)

/* area_exact.c: PbAreaGeneral in double-double, on untranslated coordinates. */
extern double PbAreaGeneralExact(PbScratch *s, const PbBatch *b,
								 const PbShape *p, const PbShape *q);

#endif							/* PB_GEOM_AREA_EXACT_H */
