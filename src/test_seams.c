/*
 * test_seams.c: the testing settings, as decorators of the interfaces
 * they disturb; the only place where they act.  With every setting at
 * none nothing is wrapped, so no production path carries a test branch.
 *
 * pixelbox.pipeline_throttle wraps a pipeline run's steps (core
 * src/core/sccg/pipeline.h) to force migration: filter makes the CPU
 * filter threads sleep before each task (an idle GPU takes filter work);
 * aggregate makes the CPU computation of a task's device-eligible pairs
 * and the device's batches sleep, with room for one task in the
 * aggregator's buffer (the filter threads take its tasks).
 *
 * pixelbox.pipeline_fault = memory wraps the run's task allocator (the
 * pipeline's pool) with one failing, as when malloc returns NULL, from
 * its FAULT_ALLOCS-th allocation on.
 *
 * Pipeline decorators run on the pipeline's threads: they call nothing
 * but the core, libc and atomics.
 */
#include "postgres.h"

#include <stdatomic.h>
#include <time.h>

#include "core/sccg/pb_sccg.h"
#include "pixelbox.h"

#define THROTTLE_US 5000		/* microseconds per task in the slowed stage */
#define FAULT_ALLOCS 50			/* the pool's allocations that succeed */

/*
 * A throttle around a pipeline run: its steps, and (aggregate) its device,
 * slowed down by filter_us or agg_us a task.
 */
typedef struct Throttle
{
	uint32_t	filter_us,
				agg_us;
	PbPipeSteps inner_steps;
	PbPipeDevice inner;			/* the device slowed down */
	PbPipeDevice dev;
	uint32_t	staged,			/* tasks of the batch staged */
				started;		/* and of the one started */
} Throttle;

/* Sleep us microseconds on a pipeline thread (no PostgreSQL call). */
static void
SleepUs(uint32_t us)
{
	struct timespec ts = {us / 1000000, (long) (us % 1000000) * 1000};

	if (us)
		nanosleep(&ts, NULL);
}

/* The filter step, after filter_us. */
static void
SlowFilter(void *ctx, PbTask *t, const PbAllocator *mem, PbScratch *sc, PbMethod method,
		   PbCompareAcc *acc)
{
	Throttle   *th = (Throttle *) ctx;

	SleepUs(th->filter_us);
	th->inner_steps.filter(th->inner_steps.ctx, t, mem, sc, method, acc);
}

/* The compute step, after agg_us. */
static void
SlowCompute(void *ctx, PbTask *t, PbScratch *sc, PbMethod method, PbCompareAcc *acc)
{
	Throttle   *th = (Throttle *) ctx;

	SleepUs(th->agg_us);
	th->inner_steps.compute(th->inner_steps.ctx, t, sc, method, acc);
}

/* bytes: the slowed device's. */
static size_t
SlowBytes(void *ctx, const PbDevicePart *parts, uint32_t n)
{
	Throttle   *th = (Throttle *) ctx;

	return th->inner.bytes(th->inner.ctx, parts, n);
}

/* stage: the slowed device's, counting the batch's tasks. */
static int
SlowStage(void *ctx, const PbDevicePart *parts, uint32_t n, char *err, size_t err_len)
{
	Throttle   *th = (Throttle *) ctx;

	th->staged = n;
	return th->inner.stage(th->inner.ctx, parts, n, err, err_len);
}

/* start: the slowed device's. */
static int
SlowStart(void *ctx, char *err, size_t err_len)
{
	Throttle   *th = (Throttle *) ctx;

	th->started = th->staged;
	return th->inner.start(th->inner.ctx, err, err_len);
}

/* poll: the slowed device's; a batch done takes agg_us more per task. */
static int
SlowPoll(void *ctx, char *err, size_t err_len)
{
	Throttle   *th = (Throttle *) ctx;
	int			st = th->inner.poll(th->inner.ctx, err, err_len);

	if (st == 1)
		SleepUs(th->agg_us * th->started);
	return st;
}

