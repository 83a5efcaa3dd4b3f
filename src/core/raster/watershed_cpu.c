/*
 * watershed_cpu.c: the watershed of watershed.h on CPU threads.
 *
 * Keys: the image is cut into square tiles, run by the threads from one
 * schedule (tile_sweep.h): a thread takes a marked tile none of whose
 * eight neighbours is running, so that it reads its neighbour tiles' keys
 * (which nobody writes meanwhile) and writes only its own; tiles are
 * taken in sweeps, alternately forwards and backwards, and a flood goes
 * on into the next tile as soon as a thread is free, with no barrier
 * between colours or rounds.  A tile computes the
 * least keys it can reach from what it sees, by Dijkstra's algorithm on
 * the key order (every step strictly increases a key, so a popped key is
 * final for the tile), its queue a radix heap (ws_queue.h) started from
 * raster scans that leave only a few pixels to queue (TileFirstScan,
 * TileFrameScan).  A tile whose border keys changed marks its eight
 * neighbours; the sweeps go on until no tile is marked, which is the
 * unique least solution of the definition.
 *
 * Then, all in parallel over rows: each pixel's pointer; marker-less, the
 * minima numbered in row-major order (ws_minima.c: a noisy image has
 * millions); each label found by following pointers to a seed (walks that meet resolve
 * each other's pixels with relaxed atomics: the values they write are the
 * same); the watershed lines.
 */
#define _POSIX_C_SOURCE 200809L	/* pthreads */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tile_sweep.h"
#include "watershed.h"
#include "watershed_rules.h"
#include "ws_minima.h"
#include "ws_pointers.h"
#include "ws_queue.h"

#define WS_DEFAULT_TILE 256
#define WS_ROWS_PER_ITEM 16
#define WS_INIT_STRETCH 1024	/* marker-less init: levels on the stack at a time */
#define WS_DONE 0x80			/* in ptr: the pixel's label is final */

/* Which neighbours a scan reads: all, or those before or after in row-major order. */
typedef enum WsSide
{
	WS_SIDE_ALL,
	WS_SIDE_BEFORE,
	WS_SIDE_AFTER
} WsSide;

/* The state every phase shares. */
typedef struct WsCtx
{
	WsGrid		g;
	const PbWatershedSpec *spec;
	uint32_t   *lv;				/* levels, PB_WS_INF for walls; NULL marker-less,
								 * where a key's c is its level (WsLevelOf) */
	uint64_t   *key;
	uint8_t    *seed;			/* nonzero: a seed (a marker's; marker-less, a
								 * minimum's, set by the pointers) */
	uint8_t    *ptr;			/* neighbour index of the pointer, or WS_DONE (atomic while labelling) */
	uint32_t   *parent;			/* marker-less: the minima's forest (ws_minima.h),
								 * over the keys when no line needs them */
	uint32_t   *labels;
	int64_t		off[8];			/* index offset of neighbour j */
	int			nside[3];		/* neighbours on each WsSide */
	int			side[3][8];		/* their indices j */
	int64_t		sideoff[3][8];	/* and index offsets */
	/* tiles */
	int			tile;
	int64_t		tiles_x,
				tiles_y;
	uint8_t    *visited;		/* per tile: its full first scan is done */
	atomic_int	nomem;
} WsCtx;

/* The pixel bounds of tile t. */
static void
TileBounds(const WsCtx *c, int64_t t, int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1)
{
	*x0 = (t % c->tiles_x) * c->tile;
	*y0 = (t / c->tiles_x) * c->tile;
	*x1 = *x0 + c->tile < c->g.width ? *x0 + c->tile : c->g.width;
	*y1 = *y0 + c->tile < c->g.height ? *y0 + c->tile : c->g.height;
}

/* Level of pixel i (WsLevelOf). */
static inline uint32_t
Level(const WsCtx *c, int64_t i)
{
	return WsLevelOf(c->lv, c->key, i);
}

/*
 * Whether the key phase holds pixel i fixed: a wall, or a marker's seed
 * (marker-less runs have no seed before the pointers find the minima).
 */
static inline bool
KeyFixed(const WsCtx *c, int64_t i)
{
	return Level(c, i) == PB_WS_INF || (c->g.markers != NULL && c->seed[i]);
}

/*
 * The least of pixel i's key and what its neighbours on side s offer it
 * now (i at (x, y), neither a wall nor a seed).  Inside the image's outer
 * frame the neighbours are at fixed offsets, without bounds checks and
 * without a wall test: a wall's key stays (INF, INF), which offers
 * nothing.
 */
static inline uint64_t
OfferedKey(const WsCtx *c, int64_t i, int64_t x, int64_t y, WsSide s)
{
	uint64_t	k = c->key[i];
	uint32_t	lvu = Level(c, i);

	if (x > 0 && y > 0 && x < c->g.width - 1 && y < c->g.height - 1)
	{
		for (int n = 0; n < c->nside[s]; n++)
		{
			uint64_t	cand = WsCand(c->key[i + c->sideoff[s][n]], lvu);

			k = cand < k ? cand : k;
		}
		return k;
	}
	for (int n = 0; n < c->nside[s]; n++)
	{
		int64_t		v = WsNeighbour(&c->g, c->lv, c->key, x, y, c->side[s][n]);

		if (v >= 0 && WsCand(c->key[v], lvu) < k)
			k = WsCand(c->key[v], lvu);
	}
	return k;
}

