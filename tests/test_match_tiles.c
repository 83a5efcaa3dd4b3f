/*
 * test_match_tiles.c: the instance metrics per tile (match_tiles.c): a
 * case worked by hand, tiles adding up to the slide's figures on random
 * instances, rows that do not depend on the order of the pairs, and a
 * poll that stops the work.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testutil.h"

/* Match (at threshold 0.5) and tile an instance; the rows in *rows. */
static PbStatus
Tiles(const PbMatchInput *in, const int64_t *kt, const int64_t *kp, PbMatchStats *s,
	  PbTileRows *rows)
{
	uint32_t	tm[64],
				pm[64];
	double		ti[64],
				pi[64];
	PbMatchObjects o = {tm, ti, pm, pi};
	PbError		err;

	if (PbMatch(in, &PbMallocAllocator, s, &o, &err) != PB_OK)
		return PB_ERR_BADARG;
	return PbMatchTiles(in, &o, kt, kp, &PbMallocAllocator, rows, &err);
}

/*
 * test_match.c's hand-worked instance: t0 (100) ∩ p0 (100) = 90, t1 (50)
 * ∩ p1 (40) = 30, t0 ∩ p2 (20) = 5, t2 (60) alone.  t0 in tile 1, t1 and
 * t2 in tile 2, p0 in tile 5 (it counts in its partner's), p1 in 2, p2
 * in tile 7 (spurious: its own).
 */
void
test_match_tiles_hand_worked(void)
{
	double		at[] = {100, 50, 60},
				ap[] = {100, 40, 20};
	PbMatchPair pairs[] = {{0, 0, 90}, {1, 1, 30}, {0, 2, 5}};
	int64_t		kt[] = {1, 2, 2},
				kp[] = {5, 2, 7};
	PbMatchInput in = {.n_true = 3, .n_pred = 3, .area_true = at, .area_pred = ap,
	.pairs = pairs, .npairs = 3, .threshold = 0.5};
	PbMatchStats s;
	PbTileRows rows;
	const PbTileRow *r;

	CHECK(Tiles(&in, kt, kp, &s, &rows) == PB_OK);
	CHECK_INT(rows.n, 3);
	r = &rows.rows[0];
	CHECK_INT(r->key, 1);
	CHECK_INT(r->n_true, 1);
	CHECK_INT(r->n_pred, 1);
	CHECK_INT(r->tp, 1);
	CHECK_INT(r->fp, 0);
	CHECK_INT(r->fn, 0);
	CHECK_INT(r->pairs, 2);
	CHECK_DBL_EQ(r->f1, 1.0);
	CHECK_NEAR(r->pq, 9.0 / 11, 1e-15);
	CHECK_NEAR(r->jaccard, (9.0 / 11 + 5.0 / 115) / 2, 1e-15);
	r = &rows.rows[1];
	CHECK_INT(r->key, 2);
	CHECK_INT(r->n_true, 2);
	CHECK_INT(r->n_pred, 1);
	CHECK_INT(r->tp, 1);
	CHECK_INT(r->fn, 1);
	CHECK_INT(r->pairs, 1);
	CHECK_NEAR(r->f1, 2.0 / 3, 1e-15);
	CHECK_NEAR(r->pq, 0.5 / 1.5, 1e-15);
	CHECK_DBL_EQ(r->jaccard, 0.5);
	r = &rows.rows[2];
	CHECK_INT(r->key, 7);
	CHECK_INT(r->n_true, 0);
	CHECK_INT(r->n_pred, 1);
	CHECK_INT(r->fp, 1);
	CHECK_INT(r->pairs, 0);
	CHECK_DBL_EQ(r->f1, 0.0);
	CHECK_DBL_EQ(r->pq, 0.0);
	CHECK(isnan(r->jaccard));
	free(rows.rows);
	/* no objects: no rows */
	in.n_true = in.n_pred = 0;
	in.npairs = 0;
	CHECK(Tiles(&in, kt, kp, &s, &rows) == PB_OK);
	CHECK_INT(rows.n, 0);
	free(rows.rows);
}

/* A random instance: nt, np objects, pairs of random overlap, random tiles. */
static void
RandomTiled(Rng *r, uint32_t nt, uint32_t np, double *at, double *ap, PbMatchPair *pairs,
			size_t *n, int64_t *kt, int64_t *kp)
{
	*n = 0;
	for (uint32_t t = 0; t < nt; t++)
	{
		at[t] = (double) RngRange(r, 10, 100) + 0.25 * t;
		kt[t] = RngRange(r, -3, 3);
	}
	for (uint32_t p = 0; p < np; p++)
	{
		ap[p] = (double) RngRange(r, 10, 100) + 0.125 * p;
		kp[p] = RngRange(r, -3, 3);
	}
	for (uint32_t t = 0; t < nt; t++)
		for (uint32_t p = 0; p < np; p++)
			if (RngRange(r, 0, 99) < 15)
				pairs[(*n)++] = (PbMatchPair) {t, p, (double) RngRange(r, 1, (int64_t) fmin(at[t], ap[p]))};
}

