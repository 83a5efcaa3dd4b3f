/*
 * hilbert_rtree.c: a packed Hilbert R-tree and the box join built on it.
 *
 * Build sorts the entries by the Hilbert index of their box centres and
 * packs them, fanout at a time, into nodes, level by level up to a single
 * root (Kamel & Faloutsos 1993).  Because the packing is complete, node i
 * of level l has children fanout*i .. fanout*i + fanout - 1 of level l - 1
 * (the last node of a level may have fewer), so no child pointers are
 * stored: every level is a flat array of boxes, level 0 being the sorted
 * entries themselves.
 *
 * Search and Join walk the levels depth-first with an explicit stack whose
 * worst-case size follows from the tree shape, so traversal never
 * recurses and never grows memory while it runs.
 */
#include <math.h>
#include <string.h>

#include "hilbert_rtree.h"
#include "../geom/box_float4.h"

/* Levels a tree can have: n < 2^32 entries and fanout >= 2. */
#define RTREE_MAX_LEVELS 34

/*
 * Search stacks up to this many frames (2.5 kB) live on the C stack:
 * enough for any tree of fanout <= 64 (7 levels: 5 * 63 + 1 = 316).
 */
#define SEARCH_LOCAL_FRAMES 320

/* Join calls check_interrupts after this many node pairs (a power of 2). */
#define JOIN_INTERRUPT_EVERY 1024

struct PbRTree
{
	const PbAllocator *mem;
	uint32_t	n;				/* entries */
	uint32_t	fanout;
	int			nlevels;		/* 0 when empty; level nlevels-1 is the root */
	uint32_t	count[RTREE_MAX_LEVELS];	/* boxes in each level */
	size_t		offset[RTREE_MAX_LEVELS];	/* first box of each level */
	PbBox	   *boxes;			/* every level, level 0 (entries) first */
	uint32_t   *ids;			/* caller's id of each level-0 box */
	size_t		search_frames;	/* worst-case depth of a Search stack */
};

/* A node of a Search: level and index within the level. */
typedef struct SearchFrame
{
	uint32_t	level;
	uint32_t	index;
} SearchFrame;

/* A pair of nodes of a Join whose boxes intersect. */
typedef struct JoinFrame
{
	uint32_t	ia;
	uint32_t	ib;
	uint8_t		la;
	uint8_t		lb;
} JoinFrame;

/* Closed-box intersection, PostGIS && style (PbBoxesMeet), of two PbBoxes. */
static inline int
BoxesIntersect(const PbBox *a, const PbBox *b)
{
	return PbBoxesMeet(a->xmin, a->ymin, a->xmax, a->ymax,
					   b->xmin, b->ymin, b->xmax, b->ymax);
}

/* An empty box that any union replaces (inverted: +inf mins, -inf maxes). */
static PbBox
EmptyBox(void)
{
	PbBox		b = {INFINITY, INFINITY, -INFINITY, -INFINITY};

	return b;
}

/*
 * Grow u to cover b.  NaN coordinates of b are skipped (a comparison with
 * NaN is false), so a node box bounds every non-NaN coordinate below it:
 * that keeps pruning exact, since an entry whose box passes the intersect
 * test has only non-NaN values in the compared coordinates.
 */
static inline void
BoxUnion(PbBox *u, const PbBox *b)
{
	if (b->xmin < u->xmin)
		u->xmin = b->xmin;
	if (b->ymin < u->ymin)
		u->ymin = b->ymin;
	if (b->xmax > u->xmax)
		u->xmax = b->xmax;
	if (b->ymax > u->ymax)
		u->ymax = b->ymax;
}

/*
 * Hilbert index of (x, y) on the 2^order grid: the classic quadrant walk
 * from the most significant bit down, rotating/reflecting the remaining
 * low bits into the sub-curve's frame at each step.  Entries sorted by
 * this index are spatially clustered, which makes packed nodes small.
 */
