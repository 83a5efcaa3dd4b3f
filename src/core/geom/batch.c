/*
 * batch.c: the growable arrays of a PbBatch and the engines' scratch space.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE			/* madvise, MADV_HUGEPAGE */
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../base/pb_base.h"
#include "batch.h"
#include "bitmap_solid.h"
#include "edge_index.h"
#include "shape_build.h"

/* Grow an array to hold at least need elements of elem bytes (doubling). */
void *
PbGrowArray(const PbAllocator *mem, void *arr, uint32_t *cap, uint32_t need,
			size_t elem)
{
	uint64_t	newcap;

	if (need <= *cap)
		return arr;
	newcap = *cap ? *cap : 16;
	while (newcap < need)
		newcap *= 2;
	if (newcap > UINT32_MAX)
		newcap = UINT32_MAX;
	arr = arr ? mem->resize(mem->ctx, arr, (size_t) newcap * elem)
		: mem->alloc(mem->ctx, (size_t) newcap * elem);
	*cap = (uint32_t) newcap;
	return arr;
}

/*
 * A serial no batch had before: what scratch caches key their contents by,
 * so that a batch refilled (or another batch at the same address) is not
 * mistaken for the one they served.
 */
static uint64_t
NewSerial(void)
{
	static _Atomic uint64_t last;

	return atomic_fetch_add(&last, 1) + 1;
}

/* Start an empty batch that allocates through mem. */
void
PbBatchInit(PbBatch *b, const PbAllocator *mem)
{
	memset(b, 0, sizeof(*b));
	b->mem = mem;
	b->serial = NewSerial();
}

/* Forget every shape and pair but keep the memory for the next batch. */
void
PbBatchReset(PbBatch *b)
{
	b->nshapes = b->nrings = b->nipts = b->ndpts = b->npairs = 0;
	b->serial = NewSerial();
}

/* Release all memory of the batch. */
void
PbBatchFree(PbBatch *b)
{
	void	   *arrays[5] = {b->shapes, b->rings, b->ipts, b->dpts, b->pairs};

	for (int i = 0; i < 5; i++)
		if (arrays[i])
			b->mem->release(b->mem->ctx, arrays[i]);
	PbBatchInit(b, b->mem);
}

/* Bytes of payload in use, for the memory budget of a batch. */
size_t
PbBatchBytes(const PbBatch *b)
{
	return (size_t) b->nshapes * sizeof(PbShape)
		+ (size_t) b->nrings * sizeof(PbRing)
		+ (size_t) b->nipts * 2 * sizeof(int32_t)
		+ (size_t) b->ndpts * 2 * sizeof(double)
		+ (size_t) b->npairs * sizeof(PbPair);
}

/* Queue the pair of shapes (a, bb) for intersection. */
void
PbBatchAddPair(PbBatch *b, uint32_t a, uint32_t bb)
{
	b->pairs = PbGrowArray(b->mem, b->pairs, &b->cap_pairs, b->npairs + 1,
						   sizeof(PbPair));
	b->pairs[b->npairs].a = a;
	b->pairs[b->npairs].b = bb;
	b->npairs++;
}

/* Grow every array of the batch to hold the given totals. */
void
PbBatchReserve(PbBatch *b, uint32_t shapes, uint32_t rings, uint32_t ipts,
			   uint32_t dpts)
{
	b->shapes = PbGrowArray(b->mem, b->shapes, &b->cap_shapes, shapes, sizeof(PbShape));
	b->rings = PbGrowArray(b->mem, b->rings, &b->cap_rings, rings, sizeof(PbRing));
	b->ipts = PbGrowArray(b->mem, b->ipts, &b->cap_ipts, ipts, 2 * sizeof(int32_t));
	b->dpts = PbGrowArray(b->mem, b->dpts, &b->cap_dpts, dpts, 2 * sizeof(double));
}

/*
 * Ask for huge pages behind the part of [p, p + len) made of whole 2 MB
 * pages: arrays of hundreds of megabytes filled at once by many threads
 * then fault a few hundred times instead of a hundred thousand.  Only a
 * hint; nothing changes where the kernel does not take it.
 */
static void
AdviseHuge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t) 2 << 20;
	uintptr_t	lo = ((uintptr_t) p + huge - 1) & ~(huge - 1);
	uintptr_t	hi = ((uintptr_t) p + len) & ~(huge - 1);

	if (p != NULL && hi > lo)
		(void) madvise((void *) lo, hi - lo, MADV_HUGEPAGE);
#endif
}