/* One run of a tile: its bounds, its queue, and what happened. */
typedef struct TileJob
{
	int64_t		x0,
				y0,
				x1,
				y1;
	WsQueue		q;
	bool		ok;				/* no allocation failed */
	bool		border;			/* a key on the tile's frame dropped */
} TileJob;

/* Whether (x, y) lies on the frame of the job's tile. */
static inline bool
OnFrame(const TileJob *job, int64_t x, int64_t y)
{
	return x == job->x0 || y == job->y0 || x == job->x1 - 1 || y == job->y1 - 1;
}

/*
 * Lower pixel (x, y) of the tile to what its neighbours on side s offer
 * now; whether it dropped.  Notes a drop on the tile's frame.
 */
static inline bool
TileLower(WsCtx *c, TileJob *job, int64_t x, int64_t y, WsSide s)
{
	int64_t		i = y * c->g.width + x;
	uint64_t	k;

	if (KeyFixed(c, i))
		return false;
	k = OfferedKey(c, i, x, y, s);
	if (k == c->key[i])
		return false;
	c->key[i] = k;
	job->border |= OnFrame(job, x, y);
	return true;
}

/* Queue pixel (x, y), whose key may lower a neighbour's. */
static inline void
TilePush(WsCtx *c, TileJob *job, int64_t x, int64_t y)
{
	int64_t		i = y * c->g.width + x;

	if (job->ok)
		job->ok = WsQueuePush(&job->q, c->key[i], (uint32_t) i);
}

/*
 * Whether pixel (x, y), lowered on the backward pass, can lower one of its
 * tile neighbours that pass has already been through (those after it in
 * row-major order): they have not seen its new key.
 */
static inline bool
TileOffersBack(const WsCtx *c, const TileJob *job, int64_t x, int64_t y)
{
	int64_t		i = y * c->g.width + x;

	for (int n = 0; n < c->nside[WS_SIDE_AFTER]; n++)
	{
		int			j = c->side[WS_SIDE_AFTER][n];
		int64_t		nx = x + PbNbDx(j),
					ny = y + PbNbDy(j),
					v = i + c->off[j];

		if (nx < job->x0 || ny < job->y0 || nx >= job->x1 || ny >= job->y1)
			continue;
		if (!KeyFixed(c, v) && WsCand(c->key[i], Level(c, v)) < c->key[v])
			return true;
	}
	return false;
}

/*
 * The first run of a tile: a forward raster pass lowers every pixel to
 * what its neighbours before it offer, a backward pass to what those
 * after it offer (most keys come out final, as in Vincent's hybrid
 * reconstruction).  A pixel has then seen the final offer of every
 * neighbour, except where that neighbour came before it and dropped on the
 * backward pass, after it; those neighbours are queued.
 */
static void
TileFirstScan(WsCtx *c, TileJob *job)
{
	for (int64_t y = job->y0; y < job->y1; y++)
		for (int64_t x = job->x0; x < job->x1; x++)
			TileLower(c, job, x, y, WS_SIDE_BEFORE);
	for (int64_t y = job->y1 - 1; y >= job->y0; y--)
		for (int64_t x = job->x1 - 1; x >= job->x0; x--)
			if (TileLower(c, job, x, y, WS_SIDE_AFTER) && TileOffersBack(c, job, x, y))
				TilePush(c, job, x, y);
}

/*
 * A later run of a tile: only keys outside it can have changed, so only
 * its frame pixels can drop on a scan; those that do are queued.
 */
static void
TileFrameScan(WsCtx *c, TileJob *job)
{
	for (int64_t x = job->x0; x < job->x1; x++)
	{
		if (TileLower(c, job, x, job->y0, WS_SIDE_ALL))
			TilePush(c, job, x, job->y0);
		if (job->y1 - 1 > job->y0 && TileLower(c, job, x, job->y1 - 1, WS_SIDE_ALL))
			TilePush(c, job, x, job->y1 - 1);
	}
	for (int64_t y = job->y0 + 1; y < job->y1 - 1; y++)
	{
		if (TileLower(c, job, job->x0, y, WS_SIDE_ALL))
			TilePush(c, job, job->x0, y);
		if (job->x1 - 1 > job->x0 && TileLower(c, job, job->x1 - 1, y, WS_SIDE_ALL))
			TilePush(c, job, job->x1 - 1, y);
	}
}

/*
 * Offer the popped key k of pixel i (at (x, y)) to its neighbours inside
 * the tile, queueing those it lowers.  Away from the tile's frame every
 * neighbour is inside it, at a fixed offset.
 */
