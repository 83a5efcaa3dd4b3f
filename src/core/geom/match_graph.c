/*
 * match_graph.c: the optimal one-to-one matching of a graph of pairs,
 * split into its connected components (union-find).  On segmentations
 * nearly every component is one pair, matched as it is; the others
 * (a nucleus split in two, a merged blob, touching nuclei shifted by a
 * pixel) go to the assignment solver (match_assign.c) with their objects
 * sorted in the caller's order, so that the matching taken among equal
 * optima does not depend on the order the pairs came in.
 */
#include <string.h>

#include "match.h"

#define UNSET UINT32_MAX

/* Compare two indices (< 0: a first). */
typedef int (*IndexCmp) (void *ctx, uint32_t a, uint32_t b);

/* Sort v[0..n) with cmp, stable (bottom-up merge sort through tmp). */
static void
SortIndices(uint32_t *v, uint32_t *tmp, size_t n, IndexCmp cmp, void *ctx)
{
	uint32_t   *src = v,
			   *dst = tmp,
			   *t;

	for (size_t width = 1; width < n; width *= 2)
	{
		for (size_t lo = 0; lo < n; lo += 2 * width)
		{
			size_t		mid = lo + width < n ? lo + width : n,
						hi = lo + 2 * width < n ? lo + 2 * width : n,
						i = lo,
						j = mid,
						k = lo;

			while (i < mid && j < hi)
				dst[k++] = cmp(ctx, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(uint32_t));
}

/* What the comparisons of a component's sort need. */
typedef struct SortCtx
{
	const PbMatchInput *in;
	int			pred;			/* sorting predictions (1) or true objects (0) */
	const uint32_t *local;		/* sorting edges: objects' local numbers */
} SortCtx;

/* The caller's order of two objects of one set, then their indices. */
static int
ObjectCmp(void *ctx, uint32_t a, uint32_t b)
{
	const SortCtx *c = ctx;
	int			r = c->in->order ? c->in->order(c->in->order_ctx, c->pred, a, b) : 0;

	return r != 0 ? r : (a > b) - (a < b);
}

/* Two edges (pair indices) of one true object, by their predictions' local numbers. */
static int
EdgeCmp(void *ctx, uint32_t a, uint32_t b)
{
	const SortCtx *c = ctx;
	uint32_t	ka = c->local[c->in->n_true + c->in->pairs[a].p],
				kb = c->local[c->in->n_true + c->in->pairs[b].p];

	return (ka > kb) - (ka < kb);
}

/* The root of node x, halving the path on the way. */
static uint32_t
Find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Buffers of one PbMatchGraph call. */
typedef struct Graph
{
	const PbMatchInput *in;
	const PbAllocator *mem;
	int32_t		count;
	const double *value;
	uint8_t    *chosen;
	uint32_t   *local;			/* [node] number in its component, or UNSET */
	uint32_t   *left,			/* a component's true objects */
			   *right,			/* its predictions */
			   *tmp,			/* sort scratch */
			   *first,			/* [left + 1] edge offsets */
			   *mate;			/* [left] */
	uint32_t   *order;			/* the component's pairs, by left, then right */
	PbAssignEdge *aedges;
	PbAssign   *solver;
} Graph;

/*
 * Solve one component (its pairs ce[0..n)): number its objects in the
 * caller's order, lay its edges out by true object, match, mark.
 */
static PbStatus
SolveComponent(Graph *g, const uint32_t *ce, uint32_t n)
{
	const PbMatchInput *in = g->in;
	uint32_t	nl = 0,
				nr = 0;
	SortCtx		sc = {in, 0, g->local};
	PbStatus	st;

	for (uint32_t k = 0; k < n; k++)
	{
		const PbMatchPair *pr = &in->pairs[ce[k]];

		if (g->local[pr->t] == UNSET)
		{
			g->local[pr->t] = 0;
			g->left[nl++] = pr->t;
		}
		if (g->local[in->n_true + pr->p] == UNSET)
		{
			g->local[in->n_true + pr->p] = 0;
			g->right[nr++] = pr->p;
		}
	}
	SortIndices(g->left, g->tmp, nl, ObjectCmp, &sc);
	sc.pred = 1;
	SortIndices(g->right, g->tmp, nr, ObjectCmp, &sc);
	for (uint32_t i = 0; i < nl; i++)
		g->local[g->left[i]] = i;
	for (uint32_t j = 0; j < nr; j++)
		g->local[in->n_true + g->right[j]] = j;
	/* edges grouped by left number (counting sort), each group by right number */
	memset(g->first, 0, (nl + 1) * sizeof(uint32_t));
	for (uint32_t k = 0; k < n; k++)
		g->first[g->local[in->pairs[ce[k]].t] + 1]++;
	for (uint32_t i = 0; i < nl; i++)
		g->first[i + 1] += g->first[i];
	for (uint32_t k = 0; k < n; k++)
		g->order[g->first[g->local[in->pairs[ce[k]].t]]++] = ce[k];
	for (uint32_t i = nl; i > 0; i--)
		g->first[i] = g->first[i - 1];
	g->first[0] = 0;
	for (uint32_t i = 0; i < nl; i++)
		SortIndices(g->order + g->first[i], g->tmp, g->first[i + 1] - g->first[i], EdgeCmp, &sc);
	for (uint32_t k = 0; k < n; k++)
		g->aedges[k] = (PbAssignEdge) {g->local[in->n_true + in->pairs[g->order[k]].p],
		g->count, g->value[g->order[k]]};
	st = PbAssignSolve(g->solver, nl, nr, g->first, g->aedges, g->mate, in->poll, in->poll_arg);
	for (uint32_t i = 0; st == PB_OK && i < nl; i++)
		for (uint32_t k = g->first[i]; g->mate[i] != PB_MATCH_NONE && k < g->first[i + 1]; k++)
			if (g->aedges[k].right == g->mate[i])
				g->chosen[g->order[k]] = 1;
	for (uint32_t i = 0; i < nl; i++)
		g->local[g->left[i]] = UNSET;
	for (uint32_t j = 0; j < nr; j++)
		g->local[in->n_true + g->right[j]] = UNSET;
	return st;
}

/* Allocate n elements of size bytes. */
static void *
Alloc(const PbAllocator *m, size_t n, size_t size)
{
	return m->alloc(m->ctx, (n ? n : 1) * size);
}

/*
 * Match the pairs pairs[edges[k]] (see match.h): components by
 * union-find, the pairs of each together (counting sort by root), one
 * pair matched as it is, more solved.
 */
PbStatus
PbMatchGraph(const PbMatchInput *in, const PbAllocator *mem, const uint32_t *edges,
			 size_t nedges, int32_t count, const double *value, uint8_t *chosen)
{
	const PbAllocator *m = mem;
	size_t		nodes = (size_t) in->n_true + in->n_pred;
	uint32_t   *parent = Alloc(m, nodes, sizeof(uint32_t)),
			   *start = Alloc(m, nodes + 1, sizeof(uint32_t)),
			   *byroot = Alloc(m, nedges, sizeof(uint32_t));
	Graph		g = {.in = in, .mem = mem, .count = count, .value = value, .chosen = chosen};
	PbStatus	st = PB_OK;

	for (size_t x = 0; x < nodes; x++)
		parent[x] = (uint32_t) x;
	for (size_t k = 0; k < nedges; k++)
	{
		uint32_t	a = Find(parent, in->pairs[edges[k]].t),
					b = Find(parent, in->n_true + in->pairs[edges[k]].p);

		if (a != b)
			parent[a > b ? a : b] = a > b ? b : a;
	}
	memset(start, 0, (nodes + 1) * sizeof(uint32_t));
	for (size_t k = 0; k < nedges; k++)
		start[Find(parent, in->pairs[edges[k]].t) + 1]++;
	for (size_t x = 0; x < nodes; x++)
		start[x + 1] += start[x];
	for (size_t k = 0; k < nedges; k++)
		byroot[start[Find(parent, in->pairs[edges[k]].t)]++] = edges[k];
	for (size_t x = nodes; x > 0; x--)
		start[x] = start[x - 1];
	start[0] = 0;

	/* the buffers of the solved components, sized for the largest */
	{
		uint32_t	most = 0;

		for (size_t x = 0; x < nodes; x++)
			if (start[x + 1] - start[x] > most)
				most = start[x + 1] - start[x];
		g.local = Alloc(m, nodes, sizeof(uint32_t));
		memset(g.local, 0xff, nodes * sizeof(uint32_t));
		g.left = Alloc(m, most, sizeof(uint32_t));
		g.right = Alloc(m, most, sizeof(uint32_t));
		g.tmp = Alloc(m, most, sizeof(uint32_t));
		g.first = Alloc(m, (size_t) most + 1, sizeof(uint32_t));
		g.mate = Alloc(m, most, sizeof(uint32_t));
		g.order = Alloc(m, most, sizeof(uint32_t));
		g.aedges = Alloc(m, most, sizeof(PbAssignEdge));
		g.solver = PbAssignCreate(m);
	}
	for (size_t x = 0; x < nodes && st == PB_OK; x++)
	{
		uint32_t	n = start[x + 1] - start[x];

		if (n == 1)
		{
			PbAssignEdge one = {0, count, value[byroot[start[x]]]};

			if (one.count > 0 || (one.count == 0 && one.value > 0.0))
				chosen[byroot[start[x]]] = 1;
		}
		else if (n > 1)
		{
			st = SolveComponent(&g, byroot + start[x], n);
			if (st == PB_OK && in->poll && in->poll(in->poll_arg))
				st = PB_ERR_STOPPED;
		}
	}
	PbAssignFree(g.solver);
	{
		void	   *bufs[] = {parent, start, byroot, g.local, g.left, g.right, g.tmp,
		g.first, g.mate, g.order, g.aedges};

		for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
			m->release(m->ctx, bufs[i]);
	}
	return st;
}
