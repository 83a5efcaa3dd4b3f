/*
 * pipeline.c: the threads, buffers and migration of the SCCG pipeline
 * (see pipeline.h).
 *
 * One mutex guards both buffers and every counter; tasks are coarse (a
 * tile of hundreds to thousands of shapes), so the lock is taken a few
 * times per task and never while computing.  Threads wait on one
 * condition variable, broadcast on every change of state.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/pb_base.h"
#include "pipe_task.h"
#include "pipeline.h"
#include "pool.h"

#define MAX_FILTER_THREADS 256
#define WAIT_SLICE_NS 5000000	/* caller's thread polls should_stop this often */
#define DEVICE_POLL_NS 20000	/* aggregator's sleep between device polls */

/* A FIFO of tasks (linked through PbTask.next) with its size in pairs. */
typedef struct TaskList
{
	PbTask	   *head,
			   *tail;
	uint32_t	count;
	uint64_t	pairs;
} TaskList;

/* Which of the aggregator's tasks are filter work moved to the device. */
typedef struct AggBatch
{
	PbTask	  **tasks;
	uint8_t    *stolen;
	PbDevicePart *parts;
	uint32_t	n,
				cap;
	uint64_t	pairs;
} AggBatch;

/*
 * A thread's own totals and stage figures, merged at the end, and its
 * scratch space (here, not on its stack, so that it is still there to free
 * after the thread ran out of memory and came back to its recovery point).
 */
typedef struct ThreadOut
{
	PbCompareAcc acc;
	PbPipeStats st;
	PbScratch	sc;
} ThreadOut;

struct PbPipeline
{
	PbPipeConfig cfg;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	TaskList	input;			/* fed, not yet filtered */
	TaskList	queued;			/* filtered, waiting for the aggregator */
	TaskList	finished;		/* computed on the device, to be accounted */
	int			agg_done;		/* the aggregator has finished */
	int			input_closed;	/* PbPipeFinish was called */
	int			filtering;		/* filter threads busy with a task */
	int			live;			/* threads not yet finished */
	int			stop;			/* everybody out */
	int			oom;			/* a thread ran out of memory */
	int			nfilter;
	pthread_t	filter_threads[MAX_FILTER_THREADS];
	void	   *filter_args[MAX_FILTER_THREADS][2];
	int			started;		/* filter threads started */
	pthread_t	agg_thread;
	int			agg_started;
	int			joined;
	ThreadOut	filter_out[MAX_FILTER_THREADS];
	ThreadOut	agg_out;
	AggBatch	agg_batch[2];	/* the aggregator's batch in hand, and the next */
	PbPool	   *pool;			/* the tasks' batches and filter temporaries */
	PbAllocator thread_mem;		/* threads' scratch: malloc, leaving a stopped run */
	const PbAllocator *mem;		/* the pool's allocator */
	PbTask	  **fed;			/* every task fed, freed with the pipeline */
	uint32_t	nfed,
				cap_fed;
	double		t0,
				wall_s;
	int			device_alive;
	int			src_tried;		/* the aggregator asked the device to hold the source */
	int			src_held;		/* and it does */
	/* the balance of a congested aggregator (lock held): rates measured */
	double		dev_pairs,		/* pairs the device computed, and the seconds */
				dev_s,			/* its batches took from start to results */
				cpu_pairs,		/* pairs filter threads computed themselves, */
				cpu_s;			/* and their seconds */
	uint64_t	held_pairs;		/* pairs of batches gathered, not yet finished */
	int			cpu_probe;		/* a thread computes a task to learn cpu rate */
	uint64_t	tasks_done;		/* progress (relaxed atomics, one add a task): */
	uint64_t	pairs_done;		/* tasks accounted, and their pairs */
};

