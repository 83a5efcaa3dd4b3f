/*
 * test_accum.c: exact sums (PbExactSum*) and the comparison totals
 * (PbCompare*), against hand values, integer truths and themselves
 * under reordering and merging.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/geom/accum.h"
#include "../src/core/geom/pb_geom.h"
#include "harness.h"

/* Sum of n doubles in the given order. */
static double
SumOf(const double *v, int n)
{
	PbExactSum	s;

	PbExactSumInit(&s);
	for (int i = 0; i < n; i++)
		PbExactSumAdd(&s, v[i]);
	return PbExactSumValue(&s);
}

/* Distance between two doubles in units in the last place of the truth. */
static double
Ulps(double got, double truth)
{
	double		ulp = nextafter(fabs(truth), INFINITY) - fabs(truth);

	return fabs(got - truth) / ulp;
}

/* Small sums: 0.1 ten times within 1 ulp of the rounded exact value; cancellation is exact. */
void
test_exact_small_known(void)
{
	double		tenth[10],
				v;

	for (int i = 0; i < 10; i++)
		tenth[i] = 0.1;
	/* 10 * 0.1 (as a double) = 1.0000000000000000555..., which rounds to 1 */
	v = SumOf(tenth, 10);
	CHECK(Ulps(v, 1.0) <= 1.0);
	CHECK_DBL_EQ(SumOf((double[]) {0}, 0), 0.0);
	CHECK_DBL_EQ(SumOf((double[]) {1e100, 1, -1e100}, 3), 1.0);
	CHECK_DBL_EQ(SumOf((double[]) {1, 1e100, 1, -1e100}, 4), 2.0);
	CHECK_DBL_EQ(SumOf((double[]) {0.5, 0.25, 0.125}, 3), 0.875);
	/* 2^53 + 1 + 1: naive double addition loses both ones */
	CHECK_DBL_EQ(SumOf((double[]) {9007199254740992.0, 1, 1}, 3), 9007199254740994.0);
	CHECK_DBL_EQ(SumOf((double[]) {1, ldexp(1, -60), -1}, 3), ldexp(1, -60));
	CHECK_DBL_EQ(SumOf((double[]) {1e308, 1e-308, -1e308}, 3), 1e-308);
	CHECK_DBL_EQ(SumOf((double[]) {0.0, -0.0, 0.0}, 3), 0.0);
}

/* Negative totals come out negative and exact (integers, halves, cancellation). */
void
test_exact_negative(void)
{
	Rng			rng = {5};

	CHECK_DBL_EQ(SumOf((double[]) {-1.5}, 1), -1.5);
	CHECK_DBL_EQ(SumOf((double[]) {3, -5}, 2), -2.0);
	CHECK_DBL_EQ(SumOf((double[]) {-1e100, -1, 1e100}, 3), -1.0);
	CHECK_DBL_EQ(SumOf((double[]) {-0.1}, 1), -0.1);
	CHECK_DBL_EQ(SumOf((double[]) {-1e300, 1e-300}, 2), -1e300);
	CHECK_DBL_EQ(SumOf((double[]) {-DBL_MIN}, 1), -DBL_MIN);
	CHECK_DBL_EQ(SumOf((double[]) {-DBL_MAX}, 1), -DBL_MAX);
	/* random integers of both signs: the int64 sum is the truth */
	for (int iter = 0; iter < 200; iter++)
	{
		double		v[300];
		int64_t		truth = 0;
		int			n = (int) RngRange(&rng, 1, 300);

		for (int i = 0; i < n; i++)
		{
			int64_t		k = RngRange(&rng, -((int64_t) 1 << 40), (int64_t) 1 << 40);

			v[i] = (double) k;
			truth += k;
		}
		pb_test_context("iter %d", iter);
		CHECK_DBL_EQ(SumOf(v, n), (double) truth);
	}
}

/* Subnormals add exactly, also against normal numbers. */
void
test_exact_subnormal(void)
{
	double		tmin = ldexp(1, -1074);

	CHECK_DBL_EQ(SumOf((double[]) {tmin, tmin, tmin}, 3), 3 * tmin);
	CHECK_DBL_EQ(SumOf((double[]) {DBL_MIN / 2, DBL_MIN / 2}, 2), DBL_MIN);
	CHECK_DBL_EQ(SumOf((double[]) {-tmin, 2 * tmin}, 2), tmin);
	CHECK_DBL_EQ(SumOf((double[]) {1, tmin, -1}, 3), tmin);
	CHECK_DBL_EQ(SumOf((double[]) {-tmin}, 1), -tmin);
	CHECK_DBL_EQ(SumOf((double[]) {DBL_MIN, -tmin}, 2), DBL_MIN - tmin);
	CHECK_DBL_EQ(SumOf((double[]) {-DBL_MIN, tmin, tmin}, 3), -DBL_MIN + 2 * tmin);
}

