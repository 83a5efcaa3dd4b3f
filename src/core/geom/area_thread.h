/*
 * area_thread.h: a batch's intersection areas computed on a thread of
 * their own while the caller goes on (a serial aggregate decoding its next
 * rows, as the GPU lets it when the batch is on the device).
 *
 * One batch at a time: Start hands the thread a batch, which the caller
 * must leave untouched until Wait (or Free) has returned.  The thread uses
 * its own scratch space through the allocator given at Init (never the
 * caller's, which may be PostgreSQL's); when that allocator runs out of
 * memory the thread ends cleanly and Wait says so, and the caller computes
 * the batch itself.  A stop (Wait's poll, Free) ends the thread inside a
 * long pair too, at the engines' next interrupt check.  Areas are those
 * of PbIntersectionArea with the same method, bit for bit.
 */
#ifndef PB_GEOM_AREA_THREAD_H
#define PB_GEOM_AREA_THREAD_H

#include <pthread.h>
#include <stdatomic.h>

#include "pb_geom.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct PbAreaThread
{
	const PbAllocator *mem;		/* the allocator given to Init */
	PbAllocator scratch_mem;	/* mem with the stop check as interrupt hook */
	PbScratch	scratch;
	double	   *areas;			/* areas[i]: pair i of the batch */
	uint32_t	cap;			/* areas' room, in pairs */
	const PbBatch *batch;		/* the batch being computed */
	PbMethod	method;
	pthread_t	tid;
	bool		running;		/* started and not yet joined */
	bool		out_of_memory;	/* the thread's allocator failed */
	atomic_int	stop;			/* asks the thread to end before its last pair */
	pthread_mutex_t lock;
	pthread_cond_t ended;
	bool		done;			/* under lock: the thread's work is over */
} PbAreaThread;

/* An idle thread whose scratch (keeping runs of shapes when keep_runs) uses mem. */
extern void PbAreaThreadInit(PbAreaThread *t, const PbAllocator *mem, bool keep_runs);

/*
 * Start computing every pair of b by method; false when no thread could be
 * started (or the areas had no room): nothing runs, the caller computes b.
 * The thread must be idle (never started, or waited for).
 */
extern bool PbAreaThreadStart(PbAreaThread *t, const PbBatch *b, PbMethod method);

/*
 * Wait for the batch, calling poll (on this thread) every few
 * milliseconds.  PB_OK: *areas holds every pair's area until the next
 * Start.  PB_ERR_STOPPED: poll asked to stop, the thread was stopped.
 * PB_ERR_NOMEM: the thread ran out of memory.  Either way the thread is
 * idle again.
 */
extern PbStatus PbAreaThreadWait(PbAreaThread *t, PbPollFn poll, void *poll_arg,
								 const double **areas);

/* Stop and join a running thread, then release everything (safe twice). */
extern void PbAreaThreadFree(PbAreaThread *t);

#ifdef __cplusplus
}
#endif

#endif							/* PB_GEOM_AREA_THREAD_H */
