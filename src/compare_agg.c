/*
 * compare_agg.c: the jaccard_gpu and pb_cross_compare aggregates.
 *
 * Both share one transition state: rows are decoded into a PbBatch (the
 * compact format a GPU batch will use), and when the batch reaches
 * pixelbox.batch_memory its pairs are computed and folded into exact,
 * order-independent totals.  Serial/deserial/combine move only the totals,
 * so parallel workers compute their own batches and the leader merges;
 * answers are bit-identical whatever the plan.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"

#include "core/pb_accum.h"
#include "pixelbox.h"

#define PB_STATE_FORMAT 1		/* version byte of serialized states */

/* Transition state of the comparison aggregates. */
typedef struct PbAggState
{
	PbAllocator mem;			/* palloc in the aggregate's context */
	PbBatch		batch;			/* pairs decoded but not yet computed */
	PbScratch	scratch;
	PbCompareAcc acc;			/* totals of the computed pairs */
	const char *caller;			/* the aggregate's name, for messages */
} PbAggState;

/* The calling aggregate's name, or a generic one. */
static const char *
AggregateName(FunctionCallInfo fcinfo, MemoryContext cxt)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	char	   *name;

	if (aggref == NULL || (name = get_func_name(aggref->aggfnoid)) == NULL)
		return "pixelbox aggregate";
	return MemoryContextStrdup(cxt, name);
}

/* Return the aggregate memory context or raise outside an aggregate. */
static MemoryContext
AggContext(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return aggcxt;
}

/* Make an empty state in the aggregate's memory context. */
static PbAggState *
StateCreate(FunctionCallInfo fcinfo, MemoryContext aggcxt)
{
	PbAggState *s = MemoryContextAllocZero(aggcxt, sizeof(PbAggState));

	PbPgAllocatorInit(&s->mem, aggcxt);
	PbBatchInit(&s->batch, &s->mem);
	PbScratchInit(&s->scratch, &s->mem);
	PbCompareInit(&s->acc);
	s->caller = AggregateName(fcinfo, aggcxt);
	return s;
}

/* Compute every queued pair and fold it into the totals; empty the batch. */
static void
StateFlush(PbAggState *s)
{
	const PbBatch *b = &s->batch;

	if (b->npairs == 0)
		return;
	(void) PbDeviceUseGpu(s->caller);
	for (uint32_t i = 0; i < b->npairs; i++)
	{
		const PbPair *pr = &b->pairs[i];
		double		inter = PbIntersectionArea(&s->scratch, b, pr->a, pr->b,
											   pb_cpu_method);

		PbCompareAdd(&s->acc, b->shapes[pr->a].area, b->shapes[pr->b].area, inter);
		if ((i & 255) == 255)
			CHECK_FOR_INTERRUPTS();
	}
	PbBatchReset(&s->batch);
}

PG_FUNCTION_INFO_V1(pb_compare_transfn);
/* Queue one (a, b) pair; NULL in either skips the row, as avg does. */
Datum
pb_compare_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = AggContext(fcinfo, "pb_compare_transfn");
	PbAggState *s = PG_ARGISNULL(0) ? NULL : (PbAggState *) PG_GETARG_POINTER(0);
	uint32_t	ia,
				ib;

	if (s == NULL)
		s = StateCreate(fcinfo, aggcxt);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_POINTER(s);
	ia = PbDecodeGeometryArg(fcinfo, 1, &s->batch, s->caller);
	ib = PbDecodeGeometryArg(fcinfo, 2, &s->batch, s->caller);
	PbCheckSameSrid(&s->batch, ia, ib, s->caller);
	PbBatchAddPair(&s->batch, ia, ib);
	if (PbBatchBytes(&s->batch) >= (size_t) pb_batch_memory_kb * 1024)
		StateFlush(s);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(pb_compare_combinefn);
