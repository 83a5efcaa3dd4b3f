/*
 * match_assign.c: a one-to-one matching of maximum weight in a sparse
 * bipartite graph (the assignment stardist and HoVer-Net take with
 * scipy's linear_sum_assignment, on the edges that exist).
 *
 * Successive shortest paths with potentials (the Hungarian method, one
 * left node at a time, Dijkstra on reduced costs).  Every left node l has
 * a private "dummy" right node of cost 0, standing for "l unmatched", so
 * a perfect matching of the left side of minimum cost -weight is a
 * matching of maximum weight, and a search stops at the first free node
 * it reaches: on segmentations that is nearly always a step or two away,
 * so the work stays local even in components of many thousands of nodes.
 *
 * Costs are pairs compared lexicographically (an integer, then a double):
 * with the integer counting edges, cardinality comes first and the total
 * value second, exactly, with no big constant to swamp the doubles.  Only
 * the double half is rounded; a reduced cost that rounding makes slightly
 * negative is taken as 0, which can only choose between matchings whose
 * totals differ in the last bits.
 */
#include <math.h>
#include <string.h>

#include "match.h"

/* A cost: k first, then x. */
typedef struct Cost
{
	int64_t		k;
	double		x;
} Cost;

/* A queued node and the distance it was queued with. */
typedef struct HeapItem
{
	Cost		d;
	uint32_t	node;
} HeapItem;

/* Node states during one search. */
enum
{
	UNSEEN = 0, QUEUED, DONE
};

/* Work units (relaxations, pops) between two polls. */
#define POLL_EVERY 65536

struct PbAssign
{
	const PbAllocator *mem;
	uint32_t	cap_left,
				cap_nodes;
	Cost	   *u;				/* [left] potentials */
	Cost	   *v;				/* [node] potentials: right nodes, then dummies */
	Cost	   *dist;			/* [node] */
	Cost	   *ldist;			/* [left] distance a left node was reached at */
	uint32_t   *pred;			/* [node] the left node it was reached from */
	uint32_t   *lmate;			/* [left] its node (a right node or its dummy) */
	uint32_t   *rmate;			/* [node] its left node */
	uint8_t    *state;			/* [node] */
	uint32_t   *seen;			/* nodes touched by the search, to reset */
	uint32_t   *done;			/* nodes finished by the search, in order */
	uint32_t   *tree;			/* left nodes reached by the search */
	HeapItem   *heap;
	size_t		nheap,
				cap_heap;
	uint64_t	work;
};

/* a < b */
static inline int
CostLess(Cost a, Cost b)
{
	return a.k < b.k || (a.k == b.k && a.x < b.x);
}

/* a + b */
static inline Cost
CostAdd(Cost a, Cost b)
{
	return (Cost) {a.k + b.k, a.x + b.x};
}

/* a - b */
static inline Cost
CostSub(Cost a, Cost b)
{
	return (Cost) {a.k - b.k, a.x - b.x};
}

/* A reduced cost, rounding's slightly negative ones taken as 0. */
static inline Cost
Reduced(Cost c)
{
	if (c.k == 0 && c.x < 0.0)
		c.x = 0.0;
	return c;
}

/* Make an empty solver allocating with mem. */
PbAssign *
PbAssignCreate(const PbAllocator *mem)
{
	PbAssign   *a = mem->alloc(mem->ctx, sizeof(PbAssign));

	memset(a, 0, sizeof(*a));
	a->mem = mem;
	return a;
}

/* Free a solver and its buffers. */
void
PbAssignFree(PbAssign *a)
{
	const PbAllocator *m = a->mem;
	void	   *bufs[] = {a->u, a->v, a->dist, a->ldist, a->pred, a->lmate, a->rmate,
	a->state, a->seen, a->done, a->tree, a->heap};

	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (bufs[i])
			m->release(m->ctx, bufs[i]);
	m->release(m->ctx, a);
}

/* Grow buffer *p to n elements of size bytes (contents not kept). */
static void
Reserve(const PbAllocator *m, void **p, size_t n, size_t size)
{
	if (*p)
		m->release(m->ctx, *p);
	*p = m->alloc(m->ctx, n * size);
}

