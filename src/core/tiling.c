/*
 * tiling.c: grid tiles over two polygon sets (see tiling.h).
 */
#include <math.h>
#include <string.h>

#include "hilbert_rtree.h"
#include "tiling.h"

/* Cell boundaries of one axis: b[0] = -inf, b[n] = +inf, equal steps between. */
static double *
Boundaries(const PbAllocator *mem, double lo, double hi, uint32_t n)
{
	double	   *b = mem->alloc(mem->ctx, sizeof(double) * (n + 1));

	for (uint32_t i = 1; i < n; i++)
		b[i] = lo + (hi - lo) * ((double) i / n);
	b[0] = -INFINITY;
	b[n] = INFINITY;
	return b;
}

/* Where v falls among n equal cells over [lo, hi]: a guess, clamped to a cell. */
static uint32_t
Guess(double v, double lo, double hi, uint32_t n)
{
	double		g = (v - lo) / (hi - lo) * n;

	if (!(g > 0))
		return 0;				/* below, or NaN from a degenerate extent */
	return g >= n - 1 ? n - 1 : (uint32_t) g;
}

/*
 * First cell i (of n, boundaries b) with v < b[i + 1]: the first cell a
 * box starting at v meets.  The guess is corrected against the boundaries
 * themselves, so rounding in the guess never matters.
 */
static uint32_t
FirstCell(const double *b, uint32_t n, double v, double lo, double hi)
{
	uint32_t	i = Guess(v, lo, hi, n);

	while (i > 0 && v < b[i])
		i--;
	while (i < n - 1 && !(v < b[i + 1]))
		i++;
	return i;
}

/* Last cell i (of n) with b[i] <= v: the last cell a box ending at v meets. */
static uint32_t
LastCell(const double *b, uint32_t n, double v, double lo, double hi)
{
	uint32_t	i = Guess(v, lo, hi, n);

	while (i > 0 && !(b[i] <= v))
		i--;
	while (i < n - 1 && b[i + 1] <= v)
		i++;
	return i;
}

/* Choose the grid: about cells cells, shaped like the extent. */
static void
GridSize(PbTiling *tl, PbBox ext, uint32_t cells)
{
	double		w = ext.xmax - ext.xmin,
				h = ext.ymax - ext.ymin;
	double		fx;

	if (!(w > 0 && w < INFINITY) || !(h > 0 && h < INFINITY))
	{
		/* a line, a point, nothing, or too wide to divide: one row */
		tl->nx = (w > 0 && w < INFINITY) ? cells : 1;
		tl->ny = 1;
		return;
	}
	fx = ceil(sqrt(cells * w / h));
	tl->nx = fx < 1 ? 1 : fx > cells ? cells : (uint32_t) fx;
	tl->ny = (cells + tl->nx - 1) / tl->nx;
}