static inline void
TileRelax(WsCtx *c, TileJob *job, uint64_t k, int64_t i, int64_t x, int64_t y)
{
	bool		inner = x > job->x0 && y > job->y0 && x < job->x1 - 1 && y < job->y1 - 1;

	for (int j = 0; j < c->g.conn && job->ok; j++)
	{
		int64_t		nx = x + PbNbDx(j),
					ny = y + PbNbDy(j),
					v = i + c->off[j];
		uint64_t	kv;

		if (!inner && (nx < job->x0 || ny < job->y0 || nx >= job->x1 || ny >= job->y1))
			continue;
		if (KeyFixed(c, v))
			continue;
		kv = WsCand(k, Level(c, v));
		if (kv < c->key[v])
		{
			c->key[v] = kv;
			job->border |= OnFrame(job, nx, ny);
			job->ok = WsQueuePush(&job->q, kv, (uint32_t) v);
		}
	}
}

/*
 * Run tile t to its least keys given its neighbours' current keys, by
 * Dijkstra's algorithm: a scan (TileFirstScan, TileFrameScan) lowers keys
 * and queues every pixel whose key may still lower a neighbour's, then the
 * queue pops keys in order, each final, offering them to the tile's
 * pixels.  Whether a frame pixel changed.
 */
static bool
TileRun(WsCtx *c, int64_t t)
{
	TileJob		job;

	TileBounds(c, t, &job.x0, &job.y0, &job.x1, &job.y1);
	WsQueueInit(&job.q);
	job.ok = true;
	job.border = false;
	if (!c->visited[t])
		TileFirstScan(c, &job);
	else
		TileFrameScan(c, &job);
	while (job.ok && job.q.n > 0)
	{
		WsQueueItem it;

		if (!WsQueuePop(&job.q, &it))
			job.ok = false;
		else if (it.key == c->key[it.pix])	/* else superseded */
			TileRelax(c, &job, it.key, it.pix, it.pix % c->g.width, it.pix / c->g.width);
	}
	WsQueueFree(&job.q);
	if (!job.ok)
		atomic_store(&c->nomem, 1);
	c->visited[t] = 1;
	return job.border;
}

/* The key sweep, as its threads share it; in a hybrid run, with its devices. */
typedef struct KeySweep
{
	WsCtx	   *c;
	PbTileSweep *s;
	pthread_t	caller;			/* the thread that polls */
	const PbRun *run;
	PbWsDevice *devs[PB_WS_MAX_DEVICES];	/* hybrid: the devices that began */
	int			ndev;
	int			block[PB_WS_MAX_DEVICES];	/* their blocks' side in tiles */
	_Atomic double cpu_busy_s;
	int64_t		runs;			/* tile and block runs */
	double		keys_s;			/* seconds of the key phase */
	double		pointers_s;		/* and of the phases after it: pointers, */
	double		minima_s;		/* numbering of the minima, */
	double		labels_s;		/* labels and lines */
} KeySweep;

/* Add seconds to an atomic sum. */
static void
AddSeconds(_Atomic double *sum, double s)
{
	double		old = atomic_load(sum);

	while (!atomic_compare_exchange_weak(sum, &old, old + s))
		;
}

/*
 * One thread of the CPU's key sweep, running the tiles the schedule gives
 * it until none is marked; the calling thread polls the run while it
 * waits, and an allocation failure stops every thread.
 */
static void
CpuTiles(KeySweep *k)
{
	bool		polls = pthread_equal(pthread_self(), k->caller);
	double		busy = 0;
	int64_t		t;

	while ((t = PbTileSweepTake(k->s, polls)) >= 0)
	{
		double		t0 = PbMonotonicSeconds();
		bool		changed = TileRun(k->c, t);

		busy += PbMonotonicSeconds() - t0;
		if (atomic_load(&k->c->nomem))
			PbTileSweepStop(k->s, PB_ERR_NOMEM);
		PbTileSweepDone(k->s, t, changed);
	}
	AddSeconds(&k->cpu_busy_s, busy);
}

/* The pixel rectangle of block b, clipped to the image. */
static void
BlockBounds(const WsCtx *c, const PbTileBlock *b, int64_t *x0, int64_t *y0,
			int64_t *x1, int64_t *y1)
{
	*x0 = (int64_t) b->tx0 * c->tile;
	*y0 = (int64_t) b->ty0 * c->tile;
	*x1 = (int64_t) b->tx1 * c->tile < c->g.width ? (int64_t) b->tx1 * c->tile : c->g.width;
	*y1 = (int64_t) b->ty1 * c->tile < c->g.height ? (int64_t) b->ty1 * c->tile : c->g.height;
}

/* Frame pixel f of rectangle [x0,x1) x [y0,y1), going round it: its coordinates. */
static void
FramePixel(int64_t f, int64_t x0, int64_t y0, int64_t x1, int64_t y1, int64_t *x, int64_t *y)
{
	int64_t		w = x1 - x0,
				h = y1 - y0;

	if (h == 1 || w == 1)		/* a line: all of it */
	{
		*x = h == 1 ? x0 + f : x0;
		*y = h == 1 ? y0 : y0 + f;
	}
	else if (f < 2 * w)			/* top row, then bottom row */
	{
		*x = x0 + f % w;
		*y = f < w ? y0 : y1 - 1;
	}
	else						/* the two columns between */
	{
		*x = (f - 2 * w) % 2 == 0 ? x0 : x1 - 1;
		*y = y0 + 1 + (f - 2 * w) / 2;
	}
}

