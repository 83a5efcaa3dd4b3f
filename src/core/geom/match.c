/*
 * match.c: the instance metrics of two sets of objects (match.h) from
 * their areas and their overlapping pairs.
 *
 * Definitions, from their sources:
 *  - stardist.matching (Schmidt et al. 2018; stardist/matching.py):
 *    pairs with IoU >= thr are candidates; linear_sum_assignment takes a
 *    matching maximising first the number of candidates matched, then
 *    their total IoU; tp = that number, fp = n_pred - tp, fn = n_true -
 *    tp, precision = tp/(tp+fp), recall = tp/(tp+fn), accuracy =
 *    tp/(tp+fp+fn), f1 = 2tp/(2tp+fp+fn), mean_matched_score = sum/tp,
 *    mean_true_score = sum/n_true, panoptic_quality = sum/(tp + fp/2 +
 *    fn/2) with sum the matched pairs' IoU, 0 wherever the divisor is 0.
 *    Above 0.5 an object has at most one candidate (two with IoU > 0.5
 *    would need more than all of it), so the matching is forced; at and
 *    below 0.5 the components of the candidate graph are solved exactly
 *    (match_graph.c).  stardist's cost also counts the IoU of pairs below
 *    thr that its full assignment pairs up; that can only choose between
 *    matchings of equal cardinality, here never taken into account.
 *  - Kirillov et al. 2019 / HoVer-Net's get_pq: panoptic_quality = sq * dq
 *    with sq = sum/tp and dq = tp/(tp + fp/2 + fn/2).
 *  - AJI (Kumar et al. 2017; HoVer-Net's get_fast_aji): each true object
 *    g with its prediction p of maximum IoU, if any overlaps it (one
 *    prediction may serve several): C += |g∩p|, U += |g∪p|; then U += |g|
 *    for each true object without one and |p| for each prediction nobody
 *    took.  AJI = C/U.  HoVer-Net divides by |g∪p| + 1e-6, which among
 *    equal IoUs prefers the larger union; the same is done here, then the
 *    caller's order.
 *  - AJI+ (Graham et al. 2019; get_fast_aji_plus): the same sums over a
 *    one-to-one matching of maximum total IoU (linear_sum_assignment on
 *    -IoU, pairs of IoU 0 dropped).
 *  - dice_pixel (get_dice_1): 2|A∩B| / (|A| + |B|), A and B the unions
 *    of the sets.  With the objects of each set disjoint, |A| is the sum
 *    of their areas and |A∩B| the sum of the pairs' intersections, which
 *    is what is computed; the counts of over-covered objects show where
 *    that assumption fails.
 * Sums of areas and IoUs are exact (accum.h), so the result does not
 * depend on the order the pairs come in.  They are kept as the parts of
 * the figures (PbMatchParts), which add up exactly over independent
 * matchings: the keyed pb_match_stats sums them over its keys.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accum.h"
#include "match.h"

/* Relative slack of the over-cover test (rounding of a few additions). */
#define COVER_SLACK 1e-9

/* x / y, or 0 when y is 0 (stardist's _safe_divide, counts and areas). */
double
PbSafeDivide(double x, double y)
{
	return y != 0.0 ? x / y : 0.0;
}

/* Per pair: its capped intersection, union and IoU. */
typedef struct PairArea
{
	double	   *inter;
	double	   *uni;
	double	   *iou;
} PairArea;

/* Set err (when given) and return code. */
static PbStatus
Fail(PbError *err, PbStatus code, const char *msg)
{
	if (err)
	{
		err->code = code;
		snprintf(err->message, sizeof(err->message), "%s", msg);
	}
	return code;
}

/*
 * Whether prediction pair k is a better AJI partner for its true object
 * than pair best: larger IoU, then (HoVer-Net's +1e-6) larger union, then
 * earlier in the caller's order, then the smaller index.
 */
