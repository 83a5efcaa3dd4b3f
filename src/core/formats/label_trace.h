/*
 * label_trace.h: pixel sets to polygons along pixel edges, exactly: the
 * outline of a label image's objects (StarDist, Cellpose) and of a contour
 * filled to its pixels (HoVer-Net), in image coordinates (x to the right,
 * y down, pixel (c, r) being the square [c, c + 1] x [r, r + 1]), as
 * QuPath and the label image itself see them.
 */
#ifndef PB_LABEL_TRACE_H
#define PB_LABEL_TRACE_H

#include <stdint.h>

#include "../base/pb_base.h"
#include "../geom/ewkb_write.h"

/* The longest side of an image the tracer takes (vertices fit int32). */
#define PB_TRACE_MAX_SIDE ((uint32_t) 1 << 30)

/*
 * Append to out the EWKB (SRID 0) of the outline of the nonzero pixels of
 * mask (width x height bytes, row-major, row 0 at the top), pixel (c, r)
 * being the square [x0 + c, x0 + c + 1] x [y0 + r, y0 + r + 1]: a POLYGON
 * (with its holes) when the pixels are one 4-connected part, a
 * MULTIPOLYGON otherwise; pixels touching only at a corner are separate
 * parts, so every ring is simple and the geometry valid.  An empty mask,
 * or a side of 0 or over PB_TRACE_MAX_SIDE, is PB_ERR_BADARG.  Scratch
 * memory (a byte a pixel, and the rings) comes from out->mem.
 */
extern PbStatus PbTraceMask(const uint8_t *mask, uint32_t width, uint32_t height,
							double x0, double y0, PbEwkb *out, PbError *err);

#endif							/* PB_LABEL_TRACE_H */
