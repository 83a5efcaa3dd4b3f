/*
 * pair_threads.c: intersection areas on several CPU threads.
 *
 * Work sharing by chunks from one atomic counter, so uneven pairs (a few
 * huge polygons among nuclei) balance themselves.  The engines only read
 * the batch; each thread has its own scratch.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "pair_threads.h"
#include "threads.h"

#define CHUNK 256				/* pairs taken at a time */

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

/* The caller's part of one computation: its job, and how to ask to stop. */
typedef struct Share
{
	Job		   *job;
	int			(*should_stop) (void *ctx);
	void	   *ctx;
} Share;

/* Thread i's part: work with a private scratch (only thread 0 polls). */
static void
RunShare(void *arg, int index)
{
	Share	   *sh = (Share *) arg;
	PbScratch	sc;

	/* malloc: no allocator hook may longjmp while threads run */
	PbScratchInit(&sc, &PbMallocAllocator);
	if (index == 0)
		Work(sh->job, &sc, sh->should_stop, sh->ctx);
	else
		Work(sh->job, &sc, NULL, NULL);
	PbScratchFree(&sc);
}

int
PbComputeAreasThreaded(const PbBatch *b, const uint32_t *idx, uint32_t n,
					   double *areas, PbMethod method, int nthreads,
					   int (*should_stop) (void *ctx), void *ctx)
{
	Job			job;
	Share		share = {&job, should_stop, ctx};

	job.b = b;
	job.idx = idx;
	job.n = n;
	job.areas = areas;
	job.method = method;
	atomic_init(&job.next, 0);
	atomic_init(&job.stop, 0);
	if ((uint32_t) nthreads > n / CHUNK + 1)
		nthreads = (int) (n / CHUNK + 1);
	PbThreadsRun(nthreads, RunShare, &share);
	return !atomic_load(&job.stop);
}
