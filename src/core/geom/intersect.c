/*
 * intersect.c: pick the engine for a pair and compute its intersection area.
 */
#include "batch.h"

/* Return whether the boxes of p and q overlap with positive area. */
static int
BoxesOverlap(const PbShape *p, const PbShape *q)
{
	return p->box.xmin < q->box.xmax && q->box.xmin < p->box.xmax &&
		p->box.ymin < q->box.ymax && q->box.ymin < p->box.ymax;
}

/* Words of the bitmaps the edge-flag engine would need for p and q. */
static double
BitmapWords(const PbShape *p, const PbShape *q)
{
	PbBox		w = PbWindow(p, q);

	return ((w.xmax - w.xmin + 63.0) / 64.0) * (w.ymax - w.ymin);
}

/*
 * Exact area of the intersection of shapes a and bb of batch b.  Integer
 * rectilinear pairs use the requested engine (auto: bitmaps when the window
 * is small, the integer sweep otherwise); any other pair uses the general
 * engine, whatever method says.
 */
double
PbIntersectionArea(PbScratch *s, const PbBatch *b, uint32_t a, uint32_t bb,
				   PbMethod method)
{
	const PbShape *p = &b->shapes[a];
	const PbShape *q = &b->shapes[bb];

	if (p->kind == PB_SHAPE_EMPTY || q->kind == PB_SHAPE_EMPTY || !BoxesOverlap(p, q))
		return 0.0;
	if (p->kind != PB_SHAPE_INT || q->kind != PB_SHAPE_INT)
		return PbAreaGeneral(s, b, p, q);
	switch (method)
	{
		case PB_METHOD_PIXELBOX:
			return PbAreaPixelBox(s, b, p, q);
		case PB_METHOD_BITMAP:
			return PbAreaBitmap(s, b, p, q);
		case PB_METHOD_SWEEP:
			return PbAreaSweep(s, b, p, q);
		case PB_METHOD_GENERAL:
			return PbAreaGeneral(s, b, p, q);
		case PB_METHOD_AUTO:
			break;
	}
	return BitmapWords(p, q) <= PB_BITMAP_MAX_WORDS ? PbAreaBitmap(s, b, p, q)
		: PbAreaSweep(s, b, p, q);
}
