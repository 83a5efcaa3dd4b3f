/*
 * match_stats.c: the instance metrics segmentation papers report.
 *
 * pb_match_stats(geom, in_a[, iou_threshold]) is an aggregate over both
 * sets in one scan, as pb_compare_sets (whose state, transition, combine
 * and serialization it shares, with the threshold in the state): its
 * final function has the SCCG pipeline give every pair of positive
 * intersection area with its exact area, and the core (match.h) matches
 * and measures.  pb_match_objects(table_a, ..., table_b, ...) reads two
 * tables as pb_intersecting_pairs does and gives the matching per object.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "core/geom/pb_geom.h"
#include "pixelbox.h"

#define STATS "pb_match_stats"
#define OBJECTS "pb_match_objects"
#define DEFAULT_THRESHOLD 0.5
#define STATS_COLUMNS 18

/* The IoU threshold argument, checked: in [0, 1]. */
static double
CheckThreshold(double threshold, const char *caller)
{
	if (!(threshold >= 0.0 && threshold <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: iou_threshold must be between 0 and 1, not %g", caller, threshold)));
	return threshold;
}

PG_FUNCTION_INFO_V1(pb_match_stats_transfn);
/* Decode one row into the state and check its threshold (argument 3). */
Datum
pb_match_stats_transfn(PG_FUNCTION_ARGS)
{
	SetsState  *s = PbSetsTransition(fcinfo, STATS);

	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: iou_threshold must not be NULL", STATS)));
	PbSetsSetThreshold(s, CheckThreshold(PG_GETARG_FLOAT8(3), STATS), STATS);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(pb_match_stats_default_transfn);
/* Decode one row into the state, at the default threshold 0.5. */
Datum
pb_match_stats_default_transfn(PG_FUNCTION_ARGS)
{
	SetsState  *s = PbSetsTransition(fcinfo, STATS);

	PbSetsSetThreshold(s, DEFAULT_THRESHOLD, STATS);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(pb_match_stats_combinefn);
/* Merge two partial states (their thresholds must agree). */
Datum
pb_match_stats_combinefn(PG_FUNCTION_ARGS)
{
	SetsState  *s = PbSetsCombine(fcinfo, STATS);

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(pb_match_stats_serialfn);
/* Serialize a partial state. */
Datum
pb_match_stats_serialfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(PbSetsSerialize(fcinfo, STATS));
}

PG_FUNCTION_INFO_V1(pb_match_stats_deserialfn);
/* Rebuild a partial state. */
Datum
pb_match_stats_deserialfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(PbSetsDeserialize(fcinfo, STATS));
}

/* The two sets as the core sees them: objects numbered within their set. */
typedef struct MatchSets
{
	const PbBatch *batch;
	uint32	   *shape_of[2];	/* [true 0 / pred 1][object]: its batch shape */
	double	   *area[2];
	uint32		n[2];
	const int64 *ids;			/* pb_match_objects: per batch shape */
	const bool *id_null;
	/* the pairs as the pipeline gives them, then renumbered */
	PbMatchPair *pairs;
	size_t		npairs,
				cap;
} MatchSets;

/* Keep a pair the pipeline found (shapes of the batch, for now). */
static void
KeepPair(void *ctx, uint32_t a, uint32_t b, double area)
{
	MatchSets  *ms = (MatchSets *) ctx;

	if (ms->npairs == ms->cap)
	{
		ms->cap = Max(4096, ms->cap * 2);
		ms->pairs = ms->pairs ? repalloc_huge(ms->pairs, ms->cap * sizeof(PbMatchPair))
			: palloc_extended(ms->cap * sizeof(PbMatchPair), MCXT_ALLOC_HUGE);
	}
	ms->pairs[ms->npairs++] = (PbMatchPair) {a, b, area};
}

/* Objects by their shapes alone (PbShapeOrder): the aggregate's tie-break. */
static int
ShapeOrder(void *ctx, int pred, uint32_t i, uint32_t j)
{
	const MatchSets *ms = ctx;

	return PbShapeOrder(ms->batch, ms->shape_of[pred][i], ms->shape_of[pred][j]);
}

/* Objects by id (NULL last), then shape: pb_match_objects' tie-break. */
static int
IdOrder(void *ctx, int pred, uint32_t i, uint32_t j)
{
	const MatchSets *ms = ctx;
	uint32		a = ms->shape_of[pred][i],
				b = ms->shape_of[pred][j];

	if (ms->id_null[a] != ms->id_null[b])
		return ms->id_null[a] ? 1 : -1;
	if (!ms->id_null[a] && ms->ids[a] != ms->ids[b])
		return ms->ids[a] < ms->ids[b] ? -1 : 1;
	return PbShapeOrder(ms->batch, a, b);
}

/*
 * Pair the sets through the pipeline, number each set's objects, and
 * compute the metrics (and objs, when given) at threshold; a WARNING when
 * the pairs show that a set's objects overlap one another.
 */
static void
MatchSetPair(SetsState *s, MatchSets *ms, double threshold, PbMatchStats *st,
			 PbMatchObjects *objs, const char *caller)
{
	const uint8 *in_a;
	uint32	   *index;
	PbMatchInput in;
	PbAllocator mem;
	PbError		err;
	PbStatus	rc;

	PbSetsPairs(s, KeepPair, ms, caller);
	ms->batch = PbSetsBatch(s);
	in_a = PbSetsInA(s);
	index = palloc_extended(sizeof(uint32) * (ms->batch->nshapes + 1), MCXT_ALLOC_HUGE);
	for (int k = 0; k < 2; k++)
	{
		ms->shape_of[k] = palloc_extended(sizeof(uint32) * (ms->batch->nshapes + 1), MCXT_ALLOC_HUGE);
		ms->area[k] = palloc_extended(sizeof(double) * (ms->batch->nshapes + 1), MCXT_ALLOC_HUGE);
		ms->n[k] = 0;
	}
	for (uint32 i = 0; i < ms->batch->nshapes; i++)
	{
		int			k = in_a[i] ? 0 : 1;

		index[i] = ms->n[k];
		ms->shape_of[k][ms->n[k]] = i;
		ms->area[k][ms->n[k]++] = ms->batch->shapes[i].area;
	}
	for (size_t k = 0; k < ms->npairs; k++)
	{
		ms->pairs[k].t = index[ms->pairs[k].t];
		ms->pairs[k].p = index[ms->pairs[k].p];
	}
	pfree(index);

	memset(&in, 0, sizeof(in));
	in.n_true = ms->n[0];
	in.n_pred = ms->n[1];
	in.area_true = ms->area[0];
	in.area_pred = ms->area[1];
	in.pairs = ms->pairs;
	in.npairs = ms->npairs;
	in.threshold = threshold;
	in.order = ms->ids ? IdOrder : ShapeOrder;
	in.order_ctx = ms;
	in.poll = PbInterruptArrived;
	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	rc = PbMatch(&in, &mem, st, objs, &err);
	if (rc == PB_ERR_STOPPED)
	{
		CHECK_FOR_INTERRUPTS();
		elog(ERROR, "%s: matching stopped without a cancel", caller);
	}
	if (rc != PB_OK)
		elog(ERROR, "%s: %s", caller, err.message);
	if (st->true_overcovered > 0 || st->pred_overcovered > 0)
		ereport(WARNING,
				(errmsg("%s: the objects of set %s overlap one another", caller,
						st->true_overcovered > 0 ? (st->pred_overcovered > 0 ? "a and of set b" : "b") : "a"),
				 errdetail("Objects of set a that set b covers more than their area: %lld; objects of set b that set a covers more than their area: %lld.",
						   (long long) st->true_overcovered, (long long) st->pred_overcovered),
				 errhint("dice_pixel, aji and aji_plus count overlapping areas more than once: they assume the objects of each set are disjoint, as in a label image.")));
}

/* The pb_match_stats_result row of st (threshold NULL without one). */
static Datum
StatsDatum(FunctionCallInfo fcinfo, const PbMatchStats *st, bool has_threshold)
{
	TupleDesc	tupdesc;
	Datum		v[STATS_COLUMNS];
	bool		nulls[STATS_COLUMNS] = {0};
	int			i = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s: return type must be a row type", STATS);
	v[i++] = Int64GetDatum(st->n_true);
	v[i++] = Int64GetDatum(st->n_pred);
	v[i++] = Int64GetDatum(st->tp);
	v[i++] = Int64GetDatum(st->fp);
	v[i++] = Int64GetDatum(st->fn);
	v[i++] = Float8GetDatum(st->precision);
	v[i++] = Float8GetDatum(st->recall);
	v[i++] = Float8GetDatum(st->accuracy);
	v[i++] = Float8GetDatum(st->f1);
	v[i++] = Float8GetDatum(st->mean_true_score);
	v[i++] = Float8GetDatum(st->mean_matched_score);
	v[i++] = Float8GetDatum(st->panoptic_quality);
	v[i++] = Float8GetDatum(st->sq);
	v[i++] = Float8GetDatum(st->dq);
	v[i++] = Float8GetDatum(st->aji);
	v[i++] = Float8GetDatum(st->aji_plus);
	v[i++] = Float8GetDatum(st->dice_pixel);
	nulls[i] = !has_threshold;
	v[i++] = Float8GetDatum(st->threshold);
	Assert(i == STATS_COLUMNS);
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), v, nulls));
}