/* Sleep for us microseconds (between device polls). */
static void
SleepUs(uint32_t us)
{
	struct timespec ts = {us / 1000000, (long) (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/* Append t to the FIFO. */
static void
ListPush(TaskList *l, PbTask *t, uint64_t pairs)
{
	t->next = NULL;
	if (l->tail)
		l->tail->next = t;
	else
		l->head = t;
	l->tail = t;
	l->count++;
	l->pairs += pairs;
}

/* Unlink t (whose predecessor is prev, NULL for the head) from the FIFO. */
static void
ListUnlink(TaskList *l, PbTask *prev, PbTask *t, uint64_t pairs)
{
	if (prev)
		prev->next = t->next;
	else
		l->head = t->next;
	if (l->tail == t)
		l->tail = prev;
	t->next = NULL;
	l->count--;
	l->pairs -= pairs;
}

/* Pop the head of the FIFO (NULL when empty). */
static PbTask *
ListPop(TaskList *l, int queued)
{
	PbTask	   *t = l->head;

	if (t)
		ListUnlink(l, NULL, t, queued ? t->nint : 0);
	return t;
}

void
PbPipeConfigDefaults(PbPipeConfig *c, int threads)
{
	memset(c, 0, sizeof(*c));
	c->threads = threads < 1 ? 1 : threads;
	c->method = PB_METHOD_AUTO;
	c->migration = 1;
	c->input_tasks = 4 * (uint32_t) c->threads + 4;
	c->batch_pairs = 1u << 16;	/* small batches: a short tail after the last filter */
	c->agg_pairs = 4 * c->batch_pairs;
	c->steps.filter = PbPipeFilterStep;
	c->steps.compute = PbPipeComputeStep;
}

/*
 * The core's filter step: give the task its batch, find its pairs, and
 * compute the pairs no device takes at once, on this thread.
 */
void
PbPipeFilterStep(void *ctx, PbTask *t, const PbAllocator *mem, PbScratch *sc, PbMethod method,
				 PbCompareAcc *acc)
{
	(void) ctx;
	PbTaskMaterialize(t, mem);
	PbTaskFilter(t);
	PbTaskCompute(t, t->nint, t->batch.npairs, sc, method, acc);
}

/* The core's compute step: the task's device-eligible pairs on this thread. */
void
PbPipeComputeStep(void *ctx, PbTask *t, PbScratch *sc, PbMethod method, PbCompareAcc *acc)
{
	(void) ctx;
	PbTaskCompute(t, 0, t->nint, sc, method, acc);
}

/*
 * The smallest queued task with fewer device-eligible pairs than t, and
 * its predecessor in *prev; NULL when there is none (lock held).
 */
static PbTask *
SmallestQueued(const PbPipeline *p, const PbTask *t, PbTask **prev)
{
	PbTask	   *before = NULL,
			   *best = NULL;

	*prev = NULL;
	for (PbTask *q = p->queued.head; q; before = q, q = q->next)
		if (q->nint < t->nint && (best == NULL || q->nint < best->nint))
		{
			best = q;
			*prev = before;
		}
	return best;
}

/*
 * GPU-to-CPU migration, called with the lock held by a filter thread whose
 * task t does not fit in the full aggregator buffer: the task to compute
 * on the CPU, the smaller of t and best (SmallestQueued's, whose
 * predecessor is prev), t queued in best's place when best is taken.
 */
static PbTask *
TakeSmallest(PbPipeline *p, PbTask *t, PbTask *best, PbTask *prev)
{
	if (best == NULL)
		return t;
	ListUnlink(&p->queued, prev, best, best->nint);
	ListPush(&p->queued, t, t->nint);
	return best;
}

/*
 * Whether a filter thread that finds the aggregator buffer full should
 * compute a task of n pairs itself (GPU-to-CPU migration) rather than wait
 * for room: when, at the rates this run has measured, it would finish the
 * task before the device gets through the pairs queued and in its batches.
 * Without a device the aggregator computes on one CPU thread, and every
 * thread helps, as the paper's migration does.  Until the device's first
 * batch is back the task waits; until a filter thread has computed one,
 * one thread at a time does so to measure it.  Lock held.
 */
static int
ComputeHereSooner(PbPipeline *p, uint32_t n)
{
	if (!p->device_alive)
		return 1;
	if (p->dev_s <= 0 || p->dev_pairs <= 0)
		return 0;
	if (p->cpu_pairs <= 0)
		return !p->cpu_probe;
	return n * (p->cpu_s / p->cpu_pairs) <
		(double) (p->queued.pairs + p->held_pairs) * (p->dev_s / p->dev_pairs);
}

/*
 * A task is accounted: count it and its pairs for PbPipeGetProgress (a
 * relaxed atomic add each, once a task), and give its memory back.
 */
static void
TaskAccounted(PbPipeline *p, PbTask *t)
{
	__atomic_fetch_add(&p->tasks_done, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->pairs_done, t->batch.npairs, __ATOMIC_RELAXED);
	PbTaskDone(t);
}

/*
 * Compute a task's device-eligible pairs on this CPU thread: the last of
 * its work, so its memory goes back to the pool.
 */
static double
ComputeHere(PbPipeline *p, PbTask *t, PbScratch *sc, PbPipeStageStats *st,
			PbCompareAcc *acc, int migrated)
{
	double		t0 = PbMonotonicSeconds(),
				s;

	p->cfg.steps.compute(p->cfg.steps.ctx, t, sc, p->cfg.method, acc);
	s = PbMonotonicSeconds() - t0;
	st->tasks++;
	st->pairs += t->nint;
	st->migrated += migrated != 0;
	st->busy_s += s;
	TaskAccounted(p, t);
	return s;
}

/*
 * Compute task t, taken from the congested aggregator, on this filter
 * thread (lock held on entry and exit, not while computing), and add it
 * to the threads' measured rate; the first such task measures it.
 */
static void
MigrateHere(PbPipeline *p, PbTask *t, ThreadOut *out)
{
	uint32_t	n = t->nint;
	int			probe = p->cpu_pairs <= 0;
	double		s;

	p->cpu_probe |= probe;
	pthread_mutex_unlock(&p->lock);
	s = ComputeHere(p, t, &out->sc, &out->st.aggregate_cpu, &out->acc, 1);
	pthread_mutex_lock(&p->lock);
	p->cpu_pairs += n;
	p->cpu_s += s;
	if (probe)
		p->cpu_probe = 0;
}

/* Add a task's device-computed pairs (areas in t->areas) to acc; it is done. */
static void
AccountDeviceResults(PbPipeline *p, PbTask *t, PbCompareAcc *acc)
{
	for (uint32_t j = 0; j < t->nint; j++)
		PbTaskAddResult(t, t->batch.pairs[j].a, t->batch.pairs[j].b, t->areas[j], acc);
	TaskAccounted(p, t);
}

/* Out of memory with the lock held: stop the run, marking why. */
static void
StopOutOfMemory(PbPipeline *p)
{
	p->oom = 1;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->changed);
}

/*
 * A thread back at its recovery point after running out of memory (lock
 * not held: no allocation happens under it): stop the run, marking why,
 * free the thread's scratch and leave.  What its task held is freed with
 * the pipeline (the tasks fed, the pool's live blocks).
 */
static void *
ThreadOutOfMemory(PbPipeline *p, ThreadOut *out)
{
	pb_oom_recover = NULL;
	pthread_mutex_lock(&p->lock);
	StopOutOfMemory(p);
	p->live--;
	pthread_mutex_unlock(&p->lock);
	PbScratchFree(&out->sc);
	return NULL;
}

/*
 * The threads' interrupt hook, which the engines call every few thousand
 * steps inside one pair (lock not held): once the run is stopped, jump
 * back to the thread's recovery point, so that a cancel does not wait for
 * a huge pair to finish.  The engines leave nothing but scratch behind.
 */
static void
ThreadCheckStop(void *ctx)
{
	PbPipeline *p = ctx;

	if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED) && pb_oom_recover != NULL)
		longjmp(*pb_oom_recover, 2);
}

