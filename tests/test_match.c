/*
 * test_match.c: the instance metrics (src/core/geom/match*.c) on cases
 * worked by hand, against brute force over every matching of small
 * random graphs, against a dense Hungarian method on bigger components,
 * and for independence from the order of the input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testutil.h"

/* A test instance: objects' areas and the overlapping pairs. */
typedef struct Inst
{
	uint32_t	nt,
				np;
	double		at[64],
				ap[64];
	PbMatchPair pairs[512];
	size_t		n;
} Inst;

/* Add pair (t, p) with intersection area i. */
static void
Pair(Inst *x, uint32_t t, uint32_t p, double i)
{
	x->pairs[x->n++] = (PbMatchPair) {t, p, i};
}

/* The input of x at threshold thr, ordered by order over key (may be NULL). */
static PbMatchInput
Input(const Inst *x, double thr, PbMatchOrderFn order, void *key)
{
	PbMatchInput in = {.n_true = x->nt, .n_pred = x->np, .area_true = x->at,
	.area_pred = x->ap, .pairs = x->pairs, .npairs = x->n, .threshold = thr,
	.order = order, .order_ctx = key};

	return in;
}

/* Run PbMatch on x at threshold thr (objs may be NULL). */
static PbStatus
Run(const Inst *x, double thr, PbMatchStats *s, PbMatchObjects *objs)
{
	PbMatchInput in = Input(x, thr, NULL, NULL);
	PbError		err;

	return PbMatch(&in, &PbMallocAllocator, s, objs, &err);
}

/*
 * Three true objects, three predictions (areas and overlaps below), at
 * 0.5 and 0.7: every figure worked by hand.
 *   t0 (100) ∩ p0 (100) = 90: IoU 90/110 = 9/11
 *   t1 (50)  ∩ p1 (40)  = 30: IoU 30/60 = 1/2
 *   t0       ∩ p2 (20)  = 5:  IoU 5/115
 *   t2 (60) overlaps nothing.
 */
void
test_match_hand_worked(void)
{
	Inst		x = {.nt = 3, .np = 3, .at = {100, 50, 60}, .ap = {100, 40, 20}};
	PbMatchStats s;
	double		sum = 9.0 / 11 + 0.5;

	Pair(&x, 0, 0, 90);
	Pair(&x, 1, 1, 30);
	Pair(&x, 0, 2, 5);
	CHECK(Run(&x, 0.5, &s, NULL) == PB_OK);
	/* 0.5: t0-p0 and t1-p1 (IoU exactly 0.5 matches: >=) */
	CHECK_INT(s.tp, 2);
	CHECK_INT(s.fp, 1);
	CHECK_INT(s.fn, 1);
	CHECK_NEAR(s.precision, 2.0 / 3, 1e-15);
	CHECK_NEAR(s.recall, 2.0 / 3, 1e-15);
	CHECK_NEAR(s.accuracy, 2.0 / 4, 1e-15);
	CHECK_NEAR(s.f1, 4.0 / 6, 1e-15);
	CHECK_NEAR(s.mean_matched_score, sum / 2, 1e-15);
	CHECK_NEAR(s.mean_true_score, sum / 3, 1e-15);
	CHECK_NEAR(s.panoptic_quality, sum / (2 + 0.5 + 0.5), 1e-15);
	CHECK_NEAR(s.sq * s.dq, s.panoptic_quality, 1e-15);
	/* AJI: t0 takes p0 (C 90, U 110), t1 p1 (30, 60), t2 alone (U 60), p2 unused (U 20) */
	CHECK_NEAR(s.aji, 120.0 / 250, 1e-15);
	CHECK_NEAR(s.aji_plus, 120.0 / 250, 1e-15);
	/* dice: 2 * (90 + 30 + 5) / (210 + 160) */
	CHECK_NEAR(s.dice_pixel, 250.0 / 370, 1e-15);
	CHECK_INT(s.true_overcovered, 0);
	CHECK_INT(s.pred_overcovered, 0);
	/* 0.7: only t0-p0 */
	CHECK(Run(&x, 0.7, &s, NULL) == PB_OK);
	CHECK_INT(s.tp, 1);
	CHECK_INT(s.fp, 2);
	CHECK_INT(s.fn, 2);
	CHECK_NEAR(s.accuracy, 1.0 / 5, 1e-15);
	CHECK_NEAR(s.f1, 2.0 / 6, 1e-15);
	CHECK_NEAR(s.panoptic_quality, (9.0 / 11) / 3, 1e-15);
	CHECK_NEAR(s.aji, 120.0 / 250, 1e-15);
	CHECK_DBL_EQ(s.threshold, 0.7);
}

