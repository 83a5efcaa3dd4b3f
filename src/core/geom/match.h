/*
 * match.h: the instance metrics segmentation papers report, from the
 * exact areas of two sets of objects and of their overlapping pairs.
 *
 * Set "true" is the reference (ground truth), set "pred" the prediction.
 * The input is every pair (true, pred) whose intersection area is > 0,
 * with that area, and the area of every object; nothing else is needed:
 *
 *  - IoU(t, p) = |t∩p| / (|t| + |p| - |t∩p|);
 *  - stardist.matching: a one-to-one matching of the pairs with
 *    IoU >= threshold, of maximum cardinality and then of maximum total
 *    IoU (its linear_sum_assignment); tp, fp, fn, precision, recall,
 *    accuracy, f1, mean_true_score, mean_matched_score, panoptic_quality,
 *    every division by 0 giving 0 (its _safe_divide);
 *  - sq (= mean_matched_score) and dq (= f1), HoVer-Net's names for the
 *    two factors of panoptic_quality;
 *  - AJI (Kumar et al. 2017, as HoVer-Net's get_fast_aji): each true
 *    object with its prediction of maximum IoU, not exclusively;
 *  - AJI+ (HoVer-Net's get_fast_aji_plus): a one-to-one matching of
 *    maximum total IoU;
 *  - dice_pixel: 2|A∩B| / (|A| + |B|) of the unions A, B of the sets
 *    (HoVer-Net's get_dice_1), as sums over objects and pairs, which
 *    assumes each set's objects are disjoint (as in a label image).
 *
 * Results do not depend on the order of the input: sums are exact
 * (accum.h), and where a choice between equal candidates remains, the
 * caller's order function decides.  Pure C; memory through PbAllocator,
 * long matchings poll for a cancel.
 */
#ifndef PB_GEOM_MATCH_H
#define PB_GEOM_MATCH_H

#include <stdint.h>

#include "../base/pb_base.h"
#include "accum.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* One pair of overlapping objects: indices into each set, |t∩p|. */
typedef struct PbMatchPair
{
	uint32_t	t;
	uint32_t	p;
	double		inter;
} PbMatchPair;

/*
 * The caller's order of the objects of one set (pred: 0 true, 1 pred):
 * < 0 when object i comes before j, > 0 after, 0 when they are the same
 * (interchangeable) object.  It breaks ties: AJI's choice between
 * predictions of equal IoU and union, and which of several optimal
 * matchings is taken.  NULL: by index.
 */
typedef int (*PbMatchOrderFn) (void *ctx, int pred, uint32_t i, uint32_t j);

/* What the metrics are computed from. */
typedef struct PbMatchInput
{
	uint32_t	n_true;
	uint32_t	n_pred;
	const double *area_true;	/* [n_true] */
	const double *area_pred;	/* [n_pred] */
	const PbMatchPair *pairs;	/* each overlapping pair once, any order */
	size_t		npairs;
	double		threshold;		/* IoU threshold of the matching, in [0, 1] */
	PbMatchOrderFn order;
	void	   *order_ctx;
	PbPollFn	poll;			/* asked between chunks of work; may be NULL */
	void	   *poll_arg;
} PbMatchInput;

/* The metrics. */
typedef struct PbMatchStats
{
	double		threshold;
	int64_t		n_true,
				n_pred,
				tp,
				fp,
				fn;
	double		precision,
				recall,
				accuracy,
				f1;
	double		sum_matched;	/* sum of the matched pairs' IoU */
	double		mean_true_score,
				mean_matched_score,
				panoptic_quality,
				sq,
				dq;
	double		aji,
				aji_plus,
				dice_pixel;
	/*
	 * Signs that a set's objects overlap one another (the unions' areas,
	 * dice_pixel and AJI then are not what they claim): objects of the
	 * other set that pairs cover more than their own area.
	 */
	int64_t		true_overcovered;	/* true objects: predictions overlap */
	int64_t		pred_overcovered;	/* predictions: true objects overlap */
} PbMatchStats;

/*
 * What the metrics are computed from, as counts and exact sums that add up
 * over independent matchings (pb_match_stats with a key: one matching per
 * key, the figures from the sums over keys).  dice_pixel keeps |A| and |B|
 * apart, as PbMatch always added them, so that one matching's figures stay
 * bit-identical.
 */
typedef struct PbMatchParts
{
	int64_t		n_true,
				n_pred,
				tp;
	PbExactSum	matched_iou;	/* sum of the matched pairs' IoU */
	PbExactSum	aji_inter,		/* AJI's C and U */
				aji_union;
	PbExactSum	ajip_inter,		/* AJI+'s C and U */
				ajip_union;
	PbExactSum	dice_inter,		/* |A∩B|: sum of the pairs' intersections */
				area_true,		/* |A| */
				area_pred;		/* |B| */
	int64_t		true_overcovered,
				pred_overcovered;
} PbMatchParts;

/* No partner (PbMatchObjects). */
#define PB_MATCH_NONE UINT32_MAX

