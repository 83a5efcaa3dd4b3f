/*
 * set_compare.c: pb_compare_sets(geom, in_a), the cross-comparison of two
 * polygon sets in one scan, without a PostgreSQL join.
 *
 * Rows are decoded into one batch, each shape tagged with its set (combine,
 * serial and deserial let PostgreSQL's parallel workers decode them).  At
 * the end the sets are cut into grid tiles and the SCCG pipeline
 * (pipeline_run.c) pairs every tile's polygons whose float4 boxes meet,
 * exactly the pairs PostGIS's && gives the Fig. 1(b) query, and computes
 * them on CPU threads and the GPU.  Besides the pb_cross_compare figures
 * it counts, per set, the polygons that intersect nothing in the other.
 */
#include "postgres.h"

#include <time.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"

#include "core/pb_accum.h"
#include "core/pipeline.h"
#include "core/tiling.h"
#include "pixelbox.h"

#define PB_SETS_FORMAT 1		/* version byte of serialized states */

/* Transition state of pb_compare_sets (and the sets of pb_compare_files). */
struct SetsState
{
	PbAllocator mem;			/* palloc in the aggregate's context */
	PbBatch		batch;			/* every decoded polygon of both sets */
	uint8	   *in_a;			/* per shape: 1 in set a, 0 in set b */
	uint32		cap_in_a;
	int32		srid;
	bool		has_srid;
};

/* Make an empty set pair allocating in cxt (an aggregate state, or a call's). */
SetsState *
PbSetsCreate(MemoryContext aggcxt)
{
	SetsState  *s = MemoryContextAllocZero(aggcxt, sizeof(SetsState));

	PbPgAllocatorInit(&s->mem, aggcxt);
	PbBatchInit(&s->batch, &s->mem);
	return s;
}

/* Record the set of the newest shape, growing the tag array. */
static void
SetsTag(SetsState *s, uint32 shape, bool in_a)
{
	if (shape >= s->cap_in_a)
	{
		uint32		cap = Max(1024, s->cap_in_a * 2);

		while (cap <= shape)
			cap *= 2;
		s->in_a = s->in_a ? repalloc_huge(s->in_a, cap)
			: MemoryContextAllocHuge((MemoryContext) s->mem.ctx, cap);
		s->cap_in_a = cap;
	}
	s->in_a[shape] = in_a ? 1 : 0;
}

/* The batch polygons are decoded into (then given to PbSetsAdd). */
PbBatch *
PbSetsBatch(SetsState *s)
{
	return &s->batch;
}

/* Put the batch's shape into set a (in_a) or b, checking its SRID. */
void
PbSetsAdd(SetsState *s, uint32 shape, bool in_a, const char *caller)
{
	PbCheckSetSrid(&s->srid, &s->has_srid, s->batch.shapes[shape].srid, caller);
	SetsTag(s, shape, in_a);
}

PG_FUNCTION_INFO_V1(pb_compare_sets_transfn);
/* Decode one row into the state; NULL geometry or NULL set skips the row. */
Datum
pb_compare_sets_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	SetsState  *s;
	uint32		shape;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "pb_compare_sets_transfn called in non-aggregate context");
	s = PG_ARGISNULL(0) ? PbSetsCreate(aggcxt) : (SetsState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_POINTER(s);
	shape = PbDecodeGeometryArg(fcinfo, 1, &s->batch, "pb_compare_sets");
	PbSetsAdd(s, shape, PG_GETARG_BOOL(2), "pb_compare_sets");
	PG_RETURN_POINTER(s);
}

/* Append the shapes of src (with their set tags) to dst. */
static void
SetsAppend(SetsState *dst, const SetsState *src)
{
	const PbBatch *b = &src->batch;
	PbBatch    *d = &dst->batch;

	uint32		base = d->nshapes;

	if (src->has_srid)
		PbCheckSetSrid(&dst->srid, &dst->has_srid, src->srid, "pb_compare_sets");
	PbBatchAppend(d, b);
	for (uint32 i = 0; i < b->nshapes; i++)
		SetsTag(dst, base + i, src->in_a[i]);
}

