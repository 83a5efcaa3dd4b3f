/*
 * pair_threads.c: intersection areas on several CPU threads.
 *
 * Work sharing by chunks from one atomic counter, so uneven pairs (a few
 * huge polygons among nuclei) balance themselves.  The engines only read
 * the batch; each thread has its own scratch.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "pair_threads.h"

#define CHUNK 256				/* pairs taken at a time */
#define MAX_THREADS 256

/* What every thread of one computation shares. */
typedef struct Job
{
	const PbBatch *b;
	const uint32_t *idx;
	uint32_t	n;
	double	   *areas;
	PbMethod	method;
	atomic_uint next;			/* first pair of the next chunk */
	atomic_int	stop;			/* set when the caller wants out */
} Job;

/* Take chunks and compute them until none is left or stop is set. */
static void
Work(Job *job, PbScratch *sc, int (*should_stop) (void *), void *ctx)
{
	for (;;)
	{
		uint32_t	start;

		if (atomic_load(&job->stop))
			return;
		if (should_stop && should_stop(ctx))
		{
			atomic_store(&job->stop, 1);
			return;
		}
		start = atomic_fetch_add(&job->next, CHUNK);
		if (start >= job->n)
			return;
		for (uint32_t k = start; k < job->n && k < start + CHUNK; k++)
		{
			uint32_t	i = job->idx ? job->idx[k] : k;

			job->areas[k] = PbIntersectionArea(sc, job->b, job->b->pairs[i].a,
											   job->b->pairs[i].b, job->method);
		}
	}
}

/* Thread body: work with a private scratch. */
static void *
ThreadMain(void *arg)
{
	Job		   *job = (Job *) arg;
	PbScratch	sc;

	PbScratchInit(&sc, &PbMallocAllocator);
	Work(job, &sc, NULL, NULL);
	PbScratchFree(&sc);
	return NULL;
}

int
PbComputeAreasThreaded(const PbBatch *b, const uint32_t *idx, uint32_t n,
					   double *areas, PbMethod method, int nthreads,
					   int (*should_stop) (void *ctx), void *ctx)
{
	Job			job;
	pthread_t	threads[MAX_THREADS];
	int			started = 0;
	sigset_t	all,
				old;
	PbScratch	sc;

	job.b = b;
	job.idx = idx;
	job.n = n;
	job.areas = areas;
	job.method = method;
	atomic_init(&job.next, 0);
	atomic_init(&job.stop, 0);
	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	if ((uint32_t) nthreads > n / CHUNK + 1)
		nthreads = (int) (n / CHUNK + 1);
	/* new threads inherit a fully blocked signal mask: signals stay with the caller */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int t = 1; t < nthreads; t++)
	{
		if (pthread_create(&threads[started], NULL, ThreadMain, &job) != 0)
			break;
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* malloc here too: no allocator hook may longjmp while threads run */
	PbScratchInit(&sc, &PbMallocAllocator);
	Work(&job, &sc, should_stop, ctx);
	for (int t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	PbScratchFree(&sc);
	return !atomic_load(&job.stop);
}
