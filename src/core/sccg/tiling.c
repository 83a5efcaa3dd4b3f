/*
 * tiling.c: grid tiles over two polygon sets (see tiling.h).
 *
 * The shapes are split into contiguous ranges, each handled by one item of
 * a parallel loop, in three passes: float boxes and the extent; the cells
 * of each box, counted per range, cell and set; the ids written.  Sums of
 * the counts over (cell, range) give each range its write offsets in a
 * cell, so every range writes its ids in ascending order where the serial
 * loop would: the output does not depend on the thread count.  Memory is
 * allocated only between the passes, on the calling thread.
 */
#include <math.h>
#include <string.h>

#include "hilbert_rtree.h"
#include "../base/pb_base.h"
#include "device.h"
#include "tile_grid.h"
#include "tiling.h"

/* ranges per thread: items of the parallel loops, so that they balance */
#define RANGES_PER_THREAD 4

/* flags of a shape */
#define SHAPE_SET_B 1			/* in the second set (in_a[i] == 0): the set's index */
#define SHAPE_MIXED 2			/* not for the device (PbDeviceShape) */
#define SHAPE_EMPTY 4			/* PB_SHAPE_EMPTY: in no cell */

/* A shape's float box (xmin, ymin, xmax, ymax), then its cells (x0, x1, y0, y1). */
typedef union ShapeSpan
{
	float		box[4];
	uint32_t	cell[4];
} ShapeSpan;

/* A contiguous range of shapes and what the passes learn of it. */
typedef struct TileRange
{
	uint32_t	first,
				end;			/* shapes [first, end) */
	uint32_t	n;				/* of them not empty */
	PbBox		ext;			/* extent of their float boxes */
	/* per cell c: [3c + set] shapes of the set, then their write offset; [3c + 2] any mixed */
	uint32_t   *count;
} TileRange;

/* What the passes share. */
typedef struct TileJob
{
	const PbBatch *b;
	const uint8_t *in_a;
	ShapeSpan  *span;			/* per shape */
	uint8_t    *flags;			/* per shape: SHAPE_* */
	TileRange  *ranges;
	PbTileAxis	x,
				y;
	uint32_t	ncell;
	const uint32_t *cell_task;	/* per cell: its task, or UINT32_MAX */
	uint32_t   *ids;
} TileJob;

/*
 * How many ranges: a few per thread, but no more than keeps their counts
 * (three words per cell and range) within three words per shape.
 */
static uint32_t
RangeCount(uint32_t nshapes, uint32_t per_tile, int threads)
{
	uint64_t	cells_max = 2 * ((uint64_t) nshapes / per_tile + 1);
	uint64_t	r = threads > 1 ? (uint64_t) threads * RANGES_PER_THREAD : 1;
	uint64_t	cap = nshapes / cells_max;

	if (r > cap)
		r = cap;
	return r < 1 ? 1 : (uint32_t) r;
}

/*
 * Grow ext to cover f, skipping NaN as fmin and fmax do (inlined: they are
 * calls).  Which zero a bound keeps does not matter: the cell boundaries
 * come out the same.
 */
static inline void
Extend(PbBox *ext, const PbBox *f)
{
	ext->xmin = f->xmin < ext->xmin ? f->xmin : ext->xmin;
	ext->ymin = f->ymin < ext->ymin ? f->ymin : ext->ymin;
	ext->xmax = f->xmax > ext->xmax ? f->xmax : ext->xmax;
	ext->ymax = f->ymax > ext->ymax ? f->ymax : ext->ymax;
}

/* Pass 0, range r: flags, float boxes, and the range's extent. */
static void
BoxPass(void *arg, int64_t r)
{
	TileJob    *job = arg;
	TileRange  *rg = &job->ranges[r];
	PbBox		ext = {INFINITY, INFINITY, -INFINITY, -INFINITY};
	uint32_t	n = 0;

	for (uint32_t i = rg->first; i < rg->end; i++)
	{
		const PbShape *s = &job->b->shapes[i];
		PbBox		f;

		if (s->kind == PB_SHAPE_EMPTY)
		{
			job->flags[i] = SHAPE_EMPTY;
			continue;
		}
		job->flags[i] = (job->in_a[i] ? 0 : SHAPE_SET_B) | (PbDeviceShape(job->b, s) ? 0 : SHAPE_MIXED);
		f = PbBoxAsPostgisFloat(s->box);
		/* floats (or NaN) already: exact as float */
		job->span[i].box[0] = (float) f.xmin;
		job->span[i].box[1] = (float) f.ymin;
		job->span[i].box[2] = (float) f.xmax;
		job->span[i].box[3] = (float) f.ymax;
		Extend(&ext, &f);
		n++;
	}
	rg->ext = ext;
	rg->n = n;
}

