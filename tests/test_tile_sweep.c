/*
 * test_tile_sweep.c: the schedule of tiled fixed-point runs
 * (src/core/raster/tile_sweep.h) with workers on threads over a model
 * fixed point: each tile holds a distance, its seed's or a neighbour's
 * plus the tile's cost, the least of them (shortest paths over the grid
 * of tiles, whose fixed point a Bellman-Ford loop computes apart).  The
 * workers check that no neighbour of a tile they run is running (with
 * their own flags, not the schedule's), and the answer must be the fixed
 * point for every count of workers and grid shape; a single worker's
 * first sweep takes the tiles in order; a stop, a poll and bad grids.
 * Block workers (a hybrid run's devices) take blocks of tiles beside them:
 * no tile of a block or of its ring runs meanwhile, and a block that
 * fails leaves its work to the others.
 */
#define _DEFAULT_SOURCE			/* rand_r, nanosleep */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/raster/tile_sweep.h"
#include "harness.h"

#define TS_INF 1000000000

/* A model run: the grid, its costs and seeds, the values, the checks. */
typedef struct TsModel
{
	int			ntx,
				nty;
	int		   *cost;
	int		   *seed;			/* TS_INF: none */
	int		   *value;
	int		   *active;			/* the workers' own running flags (atomics) */
	int			overlaps;		/* neighbours found running at once (atomic) */
	PbTileSweep *s;
	int64_t    *order;			/* one worker: the tiles in the order taken */
	int64_t		taken;
	int			stop_after;		/* a worker stops the run after so many runs; 0 never */
	int			block;			/* block workers' side in tiles */
	int			fail_after;		/* a block worker fails its run after so many; 0 never */
	int			blocks;			/* blocks run (atomic) */
} TsModel;

/* The least of tile t's seed and its neighbours' values plus its cost. */
static int
TsRelax(const TsModel *m, int64_t t)
{
	int			tx = (int) (t % m->ntx),
				ty = (int) (t / m->ntx);
	int			best = m->seed[t];

	for (int y = ty - 1; y <= ty + 1; y++)
		for (int x = tx - 1; x <= tx + 1; x++)
			if ((x != tx || y != ty) && x >= 0 && x < m->ntx && y >= 0 && y < m->nty)
			{
				int			v = m->value[y * m->ntx + x];

				if (v < TS_INF && v + m->cost[t] < best)
					best = v + m->cost[t];
			}
	return best < m->value[t] ? best : m->value[t];
}

/* Set tile t's running flag on, counting any neighbour found running. */
static void
TsEnter(TsModel *m, int64_t t)
{
	int			tx = (int) (t % m->ntx),
				ty = (int) (t / m->ntx);

	for (int y = ty - 1; y <= ty + 1; y++)
		for (int x = tx - 1; x <= tx + 1; x++)
			if (x >= 0 && x < m->ntx && y >= 0 && y < m->nty &&
				__atomic_load_n(&m->active[y * m->ntx + x], __ATOMIC_SEQ_CST))
				__atomic_add_fetch(&m->overlaps, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&m->active[t], 1, __ATOMIC_SEQ_CST);
}

/* A worker: take, relax (slowly, so that runs overlap), report. */
static void *
TsWorker(void *arg)
{
	TsModel    *m = (TsModel *) arg;
	unsigned	seed = (unsigned) (uintptr_t) &seed;
	int64_t		t;
	int			runs = 0;

	while ((t = PbTileSweepTake(m->s, false)) >= 0)
	{
		struct timespec nap = {0, 1000 * (rand_r(&seed) % 200)};
		int			v;
		bool		changed;

		TsEnter(m, t);
		v = TsRelax(m, t);
		nanosleep(&nap, NULL);
		changed = v != m->value[t];
		m->value[t] = v;
		__atomic_store_n(&m->active[t], 0, __ATOMIC_SEQ_CST);
		if (m->order != NULL)
			m->order[m->taken++] = t;
		PbTileSweepDone(m->s, t, changed);
		if (m->stop_after > 0 && ++runs == m->stop_after)
			PbTileSweepStop(m->s, PB_ERR_STOPPED);
	}
	return NULL;
}