uint32_t
PbHilbertIndex(uint32_t x, uint32_t y, int order)
{
	uint32_t	d = 0;

	/* branch-free: the quadrant choices are data, not jumps to predict */
	for (uint32_t s = (uint32_t) 1 << (order - 1); s > 0; s >>= 1)
	{
		uint32_t	rx = (x & s) ? 1 : 0;
		uint32_t	ry = (y & s) ? 1 : 0;
		uint32_t	swap = 0u - (ry ^ 1);	/* all ones when ry == 0 */
		uint32_t	flip = swap & (0u - rx) & (s - 1);
		uint32_t	t;

		d += s * s * ((3 * rx) ^ ry);
		/* keep the low bits, reflect them when ry == 0 and rx == 1 ((s-1) - v = v ^ (s-1)), swap when ry == 0 */
		x = (x & (s - 1)) ^ flip;
		y = (y & (s - 1)) ^ flip;
		t = (x ^ y) & swap;
		x ^= t;
		y ^= t;
	}
	return d;
}

/*
 * Cell (0 .. 2^16 - 1) of coordinate c on an axis spanning [lo, hi].
 * Computed on halves so that no difference overflows to infinity; NaN or
 * infinite values land in a valid cell (they only affect the order).
 */
static inline uint32_t
GridCell(double c, double lo, double hi)
{
	double		w = hi * 0.5 - lo * 0.5;
	double		t;

	if (!(w > 0))
		return 0;
	t = (c * 0.5 - lo * 0.5) / w;
	if (!(t > 0))
		return 0;
	if (t >= 1)
		return (1u << PB_RTREE_HILBERT_ORDER) - 1;
	return (uint32_t) (t * (double) (1u << PB_RTREE_HILBERT_ORDER));
}

/*
 * Sort keys (Hilbert index << 32 | input position) by their high 32 bits:
 * an LSD radix sort, 8 bits a pass, stable, so equal Hilbert indices keep
 * input order and the build is deterministic.  Passes whose digit is the
 * same for every key are skipped.  tmp holds n keys; the result is in keys.
 */
static void
SortKeys(uint64_t *keys, uint64_t *tmp, uint32_t n)
{
	uint64_t   *src = keys,
			   *dst = tmp;

	for (int shift = 32; shift < 64; shift += 8)
	{
		uint32_t	cnt[256];
		uint32_t	sum = 0;
		uint64_t   *swap;

		memset(cnt, 0, sizeof(cnt));
		for (uint32_t i = 0; i < n; i++)
			cnt[(src[i] >> shift) & 0xff]++;
		if (cnt[(src[0] >> shift) & 0xff] == n)
			continue;
		for (int d = 0; d < 256; d++)
		{
			uint32_t	c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> shift) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != keys)
		memcpy(keys, src, (size_t) n * sizeof(uint64_t));
}

/*
 * Bulk-load the tree: Hilbert-sort the entries (level 0) and build each
 * level above by taking the union of fanout consecutive boxes, until one
 * root remains.  n == 0 gives an empty tree that every query ignores.
 */
