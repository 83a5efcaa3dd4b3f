/*
 * pair_rows.c: pb_intersecting_pairs(table_a, id_a, geom_a, table_b, id_b,
 * geom_b), the per-pair rows of two tables through the SCCG pipeline: the
 * rows are read with SPI, their polygons decoded on threads a fetch at a
 * time (decode_values.h), the pipeline pairs and computes them as
 * pb_compare_sets does, and every pair of positive intersection area
 * becomes a row (ids, the two polygons' areas, the intersection's area).
 * No PostgreSQL join.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "core/decode_values.h"
#include "pixelbox.h"

#define CALLER "pb_intersecting_pairs"
#define FETCH_ROWS 16384		/* rows per cursor fetch */
#define SLICE_VALUES 512		/* polygons per thread job */

/* The rows read so far and where the pairs go. */
typedef struct PairRows
{
	MemoryContext cxt;			/* the sets and the ids live here */
	MemoryContext fetch_cxt;	/* one fetch's values, reset after it */
	SetsState  *sets;
	int64	   *ids;			/* per shape: its row's id */
	bool	   *id_null;
	uint32		cap;
	Tuplestorestate *store;
	TupleDesc	desc;
} PairRows;

/* The schema-qualified, quoted name of a relation. */
static char *
RelationName(Oid relid)
{
	char	   *name = get_rel_name(relid);

	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("%s: relation with OID %u does not exist", CALLER, relid)));
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), name);
}

/*
 * The query reading both tables: id (as bigint), geometry, and whether the
 * row is of table a.  The function runs with the extension's search_path,
 * where ::geometry names PostGIS's type.
 */
static char *
RowsQuery(FunctionCallInfo fcinfo)
{
	const char *id_a = quote_identifier(NameStr(*PG_GETARG_NAME(1))),
			   *geom_a = quote_identifier(NameStr(*PG_GETARG_NAME(2))),
			   *id_b = quote_identifier(NameStr(*PG_GETARG_NAME(4))),
			   *geom_b = quote_identifier(NameStr(*PG_GETARG_NAME(5)));

	return psprintf("SELECT a.%s::bigint, a.%s::geometry, true FROM %s a "
					"UNION ALL SELECT b.%s::bigint, b.%s::geometry, false FROM %s b",
					id_a, geom_a, RelationName(PG_GETARG_OID(0)),
					id_b, geom_b, RelationName(PG_GETARG_OID(3)));
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

/* Polled by the decoding threads' loop: has a cancel or termination arrived? */
static int
Interrupted(void *arg)
{
	return QueryCancelPending || ProcDiePending;
}

/* Add shape i of the batch (of set a or b, its row's id given) to the sets. */
static void
AddShape(PairRows *pr, uint32 i, bool in_a, int64 id, bool id_null)
{
	PbSetsAdd(pr->sets, i, in_a, CALLER);
	KeepId(pr, i, id, id_null);
}

/*
 * Decode the polygons of rows [0, nrows) of a fetch into the sets, in
 * order: on threads, a slice of values per job; when a slice stopped (a
 * value it cannot read, one only PostGIS's send function can, no memory)
 * the whole fetch is decoded here instead, so that the first bad value's
 * error is the one raised, as without threads.  Rows with a NULL polygon
 * take no part, as in pb_compare_sets.
 */
static void
DecodeFetch(PairRows *pr, SPITupleTable *tt, uint64 nrows)
{
	TupleDesc	desc = tt->tupdesc;
	Oid			geomtype = SPI_gettypeid(desc, 2);
	MemoryContext old = MemoryContextSwitchTo(pr->fetch_cxt);
	const uint8 **data = palloc(sizeof(uint8 *) * (nrows + 1));
	size_t	   *len = palloc(sizeof(size_t) * (nrows + 1));
	Datum	   *geoms = palloc(sizeof(Datum) * (nrows + 1));
	int64	   *ids = palloc(sizeof(int64) * (nrows + 1));
	bool	   *id_null = palloc(sizeof(bool) * (nrows + 1)),
			   *in_a = palloc(sizeof(bool) * (nrows + 1));
	uint32		m = 0,
				nslices;
	PbValueSlice *slices;
	PbRasterRun run = {PbCpuThreads(), 0, Interrupted, NULL};
	bool		threaded;
	PbBatch    *batch = PbSetsBatch(pr->sets);

	for (uint64 r = 0; r < nrows; r++)
	{
		bool		geom_null,
					in_a_null;
		Datum		id = SPI_getbinval(tt->vals[r], desc, 1, &id_null[m]);
		struct varlena *v;

		geoms[m] = SPI_getbinval(tt->vals[r], desc, 2, &geom_null);
		in_a[m] = DatumGetBool(SPI_getbinval(tt->vals[r], desc, 3, &in_a_null));
		if (geom_null)
			continue;
		v = PG_DETOAST_DATUM_PACKED(geoms[m]);
		data[m] = (const uint8 *) VARDATA_ANY(v);
		len[m] = VARSIZE_ANY_EXHDR(v);
		ids[m] = id_null[m] ? 0 : DatumGetInt64(id);
		m++;
	}
	nslices = (m + SLICE_VALUES - 1) / SLICE_VALUES;
	slices = palloc0(sizeof(PbValueSlice) * (nslices + 1));
	for (uint32 i = 0; i < nslices; i++)
	{
		slices[i].first = i * SLICE_VALUES;
		slices[i].n = Min(SLICE_VALUES, m - slices[i].first);
	}
	MemoryContextSwitchTo(old);
	threaded = !pb_force_ewkb;
	if (threaded && PbDecodeValues(data, len, slices, nslices, &run) == PB_R_STOPPED)
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

				AddShape(pr, base + k, in_a[j], ids[j], id_null[j]);
			}
		}
	}
	PG_FINALLY();
	{
		PbValueSlicesFree(slices, nslices);
	}
	PG_END_TRY();
	for (uint32 j = 0; !threaded && j < m; j++)
		AddShape(pr, PbDecodeGeometryDatum(geoms[j], geomtype, batch, CALLER), in_a[j],
				 ids[j], id_null[j]);
	MemoryContextReset(pr->fetch_cxt);
}

