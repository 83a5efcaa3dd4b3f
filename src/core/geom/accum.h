/*
 * pb_accum.h: order-independent accumulation of comparison results.
 *
 * Sums are exact (a fixed-point superaccumulator covering every finite
 * double), so the result does not depend on the order pairs arrive in:
 * serial, parallel workers and GPU batches give bit-identical answers.
 */
#ifndef PB_ACCUM_H
#define PB_ACCUM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define PB_EXACT_LIMBS 70

/* Exact sum of doubles: value = sum limb[i] * 2^(32 i - 1152). */
typedef struct PbExactSum
{
	int64_t		limb[PB_EXACT_LIMBS];
	uint32_t	adds;			/* additions since the last normalization */
} PbExactSum;

extern void PbExactSumInit(PbExactSum *s);
extern void PbExactSumAdd(PbExactSum *s, double v);
extern void PbExactSumMerge(PbExactSum *s, const PbExactSum *other);
extern void PbExactSumNormalize(PbExactSum *s);
extern double PbExactSumValue(const PbExactSum *s);

/* Running totals of a cross-comparison. */
typedef struct PbCompareAcc
{
	int64_t		pairs;			/* pairs seen */
	int64_t		intersecting;	/* pairs with |p∩q| > 0 (and |p∪q| > 0) */
	PbExactSum	inter;			/* sum |p∩q| */
	PbExactSum	uni;			/* sum |p∪q| over intersecting pairs */
	PbExactSum	ratio;			/* sum |p∩q|/|p∪q| over intersecting pairs */
	PbExactSum	dice;			/* sum 2|p∩q|/(|p|+|q|) over intersecting pairs */
} PbCompareAcc;

/* The figures users report, derived from a PbCompareAcc. */
typedef struct PbCompareResult
{
	int64_t		pairs;
	int64_t		intersecting;
	double		jaccard_mean;	/* J': NaN when no pair intersects */
	double		jaccard_total;	/* sum |∩| / sum |∪|: NaN likewise */
	double		dice_mean;		/* NaN likewise */
	double		intersection_area;
	double		union_area;
} PbCompareResult;

extern double PbPairIntersection(double area_p, double area_q, double inter);
extern void PbCompareInit(PbCompareAcc *acc);
extern void PbCompareAdd(PbCompareAcc *acc, double area_p, double area_q,
						 double inter);
extern void PbCompareMerge(PbCompareAcc *acc, const PbCompareAcc *other);
extern void PbCompareResultOf(const PbCompareAcc *acc, PbCompareResult *out);

#ifdef __cplusplus
}
#endif

#endif							/* PB_ACCUM_H */
