/*
 * bitmap_solid.h: the pixels of a shape that pairs in a row share, kept
 * whole (internal to the geometry core; used by the edge-flag engine,
 * area_bitmap.c).
 *
 * In a nested-loop join the outer shape comes back for every inner row: a
 * nucleus of one segmentation meets the few of the other that overlap it,
 * one pair after the other, and the edge-flag engine filled and spread its
 * flags again for each.  A scratch space keeps the pixels of one such
 * shape over its whole box, filled once when a shape of the pair before
 * comes back; a pair with it then fills only the other shape's flags, in
 * words lined up with the kept ones, and ANDs the rows.  A shape whose box
 * is many windows large (a merged blob against nuclei) is not kept:
 * filling it whole would cost more than its pairs save, and its index of
 * edges by row band serves them (edge_index.h).  What is kept belongs to
 * one batch (PbBatch.serial).
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
 * A shape met in n pairs in a row is kept when its bitmap is at most n
 * times PB_SOLID_WINDOWS of the pair's window plus PB_SOLID_SLACK_WORDS:
 * filling it costs no more than a few of the pairs it has served, so
 * keeping a shape that stops coming back costs little, and a blob that
 * keeps coming back is kept after a few of its pairs.  A nucleus is kept
 * at its second pair.
 */
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
 * Whether shape ip or iq of batch b has its pixels kept in sc for their
 * pair, whose window's bitmap is window_words words: kept already, or kept
 * now because it was in the pair before and its box is not too large.
 * Then *out views them until the next call on sc.
 */
extern bool PbSolidFor(PbScratch *sc, const PbBatch *b, uint32_t ip, uint32_t iq,
					   size_t window_words, PbSolidView *out);

/* Release what sc keeps (PbScratchFree calls it). */
extern void PbSolidCacheFree(PbScratch *sc);

#endif							/* PB_GEOM_BITMAP_SOLID_H */
