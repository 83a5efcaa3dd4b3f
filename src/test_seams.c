/*
 * test_seams.c: the testing settings, as decorators of the interfaces
 * they disturb; the only place where they act.  With every setting at
 * none nothing is wrapped, so no production path carries a test branch.
 *
 * pixelbox.gpu_fault wraps the way to the GPU (PbGpuOpener, device.c):
 * open fails opening it; submit and run stand in for a GPU (the real one
 * when there is one, else none) whose polygon device fails when a
 * submission is staged, or when it ends.  Raster operations fail at
 * opening under any fault.  Works with or without a GPU, so CI exercises
 * the fallback.
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
#include <stdint.h>
#include <time.h>

#include "../cuda/pb_gpu.h"
#include "core/sccg/pb_sccg.h"
#include "pixelbox.h"

#define THROTTLE_US 5000		/* microseconds per task in the slowed stage */
#define FAULT_ALLOCS 50			/* the pool's allocations that succeed */

/* The fault the way to the GPU injects, for opening (backend thread only). */
static int	open_fault;

/*
 * The polygon device of an injected fault, wrapping the real one (inner;
 * ctx NULL: no GPU underneath).  One at a time: the device belongs to the
 * owner of the GPU (device.c), which has one owner at most.
 */
typedef struct FaultDevice
{
	int			fault;
	PbPipeDevice inner;
} FaultDevice;

static FaultDevice fault_device;
static const PbGpuOpener *real_opener;

/*
 * Open under an injected fault: fail (open, or any fault for rasters), or
 * give the real context when there is one and NULL otherwise: the device
 * fails later, never the absence of a GPU.
 */
static PbGpuOpened
FaultOpen(void *ctx, PbGpuUse use, PbGpu **g, char *why, size_t why_len)
{
	if (use == PB_GPU_FOR_RASTERS)
	{
		snprintf(why, why_len, "injected failure (pixelbox.gpu_fault)");
		return PB_GPU_OPEN_FAILED;
	}
	if (open_fault == PB_FAULT_OPEN)
	{
		snprintf(why, why_len, "injected failure (pixelbox.gpu_fault = open)");
		return PB_GPU_OPEN_FAILED;
	}
	if (real_opener->open(real_opener->ctx, use, g, why, why_len) != PB_GPU_OPENED)
		*g = NULL;
	return PB_GPU_OPENED;
}

/* bytes: the real device's, none without one. */
static size_t
FaultBytes(void *ctx, const PbDevicePart *parts, uint32_t n)
{
	FaultDevice *f = (FaultDevice *) ctx;

	return f->inner.ctx ? f->inner.bytes(f->inner.ctx, parts, n) : 0;
}

/* stage: fails under submit, else the real device's. */
static int
FaultStage(void *ctx, const PbDevicePart *parts, uint32_t n, char *err, size_t err_len)
{
	FaultDevice *f = (FaultDevice *) ctx;

	if (f->fault == PB_FAULT_SUBMIT)
	{
		snprintf(err, err_len, "injected failure (pixelbox.gpu_fault = submit)");
		return -1;
	}
	return f->inner.ctx ? f->inner.stage(f->inner.ctx, parts, n, err, err_len) : 0;
}

/* start: the real device's. */
static int
FaultStart(void *ctx, char *err, size_t err_len)
{
	FaultDevice *f = (FaultDevice *) ctx;

	return f->inner.ctx ? f->inner.start(f->inner.ctx, err, err_len) : 0;
}

/* poll: a submission fails under run once the real one is over. */
static int
FaultPoll(void *ctx, char *err, size_t err_len)
{
	FaultDevice *f = (FaultDevice *) ctx;
	int			st = f->inner.ctx ? f->inner.poll(f->inner.ctx, err, err_len) : 1;

	if (st == 0 || f->fault != PB_FAULT_RUN)
		return st;
	snprintf(err, err_len, "injected failure (pixelbox.gpu_fault = run)");
	return -1;
}

/* results: the real device's (never read: its submissions fail). */
static const int64_t *
FaultResults(void *ctx)
{
	FaultDevice *f = (FaultDevice *) ctx;

	return f->inner.ctx ? f->inner.results(f->inner.ctx) : NULL;
}

/* found: the real device's (never read: its submissions fail). */
static uint32_t
FaultFound(void *ctx, const PbDeviceFound **found)
{
	FaultDevice *f = (FaultDevice *) ctx;

	*found = NULL;
	return f->inner.ctx ? f->inner.found(f->inner.ctx, found) : 0;
}

/* The polygon device under an injected fault, around the real one on g. */
static void
FaultMakeDevice(void *ctx, PbGpu *g, PbPipeDevice *dev)
{
	FaultDevice *f = &fault_device;

	f->fault = open_fault;
	memset(&f->inner, 0, sizeof(f->inner));
	if (g != NULL)
		real_opener->device(real_opener->ctx, g, &f->inner);
	memset(dev, 0, sizeof(*dev));
	dev->ctx = f;
	dev->name = "gpu";
	dev->can_filter = 1;
	dev->budget = g != NULL ? f->inner.budget : SIZE_MAX;
	dev->bytes = FaultBytes;
	dev->stage = FaultStage;
	dev->start = FaultStart;
	dev->poll = FaultPoll;
	dev->results = FaultResults;
	dev->found = FaultFound;
}

static const PbGpuOpener fault_opener = {FaultOpen, FaultMakeDevice, NULL};

/* The way to the GPU: real, or wrapped by pixelbox.gpu_fault's fault. */
const PbGpuOpener *
PbSeamsGpu(const PbGpuOpener *real)
{
	if (pb_gpu_fault == PB_FAULT_NONE)
		return real;
	real_opener = real;
	open_fault = pb_gpu_fault;
	return &fault_opener;
}

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