/* Pass 1, range r: each box's cells (in place), counted per cell and set. */
static void
CountPass(void *arg, int64_t r)
{
	TileJob    *job = arg;
	TileRange  *rg = &job->ranges[r];
	uint32_t   *count = rg->count;

	memset(count, 0, sizeof(uint32_t) * 3 * (size_t) job->ncell);
	for (uint32_t i = rg->first; i < rg->end; i++)
	{
		ShapeSpan  *sp = &job->span[i];
		uint8_t		fl = job->flags[i];
		uint32_t	x0,
					x1,
					y0,
					y1;

		if (fl & SHAPE_EMPTY)
		{
			/* no cell: x0 > x1 */
			sp->cell[0] = sp->cell[2] = 1;
			sp->cell[1] = sp->cell[3] = 0;
			continue;
		}
		x0 = PbTileFirstCell(&job->x, sp->box[0]);
		y0 = PbTileFirstCell(&job->y, sp->box[1]);
		x1 = PbTileLastCell(&job->x, sp->box[2], x0);
		y1 = PbTileLastCell(&job->y, sp->box[3], y0);
		sp->cell[0] = x0;
		sp->cell[1] = x1;
		sp->cell[2] = y0;
		sp->cell[3] = y1;
		for (uint32_t y = y0; y <= y1; y++)
			for (uint32_t x = x0; x <= x1; x++)
			{
				uint32_t	c = y * job->x.n + x;

				count[3 * c + (fl & SHAPE_SET_B)]++;
				count[3 * c + 2] |= fl & SHAPE_MIXED;
			}
	}
}

/* Pass 2, range r: each shape's id into the tasks of its cells. */
static void
PlacePass(void *arg, int64_t r)
{
	TileJob    *job = arg;
	TileRange  *rg = &job->ranges[r];
	uint32_t   *next = rg->count;

	for (uint32_t i = rg->first; i < rg->end; i++)
	{
		const ShapeSpan *sp = &job->span[i];
		uint32_t	set = job->flags[i] & SHAPE_SET_B;

		for (uint32_t y = sp->cell[2]; y <= sp->cell[3]; y++)
			for (uint32_t x = sp->cell[0]; x <= sp->cell[1]; x++)
			{
				uint32_t	c = y * job->x.n + x;

				if (job->cell_task[c] != UINT32_MAX)
					job->ids[next[3 * c + set]++] = i;
			}
	}
}

/* Split the shapes into ranges and run pass 0; returns the shapes not empty. */
static uint32_t
Boxes(TileJob *job, uint32_t nranges, const PbRun *run, PbBox *ext)
{
	uint32_t	n = 0;

	for (uint32_t r = 0; r < nranges; r++)
	{
		job->ranges[r].first = (uint32_t) ((uint64_t) job->b->nshapes * r / nranges);
		job->ranges[r].end = (uint32_t) ((uint64_t) job->b->nshapes * (r + 1) / nranges);
	}
	PbParallelFor(run, nranges, BoxPass, job);
	*ext = (PbBox) {INFINITY, INFINITY, -INFINITY, -INFINITY};
	for (uint32_t r = 0; r < nranges; r++)
	{
		Extend(ext, &job->ranges[r].ext);
		n += job->ranges[r].n;
	}
	return n;
}

/* Shapes of set (0: a, 1: b) meeting cell c, over all ranges. */
static uint32_t
CellTotal(const TileJob *job, uint32_t nranges, uint32_t c, uint32_t set)
{
	uint32_t	sum = 0;

	for (uint32_t r = 0; r < nranges; r++)
		sum += job->ranges[r].count[3 * c + set];
	return sum;
}

/* The cells the grid aims at for n shapes of per_tile a tile (per_tile >= 1). */
static uint32_t
GridCells(uint32_t n, uint32_t per_tile)
{
	return n / per_tile + 1;
}

/* See tiling.h: the cells of PbTileGrid's grid bound its tasks. */
uint64_t
PbTileGridMaxTasks(uint32_t nshapes, uint32_t per_tile)
{
	uint64_t	cells = GridCells(nshapes, per_tile ? per_tile : 1);

	/* PbTileGridSize rounds the rows up: nx * ny < cells + nx <= 2 * cells */
	return 2 * cells;
}

/*
 * The tasks: one per cell holding both sets (no pair can form elsewhere),
 * in cell order; each range's counts in a task's cell become its write
 * offsets: set a's ids, then set b's, each in range order.
 */