static int
BetterPartner(const PbMatchInput *in, const PairArea *pa, size_t k, size_t best)
{
	uint32_t	p = in->pairs[k].p,
				q = in->pairs[best].p;
	int			c;

	if (pa->iou[k] != pa->iou[best])
		return pa->iou[k] > pa->iou[best];
	if (pa->uni[k] != pa->uni[best])
		return pa->uni[k] > pa->uni[best];
	c = in->order ? in->order(in->order_ctx, 1, p, q) : 0;
	return c != 0 ? c < 0 : p < q;
}

/* Empty parts: no objects, every sum 0. */
void
PbMatchPartsInit(PbMatchParts *p)
{
	memset(p, 0, sizeof(*p));
	PbExactSumInit(&p->matched_iou);
	PbExactSumInit(&p->aji_inter);
	PbExactSumInit(&p->aji_union);
	PbExactSumInit(&p->ajip_inter);
	PbExactSumInit(&p->ajip_union);
	PbExactSumInit(&p->dice_inter);
	PbExactSumInit(&p->area_true);
	PbExactSumInit(&p->area_pred);
}

/* Add the counts and sums of p (another matching's) to into. */
void
PbMatchPartsAdd(PbMatchParts *into, const PbMatchParts *p)
{
	into->n_true += p->n_true;
	into->n_pred += p->n_pred;
	into->tp += p->tp;
	PbExactSumMerge(&into->matched_iou, &p->matched_iou);
	PbExactSumMerge(&into->aji_inter, &p->aji_inter);
	PbExactSumMerge(&into->aji_union, &p->aji_union);
	PbExactSumMerge(&into->ajip_inter, &p->ajip_inter);
	PbExactSumMerge(&into->ajip_union, &p->ajip_union);
	PbExactSumMerge(&into->dice_inter, &p->dice_inter);
	PbExactSumMerge(&into->area_true, &p->area_true);
	PbExactSumMerge(&into->area_pred, &p->area_pred);
	into->true_overcovered += p->true_overcovered;
	into->pred_overcovered += p->pred_overcovered;
}

/*
 * The figures (match.h's definitions) from the parts: stardist's from
 * the counts and the sum of matched IoUs, AJI's and AJI+'s C/U, pixel
 * Dice's 2|A∩B| / (|A| + |B|).
 */
void
PbMatchStatsOf(const PbMatchParts *parts, double threshold, PbMatchStats *out)
{
	int64_t		tp = parts->tp;
	double		sum = PbExactSumValue(&parts->matched_iou),
				fp,
				fn;

	memset(out, 0, sizeof(*out));
	out->threshold = threshold;
	out->n_true = parts->n_true;
	out->n_pred = parts->n_pred;
	out->tp = tp;
	out->fp = out->n_pred - tp;
	out->fn = out->n_true - tp;
	fp = (double) out->fp;
	fn = (double) out->fn;
	out->precision = PbSafeDivide((double) tp, tp + fp);
	out->recall = PbSafeDivide((double) tp, tp + fn);
	out->accuracy = PbSafeDivide((double) tp, tp + fp + fn);
	out->f1 = PbSafeDivide(2.0 * tp, 2.0 * tp + fp + fn);
	out->sum_matched = sum;
	out->mean_matched_score = PbSafeDivide(sum, (double) tp);
	out->mean_true_score = PbSafeDivide(sum, (double) out->n_true);
	out->panoptic_quality = PbSafeDivide(sum, tp + fp / 2.0 + fn / 2.0);
	out->sq = out->mean_matched_score;
	out->dq = PbSafeDivide((double) tp, tp + fp / 2.0 + fn / 2.0);
	out->aji = PbSafeDivide(PbExactSumValue(&parts->aji_inter),
							PbExactSumValue(&parts->aji_union));
	out->aji_plus = PbSafeDivide(PbExactSumValue(&parts->ajip_inter),
								 PbExactSumValue(&parts->ajip_union));
	out->dice_pixel = PbSafeDivide(2.0 * PbExactSumValue(&parts->dice_inter),
								   PbExactSumValue(&parts->area_true) +
								   PbExactSumValue(&parts->area_pred));
	out->true_overcovered = parts->true_overcovered;
	out->pred_overcovered = parts->pred_overcovered;
}