/* Make room for nl left nodes and nr right nodes. */
static void
Fit(PbAssign *a, uint32_t nl, uint32_t nr)
{
	const PbAllocator *m = a->mem;
	size_t		nodes = (size_t) nl + nr;

	if (nl > a->cap_left)
	{
		a->cap_left = nl > 2 * a->cap_left ? nl : 2 * a->cap_left;
		Reserve(m, (void **) &a->u, a->cap_left, sizeof(Cost));
		Reserve(m, (void **) &a->ldist, a->cap_left, sizeof(Cost));
		Reserve(m, (void **) &a->lmate, a->cap_left, sizeof(uint32_t));
		Reserve(m, (void **) &a->tree, a->cap_left, sizeof(uint32_t));
	}
	if (nodes > a->cap_nodes)
	{
		a->cap_nodes = nodes > 2 * (size_t) a->cap_nodes ? (uint32_t) nodes : 2 * a->cap_nodes;
		Reserve(m, (void **) &a->v, a->cap_nodes, sizeof(Cost));
		Reserve(m, (void **) &a->dist, a->cap_nodes, sizeof(Cost));
		Reserve(m, (void **) &a->pred, a->cap_nodes, sizeof(uint32_t));
		Reserve(m, (void **) &a->rmate, a->cap_nodes, sizeof(uint32_t));
		Reserve(m, (void **) &a->state, a->cap_nodes, sizeof(uint8_t));
		Reserve(m, (void **) &a->seen, a->cap_nodes, sizeof(uint32_t));
		Reserve(m, (void **) &a->done, a->cap_nodes, sizeof(uint32_t));
	}
}

/* Heap order: distance, then node number (so ties resolve the same way). */
static inline int
ItemLess(const HeapItem *x, const HeapItem *y)
{
	return CostLess(x->d, y->d) ||
		(!CostLess(y->d, x->d) && x->node < y->node);
}

