/*
 * pair_rows.c: pb_intersecting_pairs(table_a, id_a, geom_a, table_b, id_b,
 * geom_b), the per-pair rows of two tables through the SCCG pipeline: the
 * rows of both tables are read through SPI into a receiver of our own (no
 * copy of whole tuples), their polygons copied and decoded on threads, a
 * run of rows at a time (decode_values.h); the pipeline pairs and computes
 * them as pb_compare_sets does, and every pair of positive intersection
 * area becomes a row (ids, the two polygons' areas, the intersection's
 * area).  No PostgreSQL join.  The reading (PbReadTables) also serves
 * pb_match_objects (match_stats.c).
 */
#include "postgres.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "core/geom/pb_geom.h"
#include "pixelbox.h"

#define CALLER "pb_intersecting_pairs"
#define RUN_ROWS 16384			/* rows decoded together */
#define SLICE_VALUES 512		/* polygons per thread job */

/* The rows read so far. */
typedef struct PairRows
{
	const char *caller;
	MemoryContext cxt;			/* the sets and the ids live here */
	SetsState  *sets;
	int64	   *ids;			/* per shape: its row's id */
	bool	   *id_null;
	uint32		cap;
	/* the run of rows not decoded yet */
	MemoryContext run_cxt;		/* their polygons' bytes, reset after each run */
	Oid			geomtype;
	uint32		n;
	Datum		geoms[RUN_ROWS];	/* copies (plain varlena values) */
	int64		run_ids[RUN_ROWS];
	bool		run_id_null[RUN_ROWS],
				run_in_a[RUN_ROWS];
} PairRows;

/* Where the query's rows go: a DestReceiver handing them to PairRows. */
typedef struct RowReceiver
{
	DestReceiver pub;
	PairRows   *pr;
} RowReceiver;

/* The schema-qualified, quoted name of a relation. */
static char *
RelationName(Oid relid, const char *caller)
{
	char	   *name = get_rel_name(relid);

	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("%s: relation with OID %u does not exist", caller, relid)));
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), name);
}

/*
 * The query reading both tables: id (as bigint), geometry, and whether the
 * row is of table a.  The function runs with the extension's search_path,
 * where ::geometry names PostGIS's type.
 */
static char *
RowsQuery(FunctionCallInfo fcinfo, const char *caller)
{
	const char *id_a = quote_identifier(NameStr(*PG_GETARG_NAME(1))),
			   *geom_a = quote_identifier(NameStr(*PG_GETARG_NAME(2))),
			   *id_b = quote_identifier(NameStr(*PG_GETARG_NAME(4))),
			   *geom_b = quote_identifier(NameStr(*PG_GETARG_NAME(5)));

	return psprintf("SELECT a.%s::bigint, a.%s::geometry, true FROM %s a "
					"UNION ALL SELECT b.%s::bigint, b.%s::geometry, false FROM %s b",
					id_a, geom_a, RelationName(PG_GETARG_OID(0), caller),
					id_b, geom_b, RelationName(PG_GETARG_OID(3), caller));
}

/* Remember the id of shape i (NULL when id_null), growing the arrays. */
static void
KeepId(PairRows *pr, uint32 i, int64 id, bool id_null)
{
	if (i >= pr->cap)
	{
		uint32		cap = Max(1024, pr->cap * 2);

		pr->ids = pr->ids ? repalloc_huge(pr->ids, sizeof(int64) * cap)
			: MemoryContextAllocHuge(pr->cxt, sizeof(int64) * cap);
		pr->id_null = pr->id_null ? repalloc_huge(pr->id_null, cap)
			: MemoryContextAllocHuge(pr->cxt, cap);
		pr->cap = cap;
	}
	pr->ids[i] = id;
	pr->id_null[i] = id_null;
}

/* Add shape i of the batch (of set a or b, its row's id given) to the sets. */
static void
AddShape(PairRows *pr, uint32 i, bool in_a, int64 id, bool id_null)
{
	PbSetsAdd(pr->sets, i, in_a, pr->caller);
	KeepId(pr, i, id, id_null);
}

/*
 * Decode the run of rows into the sets, in order: on threads, a slice of
 * values per job; when a slice stopped (a value it cannot read, one only
 * PostGIS's send function can, no memory) the whole run is decoded here
 * instead, so that the first bad value's error is the one raised, as
 * without threads.
 */