/*
 * Add AJI's C and U (c, u) from the chosen partners (partner[t]: a pair
 * index, or SIZE_MAX) and which predictions were taken.
 */
static void
AjiSums(const PbMatchInput *in, const PairArea *pa, const size_t *partner, const uint8_t *taken,
		PbExactSum *c, PbExactSum *u)
{
	for (uint32_t t = 0; t < in->n_true; t++)
		if (partner[t] != SIZE_MAX)
		{
			PbExactSumAdd(c, pa->inter[partner[t]]);
			PbExactSumAdd(u, pa->uni[partner[t]]);
		}
		else
			PbExactSumAdd(u, in->area_true[t]);
	for (uint32_t p = 0; p < in->n_pred; p++)
		if (!taken[p])
			PbExactSumAdd(u, in->area_pred[p]);
}

/* Allocate n zeroed elements of size bytes. */
static void *
Zeroed(const PbAllocator *m, size_t n, size_t size)
{
	void	   *p = m->alloc(m->ctx, (n ? n : 1) * size);

	memset(p, 0, (n ? n : 1) * size);
	return p;
}

/*
 * The parts of the metrics (match.h): per pair its areas and IoU; AJI's
 * partners, the stardist matching of the candidates, AJI+'s matching of
 * every pair; then the sums.
 */
