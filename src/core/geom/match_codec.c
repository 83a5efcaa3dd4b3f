/*
 * match_codec.c: encode and decode the instance metrics' parts
 * (match_codec.h says why and how).
 */
#include <stddef.h>

#include "match_codec.h"

/* Where the parts' exact sums lie, in the order they are written. */
static const size_t sum_at[8] = {
	offsetof(PbMatchParts, matched_iou), offsetof(PbMatchParts, aji_inter),
	offsetof(PbMatchParts, aji_union), offsetof(PbMatchParts, ajip_inter),
	offsetof(PbMatchParts, ajip_union), offsetof(PbMatchParts, dice_inter),
	offsetof(PbMatchParts, area_true), offsetof(PbMatchParts, area_pred)
};

/* The value of exact sum i of p. */
static double
SumValue(const PbMatchParts *p, int i)
{
	return PbExactSumValue((const PbExactSum *) ((const char *) p + sum_at[i]));
}

/* Write p's counts and sums (at most PB_MATCH_PARTS_CODE_MAX bytes); the length. */
size_t
PbMatchPartsEncode(const PbMatchParts *p, uint8_t *out)
{
	size_t		k = 40;

	PbPutI64(out, p->n_true);
	PbPutI64(out + 8, p->n_pred);
	PbPutI64(out + 16, p->tp);
	PbPutI64(out + 24, p->true_overcovered);
	PbPutI64(out + 32, p->pred_overcovered);
	for (int i = 0; i < 8; i++)
		k += PbExactSumEncode((const PbExactSum *) ((const char *) p + sum_at[i]), out + k);
	return k;
}

/*
 * Whether decoded parts are possible: counts >= 0, tp and the
 * over-covered objects within their sets, sums >= 0 (so not NaN), the
 * matched IoUs at most 1 each, each AJI's C within its U, and no areas
 * for a set without objects.
 */
static int
Possible(const PbMatchParts *p)
{
	if (p->n_true < 0 || p->n_pred < 0 || p->tp < 0 || p->tp > p->n_true || p->tp > p->n_pred ||
		p->true_overcovered < 0 || p->true_overcovered > p->n_true ||
		p->pred_overcovered < 0 || p->pred_overcovered > p->n_pred)
		return 0;
	for (int i = 0; i < 8; i++)
		if (!(SumValue(p, i) >= 0.0))
			return 0;
	return PbExactSumValue(&p->matched_iou) <= (double) p->tp &&
		PbExactSumValue(&p->aji_inter) <= PbExactSumValue(&p->aji_union) &&
		PbExactSumValue(&p->ajip_inter) <= PbExactSumValue(&p->ajip_union) &&
		(p->n_true > 0 || PbExactSumValue(&p->area_true) == 0.0) &&
		(p->n_pred > 0 || PbExactSumValue(&p->area_pred) == 0.0);
}

/*
 * Read parts written by PbMatchPartsEncode from the first len bytes of
 * in; the bytes read, or 0 when they are not possible parts.
 */
size_t
PbMatchPartsDecode(const uint8_t *in, size_t len, PbMatchParts *p)
{
	size_t		k = 40;

	PbMatchPartsInit(p);
	if (len < 40)
		return 0;
	p->n_true = PbGetI64(in);
	p->n_pred = PbGetI64(in + 8);
	p->tp = PbGetI64(in + 16);
	p->true_overcovered = PbGetI64(in + 24);
	p->pred_overcovered = PbGetI64(in + 32);
	for (int i = 0; i < 8; i++)
	{
		size_t		used = PbExactSumDecode(in + k, len - k,
											(PbExactSum *) ((char *) p + sum_at[i]));

		if (used == 0)
			return 0;
		k += used;
	}
	return Possible(p) ? k : 0;
}
