/*
 * fuzz_area.c: the checks of intersection areas the harnesses share (see
 * fuzz.h): range, symmetry, and agreement of the engines on int pairs.
 */
#include <float.h>
#include <math.h>

#include "fuzz.h"

/* Coordinates beyond this may overflow products: only crashes are checked. */
#define FUZZ_MAX_MAGNITUDE 1e100
/* Bound on the cells of the window for PixelBox-CPU (its cost grows with them). */
#define FUZZ_PIXELBOX_MAX_CELLS 65536.0

/* Whether the boxes of p and q overlap with positive area (intersect.c's test). */
static int
Overlap(const PbShape *p, const PbShape *q)
{
	return p->box.xmin < q->box.xmax && q->box.xmin < p->box.xmax &&
		p->box.ymin < q->box.ymax && q->box.ymin < p->box.ymax;
}

/* Check the intersection area of shapes a and c (see fuzz.h). */
void
FuzzCheckPairArea(PbScratch *s, const PbBatch *b, uint32_t a, uint32_t c,
				  size_t max_points)
{
	const PbShape *p = &b->shapes[a];
	const PbShape *q = &b->shapes[c];
	PbBox		w;
	double		warea,
				tol,
				r,
				r2;

	if (PbShapePoints(b, p) > max_points || PbShapePoints(b, q) > max_points)
		return;
	r = PbIntersectionArea(s, b, a, c, PB_METHOD_AUTO);
	r2 = PbIntersectionArea(s, b, c, a, PB_METHOD_AUTO);
	if (FuzzShapeMagnitude(b, a) > FUZZ_MAX_MAGNITUDE ||
		FuzzShapeMagnitude(b, c) > FUZZ_MAX_MAGNITUDE)
		return;
	if (p->kind == PB_SHAPE_EMPTY || q->kind == PB_SHAPE_EMPTY || !Overlap(p, q))
	{
		FUZZ_CHECK(r == 0.0 && r2 == 0.0, "area %.17g of shapes without a common box", r);
		return;
	}
	w = PbWindow(p, q);
	warea = (w.xmax - w.xmin) * (w.ymax - w.ymin);
	/* rounding: relative to the window, and no finer than normal doubles */
	tol = 1e-9 * warea + DBL_MIN;
	FUZZ_CHECK(isfinite(r) && r >= 0.0 && r <= warea + tol,
			   "area %.17g outside [0, %.17g] (the window)", r, warea);
	FUZZ_CHECK(fabs(r - r2) <= tol, "area %.17g one way round, %.17g the other", r, r2);
	if (p->kind != PB_SHAPE_INT || q->kind != PB_SHAPE_INT)
		return;
	/* exact integer engines agree exactly, the general one within rounding */
	r2 = PbIntersectionArea(s, b, a, c, PB_METHOD_SWEEP);
	FUZZ_CHECK(r2 == r, "sweep %.17g, auto %.17g", r2, r);
	if (((w.xmax - w.xmin + 63.0) / 64.0) * (w.ymax - w.ymin) <= PB_BITMAP_MAX_WORDS)
	{
		r2 = PbIntersectionArea(s, b, a, c, PB_METHOD_BITMAP);
		FUZZ_CHECK(r2 == r, "bitmap %.17g, auto %.17g", r2, r);
	}
	if (warea <= FUZZ_PIXELBOX_MAX_CELLS)
	{
		r2 = PbIntersectionArea(s, b, a, c, PB_METHOD_PIXELBOX);
		FUZZ_CHECK(r2 == r, "pixelbox %.17g, auto %.17g", r2, r);
	}
	r2 = PbIntersectionArea(s, b, a, c, PB_METHOD_GENERAL);
	FUZZ_CHECK(fabs(r2 - r) <= tol, "general %.17g, auto %.17g", r2, r);
}

/* Decode the input twice after prefilled shapes and check every outcome. */
void
FuzzDecoder(FuzzDecodeFn decode, const uint8_t *data, size_t size)
{
	PbBatch		b;
	PbScratch	s;
	PbError		err,
				err2;
	FuzzBatchMark mark;
	uint32_t	shape = UINT32_MAX,
				shape2 = UINT32_MAX;
	PbStatus	st,
				st2;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&s, &PbMallocAllocator);
	FuzzPrefillBatch(&b);
	mark = FuzzMark(&b);
	st = decode(&b, data, size, &shape, &err);
	FuzzCheckDecoded(&b, &mark, st, shape, &err);
	mark = FuzzMark(&b);
	st2 = decode(&b, data, size, &shape2, &err2);
	FuzzCheckDecoded(&b, &mark, st2, shape2, &err2);
	FUZZ_CHECK(st == st2, "decoded twice: status %d, then %d", (int) st, (int) st2);
	if (st == PB_OK)
	{
		FUZZ_CHECK(FuzzSameShape(&b, shape, &b, shape2), "decoded twice: two shapes");
		FuzzCheckPairArea(&s, &b, shape, shape2, 4096);
		FuzzCheckPairArea(&s, &b, shape, 0, 4096);
		FuzzCheckPairArea(&s, &b, shape, 1, 4096);
	}
	PbScratchFree(&s);
	PbBatchFree(&b);
}
