/*
 * long_shapes.h: big valid polygons that make slab engines work hard
 * (combs with teeth along x or y, rectangular spirals, near-circles of
 * many vertices), each with an independent truth: combs and spirals are
 * disjoint unions of axis-aligned rectangles, so their intersection with
 * an axis-aligned box is a sum of clipped rectangle areas.  Shared by the
 * C tests (test_long_pairs.c) and bench/bench_long.c.
 */
#ifndef PB_TEST_LONG_SHAPES_H
#define PB_TEST_LONG_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/geom/pb_geom.h"

/* One ring as points (x, y), closing point included, and its pieces. */
typedef struct LongShape
{
	double	   *xy;				/* 2 * npoints doubles */
	uint32_t	npoints;
	double	   *rects;			/* disjoint boxes: xmin, ymin, xmax, ymax */
	size_t		nrects;
} LongShape;

/*
 * A comb: a bar [0, 2 teeth - 1] x [0, 1] with teeth [2i, 2i + 1] x
 * [1, height]; 4 teeth vertices.  transpose swaps x and y (teeth along y).
 */
extern LongShape LongComb(int teeth, int height, int transpose);
/*
 * A rectangular spiral: a path of the given number of segments (lengths
 * 4, 4, 8, 8, 12, ...) turning left, thickened to width 2; 2 (segments + 1)
 * vertices, every arm 2 apart from the next.
 */
extern LongShape LongSpiral(int segments);
/* A regular n-gon of radius r centred at (cx, cy) (no pieces). */
extern LongShape LongCircle(uint32_t n, double r, double cx, double cy);
/* A box as a closed ring of 5 points. */
extern LongShape LongBox(double xmin, double ymin, double xmax, double ymax);
extern void LongFree(LongShape *s);

/* Apply x += k * y to every point (a shear keeps every area). */
extern void LongShear(LongShape *s, double k);
/* Exact area of the shape's pieces inside the box (its truth). */
extern double LongBoxArea(const LongShape *s, double xmin, double ymin,
						  double xmax, double ymax);
/* Append the ring as a one-ring polygon to b; returns its shape index. */
extern uint32_t LongAdd(PbBatch *b, const LongShape *s);

#endif							/* PB_TEST_LONG_SHAPES_H */
