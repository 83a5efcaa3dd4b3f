/*
 * pipe_task.c: the work on one tile task, whichever thread does it: copy
 * its shapes into its own batch (their points stay in the source's),
 * filter (per-set packed Hilbert R-trees, joined, under the task's
 * counting rules), and compute pairs on the CPU or take in a device's
 * results.
 */
#include <string.h>

#include "../geom/box_float4.h"
#include "device.h"
#include "hilbert_rtree.h"
#include "pipe_task.h"
#include "../geom/shape_build.h"

#define TILE_RTREE_FANOUT 16

/*
 * Give the task its own batch (mem): a copy of its source shapes, whose
 * rings and points stay where they are, in the source's arrays, which the
 * batch borrows (copying every tile's points again cost more than all the
 * filtering).  Counts the rings and points of its integer shapes, which is
 * what a device gets.
 */
void
PbTaskMaterialize(PbTask *t, const PbAllocator *mem)
{
	uint32_t	n = t->na + t->nb;
	PbBatch    *d = &t->batch;

	PbBatchInit(d, mem);
	PbBatchReserve(d, n, 0, 0, 0);
	t->int_rings = 0;
	t->int_ipts = 0;
	for (uint32_t i = 0; i < n; i++)
	{
		const PbShape *s = &t->src->shapes[t->src_ids[i]];

		d->shapes[i] = *s;
		if (s->kind == PB_SHAPE_INT)
		{
			t->int_rings += s->nrings;
			t->int_ipts += (uint32_t) PbShapePoints(t->src, s);
		}
	}
	d->nshapes = n;
	d->rings = t->src->rings;
	d->nrings = t->src->nrings;
	d->ipts = t->src->ipts;
	d->nipts = t->src->nipts;
	d->dpts = t->src->dpts;
	d->ndpts = t->src->ndpts;
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

	if (!PbRefPointIn(f->fbox[a].xmin, f->fbox[a].ymin, f->fbox[b].xmin, f->fbox[b].ymin,
					  &t->ref))
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

	/* device-eligible pairs first (PbDeviceShape) */
	p = t->batch.pairs;
	lo = 0;
	hi = t->batch.npairs;
	while (lo < hi)
	{
		if (PbDeviceShape(&t->batch, &t->batch.shapes[p[lo].a]) &&
			PbDeviceShape(&t->batch, &t->batch.shapes[p[lo].b]))
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
	if (area <= 0)
		return;
	t->hit[a] = t->hit[b] = 1;
	if (t->keep_pairs)
	{
		t->kept = PbGrowArray(&PbMallocAllocator, t->kept, &t->cap_kept, t->nkept + 1,
							  sizeof(PbTaskPair));
		t->kept[t->nkept++] = (PbTaskPair) {a, b, area};
	}
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
	/* the rings and points are the source's: only the shapes and pairs go */
	t->batch.rings = NULL;
	t->batch.ipts = NULL;
	t->batch.dpts = NULL;
	PbBatchFree(&t->batch);
}

void
PbTaskRelease(PbTask *t)
{
	PbTaskDone(t);
	if (t->hit)
		PbMallocAllocator.release(NULL, t->hit);
	t->hit = NULL;
	if (t->kept)
		PbMallocAllocator.release(NULL, t->kept);
	t->kept = NULL;
	t->nkept = t->cap_kept = 0;
}
