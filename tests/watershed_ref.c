/*
 * watershed_ref.c: the watershed definition of watershed.h computed
 * literally, as the synchronous cellular automaton: every pixel's key,
 * pointer and label are recomputed from its neighbours' previous state,
 * all at once, until nothing changes; then the minima are numbered and
 * the lines drawn.  Slow (one step per pixel of the longest path) and
 * plain on purpose: it is the reference the tests hold the tiled CPU and
 * the GPU versions to.
 */
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "../src/core/raster/watershed_rules.h"
#include "harness.h"
#include "watershed_ref.h"

/*
 * One synchronous step for non-seed pixel i: its new key and label from
 * the previous keys and labels (key: the least of base and the
 * candidates; label: the pointer's, or for a minimum so far the least
 * first index over its plateau).  Returns whether anything changed.
 */
static bool
RefStep(const WsGrid *g, const uint32_t *lv, const uint64_t *key,
		const uint32_t *lab, int64_t i, uint64_t *nkey, uint32_t *nlab)
{
	int64_t		x = i % g->width,
				y = i / g->width;
	bool		mk = g->markers != NULL;
	uint64_t	k = WsBase(mk, lv[i]);
	int			p = WsPointer(g, lv, key, x, y);
	uint32_t	ml = (uint32_t) i + 1;
	uint32_t	l;

	for (int j = 0; j < g->conn; j++)
	{
		int64_t		v = WsNeighbour(g, lv, key, x, y, j);

		if (v < 0)
			continue;
		if (WsCand(key[v], lv[i]) < k)
			k = WsCand(key[v], lv[i]);
		if (WsSameMinimum(mk, key[v], lv[i]) && lab[v] < ml)
			ml = lab[v];
	}
	l = WsStepLabel(mk, k, p >= 0 ? lab[WsNeighbour(g, lv, key, x, y, p)] : 0, ml);
	*nkey = k;
	*nlab = l;
	return k != key[i] || l != lab[i];
}

/* The synchronous automaton, then the numbering of minima and the lines. */
PbStatus
PbWatershedRef(const PbWatershedSpec *spec, uint32_t *labels)
{
	WsGrid		g;
	int64_t		n;
	uint32_t   *lv,
			   *lab,
			   *nlab,
			   *rank;
	uint64_t   *key,
			   *nkey;
	uint8_t    *seed;
	bool		changed = true;
	PbStatus st = PbWatershedCheckGpu(spec);	/* provisional labels: index + 1 */

	if (st != PB_OK)
		return st;
	WsGridInit(&g, spec);
	n = g.n;
	lv = malloc(sizeof(uint32_t) * n);
	lab = malloc(sizeof(uint32_t) * n);
	nlab = malloc(sizeof(uint32_t) * n);
	rank = malloc(sizeof(uint32_t) * n);
	key = malloc(sizeof(uint64_t) * n);
	nkey = malloc(sizeof(uint64_t) * n);
	seed = malloc(n);
	if (!lv || !lab || !nlab || !rank || !key || !nkey || !seed)
	{
		st = PB_ERR_NOMEM;
		goto done;
	}
	for (int64_t i = 0; i < n; i++)
	{
		lv[i] = PbWsLevel(spec, i);
		seed[i] = lv[i] != PB_WS_INF && spec->markers && spec->markers[i] != 0;
		key[i] = seed[i] ? WsKey(lv[i], 0) : WsBase(spec->markers != NULL, lv[i]);
		lab[i] = seed[i] ? spec->markers[i] : (spec->markers ? 0 : (uint32_t) i + 1);
		if (lv[i] == PB_WS_INF)
			lab[i] = 0;
	}
	while (changed)
	{
		changed = false;
		for (int64_t i = 0; i < n; i++)
		{
			nkey[i] = key[i];
			nlab[i] = lab[i];
			if (lv[i] != PB_WS_INF && !seed[i] &&
				RefStep(&g, lv, key, lab, i, &nkey[i], &nlab[i]))
				changed = true;
		}
		{
			uint64_t   *tk = key;
			uint32_t   *tl = lab;

			key = nkey;
			nkey = tk;
			lab = nlab;
			nlab = tl;
		}
	}

	/* marker-less: number the minima (labelled by first index) in order */
	if (spec->markers == NULL)
	{
		uint32_t	k = 0;

		for (int64_t i = 0; i < n; i++)
			if (lv[i] != PB_WS_INF && WsKeyD(key[i]) == PB_WS_INF && lab[i] == (uint32_t) i + 1)
				rank[i] = ++k;
		for (int64_t i = 0; i < n; i++)
			if (lv[i] != PB_WS_INF)
				lab[i] = rank[lab[i] - 1];
		for (int64_t i = 0; i < n; i++)
			seed[i] = lv[i] != PB_WS_INF && WsKeyD(key[i]) == PB_WS_INF;
	}
	for (int64_t i = 0; i < n; i++)
		labels[i] = lab[i];
	if (spec->lines)
		for (int64_t i = 0; i < n; i++)
			if (WsIsLine(&g, lv, seed, key, lab, i))
				labels[i] = 0;
done:
	free(lv);
	free(lab);
	free(nlab);
	free(rank);
	free(key);
	free(nkey);
	free(seed);
	return st;
}

/* A spec over caller-owned pixels. */
PbWatershedSpec
WsTestSpec(int w, int h, PbPixType type, void *data, const uint8_t *wall,
		   const uint32_t *markers, int conn, bool lines)
{
	PbWatershedSpec s;

	s.image.width = w;
	s.image.height = h;
	s.image.type = type;
	s.image.data = data;
	s.wall = wall;
	s.markers = markers;
	s.connectivity = conn;
	s.lines = lines;
	return s;
}

/* calloc that aborts the test program on failure. */
void *
WsTestAlloc(size_t n)
{
	void	   *p = calloc(n ? n : 1, 1);

	if (p == NULL)
		abort();
	return p;
}

/*
 * Check the CPU version on each tile side and thread count (watershed_ref.h),
 * its output poisoned before each run.
 */
void
WsCheckCpuAgainstRef(const PbWatershedSpec *s, const int *tiles, const int *threads, int runs)
{
	int64_t		n = (int64_t) s->image.width * s->image.height;
	uint32_t   *ref = WsTestAlloc(n * 4),
			   *got = WsTestAlloc(n * 4);

	CHECK_INT(PbWatershedRef(s, ref), PB_OK);
	for (int t = 0; t < runs; t++)
	{
		PbRun		run = {threads[t], tiles[t], NULL, NULL};
		int64_t		bad = 0;

		memset(got, 0xA5, (size_t) n * 4);	/* every pixel must be written */
		CHECK_INT(PbWatershedCpu(s, got, &run), PB_OK);
		for (int64_t i = 0; i < n; i++)
			if (got[i] != ref[i] && bad++ == 0)
				pb_check_fail(__FILE__, __LINE__, "tile %d threads %d: pixel %lld is %u, ref %u",
							  tiles[t], threads[t], (long long) i, got[i], ref[i]);
	}
	free(ref);
	free(got);
}
