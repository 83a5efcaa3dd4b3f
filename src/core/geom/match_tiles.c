/*
 * match_tiles.c: the instance metrics tile by tile, to show where on a
 * slide two segmentations disagree (pb_tile_agreement).
 *
 * The matching is the whole slide's (PbMatch): a nucleus on a tile border
 * is matched as it is for pb_match_stats, not cut in two.  Each object
 * then counts in one tile, the caller's key for it: a true object and its
 * partner count in the true object's tile (tp, and one prediction there),
 * an unmatched true object in its own (fn), an unmatched prediction in its
 * own (fp), and an overlapping pair in its true object's tile (J').  So
 * the tiles' counts add up to the slide's.
 *
 * Per tile the sums are taken in a canonical order (contributions sorted
 * by value), so the rows do not depend on the order of the input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accum.h"
#include "match.h"

/* What one object or pair adds to its tile. */
typedef enum ItemKind
{
	ITEM_TRUE_MATCHED = 0,		/* value: IoU with its partner */
	ITEM_TRUE_MISSED = 1,		/* fn */
	ITEM_PRED_SPURIOUS = 2,		/* fp */
	ITEM_PAIR = 3				/* value: the pair's IoU */
} ItemKind;

typedef struct TileItem
{
	int64_t		key;
	int32_t		kind;
	double		value;
} TileItem;

/* Items by tile key, kind, then value: the canonical order of the sums. */
static int
ItemCmp(const void *a, const void *b)
{
	const TileItem *x = a,
			   *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

/* The IoU of pair pr as PbMatch computes it (capped intersection). */
static double
PairIoU(const PbMatchInput *in, const PbMatchPair *pr)
{
	double		at = in->area_true[pr->t],
				ap = in->area_pred[pr->p],
				i = PbPairIntersection(at, ap, pr->inter),
				u = at + ap - i;

	return i > 0.0 && u > 0.0 ? i / u : 0.0;
}

/* The row of tile key from its items items[0 .. n), all of that key. */
static PbTileRow
TileRow(const TileItem *items, size_t n)
{
	PbTileRow	r;
	double		sum_matched = 0.0,
				sum_pairs = 0.0;

	memset(&r, 0, sizeof(r));
	r.key = items[0].key;
	for (size_t k = 0; k < n; k++)
		switch ((ItemKind) items[k].kind)
		{
			case ITEM_TRUE_MATCHED:
				r.tp++;
				sum_matched += items[k].value;
				break;
			case ITEM_TRUE_MISSED:
				r.fn++;
				break;
			case ITEM_PRED_SPURIOUS:
				r.fp++;
				break;
			case ITEM_PAIR:
				r.pairs++;
				sum_pairs += items[k].value;
				break;
		}
	r.n_true = r.tp + r.fn;
	r.n_pred = r.tp + r.fp;
	r.f1 = PbSafeDivide(2.0 * r.tp, 2.0 * r.tp + r.fp + r.fn);
	r.pq = PbSafeDivide(sum_matched, r.tp + 0.5 * r.fp + 0.5 * r.fn);
	r.jaccard = r.pairs > 0 ? sum_pairs / r.pairs : NAN;
	return r;
}

/*
 * The rows of every tile that holds an object, by key: in and objs as
 * PbMatch took and gave them, tile_true / tile_pred the key of each
 * object's tile.
 */
PbStatus
PbMatchTiles(const PbMatchInput *in, const PbMatchObjects *objs, const int64_t *tile_true,
			 const int64_t *tile_pred, const PbAllocator *mem, PbTileRows *out, PbError *err)
{
	size_t		n = 0,
				cap = (size_t) in->n_true + in->n_pred + in->npairs;
	TileItem   *items;
	size_t		nrows = 0;

	memset(out, 0, sizeof(*out));
	items = mem->alloc(mem->ctx, (cap ? cap : 1) * sizeof(TileItem));
	for (uint32_t t = 0; t < in->n_true; t++)
		items[n++] = objs->true_match[t] != PB_MATCH_NONE
			? (TileItem) {tile_true[t], ITEM_TRUE_MATCHED, objs->true_iou[t]}
		: (TileItem) {tile_true[t], ITEM_TRUE_MISSED, 0.0};
	for (uint32_t p = 0; p < in->n_pred; p++)
		if (objs->pred_match[p] == PB_MATCH_NONE)
			items[n++] = (TileItem) {tile_pred[p], ITEM_PRED_SPURIOUS, 0.0};
	for (size_t k = 0; k < in->npairs; k++)
	{
		double		iou = PairIoU(in, &in->pairs[k]);

		if (iou > 0.0)
			items[n++] = (TileItem) {tile_true[in->pairs[k].t], ITEM_PAIR, iou};
	}
	if (in->poll && in->poll(in->poll_arg))
	{
		mem->release(mem->ctx, items);
		return PbFail(err, PB_ERR_STOPPED, "stopped");
	}
	qsort(items, n, sizeof(TileItem), ItemCmp);
	for (size_t k = 0; k < n; k++)
		nrows += k == 0 || items[k].key != items[k - 1].key;
	out->rows = mem->alloc(mem->ctx, (nrows ? nrows : 1) * sizeof(PbTileRow));
	for (size_t k = 0; k < n;)
	{
		size_t		end = k + 1;

		while (end < n && items[end].key == items[k].key)
			end++;
		out->rows[out->n++] = TileRow(items + k, end - k);
		k = end;
	}
	mem->release(mem->ctx, items);
	return PB_OK;
}