PbRTree *
PbRTreeBuild(const PbAllocator *mem, const PbRTreeEntry *entries, uint32_t n,
			 int fanout)
{
	PbRTree    *t = mem->alloc(mem->ctx, sizeof(PbRTree));
	PbBox		ext = EmptyBox();
	uint64_t   *keys;
	uint64_t   *tmp;
	size_t		total;

	memset(t, 0, sizeof(*t));
	t->mem = mem;
	t->n = n;
	if (fanout < 2)
		fanout = 2;
	if (fanout > PB_RTREE_MAX_FANOUT)
		fanout = PB_RTREE_MAX_FANOUT;
	t->fanout = (uint32_t) fanout;
	if (n == 0)
		return t;

	/* level sizes: ceil(count / fanout) until a single root */
	t->count[0] = n;
	t->offset[0] = 0;
	total = n;
	t->nlevels = 1;
	while (t->count[t->nlevels - 1] > 1)
	{
		uint32_t	below = t->count[t->nlevels - 1];

		t->count[t->nlevels] = below / t->fanout + (below % t->fanout != 0);
		t->offset[t->nlevels] = total;
		total += t->count[t->nlevels];
		t->nlevels++;
	}
	/*
	 * Search stack depth: the root, then each popped node of levels
	 * nlevels-1 .. 2 is replaced by at most fanout children (level-1 nodes
	 * push nothing: their children are entries, tested in place).
	 */
	t->search_frames = t->nlevels >= 2 ?
		(size_t) (t->nlevels - 2) * (t->fanout - 1) + 1 : 1;

	/* Hilbert keys of box centres on a 2^16 grid over the extent */
	for (uint32_t i = 0; i < n; i++)
		BoxUnion(&ext, &entries[i].box);
	keys = mem->alloc(mem->ctx, (size_t) n * sizeof(uint64_t));
	tmp = mem->alloc(mem->ctx, (size_t) n * sizeof(uint64_t));
	for (uint32_t i = 0; i < n; i++)
	{
		const PbBox *b = &entries[i].box;
		uint32_t	gx = GridCell(b->xmin * 0.5 + b->xmax * 0.5, ext.xmin, ext.xmax);
		uint32_t	gy = GridCell(b->ymin * 0.5 + b->ymax * 0.5, ext.ymin, ext.ymax);

		keys[i] = (uint64_t) PbHilbertIndex(gx, gy, PB_RTREE_HILBERT_ORDER) << 32 | i;
	}
	if (mem->check_interrupts)
		mem->check_interrupts(mem->ctx);
	SortKeys(keys, tmp, n);
	mem->release(mem->ctx, tmp);
	if (mem->check_interrupts)
		mem->check_interrupts(mem->ctx);

	/* level 0: the entries in Hilbert order */
	t->boxes = mem->alloc(mem->ctx, total * sizeof(PbBox));
	t->ids = mem->alloc(mem->ctx, (size_t) n * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
	{
		const PbRTreeEntry *e = &entries[(uint32_t) keys[i]];

		t->boxes[i] = e->box;
		t->ids[i] = e->id;
	}
	mem->release(mem->ctx, keys);

	/* upper levels: node j covers children fanout*j .. of the level below */
	for (int l = 1; l < t->nlevels; l++)
	{
		const PbBox *below = t->boxes + t->offset[l - 1];
		PbBox	   *level = t->boxes + t->offset[l];
		uint32_t	nbelow = t->count[l - 1];

		for (uint32_t j = 0; j < t->count[l]; j++)
		{
			PbBox		u = EmptyBox();
			uint32_t	c0 = j * t->fanout;
			uint32_t	c1 = nbelow - c0 > t->fanout ? c0 + t->fanout : nbelow;

			for (uint32_t c = c0; c < c1; c++)
				BoxUnion(&u, &below[c]);
			level[j] = u;
		}
	}
	return t;
}

/* Release the tree and all its arrays (NULL is a no-op). */
void
PbRTreeFree(PbRTree *t)
{
	if (t == NULL)
		return;
	if (t->boxes)
		t->mem->release(t->mem->ctx, t->boxes);
	if (t->ids)
		t->mem->release(t->mem->ctx, t->ids);
	t->mem->release(t->mem->ctx, t);
}

/* Number of entries the tree was built over. */
uint32_t
PbRTreeSize(const PbRTree *t)
{
	return t->n;
}

/* The root's box: the union of all entry boxes (an inverted box when empty). */
PbBox
PbRTreeExtent(const PbRTree *t)
{
	if (t->n == 0)
		return EmptyBox();
	return t->boxes[t->offset[t->nlevels - 1]];
}

/* Box of node index of level level. */
static inline const PbBox *
NodeBox(const PbRTree *t, uint32_t level, uint32_t index)
{
	return &t->boxes[t->offset[level] + index];
}

/* Children of node index of level level (>= 1): [*c0, *c1) of level - 1. */
static inline void
Children(const PbRTree *t, uint32_t level, uint32_t index, uint32_t *c0,
		 uint32_t *c1)
{
	uint32_t	nbelow = t->count[level - 1];

	*c0 = index * t->fanout;
	*c1 = nbelow - *c0 > t->fanout ? *c0 + t->fanout : nbelow;
}

/*
 * Report every entry intersecting q, depth-first.  Children that are
 * entries are tested and emitted in place; intersecting inner children
 * are pushed in reverse so they pop (and emit) in Hilbert order.  The
 * stack lives on the C stack (always for fanouts up to 64 and any n < 2^32;
 * e.g. fanout 256 over more than 65536 entries needs more), else it comes
 * from the tree's allocator for this call only.
 * Search does not call check_interrupts: its work is bounded by the tree
 * and the emitted entries, and emit can check.
 */
void
PbRTreeSearch(const PbRTree *t, const PbBox *q,
			  void (*emit) (void *ctx, uint32_t id), void *ctx)
{
	SearchFrame local[SEARCH_LOCAL_FRAMES];
	SearchFrame *stack = local;
	size_t		sp = 0;
	uint32_t	root;

	if (t->n == 0)
		return;
	root = (uint32_t) (t->nlevels - 1);
	if (!BoxesIntersect(NodeBox(t, root, 0), q))
		return;
	if (root == 0)
	{
		emit(ctx, t->ids[0]);
		return;
	}
	if (t->search_frames > SEARCH_LOCAL_FRAMES)
		stack = t->mem->alloc(t->mem->ctx, t->search_frames * sizeof(SearchFrame));
	stack[sp].level = root;
	stack[sp].index = 0;
	sp++;
	while (sp > 0)
	{
		SearchFrame f = stack[--sp];
		const PbBox *below = t->boxes + t->offset[f.level - 1];
		uint32_t	c0,
					c1;

		Children(t, f.level, f.index, &c0, &c1);
		if (f.level == 1)
		{
			for (uint32_t c = c0; c < c1; c++)
				if (BoxesIntersect(&below[c], q))
					emit(ctx, t->ids[c]);
			continue;
		}
		for (uint32_t c = c1; c-- > c0;)
			if (BoxesIntersect(&below[c], q))
			{
				stack[sp].level = f.level - 1;
				stack[sp].index = c;
				sp++;
			}
	}
	if (stack != local)
		t->mem->release(t->mem->ctx, stack);
}

/*
 * Worst-case Join stack depth for these two trees.  Which side a node
 * pair descends depends only on its two levels, so every path from the
 * root pair passes through the same sequence of level pairs; at each step
 * one popped pair pushes at most fanout_a, fanout_b or fanout_a*fanout_b
 * pairs (none at the last step, whose pairs of entries are emitted).
 */
static size_t
JoinFrames(const PbRTree *ta, const PbRTree *tb)
{
	int			la = ta->nlevels - 1,
				lb = tb->nlevels - 1;
	size_t		frames = 1;

	while (la > 0 || lb > 0)
	{
		int			da = la > 0 && la >= lb,
					db = lb > 0 && lb >= la;
		size_t		push = (da ? ta->fanout : 1) * (size_t) (db ? tb->fanout : 1);

		la -= da;
		lb -= db;
		if (la > 0 || lb > 0)
			frames += push;
	}
	return frames;
}

/*
 * Report every intersecting pair (entry of ta, entry of tb) by descending
 * both trees together from the pair of roots.  A popped pair of nodes
 * (their boxes intersect) descends the side on the higher level, or both
 * when the levels are equal (so a side already at its entries waits while
 * the other descends).  Children are first restricted to those meeting
 * the other node's box, then paired; pairs of entries are emitted at once,
 * other intersecting pairs pushed in reverse so that output comes in
 * Hilbert order of ta, then tb: deterministic for given inputs.
 *
 * The stack is allocated per call from ta's allocator and released at the
 * end, so concurrent joins on shared trees do not interfere; if
 * check_interrupts longjmps out, the stack is left to the allocator's
 * owner (a palloc context frees it with everything else).
 */
void
PbRTreeJoin(const PbRTree *ta, const PbRTree *tb,
			void (*emit) (void *ctx, uint32_t a, uint32_t b), void *ctx)
{
	const PbAllocator *mem = ta->mem;
	JoinFrame  *stack;
	size_t		sp = 0;
	uint32_t	pops = 0;
	uint32_t	ca[PB_RTREE_MAX_FANOUT],
				cb[PB_RTREE_MAX_FANOUT];

	if (ta->n == 0 || tb->n == 0)
		return;
	if (!BoxesIntersect(NodeBox(ta, (uint32_t) (ta->nlevels - 1), 0),
						NodeBox(tb, (uint32_t) (tb->nlevels - 1), 0)))
		return;
	if (ta->nlevels == 1 && tb->nlevels == 1)
	{
		emit(ctx, ta->ids[0], tb->ids[0]);
		return;
	}
	stack = mem->alloc(mem->ctx, JoinFrames(ta, tb) * sizeof(JoinFrame));
	stack[0].la = (uint8_t) (ta->nlevels - 1);
	stack[0].ia = 0;
	stack[0].lb = (uint8_t) (tb->nlevels - 1);
	stack[0].ib = 0;
	sp = 1;
	while (sp > 0)
	{
		JoinFrame	f = stack[--sp];
		const PbBox *boxa = NodeBox(ta, f.la, f.ia);
		const PbBox *boxb = NodeBox(tb, f.lb, f.ib);
		int			da = f.la > 0 && f.la >= f.lb,
					db = f.lb > 0 && f.lb >= f.la;
		uint32_t	la = (uint32_t) (f.la - da),
					lb = (uint32_t) (f.lb - db);
		const PbBox *levela = ta->boxes + ta->offset[la];
		const PbBox *levelb = tb->boxes + tb->offset[lb];
		uint32_t	na = 0,
					nb = 0;

		if ((++pops & (JOIN_INTERRUPT_EVERY - 1)) == 0 && mem->check_interrupts)
			mem->check_interrupts(mem->ctx);

		/* the candidate children on each side: those meeting the other box */
		if (da)
		{
			uint32_t	c0,
						c1;

			Children(ta, f.la, f.ia, &c0, &c1);
			for (uint32_t c = c0; c < c1; c++)
				if (BoxesIntersect(&levela[c], boxb))
					ca[na++] = c;
		}
		else
			ca[na++] = f.ia;
		if (db)
		{
			uint32_t	c0,
						c1;

			Children(tb, f.lb, f.ib, &c0, &c1);
			for (uint32_t c = c0; c < c1; c++)
				if (BoxesIntersect(&levelb[c], boxa))
					cb[nb++] = c;
		}
		else
			cb[nb++] = f.ib;
		if (na == 0 || nb == 0)
			continue;

		if (la == 0 && lb == 0)
		{
			/* entries on both sides: emit in order */
			for (uint32_t i = 0; i < na; i++)
			{
				const PbBox *a = &levela[ca[i]];

				for (uint32_t j = 0; j < nb; j++)
					if (BoxesIntersect(a, &levelb[cb[j]]))
						emit(ctx, ta->ids[ca[i]], tb->ids[cb[j]]);
			}
			continue;
		}
		/* push intersecting pairs in reverse so they pop in order */
		for (uint32_t i = na; i-- > 0;)
		{
			const PbBox *a = &levela[ca[i]];

			for (uint32_t j = nb; j-- > 0;)
				if (BoxesIntersect(a, &levelb[cb[j]]))
				{
					stack[sp].ia = ca[i];
					stack[sp].ib = cb[j];
					stack[sp].la = (uint8_t) la;
					stack[sp].lb = (uint8_t) lb;
					sp++;
				}
		}
	}
	mem->release(mem->ctx, stack);
}

/*
 * The float4 box PostGIS keeps for a geometry with double box b (mins
 * rounded down, maxes up), returned as doubles: filtering on these boxes
 * finds exactly the pairs that PostGIS's && finds, including pairs whose
 * double boxes miss each other by less than a float ulp.
 */
PbBox
PbBoxAsPostgisFloat(PbBox b)
{
	PbBox		r;

	r.xmin = PbFloatDown(b.xmin);
	r.ymin = PbFloatDown(b.ymin);
	r.xmax = PbFloatUp(b.xmax);
	r.ymax = PbFloatUp(b.ymax);
	return r;
}
