/*
 * par_for.c: a parallel loop over independent items (raster tiles, packed
 * shape chunks).
 *
 * Items are handed out through one atomic counter, so uneven items (tiles
 * with more or less propagation) balance themselves.  Only the calling
 * thread polls; when it is told to stop it raises a flag the workers read
 * before taking their next item.  Workers start with every signal
 * blocked, so signal handlers (PostgreSQL's) only ever run on the caller.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "pb_base.h"

/* most worker threads one loop starts (the caller comes on top) */
#define PB_PAR_MAX_THREADS 256

/* A loop in progress, shared by the caller and the workers. */
typedef struct ParLoop
{
	PbParItemFn fn;
	void	   *arg;
	int64_t		n;
	atomic_llong next;			/* next item to hand out */
	atomic_int	stop;			/* set when poll asked to stop */
} ParLoop;

/* Take items until none are left or the loop is stopped. */
static void *
ParWorker(void *p)
{
	ParLoop    *loop = p;

	while (!atomic_load_explicit(&loop->stop, memory_order_relaxed))
	{
		int64_t		i = atomic_fetch_add(&loop->next, 1);

		if (i >= loop->n)
			break;
		loop->fn(loop->arg, i);
	}
	return NULL;
}

int
PbThreadStart(pthread_t *tid, void *(*fn) (void *), void *arg)
{
	sigset_t	all,
				old;
	int			rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Run the loop on the calling thread and up to run->threads - 1 others. */
PbStatus
PbParallelFor(const PbRun *run, int64_t n, PbParItemFn fn, void *arg)
{
	ParLoop		loop;
	pthread_t	tids[PB_PAR_MAX_THREADS];
	int			want = run && run->threads > 1 ? run->threads - 1 : 0;
	int			started = 0;

	loop.fn = fn;
	loop.arg = arg;
	loop.n = n;
	atomic_init(&loop.next, 0);
	atomic_init(&loop.stop, 0);
	if (want > PB_PAR_MAX_THREADS)
		want = PB_PAR_MAX_THREADS;
	if (want > n - 1)
		want = n > 1 ? (int) (n - 1) : 0;
	while (started < want && PbThreadStart(&tids[started], ParWorker, &loop) == 0)
		started++;

	for (;;)
	{
		int64_t		i;

		if (run && run->poll && run->poll(run->poll_arg))
		{
			atomic_store(&loop.stop, 1);
			break;
		}
		i = atomic_fetch_add(&loop.next, 1);
		if (i >= n)
			break;
		fn(arg, i);
	}
	for (int t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	return atomic_load(&loop.stop) ? PB_ERR_STOPPED : PB_OK;
}
