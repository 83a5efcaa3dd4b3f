/*
 * tile_sweep.c: the schedule of tile_sweep.h, under the lock and
 * condition of hybrid_sync.h.
 */
#define _POSIX_C_SOURCE 200809L	/* pthreads */
#include "tile_sweep.h"

#include <stdlib.h>

#include "hybrid_sync.h"

struct PbTileSweep
{
	HybridSync	sync;
	int			ntx,
				nty;
	unsigned char *marked;		/* tile must run (again) */
	unsigned char *running;
	int64_t		nmarked;
	int64_t		next;			/* position in the current sweep */
	int			sweep;			/* sweeps begun - 1: even forwards, odd backwards */
	int			nrunning;
	int64_t		runs;
};

/* See tile_sweep.h. */
PbTileSweep *
PbTileSweepNew(int ntx, int nty, const PbRun *run)
{
	int64_t		n = (int64_t) ntx * nty;
	PbTileSweep *s;

	if (ntx < 1 || nty < 1 || (s = calloc(1, sizeof(PbTileSweep))) == NULL)
		return NULL;
	s->marked = malloc((size_t) n);
	s->running = calloc((size_t) n, 1);
	if (s->marked == NULL || s->running == NULL)
	{
		free(s->marked);
		free(s->running);
		free(s);
		return NULL;
	}
	for (int64_t t = 0; t < n; t++)
		s->marked[t] = 1;
	s->ntx = ntx;
	s->nty = nty;
	s->nmarked = n;
	HybridSyncInit(&s->sync, run);
	return s;
}

/* See tile_sweep.h. */
void
PbTileSweepFree(PbTileSweep *s)
{
	if (s == NULL)
		return;
	HybridSyncDestroy(&s->sync);
	free(s->marked);
	free(s->running);
	free(s);
}

/* Whether tile t and its eight neighbours are all idle (lock held). */
static bool
TileFree(const PbTileSweep *s, int64_t t)
{
	int			tx = (int) (t % s->ntx),
				ty = (int) (t / s->ntx);

	for (int y = ty > 0 ? ty - 1 : 0; y <= ty + 1 && y < s->nty; y++)
		for (int x = tx > 0 ? tx - 1 : 0; x <= tx + 1 && x < s->ntx; x++)
			if (s->running[(int64_t) y * s->ntx + x])
				return false;
	return true;
}

/*
 * The next marked tile that may run, in sweep order from where the sweep
 * is, beginning one new sweep when this one is over (lock held); -1 when
 * none may run now.
 */
static int64_t
TileNext(PbTileSweep *s)
{
	int64_t		n = (int64_t) s->ntx * s->nty;

	for (int pass = 0; pass < 2 && s->nmarked > 0; pass++)
	{
		for (; s->next < n; s->next++)
		{
			int64_t		t = s->sweep % 2 == 0 ? s->next : n - 1 - s->next;

			if (s->marked[t] && TileFree(s, t))
			{
				s->next++;
				return t;
			}
		}
		s->sweep++;
		s->next = 0;
	}
	return -1;
}

/* See tile_sweep.h. */
int64_t
PbTileSweepTake(PbTileSweep *s, bool polls)
{
	int64_t		t = -1;

	pthread_mutex_lock(&s->sync.lock);
	while (!HybridStopping(&s->sync, polls) && (s->nmarked > 0 || s->nrunning > 0))
	{
		if ((t = TileNext(s)) >= 0)
		{
			s->marked[t] = 0;
			s->nmarked--;
			s->running[t] = 1;
			s->nrunning++;
			break;
		}
		HybridWait(&s->sync, polls);
	}
	pthread_mutex_unlock(&s->sync.lock);
	return t;
}

/* See tile_sweep.h. */
void
PbTileSweepDone(PbTileSweep *s, int64_t t, bool changed)
{
	int			tx = (int) (t % s->ntx),
				ty = (int) (t / s->ntx);

	pthread_mutex_lock(&s->sync.lock);
	s->running[t] = 0;
	s->nrunning--;
	s->runs++;
	if (changed)
		for (int y = ty > 0 ? ty - 1 : 0; y <= ty + 1 && y < s->nty; y++)
			for (int x = tx > 0 ? tx - 1 : 0; x <= tx + 1 && x < s->ntx; x++)
			{
				int64_t		u = (int64_t) y * s->ntx + x;

				if (u != t && !s->marked[u])
				{
					s->marked[u] = 1;
					s->nmarked++;
				}
			}
	pthread_cond_broadcast(&s->sync.changed);
	pthread_mutex_unlock(&s->sync.lock);
}

/* See tile_sweep.h. */
void
PbTileSweepStop(PbTileSweep *s, PbStatus why)
{
	pthread_mutex_lock(&s->sync.lock);
	if (!s->sync.stop)
		HybridStop(&s->sync, why);
	pthread_mutex_unlock(&s->sync.lock);
}

/* See tile_sweep.h. */
PbStatus
PbTileSweepStatus(PbTileSweep *s)
{
	PbStatus	st;

	pthread_mutex_lock(&s->sync.lock);
	st = s->sync.status;
	pthread_mutex_unlock(&s->sync.lock);
	return st;
}

/* See tile_sweep.h. */
int64_t
PbTileSweepRuns(PbTileSweep *s)
{
	int64_t		runs;

	pthread_mutex_lock(&s->sync.lock);
	runs = s->runs;
	pthread_mutex_unlock(&s->sync.lock);
	return runs;
}
