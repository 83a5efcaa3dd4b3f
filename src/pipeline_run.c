/*
 * pipeline_run.c: one run of the SCCG pipeline (src/core/sccg/pipeline.h)
 * in a backend: the configuration from the pixelbox.* settings (the
 * testing ones through test_seams.c), the GPU as its device, cancels,
 * cleanup on error, and the report of the last run (pb_pipeline_report()).
 *
 * The pipeline's threads never call PostgreSQL.  This backend's thread
 * feeds tasks and waits, polling for cancels; on a cancel the threads are
 * stopped and joined before the error is raised, and a callback on the
 * run's memory context stops and joins them whenever that context goes
 * (an error anywhere, the end of the aggregate), so no thread outlives
 * the memory it reads.
 *
 * While it runs, its progress (tasks done of all, pairs computed) goes to
 * progress.c: into this backend's slot from the polls of its waits, and
 * as a NOTICE (pixelbox.progress) between feeds and between waits of at
 * most a NOTICE's interval, never from inside the pipeline's lock.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "core/sccg/pb_sccg.h"
#include "pixelbox.h"

struct PbPipeRun
{
	PbPipeline *pipe;
	PbPipeDevice device;
	bool		has_device;
	const char *caller;
	MemoryContext cxt;
	MemoryContextCallback cb;
	int64		total;			/* tasks the run will have, -1: not known yet */
	double		tile_s;			/* time the caller spent making tasks */
	double		merge_s;		/* time spent unpacking workers' chunks */
	int64		merge_chunks;
	int64		handoff[2];		/* workers' chunks via shared memory, in the row */
	int64		tasks;
};

/* The last finished run of this backend, for pb_pipeline_report(). */
static PbPipeStats last_stats;
static int64 last_tasks;
static double last_tile_s;
static double last_merge_s;
static int64 last_merge_chunks;
static int64 last_handoff[2];
static bool last_valid;

/* Memory context callback: stop and join the threads, free the pipeline. */
static void
RunCleanup(void *arg)
{
	PbPipeRun	   *r = (PbPipeRun *) arg;

	if (r->pipe)
	{
		PbPipeDestroy(r->pipe);
		r->pipe = NULL;
	}
	if (r->has_device)
		PbGpuPipeRelease(r);
	r->has_device = false;
}

/*
 * Start a run in cxt (its memory, and its cleanup when cxt goes): the GPU
 * as its device when it is wanted and free, the settings, the threads.
 * A run of at most tasks tasks (> 0) starts no more threads than that: a
 * small run (one key of many, a small group) would spend more starting
 * idle threads than computing.  A source (not NULL) is the batch every
 * task will borrow from: the GPU starts taking its points at once, while
 * the caller makes the tasks.
 */
PbPipeRun *
PbPipeRunStart(MemoryContext cxt, const char *caller, int64 tasks, const PbBatch *source)
{
	PbPipeRun	   *r = MemoryContextAllocZero(cxt, sizeof(PbPipeRun));
	PbPipeConfig c;
	int			threads = PbCpuThreads();

	r->caller = caller;
	r->cxt = cxt;
	r->total = -1;
	r->cb.func = RunCleanup;
	r->cb.arg = r;
	MemoryContextRegisterResetCallback(cxt, &r->cb);
	r->has_device = PbGpuPipeDevice(r, &r->device, caller);
	if (tasks > 0 && tasks < threads)
		threads = (int) tasks;
	PbPipeConfigDefaults(&c, threads);
	c.method = (PbMethod) pb_cpu_method;
	c.device = r->has_device ? &r->device : NULL;
	c.migration = pb_migration;
	c.staged = !pb_pipelined;
	c.source = source;
	PbSeamsPipeline(&c, cxt);
	r->pipe = PbPipeStart(&c);
	if (r->pipe == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("%s: could not start the pipeline's threads", caller)));
	PbProgressStart(caller, cxt);
	PbProgressEnter(PB_PHASE_COMPARE, -1);
	return r;
}

/* The run's progress into this backend's slot, and a NOTICE when notice and due. */
static void
RunProgress(PbPipeRun *r, bool notice)
{
	PbPipeProgress pr;

	PbPipeGetProgress(r->pipe, &pr);
	PbProgressUpdate((int64) pr.done, r->total, (int64) pr.pairs);
	if (notice)
		PbProgressNotice();
}

/*
 * The poll of the run's waits (the pipeline's lock held): the slot
 * refreshed now and then (a few stores), and whether a cancel came.
 */
static int
RunPoll(void *arg)
{
	if (PbProgressDue())
		RunProgress((PbPipeRun *) arg, false);
	return PbInterruptArrived(NULL);
}

/* The run will have tasks tasks in all (its progress's total). */
void
PbPipeRunExpect(PbPipeRun *r, int64 tasks)
{
	r->total = tasks;
	RunProgress(r, false);
}

/*
 * The pipeline stopped before the end: stop and join its threads, then
 * raise why (out of memory in a thread, or the cancel that stopped it).
 */
static void
RunStopped(PbPipeRun *r)
{
	bool		oom = PbPipeOutOfMemory(r->pipe);

	RunCleanup(r);
	PbProgressEnd();
	if (oom)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("%s: out of memory in the pipeline's threads", r->caller),
				 errhint("Compare fewer polygons at once (for example GROUP BY slide), or give the server more memory.")));
	CHECK_FOR_INTERRUPTS();
	elog(ERROR, "%s: the pipeline stopped without a cancel", r->caller);
}