/* Pixels on the frame of a w x h rectangle. */
static int64_t
FrameSize(int64_t w, int64_t h)
{
	return h == 1 ? w : w == 1 ? h : 2 * w + 2 * (h - 2);
}

/*
 * After a block's run: mark every tile outside the block next to a frame
 * pixel whose key changed (saved: the frame's keys before the run).
 */
static void
MarkAroundBlock(KeySweep *k, const PbTileBlock *b, const uint64_t *saved)
{
	WsCtx	   *c = k->c;
	int64_t		x0,
				y0,
				x1,
				y1,
				nf,
				last = -1;

	BlockBounds(c, b, &x0, &y0, &x1, &y1);
	nf = FrameSize(x1 - x0, y1 - y0);
	for (int64_t f = 0; f < nf; f++)
	{
		int64_t		x,
					y;

		FramePixel(f, x0, y0, x1, y1, &x, &y);
		if (c->key[y * c->g.width + x] == saved[f])
			continue;
		for (int j = 0; j < 8; j++)
		{
			int64_t		nx = x + PbNbDx(j),
						ny = y + PbNbDy(j),
						t;

			if (nx < 0 || ny < 0 || nx >= c->g.width || ny >= c->g.height ||
				(nx >= x0 && nx < x1 && ny >= y0 && ny < y1))
				continue;
			t = (ny / c->tile) * c->tiles_x + nx / c->tile;
			if (t != last)		/* most repeats are the last one */
				PbTileSweepMark(k->s, t);
			last = t;
		}
	}
}

/* Set the visited flag of block b's tiles: whether they hold a tile run's state. */
static void
SetVisited(WsCtx *c, const PbTileBlock *b, uint8_t v)
{
	for (int ty = b->ty0; ty < b->ty1; ty++)
		memset(c->visited + (int64_t) ty * c->tiles_x + b->tx0, v, (size_t) (b->tx1 - b->tx0));
}

/*
 * One device's thread of a hybrid key sweep: the blocks the schedule gives
 * it, each with its frame's keys saved before and compared after.  A
 * failed block is marked to run again with its ring, its tiles from a
 * first scan (their keys may be half done), and the device takes no more;
 * a stop stops the sweep.
 */
static void
DeviceBlocks(KeySweep *k, int d)
{
	PbWsDevice *dev = k->devs[d];
	WsCtx	   *c = k->c;
	bool		polls = pthread_equal(pthread_self(), k->caller);
	int64_t		side = (int64_t) k->block[d] * c->tile;
	uint64_t   *saved = malloc(sizeof(uint64_t) * (size_t) (4 * side + 4));
	PbTileBlock b;

	if (saved == NULL)
	{
		snprintf(dev->err, sizeof(dev->err), "out of memory for a block's frame");
		dev->failed = true;
		return;
	}
	while (PbTileSweepTakeBlock(k->s, k->block[d], k->block[d], polls, &b))
	{
		int64_t		x0,
					y0,
					x1,
					y1,
					nf;
		double		t0 = PbMonotonicSeconds();
		int			rc;

		BlockBounds(c, &b, &x0, &y0, &x1, &y1);
		nf = FrameSize(x1 - x0, y1 - y0);
		for (int64_t f = 0; f < nf; f++)
		{
			int64_t		x,
						y;

			FramePixel(f, x0, y0, x1, y1, &x, &y);
			saved[f] = c->key[y * c->g.width + x];
		}
		rc = dev->run(dev->ctx, c->key, x0, y0, x1, y1, polls ? k->run->poll : NULL,
					  k->run->poll_arg, dev->err, sizeof(dev->err));
		dev->busy_s += PbMonotonicSeconds() - t0;
		dev->regions++;
		dev->pixels += (x1 - x0) * (y1 - y0);
		if (rc != 0)
		{
			SetVisited(c, &b, 0);
			PbTileSweepDoneBlock(k->s, &b, true);
			if (rc == 1)
				PbTileSweepStop(k->s, PB_ERR_STOPPED);
			else
				dev->failed = true;
			break;
		}
		SetVisited(c, &b, 1);
		MarkAroundBlock(k, &b, saved);
		PbTileSweepDoneBlock(k->s, &b, false);
	}
	free(saved);
}

/* PbParItemFn: item i < ndev drives device i, the others are CPU threads. */
static void
KeySweepThread(void *arg, int64_t item)
{
	KeySweep   *k = arg;

	if (item < k->ndev)
		DeviceBlocks(k, (int) item);
	else
		CpuTiles(k);
}

/*
 * Every tile to its least keys: the key sweep on run's threads, and in a
 * hybrid run the devices of k (begun) on threads of their own.
 */
static PbStatus
KeyPhase(WsCtx *c, const PbRun *run, KeySweep *k)
{
	PbRun		quiet = *run;	/* the sweep polls, on the calling thread */
	int			cpu = run->threads - k->ndev > 1 ? run->threads - k->ndev : 1;
	PbStatus	st;

	k->c = c;
	k->run = run;
	k->caller = pthread_self();
	atomic_init(&k->cpu_busy_s, 0);
	if ((k->s = PbTileSweepNew((int) c->tiles_x, (int) c->tiles_y, run)) == NULL)
		return PB_ERR_NOMEM;
	quiet.poll = NULL;
	quiet.threads = cpu + k->ndev;
	PbParallelFor(&quiet, quiet.threads, KeySweepThread, k);
	st = PbTileSweepStatus(k->s);
	k->runs = PbTileSweepRuns(k->s);
	PbTileSweepFree(k->s);
	return st;
}