/*
 * A thread back at its recovery point after leaving a stopped run: count
 * itself out, free its scratch and end.  What its task held is freed with
 * the pipeline (the tasks fed, the pool's live blocks).
 */
static void *
ThreadLeftStoppedRun(PbPipeline *p, ThreadOut *out)
{
	pb_oom_recover = NULL;
	pthread_mutex_lock(&p->lock);
	p->live--;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	PbScratchFree(&out->sc);
	return NULL;
}

/*
 * Filter thread: account device results when there are some, else filter
 * tasks from the input buffer and queue them for the aggregator.
 */
static void *
FilterMain(void *arg)
{
	PbPipeline *p = ((void **) arg)[0];
	ThreadOut  *out = ((void **) arg)[1];
	jmp_buf		recover;

	PbScratchInit(&out->sc, &p->thread_mem);
	switch (setjmp(recover))
	{
		case 0:
			break;
		case 1:
			return ThreadOutOfMemory(p, out);
		default:
			return ThreadLeftStoppedRun(p, out);
	}
	pb_oom_recover = &recover;
	pthread_mutex_lock(&p->lock);
	for (;;)
	{
		PbTask	   *t;
		double		t0;
		int			waited;		/* t waited for room rather than migrate */

		while (!p->stop && p->input.count == 0 && p->finished.count == 0 &&
			   !(p->input_closed && p->agg_done))
			pthread_cond_wait(&p->changed, &p->lock);
		if (p->stop)
			break;
		if ((t = ListPop(&p->finished, 0)) != NULL)
		{
			/* the device's results, accounted here: spread over the CPU threads */
			pthread_mutex_unlock(&p->lock);
			AccountDeviceResults(p, t, &out->acc);
			pthread_mutex_lock(&p->lock);
			continue;
		}
		if ((t = ListPop(&p->input, 0)) == NULL)
			break;
		p->filtering++;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);

		t0 = PbMonotonicSeconds();
		/* pairs no device takes are computed here and now */
		p->cfg.steps.filter(p->cfg.steps.ctx, t, p->mem, &out->sc, p->cfg.method, &out->acc);
		out->st.filter_cpu.tasks++;
		out->st.filter_cpu.pairs += t->batch.npairs;
		out->st.filter_cpu.busy_s += PbMonotonicSeconds() - t0;
		out->st.aggregate_cpu.pairs += t->batch.npairs - t->nint;
		if (t->nint == 0)
		{
			/* nothing left for the aggregator */
			TaskAccounted(p, t);
			t = NULL;
		}

		pthread_mutex_lock(&p->lock);
		waited = 0;
		while (t != NULL && !p->stop)
		{
			if (p->queued.count == 0 || p->cfg.staged ||
				p->queued.pairs + t->nint <= p->cfg.agg_pairs)
			{
				ListPush(&p->queued, t, t->nint);
				t = NULL;
			}
			else
			{
				/* aggregator congested: the smallest task may run here */
				int			migrate = p->cfg.migration;
				PbTask	   *prev = NULL,
						   *best = migrate ? SmallestQueued(p, t, &prev) : NULL;

				if (migrate && ComputeHereSooner(p, (best ? best : t)->nint))
				{
					MigrateHere(p, TakeSmallest(p, t, best, prev), out);
					t = NULL;	/* computed, or queued in best's place */
				}
				else
				{
					if (migrate && !waited)
						out->st.kept_for_device++;
					waited = 1;
					pthread_cond_wait(&p->changed, &p->lock);
				}
			}
		}
		p->filtering--;
		pthread_cond_broadcast(&p->changed);
	}
	p->live--;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	PbScratchFree(&out->sc);
	pb_oom_recover = NULL;
	return NULL;
}

