/*
 * nodata.h: the per-pixel nodata passes of the raster operations, in the
 * core so that the glue only hands values between PostgreSQL and the
 * core: the walls a reconstruction puts at nodata pixels and the mask
 * values it restores there, the fill-holes marker, the distance
 * transform's foreground and its nearest-pixel bands, and the watershed's
 * markers and mask read from bands of any WKB pixel type.  Callers own
 * every buffer.
 */
#ifndef PB_RASTER_NODATA_H
#define PB_RASTER_NODATA_H

#include <stdbool.h>
#include <stdint.h>

#include "image.h"
#include "raster_wkb.h"

/*
 * Before reconstructing marker under mask: pixels flagged in
 * marker_nodata seed nothing and pixels flagged in mask_nodata are walls
 * (nothing propagates into or through them), both by taking the value
 * that never wins under op (the lowest of the type for dilation, the
 * highest for erosion).  The mask's own values at its nodata pixels go to
 * saved (one float per pixel), for PbReconRestoreNodata.  Either flag
 * array may be NULL (no nodata pixel); saved is needed with mask_nodata.
 */
void		PbReconNodataWalls(PbImage *marker, const uint8_t *marker_nodata,
							   PbImage *mask, const uint8_t *mask_nodata,
							   PbReconOp op, float *saved);

/*
 * After the reconstruction: the mask's nodata pixels of the result take
 * back the mask's values that PbReconNodataWalls saved.
 */
void		PbReconRestoreNodata(PbImage *result, const uint8_t *mask_nodata,
								 const float *saved);

/*
 * The marker that fills the holes of image by reconstruction by erosion:
 * image's border pixels, the highest value of its type inside.  marker
 * has image's size and type and its own pixels.
 */
void		PbFillHolesMarker(const PbImage *image, PbImage *marker);
void		PbFillHolesMarkerRows(const PbImage *image, PbImage *marker, int32_t y0,
								  int32_t y1);

/*
 * The foreground of a mask for the distance transform into fg (one byte
 * per pixel): its nonzero pixels that are not flagged in nodata (may be
 * NULL).
 */
void		PbDistanceForeground(const PbImage *mask, const uint8_t *nodata,
								 uint8_t *fg);

/*
 * The distance transform's nearest background pixels (y * width + x, -1
 * for none) as two bands: the 1-based column and row (as ST_Value counts
 * them), 0 (the bands' nodata) where there is none.
 */
void		PbDistanceNearestBands(const int64_t *nearest, int64_t npixels,
								   int32_t width, int32_t *col, int32_t *row);

/*
 * The watershed's labels from a markers band (any WKB pixel type) of
 * npixels pixels: 0 for no marker and for nodata (and NaN) pixels, else
 * the value.  Returns -1, or the index of the first pixel holding a
 * negative value, with that value in *negative (labels then incomplete).
 */
int64_t		PbWsMarkerLabels(const PbRasterBand *band, int64_t npixels,
							 uint32_t *labels, double *negative);

/*
 * Add to wall (one byte per pixel, |= 1) the pixels outside the
 * watershed's mask band (any WKB pixel type): zero, nodata or NaN.
 */
void		PbWsMaskWalls(const PbRasterBand *band, int64_t npixels, uint8_t *wall);

#endif							/* PB_RASTER_NODATA_H */