/*
 * A true object (10) split exactly in half by two predictions (5 each):
 * IoU 0.5 with both.  At 0.5 one of them matches (not both), at 0.51
 * neither; at 1 only the identical pair t1-p2 (IoU exactly 1).
 */
void
test_match_exact_half(void)
{
	Inst		x = {.nt = 2, .np = 3, .at = {10, 7}, .ap = {5, 5, 7}};
	PbMatchStats s;
	uint32_t	tm[2],
				pm[3];
	double		ti[2],
				pi[3];
	PbMatchObjects o = {tm, ti, pm, pi};

	Pair(&x, 0, 0, 5);
	Pair(&x, 0, 1, 5);
	Pair(&x, 1, 2, 7);
	CHECK(Run(&x, 0.5, &s, &o) == PB_OK);
	CHECK_INT(s.tp, 2);
	CHECK_INT(s.fp, 1);
	CHECK_INT(s.fn, 0);
	CHECK_NEAR(s.mean_matched_score, 0.75, 1e-15);
	/* by index (no order function): p0 is t0's partner, p1 a false positive
	 * whose best IoU is 0.5 */
	CHECK_INT(tm[0], 0);
	CHECK_INT(pm[1], PB_MATCH_NONE);
	CHECK_DBL_EQ(pi[1], 0.5);
	CHECK_INT(tm[1], 2);
	CHECK_DBL_EQ(ti[1], 1.0);
	CHECK(Run(&x, 0.51, &s, NULL) == PB_OK);
	CHECK_INT(s.tp, 1);
	CHECK(Run(&x, 1.0, &s, NULL) == PB_OK);
	CHECK_INT(s.tp, 1);
	CHECK_NEAR(s.mean_matched_score, 1.0, 0);
	/* 0 matches any overlap */
	CHECK(Run(&x, 0.0, &s, NULL) == PB_OK);
	CHECK_INT(s.tp, 2);
}

/*
 * Below 0.5 the greedy choice (highest IoU first) is not the stardist
 * matching:
 *   t0 (100) ∩ p0 (100) = 60: IoU 60/140 = 0.4286
 *   t0       ∩ p1 (50)  = 30: IoU 30/120 = 0.25
 *   t1 (100) ∩ p0       = 35: IoU 35/165 = 0.2121
 * At 0.2 greedy takes t0-p0 alone (tp 1); the optimum is t0-p1 + t1-p0
 * (tp 2, sum 0.4621).  At 0.22, t1-p0 is no candidate: tp 1 with the
 * larger IoU (t0-p0).  AJI+ (total IoU, no threshold) takes the pair of
 * two (0.4621 > 0.4286); AJI gives t0 p0 and t1 p0.
 */