/*
 * Per object, optionally: its partner in the stardist matching (or
 * PB_MATCH_NONE) and the IoU with it, or when it has none, its largest
 * IoU with any object of the other set (0 when it overlaps none).
 */
typedef struct PbMatchObjects
{
	uint32_t   *true_match;		/* [n_true], the caller's */
	double	   *true_iou;
	uint32_t   *pred_match;		/* [n_pred] */
	double	   *pred_iou;
} PbMatchObjects;

/*
 * Compute the metrics of in into out, and when objs is not NULL the
 * matching per object.  PB_ERR_BADARG (err says why) for a threshold
 * outside [0, 1] or a pair naming no object; PB_ERR_STOPPED when poll
 * asked to stop.
 */
extern PbStatus PbMatch(const PbMatchInput *in, const PbAllocator *mem,
						PbMatchStats *out, PbMatchObjects *objs, PbError *err);

/*
 * PbMatch in two steps: the parts of one matching (same errors), and the
 * figures at threshold from parts, one matching's or a sum of several.
 */
extern PbStatus PbMatchPartsOf(const PbMatchInput *in, const PbAllocator *mem,
							   PbMatchParts *out, PbMatchObjects *objs, PbError *err);
extern void PbMatchStatsOf(const PbMatchParts *parts, double threshold, PbMatchStats *out);

/* Empty parts; add parts (of another matching) to into. */
extern void PbMatchPartsInit(PbMatchParts *p);
extern void PbMatchPartsAdd(PbMatchParts *into, const PbMatchParts *p);

/* Divide, giving 0 where the divisor is 0 (stardist's _safe_divide). */
extern double PbSafeDivide(double x, double y);

/*
 * match_assign.c: a one-to-one matching of maximum weight in a bipartite
 * graph, weights compared lexicographically (count, then value): with
 * count 1 on every edge it is of maximum cardinality and then of maximum
 * total value.  Edges of left node l are edges[first[l] .. first[l+1]).
 */
typedef struct PbAssignEdge
{
	uint32_t	right;
	int32_t		count;
	double		value;
} PbAssignEdge;

typedef struct PbAssign PbAssign;

extern PbAssign *PbAssignCreate(const PbAllocator *mem);
extern void PbAssignFree(PbAssign *a);

/*
 * Match nl left nodes to nr right nodes: mate[l] = its right node, or
 * PB_MATCH_NONE.  Edges of weight <= 0 are never worth taking.  Ties
 * are broken by node numbers, so equal input gives equal output.
 * PB_ERR_STOPPED when poll asked to stop.
 */
extern PbStatus PbAssignSolve(PbAssign *a, uint32_t nl, uint32_t nr,
							  const uint32_t *first, const PbAssignEdge *edges,
							  uint32_t *mate, PbPollFn poll, void *poll_arg);

/*
 * match_graph.c: the optimal one-to-one matching of some of in's pairs
 * (pairs[edges[k]], each of weight (count, value[edges[k]]) compared as
 * PbAssignEdge's), component by component: a component of one pair is
 * its own matching, bigger ones go to PbAssignSolve with their objects
 * in in->order.  Sets chosen[pair] = 1 for each pair of the matching.
 */
extern PbStatus PbMatchGraph(const PbMatchInput *in, const PbAllocator *mem,
							 const uint32_t *edges, size_t nedges, int32_t count,
							 const double *value, uint8_t *chosen);

/*
 * match_order.c: an order of the shapes of a batch (by area, box, then
 * points) that does not depend on their places in it: an order function
 * for PbMatchInput that makes results independent of the input order.
 */
struct PbBatch;
extern int	PbShapeOrder(const struct PbBatch *b, uint32_t i, uint32_t j);

/*
 * match_tiles.c: the metrics per tile of the slide, from PbMatch's input
 * and matching (objs): every object counts in one tile, a matched pair
 * and every overlapping pair in their true object's, so the tiles' counts
 * add up to the slide's.  Keys are the caller's (tile_true[t],
 * tile_pred[p]); rows come in key order, one per key that holds an object.
 */
typedef struct PbTileRow
{
	int64_t		key;
	int64_t		n_true,			/* true objects in the tile */
				n_pred,			/* tp + fp: partners and unmatched predictions */
				tp,
				fp,
				fn,
				pairs;			/* overlapping pairs of the tile's true objects */
	double		f1,				/* 2 tp / (2 tp + fp + fn) */
				pq,				/* sum of matched IoUs / (tp + fp/2 + fn/2) */
				jaccard;		/* J': mean IoU of the pairs; NaN without pairs */
} PbTileRow;

typedef struct PbTileRows
{
	PbTileRow  *rows;			/* allocated with the caller's allocator */
	size_t		n;
} PbTileRows;

/* PB_ERR_STOPPED when in->poll asked to stop. */
extern PbStatus PbMatchTiles(const PbMatchInput *in, const PbMatchObjects *objs,
							 const int64_t *tile_true, const int64_t *tile_pred,
							 const PbAllocator *mem, PbTileRows *out, PbError *err);

#ifdef __cplusplus
}
#endif

#endif							/* PB_GEOM_MATCH_H */
