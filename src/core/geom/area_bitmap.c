/*
 * area_bitmap.c: exact intersection area of two rectilinear integer shapes
 * by edge-flag bitmaps.
 *
 * Over the intersection window, each vertical edge toggles its column's
 * bit (column 0 when it lies left of the window) in every row it spans:
 * it flips the bit in its first row and in the row past its last, and a
 * prefix XOR down each column spreads the flips, so filling costs O(edges)
 * whatever their lengths.  A prefix XOR along each row then leaves exactly
 * the pixels whose centres are inside the shape (even-odd rule), and the
 * area is the popcount of the AND of the two bitmaps.  Pixels are unit
 * squares, so this is exact.  The per-edge and per-word rules are those
 * of bitmap_rules.h, which the GPU's bitmap kernel applies too.  A shape
 * that pairs in a row share (the outer side of a nested-loop join) has its
 * pixels kept whole (bitmap_solid.h): a pair with it fills only the other
 * shape's flags.  A window beyond PB_BITMAP_HARD_WORDS (only a forced
 * method gets there) goes to the sweep, which gives the same answer
 * without the memory.
 */
#include <string.h>

#include "../base/pb_vector.h"
#include "batch.h"
#include "bitmap_fill.h"
#include "bitmap_rules.h"
#include "bitmap_solid.h"

/* Largest bitmap this engine builds, in 64-bit words per shape (32 MB). */
#define PB_BITMAP_HARD_WORDS ((size_t) 1 << 22)
/* Words between two interrupt polls. */
#define BITMAP_POLL_WORDS 65536

/*
 * |o ∩ k| over window w when k's pixels are kept (bitmap_solid.h): o's
 * flags over w widened left to the kept words' grid, spread down and along
 * o's rows and ANDed with k's.
 */
PB_POPCOUNT_CLONES static int64_t
CountAgainstKept(PbScratch *s, const PbBatch *b, const PbShape *o, const PbIWindow *w,
				 const PbSolidView *k)
{
	PbIWindow	wo = {k->x0 + 64 * ((w->x0 - k->x0) / 64), w->y0, w->x1, w->y1};
	size_t		nw = (size_t) ((wo.x1 - wo.x0 + 63) / 64),
				rows = (size_t) (wo.y1 - wo.y0);
	const uint64_t *kb = k->bits + (size_t) (wo.y0 - k->y0) * k->nw + (size_t) (wo.x0 - k->x0) / 64;
	uint64_t   *bo = PbScratchGet(s, 0, (rows + 1) * nw * sizeof(uint64_t)),
				lastmask = PbBitmapLastMask(wo.x1 - wo.x0);
	int64_t		count = 0;

	memset(bo, 0, (rows + 1) * nw * sizeof(uint64_t));
	PbBitmapFillFlags(s, bo, nw, b, o, &wo);
	for (size_t r = 0; r < rows; r++, kb += k->nw)
	{
		uint64_t   *row = bo + r * nw,
				   *above = r ? row - nw : NULL,
					carry = 0;

		for (size_t i = 0; i < nw; i++)
		{
			/* down the column first: this row's flags from the one above */
			uint64_t	v = PbBitmapPrefixXor(above ? (row[i] ^= above[i]) : row[i], carry),
						both = v & kb[i];

			carry = v >> 63;
			if (i + 1 == nw)
				both &= lastmask;
			count += __builtin_popcountll(both);
		}
	}
	return count;
}

/* Exact area of p ∩ q for two PB_SHAPE_INT shapes with overlapping boxes. */
PB_POPCOUNT_CLONES double
PbAreaBitmap(PbScratch *s, const PbBatch *b, const PbShape *p,
			 const PbShape *q)
{
	PbBox		box = PbWindow(p, q);
	PbIWindow	w = {(int64_t) box.xmin, (int64_t) box.ymin, (int64_t) box.xmax, (int64_t) box.ymax};
	size_t		nw,
				words;
	uint64_t   *bp,
			   *bq,
				lastmask;
	int64_t		count = 0;
	size_t		work = 0;
	uint32_t	ip = (uint32_t) (p - b->shapes);
	PbSolidView kept;

	if (w.x1 <= w.x0 || w.y1 <= w.y0)
		return 0.0;
	if (((w.x1 - w.x0 + 63) / 64.0) * (w.y1 - w.y0) > (double) PB_BITMAP_HARD_WORDS)
		return PbAreaSweep(s, b, p, q);
	nw = (size_t) ((w.x1 - w.x0 + 63) / 64);
	words = nw * (size_t) (w.y1 - w.y0);
	if (PbSolidFor(s, b, ip, (uint32_t) (q - b->shapes), words, &kept))
		return (double) CountAgainstKept(s, b, kept.shape == ip ? q : p, &w, &kept);
	/* each bitmap has a spare row past the window's for Flip */
	bp = PbScratchGet(s, 0, 2 * (words + nw) * sizeof(uint64_t));
	bq = bp + words + nw;
	memset(bp, 0, 2 * (words + nw) * sizeof(uint64_t));
	PbBitmapFillFlags(s, bp, nw, b, p, &w);
	PbBitmapFillFlags(s, bq, nw, b, q, &w);
	lastmask = PbBitmapLastMask(w.x1 - w.x0);
	for (size_t row = 0; row < words; row += nw)
	{
		uint64_t	cp = 0,
					cq = 0;

		for (size_t k = 0; k < nw; k++)
		{
			/* down the column first: this row's flags from the one above */
			uint64_t	fp = row ? (bp[row + k] ^= bp[row - nw + k]) : bp[k];
			uint64_t	fq = row ? (bq[row + k] ^= bq[row - nw + k]) : bq[k];
			uint64_t	vp = PbBitmapPrefixXor(fp, cp);
			uint64_t	vq = PbBitmapPrefixXor(fq, cq);
			uint64_t	both = vp & vq;

			cp = vp >> 63;
			cq = vq >> 63;
			if (k + 1 == nw)
				both &= lastmask;
			count += __builtin_popcountll(both);
		}
		if ((work += nw) >= BITMAP_POLL_WORDS)
		{
			PbScratchPoll(s);
			work = 0;
		}
	}
	return (double) count;
}
