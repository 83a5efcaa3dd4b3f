/*
 * ws_minima.c: WsNumberMinima of ws_minima.h, a union-find over the seeds
 * in bands of rows.
 *
 * Every union links the larger root under the smaller, so a minimum's
 * root is its first pixel in row-major order, whatever the order of the
 * unions.  Each band joins its seeds with their neighbours inside the
 * band (in parallel: a band writes only its own pixels' parents) and
 * counts its roots as it goes (a seed adds one, a union of two trees
 * takes one away); then the seams between bands are joined on the
 * caller's thread (a row per band), each union there taking one root
 * from the band of the root it absorbs.  The counts become each band's
 * first number.  Then, in parallel and with read-only walks, each band
 * numbers its roots in order into their labels and gives each other seed
 * its root's label, which is already there when the root lies in the
 * band; a seed whose root lies in an earlier band is left at 0 and takes
 * its root's label in a last pass over the few bands that have such
 * seeds, once every band is numbered.
 */
#include <stdlib.h>

#include "ws_minima.h"

#define WS_MINIMA_BANDS_PER_THREAD 8

/* The shared state of one numbering. */
typedef struct MinimaJob
{
	const WsGrid *g;
	const uint8_t *seed;
	uint32_t   *labels;
	uint32_t   *parent;
	int64_t		band_rows;
	int64_t		bands;
	uint32_t   *count;			/* per band: roots, then the first number - 1 */
	int64_t    *late;			/* per band: [first, last] seed whose root is in an earlier band */
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

/* Root of i, read-only (while other threads walk the forest too). */
static uint32_t
FindRoot(const uint32_t *parent, uint32_t i)
{
	while (parent[i] != i)
		i = parent[i];
	return i;
}

/*
 * Join the trees of seeds i and v: the larger root goes under the
 * smaller.  The root absorbed, or -1 when they were one tree.
 */
static int64_t
Join(uint32_t *parent, uint32_t i, uint32_t v)
{
	uint32_t	a = FindHalving(parent, i),
				b = FindHalving(parent, v);

	if (a == b)
		return -1;
	if (a < b)
	{
		parent[b] = a;
		return b;
	}
	parent[a] = b;
	return a;
}

/*
 * Join seed i at (x, y) with its seed neighbours scanned before it (up,
 * left and the upper diagonals) from index lo on; the roots absorbed are
 * counted off their bands' roots (seams) or off *roots (inside a band:
 * roots is not NULL).  Neighbour seeds share their level without it
 * being read: of two neighbours the higher gets d = 0 from the lower,
 * so it is no seed (walls never are).
 */
static void
JoinBefore(MinimaJob *j, int64_t i, int64_t x, int64_t y, int64_t lo, uint32_t *roots)
{
	for (int k = 0; k < j->g->conn; k++)
	{
		int64_t		nx = x + PbNbDx(k),
					ny = y + PbNbDy(k),
					v = ny * j->g->width + nx,
					gone;

		if (nx < 0 || nx >= j->g->width || v < lo || v >= i || !j->seed[v])
			continue;
		gone = Join(j->parent, (uint32_t) i, (uint32_t) v);
		if (gone < 0)
			continue;
		if (roots)
			(*roots)--;
		else
			j->count[gone / j->g->width / j->band_rows]--;
	}
}

/* Band b: join its seeds inside the band, counting its roots. */
static void
BandJoin(void *arg, int64_t b)
{
	MinimaJob  *j = arg;
	uint32_t	roots = 0;
	int64_t		i0,
				i1;

	BandRange(j, b, &i0, &i1);
	for (int64_t i = i0; i < i1; i++)
		if (j->seed[i])
		{
			j->parent[i] = (uint32_t) i;
			roots++;
			JoinBefore(j, i, i % j->g->width, i / j->g->width, i0, &roots);
		}
	j->count[b] = roots;
}

/*
 * Band b: number its roots in order, from the band's first number, and
 * give each seed whose root is in the band that root's number; note the
 * span of the others (labelled 0 for now).
 */
static void
BandNumber(void *arg, int64_t b)
{
	MinimaJob  *j = arg;
	uint32_t	k = j->count[b];
	int64_t		i0,
				i1,
				first = -1,
				last = -1;

	BandRange(j, b, &i0, &i1);
	for (int64_t i = i0; i < i1; i++)
		if (j->seed[i])
		{
			uint32_t	r = FindRoot(j->parent, (uint32_t) i);

			if (r == (uint32_t) i)
				j->labels[i] = ++k;
			else if ((int64_t) r >= i0)
				j->labels[i] = j->labels[r];
			else
			{
				j->labels[i] = 0;
				first = first < 0 ? i : first;
				last = i;
			}
		}
	j->late[2 * b] = first;
	j->late[2 * b + 1] = last;
}

/* Band b: its seeds whose root is in an earlier band take its label. */
static void
BandLate(void *arg, int64_t b)
{
	MinimaJob  *j = arg;

	if (j->late[2 * b] < 0)
		return;
	for (int64_t i = j->late[2 * b]; i <= j->late[2 * b + 1]; i++)
		if (j->seed[i] && j->labels[i] == 0)
			j->labels[i] = j->labels[FindRoot(j->parent, (uint32_t) i)];
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
				JoinBefore(j, i, x, y, (y - 1) * j->g->width, NULL);
		}
	}
	return PB_OK;
}

/* See ws_minima.h. */
PbStatus
WsNumberMinima(const WsGrid *g, const uint8_t *seed, uint32_t *labels, uint32_t *parent,
			   const PbRun *run)
{
	MinimaJob	j;
	int64_t		want = (int64_t) (run->threads > 1 ? run->threads : 1) * WS_MINIMA_BANDS_PER_THREAD;
	uint32_t	next = 0;
	PbStatus	st;

	j.g = g;
	j.seed = seed;
	j.labels = labels;
	j.band_rows = (g->height + want - 1) / want;
	j.bands = (g->height + j.band_rows - 1) / j.band_rows;
	j.parent = parent;
	j.count = malloc(sizeof(uint32_t) * j.bands);
	j.late = malloc(sizeof(int64_t) * 2 * j.bands);
	if (j.count == NULL || j.late == NULL)
	{
		st = PB_ERR_NOMEM;
		goto done;
	}
	if ((st = PbParallelFor(run, j.bands, BandJoin, &j)) != PB_OK ||
		(st = JoinSeams(&j, run)) != PB_OK)
		goto done;
	for (int64_t b = 0; b < j.bands; b++)	/* counts to first numbers - 1 */
	{
		uint32_t	c = j.count[b];

		j.count[b] = next;
		next += c;
	}
	if ((st = PbParallelFor(run, j.bands, BandNumber, &j)) != PB_OK)
		goto done;
	st = PbParallelFor(run, j.bands, BandLate, &j);
done:
	free(j.count);
	free(j.late);
	return st;
}