void
PbTileGrid(PbTiling *tl, const PbBatch *b, const uint8_t *in_a, uint32_t per_tile,
		   const PbAllocator *mem)
{
	PbBox		ext = {INFINITY, INFINITY, -INFINITY, -INFINITY};
	uint32_t	n = 0,
				ncell;
	double	   *bx,
			   *by;
	uint32_t   *next;			/* per cell and set [2 * cell + set]: count, then write offset */
	uint32_t   *cell_task;		/* per cell: its task, or UINT32_MAX */
	uint64_t	total = 0;
	PbBox	   *fbox = mem->alloc(mem->ctx, sizeof(PbBox) * ((size_t) b->nshapes + 1));

	memset(tl, 0, sizeof(*tl));
	for (uint32_t i = 0; i < b->nshapes; i++)
	{
		if (b->shapes[i].kind == PB_SHAPE_EMPTY)
			continue;
		fbox[i] = PbBoxAsPostgisFloat(b->shapes[i].box);
		ext.xmin = fmin(ext.xmin, fbox[i].xmin);
		ext.ymin = fmin(ext.ymin, fbox[i].ymin);
		ext.xmax = fmax(ext.xmax, fbox[i].xmax);
		ext.ymax = fmax(ext.ymax, fbox[i].ymax);
		n++;
	}
	GridSize(tl, ext, n / (per_tile ? per_tile : 1) + 1);
	bx = Boundaries(mem, ext.xmin, ext.xmax, tl->nx);
	by = Boundaries(mem, ext.ymin, ext.ymax, tl->ny);
	ncell = tl->nx * tl->ny;
	next = mem->alloc(mem->ctx, sizeof(uint32_t) * 2 * (size_t) ncell);
	cell_task = mem->alloc(mem->ctx, sizeof(uint32_t) * (size_t) ncell);
	memset(next, 0, sizeof(uint32_t) * 2 * (size_t) ncell);

	for (int pass = 0; pass < 2; pass++)
	{
		/* pass 0 counts the shapes of each set meeting each cell, pass 1 places them */
		for (uint32_t i = 0; i < b->nshapes; i++)
		{
			uint32_t	x0,
						x1,
						y0,
						y1,
						set = in_a[i] ? 0 : 1;

			if (b->shapes[i].kind == PB_SHAPE_EMPTY)
				continue;
			x0 = FirstCell(bx, tl->nx, fbox[i].xmin, ext.xmin, ext.xmax);
			x1 = LastCell(bx, tl->nx, fbox[i].xmax, ext.xmin, ext.xmax);
			y0 = FirstCell(by, tl->ny, fbox[i].ymin, ext.ymin, ext.ymax);
			y1 = LastCell(by, tl->ny, fbox[i].ymax, ext.ymin, ext.ymax);
			for (uint32_t y = y0; y <= y1; y++)
				for (uint32_t x = x0; x <= x1; x++)
				{
					uint32_t	c = y * tl->nx + x;

					if (pass == 0)
						next[2 * c + set]++;
					else if (cell_task[c] != UINT32_MAX)
					{
						tl->ids[next[2 * c + set]++] = i;
						if (b->shapes[i].kind != PB_SHAPE_INT)
							tl->tasks[cell_task[c]].all_int = 0;
					}
				}
		}
		if (pass == 1)
			break;
		/* a task per cell holding both sets (no pair can form elsewhere) */
		for (uint32_t c = 0; c < ncell; c++)
			if (next[2 * c] > 0 && next[2 * c + 1] > 0)
				tl->ntasks++;
		tl->tasks = mem->alloc(mem->ctx, sizeof(PbTask) * ((size_t) tl->ntasks + 1));
		memset(tl->tasks, 0, sizeof(PbTask) * ((size_t) tl->ntasks + 1));
		for (uint32_t c = 0; c < ncell; c++)
			total += next[2 * c] > 0 && next[2 * c + 1] > 0 ? (uint64_t) next[2 * c] + next[2 * c + 1] : 0;
		tl->ids = mem->alloc(mem->ctx, sizeof(uint32_t) * (size_t) (total + 1));
		total = 0;
		for (uint32_t c = 0, k = 0; c < ncell; c++)
		{
			PbTask	   *t = &tl->tasks[k];

			cell_task[c] = UINT32_MAX;
			if (next[2 * c] == 0 || next[2 * c + 1] == 0)
				continue;
			cell_task[c] = k++;
			t->src = b;
			t->na = next[2 * c];
			t->nb = next[2 * c + 1];
			t->src_ids = tl->ids + total;
			t->all_int = 1;
			t->ref.xmin = bx[c % tl->nx];
			t->ref.xmax = bx[c % tl->nx + 1];
			t->ref.ymin = by[c / tl->nx];
			t->ref.ymax = by[c / tl->nx + 1];
			next[2 * c] = (uint32_t) total;
			next[2 * c + 1] = (uint32_t) total + t->na;
			total += (uint64_t) t->na + t->nb;
		}
	}
	mem->release(mem->ctx, next);
	mem->release(mem->ctx, cell_task);
	mem->release(mem->ctx, bx);
	mem->release(mem->ctx, by);
	mem->release(mem->ctx, fbox);
}

void
PbTilingFree(PbTiling *tl, const PbAllocator *mem)
{
	if (tl->tasks)
		mem->release(mem->ctx, tl->tasks);
	if (tl->ids)
		mem->release(mem->ctx, tl->ids);
	memset(tl, 0, sizeof(*tl));
}