/*
 * Random instances: the tiles' counts add up to the slide's, each tile's
 * figures follow from its counts, keys come in order, and shuffling the
 * pairs changes no bit of any row.
 */
void
test_match_tiles_add_up(void)
{
	Rng			r = {17};

	for (int it = 0; it < 300; it++)
	{
		double		at[64],
					ap[64];
		PbMatchPair pairs[1024],
					shuffled[1024];
		int64_t		kt[64],
					kp[64];
		size_t		n,
					overlapping = 0;
		uint32_t	nt = (uint32_t) RngRange(&r, 0, 40),
					np = (uint32_t) RngRange(&r, 0, 40);
		PbMatchStats s;
		PbTileRows rows,
					again;
		int64_t		sum[6] = {0};
		PbMatchInput in;

		RandomTiled(&r, nt, np, at, ap, pairs, &n, kt, kp);
		in = (PbMatchInput) {.n_true = nt, .n_pred = np, .area_true = at, .area_pred = ap,
		.pairs = pairs, .npairs = n, .threshold = 0.5};
		pb_test_context("instance %d", it);
		CHECK(Tiles(&in, kt, kp, &s, &rows) == PB_OK);
		for (size_t k = 0; k < rows.n; k++)
		{
			const PbTileRow *t = &rows.rows[k];

			CHECK(k == 0 || t->key > rows.rows[k - 1].key);
			CHECK(t->n_true + t->n_pred > 0);
			CHECK_INT(t->n_true, t->tp + t->fn);
			CHECK_INT(t->n_pred, t->tp + t->fp);
			CHECK_NEAR(t->f1, 2.0 * t->tp / (2.0 * t->tp + t->fp + t->fn), 1e-15);
			CHECK(t->pq >= 0 && t->pq <= t->f1 + 1e-15);
			CHECK(t->pairs > 0 ? t->jaccard > 0 && t->jaccard <= 1 : isnan(t->jaccard));
			sum[0] += t->n_true;
			sum[1] += t->n_pred;
			sum[2] += t->tp;
			sum[3] += t->fp;
			sum[4] += t->fn;
			sum[5] += t->pairs;
		}
		for (size_t k = 0; k < n; k++)
			overlapping += pairs[k].inter > 0;
		CHECK_INT(sum[0], s.n_true);
		CHECK_INT(sum[1], s.n_pred);
		CHECK_INT(sum[2], s.tp);
		CHECK_INT(sum[3], s.fp);
		CHECK_INT(sum[4], s.fn);
		CHECK_INT(sum[5], overlapping);
		memcpy(shuffled, pairs, n * sizeof(PbMatchPair));
		for (size_t k = n; k > 1; k--)
		{
			size_t		j = (size_t) RngRange(&r, 0, (int64_t) k - 1);
			PbMatchPair tmp = shuffled[k - 1];

			shuffled[k - 1] = shuffled[j];
			shuffled[j] = tmp;
		}
		in.pairs = shuffled;
		CHECK(Tiles(&in, kt, kp, &s, &again) == PB_OK);
		CHECK_INT(again.n, rows.n);
		CHECK(again.n == rows.n && memcmp(again.rows, rows.rows, rows.n * sizeof(PbTileRow)) == 0);
		free(rows.rows);
		free(again.rows);
	}
}

/* A poll that asks to stop at once. */
static int
StopNow(void *arg)
{
	(void) arg;
	return 1;
}

/* A poll asking to stop stops the tiling with PB_ERR_STOPPED, nothing kept. */
void
test_match_tiles_poll(void)
{
	double		at[] = {10},
				ap[] = {10};
	PbMatchPair pairs[] = {{0, 0, 10}};
	int64_t		kt[] = {0},
				kp[] = {0};
	uint32_t	tm[1] = {0},
				pm[1] = {0};
	double		ti[1] = {1},
				pi[1] = {1};
	PbMatchObjects o = {tm, ti, pm, pi};
	PbMatchInput in = {.n_true = 1, .n_pred = 1, .area_true = at, .area_pred = ap,
	.pairs = pairs, .npairs = 1, .threshold = 0.5, .poll = StopNow};
	PbTileRows rows;
	PbError		err;

	CHECK(PbMatchTiles(&in, &o, kt, kp, &PbMallocAllocator, &rows, &err) == PB_ERR_STOPPED);
	CHECK(rows.rows == NULL);
	CHECK_INT(rows.n, 0);
}