/* Merge the totals of the second state into the first. */
Datum
pb_compare_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = AggContext(fcinfo, "pb_compare_combinefn");
	PbAggState *s1 = PG_ARGISNULL(0) ? NULL : (PbAggState *) PG_GETARG_POINTER(0);
	PbAggState *s2 = PG_ARGISNULL(1) ? NULL : (PbAggState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	StateFlush(s2);
	if (s1 == NULL)
		s1 = StateCreate(fcinfo, aggcxt);
	PbCompareMerge(&s1->acc, &s2->acc);
	PG_RETURN_POINTER(s1);
}

PG_FUNCTION_INFO_V1(pb_compare_serialfn);
/* Compute pending pairs and serialize the totals for a parallel leader. */
Datum
pb_compare_serialfn(PG_FUNCTION_ARGS)
{
	PbAggState *s = (PbAggState *) PG_GETARG_POINTER(0);
	bytea	   *out = palloc(VARHDRSZ + 1 + sizeof(PbCompareAcc));
	PbCompareAcc acc;

	StateFlush(s);
	acc = s->acc;
	PbExactSumNormalize(&acc.inter);
	PbExactSumNormalize(&acc.uni);
	PbExactSumNormalize(&acc.ratio);
	PbExactSumNormalize(&acc.dice);
	SET_VARSIZE(out, VARHDRSZ + 1 + sizeof(PbCompareAcc));
	VARDATA(out)[0] = PB_STATE_FORMAT;
	memcpy(VARDATA(out) + 1, &acc, sizeof(PbCompareAcc));
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(pb_compare_deserialfn);
/* Rebuild a state (totals only) from pb_compare_serialfn's bytes. */
Datum
pb_compare_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = AggContext(fcinfo, "pb_compare_deserialfn");
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	PbAggState *s;

	if (VARSIZE_ANY_EXHDR(in) != 1 + sizeof(PbCompareAcc) ||
		VARDATA_ANY(in)[0] != PB_STATE_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("pb_compare_deserialfn: invalid serialized aggregate state")));
	s = StateCreate(fcinfo, aggcxt);
	memcpy(&s->acc, VARDATA_ANY(in) + 1, sizeof(PbCompareAcc));
	PG_RETURN_POINTER(s);
}

/* Compute what is pending and return the figures (zeros for no state). */
static PbCompareResult
FinalResult(FunctionCallInfo fcinfo)
{
	PbCompareResult r;

	if (PG_ARGISNULL(0))
	{
		PbCompareAcc empty;

		PbCompareInit(&empty);
		PbCompareResultOf(&empty, &r);
		return r;
	}
	StateFlush((PbAggState *) PG_GETARG_POINTER(0));
	PbCompareResultOf(&((PbAggState *) PG_GETARG_POINTER(0))->acc, &r);
	return r;
}

PG_FUNCTION_INFO_V1(pb_jaccard_finalfn);
/* J': the mean Jaccard ratio over pairs that intersect, NULL if none do. */
Datum
pb_jaccard_finalfn(PG_FUNCTION_ARGS)
{
	PbCompareResult r = FinalResult(fcinfo);

	if (r.intersecting == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(r.jaccard_mean);
}

PG_FUNCTION_INFO_V1(pb_cross_compare_finalfn);
/* The pb_comparison row: counts, J', total Jaccard, Dice and area sums. */
Datum
pb_cross_compare_finalfn(PG_FUNCTION_ARGS)
{
	PbCompareResult r = FinalResult(fcinfo);
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {false, false, false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "pb_cross_compare_finalfn: return type must be a row type");
	values[0] = Int64GetDatum(r.pairs);
	values[1] = Int64GetDatum(r.intersecting);
	values[2] = Float8GetDatum(r.jaccard_mean);
	values[3] = Float8GetDatum(r.jaccard_total);
	values[4] = Float8GetDatum(r.dice_mean);
	values[5] = Float8GetDatum(r.intersection_area);
	values[6] = Float8GetDatum(r.union_area);
	nulls[2] = nulls[3] = nulls[4] = (r.intersecting == 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
