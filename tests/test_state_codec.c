/*
 * test_state_codec.c: the partial-state bytes (state_codec.c) round-trip
 * exactly, stay small, reject every malformed input, and key ranges merge
 * and clash as the keyed comparison needs.
 */
#include <math.h>
#include <string.h>

#include "../src/core/geom/pb_geom.h"
#include "harness.h"

/* Totals of n random pairs: areas over many magnitudes, some disjoint. */
static void
RandomAcc(Rng *r, int n, PbCompareAcc *acc)
{
	PbCompareInit(acc);
	for (int i = 0; i < n; i++)
	{
		double		a = ldexp(1.0 + RngDouble(r), (int) RngRange(r, -20, 40)),
					b = ldexp(1.0 + RngDouble(r), (int) RngRange(r, -20, 40)),
					inter = RngRange(r, 0, 3) == 0 ? 0.0 : fmin(a, b) * RngDouble(r);

		PbCompareAdd(acc, a, b, inter);
	}
}

/* Whether two totals give the same figures, bit for bit. */
static int
SameResult(const PbCompareAcc *x, const PbCompareAcc *y)
{
	PbCompareResult a,
				b;

	PbCompareResultOf(x, &a);
	PbCompareResultOf(y, &b);
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* Encode, decode: the same figures, every byte read, and few bytes. */
void
test_state_codec_roundtrip(void)
{
	Rng			r = {17};
	uint8_t		buf[PB_ACC_CODE_MAX];

	for (int n = 0; n < 200; n += 1 + n / 4)
	{
		PbCompareAcc acc,
					back;
		size_t		len;

		RandomAcc(&r, n, &acc);
		len = PbCompareAccEncode(&acc, buf);
		pb_test_context("%d pairs", n);
		CHECK(len <= PB_ACC_CODE_MAX);
		CHECK(len <= 400);		/* a few limbs a sum, not 70 */
		CHECK_INT(PbCompareAccDecode(buf, len, &back), len);
		CHECK_INT(back.pairs, acc.pairs);
		CHECK_INT(back.intersecting, acc.intersecting);
		CHECK(SameResult(&acc, &back));
	}
}

/*
 * Decoded halves merged equal the whole summed in one state: what the
 * coordinator's combine computes from the workers' partials.
 */
void
test_state_codec_partials_merge(void)
{
	Rng			r = {5},
				r2;
	PbCompareAcc whole,
				parts[3],
				merged;
	uint8_t		buf[PB_ACC_CODE_MAX];

	r2 = r;
	RandomAcc(&r, 300, &whole);
	PbCompareInit(&merged);
	for (int k = 0; k < 3; k++)
	{
		PbCompareAcc back;

		RandomAcc(&r2, 100, &parts[k]);
		CHECK(PbCompareAccDecode(buf, PbCompareAccEncode(&parts[k], buf), &back) > 0);
		PbCompareMerge(&merged, &back);
	}
	CHECK(SameResult(&whole, &merged));
}

/* A negative sum (top limb negative) survives; zero totals are 24 bytes. */
void
test_state_codec_negative_and_zero(void)
{
	PbCompareAcc acc,
				back;
	uint8_t		buf[PB_ACC_CODE_MAX];

	PbCompareInit(&acc);
	CHECK_INT(PbCompareAccEncode(&acc, buf), 16 + 4 * 2);
	PbExactSumAdd(&acc.inter, -3.25);
	PbExactSumAdd(&acc.inter, 1e-300);
	CHECK(PbCompareAccDecode(buf, PbCompareAccEncode(&acc, buf), &back) > 0);
	CHECK(PbExactSumValue(&back.inter) == PbExactSumValue(&acc.inter));
	CHECK(PbExactSumValue(&back.inter) == -3.25);
}

/* Truncated, out-of-range and non-normalized bytes are refused. */
void
test_state_codec_rejects(void)
{
	Rng			r = {3};
	PbCompareAcc acc,
				back;
	uint8_t		buf[PB_ACC_CODE_MAX],
				bad[PB_ACC_CODE_MAX];
	size_t		len;

	RandomAcc(&r, 50, &acc);
	len = PbCompareAccEncode(&acc, buf);
	for (size_t cut = 0; cut < len; cut++)
		CHECK_INT(PbCompareAccDecode(buf, cut, &back), 0);
	memcpy(bad, buf, len);
	PbPutI64(bad + 8, acc.pairs + 1);	/* intersecting > pairs */
	CHECK_INT(PbCompareAccDecode(bad, len, &back), 0);
	memcpy(bad, buf, len);
	PbPutI64(bad, -1);
	CHECK_INT(PbCompareAccDecode(bad, len, &back), 0);
	memcpy(bad, buf, len);
	bad[16] = 69;				/* first limb 69 with several limbs: past the top */
	CHECK_INT(PbCompareAccDecode(bad, len, &back), 0);
	memcpy(bad, buf, len);
	PbPutI64(bad + 18, (int64_t) 1 << 32);	/* a digit that is not normalized */
	CHECK_INT(PbCompareAccDecode(bad, len, &back), 0);
}

/* Keys become the fewest ranges; merging joins touching ranges. */
void
test_key_ranges_build_and_merge(void)
{
	int64_t		keys[] = {7, 3, 4, 5, INT64_MAX, -2, 9, 8, INT64_MIN};
	PbKeyRange	r[9],
				other[2] = {{-1, 2}, {10, 10}},
				out[11];
	uint32_t	n = PbKeyRangesOf(keys, 9, r),
				m = 0;
	int64_t		clash = 0;

	CHECK_INT(n, 5);
	CHECK(r[0].lo == INT64_MIN && r[0].hi == INT64_MIN);
	CHECK(r[1].lo == -2 && r[1].hi == -2);
	CHECK(r[2].lo == 3 && r[2].hi == 5);
	CHECK(r[3].lo == 7 && r[3].hi == 9);
	CHECK(r[4].lo == INT64_MAX && r[4].hi == INT64_MAX);
	CHECK_INT(PbKeyRangesMerge(r, n, other, 2, out, &m, &clash), 0);
	/* -2 and -1..2 touch, so do 3..5; 7..9 and 10 touch */
	CHECK_INT(m, 4);
	CHECK(out[1].lo == -2 && out[1].hi == 5);
	CHECK(out[2].lo == 7 && out[2].hi == 10);
}

/* Ranges that share a key clash at the smallest shared key. */
void
test_key_ranges_clash(void)
{
	PbKeyRange	a[2] = {{0, 4}, {20, 30}},
				b[2] = {{5, 19}, {25, 40}},
				out[4];
	uint32_t	m = 0;
	int64_t		clash = 0;

	CHECK_INT(PbKeyRangesMerge(a, 2, b, 2, out, &m, &clash), -1);
	CHECK_INT(clash, 25);
	CHECK_INT(PbKeyRangesMerge(a, 1, b, 1, out, &m, &clash), 0);
	CHECK_INT(m, 1);
	CHECK(out[0].lo == 0 && out[0].hi == 19);
}

/* Ranges round-trip; unsorted, overlapping or truncated bytes are refused. */
void
test_key_ranges_codec(void)
{
	PbKeyRange	r[3] = {{-5, -1}, {2, 2}, {100, 200}},
				back[3];
	uint8_t		buf[4 + 3 * 16];
	uint32_t	n = 0;
	size_t		len = PbKeyRangesEncode(r, 3, buf);

	CHECK_INT(len, 52);
	CHECK_INT(PbKeyRangesDecode(buf, len, back, 3, &n), len);
	CHECK_INT(n, 3);
	CHECK(memcmp(r, back, sizeof(r)) == 0);
	CHECK_INT(PbKeyRangesDecode(buf, len - 1, back, 3, &n), 0);
	CHECK_INT(PbKeyRangesDecode(buf, len, back, 2, &n), 0);
	PbPutI64(buf + 4 + 16, 0);	/* second range starts touching the first */
	CHECK_INT(PbKeyRangesDecode(buf, len, back, 3, &n), 0);
	PbPutI64(buf + 4 + 16, 3);
	PbPutI64(buf + 12 + 16, 2);	/* lo > hi */
	CHECK_INT(PbKeyRangesDecode(buf, len, back, 3, &n), 0);
}
