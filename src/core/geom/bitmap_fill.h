/*
 * bitmap_fill.h: the edge flags of one integer shape over a window, the
 * first step of the edge-flag engine (internal to the geometry core; used
 * by area_bitmap.c and bitmap_solid.c, by the rules of bitmap_rules.h).
 */
#ifndef PB_GEOM_BITMAP_FILL_H
#define PB_GEOM_BITMAP_FILL_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"

/* Integer bounds of a window [x0,x1) x [y0,y1). */
typedef struct PbIWindow
{
	int64_t		x0,
				y0,
				x1,
				y1;
} PbIWindow;

/*
 * Flip the edge flags of every vertical edge of shape s of batch b into
 * bits, nw words a row, rows from w's top plus a spare row past them: the
 * caller zeroes the bitmap, then a prefix XOR down each column and along
 * each row leaves the shape's pixels.
 */
extern void PbBitmapFillFlags(PbScratch *sc, uint64_t *bits, size_t nw, const PbBatch *b,
							  const PbShape *s, const PbIWindow *w);

#endif							/* PB_GEOM_BITMAP_FILL_H */
