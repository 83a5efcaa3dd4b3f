/*
 * raster_ops.c: the raster operations on images already read, shared by
 * the functions on one raster value (raster_functions.c,
 * watershed_functions.c) and the coverage functions (coverage_functions.c):
 * the nodata rules around each run, the result bands, and the options
 * both kinds of function take (spacing, label type).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"

#include "raster_glue.h"

/*
 * Reconstruct marker under mask in place: nodata marker pixels seed
 * nothing, nodata mask pixels are walls and keep their own value in the
 * result (either flag array may be NULL: no nodata pixel).
 */
void
PbReconstructImages(PbImage *marker, const uint8 *marker_nodata, PbImage *mask,
					const uint8 *mask_nodata, int connectivity, PbReconOp op,
					const char *caller)
{
	int64		npix = (int64) mask->width * mask->height;
	float	   *saved = NULL;	/* the mask's own values at its nodata pixels */
	PbRun		run = PbCpuRun();

	if (mask_nodata)
		saved = PbHugeAlloc(sizeof(float) * (size_t) npix);
	PbReconNodataWalls(marker, marker_nodata, mask, mask_nodata, op, saved);
	if (PbReconClipPar(&run, marker, mask, op) != PB_OK)
		elog(ERROR, "%s: marker and mask images do not match", caller);
	PbRasterReportStage("prepare", NULL);
	PbRunReconstruct(marker, mask, connectivity, op, caller);
	if (mask_nodata)
	{
		PbReconRestoreNodata(marker, mask_nodata, saved);
		PbHugeFree(saved);
	}
	PbRasterReportStage("finish", NULL);
}

/*
 * The exact distance transform of mask (nonzero = foreground; nodata
 * pixels, flagged in nodata when it is not NULL, are background) into
 * out: the distances, and with_index the 1-based column and row of each
 * pixel's nearest background pixel (0 where there is none).
 */
void
PbDistanceImages(const PbImage *mask, const uint8 *nodata, double sy, double sx,
				 bool with_index, PbDistanceBands *out, const char *caller)
{
	int64		npix = (int64) mask->width * mask->height;
	uint8	   *fg;
	int64	   *nearest = NULL;
	PbRun		run = PbCpuRun();

	memset(out, 0, sizeof(*out));
	fg = PbHugeAlloc((size_t) npix);
	PbDistanceForegroundPar(&run, mask, nodata, fg);
	CHECK_FOR_INTERRUPTS();
	/* mapped on threads now, not page by page as the results come in */
	out->dist = PbHugeAlloc(sizeof(float) * (size_t) npix);
	PbZeroPar(&run, out->dist, sizeof(float) * (size_t) npix);
	if (with_index)
	{
		nearest = PbHugeAlloc(sizeof(int64) * (size_t) npix);
		PbZeroPar(&run, nearest, sizeof(int64) * (size_t) npix);
	}
	PbRasterReportStage("prepare", NULL);
	PbRunDistance(fg, mask->width, mask->height, sy, sx, out->dist, nearest, caller);
	PbHugeFree(fg);
	if (with_index)
	{
		out->col = PbHugeAlloc(sizeof(int32) * (size_t) npix);
		out->row = PbHugeAlloc(sizeof(int32) * (size_t) npix);
		PbDistanceNearestBands((const int64_t *) nearest, npix, mask->width, out->col,
							   out->row);
		PbHugeFree(nearest);
		CHECK_FOR_INTERRUPTS();
	}
	PbRasterReportStage("finish", NULL);
}

/*
 * The watershed labels of spec (its image width * height), zeroed on
 * threads before the run so that the pages are mapped in parallel.
 */
uint32 *
PbWatershedImages(const PbWatershedSpec *spec, const char *caller)
{
	int64		npix = (int64) spec->image.width * spec->image.height;
	uint32	   *labels = PbHugeAlloc(sizeof(uint32) * (size_t) npix);
	PbRun		run = PbCpuRun();

	PbZeroPar(&run, labels, sizeof(uint32) * (size_t) npix);
	PbRasterReportStage("prepare", NULL);
	PbRunWatershed(spec, labels, caller);
	return labels;
}

/*
 * Refuse a markers band that does not hold integer labels; what names it
 * in the message ("markers", or which tile's markers).
 */
void
PbCheckMarkerType(const PbRasterBand *rb, const char *what, const char *caller)
{
	if (rb->wkb_type == PB_WKB_32BF || rb->wkb_type == PB_WKB_64BF)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: band 1 of %s has pixel type %s, but markers must be integer labels",
						caller, what, PbWkbPixName(rb->wkb_type)),
				 errhint("Marker pixel types: 1BB, 2BUI, 4BUI, 8BUI, 8BSI, 16BUI, 16BSI, 32BUI, 32BSI.")));
}

