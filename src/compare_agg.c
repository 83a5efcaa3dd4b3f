/*
 * compare_agg.c: the jaccard_gpu and pb_cross_compare aggregates.
 *
 * Both share one transition state: rows are decoded into a PbBatch, and
 * when the batch reaches its memory budget its pairs are computed and
 * folded into exact, order-independent totals.  A large geometry met in
 * many rows (a blob on either side of a nested-loop join) is decoded once
 * per batch (geom_memo.c), its pairs sharing the shape.  With a GPU the
 * state holds two batches: while the GPU computes one (its rectilinear
 * integer pairs; the others are computed on the CPU at once), the backend
 * decodes rows into the other; results are folded when the next batch is
 * ready and at the end.  Without the GPU a serial plan's batches go the
 * same way to a CPU thread of the backend (area_thread.h), so the join's
 * scan and decoding overlap the areas there too; parallel workers compute
 * their own batches, as their siblings already fill the CPUs.
 *
 * The state is a pb_comparison_state, an expanded object: the aggregate
 * updates it in place row after row, and its flat form (what crosses to
 * a parallel leader or, as text, from a Citus worker to the coordinator)
 * is only the exact totals, a few hundred bytes, computed when it is
 * flattened.  So parallel workers and Citus workers compute their own
 * pairs and the combine function adds totals; answers are bit-identical
 * whatever the plan, the node or the device.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"

#include "core/geom/area_thread.h"
#include "core/geom/pb_geom.h"
#include "core/sccg/pb_sccg.h"
#include "agg_state.h"
#include "pixelbox.h"

/* Whether a state's batches go to the GPU (decided at its first batch). */
typedef enum GpuMode
{
	GPU_UNDECIDED, GPU_ON, GPU_OFF
} GpuMode;

/* Transition state of the comparison aggregates, an expanded object. */
typedef struct PbAggState
{
	PbAggStateHeader head;		/* first: the expanded pb_comparison_state */
	PbAllocator mem;			/* palloc in the state's context */
	PbBatch		batch[2];		/* batch[cur] fills; batch[1 - cur] may be on the GPU */
	uint32_t   *gpu_idx[2];		/* a batch's pairs sent to the GPU */
	uint32_t	gpu_n[2],
				gpu_cap[2];
	int			cur;
	bool		in_flight;		/* batch[1 - cur] is on the GPU */
	GpuMode		gpu;
	bool		use_cpu_thread; /* without the GPU, batches go to cpu_thread */
	bool		cpu_in_flight;	/* batch[1 - cur] is on cpu_thread */
	PbAreaThread cpu_thread;
	PbScratch	scratch;
	PbCompareAcc acc;			/* totals of the computed pairs */
	const char *caller;			/* the aggregate's name, for messages */
	uint64		serial;			/* fills of batch[cur] so far */
	PbGeomMemo	memo[2];		/* each argument's large values in this fill */
} PbAggState;

static void StateFinish(PbAggState *s);

/*
 * The state whose batch is on its CPU thread, if any: one at a time per
 * backend, so that many states (GROUP BY) never start a thread each; a
 * state that finds it taken computes its batch in the backend.
 */
static PbAggState *cpu_thread_user = NULL;

/*
 * The calling aggregate's name, or a generic one.  Citus runs the
 * aggregate inside its own (worker_partial_agg(oid, ...) on the workers):
 * then the name is that of the aggregate its first argument names.
 */
static const char *
AggregateName(FunctionCallInfo fcinfo, MemoryContext cxt)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Oid			agg = aggref ? aggref->aggfnoid : InvalidOid;
	char	   *name = OidIsValid(agg) ? get_func_name(agg) : NULL;

	if (name && strcmp(name, "worker_partial_agg") == 0 && aggref->args != NIL)
	{
		Expr	   *first = ((TargetEntry *) linitial(aggref->args))->expr;

		if (IsA(first, Const) && !((Const *) first)->constisnull)
			name = get_func_name(DatumGetObjectId(((Const *) first)->constvalue));
	}
	if (name == NULL)
		return "pixelbox aggregate";
	return MemoryContextStrdup(cxt, name);
}

/*
 * Memory context callback: the state dies, so do its claim on the GPU and
 * its CPU thread (stopped before the batch it reads is freed).
 */