static void
DecodeRun(PairRows *pr)
{
	uint32		m = pr->n,
				nslices = (m + SLICE_VALUES - 1) / SLICE_VALUES;
	MemoryContext old = MemoryContextSwitchTo(pr->run_cxt);
	const uint8 **data = palloc(sizeof(uint8 *) * (m + 1));
	size_t	   *len = palloc(sizeof(size_t) * (m + 1));
	PbValueSlice *slices = palloc0(sizeof(PbValueSlice) * (nslices + 1));
	PbRun		run = PbCpuRun();
	bool		threaded = !pb_force_ewkb;
	PbBatch    *batch = PbSetsBatch(pr->sets);

	MemoryContextSwitchTo(old);
	for (uint32 j = 0; j < m; j++)
	{
		data[j] = (const uint8 *) VARDATA_ANY(DatumGetPointer(pr->geoms[j]));
		len[j] = VARSIZE_ANY_EXHDR(DatumGetPointer(pr->geoms[j]));
	}
	for (uint32 i = 0; i < nslices; i++)
	{
		slices[i].first = i * SLICE_VALUES;
		slices[i].n = Min(SLICE_VALUES, m - slices[i].first);
	}
	if (threaded && PbDecodeValues(data, len, slices, nslices, &run) == PB_ERR_STOPPED)
	{
		/* a cancel: raised here (were it not, the values are decoded below) */
		PbValueSlicesFree(slices, nslices);
		CHECK_FOR_INTERRUPTS();
		threaded = false;
	}
	for (uint32 i = 0; threaded && i < nslices; i++)
		threaded = slices[i].status == PB_OK && !slices[i].out_of_memory;
	PG_TRY();
	{
		for (uint32 i = 0; threaded && i < nslices; i++)
		{
			uint32		base = batch->nshapes;

			PbBatchAppend(batch, &slices[i].batch);
			for (uint32 k = 0; k < slices[i].n; k++)
			{
				uint32		j = slices[i].first + k;

				AddShape(pr, base + k, pr->run_in_a[j], pr->run_ids[j], pr->run_id_null[j]);
			}
		}
	}
	PG_FINALLY();
	{
		PbValueSlicesFree(slices, nslices);
	}
	PG_END_TRY();
	for (uint32 j = 0; !threaded && j < m; j++)
		AddShape(pr, PbDecodeGeometryDatum(pr->geoms[j], pr->geomtype, batch, pr->caller),
				 pr->run_in_a[j], pr->run_ids[j], pr->run_id_null[j]);
	pr->n = 0;
	MemoryContextReset(pr->run_cxt);
}

/*
 * One row of the query: its polygon copied (the slot's bytes go with the
 * next row) into the run, decoded when the run is full.  Rows with a NULL
 * polygon take no part, as in pb_compare_sets.
 */
static bool
ReceiveRow(TupleTableSlot *slot, DestReceiver *self)
{
	PairRows   *pr = ((RowReceiver *) self)->pr;
	bool		id_null,
				geom_null,
				in_a_null;
	Datum		id = slot_getattr(slot, 1, &id_null),
				geom = slot_getattr(slot, 2, &geom_null),
				in_a = slot_getattr(slot, 3, &in_a_null);
	MemoryContext old;
	struct varlena *v;

	if (geom_null)
		return true;
	old = MemoryContextSwitchTo(pr->run_cxt);
	v = PG_DETOAST_DATUM_PACKED(geom);
	if ((Pointer) v == DatumGetPointer(geom))
		v = memcpy(palloc(VARSIZE_ANY(v)), v, VARSIZE_ANY(v));
	MemoryContextSwitchTo(old);
	pr->geoms[pr->n] = PointerGetDatum(v);
	pr->run_ids[pr->n] = id_null ? 0 : DatumGetInt64(id);
	pr->run_id_null[pr->n] = id_null;
	pr->run_in_a[pr->n] = DatumGetBool(in_a);
	if (++pr->n == RUN_ROWS)
		DecodeRun(pr);
	return true;
}

/* The query starts: note its polygon column's type. */
static void
StartRows(DestReceiver *self, int operation, TupleDesc desc)
{
	((RowReceiver *) self)->pr->geomtype = TupleDescAttr(desc, 1)->atttypid;
}