void
test_match_greedy_is_wrong(void)
{
	Inst		x = {.nt = 2, .np = 2, .at = {100, 100}, .ap = {100, 50}};
	PbMatchStats s;
	double		i00 = 60.0 / 140,
				i01 = 30.0 / 120,
				i10 = 35.0 / 165;

	Pair(&x, 0, 0, 60);
	Pair(&x, 0, 1, 30);
	Pair(&x, 1, 0, 35);
	CHECK(Run(&x, 0.2, &s, NULL) == PB_OK);
	CHECK_INT(s.tp, 2);
	CHECK_NEAR(s.mean_matched_score, (i01 + i10) / 2, 1e-15);
	CHECK(Run(&x, 0.22, &s, NULL) == PB_OK);
	CHECK_INT(s.tp, 1);
	CHECK_NEAR(s.mean_matched_score, i00, 1e-15);
	/* AJI+: C = 30 + 35, U = 120 + 165 */
	CHECK_NEAR(s.aji_plus, 65.0 / 285, 1e-15);
	/* AJI: t0 -> p0 (60, 140), t1 -> p0 (35, 165), p1 unused (50) */
	CHECK_NEAR(s.aji, 95.0 / 355, 1e-15);
}

/* Order function of the tests: key[pred][i], smaller first. */
static int
KeyOrder(void *ctx, int pred, uint32_t i, uint32_t j)
{
	const int  *const *key = ctx;

	return (key[pred][i] > key[pred][j]) - (key[pred][i] < key[pred][j]);
}

/*
 * AJI's ties: among equal IoUs the larger union (HoVer-Net's +1e-6),
 * then the caller's order.
 *   t0 (12) ∩ p0 (4) = 4: IoU 1/3, union 12
 *   t0      ∩ p1 (8) = 5: IoU 1/3, union 15  -> p1 (larger union)
 *   t1 (10) ∩ p2 (5) = 5, t1 ∩ p3 (5) = 5: IoU 1/2 and union 10 both
 *   t2 (4)  ∩ p4 (4) = 4
 * For t1 the order decides; either way one half (area 5) is left over:
 * C = 5 + 5 + 4, U = 15 + 10 + 4 + |p0| 4 + 5.  Then the halves grow to
 * 7 (t1 ∩ each = 5: IoU 5/12, union 12 both) and t2 overlaps p3 (2 of
 * it: IoU 2/9) instead of p4, so that the choice matters: p2 first gives
 * C = 5 + 5 + 2, U = 15 + 12 + 9 + |p0| 4 + |p4| 4; p3 first leaves p2
 * unused too: U + 7.
 */
void
test_match_aji_ties(void)
{
	Inst		x = {.nt = 3, .np = 5, .at = {12, 10, 4}, .ap = {4, 8, 5, 5, 4}};
	PbMatchStats s;
	int			kt[3] = {0, 1, 2},
				kp[5] = {0, 1, 2, 3, 4};
	const int  *key[2] = {kt, kp};
	PbMatchInput in;
	PbError		err;

	Pair(&x, 0, 0, 4);
	Pair(&x, 0, 1, 5);
	Pair(&x, 1, 2, 5);
	Pair(&x, 1, 3, 5);
	Pair(&x, 2, 4, 4);
	in = Input(&x, 0.5, KeyOrder, key);
	CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_OK);
	CHECK_NEAR(s.aji, 14.0 / 38, 1e-15);
	kp[3] = -1;					/* p3 before p2 */
	CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_OK);
	CHECK_NEAR(s.aji, 14.0 / 38, 1e-15);

	x.ap[2] = x.ap[3] = 7;
	x.pairs[4] = (PbMatchPair) {2, 3, 2};
	kp[3] = 3;
	CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_OK);
	CHECK_NEAR(s.aji, 12.0 / 44, 1e-15);
	kp[3] = -1;
	CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_OK);
	CHECK_NEAR(s.aji, 12.0 / 51, 1e-15);
	/* without an order function: by index, p2 first */
	in.order = NULL;
	CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_OK);
	CHECK_NEAR(s.aji, 12.0 / 44, 1e-15);
}

