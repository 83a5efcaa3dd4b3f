/*
 * pipeline.h: the SCCG pipeline (Wang et al., VLDB 2012, section 4) over
 * tile tasks: filter (a packed Hilbert R-tree per tile and per set, joined)
 * and aggregator (the exact areas and the comparison totals), running
 * concurrently on threads connected by bounded buffers, with dynamic task
 * migration between the CPU threads and the device.
 *
 *   caller ──tasks──▶ [input buffer] ──▶ filter threads (CPU)
 *                          │                    │ pairs
 *                          │ (device idle:      ▼
 *                          │  filter work   [aggregator buffer] ──▶ aggregator
 *                          └─ migrates) ─────────────────────────▶ (owns the device)
 *
 * A task is one tile: shapes of set a and set b, and the window its pairs
 * are counted in.  Filter threads pair the task's shapes whose float boxes
 * intersect (exactly PostGIS's &&), compute the pairs no device can take
 * (non-rectilinear or non-integer shapes) themselves, and queue the task
 * for the aggregator.  The single aggregator assembles device batches from
 * several queued tasks; the CPU threads account the device's results.
 * Migration (config.migration):
 *  - device congested: when a filter thread finds the aggregator buffer
 *    full, it computes the smallest queued task on the CPU instead of
 *    waiting (the paper's GPU-to-CPU migration), when at the rates the run
 *    has measured (the device's batches, the threads' own tasks) it would
 *    finish it before the device gets through the pairs ahead of it;
 *    otherwise it waits (kept_for_device counts such tasks), so a device
 *    many times faster than a thread is not held up by the thread's tail;
 *  - device idle: when the aggregator finds its buffer empty, it takes
 *    unfiltered tasks from the input buffer and has the device filter and
 *    compute them (CPU-to-GPU migration of filter work).
 * Without a device the aggregator computes on the CPU: the same pipeline,
 * the same answers (every area is exact, every sum an exact accumulator).
 *
 * Threads never call the caller's code except the device operations (from
 * the aggregator thread only) and the decorators the caller may put around
 * the steps and the tasks' allocator (PbPipeSteps, PbPipeWrapMem), run with
 * every signal blocked, and allocate with malloc; the tasks' memory (their
 * copies of shapes, pairs, areas, the filter's temporaries) through a pool
 * of the pipeline's own (pool.h).  A task's memory goes back to the pool
 * as soon as the task is accounted, so the pages of finished tasks serve
 * the next ones and what the pipeline holds follows the tasks alive at
 * once, not the number fed.  The caller's thread feeds tasks and waits,
 * polling its own interrupt check; a stop request ends every thread
 * promptly.
 */
#ifndef PB_PIPELINE_H
#define PB_PIPELINE_H

#include <stdint.h>

#include "../geom/accum.h"
#include "../geom/batch.h"
#include "device.h"

/* A pair of a task's shapes (indices into its src_ids) and their area. */
typedef struct PbTaskPair
{
	uint32_t	a,
				b;
	double		area;
} PbTaskPair;

/*
 * One tile task.  The caller fills the source fields (and nothing else):
 * the shapes src_ids[0 .. na + nb) of batch src, set a first; src must stay
 * unchanged until the pipeline is destroyed.  A pair (a of set a, b of set
 * b) is counted when the boxes of a and b intersect, its reference point
 * (largest xmin, largest ymin of the two float boxes) lies in the half-open
 * window ref, and not both a < old_a and b < old_b (a tile seen again: those
 * pairs were counted by an earlier task).  hit[i] is set when shape i of the
 * task intersects some shape of the other set with positive area; with
 * keep_pairs set, those pairs are kept too, each once over all tasks.
 */