/* Whether any tile of [x0,x1) x [y0,y1), clipped to the grid, is running. */
static bool
TsAnyActive(TsModel *m, int x0, int y0, int x1, int y1)
{
	for (int y = y0 > 0 ? y0 : 0; y < y1 && y < m->nty; y++)
		for (int x = x0 > 0 ? x0 : 0; x < x1 && x < m->ntx; x++)
			if (__atomic_load_n(&m->active[y * m->ntx + x], __ATOMIC_SEQ_CST))
				return true;
	return false;
}

/* Set the running flags of block b's tiles to on. */
static void
TsSetBlock(TsModel *m, const PbTileBlock *b, int on)
{
	for (int y = b->ty0; y < b->ty1; y++)
		for (int x = b->tx0; x < b->tx1; x++)
			__atomic_store_n(&m->active[y * m->ntx + x], on, __ATOMIC_SEQ_CST);
}

/*
 * A block worker: take a block, check that nothing in it or its ring
 * runs, relax its tiles to their own fixed point, mark the ring when a
 * tile on the block's edge changed; after fail_after blocks, one run
 * fails half done and the worker stops.
 */
static void *
TsBlockWorker(void *arg)
{
	TsModel    *m = (TsModel *) arg;
	PbTileBlock b;

	while (PbTileSweepTakeBlock(m->s, m->block, m->block, false, &b))
	{
		bool		edge = false,
					changed = true;
		int			done = __atomic_add_fetch(&m->blocks, 1, __ATOMIC_SEQ_CST);
		bool		fail = m->fail_after > 0 && done > m->fail_after;

		if (TsAnyActive(m, b.tx0 - 1, b.ty0 - 1, b.tx1 + 1, b.ty1 + 1))
			__atomic_add_fetch(&m->overlaps, 1, __ATOMIC_SEQ_CST);
		TsSetBlock(m, &b, 1);
		while (changed)
		{
			changed = false;
			for (int y = b.ty0; y < b.ty1; y++)
				for (int x = b.tx0; x < b.tx1; x++)
				{
					int64_t		t = (int64_t) y * m->ntx + x;
					int			v = TsRelax(m, t);

					if (v == m->value[t])
						continue;
					m->value[t] = v;
					changed = true;
					edge |= x == b.tx0 || y == b.ty0 || x == b.tx1 - 1 || y == b.ty1 - 1;
				}
			if (fail)
				break;			/* half done: still above the fixed point */
		}
		TsSetBlock(m, &b, 0);
		for (int y = b.ty0 - 1; edge && y <= b.ty1; y++)
			for (int x = b.tx0 - 1; x <= b.tx1; x++)
				if (x >= 0 && y >= 0 && x < m->ntx && y < m->nty &&
					(x < b.tx0 || y < b.ty0 || x >= b.tx1 || y >= b.ty1))
					PbTileSweepMark(m->s, (int64_t) y * m->ntx + x);
		PbTileSweepDoneBlock(m->s, &b, fail);
		if (fail)
			break;
	}
	return NULL;
}

/* A grid with random costs 1..9 and two seeds, values at TS_INF. */
static TsModel
TsNew(int ntx, int nty, unsigned seed)
{
	TsModel		m;
	int			n = ntx * nty;

	memset(&m, 0, sizeof(m));
	m.ntx = ntx;
	m.nty = nty;
	m.cost = malloc(n * sizeof(int));
	m.seed = malloc(n * sizeof(int));
	m.value = malloc(n * sizeof(int));
	m.active = calloc(n, sizeof(int));
	for (int t = 0; t < n; t++)
	{
		m.cost[t] = 1 + rand_r(&seed) % 9;
		m.seed[t] = TS_INF;
		m.value[t] = TS_INF;
	}
	m.seed[rand_r(&seed) % n] = 0;
	m.seed[n - 1] = 5;
	return m;
}

/* Free a model. */
static void
TsFree(TsModel *m)
{
	free(m->cost);
	free(m->seed);
	free(m->value);
	free(m->active);
	free(m->order);
}

/* The fixed point, by relaxing every tile until none changes. */
static int *
TsFixedPoint(const TsModel *m)
{
	TsModel		w = *m;
	int			n = m->ntx * m->nty;
	bool		changed = true;

	w.value = malloc(n * sizeof(int));
	for (int t = 0; t < n; t++)
		w.value[t] = TS_INF;
	while (changed)
	{
		changed = false;
		for (int t = 0; t < n; t++)
		{
			int			v = TsRelax(&w, t);

			changed |= v != w.value[t];
			w.value[t] = v;
		}
	}
	return w.value;
}

