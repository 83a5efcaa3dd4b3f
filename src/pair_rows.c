/*
 * pair_rows.c: pb_intersecting_pairs(table_a, id_a, geom_a, table_b, id_b,
 * geom_b), the per-pair rows of two tables through the SCCG pipeline: the
 * rows are read with SPI and decoded in this backend, the pipeline pairs
 * and computes them as pb_compare_sets does, and every pair of positive
 * intersection area becomes a row (ids, the two polygons' areas, the
 * intersection's area).  No PostgreSQL join.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "pixelbox.h"

#define CALLER "pb_intersecting_pairs"
#define FETCH_ROWS 4096			/* rows per cursor fetch */

/* The rows read so far and where the pairs go. */
typedef struct PairRows
{
	MemoryContext cxt;			/* the sets and the ids live here */
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

/*
 * Read every row of the query through a cursor and decode its polygon
 * into the sets; rows with a NULL polygon take no part, as in
 * pb_compare_sets.
 */
static void
ReadRows(PairRows *pr, const char *query)
{
	Portal		portal;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "%s: SPI_connect failed", CALLER);
	portal = SPI_cursor_open_with_args(NULL, query, 0, NULL, NULL, NULL, true, 0);
	for (;;)
	{
		TupleDesc	desc;
		Oid			geomtype;

		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		desc = SPI_tuptable->tupdesc;
		geomtype = SPI_gettypeid(desc, 2);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			bool		id_null,
						geom_null,
						in_a_null;
			Datum		id = SPI_getbinval(tup, desc, 1, &id_null),
						geom = SPI_getbinval(tup, desc, 2, &geom_null),
						in_a = SPI_getbinval(tup, desc, 3, &in_a_null);
			uint32		shape;

			if (geom_null)
				continue;
			shape = PbDecodeGeometryDatum(geom, geomtype, PbSetsBatch(pr->sets), CALLER);
			PbSetsAdd(pr->sets, shape, DatumGetBool(in_a), CALLER);
			KeepId(pr, shape, id_null ? 0 : DatumGetInt64(id), id_null);
		}
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
	pr.sets = PbSetsCreate(pr.cxt);
	pr.store = rsinfo->setResult;
	pr.desc = rsinfo->setDesc;
	ReadRows(&pr, query);
	PbSetsPairs(pr.sets, EmitPair, &pr, CALLER);
	MemoryContextDelete(pr.cxt);
	return (Datum) 0;
}