/*
 * The labels of a markers band of width x height pixels (checked by
 * PbCheckMarkerType): 0 for no marker and for nodata pixels, an error at
 * the first negative label.
 */
uint32 *
PbMarkerLabels(const PbRasterBand *rb, int32 width, int32 height, const char *caller)
{
	int64		npix = (int64) width * height;
	uint32	   *labels = PbHugeAlloc(sizeof(uint32) * (size_t) npix);
	int64		bad;
	double		v;
	PbRun		run = PbCpuRun();

	bad = PbWsMarkerLabelsPar(&run, rb, npix, labels, &v);
	if (bad >= 0)
		PbRefuseNegativeMarker(v, bad, width, "", "", caller);
	return labels;
}

/*
 * The error of a negative marker label v at pixel index i of a band width
 * pixels wide; prefix and suffix place it (a slide, a tile) or are "".
 */
void
PbRefuseNegativeMarker(double v, int64 i, int32 width, const char *prefix, const char *suffix,
					   const char *caller)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %smarkers has a negative label (%.0f) at column %d, row %d%s",
					caller, prefix, v, (int) (i % width) + 1, (int) (i / width) + 1, suffix),
			 errhint("Marker labels are positive; 0 or nodata marks no marker.")));
}

/* The operation a reconstruction's method argument names. */
PbReconOp
PbReconMethodArg(const char *method, const char *caller)
{
	if (strcmp(method, "dilation") == 0)
		return PB_RECON_DILATE;
	if (strcmp(method, "erosion") == 0)
		return PB_RECON_ERODE;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: method must be 'dilation' or 'erosion', not '%s'",
					caller, method)));
	return PB_RECON_DILATE;
}

/* The WKB pixel type of the labels a label_type argument names. */
int
PbLabelTypeArg(const char *name, const char *caller)
{
	if (pg_strcasecmp(name, "32BUI") == 0)
		return PB_WKB_32BUI;
	if (pg_strcasecmp(name, "16BUI") == 0)
		return PB_WKB_16BUI;
	if (pg_strcasecmp(name, "8BUI") == 0)
		return PB_WKB_8BUI;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: label_type must be '32BUI', '16BUI' or '8BUI', not '%s'",
					caller, name)));
	return 0;
}

/*
 * The labels as a band of label_type: an error when one does not fit;
 * narrower types are copied into a new buffer.
 */
const void *
PbNarrowLabels(const uint32 *labels, int64 npix, int label_type, const char *caller)
{
	uint32		top = label_type == PB_WKB_8BUI ? PG_UINT8_MAX :
		label_type == PB_WKB_16BUI ? PG_UINT16_MAX : PG_UINT32_MAX;
	uint32		most = 0;

	if (label_type == PB_WKB_32BUI)
		return labels;
	for (int64 i = 0; i < npix; i++)
		most = Max(most, labels[i]);
	if (most > top)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s: label overflow: label %u does not fit in %s (at most %u)",
						caller, most, PbWkbPixName(label_type), top),
				 errhint("Use a wider label_type ('32BUI' holds every label).")));
	if (label_type == PB_WKB_16BUI)
	{
		uint16	   *out = PbHugeAlloc(sizeof(uint16) * (size_t) npix);

		for (int64 i = 0; i < npix; i++)
			out[i] = (uint16) labels[i];
		return out;
	}
	else
	{
		uint8	   *out = PbHugeAlloc((size_t) npix);

		for (int64 i = 0; i < npix; i++)
			out[i] = (uint8) labels[i];
		return out;
	}
}

/*
 * Read a spacing argument: NULL (as isnull says) gives {1, 1}, else it
 * must hold two positive finite numbers, {row step, column step}.
 */
void
PbSpacingArg(ArrayType *a, bool isnull, double *sy, double *sx, const char *caller)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	*sy = *sx = 1.0;
	if (isnull)
		return;
	deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	if (n != 2 || nulls[0] || nulls[1] ||
		!(DatumGetFloat8(elems[0]) > 0) || !(DatumGetFloat8(elems[1]) > 0) ||
		isinf(DatumGetFloat8(elems[0])) || isinf(DatumGetFloat8(elems[1])))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: spacing must hold two positive numbers: the row step and the column step",
						caller)));
	*sy = DatumGetFloat8(elems[0]);
	*sx = DatumGetFloat8(elems[1]);
}
