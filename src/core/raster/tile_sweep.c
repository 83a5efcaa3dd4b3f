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
	unsigned char *reserved;	/* blocks and rings reserved by devices (count) */
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
	s->reserved = calloc((size_t) n, 1);
	if (s->marked == NULL || s->running == NULL || s->reserved == NULL)
	{
		free(s->marked);
		free(s->running);
		free(s->reserved);
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
	free(s->reserved);
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

/* Mark tile t to run (lock held). */
static void
MarkTile(PbTileSweep *s, int64_t t)
{
	if (!s->marked[t])
	{
		s->marked[t] = 1;
		s->nmarked++;
	}
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

			if (s->marked[t] && !s->reserved[t] && TileFree(s, t))
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

				if (u != t)
					MarkTile(s, u);
			}
	pthread_cond_broadcast(&s->sync.changed);
	pthread_mutex_unlock(&s->sync.lock);
}

/* Block b grown by its ring of tiles, clipped to the grid. */
static PbTileBlock
WithRing(const PbTileSweep *s, const PbTileBlock *b)
{
	PbTileBlock r = {b->tx0 > 0 ? b->tx0 - 1 : 0, b->ty0 > 0 ? b->ty0 - 1 : 0,
		b->tx1 < s->ntx ? b->tx1 + 1 : s->ntx, b->ty1 < s->nty ? b->ty1 + 1 : s->nty};

	return r;
}

/* Add delta to the reservation count of block b and its ring (lock held). */
static void
Reserve(PbTileSweep *s, const PbTileBlock *b, int delta)
{
	PbTileBlock r = WithRing(s, b);

	for (int y = r.ty0; y < r.ty1; y++)
		for (int x = r.tx0; x < r.tx1; x++)
			s->reserved[(int64_t) y * s->ntx + x] += delta;
}

/*
 * Marked tiles of block b, with its running ones too where running is
 * set; -1 when one of its tiles is reserved (lock held).
 */
static int64_t
BlockMarked(const PbTileSweep *s, const PbTileBlock *b, bool running)
{
	int64_t		m = 0;

	for (int y = b->ty0; y < b->ty1; y++)
		for (int x = b->tx0; x < b->tx1; x++)
		{
			int64_t		t = (int64_t) y * s->ntx + x;

			if (s->reserved[t])
				return -1;
			m += s->marked[t] + (running ? s->running[t] : 0);
		}
	return m;
}

/*
 * The block of the bw x bh grid with the most tiles marked or running
 * (a running tile marks its neighbours next: where a flood goes on, the
 * device takes it over from the CPU threads), none of them reserved by
 * another device (so that two devices' blocks are never neighbours);
 * false when there is none (lock held).
 */
static bool
BestBlock(const PbTileSweep *s, int bw, int bh, PbTileBlock *best)
{
	int64_t		most = 0;

	for (int by = 0; by < s->nty; by += bh)
		for (int bx = 0; bx < s->ntx; bx += bw)
		{
			PbTileBlock b = {bx, by, bx + bw < s->ntx ? bx + bw : s->ntx,
			by + bh < s->nty ? by + bh : s->nty};
			int64_t		m = BlockMarked(s, &b, true);

			if (m > most)
			{
				most = m;
				*best = b;
			}
		}
	return most > 0;
}

/* Whether a tile of block b or of its ring runs (lock held). */
static bool
AreaRunning(const PbTileSweep *s, const PbTileBlock *b)
{
	PbTileBlock r = WithRing(s, b);

	for (int y = r.ty0; y < r.ty1; y++)
		for (int x = r.tx0; x < r.tx1; x++)
			if (s->running[(int64_t) y * s->ntx + x])
				return true;
	return false;
}

/* Start block b, reserved and idle: its tiles run and are no longer marked (lock held). */
static void
StartBlock(PbTileSweep *s, const PbTileBlock *b)
{
	for (int y = b->ty0; y < b->ty1; y++)
		for (int x = b->tx0; x < b->tx1; x++)
		{
			int64_t		t = (int64_t) y * s->ntx + x;

			s->nmarked -= s->marked[t];
			s->marked[t] = 0;
			s->running[t] = 1;
		}
	s->nrunning++;
}

/* See tile_sweep.h. */
bool
PbTileSweepTakeBlock(PbTileSweep *s, int bw, int bh, bool polls, PbTileBlock *b)
{
	bool		held = false,	/* b is reserved */
				started = false;

	pthread_mutex_lock(&s->sync.lock);
	while (!HybridStopping(&s->sync, polls) && (s->nmarked > 0 || s->nrunning > 0))
	{
		if (!held)
		{
			if (!BestBlock(s, bw, bh, b))
			{
				HybridWait(&s->sync, polls);
				continue;
			}
			Reserve(s, b, 1);
			held = true;
		}
		if (AreaRunning(s, b))
			HybridWait(&s->sync, polls);
		else
		{
			bool		any;

			/* the CPU threads may have run its marked tiles meanwhile */
			Reserve(s, b, -1);
			any = BlockMarked(s, b, false) > 0;
			Reserve(s, b, 1);
			if (any)
			{
				StartBlock(s, b);
				started = true;
				break;
			}
			Reserve(s, b, -1);
			held = false;
		}
	}
	if (held && !started)
	{
		Reserve(s, b, -1);
		pthread_cond_broadcast(&s->sync.changed);
	}
	pthread_mutex_unlock(&s->sync.lock);
	return started;
}

/* See tile_sweep.h. */
void
PbTileSweepMark(PbTileSweep *s, int64_t t)
{
	pthread_mutex_lock(&s->sync.lock);
	MarkTile(s, t);
	pthread_cond_broadcast(&s->sync.changed);
	pthread_mutex_unlock(&s->sync.lock);
}

/* See tile_sweep.h. */
void
PbTileSweepDoneBlock(PbTileSweep *s, const PbTileBlock *b, bool failed)
{
	PbTileBlock r = WithRing(s, b);

	pthread_mutex_lock(&s->sync.lock);
	for (int y = b->ty0; y < b->ty1; y++)
		for (int x = b->tx0; x < b->tx1; x++)
			s->running[(int64_t) y * s->ntx + x] = 0;
	s->nrunning--;
	s->runs++;
	Reserve(s, b, -1);
	if (failed)
		for (int y = r.ty0; y < r.ty1; y++)
			for (int x = r.tx0; x < r.tx1; x++)
				MarkTile(s, (int64_t) y * s->ntx + x);
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