/*
 * Run the model on workers threads (the calling thread one of them) and
 * block_workers more threads taking blocks.
 */
static void
TsRunWithBlocks(TsModel *m, int workers, int block_workers)
{
	PbRun		run = {1, 0, NULL, NULL};
	pthread_t	th[8],
				bth[4];

	m->s = PbTileSweepNew(m->ntx, m->nty, &run);
	if (m->s == NULL)
	{
		pb_check_fail(__FILE__, __LINE__, "PbTileSweepNew(%d, %d) failed", m->ntx, m->nty);
		return;
	}
	for (int i = 0; i < block_workers; i++)
		CHECK_INT(pthread_create(&bth[i], NULL, TsBlockWorker, m), 0);
	for (int i = 1; i < workers; i++)
		CHECK_INT(pthread_create(&th[i], NULL, TsWorker, m), 0);
	TsWorker(m);
	for (int i = 1; i < workers; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < block_workers; i++)
		pthread_join(bth[i], NULL);
}

/* Run the model on workers threads (the calling thread one of them). */
static void
TsRun(TsModel *m, int workers)
{
	TsRunWithBlocks(m, workers, 0);
}

/* Every grid shape and count of workers reaches the fixed point, no neighbours at once. */
void
test_tile_sweep_fixed_point(void)
{
	static const int shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {7, 5}, {12, 12}, {2, 2}};

	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		for (int workers = 1; workers <= 4; workers++)
		{
			TsModel		m = TsNew(shapes[k][0], shapes[k][1], 17 + k);
			int		   *want = TsFixedPoint(&m);
			int			n = m.ntx * m.nty;

			pb_test_context("%d x %d tiles, %d workers", m.ntx, m.nty, workers);
			TsRun(&m, workers);
			CHECK_INT(m.overlaps, 0);
			CHECK_INT(PbTileSweepStatus(m.s), PB_OK);
			CHECK(PbTileSweepRuns(m.s) >= n);
			CHECK(memcmp(m.value, want, n * sizeof(int)) == 0);
			CHECK_INT(PbTileSweepTake(m.s, false), -1);	/* over stays over */
			PbTileSweepFree(m.s);
			free(want);
			TsFree(&m);
		}
}

/* One worker's first sweep takes every tile in order; the second goes backwards. */
void
test_tile_sweep_order(void)
{
	TsModel		m = TsNew(6, 4, 5);
	int			n = 24;

	for (int t = 0; t < n; t++)
		m.seed[t] = TS_INF;
	m.seed[n - 1] = 0;			/* a flood from the last tile: the first sweep spreads nothing back */
	m.order = malloc(sizeof(int64_t) * 100000);
	TsRun(&m, 1);
	for (int t = 0; t < n; t++)
		CHECK_INT(m.order[t], t);
	CHECK(m.taken > n);
	if (m.taken > n)
		CHECK_INT(m.order[n], n - 2);	/* backwards: the last tile tile 23 marked */
	PbTileSweepFree(m.s);
	TsFree(&m);
}

/* A poll that says stop from its third call on. */
static int
TsPollThird(void *arg)
{
	return ++*(int *) arg >= 3;
}

/* A worker's stop ends every take; a polling taker stops the run when polled. */
void
test_tile_sweep_stop_and_badarg(void)
{
	TsModel		m = TsNew(10, 10, 9);
	PbRun		run;
	PbTileSweep *s;
	int			calls = 0;

	m.stop_after = 3;
	TsRun(&m, 3);
	CHECK_INT(PbTileSweepStatus(m.s), PB_ERR_STOPPED);
	CHECK(PbTileSweepRuns(m.s) < 100);
	CHECK_INT(PbTileSweepTake(m.s, false), -1);
	PbTileSweepFree(m.s);
	TsFree(&m);

	run = (PbRun) {1, 0, TsPollThird, &calls};
	s = PbTileSweepNew(3, 3, &run);
	CHECK(PbTileSweepTake(s, true) >= 0);
	CHECK(PbTileSweepTake(s, true) >= 0);	/* a tile that is not the first's neighbour */
	CHECK_INT(PbTileSweepTake(s, true), -1);
	CHECK_INT(PbTileSweepStatus(s), PB_ERR_STOPPED);
	CHECK_INT(calls, 3);
	PbTileSweepFree(s);

	CHECK(PbTileSweepNew(0, 5, &run) == NULL);
	CHECK(PbTileSweepNew(5, 0, &run) == NULL);
	PbTileSweepFree(NULL);
}

