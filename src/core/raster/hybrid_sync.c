/*
 * hybrid_sync.c: the lock, condition and stop of hybrid_sync.h.
 */
#define _POSIX_C_SOURCE 200809L	/* pthreads, clock_gettime */
#include "hybrid_sync.h"

#include <time.h>

#define HYBRID_POLL_NS (20 * 1000 * 1000)	/* the polling worker's longest sleep */

/* See hybrid_sync.h. */
void
HybridSyncInit(HybridSync *y, const PbRun *run)
{
	pthread_mutex_init(&y->lock, NULL);
	pthread_cond_init(&y->changed, NULL);
	y->run = run;
	y->stop = false;
	y->status = PB_OK;
}

/* See hybrid_sync.h. */
void
HybridSyncDestroy(HybridSync *y)
{
	pthread_mutex_destroy(&y->lock);
	pthread_cond_destroy(&y->changed);
}

/* See hybrid_sync.h. */
void
HybridStop(HybridSync *y, PbStatus why)
{
	y->stop = true;
	y->status = why;
	pthread_cond_broadcast(&y->changed);
}

/* See hybrid_sync.h. */
bool
HybridStopping(HybridSync *y, bool polls)
{
	if (polls && y->run->poll && y->run->poll(y->run->poll_arg))
		HybridStop(y, PB_ERR_STOPPED);
	return y->stop;
}

/* See hybrid_sync.h. */
void
HybridWait(HybridSync *y, bool polls)
{
	struct timespec until;

	if (!polls)
	{
		pthread_cond_wait(&y->changed, &y->lock);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += HYBRID_POLL_NS;
	if (until.tv_nsec >= 1000000000L)
	{
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&y->changed, &y->lock, &until);
}
