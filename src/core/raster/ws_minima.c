/*
 * ws_minima.c: WsNumberMinima of ws_minima.h, a union-find over the seeds
 * in bands of rows.
 *
 * Every union links the larger root under the smaller, so a minimum's
 * root is its first pixel in row-major order, whatever the order of the
 * unions.  Each band first joins its seeds with their neighbours inside
 * the band (in parallel: a band writes only its own pixels' parents) and
 * flattens its trees; then the seams between bands are joined on the
 * caller's thread (a row per band); then, in parallel, each seed finds
 * its root (read-only) into its label and each band counts its roots; the
 * counts become each band's first number; the roots are numbered in
 * order (their parent entry now holds the number) and every seed takes
 * its root's number.
 */
#include <stdlib.h>

#include "ws_minima.h"

#define WS_MINIMA_BANDS_PER_THREAD 8

/* The shared state of one numbering. */
typedef struct MinimaJob
{
	const WsGrid *g;
	const uint32_t *lv;
	const uint8_t *seed;
	uint32_t   *labels;
	uint32_t   *parent;
	int64_t		band_rows;
	int64_t		bands;
	uint32_t   *count;			/* per band: roots, then the first number - 1 */
} MinimaJob;

/* Pixel range [*i0, *i1) of band b. */
static void
BandRange(const MinimaJob *j, int64_t b, int64_t *i0, int64_t *i1)
{
	int64_t		y1 = (b + 1) * j->band_rows;

	*i0 = b * j->band_rows * j->g->width;
	*i1 = (y1 < j->g->height ? y1 : j->g->height) * j->g->width;
}

/* Root of i, halving the path (only where no other thread reads or writes it). */
static uint32_t
FindHalving(uint32_t *parent, uint32_t i)
{
	while (parent[i] != i)
	{
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

/* Join the trees of seeds i and v: the larger root goes under the smaller. */
static void
Join(uint32_t *parent, uint32_t i, uint32_t v)
{
	uint32_t	a = FindHalving(parent, i),
				b = FindHalving(parent, v);

	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

/*
 * Join seed i at (x, y) with its same-level seed neighbours scanned
 * before it (up, left and the upper diagonals) from index lo on.
 */
static void
JoinBefore(const MinimaJob *j, int64_t i, int64_t x, int64_t y, int64_t lo)
{
	for (int k = 0; k < j->g->conn; k++)
	{
		int64_t		v = WsNeighbour(j->g, j->lv, x, y, k);

		if (v >= lo && v < i && j->seed[v] && j->lv[v] == j->lv[i])
			Join(j->parent, (uint32_t) i, (uint32_t) v);
	}
}

/* Band b: join its seeds inside the band, then point each at its root. */
static void
BandJoin(void *arg, int64_t b)
{
	MinimaJob  *j = arg;
	int64_t		i0,
				i1;

	BandRange(j, b, &i0, &i1);
	for (int64_t i = i0; i < i1; i++)
		if (j->seed[i])
		{
			j->parent[i] = (uint32_t) i;
			JoinBefore(j, i, i % j->g->width, i / j->g->width, i0);
		}
	for (int64_t i = i0; i < i1; i++)
		if (j->seed[i])
			j->parent[i] = FindHalving(j->parent, (uint32_t) i);
}

/* Band b: each seed's root into its label (read-only walks); count the roots. */
static void
BandRoots(void *arg, int64_t b)
{
	MinimaJob  *j = arg;
	uint32_t	roots = 0;
	int64_t		i0,
				i1;

	BandRange(j, b, &i0, &i1);
	for (int64_t i = i0; i < i1; i++)
		if (j->seed[i])
		{
			uint32_t	r = j->parent[i];

			while (j->parent[r] != r)
				r = j->parent[r];
			j->labels[i] = r;
			roots += r == (uint32_t) i;
		}
	j->count[b] = roots;
}

/* Band b: number its roots in order, from the band's first number. */
static void
BandNumber(void *arg, int64_t b)
{
	MinimaJob  *j = arg;
	uint32_t	k = j->count[b];
	int64_t		i0,
				i1;

	BandRange(j, b, &i0, &i1);
	for (int64_t i = i0; i < i1; i++)
		if (j->seed[i] && j->labels[i] == (uint32_t) i)
			j->parent[i] = ++k;
}

/* Band b: each seed takes its root's number. */
static void
BandLabel(void *arg, int64_t b)
{
	MinimaJob  *j = arg;
	int64_t		i0,
				i1;

	BandRange(j, b, &i0, &i1);
	for (int64_t i = i0; i < i1; i++)
		if (j->seed[i])
			j->labels[i] = j->parent[j->labels[i]];
}

/*
 * Join the seams: each band's first row with the row above it, on the
 * caller's thread, polling between bands.
 */
static PbStatus
JoinSeams(MinimaJob *j, const PbRun *run)
{
	for (int64_t b = 1; b < j->bands; b++)
	{
		int64_t		y = b * j->band_rows;

		if (run->poll != NULL && run->poll(run->poll_arg))
			return PB_ERR_STOPPED;
		for (int64_t x = 0; x < j->g->width; x++)
		{
			int64_t		i = y * j->g->width + x;

			if (j->seed[i])
				JoinBefore(j, i, x, y, (y - 1) * j->g->width);
		}
	}
	return PB_OK;
}

/* See ws_minima.h. */
PbStatus
WsNumberMinima(const WsGrid *g, const uint32_t *lv, const uint8_t *seed,
			   uint32_t *labels, uint32_t *parent, const PbRun *run)
{
	MinimaJob	j;
	int64_t		want = (int64_t) (run->threads > 1 ? run->threads : 1) * WS_MINIMA_BANDS_PER_THREAD;
	uint32_t	next = 0;
	PbStatus	st;

	j.g = g;
	j.lv = lv;
	j.seed = seed;
	j.labels = labels;
	j.band_rows = (g->height + want - 1) / want;
	j.bands = (g->height + j.band_rows - 1) / j.band_rows;
	j.parent = parent;
	j.count = malloc(sizeof(uint32_t) * j.bands);
	if (j.count == NULL)
		return PB_ERR_NOMEM;
	if ((st = PbParallelFor(run, j.bands, BandJoin, &j)) != PB_OK ||
		(st = JoinSeams(&j, run)) != PB_OK ||
		(st = PbParallelFor(run, j.bands, BandRoots, &j)) != PB_OK)
		goto done;
	for (int64_t b = 0; b < j.bands; b++)	/* counts to first numbers - 1 */
	{
		uint32_t	c = j.count[b];

		j.count[b] = next;
		next += c;
	}
	if ((st = PbParallelFor(run, j.bands, BandNumber, &j)) != PB_OK)
		goto done;
	st = PbParallelFor(run, j.bands, BandLabel, &j);
done:
	free(j.count);
	return st;
}
