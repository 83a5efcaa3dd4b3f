/*
 * edge_index.c: PbEdgeBandsFor of edge_index.h.  Each scratch space keeps
 * one cache for the batch it last served: an open-addressing table from
 * shape index to what is known of the shape (how often it was asked for,
 * where its index lies), and an arena holding the indexes.  Entries carry
 * the serial of their batch, and one of another serial counts as a free
 * slot, so a batch of another serial empties the cache at once, keeping
 * its memory.
 */
#include <string.h>

#include "edge_index.h"

#define CACHE_MAX_BYTES ((size_t) 64 << 20)	/* indexes kept per scratch */
#define MIN_SHIFT 3				/* bands of 8 rows at least */
#define EDGES_PER_BAND 4		/* about, before long edges */
#define MAX_ENTRIES_PER_EDGE 3	/* more: wider bands */
#define NOT_BUILT ((size_t) -1)
#define NO_INDEX ((size_t) -2)	/* nothing to gain, or no memory left */

/* What the cache knows of one shape of the batch. */
typedef struct CacheEntry
{
	uint64_t	serial;			/* its batch's; another one's: a free slot */
	uint32_t	shape;
	uint32_t	ring_first;		/* checked with the index, against a reused one */
	uint32_t	nrings;
	uint32_t	uses;
	size_t		at;				/* its index in the arena, NOT_BUILT or NO_INDEX */
} CacheEntry;

/* An index in the arena: this head, start[nbands + 1], then the entries. */
typedef struct IndexHead
{
	int64_t		ymin;
	int32_t		shift;
	uint32_t	nbands;
} IndexHead;

struct PbEdgeCache
{
	uint64_t	serial;			/* the batch the entries belong to */
	CacheEntry *table;
	uint32_t	slots,			/* a power of two */
				used;
	char	   *arena;
	size_t		len,
				cap;
};

/* Empty the cache for the batch of serial (the memory stays). */
static void
CacheReset(PbEdgeCache *c, uint64_t serial)
{
	c->serial = serial;
	c->used = 0;
	c->len = 0;
}

/* The slot of shape in a table of batch serial (linear probing). */
static CacheEntry *
Probe(CacheEntry *table, uint32_t slots, uint64_t serial, uint32_t shape)
{
	uint32_t	i = (shape * 2654435761u) & (slots - 1);

	while (table[i].serial == serial && table[i].shape != shape)
		i = (i + 1) & (slots - 1);
	return &table[i];
}

/* Double the table (or make the first one), keeping its entries. */
static void
CacheGrow(PbEdgeCache *c, const PbAllocator *mem)
{
	uint32_t	slots = c->slots ? 2 * c->slots : 256;
	CacheEntry *table = mem->alloc(mem->ctx, (size_t) slots * sizeof(CacheEntry));

	memset(table, 0, (size_t) slots * sizeof(CacheEntry));	/* serial 0: no batch's */
	for (uint32_t i = 0; i < c->slots; i++)
		if (c->table[i].serial == c->serial)
			*Probe(table, slots, c->serial, c->table[i].shape) = c->table[i];
	if (c->table)
		mem->release(mem->ctx, c->table);
	c->table = table;
	c->slots = slots;
}

/*
 * The entry of shape s (index shape) in the cache, made when missing; one
 * whose rings differ (a shape index reused by another shape) starts over.
 */
static CacheEntry *
CacheEntryOf(PbEdgeCache *c, const PbAllocator *mem, uint32_t shape, const PbShape *s)
{
	CacheEntry *e;

	if (2 * (c->used + 1) > c->slots)
		CacheGrow(c, mem);
	e = Probe(c->table, c->slots, c->serial, shape);
	if (e->serial != c->serial)
		c->used++;
	if (e->serial != c->serial || e->ring_first != s->ring_first || e->nrings != s->nrings)
		*e = (CacheEntry) {c->serial, shape, s->ring_first, s->nrings, 0, NOT_BUILT};
	return e;
}

/* The vertical edges of s with rows, as (x, first row, row past the last); how many. */
static size_t
VerticalEdges(const PbBatch *b, const PbShape *s, int32_t *out)
{
	size_t		n = 0;

	for (uint32_t r = s->ring_first; r < s->ring_first + s->nrings; r++)
	{
		const int32_t *pts = b->ipts + 2 * (size_t) b->rings[r].start;
		uint32_t	np = b->rings[r].npoints;

		for (uint32_t i = 0; i < np; i++)
		{
			const int32_t *p = pts + 2 * (size_t) (i ? i - 1 : np - 1),
					   *q = pts + 2 * (size_t) i;

			if (p[0] == q[0] && p[1] != q[1])
			{
				out[3 * n] = q[0];
				out[3 * n + 1] = p[1] < q[1] ? p[1] : q[1];
				out[3 * n + 2] = p[1] < q[1] ? q[1] : p[1];
				n++;
			}
		}
	}
	return n;
}

/* Entries n edges make in bands of 2^shift rows from ymin. */
static uint64_t
EntriesAt(const int32_t *v, size_t n, int64_t ymin, int shift)
{
	uint64_t	entries = 0;

	for (size_t i = 0; i < n; i++)
		entries += (uint64_t) ((((int64_t) v[3 * i + 2] - 1 - ymin) >> shift) -
							   (((int64_t) v[3 * i + 1] - ymin) >> shift) + 1);
	return entries;
}

