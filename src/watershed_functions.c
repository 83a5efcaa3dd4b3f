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

/*
 * Read the markers argument (band 1, an integer type, on the image's
 * grid) into one label per pixel: 0 for no marker and for nodata pixels.
 */
static uint32 *
ReadMarkers(bytea *wkb, const PbRasterArg *image, const char *caller)
{
	PbRasterArg arg;
	PbRasterBand rb;

	PbOpenRasterArg(wkb, 1, "markers", caller, &arg, &rb);
	PbCheckMarkerType(&rb, "markers", caller);
	PbCheckAligned(image, &arg, caller);
	return PbMarkerLabels(&rb, arg.h.width, arg.h.height, caller);
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
	label_type = PbLabelTypeArg(text_to_cstring(PG_GETARG_TEXT_PP(6)), caller);
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
	PbRasterReportStage("read", NULL);
	labels = PbWatershedImages(&spec, caller);
	pixels[0] = PbNarrowLabels(labels, npix, label_type, caller);
	PbRasterReportStage("finish", NULL);
	result = PbRasterResult(&image.h, 1, &label_type, &has_nodata, &nodata, pixels, caller);
	PbRasterReportStage("write", NULL);
	PbRasterReportEnd();
	PG_RETURN_BYTEA_P(result);
}
