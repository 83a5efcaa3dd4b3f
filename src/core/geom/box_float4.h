/*
 * box_float4.h: the box rules of the filter, written once for the CPU
 * filter (src/core/sccg: the R-tree join and its tile tasks) and the
 * filter kernel (cuda/filter_kernels.cu), so that both find exactly the
 * pairs PostGIS's && finds and count each of them in one tile.
 *
 *  - PostGIS keeps a geometry's box as float4 (in GiST and GSERIALIZED),
 *    rounded outward: xmin, ymin down and xmax, ymax up to a float;
 *  - two boxes meet when they intersect as closed boxes (touching counts);
 *  - a pair is counted by the tile whose half-open window holds its
 *    reference point: the largest xmin and the largest ymin of the pair's
 *    float boxes.
 *
 * The tests take scalars, so the kernel keeps its float4 boxes and the CPU
 * its PbBox of doubles: a float widened to double compares the same.
 */
#ifndef PB_GEOM_BOX_FLOAT4_H
#define PB_GEOM_BOX_FLOAT4_H

#include <float.h>
#include <math.h>

#include "../base/pb_xpu.h"
#include "batch.h"

/*
 * PostGIS's next_float_down: the largest float <= d, clamped to
 * [-FLT_MAX, FLT_MAX] as PostGIS does (NaN stays NaN).
 */
PB_XPU float
PbFloatDown(double d)
{
	float		f;

	if (d > (double) FLT_MAX)
		return FLT_MAX;
	if (d <= -(double) FLT_MAX)
		return -FLT_MAX;
	f = (float) d;
	if ((double) f <= d)
		return f;
	return nextafterf(f, -FLT_MAX);
}

/* PostGIS's next_float_up: the smallest float >= d, clamped likewise. */
PB_XPU float
PbFloatUp(double d)
{
	float		f;

	if (d >= (double) FLT_MAX)
		return FLT_MAX;
	if (d < -(double) FLT_MAX)
		return -FLT_MAX;
	f = (float) d;
	if ((double) f >= d)
		return f;
	return nextafterf(f, FLT_MAX);
}

/*
 * Closed-box intersection, PostGIS && style, of boxes a and b given by
 * their corners; false when any compared value is NaN.
 */
PB_XPU int
PbBoxesMeet(double a_xmin, double a_ymin, double a_xmax, double a_ymax,
			double b_xmin, double b_ymin, double b_xmax, double b_ymax)
{
	return a_xmin <= b_xmax && b_xmin <= a_xmax &&
		a_ymin <= b_ymax && b_ymin <= a_ymax;
}

/*
 * Does the window hold the reference point of a pair of meeting float
 * boxes with lower corners (a_xmin, a_ymin) and (b_xmin, b_ymin)?  The
 * point is the larger xmin and the larger ymin; the window is half-open,
 * window->xmin <= x < window->xmax and likewise in y, so tiles that share
 * a side count a pair once.
 */
PB_XPU int
PbRefPointIn(double a_xmin, double a_ymin, double b_xmin, double b_ymin,
			 const PbBox *window)
{
	double		x = fmax(a_xmin, b_xmin),
				y = fmax(a_ymin, b_ymin);

	return x >= window->xmin && x < window->xmax &&
		y >= window->ymin && y < window->ymax;
}

#endif							/* PB_GEOM_BOX_FLOAT4_H */