PG_FUNCTION_INFO_V1(pb_match_stats_finalfn);
/*
 * Pair the two sets, match them and return the metrics; no rows give
 * zeros with a NULL threshold.
 */
Datum
pb_match_stats_finalfn(PG_FUNCTION_ARGS)
{
	SetsState  *s = PG_ARGISNULL(0) ? NULL : (SetsState *) PG_GETARG_POINTER(0);
	PbMatchStats st;
	MatchSets	ms;
	double		threshold;

	memset(&st, 0, sizeof(st));
	if (s == NULL || !PbSetsThreshold(s, &threshold))
		PG_RETURN_DATUM(StatsDatum(fcinfo, &st, false));
	memset(&ms, 0, sizeof(ms));
	MatchSetPair(s, &ms, threshold, &st, NULL, STATS);
	PG_RETURN_DATUM(StatsDatum(fcinfo, &st, true));
}

/*
 * Put the row of object k of set (0 a, 1 b) into the result; status[] are
 * the texts tp, fn, fp.
 */
static void
ObjectRow(ReturnSetInfo *rsinfo, const MatchSets *ms, const PbMatchObjects *o, int set, uint32 k,
		  const Datum *status)
{
	uint32		shape = ms->shape_of[set][k],
				mate = set == 0 ? o->true_match[k] : o->pred_match[k];
	Datum		v[5];
	bool		nulls[5] = {false, ms->id_null[shape], mate == PB_MATCH_NONE, false, false};

	v[0] = BoolGetDatum(set == 0);
	v[1] = Int64GetDatum(ms->ids[shape]);
	if (mate != PB_MATCH_NONE)
	{
		uint32		other = ms->shape_of[1 - set][mate];

		nulls[2] = ms->id_null[other];
		v[2] = Int64GetDatum(ms->ids[other]);
	}
	v[3] = Float8GetDatum(set == 0 ? o->true_iou[k] : o->pred_iou[k]);
	v[4] = status[mate != PB_MATCH_NONE ? 0 : set == 0 ? 1 : 2];
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
}

