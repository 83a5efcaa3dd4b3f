/*
 * test_seams.c: the testing settings, as decorators of the interfaces
 * they disturb; the only place where they act.  With every setting at
 * none nothing is wrapped, so no production path carries a test branch.
 *
 * pixelbox.gpu_fault wraps the way to the GPU (PbGpuOpener, device.c):
 * open fails opening it; submit and run stand in for a GPU (the real one
 * when there is one, else none) whose polygon device fails when a
 * submission is staged, or when it ends.  Raster operations fail at
 * opening under any of these faults.  Works with or without a GPU, so CI
 * exercises the fallback.  blocks leaves the way to the GPU alone and
 * makes each GPU of a hybrid watershed fail its first block
 * (PbSeamsWsDevices), so a real GPU's failure mid-run is seen.
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
 * The pipeline's decorators are plain C (pipe_seams.c), shared with the C
 * tests of the core; they run on the pipeline's threads.
 */
#include "postgres.h"

#include <stdint.h>

#include "../cuda/pb_gpu.h"
#include "core/raster/watershed.h"
#include "core/sccg/pb_sccg.h"
#include "pipe_seams.h"
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

/* hold: the real device's (nothing held without one). */
static int
FaultHold(void *ctx, const PbBatch *src)
{
	FaultDevice *f = (FaultDevice *) ctx;

	return f->inner.ctx && f->inner.hold ? f->inner.hold(f->inner.ctx, src) : 0;
}

/* release: the real device's. */
static void
FaultRelease(void *ctx)
{
	FaultDevice *f = (FaultDevice *) ctx;

	if (f->inner.ctx && f->inner.release)
		f->inner.release(f->inner.ctx);
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
	dev->hold = FaultHold;
	dev->release = FaultRelease;
}

static const PbGpuOpener fault_opener = {FaultOpen, FaultMakeDevice, NULL};

/* The way to the GPU: real, or wrapped by pixelbox.gpu_fault's fault. */
const PbGpuOpener *
PbSeamsGpu(const PbGpuOpener *real)
{
	if (pb_gpu_fault == PB_FAULT_NONE || pb_gpu_fault == PB_FAULT_BLOCKS)
		return real;
	real_opener = real;
	open_fault = pb_gpu_fault;
	return &fault_opener;
}

/* PbWsDevice.run under pixelbox.gpu_fault = blocks: every block fails, untouched. */
static int
FailingBlock(void *ctx, uint64_t *key, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
			 PbPollFn poll, void *poll_arg, char *err, size_t err_len)
{
	(void) ctx, (void) key, (void) x0, (void) y0, (void) x1, (void) y1, (void) poll,
		(void) poll_arg;
	snprintf(err, err_len, "injected failure (pixelbox.gpu_fault = blocks)");
	return -1;
}

/*
 * The devices of a hybrid watershed as pixelbox.gpu_fault says: with
 * blocks, each fails its first block (after it began), and the CPU
 * threads finish the run.
 */
void
PbSeamsWsDevices(PbWsDevice *devs, int ndev)
{
	if (pb_gpu_fault != PB_FAULT_BLOCKS)
		return;
	for (int d = 0; d < ndev; d++)
		devs[d].run = FailingBlock;
}

/*
 * Wrap a pipeline run's configuration as pixelbox.pipeline_throttle and
 * pixelbox.pipeline_fault say; the decorators live in cxt, which outlives
 * the run's threads.
 */
void
PbSeamsPipeline(PbPipeConfig *c, MemoryContext cxt)
{
	if (pb_pipeline_throttle == PB_THROTTLE_FILTER)
		PbPipeThrottleInstall(c, MemoryContextAlloc(cxt, sizeof(PbPipeThrottle)), THROTTLE_US, 0);
	else if (pb_pipeline_throttle == PB_THROTTLE_AGGREGATE)
	{
		c->agg_pairs = 1;		/* one task queued fills the buffer */
		PbPipeThrottleInstall(c, MemoryContextAlloc(cxt, sizeof(PbPipeThrottle)), 0, THROTTLE_US);
	}
	if (pb_pipeline_fault == PB_PIPE_FAULT_MEMORY)
		PbPipeFailingMemInstall(c, MemoryContextAlloc(cxt, sizeof(PbPipeFailingMem)), FAULT_ALLOCS);
}
