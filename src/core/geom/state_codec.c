/*
 * state_codec.c: encode and decode the comparison aggregates' partial
 * states (state_codec.h says why and how).
 */
#include <stdlib.h>
#include <string.h>

#include "state_codec.h"

/* Write one exact sum as [first nonzero limb][limb count][limbs]. */
static size_t
EncodeSum(const PbExactSum *sum, uint8_t *out)
{
	PbExactSum	s = *sum;
	int			lo = 0,
				hi = PB_EXACT_LIMBS - 1;
	size_t		k = 2;

	PbExactSumNormalize(&s);
	while (lo < PB_EXACT_LIMBS && s.limb[lo] == 0)
		lo++;
	while (hi >= lo && s.limb[hi] == 0)
		hi--;
	if (lo == PB_EXACT_LIMBS)
	{
		lo = 0;					/* zero: no limbs */
		hi = -1;
	}
	out[0] = (uint8_t) lo;
	out[1] = (uint8_t) (hi - lo + 1);
	for (int i = lo; i <= hi; i++, k += 8)
		PbPutI64(out + k, s.limb[i]);
	return k;
}

/*
 * Read one exact sum; 0 when the bytes are not one: limbs out of range,
 * or a digit below the top limb outside [0, 2^32) (not normalized).
 */
static size_t
DecodeSum(const uint8_t *in, size_t len, PbExactSum *s)
{
	unsigned	lo,
				n;

	PbExactSumInit(s);
	if (len < 2)
		return 0;
	lo = in[0];
	n = in[1];
	if (lo + n > PB_EXACT_LIMBS || len < 2 + 8 * (size_t) n)
		return 0;
	for (unsigned i = 0; i < n; i++)
	{
		int64_t		v = PbGetI64(in + 2 + 8 * i);

		if (lo + i + 1 < PB_EXACT_LIMBS && (v < 0 || v >= ((int64_t) 1 << 32)))
			return 0;
		s->limb[lo + i] = v;
	}
	return 2 + 8 * (size_t) n;
}

/* Write acc's totals (at most PB_ACC_CODE_MAX bytes); the length. */
size_t
PbCompareAccEncode(const PbCompareAcc *acc, uint8_t *out)
{
	size_t		k = 16;

	PbPutI64(out, acc->pairs);
	PbPutI64(out + 8, acc->intersecting);
	k += EncodeSum(&acc->inter, out + k);
	k += EncodeSum(&acc->uni, out + k);
	k += EncodeSum(&acc->ratio, out + k);
	k += EncodeSum(&acc->dice, out + k);
	return k;
}

/*
 * Read totals written by PbCompareAccEncode from the first len bytes of
 * in; the bytes read, or 0 when they are not such totals.
 */
size_t
PbCompareAccDecode(const uint8_t *in, size_t len, PbCompareAcc *acc)
{
	PbExactSum *sums[4] = {&acc->inter, &acc->uni, &acc->ratio, &acc->dice};
	size_t		k = 16;

	PbCompareInit(acc);
	if (len < 16)
		return 0;
	acc->pairs = PbGetI64(in);
	acc->intersecting = PbGetI64(in + 8);
	if (acc->pairs < 0 || acc->intersecting < 0 || acc->intersecting > acc->pairs)
		return 0;
	for (int i = 0; i < 4; i++)
	{
		size_t		used = DecodeSum(in + k, len - k, sums[i]);

		if (used == 0)
			return 0;
		k += used;
	}
	return k;
}

/* qsort order of int64 keys. */
static int
KeyOrder(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/*
 * Sort keys[0..n) in place and write them to out as the fewest ranges
 * (consecutive keys join one range); out holds n ranges.  The count.
 */
uint32_t
PbKeyRangesOf(int64_t *keys, uint32_t n, PbKeyRange *out)
{
	uint32_t	m = 0;

	qsort(keys, n, sizeof(int64_t), KeyOrder);
	for (uint32_t i = 0; i < n; i++)
	{
		if (m > 0 && (keys[i] == out[m - 1].hi ||
					  (out[m - 1].hi < INT64_MAX && keys[i] == out[m - 1].hi + 1)))
			out[m - 1].hi = keys[i];
		else
			out[m++] = (PbKeyRange) {keys[i], keys[i]};
	}
	return m;
}

/*
 * Merge two sorted, disjoint range lists into out (room for na + nb),
 * joining ranges that touch.  Returns -1 with *clash set to the smallest
 * key both lists hold when they share one (their partial states compared
 * polygons of one key apart), else 0.
 */
int
PbKeyRangesMerge(const PbKeyRange *a, uint32_t na, const PbKeyRange *b, uint32_t nb,
				 PbKeyRange *out, uint32_t *nout, int64_t *clash)
{
	uint32_t	i = 0,
				j = 0,
				m = 0;

	while (i < na || j < nb)
	{
		PbKeyRange	r;

		if (i < na && j < nb && a[i].lo <= b[j].hi && b[j].lo <= a[i].hi)
		{
			*clash = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
			return -1;
		}
		r = (j == nb || (i < na && a[i].lo < b[j].lo)) ? a[i++] : b[j++];
		if (m > 0 && out[m - 1].hi < INT64_MAX && r.lo == out[m - 1].hi + 1)
			out[m - 1].hi = r.hi;
		else
			out[m++] = r;
	}
	*nout = m;
	return 0;
}

/* Write n ranges as [count][lo, hi]...; the length (4 + 16 n). */
size_t
PbKeyRangesEncode(const PbKeyRange *r, uint32_t n, uint8_t *out)
{
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t) (n >> (8 * i));
	for (uint32_t k = 0; k < n; k++)
	{
		PbPutI64(out + 4 + 16 * (size_t) k, r[k].lo);
		PbPutI64(out + 12 + 16 * (size_t) k, r[k].hi);
	}
	return 4 + 16 * (size_t) n;
}

/*
 * Read ranges written by PbKeyRangesEncode (at most cap of them) into out;
 * the bytes read, or 0 when they are not sorted, disjoint, non-touching
 * ranges within len bytes.  With out NULL, only *n is read (cap ignored).
 */
size_t
PbKeyRangesDecode(const uint8_t *in, size_t len, PbKeyRange *out, uint32_t cap, uint32_t *n)
{
	uint32_t	count = 0;

	if (len < 4)
		return 0;
	for (int i = 0; i < 4; i++)
		count |= (uint32_t) in[i] << (8 * i);
	if ((len - 4) / 16 < count)
		return 0;
	*n = count;
	if (out == NULL)
		return 4 + 16 * (size_t) count;
	if (count > cap)
		return 0;
	for (uint32_t k = 0; k < count; k++)
	{
		out[k].lo = PbGetI64(in + 4 + 16 * (size_t) k);
		out[k].hi = PbGetI64(in + 12 + 16 * (size_t) k);
		if (out[k].lo > out[k].hi ||
			(k > 0 && (out[k - 1].hi == INT64_MAX || out[k].lo <= out[k - 1].hi + 1)))
			return 0;
	}
	return 4 + 16 * (size_t) count;
}