PG_FUNCTION_INFO_V1(pb_match_objects);
/*
 * One row per object of table_a (the reference) and table_b: tp with its
 * partner and their IoU, fn or fp with no partner and its largest IoU
 * with any object of the other table.  Set a's rows come first.
 */
Datum
pb_match_objects(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	double		threshold = CheckThreshold(PG_GETARG_FLOAT8(6), OBJECTS);
	MemoryContext cxt,
				old;
	PbTableSets ts;
	MatchSets	ms;
	PbMatchStats st;
	PbMatchObjects o;
	Datum		status[3] = {CStringGetTextDatum("tp"), CStringGetTextDatum("fn"),
	CStringGetTextDatum("fp")};

	InitMaterializedSRF(fcinfo, 0);
	cxt = AllocSetContextCreate(CurrentMemoryContext, OBJECTS, ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	PbReadTables(fcinfo, cxt, OBJECTS, &ts);
	memset(&ms, 0, sizeof(ms));
	ms.ids = ts.ids;
	ms.id_null = ts.id_null;
	{
		uint32		n = PbSetsBatch(ts.sets)->nshapes + 1;

		o.true_match = palloc_extended(sizeof(uint32) * n, MCXT_ALLOC_HUGE);
		o.pred_match = palloc_extended(sizeof(uint32) * n, MCXT_ALLOC_HUGE);
		o.true_iou = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
		o.pred_iou = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	}
	MatchSetPair(ts.sets, &ms, threshold, &st, &o, OBJECTS);
	MemoryContextSwitchTo(old);
	for (int set = 0; set < 2; set++)
		for (uint32 k = 0; k < ms.n[set]; k++)
		{
			if ((k & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			ObjectRow(rsinfo, &ms, &o, set, k, status);
		}
	MemoryContextDelete(cxt);
	return (Datum) 0;
}
