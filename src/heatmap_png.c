/*
 * heatmap_png.c: pb_heatmap_png(tile_x, tile_y, value[, cell_pixels]),
 * an aggregate drawing one value per tile as a PNG heat map
 * (doc/heatmap.md; the core's formats/heatmap.h and png_write.h).
 *
 * The transition keeps each row's tile, checked as it comes, in the
 * aggregate's memory context; the final function draws the tiles and
 * encodes the PNG, both polling for a cancel.  Not run in parts by
 * parallel workers (no combine function): the state is a few bytes a
 * tile.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "core/formats/heatmap.h"
#include "core/formats/png_write.h"
#include "pixelbox.h"

#define CALLER "pb_heatmap_png"
#define DEFAULT_CELL_PIXELS 8

/* The aggregate's state: the tiles so far, in the aggregate's context. */
typedef struct HeatState
{
	PbAllocator mem;
	PbHeatMap	map;
} HeatState;

/* Raise the core's refusal of a tile, with its SQL error code and hint. */
static void
RaiseHeatError(const PbHeatMap *m, const PbError *err)
{
	switch (m->fault)
	{
		case PB_HEAT_FAULT_VALUE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: %s", CALLER, err->message),
					 errhint("Scale the column to [0, 1], e.g. value / max(value) over the rows, or pass NULL for a tile without a figure.")));
			break;
		case PB_HEAT_FAULT_SIZE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: %s", CALLER, err->message),
					 errdetail("A heat map has at most %d pixels on a side and 2^28 bytes of RGBA (8192 x 8192 pixels).",
							   PB_HEAT_MAX_SIDE),
					 errhint("Use larger tiles, or fewer pixels a tile (cell_pixels).")));
			break;
		case PB_HEAT_FAULT_DUPLICATE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", CALLER, err->message),
					 errhint("Give each (tile_x, tile_y) one row, e.g. aggregate the rows of a tile first (GROUP BY tile_x, tile_y).")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", CALLER, err->message)));
	}
}

/* Add the row's tile (arguments 1 to 3) drawn cell_pixels wide to the state. */
static HeatState *
AddRow(FunctionCallInfo fcinfo, int cell_pixels)
{
	MemoryContext aggcxt;
	HeatState  *s;
	PbError		err;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", CALLER);
	s = PG_ARGISNULL(0) ? NULL : (HeatState *) PG_GETARG_POINTER(0);
	if (s == NULL)
	{
		s = MemoryContextAllocZero(aggcxt, sizeof(HeatState));
		PbPgAllocatorInit(&s->mem, aggcxt);
		PbHeatInit(&s->map, &s->mem);
	}
	if (PbHeatAdd(&s->map, PG_GETARG_INT32(1), PG_GETARG_INT32(2), !PG_ARGISNULL(3),
				  PG_ARGISNULL(3) ? 0.0 : PG_GETARG_FLOAT8(3), cell_pixels, &err) != PB_OK)
		RaiseHeatError(&s->map, &err);
	return s;
}

/*
 * A row without a tile (tile_x or tile_y NULL, as pb_tile_agreement's row
 * of objects without a place) has nothing to draw: it is skipped, as
 * aggregates skip NULL inputs.
 */
#define NO_TILE(fcinfo) (PG_ARGISNULL(1) || PG_ARGISNULL(2))
#define SKIP_ROW(fcinfo) \
	do { \
		if (PG_ARGISNULL(0)) \
			PG_RETURN_NULL(); \
		PG_RETURN_DATUM(PG_GETARG_DATUM(0)); \
	} while (0)

PG_FUNCTION_INFO_V1(pb_heatmap_png_transfn);
/* Add one row's tile, 8 pixels a side. */
Datum
pb_heatmap_png_transfn(PG_FUNCTION_ARGS)
{
	if (NO_TILE(fcinfo))
		SKIP_ROW(fcinfo);
	PG_RETURN_POINTER(AddRow(fcinfo, DEFAULT_CELL_PIXELS));
}

PG_FUNCTION_INFO_V1(pb_heatmap_png_cell_transfn);
/* Add one row's tile, cell_pixels (argument 4) a side. */
Datum
pb_heatmap_png_cell_transfn(PG_FUNCTION_ARGS)
{
	if (NO_TILE(fcinfo))
		SKIP_ROW(fcinfo);
	if (PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: cell_pixels is NULL at tile (%d, %d)", CALLER,
						PG_GETARG_INT32(1), PG_GETARG_INT32(2)),
				 errhint("Pass the same cell size, from 1 to 256 pixels, in every row.")));
	PG_RETURN_POINTER(AddRow(fcinfo, PG_GETARG_INT32(4)));
}

PG_FUNCTION_INFO_V1(pb_heatmap_png_finalfn);
/* Draw the tiles and encode them as a PNG; NULL when there were no rows. */
Datum
pb_heatmap_png_finalfn(PG_FUNCTION_ARGS)
{
	HeatState  *s = PG_ARGISNULL(0) ? NULL : (HeatState *) PG_GETARG_POINTER(0);
	PbAllocator mem;
	PbHeatImage im;
	PbPngBytes	png;
	PbError		err;
	PbStatus	st;

	if (s == NULL || s->map.n == 0)
		PG_RETURN_NULL();
	st = PbHeatRender(&s->map, PbInterruptArrived, NULL, &im, &err);
	if (st == PB_ERR_STOPPED)
		RaiseStop(CALLER);
	if (st != PB_OK)
		RaiseHeatError(&s->map, &err);
	/* the PNG after a bytea header, in the caller's context */
	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	st = PbPngWriteRgba(im.rgba, im.width, im.height, VARHDRSZ, &mem, PbInterruptArrived,
						NULL, &png, &err);
	pfree(im.rgba);
	if (st == PB_ERR_STOPPED)
		RaiseStop(CALLER);
	if (st != PB_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("%s: %s", CALLER, err.message)));
	SET_VARSIZE(png.data, png.len + VARHDRSZ);
	PG_RETURN_BYTEA_P((bytea *) png.data);
}
