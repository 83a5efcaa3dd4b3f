/*
 * accum.c: exact, order-independent sums and the cross-comparison totals.
 */
#include <math.h>
#include <string.h>

#include "accum.h"

#define EXACT_EMIN (-1152)		/* weight of limb 0: below the smallest subnormal */

/* Start an exact sum at zero. */
void
PbExactSumInit(PbExactSum *s)
{
	memset(s, 0, sizeof(*s));
}

/* Propagate carries so limbs 0..n-2 hold 32-bit digits; keeps the value. */
void
PbExactSumNormalize(PbExactSum *s)
{
	for (int i = 0; i + 1 < PB_EXACT_LIMBS; i++)
	{
		int64_t		carry = s->limb[i] >> 32;	/* floor division by 2^32 */

		s->limb[i] -= carry * ((int64_t) 1 << 32);
		s->limb[i + 1] += carry;
	}
	s->adds = 0;
}

/* Add a finite double exactly (non-finite values are the caller's bug). */
void
PbExactSumAdd(PbExactSum *s, double v)
{
	int			e;
	double		frac;
	int64_t		m;
	int			shift;
	unsigned __int128 big;
	int			neg;

	if (v == 0.0 || !isfinite(v))
		return;
	/* v = frac * 2^e with 0.5 <= |frac| < 1; m = frac * 2^53 is exact */
	frac = frexp(v, &e);
	m = (int64_t) ldexp(frac, 53);
	e -= 53;
	neg = m < 0;
	if (neg)
		m = -m;
	shift = e - EXACT_EMIN;		/* >= 26 even for subnormals */
	big = (unsigned __int128) m << (shift & 31);
	for (int k = 0; k < 3; k++)
	{
		int64_t		digit = (int64_t) (uint32_t) (big >> (32 * k));

		s->limb[(shift >> 5) + k] += neg ? -digit : digit;
	}
	if (++s->adds >= (1u << 30))
		PbExactSumNormalize(s);
}

/* Add another exact sum into s. */
void
PbExactSumMerge(PbExactSum *s, const PbExactSum *other)
{
	PbExactSum	o = *other;

	PbExactSumNormalize(s);
	PbExactSumNormalize(&o);
	for (int i = 0; i < PB_EXACT_LIMBS; i++)
		s->limb[i] += o.limb[i];
	PbExactSumNormalize(s);
}

/*
 * The sum as a double (a deterministic function of the exact value).
 * Normalized limbs below the top are non-negative digits, so a negative
 * total has a negative top limb: sum the digits of its magnitude instead
 * (otherwise -1 would be ldexp(-1, 1056) + 33 digits near 2^1056, i.e.
 * -inf + inf = NaN).
 */
double
PbExactSumValue(const PbExactSum *s)
{
	PbExactSum	n = *s;
	double		v = 0.0;
	int			neg;

	PbExactSumNormalize(&n);
	neg = n.limb[PB_EXACT_LIMBS - 1] < 0;
	if (neg)
	{
		for (int i = 0; i < PB_EXACT_LIMBS; i++)
			n.limb[i] = -n.limb[i];
		PbExactSumNormalize(&n);
	}
	for (int i = PB_EXACT_LIMBS - 1; i >= 0; i--)
		if (n.limb[i] != 0)
			v += ldexp((double) n.limb[i], 32 * i + EXACT_EMIN);
	return neg ? -v : v;
}

/*
 * The intersection area a pair's ratios use: at most the smaller polygon
 * area, as p ∩ q lies inside both, so a Jaccard or Dice index never tops 1
 * (nor a union falls below either area) when the computed intersection
 * and the ST_Area values round apart, or when an invalid polygon's
 * even-odd area exceeds its ST_Area (0 when that area is negative: holes
 * larger than their shell).
 */
double
PbPairIntersection(double area_p, double area_q, double inter)
{
	double		smaller = fmax(fmin(area_p, area_q), 0.0);

	return inter > smaller ? smaller : inter;
}

/* Start empty comparison totals. */
void
PbCompareInit(PbCompareAcc *acc)
{
	acc->pairs = acc->intersecting = 0;
	PbExactSumInit(&acc->inter);
	PbExactSumInit(&acc->uni);
	PbExactSumInit(&acc->ratio);
	PbExactSumInit(&acc->dice);
}

/*
 * Fold one pair in: its polygon areas (ST_Area) and intersection area
 * (capped by PbPairIntersection).  The union is |p| + |q| - |p∩q|, as in
 * the paper's Fig. 1(b) query.
 */
void
PbCompareAdd(PbCompareAcc *acc, double area_p, double area_q, double inter)
{
	double		uni;

	inter = PbPairIntersection(area_p, area_q, inter);
	uni = area_p + area_q - inter;

	acc->pairs++;
	if (!(inter > 0.0 && uni > 0.0))
		return;
	acc->intersecting++;
	PbExactSumAdd(&acc->inter, inter);
	PbExactSumAdd(&acc->uni, uni);
	PbExactSumAdd(&acc->ratio, inter / uni);
	PbExactSumAdd(&acc->dice, 2.0 * inter / (area_p + area_q));
}

/* Add the totals of other into acc. */
void
PbCompareMerge(PbCompareAcc *acc, const PbCompareAcc *other)
{
	acc->pairs += other->pairs;
	acc->intersecting += other->intersecting;
	PbExactSumMerge(&acc->inter, &other->inter);
	PbExactSumMerge(&acc->uni, &other->uni);
	PbExactSumMerge(&acc->ratio, &other->ratio);
	PbExactSumMerge(&acc->dice, &other->dice);
}

/* Derive the reported figures from the totals. */
void
PbCompareResultOf(const PbCompareAcc *acc, PbCompareResult *out)
{
	double		n = (double) acc->intersecting;

	out->pairs = acc->pairs;
	out->intersecting = acc->intersecting;
	out->intersection_area = PbExactSumValue(&acc->inter);
	out->union_area = PbExactSumValue(&acc->uni);
	out->jaccard_mean = n > 0 ? PbExactSumValue(&acc->ratio) / n : NAN;
	out->dice_mean = n > 0 ? PbExactSumValue(&acc->dice) / n : NAN;
	out->jaccard_total = n > 0 ? out->intersection_area / out->union_area : NAN;
}
