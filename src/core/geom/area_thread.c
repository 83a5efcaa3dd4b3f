/*
 * area_thread.c: a batch's intersection areas computed on a thread of
 * their own (area_thread.h).
 *
 * A thread is started per batch (a batch is thousands of pairs, so the
 * start costs well under 1% of it) and joined when the caller waits: the
 * caller's poll runs between timed waits on a condition variable, so a
 * cancel is seen within milliseconds even while a long batch computes.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "area_thread.h"

/* milliseconds between two polls of a waiting caller */
#define POLL_MS 5

/* The scratch's allocation calls, passed on to the allocator given to Init. */
static void *
ScratchAlloc(void *ctx, size_t size)
{
	const PbAllocator *mem = ((PbAreaThread *) ctx)->mem;

	return mem->alloc(mem->ctx, size);
}

static void *
ScratchResize(void *ctx, void *ptr, size_t size)
{
	const PbAllocator *mem = ((PbAreaThread *) ctx)->mem;

	return mem->resize(mem->ctx, ptr, size);
}

static void
ScratchRelease(void *ctx, void *ptr)
{
	const PbAllocator *mem = ((PbAreaThread *) ctx)->mem;

	mem->release(mem->ctx, ptr);
}

/*
 * The engines' interrupt hook on the thread: once asked to stop, jump back
 * to the thread's recovery point, so that a stop does not wait for a huge
 * pair to end (the engines leave nothing but scratch behind).
 */
static void
ScratchCheckStop(void *ctx)
{
	if (atomic_load_explicit(&((PbAreaThread *) ctx)->stop, memory_order_relaxed) &&
		pb_oom_recover != NULL)
		longjmp(*pb_oom_recover, 2);
}

void
PbAreaThreadInit(PbAreaThread *t, const PbAllocator *mem, bool keep_runs)
{
	pthread_condattr_t attr;

	memset(t, 0, sizeof(*t));
	t->mem = mem;
	t->scratch_mem = (PbAllocator) {
		ScratchAlloc, ScratchResize, ScratchRelease, ScratchCheckStop, t
	};
	PbScratchInit(&t->scratch, &t->scratch_mem);
	t->scratch.keep_runs = keep_runs;
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);	/* waits immune to clock changes */
	pthread_cond_init(&t->ended, &attr);
	pthread_condattr_destroy(&attr);
}

/* Every pair of the batch, until the caller asks to stop. */
static void
ComputeAll(void *arg)
{
	PbAreaThread *t = arg;
	const PbBatch *b = t->batch;

	for (uint32_t i = 0; i < b->npairs; i++)
	{
		/* a relaxed load per pair: a cancel waits for one pair at most */
		if (atomic_load_explicit(&t->stop, memory_order_relaxed))
			return;
		t->areas[i] = PbIntersectionArea(&t->scratch, b, b->pairs[i].a, b->pairs[i].b,
										 t->method);
	}
}

/*
 * The thread: the batch under a recovery point (where running out of
 * memory and a stop inside a pair land), then the news to the waiter.
 */
static void *
AreaThreadMain(void *arg)
{
	PbAreaThread *t = arg;
	bool		ok = PbRunRecoverable(ComputeAll, t);

	if (!ok)
		PbScratchFree(&t->scratch);	/* half-built buffers are not kept */
	pthread_mutex_lock(&t->lock);
	t->out_of_memory = !ok && !atomic_load(&t->stop);
	t->done = true;
	pthread_cond_signal(&t->ended);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

bool
PbAreaThreadStart(PbAreaThread *t, const PbBatch *b, PbMethod method)
{
	if (b->npairs > t->cap)
	{
		/* malloc, not the allocator: no room means computing it here, not an error */
		double	   *areas = malloc(sizeof(double) * b->npairs);

		if (areas == NULL)
			return false;
		free(t->areas);
		t->areas = areas;
		t->cap = b->npairs;
	}
	t->batch = b;
	t->method = method;
	t->done = false;
	t->out_of_memory = false;
	atomic_store(&t->stop, 0);
	if (PbThreadStart(&t->tid, AreaThreadMain, t) != 0)
		return false;
	t->running = true;
	return true;
}

/* Join the thread once it has said it is done (its state read after). */
static void
Join(PbAreaThread *t)
{
	pthread_join(t->tid, NULL);
	t->running = false;
}

PbStatus
PbAreaThreadWait(PbAreaThread *t, PbPollFn poll, void *poll_arg, const double **areas)
{
	bool		stopped = false;

	pthread_mutex_lock(&t->lock);
	while (!t->done)
	{
		struct timespec until;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += POLL_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L)
		{
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&t->ended, &t->lock, &until) == ETIMEDOUT &&
			!t->done && !stopped && poll && poll(poll_arg))
		{
			stopped = true;
			atomic_store(&t->stop, 1);
		}
	}
	pthread_mutex_unlock(&t->lock);
	Join(t);
	*areas = NULL;
	if (t->out_of_memory)
		return PB_ERR_NOMEM;
	if (stopped)
		return PB_ERR_STOPPED;
	*areas = t->areas;
	return PB_OK;
}

void
PbAreaThreadFree(PbAreaThread *t)
{
	if (t->mem == NULL)
		return;
	if (t->running)
	{
		atomic_store(&t->stop, 1);
		Join(t);
	}
	PbScratchFree(&t->scratch);
	free(t->areas);
	pthread_mutex_destroy(&t->lock);
	pthread_cond_destroy(&t->ended);
	memset(t, 0, sizeof(*t));
}