/* Totals beyond the double range: exact in between, infinite only at the end. */
void
test_exact_extremes(void)
{
	CHECK_DBL_EQ(SumOf((double[]) {DBL_MAX, DBL_MAX, -DBL_MAX}, 3), DBL_MAX);
	CHECK_DBL_EQ(SumOf((double[]) {-DBL_MAX, -DBL_MAX, DBL_MAX}, 3), -DBL_MAX);
	CHECK_DBL_EQ(SumOf((double[]) {DBL_MAX, DBL_MAX}, 2), INFINITY);
	CHECK_DBL_EQ(SumOf((double[]) {-DBL_MAX, -DBL_MAX}, 2), -INFINITY);
	CHECK_DBL_EQ(SumOf((double[]) {DBL_MAX, ldexp(1, -1074), -DBL_MAX}, 3), ldexp(1, -1074));
}

/* Random dyadic values of many scales and signs: within 1 ulp of the exact (int128) total. */
void
test_exact_vs_int128_truth(void)
{
	Rng			rng = {17};
	int			exact = 0;

	for (int iter = 0; iter < 300; iter++)
	{
		double		v[500];
		__int128	truth = 0;
		int			n = (int) RngRange(&rng, 1, 500);
		double		t;

		for (int i = 0; i < n; i++)
		{
			int64_t		k = RngRange(&rng, -((int64_t) 1 << 53) + 1, ((int64_t) 1 << 53) - 1);
			int			e = (int) RngRange(&rng, -60, 0);

			v[i] = ldexp((double) k, e);
			truth += (__int128) k * ((__int128) 1 << (e + 60));
		}
		t = ldexp((double) truth, -60);
		pb_test_context("iter %d", iter);
		CHECK(Ulps(SumOf(v, n), t) <= 1.0);
		exact += SumOf(v, n) == t;
	}
	CHECK(exact >= 250);			/* nearly always the correctly rounded value */
}

/* The normalized limbs and value of an exact sum. */
static void
Fingerprint(const PbExactSum *s, PbExactSum *norm, double *value)
{
	*norm = *s;
	PbExactSumNormalize(norm);
	norm->adds = 0;
	*value = PbExactSumValue(s);
}

/* Wildly different magnitudes, shuffled and split into merged partial sums: bit-identical results. */
void
test_exact_order_independent(void)
{
	enum
	{
		N = 3000
	};
	static double v[N];
	Rng			rng = {23};
	PbExactSum	ref,
				refn;
	double		refv;

	for (int i = 0; i < N; i++)
	{
		int			e = (int) RngRange(&rng, -1074, 1000);

		v[i] = ldexp(RngDouble(&rng) + 0.5, e) * (RngRange(&rng, 0, 1) ? 1 : -1);
		if (i % 10 == 0)
			v[i] = -v[i / 2];	/* some exact cancellation */
	}
	PbExactSumInit(&ref);
	for (int i = 0; i < N; i++)
		PbExactSumAdd(&ref, v[i]);
	Fingerprint(&ref, &refn, &refv);
	CHECK(isfinite(refv));
	for (int round = 0; round < 30; round++)
	{
		PbExactSum	part[7],
					total,
					totn;
		double		totv;

		/* shuffle */
		for (int i = N - 1; i > 0; i--)
		{
			int			j = (int) RngRange(&rng, 0, i);
			double		t = v[i];

			v[i] = v[j];
			v[j] = t;
		}
		for (int k = 0; k < 7; k++)
			PbExactSumInit(&part[k]);
		for (int i = 0; i < N; i++)
			PbExactSumAdd(&part[RngRange(&rng, 0, 6)], v[i]);
		/* merge in a random order, sometimes into a partial sum */
		PbExactSumInit(&total);
		for (int k = 0; k < 7; k++)
		{
			int			pick = (int) ((k + round) % 7);

			if (round & 1)
				PbExactSumMerge(&part[(pick + 1) % 7], &part[pick]), PbExactSumInit(&part[pick]);
			else
				PbExactSumMerge(&total, &part[pick]);
		}
		if (round & 1)
			for (int k = 0; k < 7; k++)
				PbExactSumMerge(&total, &part[k]);
		Fingerprint(&total, &totn, &totv);
		pb_test_context("round %d", round);
		CHECK(memcmp(&totv, &refv, sizeof(double)) == 0);
		CHECK(memcmp(totn.limb, refn.limb, sizeof(refn.limb)) == 0);
	}
	/* the value is faithful: the exact residual total - value is below one ulp */
	{
		PbExactSum	res = ref;

		PbExactSumAdd(&res, -refv);
		CHECK(fabs(PbExactSumValue(&res)) <= nextafter(fabs(refv), INFINITY) - fabs(refv));
	}
}

/* The periodic normalization (every 2^30 additions) keeps the value. */
void
test_exact_normalize_trigger(void)
{
	PbExactSum	s;

	PbExactSumInit(&s);
	for (int i = 0; i < 1000; i++)
		PbExactSumAdd(&s, 4294967295.0 * 4294967296.0);	/* big digits in every limb */
	s.adds = (1u << 30) - 2;
	PbExactSumAdd(&s, 1.0);
	PbExactSumAdd(&s, -0.5);	/* this one normalizes */
	CHECK_INT(s.adds, 0);
	PbExactSumAdd(&s, 0.25);
	PbExactSumAdd(&s, -1000.0 * 4294967295.0 * 4294967296.0);
	CHECK_DBL_EQ(PbExactSumValue(&s), 0.75);
}