/*
 * Block workers beside tile workers reach the same fixed point, with no
 * block or ring running beside a block; blocks are taken; a block worker
 * that fails half way leaves its work to the others.
 */
void
test_tile_sweep_blocks(void)
{
	static const int shapes[][2] = {{1, 1}, {9, 1}, {7, 5}, {12, 12}, {20, 3}};
	int			blocks = 0;

	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		for (int block = 1; block <= 3; block++)
			for (int devs = 1; devs <= 2; devs++)
				for (int fail = 0; fail <= 1; fail++)
				{
					TsModel		m = TsNew(shapes[k][0], shapes[k][1], 31 + k);
					int		   *want = TsFixedPoint(&m);
					int			n = m.ntx * m.nty;

					m.block = block;
					m.fail_after = fail ? 2 : 0;
					pb_test_context("%d x %d tiles, blocks of %d, %d block workers, fail %d",
									m.ntx, m.nty, block, devs, fail);
					TsRunWithBlocks(&m, 2, devs);
					CHECK_INT(m.overlaps, 0);
					CHECK_INT(PbTileSweepStatus(m.s), PB_OK);
					blocks += m.blocks;
					CHECK(memcmp(m.value, want, n * sizeof(int)) == 0);
					PbTileSweepFree(m.s);
					free(want);
					TsFree(&m);
				}
	CHECK(blocks > 0);			/* the block workers took part (a race; not each time) */
}

/* Blocks only: the one with the most marked tiles first, then none once all is done. */
void
test_tile_sweep_block_choice(void)
{
	PbRun		run = {1, 0, NULL, NULL};
	PbTileSweep *s = PbTileSweepNew(5, 4, &run);
	PbTileBlock b;

	/* blocks of 2 x 2 on a 5 x 4 grid: the full ones have 4 tiles, the last column 2 */
	CHECK(PbTileSweepTakeBlock(s, 2, 2, false, &b));
	CHECK_INT(b.tx0, 0);
	CHECK_INT(b.ty0, 0);
	CHECK_INT(b.tx1, 2);
	CHECK_INT(b.ty1, 2);
	PbTileSweepDoneBlock(s, &b, false);
	CHECK(PbTileSweepTakeBlock(s, 2, 2, false, &b));
	CHECK_INT(b.tx0, 2);		/* the next block of 4 marked tiles */
	CHECK_INT(b.ty0, 0);
	PbTileSweepDoneBlock(s, &b, false);
	for (int i = 0; i < 3; i++)
	{
		CHECK(PbTileSweepTakeBlock(s, 2, 2, false, &b));
		PbTileSweepDoneBlock(s, &b, false);
	}
	CHECK(PbTileSweepTakeBlock(s, 2, 2, false, &b));
	CHECK_INT(b.tx0, 4);		/* the partial blocks of the last column come last */
	CHECK_INT(b.tx1, 5);
	PbTileSweepDoneBlock(s, &b, false);
	CHECK(!PbTileSweepTakeBlock(s, 2, 2, false, &b));	/* every tile ran */
	CHECK_INT(PbTileSweepRuns(s), 6);
	PbTileSweepFree(s);

	/* a failed block is marked to run again */
	s = PbTileSweepNew(3, 3, &run);
	CHECK(PbTileSweepTakeBlock(s, 3, 3, false, &b));
	PbTileSweepDoneBlock(s, &b, true);
	CHECK(PbTileSweepTakeBlock(s, 3, 3, false, &b));
	CHECK_INT(b.tx1 * b.ty1, 9);
	PbTileSweepDoneBlock(s, &b, false);
	CHECK(!PbTileSweepTakeBlock(s, 3, 3, false, &b));
	CHECK_INT(PbTileSweepRuns(s), 2);
	PbTileSweepFree(s);
}