/* Empty sets: every figure 0 (stardist's _safe_divide), no error. */
void
test_match_empty_sets(void)
{
	Inst		x = {.nt = 0};
	PbMatchStats s;

	CHECK(Run(&x, 0.5, &s, NULL) == PB_OK);
	CHECK_INT(s.tp + s.fp + s.fn + s.n_true + s.n_pred, 0);
	CHECK_DBL_EQ(s.precision + s.recall + s.accuracy + s.f1, 0.0);
	CHECK_DBL_EQ(s.panoptic_quality + s.mean_true_score + s.mean_matched_score, 0.0);
	CHECK_DBL_EQ(s.aji + s.aji_plus + s.dice_pixel, 0.0);
	/* only true objects: all false negatives; AJI = 0 / their areas */
	x.nt = 2;
	x.at[0] = 3;
	x.at[1] = 4;
	CHECK(Run(&x, 0.5, &s, NULL) == PB_OK);
	CHECK_INT(s.fn, 2);
	CHECK_INT(s.fp, 0);
	CHECK_DBL_EQ(s.recall, 0.0);
	CHECK_DBL_EQ(s.precision, 0.0);
	CHECK_DBL_EQ(s.aji, 0.0);
	CHECK_DBL_EQ(s.dice_pixel, 0.0);
}

/* Thresholds outside [0, 1] and pairs naming no object are refused. */
void
test_match_bad_input(void)
{
	Inst		x = {.nt = 1, .np = 1, .at = {4}, .ap = {4}};
	PbMatchStats s;
	PbMatchInput in;
	PbError		err;
	double		bad[] = {-0.01, 1.01, NAN, INFINITY};

	Pair(&x, 0, 0, 2);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		in = Input(&x, bad[i], NULL, NULL);
		CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_ERR_BADARG);
		CHECK_STR_HAS(err.message, "between 0 and 1");
	}
	x.pairs[0].p = 1;
	in = Input(&x, 0.5, NULL, NULL);
	CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "outside its set");
}

/* Within-set overlap shows as objects covered more than their area. */
void
test_match_overcover(void)
{
	Inst		x = {.nt = 1, .np = 2, .at = {10}, .ap = {8, 8}};
	PbMatchStats s;

	Pair(&x, 0, 0, 7);
	Pair(&x, 0, 1, 6);			/* 13 > 10: p0 and p1 overlap inside t0 */
	CHECK(Run(&x, 0.5, &s, NULL) == PB_OK);
	CHECK_INT(s.true_overcovered, 1);
	CHECK_INT(s.pred_overcovered, 0);
}

/* A random instance: integer areas (many ties), consistent intersections. */
static void
RandomInst(Inst *x, Rng *r, uint32_t nt, uint32_t np, int density)
{
	memset(x, 0, sizeof(*x));
	x->nt = nt;
	x->np = np;
	for (uint32_t t = 0; t < nt; t++)
		x->at[t] = (double) RngRange(r, 1, 12);
	for (uint32_t p = 0; p < np; p++)
		x->ap[p] = (double) RngRange(r, 1, 12);
	for (uint32_t t = 0; t < nt; t++)
		for (uint32_t p = 0; p < np; p++)
			if (RngRange(r, 0, 99) < density)
				Pair(x, t, p, (double) RngRange(r, 1, (int64_t) fmin(x->at[t], x->ap[p])));
}

/* IoU of pair k of x. */
static double
IouOf(const Inst *x, size_t k)
{
	const PbMatchPair *p = &x->pairs[k];

	return p->inter / (x->at[p->t] + x->ap[p->p] - p->inter);
}

/* Best matchings found by brute force. */
typedef struct Brute
{
	const Inst *x;
	double		thr;
	int			cand;			/* matching only pairs with IoU >= thr (stardist) */
	int			best_n;
	double		best_sum;
	double		aji_lo,			/* AJI+ range over the optimal matchings */
				aji_hi;
	int			used_t[64],
				used_p[64];
	size_t		chosen[64];
	int			nchosen;
} Brute;

