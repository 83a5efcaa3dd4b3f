/*
 * set_compare.c: pb_compare_sets(geom, in_a), the cross-comparison of two
 * polygon sets in one scan, without a PostgreSQL join.
 *
 * Rows are decoded into one batch, each shape tagged with its set.  At the
 * end a packed Hilbert R-tree is built per set over the boxes PostGIS's &&
 * would use (float4, rounded outward), the trees are joined to find the
 * MBR-intersecting pairs (exactly the pairs of the Fig. 1(b) query), and the
 * pairs are computed on the GPU when one is wanted and the batch fits its
 * budget, on the CPU otherwise.  Besides the pb_cross_compare figures it
 * counts, per set, the polygons that intersect nothing in the other set.
 *
 * This is the single-threaded form (the paper's NoPipe-S); combine,
 * serial and deserial let PostgreSQL's parallel workers decode the rows.
 */
#include "postgres.h"

#include <unistd.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"

#include "core/hilbert_rtree.h"
#include "core/pair_threads.h"
#include "../cuda/pb_gpu.h"
#include "core/pb_accum.h"
#include "pixelbox.h"

#define PB_SETS_FORMAT 1		/* version byte of serialized states */
#define PB_RTREE_FANOUT 16

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

/* Every polygon must have one SRID (PostGIS's mixed-SRID error otherwise). */
static void
SetsCheckSrid(SetsState *s, int32 srid, const char *caller)
{
	if (!s->has_srid)
	{
		s->srid = srid;
		s->has_srid = true;
	}
	else if (srid != s->srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: Operation on mixed SRID geometries (%d != %d)",
						caller, s->srid, srid)));
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
	SetsCheckSrid(s, s->batch.shapes[shape].srid, caller);
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
		SetsCheckSrid(dst, src->srid, "pb_compare_sets");
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

/* Emit callback of the R-tree join: queue the pair in the batch. */
static void
AddPair(void *ctx, uint32 a, uint32 b)
{
	PbBatchAddPair((PbBatch *) ctx, a, b);
}

/*
 * Find the MBR-intersecting (a, b) pairs: one packed Hilbert R-tree per
 * set, over the float boxes PostGIS's && compares, joined.
 */
static void
FindPairs(SetsState *s, int64 *polygons_a, int64 *polygons_b)
{
	PbBatch    *b = &s->batch;
	PbRTreeEntry *ea = palloc_extended(sizeof(PbRTreeEntry) * (b->nshapes + 1), MCXT_ALLOC_HUGE);
	PbRTreeEntry *eb = palloc_extended(sizeof(PbRTreeEntry) * (b->nshapes + 1), MCXT_ALLOC_HUGE);
	uint32		na = 0,
				nb = 0;
	PbRTree    *ta,
			   *tb;

	for (uint32 i = 0; i < b->nshapes; i++)
	{
		PbRTreeEntry *e;

		if (s->in_a[i])
			(*polygons_a)++;
		else
			(*polygons_b)++;
		if (b->shapes[i].kind == PB_SHAPE_EMPTY)
			continue;			/* no polygonal part: no area, never paired */
		e = s->in_a[i] ? &ea[na++] : &eb[nb++];
		e->box = PbBoxAsPostgisFloat(b->shapes[i].box);
		e->id = i;
	}
	ta = PbRTreeBuild(&s->mem, ea, na, PB_RTREE_FANOUT);
	tb = PbRTreeBuild(&s->mem, eb, nb, PB_RTREE_FANOUT);
	b->npairs = 0;
	PbRTreeJoin(ta, tb, AddPair, b);
	PbRTreeFree(ta);
	PbRTreeFree(tb);
	pfree(ea);
	pfree(eb);
}

/* Polled by the CPU threads' caller: has a cancel or timeout arrived? */
static int
InterruptArrived(void *ctx)
{
	return InterruptPending != 0;
}

/*
 * Areas of the pairs idx[0..n) (all pairs when idx is NULL) into
 * out[0..n) on pixelbox.cpu_threads threads; a cancel stops the threads
 * first and is then raised here.
 */
static void
ComputeOnThreads(const PbBatch *b, const uint32 *idx, uint32 n, double *out)
{
	int			threads = pb_cpu_threads > 0 ? pb_cpu_threads : (int) sysconf(_SC_NPROCESSORS_ONLN);

	if (!PbComputeAreasThreaded(b, idx, n, out, pb_cpu_method, Max(threads, 1),
								InterruptArrived, NULL))
		CHECK_FOR_INTERRUPTS();
}