typedef struct PbTask
{
	/* filled by the caller */
	const PbBatch *src;
	const uint32_t *src_ids;
	uint32_t	na,
				nb;
	uint32_t	old_a,
				old_b;
	PbBox		ref;			/* [xmin, xmax) x [ymin, ymax); +-inf for all */
	int			all_int;		/* every shape PbDeviceShape: the device may filter it */
	int			keep_pairs;		/* keep the pairs of positive area in kept */
	/* filled by the pipeline */
	PbBatch		batch;			/* the task's own copy of its shapes (their rings
								 * and points borrowed from src), then pairs;
								 * empty again once the task is accounted */
	uint32_t	int_rings,		/* rings and points of its PB_SHAPE_INT shapes */
				int_ipts;
	uint32_t	nint;			/* pairs [0, nint) are device-eligible */
	double	   *areas;			/* their areas, when the device computed them */
	uint8_t    *hit;			/* per shape of the task */
	PbTaskPair *kept;			/* keep_pairs: its pairs of positive area */
	uint32_t	nkept,
				cap_kept;
	struct PbTask *next;
} PbTask;

/*
 * What a CPU thread does with a task, as two calls the caller may wrap (a
 * decorator calling the core's own: the glue's testing throttle sleeps
 * first).  filter makes the task's batch from mem, finds its pairs and
 * computes those no device takes; compute computes its device-eligible
 * pairs [0, nint).  Both run on pipeline threads (no caller's API but
 * malloc) and may jump to the thread's out-of-memory recovery point.
 */
typedef struct PbPipeSteps
{
	void		(*filter) (void *ctx, PbTask *t, const PbAllocator *mem, PbScratch *sc,
						   PbMethod method, PbCompareAcc *acc);
	void		(*compute) (void *ctx, PbTask *t, PbScratch *sc, PbMethod method,
							PbCompareAcc *acc);
	void	   *ctx;
} PbPipeSteps;

/* The core's steps (what PbPipeConfigDefaults puts in PbPipeConfig.steps). */
extern void PbPipeFilterStep(void *ctx, PbTask *t, const PbAllocator *mem, PbScratch *sc,
							 PbMethod method, PbCompareAcc *acc);
extern void PbPipeComputeStep(void *ctx, PbTask *t, PbScratch *sc, PbMethod method,
							  PbCompareAcc *acc);

/*
 * A decorator of the allocator of the tasks' memory (the pipeline's pool,
 * given as inner): returns the allocator the pipeline uses instead, which
 * must forward to inner and may call PbOutOfMemory (the glue's testing
 * fault makes it fail).  Called once, in PbPipeStart.
 */
typedef const PbAllocator *(*PbPipeWrapMem) (void *ctx, const PbAllocator *inner);

/* How a pipeline runs. */
typedef struct PbPipeConfig
{
	int			threads;		/* CPU threads (filter, and CPU aggregation) */
	PbMethod	method;			/* CPU engine for rectilinear integer pairs */
	const PbPipeDevice *device; /* NULL: no device, aggregate on the CPU */
	int			migration;		/* 1: dynamic task migration */
	int			staged;			/* 1: no pipelining: aggregate only after
								 * every task is filtered (the paper's NoPipe) */
	uint32_t	input_tasks;	/* capacity of the input buffer, in tasks */
	uint32_t	agg_pairs;		/* capacity of the aggregator buffer, in pairs */
	uint32_t	batch_pairs;	/* pairs the aggregator puts in a device batch */
	PbPipeSteps steps;			/* the CPU threads' work on a task */
	PbPipeWrapMem wrap_mem;		/* NULL: the tasks' memory straight from the pool */
	void	   *wrap_mem_ctx;
	const PbBatch *source;		/* the batch every task will borrow from, when
								 * known at the start: the device is asked to
								 * hold it at once, while the caller still makes
								 * the tasks (NULL: at the first device batch) */
} PbPipeConfig;

