/*
 * bitmap_solid.h: the pixels of a shape that pairs in a row share, kept
 * whole (internal to the geometry core; used by the edge-flag engine,
 * area_bitmap.c).
 *
 * In a nested-loop join the outer shape comes back for every inner row: a
 * nucleus of one segmentation meets the few of the other that overlap it,
 * one pair after the other, and the edge-flag engine filled and spread its
 * flags again for each.  A scratch space keeps the pixels of one such
 * shape over its whole box, filled once when a shape has been in the last
 * few pairs; a pair with it then fills only the other shape's flags, in
 * words lined up with the kept ones, and ANDs the rows.  A shape whose box
 * is many windows large (a merged blob against nuclei) is kept only once
 * enough of its pairs have come to pay for filling it whole; until then
 * its index of edges by row band serves them (edge_index.h).  What is kept
 * belongs to one batch (PbBatch.serial).
 *
 * Only a scratch space whose owner says its pairs come in such runs
 * (PbScratch.keep_runs: the comparison aggregates, fed a join's rows)
 * keeps shapes.  Elsewhere runs are short (a tile's pairs in its filter's
 * order meet a nucleus two or three times, in windows a fraction of its
 * box) and filling whole boxes cost more than it saved.
 */
#ifndef PB_GEOM_BITMAP_SOLID_H
#define PB_GEOM_BITMAP_SOLID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch.h"

/* Largest kept bitmap, in words (128 kB), as the auto method's windows. */
#define PB_SOLID_MAX_WORDS PB_BITMAP_MAX_WORDS
/*
 * A shape is kept at its PB_SOLID_MIN_RUN-th pair in a row at the
 * earliest: filling its whole box costs more than the pair it serves
 * saves, so a shape met in two pairs (the usual run where tiles' pairs
 * come in their filter's order, or a nucleus of pbgen's slide) is not
 * worth keeping.  A shape met in n pairs in a row is then kept when its
 * bitmap is at most n times PB_SOLID_WINDOWS of the pair's window plus
 * PB_SOLID_SLACK_WORDS: a blob that keeps coming back is kept after a few
 * of its pairs have paid for its fill.
 */
#define PB_SOLID_MIN_RUN 3
#define PB_SOLID_WINDOWS 4
#define PB_SOLID_SLACK_WORDS 64

/* A kept shape's pixels: pixel (x0 + 64k + i, y0 + r) is bit i of bits[r * nw + k]. */
typedef struct PbSolidView
{
	uint32_t	shape;			/* its index in the batch */
	int64_t		x0,
				y0;
	size_t		nw;
	const uint64_t *bits;
} PbSolidView;

/*
 * Whether shape ip or iq of batch b has its pixels kept in sc (one with
 * keep_runs set) for their pair, whose window's bitmap is window_words
 * words: kept already, or kept now because it was in the pairs before
 * (PB_SOLID_MIN_RUN) and its box is not too large.  Then *out views them
 * until the next call on sc.
 */
extern bool PbSolidFor(PbScratch *sc, const PbBatch *b, uint32_t ip, uint32_t iq,
					   size_t window_words, PbSolidView *out);

/* Release what sc keeps (PbScratchFree calls it). */
extern void PbSolidCacheFree(PbScratch *sc);

#endif							/* PB_GEOM_BITMAP_SOLID_H */
