/*
 * match_sets.c: two polygon sets for the instance metrics: the pairs the
 * SCCG pipeline finds, each set's objects numbered, the tie-break orders,
 * and the core's matching (match.h), for the aggregate and for the
 * functions over two tables.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "match_sets.h"

/* The IoU threshold argument, checked: in [0, 1]. */
double
PbCheckIoUThreshold(double threshold, const char *caller)
{
	if (!(threshold >= 0.0 && threshold <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: iou_threshold must be between 0 and 1, not %g", caller, threshold)));
	return threshold;
}

/* Keep a pair the pipeline found (shapes of the batch, for now). */
static void
KeepPair(void *ctx, uint32_t a, uint32_t b, double area)
{
	PbMatchSets *ms = (PbMatchSets *) ctx;

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
	const PbMatchSets *ms = ctx;

	return PbShapeOrder(ms->batch, ms->shape_of[pred][i], ms->shape_of[pred][j]);
}

/* Objects by id (NULL last), then shape: pb_match_objects' tie-break. */
static int
IdOrder(void *ctx, int pred, uint32_t i, uint32_t j)
{
	const PbMatchSets *ms = ctx;
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
 * compute the parts of the metrics (and objs, when given) at threshold.
 */
void
PbMatchSetParts(SetsState *s, PbMatchSets *ms, double threshold, PbMatchParts *parts,
				PbMatchObjects *objs, const char *caller)
{
	const uint8 *in_a;
	uint32	   *index;
	PbMatchInput *in = &ms->in;
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

	memset(in, 0, sizeof(*in));
	in->n_true = ms->n[0];
	in->n_pred = ms->n[1];
	in->area_true = ms->area[0];
	in->area_pred = ms->area[1];
	in->pairs = ms->pairs;
	in->npairs = ms->npairs;
	in->threshold = threshold;
	in->order = ms->ids ? IdOrder : ShapeOrder;
	in->order_ctx = ms;
	in->poll = PbInterruptArrived;
	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	rc = PbMatchPartsOf(in, &mem, parts, objs, &err);
	if (rc == PB_ERR_STOPPED)
	{
		CHECK_FOR_INTERRUPTS();
		elog(ERROR, "%s: matching stopped without a cancel", caller);
	}
	if (rc != PB_OK)
		elog(ERROR, "%s: %s", caller, err.message);
}

/* A WARNING when st shows that a set's objects overlap one another. */
void
PbWarnOvercovered(const PbMatchStats *st, const char *caller)
{
	if (st->true_overcovered > 0 || st->pred_overcovered > 0)
		ereport(WARNING,
				(errmsg("%s: the objects of set %s overlap one another", caller,
						st->true_overcovered > 0 ? (st->pred_overcovered > 0 ? "a and of set b" : "b") : "a"),
				 errdetail("Objects of set a that set b covers more than their area: %lld; objects of set b that set a covers more than their area: %lld.",
						   (long long) st->true_overcovered, (long long) st->pred_overcovered),
				 errhint("dice_pixel, aji and aji_plus count overlapping areas more than once: they assume the objects of each set are disjoint, as in a label image.")));
}

/*
 * Pair the sets, number each set's objects, and compute the metrics (and
 * objs, when given) at threshold; a WARNING when the pairs show that a
 * set's objects overlap one another.
 */
void
PbMatchSetPair(SetsState *s, PbMatchSets *ms, double threshold, PbMatchStats *st,
			   PbMatchObjects *objs, const char *caller)
{
	PbMatchParts parts;

	PbMatchSetParts(s, ms, threshold, &parts, objs, caller);
	PbMatchStatsOf(&parts, threshold, st);
	PbWarnOvercovered(st, caller);
}

/*
 * Read the tables of arguments 0-5 in cxt and match them at threshold,
 * ties broken by id: what pb_match_objects and pb_tile_agreement start
 * from.
 */
void
PbMatchTables(FunctionCallInfo fcinfo, MemoryContext cxt, double threshold, const char *caller,
			  PbMatchSets *ms, PbMatchStats *st, PbMatchObjects *objs)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	PbTableSets ts;
	uint32		n;

	PbReadTables(fcinfo, cxt, caller, &ts);
	memset(ms, 0, sizeof(*ms));
	ms->ids = ts.ids;
	ms->id_null = ts.id_null;
	n = PbSetsBatch(ts.sets)->nshapes + 1;
	objs->true_match = palloc_extended(sizeof(uint32) * n, MCXT_ALLOC_HUGE);
	objs->pred_match = palloc_extended(sizeof(uint32) * n, MCXT_ALLOC_HUGE);
	objs->true_iou = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	objs->pred_iou = palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
	PbMatchSetPair(ts.sets, ms, threshold, st, objs, caller);
	MemoryContextSwitchTo(old);
}
