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

#include "match_sets.h"

#define STATS "pb_match_stats"
#define OBJECTS "pb_match_objects"
#define DEFAULT_THRESHOLD 0.5
#define STATS_COLUMNS 18

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
	PbSetsSetThreshold(s, PbCheckIoUThreshold(PG_GETARG_FLOAT8(3), STATS), STATS);
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

/* The pb_match_stats_result row of st (threshold NULL without one). */
Datum
PbMatchStatsDatum(FunctionCallInfo fcinfo, const PbMatchStats *st, bool has_threshold)
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
	PbMatchSets ms;
	double		threshold;

	memset(&st, 0, sizeof(st));
	if (s == NULL || !PbSetsThreshold(s, &threshold))
		PG_RETURN_DATUM(PbMatchStatsDatum(fcinfo, &st, false));
	memset(&ms, 0, sizeof(ms));
	PbMatchSetPair(s, &ms, threshold, &st, NULL, STATS);
	PG_RETURN_DATUM(PbMatchStatsDatum(fcinfo, &st, true));
}

/*
 * Put the row of object k of set (0 a, 1 b) into the result; status[] are
 * the texts tp, fn, fp.
 */
static void
ObjectRow(ReturnSetInfo *rsinfo, const PbMatchSets *ms, const PbMatchObjects *o, int set, uint32 k,
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
	double		threshold = PbCheckIoUThreshold(PG_GETARG_FLOAT8(6), OBJECTS);
	MemoryContext cxt;
	PbMatchSets ms;
	PbMatchStats st;
	PbMatchObjects o;
	Datum		status[3] = {CStringGetTextDatum("tp"), CStringGetTextDatum("fn"),
	CStringGetTextDatum("fp")};

	InitMaterializedSRF(fcinfo, 0);
	cxt = AllocSetContextCreate(CurrentMemoryContext, OBJECTS, ALLOCSET_DEFAULT_SIZES);
	PbMatchTables(fcinfo, cxt, threshold, OBJECTS, &ms, &st, &o);
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