PbStatus
PbMatchPartsOf(const PbMatchInput *in, const PbAllocator *mem, PbMatchParts *out,
			   PbMatchObjects *objs, PbError *err)
{
	const PbAllocator *m = mem;
	size_t		n = in->npairs,
				ncand = 0,
				nall = 0;
	PairArea	pa;
	double	   *cover_t,
			   *cover_p;
	size_t	   *partner;
	uint8_t    *taken,
			   *chosen;
	uint32_t   *edges;
	PbStatus	st;

	PbMatchPartsInit(out);
	out->n_true = in->n_true;
	out->n_pred = in->n_pred;
	if (!(in->threshold >= 0.0 && in->threshold <= 1.0))
		return Fail(err, PB_ERR_BADARG, "the IoU threshold must be between 0 and 1");
	if (n >= UINT32_MAX)
		return Fail(err, PB_ERR_BADARG, "more than 2^32 overlapping pairs");
	for (size_t k = 0; k < n; k++)
		if (in->pairs[k].t >= in->n_true || in->pairs[k].p >= in->n_pred)
			return Fail(err, PB_ERR_BADARG, "a pair names an object outside its set");

	pa.inter = m->alloc(m->ctx, (n ? n : 1) * sizeof(double));
	pa.uni = m->alloc(m->ctx, (n ? n : 1) * sizeof(double));
	pa.iou = m->alloc(m->ctx, (n ? n : 1) * sizeof(double));
	cover_t = Zeroed(m, in->n_true, sizeof(double));
	cover_p = Zeroed(m, in->n_pred, sizeof(double));
	partner = m->alloc(m->ctx, (in->n_true ? in->n_true : 1) * sizeof(size_t));
	taken = Zeroed(m, in->n_pred, 1);
	chosen = Zeroed(m, n, 1);
	edges = m->alloc(m->ctx, (n ? n : 1) * sizeof(uint32_t));

	/* areas, IoUs, AJI's partners, dice's sums, covers */
	for (uint32_t t = 0; t < in->n_true; t++)
	{
		partner[t] = SIZE_MAX;
		PbExactSumAdd(&out->area_true, in->area_true[t]);
	}
	for (uint32_t p = 0; p < in->n_pred; p++)
		PbExactSumAdd(&out->area_pred, in->area_pred[p]);
	for (size_t k = 0; k < n; k++)
	{
		const PbMatchPair *pr = &in->pairs[k];
		double		at = in->area_true[pr->t],
					ap = in->area_pred[pr->p],
					i = PbPairIntersection(at, ap, pr->inter),
					u = at + ap - i;

		pa.inter[k] = i;
		pa.uni[k] = u;
		pa.iou[k] = i > 0.0 && u > 0.0 ? i / u : 0.0;
		if (pa.iou[k] <= 0.0)
			continue;
		PbExactSumAdd(&out->dice_inter, i);
		cover_t[pr->t] += i;
		cover_p[pr->p] += i;
		if (partner[pr->t] == SIZE_MAX || BetterPartner(in, &pa, k, partner[pr->t]))
			partner[pr->t] = k;
		edges[nall++] = (uint32_t) k;
	}
	for (uint32_t t = 0; t < in->n_true; t++)
		if (partner[t] != SIZE_MAX)
			taken[in->pairs[partner[t]].p] = 1;
	AjiSums(in, &pa, partner, taken, &out->aji_inter, &out->aji_union);
	for (uint32_t t = 0; t < in->n_true; t++)
		out->true_overcovered += cover_t[t] > in->area_true[t] * (1.0 + COVER_SLACK);
	for (uint32_t p = 0; p < in->n_pred; p++)
		out->pred_overcovered += cover_p[p] > in->area_pred[p] * (1.0 + COVER_SLACK);

	/* AJI+: a matching of every overlapping pair, of maximum total IoU */
	st = PbMatchGraph(in, m, edges, nall, 0, pa.iou, chosen);
	if (st == PB_OK)
	{
		memset(taken, 0, in->n_pred ? in->n_pred : 1);
		for (uint32_t t = 0; t < in->n_true; t++)
			partner[t] = SIZE_MAX;
		for (size_t k = 0; k < n; k++)
			if (chosen[k])
			{
				partner[in->pairs[k].t] = k;
				taken[in->pairs[k].p] = 1;
			}
		AjiSums(in, &pa, partner, taken, &out->ajip_inter, &out->ajip_union);

		/* stardist: the candidates' matching, cardinality first */
		for (size_t k = 0; k < nall; k++)
			if (pa.iou[edges[k]] >= in->threshold)
				edges[ncand++] = edges[k];
		memset(chosen, 0, n ? n : 1);
		st = PbMatchGraph(in, m, edges, ncand, 1, pa.iou, chosen);
	}
	if (st == PB_OK)
		for (size_t k = 0; k < n; k++)
			if (chosen[k])
			{
				out->tp++;
				PbExactSumAdd(&out->matched_iou, pa.iou[k]);
			}
	if (st == PB_OK && objs)
	{
		for (uint32_t t = 0; t < in->n_true; t++)
		{
			objs->true_match[t] = PB_MATCH_NONE;
			objs->true_iou[t] = 0.0;
		}
		for (uint32_t p = 0; p < in->n_pred; p++)
		{
			objs->pred_match[p] = PB_MATCH_NONE;
			objs->pred_iou[p] = 0.0;
		}
		for (size_t k = 0; k < n; k++)
		{
			uint32_t	t = in->pairs[k].t,
						p = in->pairs[k].p;

			if (chosen[k])
			{
				objs->true_match[t] = p;
				objs->pred_match[p] = t;
			}
			if (objs->true_match[t] == PB_MATCH_NONE || chosen[k])
				objs->true_iou[t] = chosen[k] ? pa.iou[k] : fmax(objs->true_iou[t], pa.iou[k]);
			if (objs->pred_match[p] == PB_MATCH_NONE || chosen[k])
				objs->pred_iou[p] = chosen[k] ? pa.iou[k] : fmax(objs->pred_iou[p], pa.iou[k]);
		}
	}
	{
		void	   *bufs[] = {pa.inter, pa.uni, pa.iou, cover_t, cover_p, partner, taken,
		chosen, edges};

		for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
			m->release(m->ctx, bufs[i]);
	}
	if (st == PB_ERR_STOPPED)
		return Fail(err, st, "stopped");
	return st;
}

/* The metrics (match.h): PbMatchPartsOf, then PbMatchStatsOf. */
PbStatus
PbMatch(const PbMatchInput *in, const PbAllocator *mem, PbMatchStats *out,
		PbMatchObjects *objs, PbError *err)
{
	PbMatchParts parts;
	PbStatus	st = PbMatchPartsOf(in, mem, &parts, objs, err);

	PbMatchStatsOf(&parts, in->threshold, out);
	return st;
}
