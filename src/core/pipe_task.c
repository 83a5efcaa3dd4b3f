/*
 * pipe_task.c: the work on one tile task, whichever thread does it: copy
 * its shapes into its own batch, filter (per-set packed Hilbert R-trees,
 * joined, under the task's counting rules), and compute pairs on the CPU
 * or take in a device's results.
 */
#include <math.h>
#include <string.h>

#include "hilbert_rtree.h"
#include "pipe_task.h"
#include "shape_build.h"

#define TILE_RTREE_FANOUT 16

/* Copy the task's source shapes into its own batch (mem), set a first. */
void
PbTaskMaterialize(PbTask *t, const PbAllocator *mem)
{
	uint32_t	n = t->na + t->nb;
	uint32_t	rings = 0,
				ipts = 0,
				dpts = 0;
	PbBatch    *d = &t->batch;

	PbBatchInit(d, mem);
	for (uint32_t i = 0; i < n; i++)
	{
		const PbShape *s = &t->src->shapes[t->src_ids[i]];
		size_t		pts = PbShapePoints(t->src, s);

		rings += s->nrings;
		if (s->kind == PB_SHAPE_INT)
			ipts += (uint32_t) pts;
		else
			dpts += (uint32_t) pts;
	}
	PbBatchReserve(d, n, rings, ipts, dpts);
	for (uint32_t i = 0; i < n; i++)
	{
		const PbShape *s = &t->src->shapes[t->src_ids[i]];
		PbShape    *o = &d->shapes[i];
		int			is_int = s->kind == PB_SHAPE_INT;

		*o = *s;
		o->ring_first = d->nrings;
		for (uint32_t r = 0; r < s->nrings; r++)
		{
			const PbRing *ring = &t->src->rings[s->ring_first + r];
			PbRing	   *out = &d->rings[d->nrings++];

			out->npoints = ring->npoints;
			if (is_int)
			{
				out->start = d->nipts;
				memcpy(d->ipts + 2 * (size_t) d->nipts, t->src->ipts + 2 * (size_t) ring->start,
					   2 * sizeof(int32_t) * ring->npoints);
				d->nipts += ring->npoints;
			}
			else
			{
				out->start = d->ndpts;
				memcpy(d->dpts + 2 * (size_t) d->ndpts, t->src->dpts + 2 * (size_t) ring->start,
					   2 * sizeof(double) * ring->npoints);
				d->ndpts += ring->npoints;
			}
		}
	}
	d->nshapes = n;
	t->hit = PbMallocAllocator.alloc(NULL, n + 1);
	memset(t->hit, 0, n + 1);
}

/* What the join's emit callback needs to apply the counting rules. */
typedef struct FilterCtx
{
	PbTask	   *t;
	const PbBox *fbox;			/* float boxes, per shape of the task */
} FilterCtx;

/*
 * Join callback: keep the pair when its reference point is in the task's
 * window and it was not counted by an earlier task of the same tile.
 */
static void
KeepPair(void *ctx, uint32_t a, uint32_t b)
{
	FilterCtx  *f = (FilterCtx *) ctx;
	const PbTask *t = f->t;
	double		rx = fmax(f->fbox[a].xmin, f->fbox[b].xmin);
	double		ry = fmax(f->fbox[a].ymin, f->fbox[b].ymin);

	if (!(rx >= t->ref.xmin && rx < t->ref.xmax && ry >= t->ref.ymin && ry < t->ref.ymax))
		return;
	if (a < t->old_a && b - t->na < t->old_b)
		return;
	PbBatchAddPair(&f->t->batch, a, b);
}

/* Index the entries of one set, skipping empty shapes (never paired). */
static PbRTree *
BuildSet(const PbTask *t, const PbBox *fbox, PbRTreeEntry *e, uint32_t from, uint32_t to)
{
	uint32_t	n = 0;

	for (uint32_t i = from; i < to; i++)
		if (t->batch.shapes[i].kind != PB_SHAPE_EMPTY)
		{
			e[n].box = fbox[i];
			e[n].id = i;
			n++;
		}
	return PbRTreeBuild(t->batch.mem, e, n, TILE_RTREE_FANOUT);
}

uint32_t
PbTaskFilter(PbTask *t)
{
	uint32_t	n = t->na + t->nb;
	const PbAllocator *mem = t->batch.mem;
	PbBox	   *fbox = mem->alloc(mem->ctx, sizeof(PbBox) * (n + 1));
	PbRTreeEntry *e = mem->alloc(mem->ctx, sizeof(PbRTreeEntry) * (n + 1));
	PbRTree    *ta,
			   *tb;
	FilterCtx	f = {t, fbox};
	PbPair	   *p;
	uint32_t	lo,
				hi;

	for (uint32_t i = 0; i < n; i++)
		fbox[i] = PbBoxAsPostgisFloat(t->batch.shapes[i].box);
	ta = BuildSet(t, fbox, e, 0, t->na);
	tb = BuildSet(t, fbox, e, t->na, n);
	t->batch.npairs = 0;
	/* room for as many pairs as shapes, about what a tile finds: few regrowths */
	t->batch.pairs = PbGrowArray(mem, t->batch.pairs, &t->batch.cap_pairs, n, sizeof(PbPair));
	PbRTreeJoin(ta, tb, KeepPair, &f);
	PbRTreeFree(ta);
	PbRTreeFree(tb);
	mem->release(mem->ctx, e);
	mem->release(mem->ctx, fbox);

	/* device-eligible (both integer) pairs first */
	p = t->batch.pairs;
	lo = 0;
	hi = t->batch.npairs;
	while (lo < hi)
	{
		if (t->batch.shapes[p[lo].a].kind == PB_SHAPE_INT &&
			t->batch.shapes[p[lo].b].kind == PB_SHAPE_INT)
			lo++;
		else
		{
			PbPair		tmp = p[lo];

			p[lo] = p[--hi];
			p[hi] = tmp;
		}
	}
	t->nint = lo;
	return t->batch.npairs;
}

void
PbTaskAddResult(PbTask *t, uint32_t a, uint32_t b, double area, PbCompareAcc *acc)
{
	PbCompareAdd(acc, t->batch.shapes[a].area, t->batch.shapes[b].area, area);
	if (area > 0)
		t->hit[a] = t->hit[b] = 1;
}

void
PbTaskCompute(PbTask *t, uint32_t from, uint32_t to, PbScratch *sc, PbMethod method,
			  PbCompareAcc *acc)
{
	for (uint32_t k = from; k < to; k++)
	{
		const PbPair *p = &t->batch.pairs[k];

		PbTaskAddResult(t, p->a, p->b, PbIntersectionArea(sc, &t->batch, p->a, p->b, method), acc);
	}
}

void
PbTaskDone(PbTask *t)
{
	if (t->areas)
		t->batch.mem->release(t->batch.mem->ctx, t->areas);
	t->areas = NULL;
	PbBatchFree(&t->batch);
}

void
PbTaskRelease(PbTask *t)
{
	PbTaskDone(t);
	if (t->hit)
		PbMallocAllocator.release(NULL, t->hit);
	t->hit = NULL;
}
