/*
 * edge_index.h: the vertical edges of a large integer shape by row band,
 * so that a pair whose window is a few rows of a merged blob reads the
 * edges near those rows instead of every edge of the blob (internal to the
 * geometry core; used by the edge-flag engine, area_bitmap.c).
 *
 * A real segmentation's merged blob has a thousand vertices and overlaps
 * dozens of nuclei; the edge-flag engine walked all its edges for each of
 * them.  The index keeps, for each band of 2^shift rows from the shape's
 * top, the vertical edges that span a row of it (an edge spanning several
 * bands is listed in each, and a walk over several bands takes it only in
 * the first of them that the window reaches).  It is built the second time
 * a pair of one batch asks for a shape (a shape met once is walked as
 * before) and kept in the scratch space of the thread that built it, for
 * as long as that scratch serves the same batch (PbBatch.serial).
 */
#ifndef PB_GEOM_EDGE_INDEX_H
#define PB_GEOM_EDGE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "batch.h"

/* Points a shape needs before it is indexed. */
#define PB_EDGE_INDEX_MIN_POINTS 128
/* Rows a shape needs before it is indexed. */
#define PB_EDGE_INDEX_MIN_ROWS 32

/* One shape's index, as PbEdgeBandsFor hands it out. */
typedef struct PbEdgeBands
{
	int64_t		ymin;			/* top of band 0 */
	int			shift;			/* a band is 2^shift rows */
	uint32_t	nbands;
	const uint32_t *start;		/* band k's entries: [start[k], start[k + 1]) */
	const int32_t *edges;		/* entry i: x, first row, row past the last */
} PbEdgeBands;

/*
 * The tests of PbEdgeBandsFor that read only the shape's box, inline: a
 * shape of PB_EDGE_INDEX_MIN_ROWS rows at least, a window of half of
 * them at most (a nucleus's pairs stop here, at the cost of a compare).
 */
static inline bool
PbEdgeBandsMayHelp(const PbShape *s, int64_t y0, int64_t y1)
{
	int64_t		rows = (int64_t) (s->box.ymax - s->box.ymin);

	return rows >= PB_EDGE_INDEX_MIN_ROWS && 2 * (y1 - y0) <= rows;
}

/*
 * Whether the edge-flag engine should read shape s of batch b through an
 * index for a window [y0, y1): then *out is the index, valid until the next
 * call on scratch sc.  False for small shapes, windows nearly as tall as
 * the shape, a shape met for the first time in this batch, or when the
 * scratch's index memory is spent; the caller then walks every edge.
 */
extern bool PbEdgeBandsFor(PbScratch *sc, const PbBatch *b, const PbShape *s,
						   int64_t y0, int64_t y1, PbEdgeBands *out);

/* Release the indexes kept in sc (PbScratchFree calls it). */
extern void PbEdgeCacheFree(PbScratch *sc);

#endif							/* PB_GEOM_EDGE_INDEX_H */
