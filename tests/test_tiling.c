/*
 * test_tiling.c: the grid tiling (tiling.c, tile_grid.c) against a plain
 * serial reference written here: the extent of the float boxes, the grid
 * size of tiling.h's rule, and for every cell in order the shapes whose
 * float boxes meet it, found by scanning all shapes.  For every thread
 * count the grid, tasks, ids, windows and flags must be the reference's,
 * bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/sccg/pb_sccg.h"
#include "testutil.h"

/* Shapes of two sets: in_a[i] says which set shape i is in. */
typedef struct TileSets
{
	PbBatch		b;
	uint8_t    *in_a;
} TileSets;

/* Start empty sets. */
static void
SetsInit(TileSets *s)
{
	PbBatchInit(&s->b, &PbMallocAllocator);
	s->in_a = NULL;
}

/* Append a shape given as WKT to set a (in_a) or b. */
static void
Add(TileSets *s, const char *wkt, int in_a)
{
	uint32_t	shape = DecodeWkt(&s->b, wkt, 0);

	s->in_a = realloc(s->in_a, s->b.nshapes);
	s->in_a[shape] = (uint8_t) in_a;
}

/* Append the box [x0, x1] x [y0, y1] as a polygon ("%.17g" coordinates). */
static void
AddBox(TileSets *s, double x0, double y0, double x1, double y1, int in_a)
{
	char		wkt[256];

	snprintf(wkt, sizeof(wkt), "POLYGON((%.17g %.17g,%.17g %.17g,%.17g %.17g,%.17g %.17g,%.17g %.17g))",
			 x0, y0, x1, y0, x1, y1, x0, y1, x0, y0);
	Add(s, wkt, in_a);
}

/* Free the sets. */
static void
SetsFree(TileSets *s)
{
	PbBatchFree(&s->b);
	free(s->in_a);
}

/*
 * n random shapes over [0, span)^2: mostly small integer boxes, some with
 * fractional corners (not integer shapes), some spanning many cells, some
 * empty; each in a random set (set a only when only_a).
 */
static void
RandomSets(TileSets *s, Rng *r, int n, int64_t span, int only_a)
{
	for (int k = 0; k < n; k++)
	{
		int			in_a = only_a || RngNext(r) % 2;
		int			kind = (int) (RngNext(r) % 20);
		double		x = (double) RngRange(r, 0, span - 1),
					y = (double) RngRange(r, 0, span - 1),
					w = (double) RngRange(r, 0, span / 40),
					h = (double) RngRange(r, 0, span / 40);

		if (kind == 0)
			Add(s, "POLYGON EMPTY", in_a);
		else if (kind == 1)
			AddBox(s, x / 3, y, x / 3 + span / 2, y + h + 0.5, in_a);	/* wide, fractional */
		else if (kind == 2)
			AddBox(s, x, y / 2, x + w, y / 2 + span / 2, in_a);	/* tall */
		else if (kind == 3)
			AddBox(s, x + 0.25, y, x + w + 0.75, y + h, in_a);
		else
			AddBox(s, x, y, x + w, y + h, in_a);
	}
}

/* Expected tasks appended one by one. */
typedef struct RefTiling
{
	PbTiling	tl;
	uint64_t	nids,
				cap;
} RefTiling;

/* Append to the reference task of the cell the shapes of set a (set 0) or b meeting it. */
static uint32_t
RefCollect(RefTiling *ref, const TileSets *s, const PbBox *fbox, PbBox cell, int set)
{
	uint32_t	count = 0;

	for (uint32_t i = 0; i < s->b.nshapes; i++)
	{
		const PbBox *f = &fbox[i];

		if (s->b.shapes[i].kind == PB_SHAPE_EMPTY || (s->in_a[i] != 0) != (set == 0))
			continue;
		if (f->xmin < cell.xmax && f->xmax >= cell.xmin && f->ymin < cell.ymax && f->ymax >= cell.ymin)
		{
			if (ref->nids == ref->cap)
				ref->tl.ids = realloc(ref->tl.ids, sizeof(uint32_t) * (ref->cap = 2 * ref->cap + 64));
			ref->tl.ids[ref->nids++] = i;
			count++;
		}
	}
	return count;
}

/* The boundary i of n equal cells over [lo, hi], +-inf at the ends. */
static double
RefBoundary(double lo, double hi, uint32_t i, uint32_t n)
{
	if (i == 0)
		return -INFINITY;
	if (i == n)
		return INFINITY;
	return lo + (hi - lo) * ((double) i / n);
}