/* C/U of the current matching (AJI+'s sums). */
static double
BruteAji(const Brute *b)
{
	double		c = 0,
				u = 0;

	for (int k = 0; k < b->nchosen; k++)
	{
		const PbMatchPair *p = &b->x->pairs[b->chosen[k]];

		c += p->inter;
		u += b->x->at[p->t] + b->x->ap[p->p] - p->inter;
	}
	for (uint32_t t = 0; t < b->x->nt; t++)
		if (!b->used_t[t])
			u += b->x->at[t];
	for (uint32_t p = 0; p < b->x->np; p++)
		if (!b->used_p[p])
			u += b->x->ap[p];
	return u > 0 ? c / u : 0;
}

/* Try every matching of pairs from k on, keeping the best (count, sum). */
static void
BruteFrom(Brute *b, size_t k, int n, double sum)
{
	if (k == b->x->n)
	{
		int			cnt = b->cand ? n : 0;
		double		a;

		if (cnt < b->best_n || (cnt == b->best_n && sum < b->best_sum - 1e-12))
			return;
		a = BruteAji(b);
		if (cnt > b->best_n || sum > b->best_sum + 1e-12)
		{
			b->best_n = cnt;
			b->best_sum = sum;
			b->aji_lo = b->aji_hi = a;
		}
		b->aji_lo = fmin(b->aji_lo, a);
		b->aji_hi = fmax(b->aji_hi, a);
		return;
	}
	BruteFrom(b, k + 1, n, sum);
	{
		const PbMatchPair *p = &b->x->pairs[k];
		double		iou = IouOf(b->x, k);

		if (b->used_t[p->t] || b->used_p[p->p] || (b->cand && iou < b->thr))
			return;
		b->used_t[p->t] = b->used_p[p->p] = 1;
		b->chosen[b->nchosen++] = k;
		BruteFrom(b, k + 1, n + 1, sum + iou);
		b->nchosen--;
		b->used_t[p->t] = b->used_p[p->p] = 0;
	}
}

/*
 * Small random graphs (up to 6 x 6, ties everywhere): tp and the matched
 * sum equal the best of all matchings (cardinality, then IoU), AJI+ is
 * the C/U of a matching of maximum total IoU.
 */
void
test_match_brute_force(void)
{
	Rng			r = {77};
	double		thrs[] = {0.0, 0.1, 0.25, 0.3, 0.5, 0.6};

	for (int it = 0; it < 3000; it++)
	{
		Inst		x;
		PbMatchStats s;
		Brute		b;
		double		thr = thrs[it % 6];

		RandomInst(&x, &r, (uint32_t) RngRange(&r, 0, 6), (uint32_t) RngRange(&r, 0, 6),
				   (int) RngRange(&r, 10, 80));
		pb_test_context("instance %d", it);
		CHECK(Run(&x, thr, &s, NULL) == PB_OK);
		memset(&b, 0, sizeof(b));
		b.x = &x;
		b.thr = thr;
		b.cand = 1;
		b.best_n = -1;
		BruteFrom(&b, 0, 0, 0.0);
		CHECK_INT(s.tp, b.best_n);
		CHECK_NEAR(s.sum_matched, b.best_sum, 1e-12);
		memset(&b, 0, sizeof(b));
		b.x = &x;
		b.best_n = -1;
		BruteFrom(&b, 0, 0, 0.0);
		CHECK(s.aji_plus >= b.aji_lo - 1e-12 && s.aji_plus <= b.aji_hi + 1e-12);
	}
}

/*
 * Reference: the dense Hungarian method (O(n^2 m), n <= m rows and
 * columns of cost a, row-major) minimising the total cost; ans[i] = the
 * column of row i.
 */