/*
 * Add a task to the aggregator's next batch (lock held, so no allocation
 * may jump: realloc's failure is returned, 0, instead).
 */
static int
BatchAdd(AggBatch *b, PbTask *t, int stolen)
{
	if (b->n == b->cap)
	{
		uint32_t	cap = b->cap ? 2 * b->cap : 64;
		void	   *tasks = realloc(b->tasks, sizeof(PbTask *) * cap);
		void	   *flags = tasks ? realloc(b->stolen, cap) : NULL;
		void	   *parts = flags ? realloc(b->parts, sizeof(PbDevicePart) * cap) : NULL;

		if (tasks)
			b->tasks = tasks;
		if (flags)
			b->stolen = flags;
		if (parts == NULL)
			return 0;
		b->parts = parts;
		b->cap = cap;
	}
	b->tasks[b->n] = t;
	b->stolen[b->n] = (uint8_t) stolen;
	b->n++;
	b->pairs += stolen ? (uint64_t) (t->na + t->nb) : t->nint;
	return 1;
}

/*
 * With the lock held, gather the aggregator's next batch: queued tasks up
 * to batch_pairs; when none is queued, device idle and migration on,
 * unfiltered all-integer tasks from the input buffer (CPU-to-device
 * migration).  Returns 0 when there is nothing left to do at all.
 */
static int
GatherBatch(PbPipeline *p, AggBatch *b)
{
	b->n = 0;
	b->pairs = 0;
	for (;;)
	{
		if (p->stop)
			return 0;
		if (p->cfg.staged && !(p->input_closed && p->input.count == 0 && p->filtering == 0))
		{
			pthread_cond_wait(&p->changed, &p->lock);
			continue;
		}
		while (p->queued.count > 0 &&
			   (b->n == 0 || b->pairs + p->queued.head->nint <= p->cfg.batch_pairs))
			if (!BatchAdd(b, ListPop(&p->queued, 1), 0))
			{
				StopOutOfMemory(p);
				return 0;
			}
		if (b->n > 0)
		{
			p->held_pairs += b->pairs;
			pthread_cond_broadcast(&p->changed);	/* room for waiting filters */
			return 1;
		}
		if (p->cfg.migration && !p->cfg.staged && p->device_alive && p->cfg.device->can_filter)
		{
			PbTask	   *prev = NULL,
					   *t = p->input.head;

			while (t != NULL && b->pairs < p->cfg.batch_pairs)
			{
				PbTask	   *next = t->next;

				if (t->all_int && t->old_a == 0 && t->old_b == 0)
				{
					ListUnlink(&p->input, prev, t, 0);
					if (!BatchAdd(b, t, 1))
					{
						StopOutOfMemory(p);
						return 0;
					}
				}
				else
					prev = t;
				t = next;
			}
			if (b->n > 0)
			{
				p->held_pairs += b->pairs;
				pthread_cond_broadcast(&p->changed);
				return 1;
			}
		}
		if (p->input_closed && p->input.count == 0 && p->filtering == 0)
			return 0;
		pthread_cond_wait(&p->changed, &p->lock);
	}
}

