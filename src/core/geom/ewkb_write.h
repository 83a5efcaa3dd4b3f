/*
 * ewkb_write.h: EWKB written while a polygon text line is parsed
 * (parse_text.h), so pb_read_polygons hands PostGIS the very geometry the
 * parser accepted, Z, M, SRID and EMPTY parts included, without a second
 * parser reading the text.
 *
 * The bytes are in the host's byte order (the order byte says which).
 * Counts are written as placeholders and set when known; the Z and M
 * flags of every type word are set at the end (an untagged WKT geometry
 * gets its dimensions from its first point).
 */
#ifndef PB_EWKB_WRITE_H
#define PB_EWKB_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"

/* A growing EWKB value. */
typedef struct PbEwkb
{
	const PbAllocator *mem;
	uint8_t    *data;
	size_t		len,
				cap;
} PbEwkb;

extern void PbEwkbInit(PbEwkb *w, const PbAllocator *mem);
extern void PbEwkbFree(PbEwkb *w);

/* Start a geometry: order byte, type word, and the SRID when not 0. */
extern void PbEwkbHeader(PbEwkb *w, int geomtype, int32_t srid);

/* A count to be set later; returns its offset. */
extern size_t PbEwkbCountSlot(PbEwkb *w);
extern void PbEwkbSetCount(PbEwkb *w, size_t slot, uint32_t n);

/* Append n ordinates. */
extern void PbEwkbDoubles(PbEwkb *w, const double *v, int n);

/*
 * Make the last point of the ring whose count is at slot (npoints points
 * of dims ordinates) repeat the first point's x and y bit for bit, as
 * PostGIS's closure test wants (its memcmp tells -0 from 0).
 */
extern void PbEwkbCloseRing(PbEwkb *w, size_t slot, uint32_t npoints, int dims);

/*
 * Set the Z and M flags of every type word of the polygon or multipolygon
 * starting at offset start, whose points have dims ordinates.
 */
extern void PbEwkbSetDims(PbEwkb *w, size_t start, int hasz, int hasm, int dims);

#endif							/* PB_EWKB_WRITE_H */
