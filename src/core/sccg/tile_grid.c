/*
 * tile_grid.c: the grid of tiling.c (see tile_grid.h).
 */
#include <math.h>

#include "tile_grid.h"

/* nx x ny about cells: cells near square in the extent's units, one row if it is flat. */
void
PbTileGridSize(PbBox ext, uint32_t cells, uint32_t *nx, uint32_t *ny)
{
	double		w = ext.xmax - ext.xmin,
				h = ext.ymax - ext.ymin;
	double		fx;

	if (!(w > 0 && w < INFINITY) || !(h > 0 && h < INFINITY))
	{
		/* a line, a point, nothing, or too wide to divide: one row */
		*nx = (w > 0 && w < INFINITY) ? cells : 1;
		*ny = 1;
		return;
	}
	fx = ceil(sqrt(cells * w / h));
	*nx = fx < 1 ? 1 : fx > cells ? cells : (uint32_t) fx;
	*ny = (cells + *nx - 1) / *nx;
}

/* Boundaries lo + (hi - lo) * i / n, open at both ends; the guess's scale. */
void
PbTileAxisInit(PbTileAxis *a, const PbAllocator *mem, double lo, double hi, uint32_t n)
{
	a->b = mem->alloc(mem->ctx, sizeof(double) * ((size_t) n + 1));
	for (uint32_t i = 1; i < n; i++)
		a->b[i] = lo + (hi - lo) * ((double) i / n);
	a->b[0] = -INFINITY;
	a->b[n] = INFINITY;
	a->n = n;
	a->lo = lo;
	a->scale = n / (hi - lo);
}

/* Release an axis's boundaries. */
void
PbTileAxisFree(PbTileAxis *a, const PbAllocator *mem)
{
	mem->release(mem->ctx, a->b);
	a->b = NULL;
}
