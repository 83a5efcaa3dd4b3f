/*
 * label_rings.c: a walker's rings (label_walk.h) put together as one
 * geometry per label: shells in the order the scan met them, each with its
 * holes, as EWKB.
 */
#include <stdlib.h>
#include <string.h>

#include "../geom/batch.h"
#include "label_walk.h"

#define NO_RING UINT32_MAX

/* Scratch of one assembly, one entry per ring of the walker. */
typedef struct Assembly
{
	PbWalker   *w;
	uint64_t   *order;			/* label << 32 | ring, sorted */
	uint32_t   *shell;			/* a hole's shell, once known */
	uint32_t   *local;			/* a shell's number within its label */
	uint32_t   *count;			/* holes a shell has, then bucket starts */
	uint32_t   *bucket;			/* holes by shell */
	int			runs_sorted;
} Assembly;

/* qsort comparator: uint64 keys. */
static int
CmpU64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* qsort comparator: run starts by row, then column. */
static int
CmpRuns(const void *a, const void *b)
{
	const PbWalkRunStart *p = a,
			   *q = b;

	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	return p->x < q->x ? -1 : p->x > q->x;
}

/* The ring on the left edge of the run holding pixel (x, y). */
static uint32_t
RunRing(Assembly *a, int32_t x, int32_t y)
{
	PbWalker   *w = a->w;
	size_t		lo = 0,
				hi = w->nruns;

	if (!a->runs_sorted)
	{
		qsort(w->runs, w->nruns, sizeof(PbWalkRunStart), CmpRuns);
		a->runs_sorted = 1;
	}
	/* the last run start at or before (x, y) */
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		const PbWalkRunStart *r = &w->runs[mid];

		if (r->y < y || (r->y == y && r->x <= x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return w->runs[lo - 1].ring;
}

/*
 * The shell of hole h: the ring on the left of the run above its top-left
 * corner, or that ring's shell when it is a hole too (which lies higher:
 * the chain ends).
 */
static uint32_t
ShellOf(Assembly *a, uint32_t h)
{
	const PbWalkRing *rings = a->w->rings;
	uint32_t	r = h,
				s;

	while (rings[r].area2 < 0)
	{
		if (a->shell[r] != NO_RING)
		{
			r = a->shell[r];
			break;
		}
		r = RunRing(a, rings[r].top_x, rings[r].top_y - 1);
	}
	s = r;
	/* remember it for every hole of the chain */
	for (r = h; rings[r].area2 < 0 && a->shell[r] == NO_RING;)
	{
		uint32_t	next = RunRing(a, rings[r].top_x, rings[r].top_y - 1);

		a->shell[r] = s;
		r = next;
	}
	return s;
}

/* Append ring r, closed, through the geotransform gt. */
static void
WriteRing(PbEwkb *out, const PbWalker *w, const PbWalkRing *r, const double gt[6])
{
	const int32_t *p = w->pts + 2 * r->first;
	size_t		slot = PbEwkbCountSlot(out);

	PbEwkbSetCount(out, slot, r->npts + 1);
	for (uint32_t i = 0; i <= r->npts; i++)
	{
		double		c = p[2 * (i % r->npts)],
					y = p[2 * (i % r->npts) + 1],
					v[2];

		v[0] = gt[0] + c * gt[1] + y * gt[2];
		v[1] = gt[3] + c * gt[4] + y * gt[5];
		PbEwkbDoubles(out, v, 2);
	}
}

/* Append one polygon: shell s and its holes holes[0, n). */
static void
WritePolygon(PbEwkb *out, const PbWalker *w, uint32_t s, const uint32_t *holes,
			 uint32_t n, const double gt[6], int32_t srid)
{
	size_t		slot;

	PbEwkbHeader(out, PB_POLYGONTYPE, srid);
	slot = PbEwkbCountSlot(out);
	PbEwkbSetCount(out, slot, n + 1);
	WriteRing(out, w, &w->rings[s], gt);
	for (uint32_t i = 0; i < n; i++)
		WriteRing(out, w, &w->rings[holes[i]], gt);
}

/* Append the geometry of the label whose rings are keys[0, n) of the order. */
static int64_t
WriteLabel(Assembly *a, const uint64_t *keys, uint32_t n, const double gt[6],
		   int32_t srid, PbEwkb *out)
{
	PbWalker   *w = a->w;
	uint32_t	nshells = 0,
				nholes = 0,
				first_shell = NO_RING;
	int64_t		area2 = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	r = (uint32_t) keys[i];

		area2 += w->rings[r].area2;
		if (w->rings[r].area2 > 0)
		{
			if (nshells == 0)
				first_shell = r;
			a->local[r] = nshells++;
		}
		else
			a->bucket[nholes++] = r;
	}
	if (nshells == 1)
		WritePolygon(out, w, first_shell, a->bucket, nholes, gt, srid);
	else
	{
		size_t		slot;
		uint32_t   *count = a->count;
		uint32_t   *holes = a->bucket + nholes;

		/* holes by their shells: counts, starts, then placed in order */
		memset(count, 0, sizeof(uint32_t) * (nshells + 1));
		for (uint32_t i = 0; i < nholes; i++)
			count[a->local[ShellOf(a, a->bucket[i])] + 1]++;
		for (uint32_t k = 0; k < nshells; k++)
			count[k + 1] += count[k];
		for (uint32_t i = 0; i < nholes; i++)
			holes[count[a->local[a->shell[a->bucket[i]]]]++] = a->bucket[i];
		PbEwkbHeader(out, PB_MULTIPOLYGONTYPE, srid);
		slot = PbEwkbCountSlot(out);
		PbEwkbSetCount(out, slot, nshells);
		for (uint32_t i = 0, k = 0, at = 0; i < n; i++)
		{
			uint32_t	r = (uint32_t) keys[i];

			if (w->rings[r].area2 < 0)
				continue;
			/* count[k] is now the end of shell k's holes */
			WritePolygon(out, w, r, holes + at, count[k] - at, gt, 0);
			at = count[k++];
		}
	}
	return area2 / 2;
}

/* Sort the rings by label, then write each label's geometry. */
void
PbWalkerGeometries(PbWalker *w, const double gt[6], int32_t srid, PbEwkb *out,
				   PbWalkLabel **labels, size_t *nlabels)
{
	const PbAllocator *m = w->mem;
	Assembly	a;
	size_t		n = w->nrings,
				nl = 0;
	PbWalkLabel *res;

	memset(&a, 0, sizeof(a));
	a.w = w;
	a.order = m->alloc(m->ctx, sizeof(uint64_t) * (n + 1));
	a.shell = m->alloc(m->ctx, sizeof(uint32_t) * (n + 1));
	a.local = m->alloc(m->ctx, sizeof(uint32_t) * (n + 1));
	a.count = m->alloc(m->ctx, sizeof(uint32_t) * (n + 2));
	a.bucket = m->alloc(m->ctx, sizeof(uint32_t) * 2 * (n + 1));
	for (size_t i = 0; i < n; i++)
	{
		a.order[i] = (uint64_t) w->rings[i].label << 32 | i;
		a.shell[i] = NO_RING;
	}
	qsort(a.order, n, sizeof(uint64_t), CmpU64);
	res = m->alloc(m->ctx, sizeof(PbWalkLabel) * (n + 1));
	for (size_t i = 0; i < n;)
	{
		size_t		j = i + 1;
		PbWalkLabel *l = &res[nl++];

		while (j < n && (a.order[j] >> 32) == (a.order[i] >> 32))
			j++;
		l->label = (uint32_t) (a.order[i] >> 32);
		l->offset = out->len;
		l->pixels = WriteLabel(&a, a.order + i, (uint32_t) (j - i), gt, srid, out);
		l->len = out->len - l->offset;
		i = j;
	}
	m->release(m->ctx, a.order);
	m->release(m->ctx, a.shell);
	m->release(m->ctx, a.local);
	m->release(m->ctx, a.count);
	m->release(m->ctx, a.bucket);
	*labels = res;
	*nlabels = nl;
}