static void
StateGone(void *arg)
{
	PbAggState *s = arg;

	PbGpuForget(s);
	PbAreaThreadFree(&s->cpu_thread);
	if (cpu_thread_user == s)
		cpu_thread_user = NULL;
}

/* Set up an empty state for the aggregate called by fcinfo. */
static void
StateInit(PbAggStateHeader *head, FunctionCallInfo fcinfo)
{
	PbAggState *s = (PbAggState *) head;
	MemoryContext cxt = head->eoh.eoh_context;
	MemoryContextCallback *cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));

	PbPgAllocatorInit(&s->mem, cxt);
	PbBatchInit(&s->batch[0], &s->mem);
	PbBatchInit(&s->batch[1], &s->mem);
	PbScratchInit(&s->scratch, &s->mem);
	s->scratch.keep_runs = true;	/* a join's rows: the outer value comes back */
	PbAreaThreadInit(&s->cpu_thread, &PbMallocAllocator, true);
	PbCompareInit(&s->acc);
	s->caller = AggregateName(fcinfo, cxt);
	cb->func = StateGone;
	cb->arg = s;
	MemoryContextRegisterResetCallback(cxt, cb);
}

/* The flat form: the pending pairs computed, only the totals. */
static uint8 *
StateFlatten(PbAggStateHeader *head, Size *len)
{
	PbAggState *s = (PbAggState *) head;
	uint8	   *flat = MemoryContextAlloc(head->eoh.eoh_context, PB_COMPARISON_STATE_MAX);

	StateFinish(s);
	*len = PbComparisonStateFlatten(&s->acc, flat);
	return flat;
}

/* Read a flat state's totals into an empty state. */
static void
StateRead(PbAggStateHeader *head, const uint8 *flat, Size len)
{
	PbComparisonStateRead(flat, len, &((PbAggState *) head)->acc);
}

/* Add from's totals (its pending pairs computed) to into's. */
static void
StateAdd(PbAggStateHeader *into, PbAggStateHeader *from)
{
	StateFinish((PbAggState *) from);
	PbCompareMerge(&((PbAggState *) into)->acc, &((PbAggState *) from)->acc);
}

static const PbAggStateKind CompareKind = {
	"pixelbox comparison state", sizeof(PbAggState),
	StateInit, StateFlatten, StateRead, StateAdd
};

/* State argument argno of support function fn (NULL for NULL). */
static PbAggState *
StateArg(FunctionCallInfo fcinfo, int argno, const char *fn)
{
	return (PbAggState *) PbAggStateArg(fcinfo, argno, &CompareKind, fn);
}

/* Fold pair i of batch b, whose intersection area is inter, into the totals. */
static inline void
FoldPair(PbAggState *s, const PbBatch *b, uint32_t i, double inter)
{
	const PbPair *pr = &b->pairs[i];

	PbCompareAdd(&s->acc, b->shapes[pr->a].area, b->shapes[pr->b].area, inter);
}

/* Compute pairs idx[0..n) of b (all pairs when idx is NULL) on the CPU. */
static void
ComputeOnCpu(PbAggState *s, const PbBatch *b, const uint32_t *idx, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
	{
		uint32_t	i = idx ? idx[k] : k;

		FoldPair(s, b, i, PbIntersectionArea(&s->scratch, b, b->pairs[i].a,
											 b->pairs[i].b, pb_cpu_method));
		if ((k & 255) == 255)
			CHECK_FOR_INTERRUPTS();
	}
}

/* Wait for the batch on the GPU and fold it (on the CPU if the GPU failed). */
static void
CollectGpu(PbAggState *s)
{
	int			g = 1 - s->cur;
	PbBatch    *b = &s->batch[g];
	const int64_t *areas = PbGpuFinishBatch(s, s->caller);

	if (areas == NULL)
	{
		s->gpu = GPU_OFF;
		ComputeOnCpu(s, b, s->gpu_idx[g], s->gpu_n[g]);
	}
	else
		for (uint32_t k = 0; k < s->gpu_n[g]; k++)
			FoldPair(s, b, s->gpu_idx[g][k], (double) areas[k]);
	PbBatchReset(b);
	s->in_flight = false;
}