/*
 * Levels of the n pixels from i0 into out (PbWsLevel's, walls not yet
 * applied): one loop per pixel type, so that the type is not asked per
 * pixel.
 */
static void
LevelRange(const PbImage *im, int64_t i0, int64_t n, uint32_t *out)
{
	const void *d = im->data;

	switch (im->type)
	{
		case PB_PIX_16BUI:
			for (int64_t k = 0; k < n; k++)
				out[k] = ((const uint16_t *) d)[i0 + k];
			break;
		case PB_PIX_32BF:
			for (int64_t k = 0; k < n; k++)
				out[k] = PbWsFloatLevel(((const float *) d)[i0 + k]);
			break;
		default:
			for (int64_t k = 0; k < n; k++)
				out[k] = ((const uint8_t *) d)[i0 + k];
			break;
	}
}

/*
 * Marker-less, the initial keys of pixels [i0, i1), base(u) with the
 * level as c, walls (INF, INF), and the walls' final label 0: the levels
 * go through a buffer on the stack, a stretch at a time, as there is no
 * level array.
 */
static void
InitKeys(WsCtx *c, int64_t i0, int64_t i1)
{
	const uint8_t *wall = c->spec->wall;
	uint32_t	lv[WS_INIT_STRETCH];

	for (int64_t a = i0; a < i1; a += WS_INIT_STRETCH)
	{
		int64_t		n = i1 - a < WS_INIT_STRETCH ? i1 - a : WS_INIT_STRETCH;

		LevelRange(&c->spec->image, a, n, lv);
		for (int64_t k = 0; k < n; k++)
		{
			uint32_t	l = wall && wall[a + k] ? PB_WS_INF : lv[k];

			c->key[a + k] = WsBase(false, l);
			if (l == PB_WS_INF)
				c->labels[a + k] = 0;
		}
	}
}

/*
 * Levels (PbWsLevel), seeds and initial keys of a band of rows (runs with
 * markers: the only ones with levels); marker-less, no seed yet (the
 * minima are known only from the least keys: PointerRows sets them) and
 * the keys (InitKeys).  The pointers' pages are first touched here too,
 * streaming, rather than by the pointer pass while it reads the keys
 * (which made that pass up to 1.6x slower).
 */
static void
InitRows(void *arg, int64_t item)
{
	WsCtx	   *c = arg;
	int64_t		y1 = (item + 1) * WS_ROWS_PER_ITEM;
	int64_t		i0 = item * WS_ROWS_PER_ITEM * c->g.width,
				i1;
	const uint32_t *m = c->spec->markers;
	const uint8_t *wall = c->spec->wall;

	if (y1 > c->g.height)
		y1 = c->g.height;
	i1 = y1 * c->g.width;
	memset(c->ptr + i0, 0, i1 - i0);
	if (c->lv == NULL)
	{
		memset(c->seed + i0, 0, i1 - i0);
		InitKeys(c, i0, i1);
		return;
	}
	LevelRange(&c->spec->image, i0, i1 - i0, c->lv + i0);
	for (int64_t i = i0; i < i1; i++)
	{
		if (wall && wall[i])
			c->lv[i] = PB_WS_INF;
		c->seed[i] = c->lv[i] != PB_WS_INF && m[i] != 0;
		c->key[i] = c->seed[i] ? WsKey(c->lv[i], 0) : WsBase(true, c->lv[i]);
	}
}

/*
 * The pointer of pixel (x, y), i: a seed (a marker's, or marker-less a
 * minimum's, d = INF) and a pixel no seed reaches get none, and their
 * final label, but for a minimum's seeds, whose labels the numbering of
 * the minima writes next.  Otherwise, with least (inside the outer
 * frame), its least neighbour found beforehand for the row; on the frame,
 * as WsPointer finds it.
 */
static inline void
PointerPixel(WsCtx *c, int64_t i, int64_t x, int64_t y, bool least)
{
	uint64_t	ki = c->key[i];
	int			p = -1;

	if (!c->g.markers && WsKeyC(ki) != PB_WS_INF && WsKeyD(ki) == PB_WS_INF)
	{
		c->seed[i] = 1;
		c->ptr[i] = WS_DONE;
		return;
	}
	if (!c->seed[i] && WsKeyD(ki) != PB_WS_INF)
		p = least ? c->ptr[i] : WsPointer(&c->g, c->lv, c->key, x, y);
	c->ptr[i] = p < 0 ? WS_DONE : (uint8_t) p;
	if (p < 0)
		c->labels[i] = c->seed[i] && c->g.markers ? c->g.markers[i] : 0;
}

/*
 * Pointers of a band of rows (PointerPixel).  A non-seed pixel whose
 * key's d is below INF points, inside the image's outer frame, to its
 * first neighbour of least key (watershed_rules.h says why: a wall's key
 * (INF, INF) is never the least of such a pixel's neighbours), found for
 * the whole row at once and without a level read (ws_pointers.h).
 */