/* Queue node at distance d. */
static void
HeapPush(PbAssign *a, Cost d, uint32_t node)
{
	size_t		i;

	if (a->nheap == a->cap_heap)
	{
		a->cap_heap = a->cap_heap ? 2 * a->cap_heap : 256;
		a->heap = a->heap ? a->mem->resize(a->mem->ctx, a->heap, a->cap_heap * sizeof(HeapItem))
			: a->mem->alloc(a->mem->ctx, a->cap_heap * sizeof(HeapItem));
	}
	i = a->nheap++;
	a->heap[i] = (HeapItem) {d, node};
	while (i > 0 && ItemLess(&a->heap[i], &a->heap[(i - 1) / 2]))
	{
		HeapItem	t = a->heap[i];

		a->heap[i] = a->heap[(i - 1) / 2];
		a->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Take the nearest queued item. */
static HeapItem
HeapPop(PbAssign *a)
{
	HeapItem	top = a->heap[0],
				t;
	size_t		i = 0,
				n = --a->nheap;

	a->heap[0] = a->heap[n];
	for (;;)
	{
		size_t		l = 2 * i + 1,
					m = i;

		if (l < n && ItemLess(&a->heap[l], &a->heap[m]))
			m = l;
		if (l + 1 < n && ItemLess(&a->heap[l + 1], &a->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		t = a->heap[i];
		a->heap[i] = a->heap[m];
		a->heap[m] = t;
		i = m;
	}
	return top;
}

/* Whether an edge is worth taking at all: weight > 0. */
static inline int
Positive(const PbAssignEdge *e)
{
	return e->count > 0 || (e->count == 0 && e->value > 0.0);
}

/* Offer node (reached from left i) distance d when it improves it. */
static inline void
Offer(PbAssign *a, uint32_t node, uint32_t i, Cost d, uint32_t *nseen)
{
	if (a->state[node] == DONE)
		return;
	if (a->state[node] == UNSEEN)
	{
		a->state[node] = QUEUED;
		a->seen[(*nseen)++] = node;
	}
	else if (!CostLess(d, a->dist[node]))
		return;
	a->dist[node] = d;
	a->pred[node] = i;
	HeapPush(a, d, node);
}

/* Relax the edges of left node i, reached at distance d. */
static void
Relax(PbAssign *a, uint32_t i, Cost d, uint32_t nr, const uint32_t *first,
	  const PbAssignEdge *edges, uint32_t *nseen)
{
	uint32_t	dummy = nr + i;

	for (uint32_t e = first[i]; e < first[i + 1]; e++)
	{
		const PbAssignEdge *ed = &edges[e];
		Cost		c = {-(int64_t) ed->count, -ed->value};

		if (!Positive(ed))
			continue;
		Offer(a, ed->right, i, CostAdd(d, Reduced(CostSub(CostSub(c, a->u[i]), a->v[ed->right]))),
			  nseen);
	}
	Offer(a, dummy, i, CostAdd(d, Reduced(CostSub((Cost) {0, 0.0}, CostAdd(a->u[i], a->v[dummy])))),
		  nseen);
	a->work += first[i + 1] - first[i] + 1;
}

/*
 * Match free left node s: Dijkstra from s on reduced costs to the first
 * free node (a right node nobody has, or a dummy), then potentials moved
 * so that reduced costs stay >= 0 and are 0 along the new matching, and
 * the path flipped.
 */
static PbStatus
Augment(PbAssign *a, uint32_t s, uint32_t nr, const uint32_t *first,
		const PbAssignEdge *edges, PbPollFn poll, void *poll_arg)
{
	uint32_t	nseen = 0,
				ndone = 0,
				ntree = 0,
				t;
	Cost		delta;
	PbStatus	st = PB_OK;

	a->nheap = 0;
	a->tree[ntree++] = s;
	a->ldist[s] = (Cost) {0, 0.0};
	Relax(a, s, a->ldist[s], nr, first, edges, &nseen);
	for (;;)
	{
		HeapItem	top = HeapPop(a);	/* never empty: s's dummy is queued */

		if (a->state[top.node] == DONE || CostLess(a->dist[top.node], top.d))
			continue;
		a->state[top.node] = DONE;
		a->done[ndone++] = top.node;
		if (top.node >= nr || a->rmate[top.node] == PB_MATCH_NONE)
			break;
		{
			uint32_t	i = a->rmate[top.node];

			a->tree[ntree++] = i;
			a->ldist[i] = top.d;
			Relax(a, i, top.d, nr, first, edges, &nseen);
		}
		if (a->work >= POLL_EVERY)
		{
			a->work = 0;
			if (poll && poll(poll_arg))
			{
				st = PB_ERR_STOPPED;
				break;
			}
		}
	}
	if (st == PB_OK)
	{
		t = a->done[ndone - 1];
		delta = a->dist[t];
		for (uint32_t k = 0; k + 1 < ndone; k++)
		{
			uint32_t	j = a->done[k];

			a->v[j] = CostAdd(CostSub(a->v[j], delta), a->dist[j]);
		}
		for (uint32_t k = 0; k < ntree; k++)
		{
			uint32_t	i = a->tree[k];

			a->u[i] = CostAdd(a->u[i], CostSub(delta, a->ldist[i]));
		}
		for (;;)
		{
			uint32_t	i = a->pred[t],
						next = a->lmate[i];

			a->lmate[i] = t;
			a->rmate[t] = i;
			if (i == s)
				break;
			t = next;
		}
	}
	for (uint32_t k = 0; k < nseen; k++)
		a->state[a->seen[k]] = UNSEEN;
	return st;
}

/*
 * Match nl left nodes to nr right nodes for maximum weight (see match.h):
 * start from potentials u(l) = the least cost at l (dummy included), v = 0,
 * which every edge respects, then match the left nodes one by one.
 */
PbStatus
PbAssignSolve(PbAssign *a, uint32_t nl, uint32_t nr, const uint32_t *first,
			  const PbAssignEdge *edges, uint32_t *mate, PbPollFn poll, void *poll_arg)
{
	PbStatus	st = PB_OK;

	Fit(a, nl, nr);
	for (uint32_t l = 0; l < nl; l++)
	{
		Cost		least = {0, 0.0};

		for (uint32_t e = first[l]; e < first[l + 1]; e++)
		{
			Cost		c = {-(int64_t) edges[e].count, -edges[e].value};

			if (Positive(&edges[e]) && CostLess(c, least))
				least = c;
		}
		a->u[l] = least;
		a->lmate[l] = PB_MATCH_NONE;
	}
	for (uint32_t j = 0; j < nr + nl; j++)
	{
		a->v[j] = (Cost) {0, 0.0};
		a->rmate[j] = PB_MATCH_NONE;
		a->state[j] = UNSEEN;
	}
	for (uint32_t l = 0; l < nl && st == PB_OK; l++)
		st = Augment(a, l, nr, first, edges, poll, poll_arg);
	for (uint32_t l = 0; l < nl; l++)
		mate[l] = st == PB_OK && a->lmate[l] < nr ? a->lmate[l] : PB_MATCH_NONE;
	return st;
}
