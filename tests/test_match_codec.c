/*
 * test_match_codec.c: the instance metrics' parts (PbMatchPartsOf,
 * match_codec.c) add up over independent matchings to what one matching
 * over all of them gives, bit for bit, round-trip through their bytes,
 * and malformed bytes are refused.
 */
#include <math.h>
#include <string.h>

#include "../src/core/geom/match_codec.h"
#include "harness.h"

#define MAX_OBJ 96
#define MAX_PAIRS 1024

/* Objects' areas and overlapping pairs of one or several matchings. */
typedef struct Objs
{
	uint32_t	nt,
				np;
	double		at[MAX_OBJ],
				ap[MAX_OBJ];
	PbMatchPair pairs[MAX_PAIRS];
	size_t		n;
} Objs;

/*
 * Append to x a random instance of nt true and np predicted objects whose
 * pairs are among themselves only: areas over a few magnitudes, many
 * intersections near their objects' areas (so thresholds matter).
 */
static void
AddRandom(Objs *x, Rng *r, uint32_t nt, uint32_t np)
{
	uint32_t	t0 = x->nt,
				p0 = x->np;

	for (uint32_t t = 0; t < nt; t++)
		x->at[t0 + t] = ldexp(1.0 + RngDouble(r), (int) RngRange(r, 2, 12));
	for (uint32_t p = 0; p < np; p++)
		x->ap[p0 + p] = ldexp(1.0 + RngDouble(r), (int) RngRange(r, 2, 12));
	for (uint32_t t = 0; t < nt; t++)
		for (uint32_t p = 0; p < np; p++)
			if (RngRange(r, 0, 99) < 15 && x->n < MAX_PAIRS)
				x->pairs[x->n++] = (PbMatchPair) {t0 + t, p0 + p,
				fmin(x->at[t0 + t], x->ap[p0 + p]) * (0.3 + 0.7 * RngDouble(r))};
	x->nt += nt;
	x->np += np;
}

/* PbMatchPartsOf over x at thr (PB_OK checked). */
static void
PartsOf(const Objs *x, double thr, PbMatchParts *out)
{
	PbMatchInput in = {.n_true = x->nt, .n_pred = x->np, .area_true = x->at,
	.area_pred = x->ap, .pairs = x->pairs, .npairs = x->n, .threshold = thr};
	PbError		err;

	CHECK(PbMatchPartsOf(&in, &PbMallocAllocator, out, NULL, &err) == PB_OK);
}

/* Whether parts a and b give the same figures at thr, bit for bit. */
static int
SameStats(const PbMatchParts *a, const PbMatchParts *b, double thr)
{
	PbMatchStats x,
				y;

	PbMatchStatsOf(a, thr, &x);
	PbMatchStatsOf(b, thr, &y);
	return memcmp(&x, &y, sizeof(x)) == 0;
}

/*
 * Keys as independent matchings: the parts of each, added, give the
 * figures of one matching over all of them (PbMatch), bit for bit.
 */
void
test_match_parts_add_over_keys(void)
{
	Rng			r = {41};

	for (int round = 0; round < 40; round++)
	{
		Objs		all,
					one;
		PbMatchParts sum,
					part,
					whole;
		PbMatchStats direct,
					derived;
		double		thr = round % 4 == 0 ? 0.0 : 0.25 * (round % 4);
		int			keys = 1 + (int) RngRange(&r, 0, 4);
		PbMatchInput in;
		PbError		err;

		memset(&all, 0, sizeof(all));
		PbMatchPartsInit(&sum);
		for (int k = 0; k < keys; k++)
		{
			uint32_t	nt = (uint32_t) RngRange(&r, 0, 18),
						np = (uint32_t) RngRange(&r, 0, 18);
			Rng			r2 = r;

			memset(&one, 0, sizeof(one));
			AddRandom(&one, &r, nt, np);
			AddRandom(&all, &r2, nt, np);
			PartsOf(&one, thr, &part);
			PbMatchPartsAdd(&sum, &part);
		}
		PartsOf(&all, thr, &whole);
		in = (PbMatchInput) {.n_true = all.nt, .n_pred = all.np, .area_true = all.at,
		.area_pred = all.ap, .pairs = all.pairs, .npairs = all.n, .threshold = thr};
		CHECK(PbMatch(&in, &PbMallocAllocator, &direct, NULL, &err) == PB_OK);
		PbMatchStatsOf(&whole, thr, &derived);
		pb_test_context("round %d, %d keys", round, keys);
		CHECK(memcmp(&direct, &derived, sizeof(direct)) == 0);
		CHECK(SameStats(&sum, &whole, thr));
		CHECK_INT(sum.tp, whole.tp);
	}
}