/* Known pairs: counts, J' mean, total Jaccard, Dice, areas; zero intersections excluded. */
void
test_compare_known(void)
{
	PbCompareAcc acc;
	PbCompareResult r;

	PbCompareInit(&acc);
	PbCompareAdd(&acc, 4, 4, 2);	/* union 6, J 1/3, Dice 1/2 */
	PbCompareAdd(&acc, 1, 3, 1);	/* union 3, J 1/3, Dice 1/2 */
	PbCompareAdd(&acc, 2, 2, 0);	/* no intersection: counted as a pair only */
	PbCompareAdd(&acc, 0, 5, 0);
	PbCompareResultOf(&acc, &r);
	CHECK_INT(r.pairs, 4);
	CHECK_INT(r.intersecting, 2);
	CHECK_DBL_EQ(r.intersection_area, 3.0);
	CHECK_DBL_EQ(r.union_area, 9.0);
	CHECK_DBL_EQ(r.jaccard_mean, 1.0 / 3.0);
	CHECK_DBL_EQ(r.jaccard_total, 1.0 / 3.0);
	CHECK_DBL_EQ(r.dice_mean, 0.5);

	PbCompareInit(&acc);
	PbCompareAdd(&acc, 5, 5, 5);	/* identical: J = Dice = 1 */
	PbCompareAdd(&acc, 10, 30, 10);	/* contained: J = 1/3, Dice = 1/2 */
	PbCompareResultOf(&acc, &r);
	CHECK(Ulps(r.jaccard_mean, (1.0 + 1.0 / 3.0) / 2) <= 1.0);
	CHECK_DBL_EQ(r.jaccard_total, 15.0 / 35.0);
	CHECK_DBL_EQ(r.dice_mean, 0.75);
	CHECK_DBL_EQ(r.union_area, 35.0);
}

/* With no intersecting pair the ratios are NaN and the sums 0. */
void
test_compare_none_intersect(void)
{
	PbCompareAcc acc;
	PbCompareResult r;

	PbCompareInit(&acc);
	PbCompareResultOf(&acc, &r);
	CHECK_INT(r.pairs, 0);
	CHECK(isnan(r.jaccard_mean) && isnan(r.jaccard_total) && isnan(r.dice_mean));
	PbCompareAdd(&acc, 1, 1, 0);
	PbCompareAdd(&acc, 0, 0, 0);
	PbCompareResultOf(&acc, &r);
	CHECK_INT(r.pairs, 2);
	CHECK_INT(r.intersecting, 0);
	CHECK(isnan(r.jaccard_mean) && isnan(r.jaccard_total) && isnan(r.dice_mean));
	CHECK_DBL_EQ(r.intersection_area, 0.0);
	CHECK_DBL_EQ(r.union_area, 0.0);
}

/* Totals split over workers and merged (in any order, with empty ones) equal the sequential totals bit for bit. */
void
test_compare_merge_equals_sequential(void)
{
	Rng			rng = {31};
	PbCompareAcc seq,
				part[5],
				merged;
	PbCompareResult a,
				b;

	PbCompareInit(&seq);
	PbCompareInit(&merged);
	for (int k = 0; k < 5; k++)
		PbCompareInit(&part[k]);
	for (int i = 0; i < 5000; i++)
	{
		double		p = ldexp(RngDouble(&rng) + 0.01, (int) RngRange(&rng, -20, 40)),
					q = ldexp(RngDouble(&rng) + 0.01, (int) RngRange(&rng, -20, 40)),
					inter = RngRange(&rng, 0, 3) == 0 ? 0 : fmin(p, q) * RngDouble(&rng);

		PbCompareAdd(&seq, p, q, inter);
		PbCompareAdd(&part[RngRange(&rng, 0, 3)], p, q, inter);	/* part[4] stays empty */
	}
	PbCompareMerge(&merged, &part[2]);
	PbCompareMerge(&merged, &part[4]);
	PbCompareMerge(&part[0], &part[3]);
	PbCompareMerge(&merged, &part[1]);
	PbCompareMerge(&merged, &part[0]);
	PbCompareResultOf(&seq, &a);
	PbCompareResultOf(&merged, &b);
	CHECK_INT(a.pairs, 5000);
	CHECK_INT(b.pairs, a.pairs);
	CHECK_INT(b.intersecting, a.intersecting);
	CHECK(memcmp(&a.jaccard_mean, &b.jaccard_mean, sizeof(double)) == 0);
	CHECK(memcmp(&a.jaccard_total, &b.jaccard_total, sizeof(double)) == 0);
	CHECK(memcmp(&a.dice_mean, &b.dice_mean, sizeof(double)) == 0);
	CHECK(memcmp(&a.intersection_area, &b.intersection_area, sizeof(double)) == 0);
	CHECK(memcmp(&a.union_area, &b.union_area, sizeof(double)) == 0);
	CHECK(a.jaccard_mean > 0 && a.jaccard_mean < 1);
}