/* The query is done: decode the last run. */
static void
EndRows(DestReceiver *self)
{
	PairRows   *pr = ((RowReceiver *) self)->pr;

	if (pr->n > 0)
		DecodeRun(pr);
}

/* Nothing to free: the receiver lives on the caller's stack. */
static void
DestroyRows(DestReceiver *self)
{
}

/* Run the query with every row going to ReceiveRow, none copied by SPI. */
static void
ReadRows(PairRows *pr, const char *query)
{
	RowReceiver rcv = {{ReceiveRow, StartRows, EndRows, DestroyRows, DestNone}, pr};
	SPIExecuteOptions opt;
	SPIPlanPtr	plan;
	int			rc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "%s: SPI_connect failed", pr->caller);
	if ((plan = SPI_prepare(query, 0, NULL)) == NULL)
		elog(ERROR, "%s: SPI_prepare failed: %s", pr->caller, SPI_result_code_string(SPI_result));
	memset(&opt, 0, sizeof(opt));
	opt.read_only = true;
	opt.dest = &rcv.pub;
	/* a SELECT into a receiver tagged DestNone reports SPI_OK_UTILITY */
	if ((rc = SPI_execute_plan_extended(plan, &opt)) < 0)
		elog(ERROR, "%s: reading the tables failed: %s", pr->caller, SPI_result_code_string(rc));
	SPI_finish();
}

/*
 * Read the tables of fcinfo's arguments (table_a, id_column_a,
 * geom_column_a, table_b, id_column_b, geom_column_b) into two sets and
 * their rows' ids, allocated in cxt.  Rows with a NULL polygon take no
 * part.
 */
void
PbReadTables(FunctionCallInfo fcinfo, MemoryContext cxt, const char *caller, PbTableSets *out)
{
	char	   *query;
	PairRows   *pr;

	PbRejectDistributedTable(PG_GETARG_OID(0), caller);
	PbRejectDistributedTable(PG_GETARG_OID(3), caller);
	query = RowsQuery(fcinfo, caller);
	pr = palloc0(sizeof(PairRows));	/* a run of rows: not on the stack */

	pr->caller = caller;
	pr->cxt = cxt;
	pr->run_cxt = AllocSetContextCreate(cxt, "pixelbox table rows", ALLOCSET_DEFAULT_SIZES);
	pr->sets = PbSetsCreate(cxt);
	ReadRows(pr, query);
	MemoryContextDelete(pr->run_cxt);
	out->sets = pr->sets;
	out->ids = pr->ids;
	out->id_null = pr->id_null;
	pfree(pr);
	pfree(query);
}

/* Where pb_intersecting_pairs' rows go. */
typedef struct PairsOut
{
	PbTableSets ts;
	Tuplestorestate *store;
	TupleDesc	desc;
} PairsOut;

/* One pair of positive area becomes a row. */
static void
EmitPair(void *ctx, uint32_t a, uint32_t b, double area)
{
	PairsOut   *po = (PairsOut *) ctx;
	const PbBatch *batch = PbSetsBatch(po->ts.sets);
	Datum		values[5];
	bool		nulls[5] = {po->ts.id_null[a], po->ts.id_null[b], false, false, false};

	values[0] = Int64GetDatum(po->ts.ids[a]);
	values[1] = Int64GetDatum(po->ts.ids[b]);
	values[2] = Float8GetDatum(batch->shapes[a].area);
	values[3] = Float8GetDatum(batch->shapes[b].area);
	values[4] = Float8GetDatum(area);
	tuplestore_putvalues(po->store, po->desc, values, nulls);
}

PG_FUNCTION_INFO_V1(pb_intersecting_pairs);
/*
 * One row per pair of a polygon of table_a and one of table_b whose
 * intersection area is positive: the two ids, the area of each polygon,
 * the area of the intersection.  Rows come in no particular order.
 */
Datum
pb_intersecting_pairs(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext cxt;
	PairsOut	po;

	InitMaterializedSRF(fcinfo, 0);
	cxt = AllocSetContextCreate(CurrentMemoryContext, CALLER, ALLOCSET_DEFAULT_SIZES);
	PbReadTables(fcinfo, cxt, CALLER, &po.ts);
	po.store = rsinfo->setResult;
	po.desc = rsinfo->setDesc;
	PbSetsPairs(po.ts.sets, EmitPair, &po, CALLER);
	MemoryContextDelete(cxt);
	return (Datum) 0;
}