static void
PointerRows(void *arg, int64_t item)
{
	WsCtx	   *c = arg;
	int64_t		w = c->g.width,
				h = c->g.height;
	int64_t		y1 = (item + 1) * WS_ROWS_PER_ITEM;

	if (y1 > h)
		y1 = h;
	for (int64_t y = item * WS_ROWS_PER_ITEM; y < y1; y++)
	{
		int64_t		row = y * w;
		bool		inner = y > 0 && y < h - 1 && w > 2;

		if (inner)
			PbWsLeastNeighbours(c->key + row + 1, c->off, c->g.conn, w - 2, c->ptr + row + 1);
		if (inner && !c->g.markers)	/* walls' labels are InitKeys' */
		{
			PbWsMinimaOf(c->key + row + 1, w - 2, WS_DONE, c->ptr + row + 1, c->seed + row + 1);
			PointerPixel(c, row, 0, y, false);
			PointerPixel(c, row + w - 1, w - 1, y, false);
			continue;
		}
		for (int64_t x = 0; x < w; x++)
			PointerPixel(c, row + x, x, y, inner && x > 0 && x < w - 1);
	}
}

/* The pixel that pointer j of pixel i leads to. */
static int64_t
PointerTarget(const WsCtx *c, int64_t i, int j)
{
	return i + PbNbDy(j) * c->g.width + PbNbDx(j);
}

/*
 * Labels of a band of rows: follow pointers to a pixel whose label is
 * final, then give that label to the whole walk.  Most pixels point to
 * one whose label is final already (the pixel before or above, done
 * earlier in the scan): they take its label in one step, without a walk.
 */
static void
LabelRows(void *arg, int64_t item)
{
	WsCtx	   *c = arg;
	int64_t		y1 = (item + 1) * WS_ROWS_PER_ITEM;
	int64_t    *walk = NULL;
	size_t		cap = 0;

	if (y1 > c->g.height)
		y1 = c->g.height;
	for (int64_t i = item * WS_ROWS_PER_ITEM * c->g.width; i < y1 * c->g.width; i++)
	{
		size_t		n = 0;
		int64_t		v;
		uint8_t		b = __atomic_load_n(&c->ptr[i], __ATOMIC_ACQUIRE);

		if (b & WS_DONE)
			continue;
		v = PointerTarget(c, i, b);
		if (__atomic_load_n(&c->ptr[v], __ATOMIC_ACQUIRE) & WS_DONE)
		{
			__atomic_store_n(&c->labels[i], __atomic_load_n(&c->labels[v], __ATOMIC_RELAXED),
							 __ATOMIC_RELAXED);
			__atomic_store_n(&c->ptr[i], WS_DONE, __ATOMIC_RELEASE);
			continue;
		}
		v = i;
		while (!((b = __atomic_load_n(&c->ptr[v], __ATOMIC_ACQUIRE)) & WS_DONE))
		{
			if (n == cap)
			{
				size_t		ncap = cap ? cap * 2 : 256;
				int64_t    *w = realloc(walk, ncap * sizeof(int64_t));

				if (w == NULL)
				{
					atomic_store(&c->nomem, 1);
					free(walk);
					return;
				}
				walk = w;
				cap = ncap;
			}
			walk[n++] = v;
			v = PointerTarget(c, v, b);
		}
		for (uint32_t l = __atomic_load_n(&c->labels[v], __ATOMIC_RELAXED); n > 0;)
		{
			v = walk[--n];
			__atomic_store_n(&c->labels[v], l, __ATOMIC_RELAXED);
			__atomic_store_n(&c->ptr[v], WS_DONE, __ATOMIC_RELEASE);
		}
	}
	free(walk);
}

/* Mark (in ptr, free by now) the watershed line pixels of a band of rows. */
static void
LineRows(void *arg, int64_t item)
{
	WsCtx	   *c = arg;
	int64_t		y1 = (item + 1) * WS_ROWS_PER_ITEM;

	if (y1 > c->g.height)
		y1 = c->g.height;
	for (int64_t i = item * WS_ROWS_PER_ITEM * c->g.width; i < y1 * c->g.width; i++)
		c->ptr[i] = Level(c, i) != PB_WS_INF &&
			WsIsLine(&c->g, c->lv, c->seed, c->key, c->labels, i);
}

/* Set the line pixels of a band of rows to 0. */
static void
ClearLineRows(void *arg, int64_t item)
{
	WsCtx	   *c = arg;
	int64_t		y1 = (item + 1) * WS_ROWS_PER_ITEM;

	if (y1 > c->g.height)
		y1 = c->g.height;
	for (int64_t i = item * WS_ROWS_PER_ITEM * c->g.width; i < y1 * c->g.width; i++)
		if (c->ptr[i])
			c->labels[i] = 0;
}

/* The labels from the pointers, then the lines when asked for. */
static PbStatus
LabelsAndLines(WsCtx *c, const PbRun *run, int64_t rows)
{
	PbStatus st;

	if ((st = PbParallelFor(run, rows, LabelRows, c)) != PB_OK)
		return st;
	if (atomic_load(&c->nomem))
		return PB_ERR_NOMEM;
	if (!c->spec->lines)
		return PB_OK;
	/* lines are decided on the labels before any line, then drawn */
	if ((st = PbParallelFor(run, rows, LineRows, c)) != PB_OK)
		return st;
	return PbParallelFor(run, rows, ClearLineRows, c);
}

