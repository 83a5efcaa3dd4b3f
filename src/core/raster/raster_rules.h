/*
 * raster_rules.h: the pixel rules the raster CPU code (src/core/raster)
 * and the raster kernels (cuda/) share, written once as PB_XPU functions
 * (base/pb_xpu.h): the neighbour table, the blocks a changed pixel wakes
 * and the order-preserving level of a float.  Plain C that gcc and nvcc
 * both accept; no tables at file scope.
 */
#ifndef PB_RASTER_RULES_H
#define PB_RASTER_RULES_H

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

#endif							/* PB_RASTER_RULES_H */