/* Read every row of the query through a cursor into the sets. */
static void
ReadRows(PairRows *pr, const char *query)
{
	Portal		portal;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "%s: SPI_connect failed", CALLER);
	portal = SPI_cursor_open_with_args(NULL, query, 0, NULL, NULL, NULL, true, 0);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		DecodeFetch(pr, SPI_tuptable, SPI_processed);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
}

/* One pair of positive area becomes a row. */
static void
EmitPair(void *ctx, uint32_t a, uint32_t b, double area)
{
	PairRows   *pr = (PairRows *) ctx;
	const PbBatch *batch = PbSetsBatch(pr->sets);
	Datum		values[5];
	bool		nulls[5] = {pr->id_null[a], pr->id_null[b], false, false, false};

	values[0] = Int64GetDatum(pr->ids[a]);
	values[1] = Int64GetDatum(pr->ids[b]);
	values[2] = Float8GetDatum(batch->shapes[a].area);
	values[3] = Float8GetDatum(batch->shapes[b].area);
	values[4] = Float8GetDatum(area);
	tuplestore_putvalues(pr->store, pr->desc, values, nulls);
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
	PairRows	pr;
	char	   *query = RowsQuery(fcinfo);

	InitMaterializedSRF(fcinfo, 0);
	memset(&pr, 0, sizeof(pr));
	pr.cxt = AllocSetContextCreate(CurrentMemoryContext, CALLER, ALLOCSET_DEFAULT_SIZES);
	pr.fetch_cxt = AllocSetContextCreate(pr.cxt, CALLER " fetch", ALLOCSET_DEFAULT_SIZES);
	pr.sets = PbSetsCreate(pr.cxt);
	pr.store = rsinfo->setResult;
	pr.desc = rsinfo->setDesc;
	ReadRows(&pr, query);
	PbSetsPairs(pr.sets, EmitPair, &pr, CALLER);
	MemoryContextDelete(pr.cxt);
	return (Datum) 0;
}