/*
 * The phases after the keys: pointers, the minima (marker-less), labels,
 * lines; k gets the seconds of each.
 */
static PbStatus
LabelPhases(WsCtx *c, const PbRun *run, int64_t rows, KeySweep *k)
{
	double		t = PbMonotonicSeconds();
	PbStatus st;

	st = PbParallelFor(run, rows, PointerRows, c);
	k->pointers_s = PbMonotonicSeconds() - t;
	if (st != PB_OK)
		return st;
	t += k->pointers_s;
	if (!c->g.markers)
	{
		st = WsNumberMinima(&c->g, c->seed, c->labels, c->parent, run);
		k->minima_s = PbMonotonicSeconds() - t;
		if (st != PB_OK)
			return st;
		t += k->minima_s;
	}
	st = LabelsAndLines(c, run, rows);
	k->labels_s = PbMonotonicSeconds() - t;
	return st;
}

/*
 * Every phase after the arguments are checked and memory is had; k holds
 * the devices of a hybrid run (begun) and what its sweep did.
 */
static PbStatus
WatershedPhases(WsCtx *c, const PbRun *run, KeySweep *k)
{
	int64_t		rows = (c->g.height + WS_ROWS_PER_ITEM - 1) / WS_ROWS_PER_ITEM;
	PbStatus st;

	if ((st = PbParallelFor(run, rows, InitRows, c)) != PB_OK)
		return st;
	k->keys_s = PbMonotonicSeconds();
	st = KeyPhase(c, run, k);
	k->keys_s = PbMonotonicSeconds() - k->keys_s;
	for (int d = 0; d < k->ndev; d++)
		k->devs[d]->end(k->devs[d]->ctx);
	k->ndev = 0;
	if (st != PB_OK)
		return st;
	return LabelPhases(c, run, rows, k);
}

/*
 * PB_ERR_BADARG unless the spec is one the CPU watershed accepts (the
 * hybrid's too; the GPU's and the reference's check with it, then with
 * their own bound, PbWatershedCheckGpu).
 */
PbStatus
PbWatershedCheck(const PbWatershedSpec *spec)
{
	if (spec == NULL || spec->image.data == NULL)
		return PB_ERR_BADARG;
	if (spec->image.width < 1 || spec->image.height < 1)
		return PB_ERR_BADARG;
	if ((uint64_t) spec->image.width * (uint64_t) spec->image.height >
		PbWsMaxPixels(spec->markers != NULL, false))
		return PB_ERR_BADARG;
	if (spec->connectivity != 4 && spec->connectivity != 8)
		return PB_ERR_BADARG;
	switch (spec->image.type)
	{
		case PB_PIX_1BB:
		case PB_PIX_8BUI:
		case PB_PIX_16BUI:
		case PB_PIX_32BF:
			return PB_OK;
	}
	return PB_ERR_BADARG;
}

/* PbWatershedCheck, and the GPU's bound on a marker-less image's pixels. */
PbStatus
PbWatershedCheckGpu(const PbWatershedSpec *spec)
{
	PbStatus st = PbWatershedCheck(spec);

	if (st != PB_OK)
		return st;
	if ((uint64_t) spec->image.width * (uint64_t) spec->image.height >
		PbWsMaxPixels(spec->markers != NULL, true))
		return PB_ERR_BADARG;
	return PB_OK;
}

/* One image-sized scratch array: from scratch, else malloc (NULL: out of memory). */
static void *
ScratchAlloc(const PbAllocator *scratch, size_t size)
{
	return scratch ? scratch->alloc(scratch->ctx, size) : malloc(size);
}

/* Give back what ScratchAlloc gave (NULL: nothing). */
static void
ScratchFree(const PbAllocator *scratch, void *p)
{
	if (p == NULL)
		return;
	if (scratch)
		scratch->release(scratch->ctx, p);
	else
		free(p);
}

/* The watershed of spec into labels, on run->threads threads. */
PbStatus
PbWatershedCpu(const PbWatershedSpec *spec, uint32_t *labels, const PbRun *run)
{
	return PbWatershedCpuIn(spec, labels, run, NULL);
}

/*
 * Begin the devices of a hybrid run into k (those that fail are left
 * out, failed), once the image-sized scratch is had: blocks of a quarter
 * of the image's side at most, so that the CPU threads and the other
 * devices have room beside them.
 */
static void
BeginDevices(const WsCtx *c, PbWsDevice *devs, int ndev, KeySweep *k)
{
	int64_t		side = c->g.width > c->g.height ? c->g.width : c->g.height;
	int64_t		max_side = (side + 3) / 4 > c->tile ? (side + 3) / 4 : c->tile;

	for (int d = 0; d < ndev; d++)
	{
		PbWsDevice *dev = &devs[d];
		int			block = 0;

		dev->regions = dev->pixels = 0;
		dev->busy_s = 0;
		dev->failed = false;
		dev->err[0] = '\0';
		if (dev->begin(dev->ctx, c->spec, c->tile, max_side, &block, dev->err,
					   sizeof(dev->err)) != 0)
		{
			dev->failed = true;
			continue;
		}
		k->block[k->ndev] = block > 0 ? block : 1;
		k->devs[k->ndev++] = dev;
	}
}

