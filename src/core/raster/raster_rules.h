/*
 * raster_rules.h: the pixel rules the raster CPU code (src/core/raster)
 * and the raster kernels (cuda/) share, written once as PB_XPU functions
 * (base/pb_xpu.h): the neighbour table, the blocks a changed pixel wakes,
 * the order-preserving level of a float and the steps the distance
 * transform compares candidates with.  Plain C that gcc and nvcc both
 * accept; no tables at file scope.
 */
#ifndef PB_RASTER_RULES_H
#define PB_RASTER_RULES_H

#include <math.h>
#include <stdint.h>

#include "../base/pb_xpu.h"

/*
 * The neighbours of a pixel, by index j: the 4-connected ones first (up,
 * left, right, down: 4-connectivity uses j < 4), then the diagonals.
 * This order is part of the watershed's definition (watershed.h: ties
 * between equal neighbours go to the first); reconstruction reaches its
 * unique fixpoint in any order, so it uses the same one.
 */
enum
{
	PB_NB_UP = 0,
	PB_NB_LEFT = 1,
	PB_NB_RIGHT = 2,
	PB_NB_DOWN = 3,
	PB_NB_UP_LEFT = 4,
	PB_NB_UP_RIGHT = 5,
	PB_NB_DOWN_LEFT = 6,
	PB_NB_DOWN_RIGHT = 7
};

/*
 * Eight offsets in {-1, 0, 1} packed as one constant, offset j + 1 in bits
 * 2j and 2j + 1: a table the compiler folds when j is known and reads
 * with a shift when it is not, on the host and the device alike.
 */
#define PB_NB_PACK(o0, o1, o2, o3, o4, o5, o6, o7) \
	((uint32_t) ((o0) + 1) | (uint32_t) ((o1) + 1) << 2 | \
	 (uint32_t) ((o2) + 1) << 4 | (uint32_t) ((o3) + 1) << 6 | \
	 (uint32_t) ((o4) + 1) << 8 | (uint32_t) ((o5) + 1) << 10 | \
	 (uint32_t) ((o6) + 1) << 12 | (uint32_t) ((o7) + 1) << 14)

/* Column offset dx of neighbour j (0..7). */
PB_XPU int
PbNbDx(int j)
{
	return (int) ((PB_NB_PACK(0, -1, 1, 0, -1, 1, -1, 1) >> (2 * j)) & 3u) - 1;
}

/* Row offset dy of neighbour j (0..7). */
PB_XPU int
PbNbDy(int j)
{
	return (int) ((PB_NB_PACK(-1, 0, 0, 1, -1, -1, 1, 1) >> (2 * j)) & 3u) - 1;
}

/* Whether neighbour j comes before its pixel in row-major order. */
PB_XPU int
PbNbBefore(int j)
{
	return PbNbDy(j) < 0 || (PbNbDy(j) == 0 && PbNbDx(j) < 0);
}

/*
 * The neighbour blocks a changed pixel (x, y) of a w x h block wakes: bit
 * j is set when the block in direction j (PbNbDx(j), PbNbDy(j)) holds a
 * neighbour of the pixel, i.e. the pixel lies on that side (both sides,
 * for a diagonal).  Tiled algorithms wake the blocks of these bits, for j
 * below their connectivity.
 */
PB_XPU unsigned
PbNbBlockBits(int x, int y, int w, int h)
{
	unsigned	bits = 0;

	for (int j = 0; j < 8; j++)
	{
		int			dx = PbNbDx(j),
					dy = PbNbDy(j);

		if ((dx == 0 || (dx < 0 ? x == 0 : x == w - 1)) &&
			(dy == 0 || (dy < 0 ? y == 0 : y == h - 1)))
			bits |= 1u << j;
	}
	return bits;
}

