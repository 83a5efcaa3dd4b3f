/*
 * hybrid_sync.h: what the schedulers of the raster core (recon_hybrid.c,
 * edt_hybrid.c, tile_sweep.c) share: one lock over the schedule, one
 * condition its workers sleep on, and the run's stop.  The calling thread
 * is the one worker that polls run->poll; it sleeps at most 20 ms at a
 * time so that a cancel is seen while others work.  Internal to the
 * raster core.
 */
#ifndef PB_HYBRID_SYNC_H
#define PB_HYBRID_SYNC_H

#include <pthread.h>
#include <stdbool.h>

#include "../base/pb_base.h"

typedef struct HybridSync
{
	pthread_mutex_t lock;
	pthread_cond_t changed;
	const PbRun *run;
	bool		stop;
	PbStatus	status;			/* PB_OK, or why the run stopped */
} HybridSync;

/* Start a schedule's lock and condition for run (status PB_OK). */
void		HybridSyncInit(HybridSync *y, const PbRun *run);

/* Destroy what HybridSyncInit made. */
void		HybridSyncDestroy(HybridSync *y);

/* Stop the run for why (lock held), waking every sleeping worker. */
void		HybridStop(HybridSync *y, PbStatus why);

/*
 * Whether the run should stop (lock held); a polling worker asks
 * run->poll first, and stops the run with PB_ERR_STOPPED when it says so.
 */
bool		HybridStopping(HybridSync *y, bool polls);

/* Sleep until the schedule changes (lock held); a polling worker 20 ms at most. */
void		HybridWait(HybridSync *y, bool polls);

#endif							/* PB_HYBRID_SYNC_H */