/*
 * Ask the device, with nothing in flight, to hold src, the source the
 * tasks borrow from, so that the points of every batch cross to it once
 * (device.h); at most once a run, timed for the report.
 */
static void
HoldSource(PbPipeline *p, const PbBatch *src, ThreadOut *out)
{
	const PbPipeDevice *dev = p->cfg.device;
	double		t0 = PbMonotonicSeconds();

	p->src_tried = 1;
	p->src_held = dev->hold(dev->ctx, src);
	out->st.source_held = p->src_held;
	out->st.hold_s = PbMonotonicSeconds() - t0;
	out->st.aggregate_device.busy_s += out->st.hold_s;
}

/*
 * Fill the batch's device parts (materializing the tasks whose filtering
 * moved to the device) and stage them on the device; 0 (with the reason in
 * err) if that failed.  The source the tasks borrow from is held first
 * when the run did not name it at its start.
 */
static int
StageOnDevice(PbPipeline *p, AggBatch *b, ThreadOut *out, char *err, size_t err_len)
{
	const PbPipeDevice *dev = p->cfg.device;
	double		t0;
	int			ok;

	if (!p->src_tried && dev->hold != NULL && b->n > 0)
		HoldSource(p, b->tasks[0]->src, out);
	t0 = PbMonotonicSeconds();

	for (uint32_t i = 0; i < b->n; i++)
	{
		PbTask	   *t = b->tasks[i];
		PbDevicePart *part = &b->parts[i];

		memset(part, 0, sizeof(*part));
		if (b->stolen[i])
			PbTaskMaterialize(t, p->mem);
		part->batch = &t->batch;
		part->nrings = t->int_rings;
		part->nipts = t->int_ipts;
		part->pairs = t->batch.pairs;
		part->npairs = b->stolen[i] ? 0 : t->nint;
		part->filter = b->stolen[i];
		part->split = t->na;
		part->ref = t->ref;
	}
	if (dev->bytes(dev->ctx, b->parts, b->n) > dev->budget)
	{
		snprintf(err, err_len, "a batch needs more device memory than pixelbox.gpu_memory allows");
		ok = 0;
	}
	else
		ok = dev->stage(dev->ctx, b->parts, b->n, err, err_len) == 0;
	out->st.aggregate_device.busy_s += PbMonotonicSeconds() - t0;
	return ok;
}

/*
 * Wait for the batch started on the device and take in its results; 0
 * (with the reason in err) if it failed.
 */
static int
FinishOnDevice(PbPipeline *p, AggBatch *b, ThreadOut *out, char *err, size_t err_len)
{
	const PbPipeDevice *dev = p->cfg.device;
	const int64_t *areas;
	const PbDeviceFound *found;
	uint32_t	nfound,
				k = 0;
	double		t0 = PbMonotonicSeconds();
	int			st;

	while ((st = dev->poll(dev->ctx, err, err_len)) == 0)
		SleepUs(DEVICE_POLL_NS / 1000);
	if (st < 0)
		return 0;
	areas = dev->results(dev->ctx);
	nfound = dev->found(dev->ctx, &found);
	for (uint32_t i = 0; i < b->n; i++)
	{
		PbTask	   *t = b->tasks[i];

		if (b->stolen[i])
		{
			t->batch.npairs = 0;
			continue;
		}
		t->areas = p->mem->alloc(p->mem->ctx, sizeof(double) * ((size_t) t->nint + 1));
		for (uint32_t j = 0; j < t->nint; j++, k++)
			t->areas[j] = (double) areas[k];
		out->st.aggregate_device.tasks++;
		out->st.aggregate_device.pairs += t->nint;
	}
	/* pairs the device's filter found become the stolen tasks' pairs */
	for (uint32_t f = 0; f < nfound; f++)
		PbBatchAddPair(&b->tasks[found[f].part]->batch, found[f].a, found[f].b);
	for (uint32_t i = 0; i < b->n; i++)
		if (b->stolen[i])
		{
			PbTask	   *t = b->tasks[i];

			t->areas = p->mem->alloc(p->mem->ctx, sizeof(double) * ((size_t) t->batch.npairs + 1));
			t->nint = 0;
			out->st.filter_device.tasks++;
			out->st.filter_device.migrated++;
			out->st.aggregate_device.tasks++;
		}
	for (uint32_t f = 0; f < nfound; f++)
	{
		PbTask	   *t = b->tasks[found[f].part];

		t->areas[t->nint++] = (double) found[f].area;
	}
	out->st.filter_device.pairs += nfound;
	out->st.aggregate_device.pairs += nfound;
	out->st.aggregate_device.busy_s += PbMonotonicSeconds() - t0;
	out->st.device_batches++;
	return 1;
}