static void
DenseHungarian(const double *a, int n, int m, int *ans)
{
	double	   *u = calloc(n + 1, sizeof(double)),
			   *v = calloc(m + 1, sizeof(double)),
			   *minv = malloc((m + 1) * sizeof(double));
	int		   *p = calloc(m + 1, sizeof(int)),
			   *way = calloc(m + 1, sizeof(int));
	char	   *used = malloc(m + 1);

	for (int i = 1; i <= n; i++)
	{
		int			j0 = 0;

		p[0] = i;
		for (int j = 0; j <= m; j++)
		{
			minv[j] = INFINITY;
			used[j] = 0;
		}
		do
		{
			int			i0 = p[j0],
						j1 = 0;
			double		delta = INFINITY;

			used[j0] = 1;
			for (int j = 1; j <= m; j++)
				if (!used[j])
				{
					double		cur = a[(size_t) (i0 - 1) * m + (j - 1)] - u[i0] - v[j];

					if (cur < minv[j])
					{
						minv[j] = cur;
						way[j] = j0;
					}
					if (minv[j] < delta)
					{
						delta = minv[j];
						j1 = j;
					}
				}
			for (int j = 0; j <= m; j++)
				if (used[j])
				{
					u[p[j]] += delta;
					v[j] -= delta;
				}
				else
					minv[j] -= delta;
			j0 = j1;
		} while (p[j0] != 0);
		do
		{
			int			j1 = way[j0];

			p[j0] = p[j1];
			j0 = j1;
		} while (j0);
	}
	for (int j = 1; j <= m; j++)
		if (p[j])
			ans[p[j] - 1] = j - 1;
	free(u);
	free(v);
	free(minv);
	free(p);
	free(way);
	free(used);
}

/*
 * Bigger components (a few hundred objects, each overlapping neighbours,
 * random IoUs): PbAssignSolve's totals equal the dense Hungarian method's
 * on the full matrix (non-edges 0), both for cardinality-then-IoU and for
 * IoU alone.
 */
void
test_match_dense_reference(void)
{
	Rng			r = {2024};

	for (int it = 0; it < 6; it++)
	{
		uint32_t	nl = (uint32_t) RngRange(&r, 150, 300),
					nr = nl + (uint32_t) RngRange(&r, 0, 40);
		uint32_t   *first = calloc(nl + 1, sizeof(uint32_t)),
				   *mate = malloc(nl * sizeof(uint32_t));
		PbAssignEdge *edges = malloc(sizeof(PbAssignEdge) * nl * 8);
		double	   *cost = calloc((size_t) nl * nr, sizeof(double));
		int		   *ans = malloc(nl * sizeof(int));
		size_t		ne = 0;

		for (uint32_t l = 0; l < nl; l++)
		{
			int			deg = (int) RngRange(&r, 1, 6);
			uint32_t	last = UINT32_MAX;

			for (int d = 0; d < deg; d++)
			{
				/* neighbours of l in a band: one component, long paths */
				uint32_t	j = (uint32_t) ((l + RngRange(&r, 0, 12)) % nr);

				if (j == last || cost[(size_t) l * nr + j] != 0)
					continue;
				edges[ne++] = (PbAssignEdge) {j, 1, 0.01 + 0.99 * RngDouble(&r)};
				cost[(size_t) l * nr + j] = edges[ne - 1].value;
				last = j;
			}
			first[l + 1] = (uint32_t) ne;
		}
		for (int card = 0; card <= 1; card++)
		{
			PbAssign   *a = PbAssignCreate(&PbMallocAllocator);
			double	   *c = malloc(sizeof(double) * nl * nr);
			double		ours = 0,
						ref = 0;
			int			n_ours = 0,
						n_ref = 0;

			for (size_t e = 0; e < ne; e++)
				edges[e].count = card;
			pb_test_context("component %d, cardinality %d", it, card);
			CHECK(PbAssignSolve(a, nl, nr, first, edges, mate, NULL, NULL) == PB_OK);
			for (uint32_t l = 0; l < nl; l++)
				for (uint32_t e = first[l]; mate[l] != PB_MATCH_NONE && e < first[l + 1]; e++)
					if (edges[e].right == mate[l])
					{
						ours += edges[e].value;
						n_ours++;
					}
			for (size_t k = 0; k < (size_t) nl * nr; k++)
				c[k] = cost[k] > 0 ? -(card * (nl + 1.0) + cost[k]) : 0.0;
			DenseHungarian(c, (int) nl, (int) nr, ans);
			for (uint32_t l = 0; l < nl; l++)
				if (cost[(size_t) l * nr + ans[l]] > 0)
				{
					ref += cost[(size_t) l * nr + ans[l]];
					n_ref++;
				}
			if (card)
				CHECK_INT(n_ours, n_ref);
			CHECK_NEAR(ours, ref, 1e-9);
			free(c);
			PbAssignFree(a);
		}
		free(first);
		free(mate);
		free(edges);
		free(cost);
		free(ans);
	}
}

