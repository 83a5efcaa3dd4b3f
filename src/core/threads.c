/*
 * threads.c: a fork-join of a few threads with signals blocked in them.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>

#include "threads.h"

#define MAX_THREADS 256

/* One thread's call. */
typedef struct Call
{
	void		(*fn) (void *arg, int index);
	void	   *arg;
	int			index;
} Call;

/* Thread body: make the call. */
static void *
ThreadMain(void *p)
{
	Call	   *c = (Call *) p;

	c->fn(c->arg, c->index);
	return NULL;
}

void
PbThreadsRun(int nthreads, void (*fn) (void *arg, int index), void *arg)
{
	pthread_t	threads[MAX_THREADS];
	Call		calls[MAX_THREADS];
	int			started[MAX_THREADS];
	sigset_t	all,
				old;

	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int t = 1; t < nthreads; t++)
	{
		calls[t] = (Call) {fn, arg, t};
		started[t] = pthread_create(&threads[t], NULL, ThreadMain, &calls[t]) == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fn(arg, 0);
	for (int t = 1; t < nthreads; t++)
	{
		if (started[t])
			pthread_join(threads[t], NULL);
		else
			fn(arg, t);
	}
}