/* The device failed (err says why): the rest of the run is on the CPU. */
static void
DropDevice(PbPipeline *p, ThreadOut *out, const char *err)
{
	snprintf(out->st.device_error, sizeof(out->st.device_error), "%s", err);
	pthread_mutex_lock(&p->lock);
	p->device_alive = 0;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/*
 * Compute the batch on the aggregator's CPU thread: with no device, or
 * after the device failed (the tasks it held are redone here, none lost).
 */
static void
RunOnCpu(PbPipeline *p, AggBatch *b, ThreadOut *out, PbScratch *sc)
{
	for (uint32_t i = 0; i < b->n; i++)
	{
		PbTask	   *t = b->tasks[i];

		if (b->stolen[i])
		{
			double		t0 = PbMonotonicSeconds();

			if (t->hit == NULL)
				PbTaskMaterialize(t, p->mem);
			PbTaskFilter(t);
			PbTaskCompute(t, t->nint, t->batch.npairs, sc, p->cfg.method, &out->acc);
			out->st.filter_cpu.tasks++;
			out->st.filter_cpu.pairs += t->batch.npairs;
			out->st.filter_cpu.busy_s += PbMonotonicSeconds() - t0;
			out->st.aggregate_cpu.pairs += t->batch.npairs - t->nint;
		}
		ComputeHere(p, t, sc, &out->st.aggregate_cpu, &out->acc, 0);
	}
}

/*
 * The aggregator's loop, lock held on entry and exit.  While the device
 * runs one batch, the next is gathered and staged (packed for the
 * device), so that the device waits for the host as little as possible.
 * When the device fails, the batches it held are computed here on the
 * CPU, none lost, and so is the rest of the run.
 */
static void
AggLoop(PbPipeline *p, ThreadOut *out)
{
	const PbPipeDevice *dev = p->cfg.device;
	AggBatch   *cur = &p->agg_batch[0],
			   *next = &p->agg_batch[1];
	int			have = GatherBatch(p, cur),
				staged = 0;		/* cur is staged on the device already */

	while (have)
	{
		char		err[sizeof(out->st.device_error)],
					next_err[sizeof(out->st.device_error)];
		int			on_device = p->device_alive,
					have_next = 0,
					next_staged = 0;
		AggBatch   *swap;
		uint64_t	dev_pairs = out->st.aggregate_device.pairs;
		double		started = PbMonotonicSeconds();

		pthread_mutex_unlock(&p->lock);
		if (on_device && ((!staged && !StageOnDevice(p, cur, out, err, sizeof(err))) ||
						  dev->start(dev->ctx, err, sizeof(err)) != 0))
		{
			DropDevice(p, out, err);
			on_device = 0;
		}
		if (on_device)
		{
			pthread_mutex_lock(&p->lock);
			have_next = GatherBatch(p, next);
			pthread_mutex_unlock(&p->lock);
			next_staged = have_next && StageOnDevice(p, next, out, next_err, sizeof(next_err));
			if (!FinishOnDevice(p, cur, out, err, sizeof(err)))
			{
				DropDevice(p, out, err);
				on_device = 0;
			}
			else if (have_next && !next_staged)
				DropDevice(p, out, next_err);
		}
		if (!on_device)
			RunOnCpu(p, cur, out, &out->sc);
		pthread_mutex_lock(&p->lock);
		p->held_pairs -= cur->pairs;
		if (on_device)
		{
			/* the device's rate: the batch's pairs over its start to results */
			p->dev_pairs += (double) (out->st.aggregate_device.pairs - dev_pairs);
			p->dev_s += PbMonotonicSeconds() - started;
			for (uint32_t i = 0; i < cur->n; i++)
				ListPush(&p->finished, cur->tasks[i], 0);
		}
		pthread_cond_broadcast(&p->changed);
		if (!have_next)
			have_next = GatherBatch(p, next);
		swap = cur;
		cur = next;
		next = swap;
		have = have_next;
		staged = next_staged && p->device_alive;
	}
}

/* The aggregator lets the device drop the source it holds for the run. */
static void
ReleaseSource(PbPipeline *p)
{
	if (p->src_held)
		p->cfg.device->release(p->cfg.device->ctx);
	p->src_held = 0;
}

/* Aggregator thread: the single owner of the device. */
static void *
AggMain(void *arg)
{
	PbPipeline *p = (PbPipeline *) arg;
	ThreadOut  *out = &p->agg_out;
	jmp_buf		recover;

	PbScratchInit(&out->sc, &p->thread_mem);
	switch (setjmp(recover))
	{
		case 0:
			break;
		case 1:
			ReleaseSource(p);
			return ThreadOutOfMemory(p, out);
		default:
			ReleaseSource(p);
			return ThreadLeftStoppedRun(p, out);
	}
	pb_oom_recover = &recover;
	if (p->cfg.source != NULL && p->cfg.device != NULL && p->cfg.device->hold != NULL)
		HoldSource(p, p->cfg.source, out);
	pthread_mutex_lock(&p->lock);
	AggLoop(p, out);
	pthread_mutex_unlock(&p->lock);
	ReleaseSource(p);
	pthread_mutex_lock(&p->lock);
	p->agg_done = 1;
	p->live--;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	PbScratchFree(&out->sc);
	pb_oom_recover = NULL;
	return NULL;
}

PbPipeline *
PbPipeStart(const PbPipeConfig *config)
{
	PbPipeline *p = malloc(sizeof(PbPipeline));
	pthread_condattr_t ca;

	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->cfg = *config;
	if ((p->pool = PbPoolCreate()) == NULL)
	{
		free(p);
		return NULL;
	}
	p->mem = PbPoolAllocator(p->pool);
	p->thread_mem = PbMallocAllocator;
	p->thread_mem.check_interrupts = ThreadCheckStop;
	p->thread_mem.ctx = p;
	if (config->wrap_mem != NULL)
		p->mem = config->wrap_mem(config->wrap_mem_ctx, p->mem);
	p->device_alive = config->device != NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->changed, &ca);
	pthread_condattr_destroy(&ca);
	p->t0 = PbMonotonicSeconds();
	p->nfilter = config->threads < MAX_FILTER_THREADS ? config->threads : MAX_FILTER_THREADS;
	for (int i = 0; i < p->nfilter; i++)
		PbCompareInit(&p->filter_out[i].acc);
	PbCompareInit(&p->agg_out.acc);
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < p->nfilter; i++)
	{
		p->filter_args[i][0] = p;
		p->filter_args[i][1] = &p->filter_out[i];
		if (PbThreadStart(&p->filter_threads[i], FilterMain, p->filter_args[i]) != 0)
			break;
		p->started++;
		p->live++;
	}
	if (p->started > 0 && PbThreadStart(&p->agg_thread, AggMain, p) == 0)
	{
		p->agg_started = 1;
		p->live++;
	}
	pthread_mutex_unlock(&p->lock);
	if (!p->agg_started)
	{
		PbPipeDestroy(p);
		return NULL;
	}
	return p;
}