/*
 * Build the index of s at the arena's end: bands of about EDGES_PER_BAND
 * edges, widened while long edges would list more than
 * MAX_ENTRIES_PER_EDGE entries an edge.  Its offset, or NO_INDEX when one
 * band would hold everything or the cache's memory is spent.
 */
static size_t
BuildIndex(PbEdgeCache *c, const PbAllocator *mem, const PbBatch *b, const PbShape *s)
{
	int64_t		ymin = (int64_t) s->box.ymin,
				height = (int64_t) s->box.ymax - ymin;
	int32_t    *v = mem->alloc(mem->ctx, 3 * sizeof(int32_t) * (PbShapePoints(b, s) + 1));
	size_t		n = VerticalEdges(b, s, v),
				target = n / EDGES_PER_BAND > 1 ? n / EDGES_PER_BAND : 1,
				at = NO_INDEX,
				bytes;
	int			shift = MIN_SHIFT;
	uint64_t	entries;
	uint32_t	nbands;
	IndexHead  *h;
	uint32_t   *start;
	int32_t    *edges;

	while (shift < 31 && (size_t) ((height - 1) >> shift) + 1 > target)
		shift++;
	while (shift < 31 && EntriesAt(v, n, ymin, shift) > MAX_ENTRIES_PER_EDGE * (uint64_t) n)
		shift++;
	entries = EntriesAt(v, n, ymin, shift);
	nbands = (uint32_t) (((height - 1) >> shift) + 1);
	bytes = sizeof(IndexHead) + ((size_t) nbands + 1) * sizeof(uint32_t) + entries * 3 * sizeof(int32_t);
	bytes = (bytes + 7) & ~(size_t) 7;
	if (nbands > 1 && c->len + bytes <= CACHE_MAX_BYTES)
	{
		if (c->len + bytes > c->cap)
		{
			size_t		cap = c->cap ? c->cap : 65536;

			while (cap < c->len + bytes)
				cap *= 2;
			c->arena = c->arena ? mem->resize(mem->ctx, c->arena, cap) : mem->alloc(mem->ctx, cap);
			c->cap = cap;
		}
		at = c->len;
		c->len += bytes;
		h = (IndexHead *) (c->arena + at);
		*h = (IndexHead) {ymin, shift, nbands};
		start = (uint32_t *) (h + 1);
		edges = (int32_t *) (start + nbands + 1);
		memset(start, 0, ((size_t) nbands + 1) * sizeof(uint32_t));
		for (size_t i = 0; i < n; i++)	/* counts, shifted by one band */
			for (int64_t k = ((int64_t) v[3 * i + 1] - ymin) >> shift;
				 k <= ((int64_t) v[3 * i + 2] - 1 - ymin) >> shift; k++)
				start[k + 1]++;
		for (uint32_t k = 0; k < nbands; k++)	/* then each band's first entry */
			start[k + 1] += start[k];
		for (size_t i = 0; i < n; i++)	/* placed, start[k] moving to band k + 1's */
			for (int64_t k = ((int64_t) v[3 * i + 1] - ymin) >> shift;
				 k <= ((int64_t) v[3 * i + 2] - 1 - ymin) >> shift; k++)
				memcpy(edges + 3 * (size_t) start[k]++, v + 3 * i, 3 * sizeof(int32_t));
		memmove(start + 1, start, (size_t) nbands * sizeof(uint32_t));
		start[0] = 0;
	}
	mem->release(mem->ctx, v);
	return at;
}

/* See edge_index.h. */
bool
PbEdgeBandsFor(PbScratch *sc, const PbBatch *b, const PbShape *s, int64_t y0, int64_t y1,
			   PbEdgeBands *out)
{
	PbEdgeCache *c = sc->edges;
	CacheEntry *e;
	const IndexHead *h;

	if (b->serial == 0 || s->kind != PB_SHAPE_INT || !PbEdgeBandsMayHelp(s, y0, y1) ||
		PbShapePoints(b, s) < PB_EDGE_INDEX_MIN_POINTS)
		return false;
	if (c == NULL)
	{
		c = sc->edges = sc->mem->alloc(sc->mem->ctx, sizeof(PbEdgeCache));
		memset(c, 0, sizeof(*c));
	}
	if (c->serial != b->serial)
		CacheReset(c, b->serial);
	e = CacheEntryOf(c, sc->mem, (uint32_t) (s - b->shapes), s);
	if (e->uses++ == 0)			/* met once: walked as it is */
		return false;
	if (e->at == NOT_BUILT)
		e->at = BuildIndex(c, sc->mem, b, s);
	if (e->at == NO_INDEX)
		return false;
	h = (const IndexHead *) (c->arena + e->at);
	out->ymin = h->ymin;
	out->shift = h->shift;
	out->nbands = h->nbands;
	out->start = (const uint32_t *) (h + 1);
	out->edges = (const int32_t *) (out->start + h->nbands + 1);
	return true;
}

/* See edge_index.h. */
void
PbEdgeCacheFree(PbScratch *sc)
{
	PbEdgeCache *c = sc->edges;

	if (c == NULL)
		return;
	if (c->table)
		sc->mem->release(sc->mem->ctx, c->table);
	if (c->arena)
		sc->mem->release(sc->mem->ctx, c->arena);
	sc->mem->release(sc->mem->ctx, c);
	sc->edges = NULL;
}
