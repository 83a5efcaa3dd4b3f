/*
 * label_oracle.h: what a traced label outline must be, checked from its
 * EWKB alone: well-formed rings (closed, axis-parallel, no collinear or
 * repeated vertices, no crossing edges), one polygon per 4-connected part
 * (found here by a flood fill), holes inside their shells, and the pixels
 * whose centres it covers (even-odd, by scanlines) exactly the label's.
 */
#ifndef PB_TEST_LABEL_ORACLE_H
#define PB_TEST_LABEL_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Check that ewkb[0, len) is the outline of the pixels of labels (w x h,
 * 4 bytes a pixel) equal to label, pixel (c, r) at [x0 + c, x0 + c + 1] x
 * [y0 + r, y0 + r + 1]; failures are failed checks.  Returns the number
 * of polygons it has (0 when it could not be read).
 */
extern int	CheckLabelOutline(const uint8_t *ewkb, size_t len, const uint32_t *labels,
							  uint32_t w, uint32_t h, uint32_t label, double x0, double y0);

/* Pixels of labels (w x h) equal to label. */
extern int64_t CountLabel(const uint32_t *labels, uint32_t w, uint32_t h, uint32_t label);

#endif							/* PB_TEST_LABEL_ORACLE_H */
