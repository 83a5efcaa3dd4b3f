/*
 * tile_agreement.c: pb_tile_agreement(table_a, id_a, geom_a, table_b,
 * id_b, geom_b, tile_size, iou_threshold), the instance metrics per tile
 * of the slide, to see where two segmentations disagree.
 *
 * The tables are matched whole (match_sets.c), then each object is put
 * in the tile of its bounding box's centre on a grid of tile_size squares
 * anchored at (0, 0), and the core (match_tiles.c) counts per tile.
 * Objects with no polygonal part (EMPTY) have no place: they make one row
 * whose tile is NULL, so the rows still add up to the slide's figures.
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "core/geom/ewkb_write.h"
#include "match_sets.h"

#define CALLER "pb_tile_agreement"
#define TILE_COLUMNS 12
#define NO_TILE INT64_MAX		/* the key of objects without a place */
#define KEY_Y_UNIT INT64CONST(4294967296)	/* key = y 2^32 + (x + 2^31) */

/* The tile_size argument, checked: finite and > 0. */
static double
CheckTileSize(double size)
{
	if (!(size > 0.0 && isfinite(size)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: tile_size must be a positive number, not %g", CALLER, size)));
	return size;
}

/*
 * The number of the tile holding coordinate c, checked to fit an integer
 * column (and to leave NO_TILE free).
 */
static int64
TileIndex(double c, double size, const char *axis)
{
	double		t = floor(c / size);

	if (!(t >= (double) PG_INT32_MIN && t < (double) PG_INT32_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s: an object centred at %s = %g falls in tile %g, outside the integer range",
						CALLER, axis, c, t),
				 errhint("Use a larger tile_size.")));
	return (int64) t;
}

/* The tile key of batch shape i: its box centre's tile, NO_TILE if EMPTY. */
static int64
ShapeKey(const PbBatch *b, uint32 i, double size)
{
	const PbShape *s = &b->shapes[i];
	int64		tx,
				ty;

	if (s->kind == PB_SHAPE_EMPTY)
		return NO_TILE;
	tx = TileIndex(0.5 * (s->box.xmin + s->box.xmax), size, "x");
	ty = TileIndex(0.5 * (s->box.ymin + s->box.ymax), size, "y");
	return ty * KEY_Y_UNIT + (tx - PG_INT32_MIN);
}

/* The keys of every object of set k (0 true, 1 pred), in ms's numbering. */
static int64 *
SetKeys(const PbMatchSets *ms, int k, double size)
{
	int64	   *keys = palloc_extended(sizeof(int64) * (ms->n[k] + 1), MCXT_ALLOC_HUGE);

	for (uint32 j = 0; j < ms->n[k]; j++)
	{
		if ((j & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		keys[j] = ShapeKey(ms->batch, ms->shape_of[k][j], size);
	}
	return keys;
}

/* The square of tile (tx, ty) as a geometry of SRID srid. */
static Datum
TileSquare(int64 tx, int64 ty, double size, int32 srid, Oid recv, Oid ioparam)
{
	PbAllocator mem;
	PbEwkb		w;
	double		x0 = tx * size,
				y0 = ty * size,
				x1 = (tx + 1) * size,
				y1 = (ty + 1) * size;
	double		ring[10] = {x0, y0, x1, y0, x1, y1, x0, y1, x0, y0};

	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	PbEwkbInit(&w, &mem);
	PbEwkbHeader(&w, PB_POLYGONTYPE, srid);
	PbEwkbSetCount(&w, PbEwkbCountSlot(&w), 1);
	PbEwkbSetCount(&w, PbEwkbCountSlot(&w), 5);
	PbEwkbDoubles(&w, ring, 10);
	return PbGeometryFromEwkb(recv, ioparam, w.data, w.len, CALLER);
}

/* Put the row of tile r (geometry of SRID srid) into the result. */
static void
TileRow(ReturnSetInfo *rsinfo, const PbTileRow *r, double size, int32 srid, Oid recv, Oid ioparam)
{
	Datum		v[TILE_COLUMNS];
	bool		nulls[TILE_COLUMNS] = {0};
	int			i = 0;

	if (r->key == NO_TILE)
		nulls[0] = nulls[1] = nulls[2] = true;
	else
	{
		int64		low = (int64) ((uint64) r->key & 0xFFFFFFFFu),
					ty = (r->key - low) / KEY_Y_UNIT,
					tx = low + PG_INT32_MIN;

		v[0] = Int32GetDatum((int32) tx);
		v[1] = Int32GetDatum((int32) ty);
		v[2] = TileSquare(tx, ty, size, srid, recv, ioparam);
	}
	i = 3;
	v[i++] = Int64GetDatum(r->n_true);
	v[i++] = Int64GetDatum(r->n_pred);
	v[i++] = Int64GetDatum(r->tp);
	v[i++] = Int64GetDatum(r->fp);
	v[i++] = Int64GetDatum(r->fn);
	v[i++] = Float8GetDatum(r->f1);
	v[i++] = Float8GetDatum(r->pq);
	nulls[i] = isnan(r->jaccard);
	v[i++] = Float8GetDatum(r->jaccard);
	v[i++] = Int64GetDatum(r->pairs);
	Assert(i == TILE_COLUMNS);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
}

PG_FUNCTION_INFO_V1(pb_tile_agreement);
/*
 * One row per tile holding an object of table_a (the reference) or
 * table_b, in tile order (y, then x): its counts and F1, PQ and J' of the
 * whole tables' matching at iou_threshold.
 */
Datum
pb_tile_agreement(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double		size = CheckTileSize(PG_GETARG_FLOAT8(6)),
				threshold = PbCheckIoUThreshold(PG_GETARG_FLOAT8(7), CALLER);
	MemoryContext cxt,
				old;
	PbMatchSets ms;
	PbMatchStats st;
	PbMatchObjects o;
	PbAllocator mem;
	PbTileRows rows;
	PbError		err;
	PbStatus	rc;
	int64	   *keys[2];
	int32		srid;
	Oid			recv,
				ioparam;
	MemoryContext rowcxt;

	InitMaterializedSRF(fcinfo, 0);
	getTypeBinaryInputInfo(TupleDescAttr(rsinfo->setDesc, 2)->atttypid, &recv, &ioparam);
	cxt = AllocSetContextCreate(CurrentMemoryContext, CALLER, ALLOCSET_DEFAULT_SIZES);
	PbMatchTables(fcinfo, cxt, threshold, CALLER, &ms, &st, &o);
	old = MemoryContextSwitchTo(cxt);
	srid = ms.batch->nshapes > 0 ? ms.batch->shapes[0].srid : 0;
	keys[0] = SetKeys(&ms, 0, size);
	keys[1] = SetKeys(&ms, 1, size);
	PbPgAllocatorInit(&mem, cxt);
	rc = PbMatchTiles(&ms.in, &o, keys[0], keys[1], &mem, &rows, &err);
	if (rc == PB_ERR_STOPPED)
		CHECK_FOR_INTERRUPTS();
	if (rc != PB_OK)
		elog(ERROR, "%s: %s", CALLER, err.message);
	rowcxt = AllocSetContextCreate(cxt, "tile row", ALLOCSET_SMALL_SIZES);
	for (size_t k = 0; k < rows.n; k++)
	{
		if ((k & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(rowcxt);
		TileRow(rsinfo, &rows.rows[k], size, srid, recv, ioparam);
		MemoryContextReset(rowcxt);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return (Datum) 0;
}