/* Apply a permutation: objects renumbered, pairs shuffled; same key per object. */
static void
Permute(const Inst *x, Inst *y, Rng *r, const int *kt, const int *kp, int *yt, int *yp)
{
	uint32_t	pt[64],
				pp[64];

	*y = *x;
	for (uint32_t i = 0; i < x->nt; i++)
		pt[i] = i;
	for (uint32_t i = 0; i < x->np; i++)
		pp[i] = i;
	for (uint32_t i = x->nt; i > 1; i--)
	{
		uint32_t	j = (uint32_t) RngRange(r, 0, i - 1),
					t = pt[i - 1];

		pt[i - 1] = pt[j];
		pt[j] = t;
	}
	for (uint32_t i = x->np; i > 1; i--)
	{
		uint32_t	j = (uint32_t) RngRange(r, 0, i - 1),
					t = pp[i - 1];

		pp[i - 1] = pp[j];
		pp[j] = t;
	}
	for (uint32_t i = 0; i < x->nt; i++)
	{
		y->at[pt[i]] = x->at[i];
		yt[pt[i]] = kt[i];
	}
	for (uint32_t i = 0; i < x->np; i++)
	{
		y->ap[pp[i]] = x->ap[i];
		yp[pp[i]] = kp[i];
	}
	for (size_t k = 0; k < x->n; k++)
		y->pairs[k] = (PbMatchPair) {pt[x->pairs[k].t], pp[x->pairs[k].p], x->pairs[k].inter};
	for (size_t k = x->n; k > 1; k--)
	{
		size_t		j = (size_t) RngRange(r, 0, (int64_t) k - 1);
		PbMatchPair t = y->pairs[k - 1];

		y->pairs[k - 1] = y->pairs[j];
		y->pairs[j] = t;
	}
}

/*
 * The same objects in another order give the same figures to the last
 * bit, when the order function ranks objects by something of their own
 * (as PbShapeOrder does): ties (many, with integer areas) resolve alike.
 */
void
test_match_order_independent(void)
{
	Rng			r = {5};

	for (int it = 0; it < 500; it++)
	{
		Inst		x,
					y;
		int			kt[64],
					kp[64],
					yt[64],
					yp[64];
		const int  *kx[2] = {kt, kp},
				   *ky[2] = {yt, yp};
		PbMatchStats sx,
					sy;
		PbMatchInput in;
		PbError		err;
		double		thr = (it % 5) * 0.2;

		RandomInst(&x, &r, (uint32_t) RngRange(&r, 1, 8), (uint32_t) RngRange(&r, 1, 8), 50);
		for (uint32_t i = 0; i < x.nt; i++)
			kt[i] = (int) RngRange(&r, 0, 1000);
		for (uint32_t i = 0; i < x.np; i++)
			kp[i] = (int) RngRange(&r, 0, 1000);
		Permute(&x, &y, &r, kt, kp, yt, yp);
		pb_test_context("instance %d", it);
		in = Input(&x, thr, KeyOrder, kx);
		CHECK(PbMatch(&in, &PbMallocAllocator, &sx, NULL, &err) == PB_OK);
		in = Input(&y, thr, KeyOrder, ky);
		CHECK(PbMatch(&in, &PbMallocAllocator, &sy, NULL, &err) == PB_OK);
		CHECK(memcmp(&sx, &sy, sizeof(sx)) == 0);
	}
}

