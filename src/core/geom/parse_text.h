/*
 * parse_text.h: the "parser" stage of the SCCG pipeline: one line of a
 * polygon text file (as segmentation tools write them, one file per image
 * tile) into a shape of a PbBatch.
 *
 * A line (bytes, no NUL needed; a final "\n" or "\r\n" is ignored) is one of
 *
 *   [id WS] [SRID=n;] POLYGON [Z|M|ZM] ( (x y, ...), (x y, ...) )
 *   [id WS] [SRID=n;] MULTIPOLYGON [Z|M|ZM] ( ((...),(...)), EMPTY, ... )
 *   [id WS] [SRID=n;] POLYGON EMPTY | MULTIPOLYGON EMPTY
 *       WKT; keywords case-insensitive, the tag spaced or attached
 *       ("POLYGONZ"), whitespace (space, \t, \r, \n, \v, \f) allowed between
 *       any two tokens, spaces also around '=' and ';'.  Points have 2 to 4
 *       ordinates, the same number throughout (from the tag, else from the
 *       first point); only x and y are kept.  As in PostGIS, every ring
 *       needs at least 4 points and must be closed.  Other types (POINT,
 *       LINESTRING, GEOMETRYCOLLECTION, TRIANGLE, curves, ...) are
 *       PB_ERR_UNSUPPORTED, naming the type.
 *   id x1 y1 x2 y2 ... xn yn
 *       one ring of a Polygon, numbers separated by whitespace and/or one
 *       comma; closed by repeating the first point when the last one
 *       differs; at least 3 distinct points.
 *   empty, all whitespace, or '#' as first non-blank byte
 *       skipped: *kind = PB_LINE_SKIP, nothing added.
 *
 * SRID n is a decimal int32.  id is a decimal int64 ([+-]digits), followed
 * by whitespace (before WKT) or whitespace or a comma (before a list).
 * Numbers are decimal:
 * [+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits], converted
 * exactly as a correctly rounded strtod in the C locale would, whatever
 * LC_NUMERIC says; nan / inf / infinity and numbers beyond the double
 * range are PB_ERR_NONFINITE.  Anything else is PB_ERR_FORMAT.
 *
 * The shape is the one PbDecodeEwkb builds from the same polygon's EWKB
 * (same kind, rings, points, area, box, type and SRID).
 */
#ifndef PB_PARSE_TEXT_H
#define PB_PARSE_TEXT_H

#include "batch.h"
#include "ewkb_write.h"

/* What a successfully parsed line held. */
typedef enum PbTextLineKind
{
	PB_LINE_POLYGON,			/* a polygon: *shape is its index */
	PB_LINE_SKIP				/* blank or comment line: no shape added */
} PbTextLineKind;

/*
 * Parse one line (len bytes, no terminating NUL required, may end with \n
 * or \r\n) into a new shape of batch b.  *id gets the line's id (for WKT
 * without an id: 0 and *has_id = 0).  On error returns the status with
 * err->message describing the problem and the column (1-based byte offset)
 * where it was found, and leaves the batch unchanged; *id and *has_id then
 * still say which id the line had when it was read before the error.
 * *shape is UINT32_MAX unless *kind is PB_LINE_POLYGON.
 */
extern PbStatus PbParseTextLine(PbBatch *b, const char *line, size_t len,
								PbTextLineKind *kind, int64_t *id,
								int *has_id, uint32_t *shape, PbError *err);

/*
 * The same, also writing a polygon line's geometry as EWKB into wkb
 * (emptied first; its contents are undefined after an error): the WKT's
 * type, SRID, Z and M ordinates and EMPTY parts, or a list's closed ring
 * as a Polygon.  A ring's closing point repeats its first point's x and y
 * bit for bit (the parser takes -0 and 0 as the same point; PostGIS's
 * closure test would not).
 */
extern PbStatus PbParseTextLineEwkb(PbBatch *b, const char *line, size_t len,
									PbTextLineKind *kind, int64_t *id,
									int *has_id, uint32_t *shape, PbEwkb *wkb,
									PbError *err);

#endif							/* PB_PARSE_TEXT_H */