/* results: the slowed device's. */
static const int64_t *
SlowResults(void *ctx)
{
	Throttle   *th = (Throttle *) ctx;

	return th->inner.results(th->inner.ctx);
}

/* found: the slowed device's. */
static uint32_t
SlowFound(void *ctx, const PbDeviceFound **found)
{
	Throttle   *th = (Throttle *) ctx;

	return th->inner.found(th->inner.ctx, found);
}

/* Slow c down as pixelbox.pipeline_throttle says (see the file header). */
static void
ThrottlePipeline(PbPipeConfig *c, MemoryContext cxt)
{
	Throttle   *th = MemoryContextAllocZero(cxt, sizeof(Throttle));

	th->inner_steps = c->steps;
	c->steps.filter = SlowFilter;
	c->steps.compute = SlowCompute;
	c->steps.ctx = th;
	if (pb_pipeline_throttle == PB_THROTTLE_FILTER)
	{
		th->filter_us = THROTTLE_US;
		return;
	}
	th->agg_us = THROTTLE_US;
	c->agg_pairs = 1;			/* one task queued fills the buffer */
	if (c->device != NULL)
	{
		th->inner = *c->device;
		th->dev = th->inner;
		th->dev.ctx = th;
		th->dev.bytes = SlowBytes;
		th->dev.stage = SlowStage;
		th->dev.start = SlowStart;
		th->dev.poll = SlowPoll;
		th->dev.results = SlowResults;
		th->dev.found = SlowFound;
		c->device = &th->dev;
	}
}

/*
 * An allocator failing, as when malloc returns NULL, from the left-th
 * allocation on; the others go to inner (the pipeline's pool).
 */
typedef struct FailingMem
{
	PbAllocator mem;
	const PbAllocator *inner;
	atomic_long left;
} FailingMem;

/* Whether this allocation fails: the one bringing left to 0, and all after. */
static bool
FailNow(FailingMem *f)
{
	return atomic_fetch_sub(&f->left, 1) <= 1;
}

/* alloc: the pool's, until it is time to fail (to the thread's recovery point). */
static void *
FailingAlloc(void *ctx, size_t size)
{
	FailingMem *f = (FailingMem *) ctx;

	if (FailNow(f))
		PbOutOfMemory();
	return f->inner->alloc(f->inner->ctx, size);
}

/* resize: the pool's, until it is time to fail. */
static void *
FailingResize(void *ctx, void *ptr, size_t size)
{
	FailingMem *f = (FailingMem *) ctx;

	if (FailNow(f))
		PbOutOfMemory();
	return f->inner->resize(f->inner->ctx, ptr, size);
}

/* release: the pool's. */
static void
FailingRelease(void *ctx, void *ptr)
{
	FailingMem *f = (FailingMem *) ctx;

	f->inner->release(f->inner->ctx, ptr);
}

/* PbPipeConfig.wrap_mem: the pool's allocator inside the failing one (ctx). */
static const PbAllocator *
WrapFailing(void *ctx, const PbAllocator *inner)
{
	FailingMem *f = (FailingMem *) ctx;

	f->inner = inner;
	f->mem.alloc = FailingAlloc;
	f->mem.resize = FailingResize;
	f->mem.release = FailingRelease;
	f->mem.check_interrupts = NULL;
	f->mem.ctx = f;
	return &f->mem;
}

/*
 * Wrap a pipeline run's configuration as pixelbox.pipeline_throttle and
 * pixelbox.pipeline_fault say; the decorators live in cxt, which outlives
 * the run's threads.
 */
void
PbSeamsPipeline(PbPipeConfig *c, MemoryContext cxt)
{
	if (pb_pipeline_throttle != PB_THROTTLE_NONE)
		ThrottlePipeline(c, cxt);
	if (pb_pipeline_fault == PB_PIPE_FAULT_MEMORY)
	{
		FailingMem *f = MemoryContextAllocZero(cxt, sizeof(FailingMem));

		atomic_init(&f->left, FAULT_ALLOCS);
		c->wrap_mem = WrapFailing;
		c->wrap_mem_ctx = f;
	}
}
