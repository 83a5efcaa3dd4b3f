/*
 * json_hovernet.h: one nucleus of a HoVer-Net JSON file ("nuc": {"<id>":
 * {"bbox", "centroid", "contour", "type_prob", "type"}}) made into a
 * record: its id, type and type_prob (null: SQL NULL) and its polygon.
 *
 * HoVer-Net writes a contour as cv2.findContours gives it: the centres of
 * the outline's pixels (x the column, y the row), not closed.  Two
 * polygons can be made of it:
 *  - pixel edges (the default): the pixels the contour covers, filled as
 *    HoVer-Net's own evaluation fills it (cv2.drawContours, thickness -1:
 *    centres inside or on the contour; contour_fill.h), outlined along
 *    pixel edges (label_trace.h), pixel (c, r) being the square
 *    [c, c + 1] x [r, r + 1] as in QuPath's GeoJSON and label images; a
 *    POLYGON, or a MULTIPOLYGON where the pixels touch only at corners;
 *    the contour's vertices must then be integers;
 *  - as written: the contour itself, closed, vertices unchanged.
 * A contour of fewer than 3 distinct points is an error: HoVer-Net skips
 * those when it writes, so one means a damaged file.
 */
#ifndef PB_JSON_HOVERNET_H
#define PB_JSON_HOVERNET_H

#include "json_numbers.h"
#include "json_record.h"

struct json_object;

/*
 * Make nucleus id (its member name) into rec (empty on entry); nums holds
 * the numeric arrays PbNumSubstitute took from its bytes.
 */
extern PbStatus PbHoverNetNucleus(const char *id, struct json_object *nucleus,
								  const PbJsonOptions *opt, PbNumTree *nums,
								  PbJsonRecord *rec, PbError *err);

#endif							/* PB_JSON_HOVERNET_H */