/* Encode, decode: the same figures, every byte read, a few hundred bytes. */
void
test_match_parts_roundtrip(void)
{
	Rng			r = {9};
	uint8_t		buf[PB_MATCH_PARTS_CODE_MAX];

	for (uint32_t n = 0; n < 60; n += 1 + n / 3)
	{
		Objs		x;
		PbMatchParts p,
					back;
		size_t		len;

		memset(&x, 0, sizeof(x));
		AddRandom(&x, &r, n, n + 1);
		PartsOf(&x, 0.5, &p);
		len = PbMatchPartsEncode(&p, buf);
		pb_test_context("%u objects", n);
		CHECK(len <= PB_MATCH_PARTS_CODE_MAX);
		CHECK(len <= 400);
		CHECK_INT(PbMatchPartsDecode(buf, len, &back), len);
		CHECK_INT(back.n_true, p.n_true);
		CHECK_INT(back.true_overcovered, p.true_overcovered);
		CHECK(SameStats(&p, &back, 0.5));
	}
}

/* Truncated bytes and impossible counts or sums are refused. */
void
test_match_parts_rejects(void)
{
	Rng			r = {12};
	Objs		x;
	PbMatchParts p,
				back,
				bad;
	uint8_t		buf[PB_MATCH_PARTS_CODE_MAX],
				alt[PB_MATCH_PARTS_CODE_MAX];
	size_t		len;

	memset(&x, 0, sizeof(x));
	AddRandom(&x, &r, 20, 20);
	PartsOf(&x, 0.3, &p);
	CHECK(p.tp > 0);
	len = PbMatchPartsEncode(&p, buf);
	for (size_t cut = 0; cut < len; cut++)
		CHECK_INT(PbMatchPartsDecode(buf, cut, &back), 0);
	memcpy(alt, buf, len);
	PbPutI64(alt + 16, p.n_true + 1);	/* tp > n_true */
	CHECK_INT(PbMatchPartsDecode(alt, len, &back), 0);
	memcpy(alt, buf, len);
	PbPutI64(alt + 8, -1);		/* n_pred < 0 */
	CHECK_INT(PbMatchPartsDecode(alt, len, &back), 0);
	memcpy(alt, buf, len);
	PbPutI64(alt + 32, p.n_pred + 1);	/* more over-covered than objects */
	CHECK_INT(PbMatchPartsDecode(alt, len, &back), 0);

	bad = p;
	PbExactSumAdd(&bad.matched_iou, (double) p.tp);	/* IoUs above 1 */
	CHECK_INT(PbMatchPartsDecode(alt, PbMatchPartsEncode(&bad, alt), &back), 0);
	bad = p;
	PbExactSumAdd(&bad.aji_inter, PbExactSumValue(&p.aji_union));	/* C > U */
	CHECK_INT(PbMatchPartsDecode(alt, PbMatchPartsEncode(&bad, alt), &back), 0);
	bad = p;
	PbExactSumAdd(&bad.dice_inter, -2.0 * PbExactSumValue(&p.dice_inter) - 1.0);
	CHECK_INT(PbMatchPartsDecode(alt, PbMatchPartsEncode(&bad, alt), &back), 0);
	PbMatchPartsInit(&bad);
	PbExactSumAdd(&bad.area_pred, 5.0);	/* areas without objects */
	CHECK_INT(PbMatchPartsDecode(alt, PbMatchPartsEncode(&bad, alt), &back), 0);
	PbMatchPartsInit(&bad);
	CHECK(PbMatchPartsDecode(alt, PbMatchPartsEncode(&bad, alt), &back) > 0);
}
