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
 * of bitmap_rules.h, which the GPU's bitmap kernel applies too.  A window
 * beyond PB_BITMAP_HARD_WORDS (only a forced method gets there) goes to
 * the sweep, which gives the same answer without the memory.
 */
#include <string.h>

#include "../base/pb_vector.h"
#include "batch.h"
#include "bitmap_rules.h"
#include "edge_index.h"

/* Largest bitmap this engine builds, in 64-bit words per shape (32 MB). */
#define PB_BITMAP_HARD_WORDS ((size_t) 1 << 22)
/* Words between two interrupt polls. */
#define BITMAP_POLL_WORDS 65536

/* Integer bounds of the window [x0,x1) x [y0,y1). */
typedef struct IWindow
{
	int64_t		x0,
				y0,
				x1,
				y1;
} IWindow;

/*
 * Flip the two flags of an edge's place f in bits.  A flip past the
 * window's rows (row_hi == rows) lands in the bitmap's spare row, which
 * nothing reads: no branch on where the edge ends.
 */
static inline void
Flip(uint64_t *bits, size_t nw, const PbEdgeFlags *f)
{
	uint64_t	bit = (uint64_t) 1 << (f->col & 63);

	bits[(size_t) f->row_lo * nw + (size_t) (f->col >> 6)] ^= bit;
	bits[(size_t) f->row_hi * nw + (size_t) (f->col >> 6)] ^= bit;
}

/*
 * FillFlags through a shape's index: the edges of the bands the window's
 * rows fall in, each taken in the first of those bands that lists it.
 */
static void
FillFlagsBands(uint64_t *bits, size_t nw, const PbEdgeBands *ix, const IWindow *w)
{
	PbEdgeFlags f;
	int64_t		k0 = (w->y0 - ix->ymin) >> ix->shift,
				k1 = (w->y1 - 1 - ix->ymin) >> ix->shift;

	k0 = k0 > 0 ? k0 : 0;
	k1 = k1 < (int64_t) ix->nbands - 1 ? k1 : (int64_t) ix->nbands - 1;
	for (int64_t k = k0; k <= k1; k++)
		for (uint32_t i = ix->start[k]; i < ix->start[k + 1]; i++)
		{
			const int32_t *e = ix->edges + 3 * (size_t) i;

			if ((k == k0 || ((e[1] - ix->ymin) >> ix->shift) == k) &&
				PbBitmapEdgeFlags(e[0], e[1], e[0], e[2], w->x0, w->y0, w->x1, w->y1, &f))
				Flip(bits, nw, &f);
		}
}

/*
 * Flip the edge flags of every vertical edge of shape s into bits at its
 * first row and the row past its last (the spare row past the window's
 * top), by the rule of bitmap_rules.h.  A large shape met again in the
 * batch is read through its index of edges by row band (edge_index.h): a
 * blob of a thousand points meets this once for every nucleus it overlaps.
 * Else the rings are read in place, each edge from the point before (the
 * last point for the first): only vertical edges left of the window's
 * right side reach the rule.
 */
static void
FillFlags(PbScratch *sc, uint64_t *bits, size_t nw, const PbBatch *b, const PbShape *s,
		  const IWindow *w)
{
	PbEdgeFlags f;
	PbEdgeBands ix;

	if (PbEdgeBandsMayHelp(s, w->y0, w->y1) && PbEdgeBandsFor(sc, b, s, w->y0, w->y1, &ix))
	{
		FillFlagsBands(bits, nw, &ix, w);
		return;
	}
	for (uint32_t r = s->ring_first; r < s->ring_first + s->nrings; r++)
	{
		const int32_t *pts = b->ipts + 2 * (size_t) b->rings[r].start;
		uint32_t	n = b->rings[r].npoints;
		int32_t		px,
					py;

		if (n == 0)
			continue;
		px = pts[2 * (size_t) (n - 1)];
		py = pts[2 * (size_t) (n - 1) + 1];
		for (uint32_t i = 0; i < n; i++)
		{
			int32_t		x = pts[2 * (size_t) i],
						y = pts[2 * (size_t) i + 1];

			if (x == px && x < w->x1 &&
				PbBitmapEdgeFlags(px, py, x, y, w->x0, w->y0, w->x1, w->y1, &f))
				Flip(bits, nw, &f);
			px = x;
			py = y;
		}
	}
}

/* Exact area of p ∩ q for two PB_SHAPE_INT shapes with overlapping boxes. */
PB_POPCOUNT_CLONES double
PbAreaBitmap(PbScratch *s, const PbBatch *b, const PbShape *p,
			 const PbShape *q)
{
	PbBox		box = PbWindow(p, q);
	IWindow		w = {(int64_t) box.xmin, (int64_t) box.ymin, (int64_t) box.xmax, (int64_t) box.ymax};
	size_t		nw,
				words;
	uint64_t   *bp,
			   *bq,
				lastmask;
	int64_t		count = 0;
	size_t		work = 0;

	if (w.x1 <= w.x0 || w.y1 <= w.y0)
		return 0.0;
	if (((w.x1 - w.x0 + 63) / 64.0) * (w.y1 - w.y0) > (double) PB_BITMAP_HARD_WORDS)
		return PbAreaSweep(s, b, p, q);
	nw = (size_t) ((w.x1 - w.x0 + 63) / 64);
	words = nw * (size_t) (w.y1 - w.y0);
	/* each bitmap has a spare row past the window's for Flip */
	bp = PbScratchGet(s, 0, 2 * (words + nw) * sizeof(uint64_t));
	bq = bp + words + nw;
	memset(bp, 0, 2 * (words + nw) * sizeof(uint64_t));
	FillFlags(s, bp, nw, b, p, &w);
	FillFlags(s, bq, nw, b, q, &w);
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
