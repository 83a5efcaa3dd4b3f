/*
 * bitmap_fill.c: PbBitmapFillFlags of bitmap_fill.h, the edge flags of a
 * shape over a window, read through the shape's index of edges by row
 * band when it has one (edge_index.h), else from its rings in place.
 */
#include "bitmap_fill.h"
#include "bitmap_rules.h"
#include "edge_index.h"

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
 * The flags through a shape's index: the edges of the bands the window's
 * rows fall in, each taken in the first of those bands that lists it.
 */
static void
FillFlagsBands(uint64_t *bits, size_t nw, const PbEdgeBands *ix, const PbIWindow *w)
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
void
PbBitmapFillFlags(PbScratch *sc, uint64_t *bits, size_t nw, const PbBatch *b,
				  const PbShape *s, const PbIWindow *w)
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