/*
 * Intersection areas of every queued pair into areas[]: the rectilinear
 * integer ones on the GPU when it is wanted and the batch fits its budget
 * (one submission), everything else on CPU threads.
 */
static void
ComputeAreas(SetsState *s, double *areas)
{
	PbBatch    *b = &s->batch;
	uint32	   *idx = palloc_extended(sizeof(uint32) * (b->npairs + 1), MCXT_ALLOC_HUGE);
	double	   *out = palloc_extended(sizeof(double) * (b->npairs + 1), MCXT_ALLOC_HUGE);
	uint32		n = 0,
				rest = 0;

	/* int pairs first in idx, the others after them */
	for (uint32 i = 0; i < b->npairs; i++)
		if (b->shapes[b->pairs[i].a].kind == PB_SHAPE_INT &&
			b->shapes[b->pairs[i].b].kind == PB_SHAPE_INT)
			idx[n++] = i;
	rest = n;
	for (uint32 i = 0; i < b->npairs; i++)
		if (!(b->shapes[b->pairs[i].a].kind == PB_SHAPE_INT &&
			  b->shapes[b->pairs[i].b].kind == PB_SHAPE_INT))
			idx[rest++] = i;
	if (n > 0 && PbGpuPackedBytes(b, n) <= ((size_t) pb_gpu_memory_mb << 20) &&
		PbGpuWanted("pb_compare_sets") &&
		PbGpuStartBatch(s, b, idx, n, "pb_compare_sets") == PB_GPU_STARTED)
	{
		const int64_t *res;

		/* the other pairs on the CPU while the GPU works */
		ComputeOnThreads(b, idx + n, rest - n, out + n);
		res = PbGpuFinishBatch(s, "pb_compare_sets");
		if (res != NULL)
			for (uint32 k = 0; k < n; k++)
				out[k] = (double) res[k];
		else
			ComputeOnThreads(b, idx, n, out);
	}
	else
		ComputeOnThreads(b, idx, rest, out);
	for (uint32 k = 0; k < rest; k++)
		areas[idx[k]] = out[k];
	pfree(idx);
	pfree(out);
}

/*
 * Pair the two sets (s may be NULL: no rows), compute every pair, and
 * return the pb_set_comparison row of fcinfo's result type.
 */
Datum
PbSetsResult(SetsState *s, FunctionCallInfo fcinfo)
{
	PbCompareAcc acc;
	PbCompareResult r;
	int64		polygons_a = 0,
				polygons_b = 0,
				missed_a = 0,
				missed_b = 0;
	TupleDesc	tupdesc;
	Datum		values[11];
	bool		nulls[11] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "pb_compare_sets_finalfn: return type must be a row type");
	PbCompareInit(&acc);
	if (s != NULL)
	{
		PbBatch    *b = &s->batch;
		double	   *areas;
		uint8	   *matched;

		FindPairs(s, &polygons_a, &polygons_b);
		areas = palloc_extended(sizeof(double) * (b->npairs + 1), MCXT_ALLOC_HUGE);
		matched = palloc_extended(b->nshapes + 1, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		ComputeAreas(s, areas);
		for (uint32 i = 0; i < b->npairs; i++)
		{
			const PbPair *pr = &b->pairs[i];

			PbCompareAdd(&acc, b->shapes[pr->a].area, b->shapes[pr->b].area, areas[i]);
			if (areas[i] > 0)
				matched[pr->a] = matched[pr->b] = 1;
		}
		for (uint32 i = 0; i < b->nshapes; i++)
		{
			if (matched[i])
				continue;
			if (s->in_a[i])
				missed_a++;
			else
				missed_b++;
		}
		pfree(areas);
		pfree(matched);
	}
	PbCompareResultOf(&acc, &r);
	PbCompareResultDatums(&r, values, nulls);
	values[7] = Int64GetDatum(polygons_a);
	values[8] = Int64GetDatum(polygons_b);
	values[9] = Int64GetDatum(missed_a);
	values[10] = Int64GetDatum(missed_b);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

PG_FUNCTION_INFO_V1(pb_compare_sets_finalfn);
/* Pair the two sets, compute every pair, and return pb_set_comparison. */
Datum
pb_compare_sets_finalfn(PG_FUNCTION_ARGS)
{
	return PbSetsResult(PG_ARGISNULL(0) ? NULL : (SetsState *) PG_GETARG_POINTER(0), fcinfo);
}