/*
 * Send the current batch's rectilinear integer pairs to the GPU (the
 * others are computed now) and switch to the other batch; false when the
 * GPU is busy or failed, leaving those pairs listed in gpu_idx[cur].
 */
static bool
SendToGpu(PbAggState *s)
{
	int			c = s->cur;
	PbBatch    *b = &s->batch[c];
	PbGpuStart	st;

	if (s->gpu_cap[c] < b->npairs)
	{
		s->gpu_idx[c] = s->gpu_idx[c] ? repalloc(s->gpu_idx[c], sizeof(uint32_t) * b->npairs)
			: MemoryContextAlloc((MemoryContext) s->mem.ctx, sizeof(uint32_t) * b->npairs);
		s->gpu_cap[c] = b->npairs;
	}
	s->gpu_n[c] = 0;
	for (uint32_t i = 0; i < b->npairs; i++)
	{
		const PbShape *p = &b->shapes[b->pairs[i].a],
				   *q = &b->shapes[b->pairs[i].b];

		if (PbDeviceShape(b, p) && PbDeviceShape(b, q))
			s->gpu_idx[c][s->gpu_n[c]++] = i;
		else
			FoldPair(s, b, i, PbIntersectionArea(&s->scratch, b, b->pairs[i].a,
												 b->pairs[i].b, pb_cpu_method));
	}
	if (s->in_flight)
		CollectGpu(s);
	if (s->gpu_n[c] == 0 || s->gpu == GPU_OFF)
		return false;
	st = PbGpuStartBatch(s, b, s->gpu_idx[c], s->gpu_n[c], s->caller);
	if (st == PB_GPU_FAILED)
		s->gpu = GPU_OFF;
	if (st != PB_GPU_STARTED)
		return false;
	s->in_flight = true;
	s->cur = 1 - c;
	return true;
}

/*
 * Wait for the batch on the CPU thread and fold it; computed here instead
 * when the thread ran out of memory (it is not used again) or was stopped
 * by an interrupt that did not raise an error.
 */
static void
CollectCpu(PbAggState *s)
{
	PbBatch    *b = &s->batch[1 - s->cur];
	const double *areas;
	PbStatus	st = PbAreaThreadWait(&s->cpu_thread, PbInterruptArrived, NULL, &areas);

	s->cpu_in_flight = false;
	cpu_thread_user = NULL;
	if (st == PB_ERR_STOPPED)
		CHECK_FOR_INTERRUPTS();
	if (st == PB_ERR_NOMEM)
		s->use_cpu_thread = false;
	if (st == PB_OK)
		for (uint32_t i = 0; i < b->npairs; i++)
			FoldPair(s, b, i, areas[i]);
	else
		ComputeOnCpu(s, b, NULL, b->npairs);
	PbBatchReset(b);
}

/*
 * Hand the current batch to the CPU thread (after folding the one it had)
 * and switch to the other; false when the thread is not used, another
 * state's batch is on its own, or it could not start.
 */
static bool
StartOnCpuThread(PbAggState *s)
{
	if (s->cpu_in_flight)
		CollectCpu(s);
	if (!s->use_cpu_thread || cpu_thread_user != NULL ||
		!PbAreaThreadStart(&s->cpu_thread, &s->batch[s->cur], (PbMethod) pb_cpu_method))
		return false;
	cpu_thread_user = s;
	s->cpu_in_flight = true;
	s->cur = 1 - s->cur;
	return true;
}

/*
 * Compute the current batch (on the GPU when wanted, else on the CPU
 * thread unless it is the last) and start a new one.
 */
static void
StateFlush(PbAggState *s, bool last)
{
	PbBatch    *b = &s->batch[s->cur];

	if (b->npairs == 0)
		return;
	if (s->gpu == GPU_UNDECIDED)
	{
		s->gpu = PbGpuWanted(s->caller) ? GPU_ON : GPU_OFF;
		s->use_cpu_thread = !IsParallelWorker() && PbCpuThreads() > 1;
	}
	if (s->gpu == GPU_ON)
	{
		if (!SendToGpu(s))
		{
			ComputeOnCpu(s, b, s->gpu_idx[s->cur], s->gpu_n[s->cur]);
			PbBatchReset(b);
		}
		return;
	}
	if (last || !StartOnCpuThread(s))
	{
		ComputeOnCpu(s, b, NULL, b->npairs);
		PbBatchReset(b);
	}
}