/* The tiling by its definition, serially and by brute force (src_ids as offsets into ids). */
static void
Reference(RefTiling *ref, const TileSets *s, uint32_t per_tile)
{
	PbBox		ext = {INFINITY, INFINITY, -INFINITY, -INFINITY};
	PbBox	   *fbox = calloc(s->b.nshapes + 1, sizeof(PbBox));
	uint32_t	n = 0,
				cells;
	double		w,
				h;

	memset(ref, 0, sizeof(*ref));
	for (uint32_t i = 0; i < s->b.nshapes; i++)
		if (s->b.shapes[i].kind != PB_SHAPE_EMPTY)
		{
			fbox[i] = PbBoxAsPostgisFloat(s->b.shapes[i].box);
			ext.xmin = fmin(ext.xmin, fbox[i].xmin);
			ext.ymin = fmin(ext.ymin, fbox[i].ymin);
			ext.xmax = fmax(ext.xmax, fbox[i].xmax);
			ext.ymax = fmax(ext.ymax, fbox[i].ymax);
			n++;
		}
	cells = n / (per_tile ? per_tile : 1) + 1;
	w = ext.xmax - ext.xmin;
	h = ext.ymax - ext.ymin;
	if (w > 0 && w < INFINITY && h > 0 && h < INFINITY)
	{
		ref->tl.nx = (uint32_t) fmin(fmax(ceil(sqrt(cells * w / h)), 1), cells);
		ref->tl.ny = (cells + ref->tl.nx - 1) / ref->tl.nx;
	}
	else
	{
		ref->tl.nx = w > 0 && w < INFINITY ? cells : 1;
		ref->tl.ny = 1;
	}
	ref->tl.tasks = calloc((size_t) ref->tl.nx * ref->tl.ny + 1, sizeof(PbTask));
	for (uint32_t cy = 0; cy < ref->tl.ny; cy++)
		for (uint32_t cx = 0; cx < ref->tl.nx; cx++)
		{
			PbTask	   *t = &ref->tl.tasks[ref->tl.ntasks];
			uint64_t	first = ref->nids;

			t->ref.xmin = RefBoundary(ext.xmin, ext.xmax, cx, ref->tl.nx);
			t->ref.xmax = RefBoundary(ext.xmin, ext.xmax, cx + 1, ref->tl.nx);
			t->ref.ymin = RefBoundary(ext.ymin, ext.ymax, cy, ref->tl.ny);
			t->ref.ymax = RefBoundary(ext.ymin, ext.ymax, cy + 1, ref->tl.ny);
			t->na = RefCollect(ref, s, fbox, t->ref, 0);
			t->nb = RefCollect(ref, s, fbox, t->ref, 1);
			if (t->na == 0 || t->nb == 0)
			{
				ref->nids = first;	/* no task: no pair can form */
				memset(t, 0, sizeof(*t));
				continue;
			}
			t->src = &s->b;
			t->src_ids = (const uint32_t *) (uintptr_t) first;
			t->all_int = 1;
			for (uint64_t k = first; k < ref->nids; k++)
				if (s->b.shapes[ref->tl.ids[k]].kind != PB_SHAPE_INT)
					t->all_int = 0;
			ref->tl.ntasks++;
		}
	free(fbox);
}

/* Whether a tiling is the reference, bit for bit. */
static void
CheckSameTiling(const PbTiling *got, const RefTiling *want)
{
	CHECK_INT(got->nx, want->tl.nx);
	CHECK_INT(got->ny, want->tl.ny);
	CHECK_INT(got->ntasks, want->tl.ntasks);
	for (uint32_t k = 0; k < got->ntasks && k < want->tl.ntasks && pb_test_failures() == 0; k++)
	{
		const PbTask *g = &got->tasks[k],
				   *w = &want->tl.tasks[k];
		uint64_t	off = (uint64_t) (uintptr_t) w->src_ids;

		CHECK(g->src == w->src);
		CHECK_INT(g->na, w->na);
		CHECK_INT(g->nb, w->nb);
		CHECK_INT(g->src_ids - got->ids, off);
		CHECK(memcmp(&g->ref, &w->ref, sizeof(PbBox)) == 0);
		CHECK_INT(g->all_int, w->all_int);
		CHECK_INT(g->old_a + g->old_b, 0);
		CHECK(g->na != w->na || g->nb != w->nb ||
			  memcmp(g->src_ids, want->tl.ids + off, sizeof(uint32_t) * (g->na + g->nb)) == 0);
	}
}