void
PbBatchAdviseHuge(PbBatch *b)
{
	AdviseHuge(b->shapes, sizeof(PbShape) * (size_t) b->cap_shapes);
	AdviseHuge(b->rings, sizeof(PbRing) * (size_t) b->cap_rings);
	AdviseHuge(b->ipts, 2 * sizeof(int32_t) * (size_t) b->cap_ipts);
	AdviseHuge(b->dpts, 2 * sizeof(double) * (size_t) b->cap_dpts);
}

/* Append all shapes of src to dst in bulk, shifting their ring and point indices. */
void
PbBatchAppend(PbBatch *dst, const PbBatch *src)
{
	uint32_t	s0 = dst->nshapes,
				r0 = dst->nrings,
				i0 = dst->nipts,
				d0 = dst->ndpts;

	PbBatchReserve(dst, s0 + src->nshapes, r0 + src->nrings, i0 + src->nipts, d0 + src->ndpts);
	memcpy(dst->shapes + s0, src->shapes, sizeof(PbShape) * src->nshapes);
	memcpy(dst->rings + r0, src->rings, sizeof(PbRing) * src->nrings);
	memcpy(dst->ipts + 2 * (size_t) i0, src->ipts, 2 * sizeof(int32_t) * src->nipts);
	memcpy(dst->dpts + 2 * (size_t) d0, src->dpts, 2 * sizeof(double) * src->ndpts);
	for (uint32_t i = s0; i < s0 + src->nshapes; i++)
	{
		PbShape    *s = &dst->shapes[i];
		uint32_t	shift = s->kind == PB_SHAPE_INT ? i0 : d0;

		s->ring_first += r0;
		for (uint32_t r = s->ring_first; r < s->ring_first + s->nrings; r++)
			dst->rings[r].start += shift;
	}
	dst->nshapes += src->nshapes;
	dst->nrings += src->nrings;
	dst->nipts += src->nipts;
	dst->ndpts += src->ndpts;
}

/* Count the points of all rings of shape s. */
size_t
PbShapePoints(const PbBatch *b, const PbShape *s)
{
	size_t		n = 0;

	for (uint32_t r = s->ring_first; r < s->ring_first + s->nrings; r++)
		n += b->rings[r].npoints;
	return n;
}

/* Intersect the boxes of p and q: the window every engine works in. */
PbBox
PbWindow(const PbShape *p, const PbShape *q)
{
	PbBox		w;

	w.xmin = p->box.xmin > q->box.xmin ? p->box.xmin : q->box.xmin;
	w.ymin = p->box.ymin > q->box.ymin ? p->box.ymin : q->box.ymin;
	w.xmax = p->box.xmax < q->box.xmax ? p->box.xmax : q->box.xmax;
	w.ymax = p->box.ymax < q->box.ymax ? p->box.ymax : q->box.ymax;
	return w;
}

/* Start empty scratch space that allocates through mem. */
void
PbScratchInit(PbScratch *s, const PbAllocator *mem)
{
	memset(s, 0, sizeof(*s));
	s->mem = mem;
}

/* Release the scratch buffers (keep_runs stays as the owner set it). */
void
PbScratchFree(PbScratch *s)
{
	bool		keep_runs = s->keep_runs;

	for (int i = 0; i < (int) (sizeof(s->buf) / sizeof(s->buf[0])); i++)
		if (s->buf[i])
			s->mem->release(s->mem->ctx, s->buf[i]);
	PbEdgeCacheFree(s);
	PbSolidCacheFree(s);
	PbScratchInit(s, s->mem);
	s->keep_runs = keep_runs;
}

/* Return scratch slot i with room for size bytes; old contents are lost. */
void *
PbScratchGet(PbScratch *s, int slot, size_t size)
{
	if (size > s->cap[slot] && s->buf[slot])
	{
		/* a fresh allocation: no copy of contents nobody wants */
		s->mem->release(s->mem->ctx, s->buf[slot]);
		s->buf[slot] = NULL;
		s->cap[slot] = 0;
	}
	return PbScratchGrow(s, slot, size);
}

/* Return scratch slot i with room for size bytes, keeping its contents. */
void *
PbScratchGrow(PbScratch *s, int slot, size_t size)
{
	if (size > s->cap[slot])
	{
		size_t		cap = s->cap[slot] ? s->cap[slot] : 1024;

		while (cap < size)
			cap *= 2;
		s->buf[slot] = s->buf[slot] ? s->mem->resize(s->mem->ctx, s->buf[slot], cap)
			: s->mem->alloc(s->mem->ctx, cap);
		s->cap[slot] = cap;
	}
	return s->buf[slot];
}