/* Wait on the condition for at most WAIT_SLICE_NS (lock held). */
static void
WaitSlice(PbPipeline *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += WAIT_SLICE_NS;
	if (ts.tv_nsec >= 1000000000)
	{
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&p->changed, &p->lock, &ts);
}

/* Ask every thread to stop (lock held). */
static void
RequestStop(PbPipeline *p)
{
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&p->changed);
}

int
PbPipeFeed(PbPipeline *p, PbTask *task, PbPollFn should_stop, void *ctx)
{
	pthread_mutex_lock(&p->lock);
	while (!p->stop && p->input.count >= p->cfg.input_tasks)
	{
		WaitSlice(p);
		if (should_stop && should_stop(ctx))
			RequestStop(p);
	}
	if (p->stop)
	{
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	if (p->nfed == p->cap_fed)
	{
		uint32_t	cap = p->cap_fed ? 2 * p->cap_fed : 256;
		PbTask	  **fed = realloc(p->fed, sizeof(PbTask *) * cap);

		if (fed == NULL)
		{
			StopOutOfMemory(p);
			pthread_mutex_unlock(&p->lock);
			return 0;
		}
		p->fed = fed;
		p->cap_fed = cap;
	}
	p->fed[p->nfed++] = task;
	PbBatchInit(&task->batch, p->mem);
	task->hit = NULL;
	task->nint = 0;
	task->areas = NULL;
	task->kept = NULL;
	task->nkept = task->cap_kept = 0;
	ListPush(&p->input, task, 0);
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return 1;
}

/* Join every started thread (once). */
static void
JoinAll(PbPipeline *p)
{
	if (p->joined)
		return;
	for (int i = 0; i < p->started; i++)
		pthread_join(p->filter_threads[i], NULL);
	if (p->agg_started)
		pthread_join(p->agg_thread, NULL);
	p->joined = 1;
}

int
PbPipeFinishWithin(PbPipeline *p, PbPollFn should_stop, void *ctx, double seconds)
{
	double		until = PbMonotonicSeconds() + seconds;
	int			done;

	pthread_mutex_lock(&p->lock);
	p->input_closed = 1;
	pthread_cond_broadcast(&p->changed);
	while (p->live > 0 && !p->stop)
	{
		if (seconds >= 0 && PbMonotonicSeconds() >= until)
		{
			pthread_mutex_unlock(&p->lock);
			return -1;
		}
		WaitSlice(p);
		if (should_stop && should_stop(ctx))
			RequestStop(p);
	}
	done = !p->stop;
	pthread_mutex_unlock(&p->lock);
	JoinAll(p);
	p->wall_s = PbMonotonicSeconds() - p->t0;
	return done;
}

int
PbPipeFinish(PbPipeline *p, PbPollFn should_stop, void *ctx)
{
	return PbPipeFinishWithin(p, should_stop, ctx, -1);
}

void
PbPipeGetProgress(const PbPipeline *p, PbPipeProgress *out)
{
	out->fed = p->nfed;
	out->done = __atomic_load_n(&p->tasks_done, __ATOMIC_RELAXED);
	out->pairs = __atomic_load_n(&p->pairs_done, __ATOMIC_RELAXED);
}

int
PbPipeOutOfMemory(const PbPipeline *p)
{
	return p->oom;
}

void
PbPipeTotals(const PbPipeline *p, PbCompareAcc *acc)
{
	PbCompareInit(acc);
	for (int i = 0; i < p->started; i++)
		PbCompareMerge(acc, &p->filter_out[i].acc);
	PbCompareMerge(acc, &p->agg_out.acc);
}

/* Add one stage's figures to another's. */
static void
AddStage(PbPipeStageStats *to, const PbPipeStageStats *from)
{
	to->tasks += from->tasks;
	to->pairs += from->pairs;
	to->migrated += from->migrated;
	to->busy_s += from->busy_s;
}

/* Add one thread's figures to the run's. */
static void
AddStats(PbPipeStats *to, const PbPipeStats *from)
{
	AddStage(&to->filter_cpu, &from->filter_cpu);
	AddStage(&to->filter_device, &from->filter_device);
	AddStage(&to->aggregate_cpu, &from->aggregate_cpu);
	AddStage(&to->aggregate_device, &from->aggregate_device);
	to->device_batches += from->device_batches;
	to->source_held += from->source_held;
	to->hold_s += from->hold_s;
	to->kept_for_device += from->kept_for_device;
}

void
PbPipeGetStats(const PbPipeline *p, PbPipeStats *stats)
{
	PbPoolStats ps;

	memset(stats, 0, sizeof(*stats));
	PbPoolGetStats(p->pool, &ps);
	stats->mem_blocks = ps.allocs;
	stats->mem_fresh = ps.fresh;
	stats->mem_peak = ps.peak_held;
	for (int i = 0; i < p->started; i++)
		AddStats(stats, &p->filter_out[i].st);
	AddStats(stats, &p->agg_out.st);
	memcpy(stats->device_error, p->agg_out.st.device_error, sizeof(stats->device_error));
	stats->filter_threads = p->started;
	stats->wall_s = p->wall_s;
}

void
PbPipeDestroy(PbPipeline *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	RequestStop(p);
	pthread_mutex_unlock(&p->lock);
	JoinAll(p);
	for (uint32_t i = 0; i < p->nfed; i++)
		PbTaskRelease(p->fed[i]);
	PbPoolDestroy(p->pool);
	free(p->fed);
	for (int i = 0; i < 2; i++)
	{
		free(p->agg_batch[i].tasks);
		free(p->agg_batch[i].stolen);
		free(p->agg_batch[i].parts);
	}
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
