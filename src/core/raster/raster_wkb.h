/*
 * raster_wkb.h: reading and writing PostGIS raster WKB (the documented
 * format of ST_AsWKB(raster) / ST_RastFromWKB, version 0), pure C.
 *
 * Layout: endianness byte (0 XDR, 1 NDR), uint16 version, uint16 band
 * count, six doubles (scale x, scale y, upper-left x, upper-left y, skew
 * x, skew y), int32 SRID, uint16 width, uint16 height; then per band a
 * flags byte (pixel type in the low 4 bits, 0x80 out-of-db, 0x40 has
 * nodata, 0x20 every pixel is nodata), the nodata value in the band's
 * pixel type, and either width * height pixels (one byte each for the
 * sub-byte types) or, out-of-db, a band number byte and a NUL-terminated
 * path.
 */
#ifndef PB_RASTER_WKB_H
#define PB_RASTER_WKB_H

#include <stdbool.h>

#include "../base/pb_base.h"
#include "image.h"

/* PostGIS pixel type codes, as in the flags byte. */
typedef enum PbWkbPixType
{
	PB_WKB_1BB = 0, PB_WKB_2BUI = 1, PB_WKB_4BUI = 2, PB_WKB_8BSI = 3,
	PB_WKB_8BUI = 4, PB_WKB_16BSI = 5, PB_WKB_16BUI = 6, PB_WKB_32BSI = 7,
	PB_WKB_32BUI = 8, PB_WKB_32BF = 10, PB_WKB_64BF = 11
} PbWkbPixType;

/* The raster-wide header: georeference, SRID, size. */
typedef struct PbRasterHeader
{
	double		scale_x,
				scale_y,
				ul_x,
				ul_y,
				skew_x,
				skew_y;
	int32_t		srid;
	int32_t		width;
	int32_t		height;
	int32_t		nbands;
} PbRasterHeader;

/* One band as found in the WKB (pixels point into it, in its byte order). */
typedef struct PbRasterBand
{
	int			wkb_type;		/* PbWkbPixType code */
	bool		offline;		/* out-of-db: no pixels here */
	bool		has_nodata;
	bool		all_nodata;		/* the "is nodata" flag: every pixel is nodata */
	double		nodata;			/* the nodata value, as a double */
	const uint8_t *pixels;		/* width * height values, or NULL when offline */
	bool		swap;			/* pixels are in the other byte order */
} PbRasterBand;

/* Bytes one pixel of a WKB pixel type takes in WKB (0: unknown type). */
int			PbWkbPixBytes(int wkb_type);

/* The PostGIS name of a WKB pixel type ("8BUI"), or "unknown". */
const char *PbWkbPixName(int wkb_type);

/*
 * Parse the header of a raster WKB and check that the whole value is
 * well-formed (every band complete, sub-byte pixels within their type,
 * nothing after the last one).
 */
bool		PbRasterParseHeader(const uint8_t *wkb, size_t len, PbRasterHeader *h,
								PbError *err);

/* Locate band number band (1-based) of a raster PbRasterParseHeader accepted. */
bool		PbRasterGetBand(const uint8_t *wkb, size_t len, int band,
							PbRasterBand *out, PbError *err);

/*
 * The pixel type pixelbox computes in for a WKB type (1BB, 8BUI, 16BUI,
 * 32BF); false for the others.
 */
bool		PbRasterComputeType(int wkb_type, PbPixType *type);

/*
 * Copy a band's pixels, native byte order, into out (width * height
 * pixels of the compute type; -0 becomes 0); also mark nodata pixels
 * (NaN counts as nodata for 32BF) in is_nodata when it is not NULL.  Returns the number
 * of nodata pixels.
 */
int64_t		PbRasterReadBand(const PbRasterBand *band, int64_t npixels,
							 void *out, uint8_t *is_nodata);

/*
 * Whether PbRasterReadBand can mark nodata pixels in a band: it has a
 * nodata value or the all-nodata flag, or holds floats (NaN); when not,
 * callers skip the per-pixel flags.
 */
bool		PbRasterBandMayHaveNodata(const PbRasterBand *band);

/*
 * Pixels [start, start + n) of an in-db band of any WKB pixel type, as
 * doubles in native order (exact for every type but 64BF, which is a
 * double already).
 */
void		PbRasterBandValues(const PbRasterBand *band, int64_t start, int64_t n,
							   double *out);

/* Bytes of a raster WKB with the given bands (their WKB types). */
size_t		PbRasterWkbSize(const PbRasterHeader *h, int nbands, const int *wkb_types);

/*
 * Write the header (h's georeference and size, nbands bands) in NDR order;
 * returns where the first band goes.
 */
uint8_t    *PbRasterWriteHeader(uint8_t *out, const PbRasterHeader *h, int nbands);

/*
 * Write one band of wkb_type 1BB, 8BUI, 16BUI, 32BSI, 32BUI or 32BF (what
 * the operations produce): flags, nodata value, and npixels pixels taken from
 * native-order values (none: pixels == NULL writes zeros); returns where
 * the next band goes.
 */
uint8_t    *PbRasterWriteBand(uint8_t *out, int wkb_type, bool has_nodata,
							  double nodata, const void *pixels, int64_t npixels);

/*
 * The pixels part of PbRasterWriteBand: npixels pixels at out (a band's
 * pixels, or a slice of them); returns the byte after them.
 */
uint8_t    *PbRasterWritePixels(uint8_t *out, int wkb_type, const void *pixels,
								int64_t npixels);

#endif							/* PB_RASTER_WKB_H */