/*
 * The level of a float: its bits mapped so that unsigned order is numeric
 * order, -0 taken as +0 (so the two compare equal as levels, as they do
 * as floats).  +inf maps to 0xFF800000, -inf to 0x007FFFFF; NaNs land
 * beyond them, so callers that may meet one test for it first.  Integer
 * comparisons and atomics on levels then order floats (the watershed's
 * heights, the GPU reconstruction's values).
 */
PB_XPU uint32_t
PbFloatLevel(float f)
{
	union
	{
		float		f;
		uint32_t	u;
	}			v;

	v.f = f;
	if (v.u == 0x80000000u)		/* -0 */
		v.u = 0;
	return (v.u & 0x80000000u) ? ~v.u : (v.u | 0x80000000u);
}

/* The float of a level (the inverse of PbFloatLevel; -0 comes back as +0). */
PB_XPU float
PbFloatOfLevel(uint32_t level)
{
	union
	{
		float		f;
		uint32_t	u;
	}			v;

	v.u = (level & 0x80000000u) ? (level ^ 0x80000000u) : ~level;
	return v.f;
}

/*
 * Steps within 2^-480 .. 2^480 of each other's direction: squared
 * distances of up to PB_EDT_MAX_SIDE (2^17) of them are normal doubles,
 * neither overflowing nor underflowing.  Steps more than 2^500 apart: one
 * step of the larger outweighs any difference along the smaller
 * (PB_EDT_MAX_SIDE of them) many times.
 */
#define PB_EDT_SAFE_EXP 480
#define PB_EDT_APART_EXP 500

/*
 * The steps (cy, cx) the distance transform compares candidate background
 * pixels with, for spacing (sy, sx) (finite, > 0): candidates are ordered
 * by (dr cy)^2 + (dc cx)^2, each square rounded apart.
 *  - Steps of binary exponents within +-PB_EDT_SAFE_EXP and at most
 *    PB_EDT_APART_EXP apart: (sy, sx) themselves, k = 0: SciPy's doubles.
 *  - Else, at most PB_EDT_APART_EXP apart: both times 2^-k, the larger into
 *    [0.5, 1).  A power of two scales every product, square, sum and
 *    square root exactly (the smaller step stays above 2^-501, its squares
 *    normal), so the order and the distance sqrt(.) 2^k are SciPy's
 *    wherever SciPy's squares stay finite, and right where they overflow
 *    (background pixels 0, not sqrt(0 * inf)).
 *  - Further apart (apart = 1): the larger step's mantissa, the smaller
 *    2^-501.  Both the true distances and these order candidates first by
 *    the difference along the larger step, then along the smaller, and
 *    the distance is the larger of |dr sy| and |dc sx| (the other is below
 *    its rounding).
 */
typedef struct PbEdtSteps
{
	double		cy,
				cx;
	int			k;
	int			apart;
} PbEdtSteps;

/* The comparison steps of spacing (sy, sx): see above. */
PB_XPU PbEdtSteps
PbEdtStepsOf(double sy, double sx)
{
	PbEdtSteps	s;
	int			ey,
				ex,
				hi,
				lo;

	frexp(sy, &ey);
	frexp(sx, &ex);
	hi = ey > ex ? ey : ex;
	lo = ey > ex ? ex : ey;
	s.cy = sy;
	s.cx = sx;
	s.k = 0;
	s.apart = hi - lo > PB_EDT_APART_EXP;
	if (s.apart)
	{
		s.cy = ey > ex ? ldexp(sy, -ey) : ldexp(1.0, -PB_EDT_APART_EXP - 1);
		s.cx = ey > ex ? ldexp(1.0, -PB_EDT_APART_EXP - 1) : ldexp(sx, -ex);
	}
	else if (hi > PB_EDT_SAFE_EXP || lo < -PB_EDT_SAFE_EXP)
	{
		s.k = hi;
		s.cy = ldexp(sy, -hi);
		s.cx = ldexp(sx, -hi);
	}
	return s;
}

#endif							/* PB_RASTER_RULES_H */