PG_FUNCTION_INFO_V1(pb_compare_sets_combinefn);
/* Merge the polygons of two partial states. */
Datum
pb_compare_sets_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	SetsState  *s1 = PG_ARGISNULL(0) ? NULL : (SetsState *) PG_GETARG_POINTER(0);
	SetsState  *s2 = PG_ARGISNULL(1) ? NULL : (SetsState *) PG_GETARG_POINTER(1);

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "pb_compare_sets_combinefn called in non-aggregate context");
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = PbSetsCreate(aggcxt);
	SetsAppend(s1, s2);
	PG_RETURN_POINTER(s1);
}

/* Bytes of one serialized array section. */
#define SECTION(n, elem) ((size_t) (n) * (elem))

PG_FUNCTION_INFO_V1(pb_compare_sets_serialfn);
/* Serialize the decoded polygons (worker to leader). */
Datum
pb_compare_sets_serialfn(PG_FUNCTION_ARGS)
{
	SetsState  *s = (SetsState *) PG_GETARG_POINTER(0);
	const PbBatch *b = &s->batch;
	uint32		counts[4] = {b->nshapes, b->nrings, b->nipts, b->ndpts};
	size_t		size = 1 + sizeof(counts) + sizeof(int32) + 1 +
		SECTION(b->nshapes, sizeof(PbShape) + 1) + SECTION(b->nrings, sizeof(PbRing)) +
		SECTION(b->nipts, 2 * sizeof(int32)) + SECTION(b->ndpts, 2 * sizeof(double));
	bytea	   *out = (bytea *) palloc_extended(VARHDRSZ + size, MCXT_ALLOC_HUGE);
	char	   *p = VARDATA(out);

	SET_VARSIZE(out, VARHDRSZ + size);
	*p++ = PB_SETS_FORMAT;
	memcpy(p, counts, sizeof(counts));
	p += sizeof(counts);
	memcpy(p, &s->srid, sizeof(int32));
	p += sizeof(int32);
	*p++ = s->has_srid;
	memcpy(p, b->shapes, SECTION(b->nshapes, sizeof(PbShape)));
	p += SECTION(b->nshapes, sizeof(PbShape));
	if (b->nshapes)
		memcpy(p, s->in_a, b->nshapes);
	p += b->nshapes;
	memcpy(p, b->rings, SECTION(b->nrings, sizeof(PbRing)));
	p += SECTION(b->nrings, sizeof(PbRing));
	memcpy(p, b->ipts, SECTION(b->nipts, 2 * sizeof(int32)));
	p += SECTION(b->nipts, 2 * sizeof(int32));
	memcpy(p, b->dpts, SECTION(b->ndpts, 2 * sizeof(double)));
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(pb_compare_sets_deserialfn);
/* Rebuild a state from pb_compare_sets_serialfn's bytes. */
Datum
pb_compare_sets_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	bytea	   *in = PG_GETARG_BYTEA_P(0);
	const char *p = VARDATA(in);
	size_t		len = VARSIZE(in) - VARHDRSZ;
	uint32		counts[4];
	SetsState  *s;
	PbBatch    *b;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "pb_compare_sets_deserialfn called in non-aggregate context");
	if (len < 1 + sizeof(counts) + sizeof(int32) + 1 || p[0] != PB_SETS_FORMAT)
		goto bad;
	memcpy(counts, p + 1, sizeof(counts));
	if (len != 1 + sizeof(counts) + sizeof(int32) + 1 +
		SECTION(counts[0], sizeof(PbShape) + 1) + SECTION(counts[1], sizeof(PbRing)) +
		SECTION(counts[2], 2 * sizeof(int32)) + SECTION(counts[3], 2 * sizeof(double)))
		goto bad;
	s = PbSetsCreate(aggcxt);
	b = &s->batch;
	p += 1 + sizeof(counts);
	memcpy(&s->srid, p, sizeof(int32));
	p += sizeof(int32);
	s->has_srid = *p++;
	PbBatchReserve(b, counts[0], counts[1], counts[2], counts[3]);
	memcpy(b->shapes, p, SECTION(counts[0], sizeof(PbShape)));
	p += SECTION(counts[0], sizeof(PbShape));
	for (uint32 i = 0; i < counts[0]; i++)
		SetsTag(s, i, p[i] != 0);
	p += counts[0];
	memcpy(b->rings, p, SECTION(counts[1], sizeof(PbRing)));
	p += SECTION(counts[1], sizeof(PbRing));
	memcpy(b->ipts, p, SECTION(counts[2], 2 * sizeof(int32)));
	p += SECTION(counts[2], 2 * sizeof(int32));
	memcpy(b->dpts, p, SECTION(counts[3], 2 * sizeof(double)));
	b->nshapes = counts[0];
	b->nrings = counts[1];
	b->nipts = counts[2];
	b->ndpts = counts[3];
	PG_RETURN_POINTER(s);
bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("pb_compare_sets_deserialfn: invalid serialized aggregate state")));
	PG_RETURN_NULL();
}

/* Seconds on a monotonic clock (the report's tiling time). */
static double
NowSeconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Run the pipeline over the two sets cut into grid tiles: totals into acc,
 * matched[i] set for every shape intersecting the other set.  Tasks and
 * the run live in the state's context, whose reset stops the threads
 * before any of that memory goes.
 */
static void
RunSets(SetsState *s, PbCompareAcc *acc, uint8 *matched, const char *caller)
{
	PbTiling	tl;
	PbRun	   *run;
	double		t0 = NowSeconds();

	PbTileGrid(&tl, &s->batch, s->in_a, (uint32) pb_tile_shapes, &s->mem);
	run = PbRunStart((MemoryContext) s->mem.ctx, caller);
	PbRunAddTileTime(run, NowSeconds() - t0);
	for (uint32 k = 0; k < tl.ntasks; k++)
		PbRunFeed(run, &tl.tasks[k]);
	PbRunFinish(run, acc);
	for (uint32 k = 0; k < tl.ntasks; k++)
	{
		const PbTask *t = &tl.tasks[k];

		for (uint32 i = 0; t->hit && i < t->na + t->nb; i++)
			if (t->hit[i])
				matched[t->src_ids[i]] = 1;
	}
	PbRunEnd(run);
	PbTilingFree(&tl, &s->mem);
}

/*
 * The pb_set_comparison row of fcinfo's result type from the totals and
 * counts[] = {polygons a, polygons b, missed a, missed b}.
 */
Datum
PbSetsResultDatum(FunctionCallInfo fcinfo, const PbCompareAcc *acc, const int64 *counts,
				  const char *caller)
{
	PbCompareResult r;
	TupleDesc	tupdesc;
	Datum		values[11];
	bool		nulls[11] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s: return type must be a row type", caller);
	PbCompareResultOf(acc, &r);
	PbCompareResultDatums(&r, values, nulls);
	for (int i = 0; i < 4; i++)
		values[7 + i] = Int64GetDatum(counts[i]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * Pair the two sets (s may be NULL: no rows), compute every pair, and
 * return the pb_set_comparison row of fcinfo's result type.
 */
Datum
PbSetsResult(SetsState *s, FunctionCallInfo fcinfo, const char *caller)
{
	PbCompareAcc acc;
	int64		counts[4] = {0, 0, 0, 0};	/* polygons a, b, missed a, b */

	PbCompareInit(&acc);
	if (s != NULL)
	{
		uint32		n = s->batch.nshapes;
		uint8	   *matched = palloc_extended(n + 1, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

		RunSets(s, &acc, matched, caller);
		for (uint32 i = 0; i < n; i++)
		{
			counts[s->in_a[i] ? 0 : 1]++;
			if (!matched[i])
				counts[s->in_a[i] ? 2 : 3]++;
		}
		pfree(matched);
	}
	return PbSetsResultDatum(fcinfo, &acc, counts, caller);
}

PG_FUNCTION_INFO_V1(pb_compare_sets_finalfn);
/* Pair the two sets, compute every pair, and return pb_set_comparison. */
Datum
pb_compare_sets_finalfn(PG_FUNCTION_ARGS)
{
	return PbSetsResult(PG_ARGISNULL(0) ? NULL : (SetsState *) PG_GETARG_POINTER(0), fcinfo,
						"pb_compare_sets");
}
