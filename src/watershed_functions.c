/*
 * watershed_functions.c: pb_watershed on raster WKB (bytea), what the
 * pixelbox_raster extension's raster-typed pb_watershed calls; it works
 * without postgis_raster (tests on the GPU machine use it directly).
 *
 * The image band (1BB, 8BUI, 16BUI, 32BF) gives the heights; its nodata
 * and NaN pixels are walls (label 0), and so are the pixels outside the
 * optional mask (band 1, any type: inside = nonzero, not nodata, not
 * NaN).  Optional markers (band 1, an integer type): nonzero, non-nodata
 * pixels seed their label.  The result is one band of label_type with
 * nodata 0 on the image's grid.  The definition is
 * src/core/raster/watershed.h; the per-pixel reading of markers and mask
 * is src/core/raster/nodata.c.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "raster_glue.h"

PG_FUNCTION_INFO_V1(pb_watershed_wkb);

/* The WKB pixel type of the labels a label_type argument names. */
static int
LabelType(const char *name, const char *caller)
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
 * Read the markers argument (band 1, an integer type, on the image's
 * grid) into one label per pixel: 0 for no marker and for nodata pixels.
 */
static uint32 *
ReadMarkers(bytea *wkb, const PbRasterArg *image, const char *caller)
{
	PbRasterArg arg;
	PbRasterBand rb;
	int64		npix;
	uint32	   *labels;
	int64		bad;
	double		v;
	PbRun		run = PbCpuRun();

	PbOpenRasterArg(wkb, 1, "markers", caller, &arg, &rb);
	if (rb.wkb_type == PB_WKB_32BF || rb.wkb_type == PB_WKB_64BF)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: band 1 of markers has pixel type %s, but markers must be integer labels",
						caller, PbWkbPixName(rb.wkb_type)),
				 errhint("Marker pixel types: 1BB, 2BUI, 4BUI, 8BUI, 8BSI, 16BUI, 16BSI, 32BUI, 32BSI.")));
	PbCheckAligned(image, &arg, caller);
	npix = (int64) arg.h.width * arg.h.height;
	labels = PbHugeAlloc(sizeof(uint32) * (size_t) npix);
	bad = PbWsMarkerLabelsPar(&run, &rb, npix, labels, &v);
	if (bad >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: markers has a negative label (%.0f) at column %d, row %d",
						caller, v, (int) (bad % arg.h.width) + 1,
						(int) (bad / arg.h.width) + 1),
				 errhint("Marker labels are positive; 0 or nodata marks no marker.")));
	return labels;
}

/*
 * Mark in wall the pixels outside the mask argument (band 1, any type, on
 * the image's grid): zero, nodata or NaN.
 */
static void
ReadMask(bytea *wkb, const PbRasterArg *image, uint8 *wall, const char *caller)
{
	PbRasterArg arg;
	PbRasterBand rb;
	PbRun		run = PbCpuRun();

	PbOpenRasterArg(wkb, 1, "mask", caller, &arg, &rb);
	PbCheckAligned(image, &arg, caller);
	PbWsMaskWallsPar(&run, &rb, (int64) arg.h.width * arg.h.height, wall);
}

/*
 * The labels as a band of label_type: an error when one does not fit;
 * narrower types are copied into a new buffer.
 */
static const void *
NarrowLabels(const uint32 *labels, int64 npix, int label_type, const char *caller)
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
 * pb_watershed(image bytea, markers bytea, connectivity int, mask bytea,
 * watershed_line bool, band int, label_type text): the watershed labels of
 * one band of image, marker-less when markers is NULL, as a raster WKB of
 * label_type with nodata 0.  A NULL image (or option) gives NULL.
 */
Datum
pb_watershed_wkb(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_watershed";
	PbRasterArg image;
	PbRasterBand rb;
	PbWatershedSpec spec;
	int			label_type;
	int64		npix;
	uint8	   *wall;
	uint32	   *labels;
	bool		has_nodata = true;
	double		nodata = 0;
	const void *pixels[1];
	bytea	   *image_wkb,
			   *mask_wkb,
			   *markers_wkb,
			   *result;
	PbRun		run = PbCpuRun();

	if (PG_ARGISNULL(0) || PG_ARGISNULL(2) || PG_ARGISNULL(4) || PG_ARGISNULL(5) ||
		PG_ARGISNULL(6))
		PG_RETURN_NULL();
	memset(&spec, 0, sizeof(spec));
	spec.connectivity = PbConnectivityArg(PG_GETARG_INT32(2), caller);
	spec.lines = PG_GETARG_BOOL(4);
	label_type = LabelType(text_to_cstring(PG_GETARG_TEXT_PP(6)), caller);
	PbRasterReportBegin(caller);
	image_wkb = PG_GETARG_BYTEA_PP(0);
	mask_wkb = PG_ARGISNULL(3) ? NULL : PG_GETARG_BYTEA_PP(3);
	markers_wkb = PG_ARGISNULL(1) ? NULL : PG_GETARG_BYTEA_PP(1);
	PbRasterReportStage("detoast", NULL);
	PbOpenRasterArg(image_wkb, PG_GETARG_INT32(5), "image", caller, &image, &rb);
	/* the labels may be 4 times the image: refuse them before any work */
	PbCheckResultSize(&image.h, 1, &label_type, caller);
	PbLoadRasterArg(&rb, caller, &image);
	npix = (int64) image.img.width * image.img.height;
	wall = image.is_nodata;		/* nodata and NaN heights */
	if (mask_wkb != NULL)
	{
		if (wall == NULL)
		{
			wall = PbHugeAlloc((size_t) npix);
			PbZeroPar(&run, wall, (size_t) npix);
		}
		ReadMask(mask_wkb, &image, wall, caller);
	}
	if (markers_wkb != NULL)
		spec.markers = ReadMarkers(markers_wkb, &image, caller);
	spec.image = image.img;
	spec.wall = wall;
	/* mapped on threads now, not page by page as the labels come in */
	labels = PbHugeAlloc(sizeof(uint32) * (size_t) npix);
	PbZeroPar(&run, labels, sizeof(uint32) * (size_t) npix);
	PbRasterReportStage("read", NULL);
	PbRunWatershed(&spec, labels, caller);
	pixels[0] = NarrowLabels(labels, npix, label_type, caller);
	PbRasterReportStage("finish", NULL);
	result = PbRasterResult(&image.h, 1, &label_type, &has_nodata, &nodata, pixels, caller);
	PbRasterReportStage("write", NULL);
	PbRasterReportEnd();
	PG_RETURN_BYTEA_P(result);
}