static void
MakeTasks(PbTiling *tl, TileJob *job, uint32_t nranges, uint32_t *cell_task,
		  const PbAllocator *mem)
{
	uint64_t	total = 0;

	for (uint32_t c = 0; c < job->ncell; c++)
	{
		uint32_t	na = CellTotal(job, nranges, c, 0),
					nb = CellTotal(job, nranges, c, 1);

		cell_task[c] = UINT32_MAX;
		if (na == 0 || nb == 0)
			continue;
		cell_task[c] = tl->ntasks++;
		total += (uint64_t) na + nb;
	}
	tl->tasks = mem->alloc(mem->ctx, sizeof(PbTask) * ((size_t) tl->ntasks + 1));
	memset(tl->tasks, 0, sizeof(PbTask) * ((size_t) tl->ntasks + 1));
	tl->ids = mem->alloc(mem->ctx, sizeof(uint32_t) * (size_t) (total + 1));
	total = 0;
	for (uint32_t c = 0; c < job->ncell; c++)
	{
		PbTask	   *t;
		uint32_t	next[2];

		if (cell_task[c] == UINT32_MAX)
			continue;
		t = &tl->tasks[cell_task[c]];
		t->src = job->b;
		t->na = CellTotal(job, nranges, c, 0);
		t->nb = CellTotal(job, nranges, c, 1);
		t->src_ids = tl->ids + total;
		t->all_int = 1;
		t->ref.xmin = job->x.b[c % job->x.n];
		t->ref.xmax = job->x.b[c % job->x.n + 1];
		t->ref.ymin = job->y.b[c / job->x.n];
		t->ref.ymax = job->y.b[c / job->x.n + 1];
		next[0] = (uint32_t) total;
		next[1] = (uint32_t) total + t->na;
		for (uint32_t r = 0; r < nranges; r++)
		{
			uint32_t   *count = job->ranges[r].count + 3 * (size_t) c;

			for (int set = 0; set < 2; set++)
			{
				uint32_t	k = count[set];

				count[set] = next[set];
				next[set] += k;
			}
			if (count[2])
				t->all_int = 0;
		}
		total += (uint64_t) t->na + t->nb;
	}
}

void
PbTileGrid(PbTiling *tl, const PbBatch *b, const uint8_t *in_a, uint32_t per_tile,
		   const PbAllocator *mem, int threads)
{
	TileJob		job;
	PbRun run = {0};
	uint32_t	nranges,
				n;
	uint32_t   *counts,
			   *cell_task;
	PbBox		ext;

	memset(tl, 0, sizeof(*tl));
	memset(&job, 0, sizeof(job));
	run.threads = threads > 1 ? threads : 1;	/* no poll: nothing stops it */
	per_tile = per_tile ? per_tile : 1;
	nranges = RangeCount(b->nshapes, per_tile, run.threads);
	job.b = b;
	job.in_a = in_a;
	job.span = mem->alloc(mem->ctx, sizeof(ShapeSpan) * ((size_t) b->nshapes + 1));
	job.flags = mem->alloc(mem->ctx, (size_t) b->nshapes + 1);
	job.ranges = mem->alloc(mem->ctx, sizeof(TileRange) * nranges);
	n = Boxes(&job, nranges, &run, &ext);

	PbTileGridSize(ext, GridCells(n, per_tile), &tl->nx, &tl->ny);
	PbTileAxisInit(&job.x, mem, ext.xmin, ext.xmax, tl->nx);
	PbTileAxisInit(&job.y, mem, ext.ymin, ext.ymax, tl->ny);
	job.ncell = tl->nx * tl->ny;
	counts = mem->alloc(mem->ctx, sizeof(uint32_t) * 3 * (size_t) job.ncell * nranges);
	for (uint32_t r = 0; r < nranges; r++)
		job.ranges[r].count = counts + 3 * (size_t) job.ncell * r;
	PbParallelFor(&run, nranges, CountPass, &job);

	cell_task = mem->alloc(mem->ctx, sizeof(uint32_t) * (size_t) job.ncell);
	MakeTasks(tl, &job, nranges, cell_task, mem);
	job.cell_task = cell_task;
	job.ids = tl->ids;
	PbParallelFor(&run, nranges, PlacePass, &job);

	mem->release(mem->ctx, cell_task);
	mem->release(mem->ctx, counts);
	PbTileAxisFree(&job.x, mem);
	PbTileAxisFree(&job.y, mem);
	mem->release(mem->ctx, job.ranges);
	mem->release(mem->ctx, job.flags);
	mem->release(mem->ctx, job.span);
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