/* Stop after this many polls. */
static int
StopAfter(void *arg)
{
	int		   *left = arg;

	return --*left < 0;
}

/*
 * One component of 200,000 objects (a band of touching nuclei shifted
 * against each other, as two segmentations of a dense region give):
 * matched quickly, and a poll that asks to stop is obeyed.
 */
void
test_match_big_component(void)
{
	uint32_t	n = 100000;
	double	   *at = malloc(n * sizeof(double)),
			   *ap = malloc((n + 1) * sizeof(double));
	PbMatchPair *pairs = malloc(3 * (size_t) n * sizeof(PbMatchPair));
	size_t		np = 0;
	Rng			r = {9};
	PbMatchStats s;
	PbMatchInput in;
	PbError		err;
	double		t0;
	int			polls = 0;

	for (uint32_t i = 0; i < n; i++)
		at[i] = (double) RngRange(&r, 40, 60);
	for (uint32_t i = 0; i <= n; i++)
		ap[i] = (double) RngRange(&r, 40, 60);
	for (uint32_t i = 0; i < n; i++)
	{
		/* t_i overlaps p_i a lot and p_{i+1} somewhat: one long chain */
		double		a = fmin(at[i], ap[i]) * (0.3 + 0.5 * RngDouble(&r)),
					b = fmin(at[i] - a, ap[i + 1]) * RngDouble(&r);

		pairs[np++] = (PbMatchPair) {i, i, floor(a) + 1};
		if (b >= 1)
			pairs[np++] = (PbMatchPair) {i, i + 1, floor(b)};
	}
	for (int thr = 0; thr <= 1; thr++)
	{
		memset(&in, 0, sizeof(in));
		in.n_true = n;
		in.n_pred = n + 1;
		in.area_true = at;
		in.area_pred = ap;
		in.pairs = pairs;
		in.npairs = np;
		in.threshold = thr ? 0.3 : 0.0;
		t0 = TestSeconds();
		CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_OK);
		pb_test_note("threshold %.1f: %zu pairs in %.3f s, tp %lld", in.threshold, np,
					 TestSeconds() - t0, (long long) s.tp);
		CHECK(TestSeconds() - t0 < 5.0);
		CHECK(s.tp > 0);
	}
	in.poll = StopAfter;
	in.poll_arg = &polls;
	CHECK(PbMatch(&in, &PbMallocAllocator, &s, NULL, &err) == PB_ERR_STOPPED);
	free(at);
	free(ap);
	free(pairs);
}

/* PbShapeOrder: equal for the same polygon, antisymmetric otherwise. */
void
test_match_shape_order(void)
{
	PbBatch		b;
	uint32_t	s[4];

	PbBatchInit(&b, &PbMallocAllocator);
	s[0] = DecodeWkt(&b, "POLYGON((0 0,4 0,4 4,0 4,0 0))", 0);
	s[1] = DecodeWkt(&b, "POLYGON((0 0,4 0,4 4,0 4,0 0))", 1);
	s[2] = DecodeWkt(&b, "POLYGON((0 0,4 0,4 4,2 4,0 4,0 0))", 0);
	s[3] = DecodeWkt(&b, "POLYGON((0 0,4 0,4 4,0 4.5,0 0))", 0);
	CHECK_INT(PbShapeOrder(&b, s[0], s[1]), 0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			if (i != j && !(i < 2 && j < 2))
			{
				CHECK(PbShapeOrder(&b, s[i], s[j]) != 0);
				CHECK_INT(PbShapeOrder(&b, s[i], s[j]), -PbShapeOrder(&b, s[j], s[i]));
			}
	PbBatchFree(&b);
}
