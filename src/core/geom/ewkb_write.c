/*
 * ewkb_write.c: EWKB of a parsed polygon text line (see ewkb_write.h).
 */
#include <string.h>

#include "batch.h"
#include "ewkb_write.h"

#define EWKB_Z 0x80000000u
#define EWKB_M 0x40000000u
#define EWKB_SRID 0x20000000u

/* Make room for n more bytes. */
static uint8_t *
Extend(PbEwkb *w, size_t n)
{
	if (w->cap - w->len < n)
	{
		size_t		cap = w->cap ? w->cap * 2 : 256;

		while (cap - w->len < n)
			cap *= 2;
		w->data = w->data ? w->mem->resize(w->mem->ctx, w->data, cap)
			: w->mem->alloc(w->mem->ctx, cap);
		w->cap = cap;
	}
	w->len += n;
	return w->data + w->len - n;
}

/* Start empty, allocating from mem. */
void
PbEwkbInit(PbEwkb *w, const PbAllocator *mem)
{
	w->mem = mem;
	w->data = NULL;
	w->len = w->cap = 0;
}

/* Release the bytes. */
void
PbEwkbFree(PbEwkb *w)
{
	if (w->data != NULL)
		w->mem->release(w->mem->ctx, w->data);
	w->data = NULL;
	w->len = w->cap = 0;
}

/* Write the order byte, the type word (no Z or M yet) and a nonzero SRID. */
void
PbEwkbHeader(PbEwkb *w, int geomtype, int32_t srid)
{
	const uint16_t one = 1;
	uint32_t	type = (uint32_t) geomtype | (srid != 0 ? EWKB_SRID : 0);
	uint8_t    *p = Extend(w, srid != 0 ? 9 : 5);

	p[0] = *(const uint8_t *) &one; /* 1: little-endian (NDR), 0: XDR */
	memcpy(p + 1, &type, 4);
	if (srid != 0)
		memcpy(p + 5, &srid, 4);
}

/* Reserve a count; it is set by PbEwkbSetCount. */
size_t
PbEwkbCountSlot(PbEwkb *w)
{
	Extend(w, 4);
	memset(w->data + w->len - 4, 0, 4);
	return w->len - 4;
}

/* Set the count reserved at slot. */
void
PbEwkbSetCount(PbEwkb *w, size_t slot, uint32_t n)
{
	memcpy(w->data + slot, &n, 4);
}

/* Append n doubles. */
void
PbEwkbDoubles(PbEwkb *w, const double *v, int n)
{
	memcpy(Extend(w, (size_t) n * 8), v, (size_t) n * 8);
}

/* Copy the first point's x and y over the last point's. */
void
PbEwkbCloseRing(PbEwkb *w, size_t slot, uint32_t npoints, int dims)
{
	uint8_t    *first = w->data + slot + 4;

	memcpy(first + (size_t) (npoints - 1) * (size_t) dims * 8, first, 16);
}

/* Set the flags of the geometry at offset at and its parts; return its end. */
static size_t
SetFlags(PbEwkb *w, size_t at, uint32_t flags, int dims)
{
	uint32_t	type,
				n;

	memcpy(&type, w->data + at + 1, 4);
	type |= flags;
	memcpy(w->data + at + 1, &type, 4);
	at += (type & EWKB_SRID) ? 9 : 5;
	memcpy(&n, w->data + at, 4);
	at += 4;
	for (uint32_t i = 0; i < n; i++)
	{
		if ((type & 0xff) == PB_MULTIPOLYGONTYPE)
			at = SetFlags(w, at, flags, dims);
		else
		{
			uint32_t	npoints;

			memcpy(&npoints, w->data + at, 4);
			at += 4 + (size_t) npoints * (size_t) dims * 8;
		}
	}
	return at;
}

/* Set Z and M on every type word from start on. */
void
PbEwkbSetDims(PbEwkb *w, size_t start, int hasz, int hasm, int dims)
{
	uint32_t	flags = (hasz ? EWKB_Z : 0) | (hasm ? EWKB_M : 0);

	if (flags != 0)
		SetFlags(w, start, flags, dims);
}
