/*
 * raster_functions.c: the SQL raster operations on raster WKB (bytea):
 * pb_reconstruct, pb_fill_holes, pb_distance_transform.  They are what the
 * pixelbox_raster extension's raster-typed functions call, and they work
 * without postgis_raster (tests on the GPU machine use them directly).
 *
 * Nodata: a nodata (or NaN) pixel of the mask is a wall: nothing
 * propagates into or through it and it keeps its value in the result; a
 * nodata marker pixel seeds nothing.  For the distance transform nodata
 * pixels are background.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "raster_glue.h"

PG_FUNCTION_INFO_V1(pb_reconstruct_wkb);
PG_FUNCTION_INFO_V1(pb_fill_holes_wkb);
PG_FUNCTION_INFO_V1(pb_distance_transform_wkb);

/*
 * Reconstruct marker (read from its WKB) under mask, walls at the mask's
 * nodata pixels, and return the result on the marker's grid with the
 * mask's nodata pixels and value.
 */
static bytea *
Reconstruct(PbRasterArg *marker, PbRasterArg *mask, int connectivity,
			PbReconOp op, const char *caller)
{
	const void *pixels[1];
	bool		has_nodata = mask->has_nodata;
	bytea	   *result;

	PbReconstructImages(&marker->img, marker->is_nodata, &mask->img, mask->is_nodata,
						connectivity, op, caller);
	pixels[0] = marker->img.data;
	result = PbRasterResult(&marker->h, 1, &mask->wkb_type, &has_nodata,
							&mask->nodata, pixels, caller);
	PbRasterReportStage("write", NULL);
	PbRasterReportEnd();
	return result;
}

/*
 * pb_reconstruct(marker bytea, mask bytea, connectivity int, method text,
 * band int): gray-scale reconstruction by dilation or erosion.
 */
Datum
pb_reconstruct_wkb(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_reconstruct";
	int			connectivity = PbConnectivityArg(PG_GETARG_INT32(2), caller);
	char	   *method = text_to_cstring(PG_GETARG_TEXT_PP(3));
	int			band = PG_GETARG_INT32(4);
	PbReconOp	op;
	PbRasterArg marker,
				mask;
	bytea	   *marker_wkb,
			   *mask_wkb;

	op = PbReconMethodArg(method, caller);
	PbRasterReportBegin(caller);
	marker_wkb = PG_GETARG_BYTEA_PP(0);
	mask_wkb = PG_GETARG_BYTEA_PP(1);
	PbRasterReportStage("detoast", NULL);
	PbReadRasterArg(marker_wkb, band, "marker", caller, &marker);
	PbReadRasterArg(mask_wkb, band, "mask", caller, &mask);
	PbCheckSameGrid(&marker, &mask, caller);
	PbRasterReportStage("read", NULL);
	PG_RETURN_BYTEA_P(Reconstruct(&marker, &mask, connectivity, op, caller));
}

/*
 * pb_fill_holes(image bytea, connectivity int, band int): reconstruction by
 * erosion of the image from its border, which fills every dark region (a
 * hole) that does not reach the border; connectivity is that of the
 * flood from the border.
 */
Datum
pb_fill_holes_wkb(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_fill_holes";
	int			connectivity = PbConnectivityArg(PG_GETARG_INT32(1), caller);
	int			band = PG_GETARG_INT32(2);
	PbRasterArg image,
				marker;
	bytea	   *image_wkb;
	PbRun		run = PbCpuRun();

	PbRasterReportBegin(caller);
	image_wkb = PG_GETARG_BYTEA_PP(0);
	PbRasterReportStage("detoast", NULL);
	PbReadRasterArg(image_wkb, band, "image", caller, &image);
	PbRasterReportStage("read", NULL);
	marker = image;
	marker.what = "marker";
	marker.img.data = PbHugeAlloc((size_t) image.img.width * image.img.height *
								  PbPixSize(image.img.type));
	PbFillHolesMarkerPar(&run, &image.img, &marker.img);
	PG_RETURN_BYTEA_P(Reconstruct(&marker, &image, connectivity, PB_RECON_ERODE, caller));
}

/*
 * pb_distance_transform(mask bytea, band int, spacing float8[], with_index
 * bool): the exact Euclidean distance of every nonzero pixel to the
 * nearest zero (or nodata) pixel, as a 32BF band; with_index adds two
 * 32BSI bands holding the column and the row (1-based, as ST_Value counts)
 * of that nearest pixel, 0 (nodata) when the image has none.
 */
Datum
pb_distance_transform_wkb(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_distance_transform";
	PbRasterArg mask;
	PbRasterBand rb;
	int			band;
	bool		with_index;
	double		sy,
				sx;
	PbDistanceBands out;
	int			types[3] = {PB_WKB_32BF, PB_WKB_32BSI, PB_WKB_32BSI};
	bool		has_nodata[3] = {false, true, true};
	double		nodata[3] = {0, 0, 0};
	const void *pixels[3];
	bytea	   *mask_wkb,
			   *result;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	band = PG_GETARG_INT32(1);
	with_index = PG_GETARG_BOOL(3);
	PbSpacingArg(PG_ARGISNULL(2) ? NULL : PG_GETARG_ARRAYTYPE_P(2), PG_ARGISNULL(2),
				 &sy, &sx, caller);
	PbRasterReportBegin(caller);
	mask_wkb = PG_GETARG_BYTEA_PP(0);
	PbRasterReportStage("detoast", NULL);
	PbOpenRasterArg(mask_wkb, band, "mask", caller, &mask, &rb);
	/* the result may be 12 times the mask: refuse it before any work */
	PbCheckResultSize(&mask.h, with_index ? 3 : 1, types, caller);
	PbLoadRasterArg(&rb, caller, &mask);
	PbRasterReportStage("read", NULL);
	PbDistanceImages(&mask.img, mask.is_nodata, sy, sx, with_index, &out, caller);
	pixels[0] = out.dist;
	pixels[1] = out.col;
	pixels[2] = out.row;
	result = PbRasterResult(&mask.h, with_index ? 3 : 1, types, has_nodata, nodata, pixels,
							caller);
	PbRasterReportStage("write", NULL);
	PbRasterReportEnd();
	PG_RETURN_BYTEA_P(result);
}
