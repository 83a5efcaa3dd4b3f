/*
 * contour_fill.h: the pixels a closed contour through pixel centres
 * covers, as cv2.drawContours(..., thickness=-1) fills a contour that
 * cv2.findContours traced (HoVer-Net's evaluation does so): pixel (c, r),
 * whose centre is the point (c, r) in the contour's coordinates (x the
 * column, y the row), is covered when its centre lies inside the closed
 * polygon through the vertices or on one of its edges.
 *
 * Exact in integers: vertices must be integers within +-2^30; a row's
 * edge crossings are compared as floor and "exact or not", which is all
 * that decides the pixel centres between two crossings.  The cost is the
 * bounding box plus the edges' lattice points and rows.
 */
#ifndef PB_CONTOUR_FILL_H
#define PB_CONTOUR_FILL_H

#include <stdint.h>

#include "../base/pb_base.h"

/* The most pixels a filled contour's bounding box may have. */
#define PB_FILL_MAX_PIXELS ((uint64_t) 1 << 28)

/*
 * The most its edges may measure, |dx| + |dy| summed (a nucleus's outline
 * is a few hundred; the fill's work and memory grow with it, so a contour
 * zig-zagging across its box is refused rather than filled).
 */
#define PB_FILL_MAX_EDGE_WORK ((uint64_t) 1 << 24)

/* The covered pixels of a contour's bounding box. */
typedef struct PbFilled
{
	uint8_t    *mask;			/* width x height, row-major, 1: covered */
	uint32_t	width,
				height;
	int64_t		x0,				/* the column and row of mask[0] */
				y0;
} PbFilled;

/*
 * Fill the closed polygon through the n >= 1 integer vertices xy (x, y
 * pairs).  PB_ERR_BADARG when a vertex is out of range, the bounding box
 * has more than PB_FILL_MAX_PIXELS pixels or the edges measure more than
 * PB_FILL_MAX_EDGE_WORK (err says which); the mask comes
 * from mem, freed by the caller.
 */
extern PbStatus PbFillContour(const int64_t *xy, uint32_t n, const PbAllocator *mem,
							  PbFilled *out, PbError *err);

#endif							/* PB_CONTOUR_FILL_H */