/* Tile s at each grain and thread count; every result must be the reference's. */
static void
CheckAllThreads(const char *what, const TileSets *s)
{
	uint32_t	grains[] = {1, 3, 30, 200, 100000};
	int			threads[] = {1, 2, 3, 7};

	for (int gi = 0; gi < 5; gi++)
	{
		RefTiling	want;

		Reference(&want, s, grains[gi]);
		for (int ti = 0; ti < 4; ti++)
		{
			PbTiling	got;

			pb_test_context("%s: %u shapes, per_tile %u, %d threads", what, s->b.nshapes,
							grains[gi], threads[ti]);
			PbTileGrid(&got, &s->b, s->in_a, grains[gi], &PbMallocAllocator, threads[ti]);
			CheckSameTiling(&got, &want);
			/* the bound known before tiling holds for every cell, tasks or not */
			CHECK((uint64_t) got.nx * got.ny <= PbTileGridMaxTasks(s->b.nshapes, grains[gi]));
			PbTilingFree(&got, &PbMallocAllocator);
		}
		free(want.tl.tasks);
		free(want.tl.ids);
	}
}

/* Random sets: mixed kinds, empty shapes, shapes across many cells, one set empty. */
void
test_tiling_random_sets(void)
{
	Rng			r = {2024};

	for (int round = 0; round < 3; round++)
	{
		TileSets	s;

		SetsInit(&s);
		RandomSets(&s, &r, 400 + 1000 * round, 1000 + 9000 * round, 0);
		CheckAllThreads("random", &s);
		SetsFree(&s);
	}
	{
		TileSets	s;

		SetsInit(&s);
		RandomSets(&s, &r, 1200, 2000, 1);
		CheckAllThreads("one set empty", &s);
		SetsFree(&s);
	}
}

/*
 * Degenerate inputs: no shape, only empty shapes, all shapes identical, a
 * horizontal and a vertical line, a point (with signed zeros), and
 * coordinates beyond the float range (clamped boxes).
 */
void
test_tiling_degenerate(void)
{
	Rng			r = {77};
	TileSets	s;

	SetsInit(&s);
	CheckAllThreads("no shape", &s);
	for (int k = 0; k < 50; k++)
		Add(&s, "POLYGON EMPTY", k % 2);
	CheckAllThreads("only empty shapes", &s);
	SetsFree(&s);

	SetsInit(&s);
	for (int k = 0; k < 300; k++)
		AddBox(&s, 10, 20, 15, 26, k % 3 == 0);
	CheckAllThreads("identical", &s);
	SetsFree(&s);

	SetsInit(&s);
	for (int k = 0; k < 400; k++)
	{
		double		x = (double) RngRange(&r, 0, 1000);

		Add(&s, k % 7 ? "POLYGON EMPTY" : "POLYGON((0 5,0 5,0 5,0 5))", k % 2);
		AddBox(&s, x, 5, x + (double) RngRange(&r, 0, 30), 5, k % 3 == 0);
	}
	CheckAllThreads("horizontal line", &s);
	SetsFree(&s);

	SetsInit(&s);
	for (int k = 0; k < 400; k++)
	{
		double		y = (double) RngRange(&r, -500, 500);

		AddBox(&s, -3, y, -3, y + (double) RngRange(&r, 0, 30), k % 2);
	}
	CheckAllThreads("vertical line", &s);
	SetsFree(&s);

	SetsInit(&s);
	for (int k = 0; k < 200; k++)
		Add(&s, k % 2 ? "POLYGON((-0 0,0 -0,-0 -0,-0 0))" : "POLYGON((0 0,0 0,0 0,0 0))", k % 3 != 0);
	CheckAllThreads("point", &s);
	SetsFree(&s);

	SetsInit(&s);
	for (int k = 0; k < 300; k++)
	{
		double		x = (double) RngRange(&r, -1000, 1000) * 1e36,
					y = (double) RngRange(&r, -1000, 1000) * 1e36;

		AddBox(&s, x, y, x + 5e36, y + 7e36, k % 2);
	}
	CheckAllThreads("beyond float range", &s);
	SetsFree(&s);
}