/*
 * The watershed on run's threads and the ndev devices (none: the CPU's
 * alone), its image-sized scratch from scratch: all of it taken first,
 * on this thread, then the devices begun and the tiles' small arrays
 * (malloc).
 */
static PbStatus
WatershedRun(const PbWatershedSpec *spec, uint32_t *labels, const PbRun *run,
			 const PbAllocator *scratch, PbWsDevice *devs, int ndev, PbWsHybridStats *stats)
{
	WsCtx		c;
	KeySweep	k;
	int64_t		ntiles;
	double		init_s = 0;
	PbStatus st = PbWatershedCheck(spec);

	if (st != PB_OK)
		return st;
	if (labels == NULL || run == NULL || run->threads < 1 || run->tile < 0 ||
		ndev < 0 || ndev > PB_WS_MAX_DEVICES || (ndev > 0 && devs == NULL))
		return PB_ERR_BADARG;
	memset(&c, 0, sizeof(c));
	memset(&k, 0, sizeof(k));
	WsGridInit(&c.g, spec);
	c.spec = spec;
	c.labels = labels;
	c.tile = run->tile > 0 ? run->tile : WS_DEFAULT_TILE;
	c.tiles_x = (c.g.width + c.tile - 1) / c.tile;
	c.tiles_y = (c.g.height + c.tile - 1) / c.tile;
	ntiles = c.tiles_x * c.tiles_y;
	atomic_init(&c.nomem, 0);
	for (int j = 0; j < 8; j++)
		c.off[j] = PbNbDy(j) * c.g.width + PbNbDx(j);
	for (int j = 0; j < c.g.conn; j++)
		for (int sd = WS_SIDE_ALL; sd <= WS_SIDE_AFTER; sd++)
			if (sd == WS_SIDE_ALL || (sd == WS_SIDE_BEFORE) == (PbNbBefore(j) != 0))
			{
				c.side[sd][c.nside[sd]] = j;
				c.sideoff[sd][c.nside[sd]++] = c.off[j];
			}
	if (c.g.markers)
		c.lv = ScratchAlloc(scratch, sizeof(uint32_t) * c.g.n);
	c.key = ScratchAlloc(scratch, sizeof(uint64_t) * c.g.n);
	c.seed = ScratchAlloc(scratch, c.g.n);
	c.ptr = ScratchAlloc(scratch, c.g.n);
	if (!c.g.markers && spec->lines)
		c.parent = ScratchAlloc(scratch, sizeof(uint32_t) * c.g.n);
	else if (!c.g.markers)
		c.parent = (uint32_t *) c.key;	/* the keys are read no more after the pointers */
	c.visited = calloc(ntiles, 1);
	if ((c.g.markers && !c.lv) || !c.key || !c.seed || !c.ptr || (!c.g.markers && !c.parent) || !c.visited)
		st = PB_ERR_NOMEM;
	else
	{
		double		t0 = PbMonotonicSeconds();

		BeginDevices(&c, devs, ndev, &k);
		st = WatershedPhases(&c, run, &k);
		init_s = PbMonotonicSeconds() - t0 - k.keys_s - k.pointers_s - k.minima_s - k.labels_s;
	}
	if (stats)
	{
		int			cpu = run->threads - k.ndev > 1 ? run->threads - k.ndev : 1;
		int64_t		dev_runs = 0;

		for (int d = 0; d < ndev; d++)
			dev_runs += devs[d].regions;
		stats->tiles = ntiles;
		stats->cpu_threads = cpu;
		stats->cpu_busy_s = atomic_load(&k.cpu_busy_s);
		stats->cpu_runs = k.runs - dev_runs;
		stats->init_s = init_s;
		stats->keys_s = k.keys_s;
		stats->pointers_s = k.pointers_s;
		stats->minima_s = k.minima_s;
		stats->labels_s = k.labels_s;
	}
	ScratchFree(scratch, c.lv);
	ScratchFree(scratch, c.key);
	ScratchFree(scratch, c.seed);
	ScratchFree(scratch, c.ptr);
	if (c.parent != (uint32_t *) c.key)
		ScratchFree(scratch, c.parent);
	free(c.visited);
	return st;
}

/*
 * The same, its image-sized scratch from scratch: all of it taken first,
 * on this thread, then the tiles' small arrays (malloc).
 */
PbStatus
PbWatershedCpuIn(const PbWatershedSpec *spec, uint32_t *labels, const PbRun *run,
				 const PbAllocator *scratch)
{
	return WatershedRun(spec, labels, run, scratch, NULL, 0, NULL);
}

/* See watershed.h. */
PbStatus
PbWatershedHybrid(const PbWatershedSpec *spec, uint32_t *labels, const PbRun *run,
				  const PbAllocator *scratch, PbWsDevice *devs, int ndev,
				  PbWsHybridStats *stats)
{
	return WatershedRun(spec, labels, run, scratch, devs, ndev, stats);
}
