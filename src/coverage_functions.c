/*
 * coverage_functions.c: the coverage functions, the raster operations over
 * a tiles query of one or many slides (coverage_glue.h):
 * pb_coverage_reconstruct, pb_coverage_fill_holes,
 * pb_coverage_distance_transform and pb_coverage_watershed.  Each slide
 * runs as one image through the same code as the functions on one raster
 * value (raster_ops.c), so its answer is theirs on the slide's mosaic,
 * pixel for pixel; the rows are the input tiles' cut of it.  pixelbox
 * declares them returning raster WKB (the _wkb names), pixelbox_raster
 * returning rasters; the same C functions serve both.
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "coverage_glue.h"

PG_FUNCTION_INFO_V1(pb_coverage_reconstruct);
PG_FUNCTION_INFO_V1(pb_coverage_fill_holes);
PG_FUNCTION_INFO_V1(pb_coverage_distance_transform);
PG_FUNCTION_INFO_V1(pb_coverage_watershed);

/* The roles of a reconstruction: marker and mask, of one pixel type. */
static const PbCoverageRole recon_roles[] = {{"marker", true, false}, {"mask", true, true}};

/* The roles of the operations on one raster column. */
static const PbCoverageRole rast_roles[] = {{"rast", true, false}};

/* The roles of a watershed: heights, and optional markers and mask. */
static const PbCoverageRole ws_roles[] = {
	{"rast", true, false}, {"markers", false, false}, {"mask", false, false}
};

/*
 * Reconstruct each slide's marker (from its load) under mask and write the
 * tiles, with the mask's pixel type and nodata.
 */
static void
ReconstructSlides(PbCoverageCall *call, int connectivity, PbReconOp op, bool fill_holes)
{
	for (int64 k = 0; k < call->nslides; k++)
	{
		PbCoverageSlide s;
		MemoryContext old;
		PbImage		marker,
					mask;
		uint8	   *marker_nodata,
				   *mask_nodata;
		PbCoverageBands out = {.nbands = 1};
		int			mask_role = fill_holes ? 0 : 1;
		PbRun		run = PbCpuRun();

		if (!PbCoverageReadSlide(call, k, &s))
			continue;
		old = MemoryContextSwitchTo(call->slide_cxt);
		PbCoverageLoadImage(call, &s, mask_role, &mask, &mask_nodata);
		if (fill_holes)
		{
			marker = mask;
			marker.data = PbHugeAlloc((size_t) mask.width * mask.height *
									  PbPixSize(mask.type));
			PbFillHolesMarkerPar(&run, &mask, &marker);
			marker_nodata = mask_nodata;
		}
		else
			PbCoverageLoadImage(call, &s, 0, &marker, &marker_nodata);
		PbRasterReportStage("read", NULL);
		PbReconstructImages(&marker, marker_nodata, &mask, mask_nodata, connectivity, op,
							call->caller);
		out.types[0] = s.grid.wkb_type;
		/* the result has the mask's nodata, tile by tile */
		out.tile_has_nodata = s.has_nodata[mask_role];
		out.tile_nodata = s.nodata[mask_role];
		out.pixels[0] = marker.data;
		PbCoverageWrite(call, &s, &out);
		PbRasterReportStage("write", NULL);
		MemoryContextSwitchTo(old);
		PbCoverageSlideDone(call);
	}
}

/*
 * pb_coverage_reconstruct(tiles text, connectivity int, method text, band
 * int): pb_reconstruct over each slide of a tiles query with columns
 * marker and mask (and slide).
 */
Datum
pb_coverage_reconstruct(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_coverage_reconstruct";
	int			connectivity = PbConnectivityArg(PG_GETARG_INT32(1), caller);
	PbReconOp	op = PbReconMethodArg(text_to_cstring(PG_GETARG_TEXT_PP(2)), caller);
	int			bands[2] = {PG_GETARG_INT32(3), PG_GETARG_INT32(3)};
	PbCoverageCall call;

	PbCoverageBegin(&call, fcinfo, caller, PG_GETARG_TEXT_PP(0), 2, recon_roles, bands);
	ReconstructSlides(&call, connectivity, op, false);
	PbCoverageEnd(&call);
	return (Datum) 0;
}

/*
 * pb_coverage_fill_holes(tiles text, connectivity int, band int):
 * pb_fill_holes over each slide of a tiles query with a column rast (and
 * slide); holes are those of the whole slide.
 */
Datum
pb_coverage_fill_holes(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_coverage_fill_holes";
	int			connectivity = PbConnectivityArg(PG_GETARG_INT32(1), caller);
	int			bands[1] = {PG_GETARG_INT32(2)};
	PbCoverageCall call;

	PbCoverageBegin(&call, fcinfo, caller, PG_GETARG_TEXT_PP(0), 1, rast_roles, bands);
	ReconstructSlides(&call, connectivity, PB_RECON_ERODE, true);
	PbCoverageEnd(&call);
	return (Datum) 0;
}