/*
 * Compute everything pending, the batches in flight included (the last
 * batch here while the CPU thread ends its own).
 */
static void
StateFinish(PbAggState *s)
{
	StateFlush(s, true);
	if (s->in_flight)
		CollectGpu(s);
	if (s->cpu_in_flight)
		CollectCpu(s);
}

/* Bytes a batch may hold before it is computed. */
static size_t
BatchBudget(const PbAggState *s)
{
	size_t		budget = (size_t) pb_batch_memory_kb * 1024;
	size_t		gpu_half = ((size_t) pb_gpu_memory_mb << 20) / 2;

	return s->gpu == GPU_ON && gpu_half < budget ? gpu_half : budget;
}

PG_FUNCTION_INFO_V1(pb_compare_transfn);
/* Queue one (a, b) pair; NULL in either skips the row, as avg does. */
Datum
pb_compare_transfn(PG_FUNCTION_ARGS)
{
	PbAggState *s = (PbAggState *) PbAggStateTransition(fcinfo, &CompareKind,
														"pb_compare_transfn", NULL);
	PbBatch    *b;
	uint32_t	ia,
				ib;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_DATUM(PbAggStateDatum(&s->head));
	b = &s->batch[s->cur];
	if (b->nshapes == 0)
		s->serial++;			/* a new fill: the memos' shapes are gone */
	ia = PbDecodeGeometryArgMemo(fcinfo, 1, b, s->serial, &s->memo[0], s->head.eoh.eoh_context,
								 s->caller);
	ib = PbDecodeGeometryArgMemo(fcinfo, 2, b, s->serial, &s->memo[1], s->head.eoh.eoh_context,
								 s->caller);
	PbCheckSameSrid(b, ia, ib, s->caller);
	PbBatchAddPair(b, ia, ib);
	if (PbBatchBytes(b) >= BatchBudget(s))
		StateFlush(s, false);
	PG_RETURN_DATUM(PbAggStateDatum(&s->head));
}

PG_FUNCTION_INFO_V1(pb_compare_combinefn);
/*
 * Add the totals of the second state to the first: parallel workers'
 * states in the leader, Citus workers' on the coordinator.
 */
Datum
pb_compare_combinefn(PG_FUNCTION_ARGS)
{
	return PbAggStateCombine(fcinfo, &CompareKind, "pb_compare_combinefn");
}

/* Compute what is pending and return the figures (zeros for no state). */
static PbCompareResult
FinalResult(FunctionCallInfo fcinfo)
{
	PbCompareResult r;
	PbAggState *s = StateArg(fcinfo, 0, "pixelbox final function");
	PbCompareAcc empty;

	if (s == NULL)
	{
		PbCompareInit(&empty);
		PbCompareResultOf(&empty, &r);
		return r;
	}
	StateFinish(s);
	PbCompareResultOf(&s->acc, &r);
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

/* The seven pb_comparison columns of r (set_compare.c appends its own). */
void
PbCompareResultDatums(const PbCompareResult *r, Datum *values, bool *nulls)
{
	values[0] = Int64GetDatum(r->pairs);
	values[1] = Int64GetDatum(r->intersecting);
	values[2] = Float8GetDatum(r->jaccard_mean);
	values[3] = Float8GetDatum(r->jaccard_total);
	values[4] = Float8GetDatum(r->dice_mean);
	values[5] = Float8GetDatum(r->intersection_area);
	values[6] = Float8GetDatum(r->union_area);
	for (int i = 0; i < 7; i++)
		nulls[i] = false;
	nulls[2] = nulls[3] = nulls[4] = (r->intersecting == 0);
}

PG_FUNCTION_INFO_V1(pb_cross_compare_finalfn);
/* The pb_comparison row: counts, J', total Jaccard, Dice and area sums. */
Datum
pb_cross_compare_finalfn(PG_FUNCTION_ARGS)
{
	PbCompareResult r = FinalResult(fcinfo);
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7];

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "pb_cross_compare_finalfn: return type must be a row type");
	PbCompareResultDatums(&r, values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