/* Hand a task to the pipeline; errors (cancel, out of memory) are raised. */
void
PbPipeRunFeed(PbPipeRun *r, PbTask *t)
{
	if (!PbPipeFeed(r->pipe, t, RunPoll, r))
		RunStopped(r);
	r->tasks++;
	RunProgress(r, true);
}

/* Count time the caller spent making tasks (the report's tile row). */
void
PbPipeRunAddTileTime(PbPipeRun *r, double seconds)
{
	r->tile_s += seconds;
}

/*
 * Count chunks unpacked before the run and their time (the report's merge
 * row), and how many of them came through shared memory and in the
 * serialized states themselves (its handoff rows).
 */
void
PbPipeRunAddMerge(PbPipeRun *r, int64 chunks, double seconds, int64 shared, int64 in_state)
{
	r->merge_chunks += chunks;
	r->merge_s += seconds;
	r->handoff[0] += shared;
	r->handoff[1] += in_state;
}

/*
 * Wait for the end of the run, reporting its progress, and take its
 * totals into acc; keep its figures for the report; the GPU goes back,
 * with the one WARNING of a fallback when the run dropped it.  The
 * progress of a streaming run whose operation another run of this
 * backend ended (GROUP BY) starts again here.
 */
void
PbPipeRunFinish(PbPipeRun *r, PbCompareAcc *acc)
{
	int			st;

	if (!PbProgressActive())
	{
		PbProgressStart(r->caller, r->cxt);
		PbProgressEnter(PB_PHASE_COMPARE, -1);
	}
	if (r->total < 0)
		r->total = r->tasks;
	RunProgress(r, false);
	while ((st = PbPipeFinishWithin(r->pipe, RunPoll, r, PbProgressNoticeIn())) < 0)
		RunProgress(r, true);
	if (st == 0)
		RunStopped(r);
	PbProgressEnd();
	PbPipeTotals(r->pipe, acc);
	PbPipeGetStats(r->pipe, &last_stats);
	last_tasks = r->tasks;
	last_tile_s = r->tile_s;
	last_merge_s = r->merge_s;
	last_merge_chunks = r->merge_chunks;
	last_handoff[0] = r->handoff[0];
	last_handoff[1] = r->handoff[1];
	last_valid = true;
	if (r->has_device)
		PbGpuPipeRelease(r);
	r->has_device = false;
	if (last_stats.device_error[0])
		PbGpuFallback(r->caller, last_stats.device_error);
}

/* The run is over: stop and join its threads, free the pipeline. */
void
PbPipeRunEnd(PbPipeRun *r)
{
	RunCleanup(r);
}

/* One row of the report. */
static void
ReportRow(ReturnSetInfo *rsinfo, const char *stage, const char *device, int64 tasks,
		  int64 pairs, int64 migrated, double busy_s)
{
	Datum		values[6];
	bool		nulls[6] = {false, device == NULL, false, pairs < 0, false, false};

	values[0] = CStringGetTextDatum(stage);
	values[1] = device ? CStringGetTextDatum(device) : (Datum) 0;
	values[2] = Int64GetDatum(tasks);
	values[3] = Int64GetDatum(pairs);
	values[4] = Int64GetDatum(migrated);
	values[5] = Float8GetDatum(busy_s);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* One row per stage and device of a stage's figures. */
static void
StageRow(ReturnSetInfo *rsinfo, const char *stage, const char *device,
		 const PbPipeStageStats *s)
{
	ReportRow(rsinfo, stage, device, (int64) s->tasks, (int64) s->pairs, (int64) s->migrated,
			  s->busy_s);
}

PG_FUNCTION_INFO_V1(pb_pipeline_report);
/*
 * The last pipeline run of this backend, stage by stage and device by
 * device: tasks, pairs, tasks moved there by migration, busy seconds
 * (summed over threads), and the tasks a congested aggregator kept for the
 * GPU (balance); no rows before the first run.
 */
Datum
pb_pipeline_report(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const PbPipeStats *s = &last_stats;

	InitMaterializedSRF(fcinfo, 0);
	if (!last_valid)
		return (Datum) 0;
	ReportRow(rsinfo, "handoff", "shared_memory", last_handoff[0], -1, 0, 0);
	ReportRow(rsinfo, "handoff", "tuple_queue", last_handoff[1], -1, 0, 0);
	ReportRow(rsinfo, "merge", "cpu", last_merge_chunks, -1, 0, last_merge_s);
	ReportRow(rsinfo, "tile", "cpu", last_tasks, -1, 0, last_tile_s);
	StageRow(rsinfo, "filter", "cpu", &s->filter_cpu);
	StageRow(rsinfo, "filter", "gpu", &s->filter_device);
	StageRow(rsinfo, "aggregate", "cpu", &s->aggregate_cpu);
	StageRow(rsinfo, "aggregate", "gpu", &s->aggregate_device);
	ReportRow(rsinfo, "balance", "gpu", (int64) s->kept_for_device, -1, 0, 0);
	ReportRow(rsinfo, "upload", "gpu", s->source_held, -1, 0, s->hold_s);
	ReportRow(rsinfo, "total", NULL, last_tasks,
			  (int64) (s->filter_cpu.pairs + s->filter_device.pairs),
			  (int64) (s->aggregate_cpu.migrated + s->filter_device.migrated), s->wall_s);
	return (Datum) 0;
}