/* Stage figures of one run, for the report. */
typedef struct PbPipeStageStats
{
	uint64_t	tasks;			/* tasks that went through the stage here */
	uint64_t	pairs;			/* pairs found (filter) or computed (aggregate;
								 * the CPU's include the pairs no device takes,
								 * computed by the filter threads) */
	uint64_t	migrated;		/* of tasks: moved here by migration */
	double		busy_s;			/* summed over threads */
} PbPipeStageStats;

typedef struct PbPipeStats
{
	PbPipeStageStats filter_cpu,
				filter_device,
				aggregate_cpu,
				aggregate_device;
	uint64_t	device_batches;
	int			source_held;	/* the device held the tasks' source */
	double		hold_s;			/* seconds asking it to (copying it there) */
	uint64_t	kept_for_device;	/* tasks a congested filter thread left
									 * queued: the device would finish sooner */
	uint64_t	mem_blocks;		/* blocks the pipeline's pool handed out */
	uint64_t	mem_fresh;		/* of those, new from malloc (the rest reused) */
	size_t		mem_peak;		/* most bytes the pool held at once */
	int			filter_threads;
	double		wall_s;			/* from the start to the end of the run */
	char		device_error[256];	/* why the device was dropped, or "" */
} PbPipeStats;

typedef struct PbPipeline PbPipeline;

/*
 * Fill *c with the defaults (threads as given, no device, migration on,
 * the core's steps, the pool's allocator).
 */
extern void PbPipeConfigDefaults(PbPipeConfig *c, int threads);

/* Start the threads; NULL (with nothing started) if none could start. */
extern PbPipeline *PbPipeStart(const PbPipeConfig *config);

/*
 * Hand a task to the pipeline (it keeps the pointer; the caller keeps the
 * memory until PbPipeDestroy).  Blocks while the input buffer is full,
 * calling should_stop(ctx) every few milliseconds; returns 0 if it said
 * stop (the task was not taken), 1 otherwise.
 */
extern int	PbPipeFeed(PbPipeline *p, PbTask *task, PbPollFn should_stop,
					   void *ctx);

/*
 * No more tasks: wait for every thread to finish, calling should_stop
 * every few milliseconds.  Returns 1 when all is computed; 0 if stopped.
 */
extern int	PbPipeFinish(PbPipeline *p, PbPollFn should_stop, void *ctx);

/*
 * PbPipeFinish for at most seconds (< 0: no limit): 1 when all is
 * computed, 0 if stopped, -1 when the run still goes on after that long
 * (call it again to wait on; the caller's thread may do other things, such
 * as reporting progress, in between).
 */
extern int	PbPipeFinishWithin(PbPipeline *p, PbPollFn should_stop, void *ctx,
							   double seconds);

/*
 * How far a run has come, for progress reports: read at any time on the
 * caller's thread while the threads work (each figure is current on its
 * own, not a snapshot of all three at one instant).
 */
typedef struct PbPipeProgress
{
	uint64_t	fed;			/* tasks handed to PbPipeFeed */
	uint64_t	done;			/* of those, accounted: every pair computed */
	uint64_t	pairs;			/* pairs of the tasks done */
} PbPipeProgress;

extern void PbPipeGetProgress(const PbPipeline *p, PbPipeProgress *out);

/*
 * Whether the run stopped because a thread (or PbPipeFeed) ran out of
 * memory: PbPipeFeed or PbPipeFinish then returned 0 without a stop request.
 */
extern int	PbPipeOutOfMemory(const PbPipeline *p);

/* The totals over every task (after PbPipeFinish returned 1). */
extern void PbPipeTotals(const PbPipeline *p, PbCompareAcc *acc);
extern void PbPipeGetStats(const PbPipeline *p, PbPipeStats *stats);

/*
 * Stop (if running) and join the threads, and free the pipeline and what it
 * allocated in the tasks fed to it (the batches of tasks not accounted, and
 * every hit array: read hit before).  Safe at any point, also from error
 * cleanup.
 */
extern void PbPipeDestroy(PbPipeline *p);

#endif							/* PB_PIPELINE_H */
