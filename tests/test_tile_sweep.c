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

/* Run the model on workers threads (the calling thread one of them). */
static void
TsRun(TsModel *m, int workers)
{
	PbRun		run = {1, 0, NULL, NULL};
	pthread_t	th[8];

	m->s = PbTileSweepNew(m->ntx, m->nty, &run);
	if (m->s == NULL)
	{
		pb_check_fail(__FILE__, __LINE__, "PbTileSweepNew(%d, %d) failed", m->ntx, m->nty);
		return;
	}
	for (int i = 1; i < workers; i++)
		CHECK_INT(pthread_create(&th[i], NULL, TsWorker, m), 0);
	TsWorker(m);
	for (int i = 1; i < workers; i++)
		pthread_join(th[i], NULL);
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
