/*
 * tile_grid.h: the grid of tiling.c: its size, the cell boundaries of an
 * axis, and the cells a float box meets.
 */
#ifndef PB_TILE_GRID_H
#define PB_TILE_GRID_H

#include "../geom/batch.h"

/* One axis of the grid: n cells, b[0] = -inf, b[n] = +inf, equal steps between. */
typedef struct PbTileAxis
{
	double	   *b;				/* n + 1 boundaries */
	uint32_t	n;
	double		lo,
				scale;			/* guesses: cell of v about (v - lo) * scale */
} PbTileAxis;

/* Choose the grid: about cells cells, shaped like the extent ext. */
extern void PbTileGridSize(PbBox ext, uint32_t cells, uint32_t *nx, uint32_t *ny);

/* An axis of n cells over [lo, hi] (memory from mem); PbTileAxisFree releases it. */
extern void PbTileAxisInit(PbTileAxis *a, const PbAllocator *mem, double lo, double hi,
						   uint32_t n);
extern void PbTileAxisFree(PbTileAxis *a, const PbAllocator *mem);

/* Where v falls on the axis: a guess, clamped to a cell. */
static inline uint32_t
PbTileGuess(const PbTileAxis *a, double v)
{
	double		g = (v - a->lo) * a->scale;

	if (!(g > 0))
		return 0;				/* below, or NaN from a degenerate extent */
	return g >= a->n - 1 ? a->n - 1 : (uint32_t) g;
}

/*
 * First cell i with v < b[i + 1]: the first cell a box starting at v
 * meets.  The guess is corrected against the boundaries themselves, so
 * rounding in the guess never matters.
 */
static inline uint32_t
PbTileFirstCell(const PbTileAxis *a, double v)
{
	uint32_t	i = PbTileGuess(a, v);

	while (i > 0 && v < a->b[i])
		i--;
	while (i < a->n - 1 && !(v < a->b[i + 1]))
		i++;
	return i;
}

/*
 * Last cell i with b[i] <= v: the last cell a box ending at v meets,
 * searched from cell i (any cell: the box's first is a good start).
 */
static inline uint32_t
PbTileLastCell(const PbTileAxis *a, double v, uint32_t i)
{
	while (i > 0 && !(a->b[i] <= v))
		i--;
	while (i < a->n - 1 && a->b[i + 1] <= v)
		i++;
	return i;
}

#endif							/* PB_TILE_GRID_H */
