/*
 * pipe_seams.c: the testing decorators of a pipeline run (pipe_seams.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "pipe_seams.h"

/* Sleep us microseconds on a pipeline thread. */
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
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	SleepUs(th->filter_us);
	th->inner_steps.filter(th->inner_steps.ctx, t, mem, sc, method, acc);
}

/* The compute step, after agg_us. */
static void
SlowCompute(void *ctx, PbTask *t, PbScratch *sc, PbMethod method, PbCompareAcc *acc)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	SleepUs(th->agg_us);
	th->inner_steps.compute(th->inner_steps.ctx, t, sc, method, acc);
}

/* bytes: the slowed device's. */
static size_t
SlowBytes(void *ctx, const PbDevicePart *parts, uint32_t n)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	return th->inner.bytes(th->inner.ctx, parts, n);
}

/* stage: the slowed device's, counting the batch's tasks. */
static int
SlowStage(void *ctx, const PbDevicePart *parts, uint32_t n, char *err, size_t err_len)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	th->staged = n;
	return th->inner.stage(th->inner.ctx, parts, n, err, err_len);
}

/* start: the slowed device's. */
static int
SlowStart(void *ctx, char *err, size_t err_len)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	th->started = th->staged;
	return th->inner.start(th->inner.ctx, err, err_len);
}

/* poll: the slowed device's; a batch done takes agg_us more per task. */
static int
SlowPoll(void *ctx, char *err, size_t err_len)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;
	int			st = th->inner.poll(th->inner.ctx, err, err_len);

	if (st == 1)
		SleepUs(th->agg_us * th->started);
	return st;
}

/* results: the slowed device's. */
static const int64_t *
SlowResults(void *ctx)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	return th->inner.results(th->inner.ctx);
}

/* found: the slowed device's. */
static uint32_t
SlowFound(void *ctx, const PbDeviceFound **found)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	return th->inner.found(th->inner.ctx, found);
}

/* hold: the slowed device's. */
static int
SlowHold(void *ctx, const PbBatch *src)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	return th->inner.hold(th->inner.ctx, src);
}

/* release: the slowed device's. */
static void
SlowRelease(void *ctx)
{
	PbPipeThrottle *th = (PbPipeThrottle *) ctx;

	th->inner.release(th->inner.ctx);
}

void
PbPipeThrottleInstall(PbPipeConfig *c, PbPipeThrottle *th, uint32_t filter_us, uint32_t agg_us)
{
	memset(th, 0, sizeof(*th));
	th->filter_us = filter_us;
	th->agg_us = agg_us;
	th->inner_steps = c->steps;
	c->steps = (PbPipeSteps) {SlowFilter, SlowCompute, th};
	if (c->device != NULL && agg_us > 0)
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
		th->dev.hold = th->inner.hold ? SlowHold : NULL;
		th->dev.release = th->inner.release ? SlowRelease : NULL;
		c->device = &th->dev;
	}
}

/* Whether this allocation fails: the one bringing left to 0, and all after. */
static int
FailNow(PbPipeFailingMem *f)
{
	return atomic_fetch_sub(&f->left, 1) <= 1;
}

/* alloc: the inner allocator's, until it is time to fail. */
static void *
FailingAlloc(void *ctx, size_t size)
{
	PbPipeFailingMem *f = (PbPipeFailingMem *) ctx;

	if (FailNow(f))
		PbOutOfMemory();
	return f->inner->alloc(f->inner->ctx, size);
}

/* resize: the inner allocator's, until it is time to fail. */
static void *
FailingResize(void *ctx, void *ptr, size_t size)
{
	PbPipeFailingMem *f = (PbPipeFailingMem *) ctx;

	if (FailNow(f))
		PbOutOfMemory();
	return f->inner->resize(f->inner->ctx, ptr, size);
}

/* release: the inner allocator's. */
static void
FailingRelease(void *ctx, void *ptr)
{
	PbPipeFailingMem *f = (PbPipeFailingMem *) ctx;

	f->inner->release(f->inner->ctx, ptr);
}

/* PbPipeConfig.wrap_mem: the pool's allocator inside the failing one (ctx). */
static const PbAllocator *
WrapFailing(void *ctx, const PbAllocator *inner)
{
	PbPipeFailingMem *f = (PbPipeFailingMem *) ctx;

	f->inner = inner;
	f->mem = (PbAllocator) {FailingAlloc, FailingResize, FailingRelease, NULL, f};
	return &f->mem;
}

void
PbPipeFailingMemInstall(PbPipeConfig *c, PbPipeFailingMem *f, long after)
{
	memset(&f->mem, 0, sizeof(f->mem));
	f->inner = NULL;
	atomic_init(&f->left, after);
	c->wrap_mem = WrapFailing;
	c->wrap_mem_ctx = f;
}