/*
 * pb_coverage_distance_transform(tiles text, band int, spacing float8[],
 * with_index bool): pb_distance_transform over each slide of a tiles query
 * with a column rast (and slide); the index bands give the column and row
 * of the nearest background pixel in the slide's grid (1-based, from the
 * upper-left corner of its upper-left tile's cell).
 */
Datum
pb_coverage_distance_transform(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_coverage_distance_transform";
	PbCoverageCall call;
	int			bands[1];
	double		sy,
				sx;
	bool		with_index;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	bands[0] = PG_GETARG_INT32(1);
	with_index = PG_GETARG_BOOL(3);
	PbSpacingArg(PG_ARGISNULL(2) ? NULL : PG_GETARG_ARRAYTYPE_P(2), PG_ARGISNULL(2),
				 &sy, &sx, caller);
	PbCoverageBegin(&call, fcinfo, caller, PG_GETARG_TEXT_PP(0), 1, rast_roles, bands);
	for (int64 k = 0; k < call.nslides; k++)
	{
		PbCoverageSlide s;
		MemoryContext old;
		PbImage		mask;
		uint8	   *nodata;
		PbDistanceBands d;
		PbCoverageBands out = {
			.nbands = with_index ? 3 : 1,
			.types = {PB_WKB_32BF, PB_WKB_32BSI, PB_WKB_32BSI},
			.has_nodata = {false, true, true}
		};

		if (!PbCoverageReadSlide(&call, k, &s))
			continue;
		PbCoverageCheckSize(&call, &s, PB_EDT_MAX_SIDE, 0, "distance transform");
		old = MemoryContextSwitchTo(call.slide_cxt);
		PbCoverageLoadImage(&call, &s, 0, &mask, &nodata);
		PbRasterReportStage("read", NULL);
		PbDistanceImages(&mask, nodata, sy, sx, with_index, &d, caller);
		out.pixels[0] = d.dist;
		out.pixels[1] = d.col;
		out.pixels[2] = d.row;
		PbCoverageWrite(&call, &s, &out);
		PbRasterReportStage("write", NULL);
		MemoryContextSwitchTo(old);
		PbCoverageSlideDone(&call);
	}
	PbCoverageEnd(&call);
	return (Datum) 0;
}

/*
 * pb_coverage_watershed(tiles text, connectivity int, watershed_line bool,
 * band int, label_type text): pb_watershed over each slide of a tiles
 * query with a column rast (the heights) and optional columns markers and
 * mask (and slide); marker-less basins are numbered per slide.
 */
Datum
pb_coverage_watershed(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_coverage_watershed";
	int			connectivity = PbConnectivityArg(PG_GETARG_INT32(1), caller);
	bool		lines = PG_GETARG_BOOL(2);
	int			bands[3] = {PG_GETARG_INT32(3), 1, 1};
	int			label_type = PbLabelTypeArg(text_to_cstring(PG_GETARG_TEXT_PP(4)), caller);
	PbCoverageCall call;

	PbCoverageBegin(&call, fcinfo, caller, PG_GETARG_TEXT_PP(0), 3, ws_roles, bands);
	for (int64 k = 0; k < call.nslides; k++)
	{
		PbCoverageSlide s;
		MemoryContext old;
		PbWatershedSpec spec = {.connectivity = connectivity, .lines = lines};
		uint8	   *wall;
		int64		npix;
		PbCoverageBands out = {.nbands = 1, .types = {label_type}, .has_nodata = {true}};
		PbRun		run = PbCpuRun();

		if (!PbCoverageReadSlide(&call, k, &s))
			continue;
		PbCoverageCheckSize(&call, &s, 0,
							(int64) PB_WS_MAX_PIXELS, "watershed");
		old = MemoryContextSwitchTo(call.slide_cxt);
		npix = s.grid.width * s.grid.height;
		PbCoverageLoadImage(&call, &s, 0, &spec.image, &wall);	/* nodata, NaN: walls */
		if (call.present[2])
		{
			if (wall == NULL)
			{
				wall = PbHugeAlloc((size_t) npix);
				PbZeroPar(&run, wall, (size_t) npix);
			}
			PbCoverageLoadWalls(&call, &s, 2, wall);
		}
		if (call.present[1])
			spec.markers = PbCoverageLoadMarkers(&call, &s, 1);
		spec.wall = wall;
		PbRasterReportStage("read", NULL);
		out.pixels[0] = PbNarrowLabels(PbWatershedImages(&spec, caller), npix, label_type,
									   caller);
		PbRasterReportStage("finish", NULL);
		PbCoverageWrite(&call, &s, &out);
		PbRasterReportStage("write", NULL);
		MemoryContextSwitchTo(old);
		PbCoverageSlideDone(&call);
	}
	PbCoverageEnd(&call);
	return (Datum) 0;
}
