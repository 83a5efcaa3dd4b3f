/*
 * test_rtree.c: the packed Hilbert R-tree (hilbert_rtree.c) against brute
 * force written here: Search and Join results as sorted sets equal the
 * O(n) / O(n*m) closed-box tests over random boxes of many kinds, the
 * Hilbert mapping is a curve, and PbBoxAsPostgisFloat rounds outward to
 * the tightest floats, as PostGIS does.
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/sccg/pb_sccg.h"
#include "../src/core/geom/pb_geom.h"
#include "testutil.h"

/* A growable list of uint64 (ids, or pairs as a << 32 | b). */
typedef struct List
{
	uint64_t   *v;
	size_t		n,
				cap;
} List;

/* Append x to l. */
static void
ListPush(List *l, uint64_t x)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(uint64_t));
		if (l->v == NULL)
			abort();
	}
	l->v[l->n++] = x;
}

/* qsort order of uint64. */
static int
CmpU64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Sort l in place. */
static void
ListSort(List *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(uint64_t), CmpU64);
}

/* Whether two sorted lists are equal (reports the first difference). */
static int
ListsEqual(const List *got, const List *want, const char *what)
{
	size_t		i;

	for (i = 0; i < got->n && i < want->n; i++)
		if (got->v[i] != want->v[i])
			break;
	if (i == got->n && i == want->n)
		return 1;
	pb_check_fail(__FILE__, __LINE__, "%s: %zu results, brute force %zu; first difference at %zu (%llx vs %llx)",
				  what, got->n, want->n, i,
				  (unsigned long long) (i < got->n ? got->v[i] : 0),
				  (unsigned long long) (i < want->n ? want->v[i] : 0));
	return 0;
}

/* emit callbacks of Search and Join: append to the List in ctx. */
static void
EmitId(void *ctx, uint32_t id)
{
	ListPush(ctx, id);
}

static void
EmitPair(void *ctx, uint32_t a, uint32_t b)
{
	ListPush(ctx, (uint64_t) a << 32 | b);
}

/* The truth: closed boxes intersect (NaN compares false), written independently. */
static int
Meets(const PbBox *a, const PbBox *b)
{
	return !(a->xmax < b->xmin) && !(b->xmax < a->xmin) &&
		!(a->ymax < b->ymin) && !(b->ymax < a->ymin) &&
		!isnan(a->xmin) && !isnan(a->ymin) && !isnan(a->xmax) && !isnan(a->ymax) &&
		!isnan(b->xmin) && !isnan(b->ymin) && !isnan(b->xmax) && !isnan(b->ymax);
}

enum
{
	D_UNIFORM, D_CLUSTERED, D_DEGENERATE, D_IDENTICAL, D_TOUCHING, D_HUGE,
	D_NASTY, D_COUNT
};
static const char *const dist_names[] = {
	"uniform", "clustered", "degenerate", "identical", "touching", "huge", "nasty"
};

/* A random box of distribution dist. */
static PbBox
RandomBox(Rng *r, int dist)
{
	PbBox		b;
	double		x,
				y,
				w,
				h;

	switch (dist)
	{
		case D_UNIFORM:
			x = RngDouble(r) * 1000;
			y = RngDouble(r) * 1000;
			w = RngDouble(r) * 60;
			h = RngDouble(r) * 60;
			break;
		case D_CLUSTERED:
			{
				/* 4 tight clusters, integer coordinates (many shared edges) */
				int			c = (int) RngRange(r, 0, 3);

				x = c * 5000 + RngRange(r, -40, 40);
				y = c * -3000 + RngRange(r, -40, 40);
				w = (double) RngRange(r, 0, 8);
				h = (double) RngRange(r, 0, 8);
			}
			break;
		case D_DEGENERATE:
			/* segments and points on a small lattice */
			x = (double) RngRange(r, 0, 20);
			y = (double) RngRange(r, 0, 20);
			w = RngRange(r, 0, 1) ? 0 : (double) RngRange(r, 0, 5);
			h = w != 0 || RngRange(r, 0, 1) ? 0 : (double) RngRange(r, 0, 5);
			break;
		case D_IDENTICAL:
			/* three distinct boxes, repeated */
			x = (double) RngRange(r, 0, 2) * 3;
			y = 7;
			w = 3;
			h = 2;
			break;
		case D_TOUCHING:
			/* cells of a unit lattice: neighbours share edges or corners */
			x = (double) RngRange(r, -5, 5);
			y = (double) RngRange(r, -5, 5);
			w = 1;
			h = 1;
			break;
		case D_HUGE:
			{
				/* scales from 1e-300 to 1e300, both signs */
				double		s = pow(10.0, (double) RngRange(r, -300, 300));

				x = (RngDouble(r) - 0.5) * s;
				y = (RngDouble(r) - 0.5) * s;
				w = RngDouble(r) * s;
				h = RngDouble(r) * s;
				if (RngRange(r, 0, 20) == 0)
				{
					x = -DBL_MAX;
					w = DBL_MAX;
				}
			}
			break;
		default:
			/* infinities, NaNs and inverted boxes among ordinary ones */
			x = RngDouble(r) * 100;
			y = RngDouble(r) * 100;
			w = RngDouble(r) * 20;
			h = RngDouble(r) * 20;
			b.xmin = x;
			b.ymin = y;
			b.xmax = x + w;
			b.ymax = y + h;
			switch (RngRange(r, 0, 9))
			{
				case 0:
					b.xmin = -INFINITY;
					break;
				case 1:
					b.ymax = INFINITY;
					break;
				case 2:
					b.xmax = NAN;
					break;
				case 3:
					b.xmin = x + w + 5;	/* inverted */
					break;
				default:
					break;
			}
			return b;
	}
	b.xmin = x;
	b.ymin = y;
	b.xmax = x + w;
	b.ymax = y + h;
	return b;
}

/* n random entries of dist with distinct ids that are not their positions. */
static PbRTreeEntry *
RandomEntries(Rng *r, int dist, uint32_t n)
{
	PbRTreeEntry *e = malloc((n ? n : 1) * sizeof(PbRTreeEntry));

	for (uint32_t i = 0; i < n; i++)
	{
		e[i].box = RandomBox(r, dist);
		e[i].id = i * 7919u + 13u;
	}
	return e;
}

/* Search over every distribution, size and fanout equals a brute-force scan. */
void
test_rtree_search_brute(void)
{
	Rng			rng = {101};
	static const uint32_t sizes[] = {0, 1, 2, 3, 10, 65, 700};
	static const int fanouts[] = {2, 3, 5, 16, 64};

	for (int d = 0; d < D_COUNT; d++)
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			for (size_t fi = 0; fi < sizeof(fanouts) / sizeof(fanouts[0]); fi++)
			{
				uint32_t	n = sizes[si];
				PbRTreeEntry *e = RandomEntries(&rng, d, n);
				PbRTree    *t = PbRTreeBuild(&PbMallocAllocator, e, n, fanouts[fi]);

				pb_test_context("%s n=%u fanout=%d", dist_names[d], n, fanouts[fi]);
				CHECK_INT(PbRTreeSize(t), n);
				for (int qi = 0; qi < 40; qi++)
				{
					PbBox		q;
					List		got = {0},
								want = {0};

					/* random boxes, the entries' own boxes, everything, a point */
					if (qi < 25 || n == 0)
						q = RandomBox(&rng, d);
					else if (qi < 38)
						q = e[RngRange(&rng, 0, n - 1)].box;
					else if (qi == 38)
						q = (PbBox) {-INFINITY, -INFINITY, INFINITY, INFINITY};
					else
						q = (PbBox) {e[0].box.xmax, e[0].box.ymin, e[0].box.xmax, e[0].box.ymin};
					PbRTreeSearch(t, &q, EmitId, &got);
					for (uint32_t i = 0; i < n; i++)
						if (Meets(&e[i].box, &q))
							ListPush(&want, e[i].id);
					ListSort(&got);
					ListSort(&want);
					if (!ListsEqual(&got, &want, "search"))
						qi = 40;
					free(got.v);
					free(want.v);
				}
				PbRTreeFree(t);
				free(e);
			}
}

/*
 * Search on trees whose stack does not fit the C-stack buffer (fanout 256
 * over 70000 entries: 4 levels, 511 frames, allocated per call) and on a
 * 7-level fanout-2 tree still equals brute force.
 */
void
test_rtree_search_deep_stacks(void)
{
	Rng			rng = {111};
	static const int fanouts[] = {256, 2};

	for (int fi = 0; fi < 2; fi++)
	{
		uint32_t	n = fanouts[fi] == 256 ? 70000 : 100;
		PbRTreeEntry *e = RandomEntries(&rng, D_UNIFORM, n);
		PbRTree    *t = PbRTreeBuild(&PbMallocAllocator, e, n, fanouts[fi]);

		pb_test_context("fanout %d n=%u", fanouts[fi], n);
		for (int qi = 0; qi < 20; qi++)
		{
			PbBox		q = RandomBox(&rng, D_UNIFORM);
			List		got = {0},
						want = {0};

			/* grow some queries to cover much of the set */
			if (qi % 4 == 0)
			{
				q.xmax += 400;
				q.ymax += 400;
			}
			PbRTreeSearch(t, &q, EmitId, &got);
			for (uint32_t i = 0; i < n; i++)
				if (Meets(&e[i].box, &q))
					ListPush(&want, e[i].id);
			ListSort(&got);
			ListSort(&want);
			ListsEqual(&got, &want, "search");
			free(got.v);
			free(want.v);
		}
		PbRTreeFree(t);
		free(e);
	}
}

/* Join over random pairs of sets equals the brute-force O(n*m) pairs, with no duplicates. */
void
test_rtree_join_brute(void)
{
	Rng			rng = {202};
	static const uint32_t sizes[] = {0, 1, 2, 3, 4, 17, 100, 333};

	for (int iter = 0; iter < 400; iter++)
	{
		int			da = (int) RngRange(&rng, 0, D_COUNT - 1);
		int			db = RngRange(&rng, 0, 3) ? da : (int) RngRange(&rng, 0, D_COUNT - 1);
		uint32_t	na = sizes[RngRange(&rng, 0, 7)],
					nb = sizes[RngRange(&rng, 0, 7)];
		int			fa = (int) RngRange(&rng, 2, 64),
					fb = RngRange(&rng, 0, 1) ? fa : (int) RngRange(&rng, 2, 64);
		PbRTreeEntry *ea = RandomEntries(&rng, da, na),
				   *eb = RandomEntries(&rng, db, nb);
		PbRTree    *ta = PbRTreeBuild(&PbMallocAllocator, ea, na, fa),
				   *tb = PbRTreeBuild(&PbMallocAllocator, eb, nb, fb);
		List		got = {0},
					want = {0};

		pb_test_context("iter %d: %s n=%u fanout=%d x %s n=%u fanout=%d",
						iter, dist_names[da], na, fa, dist_names[db], nb, fb);
		PbRTreeJoin(ta, tb, EmitPair, &got);
		for (uint32_t i = 0; i < na; i++)
			for (uint32_t j = 0; j < nb; j++)
				if (Meets(&ea[i].box, &eb[j].box))
					ListPush(&want, (uint64_t) ea[i].id << 32 | eb[j].id);
		ListSort(&got);
		ListSort(&want);
		/* brute-force pairs are distinct, so equality also rules out duplicates */
		ListsEqual(&got, &want, "join");
		free(got.v);
		free(want.v);
		PbRTreeFree(ta);
		PbRTreeFree(tb);
		free(ea);
		free(eb);
	}
}

/* Size and Extent are the count and union of the entries; fanouts out of range are clamped, not fatal. */
void
test_rtree_extent_and_fanout_clamp(void)
{
	Rng			rng = {303};
	PbRTreeEntry *e = RandomEntries(&rng, D_UNIFORM, 500);
	PbBox		u = e[0].box;
	PbRTree    *t;

	for (int i = 1; i < 500; i++)
	{
		u.xmin = fmin(u.xmin, e[i].box.xmin);
		u.ymin = fmin(u.ymin, e[i].box.ymin);
		u.xmax = fmax(u.xmax, e[i].box.xmax);
		u.ymax = fmax(u.ymax, e[i].box.ymax);
	}
	for (int f = -1; f <= 1000; f += (f < 70 ? 1 : 300))
	{
		PbBox		x;
		PbBox		all = {-1e9, -1e9, 1e9, 1e9};
		List		got = {0};

		pb_test_context("fanout %d", f);
		t = PbRTreeBuild(&PbMallocAllocator, e, 500, f);
		x = PbRTreeExtent(t);
		CHECK_INT(PbRTreeSize(t), 500);
		CHECK_DBL_EQ(x.xmin, u.xmin);
		CHECK_DBL_EQ(x.ymin, u.ymin);
		CHECK_DBL_EQ(x.xmax, u.xmax);
		CHECK_DBL_EQ(x.ymax, u.ymax);
		PbRTreeSearch(t, &all, EmitId, &got);
		CHECK_INT(got.n, 500);
		free(got.v);
		PbRTreeFree(t);
	}
	/* empty: size 0, an inverted extent, no results */
	t = PbRTreeBuild(&PbMallocAllocator, e, 0, 8);
	CHECK_INT(PbRTreeSize(t), 0);
	CHECK(PbRTreeExtent(t).xmin > PbRTreeExtent(t).xmax);
	PbRTreeFree(t);
	PbRTreeFree(NULL);
	free(e);
}

/* Context of the nested calls below. */
typedef struct Nest
{
	const PbRTree *t;
	List	   *out;
	const PbRTreeEntry *e;
} Nest;

/* A Join callback that runs a whole Search on the same tree. */
static void
NestedSearch(void *ctx, uint32_t a, uint32_t b)
{
	Nest	   *n = ctx;
	List		inner = {0};

	PbRTreeSearch(n->t, &n->e[(a - 13u) / 7919u].box, EmitId, &inner);
	ListPush(n->out, (uint64_t) a << 32 | b);
	ListPush(n->out, inner.n);
	free(inner.v);
}

/*
 * Output order is deterministic (same sequence from two builds of the same
 * input), and calls share no state: a Search run inside every Join
 * callback on the same tree leaves the Join's output unchanged.
 */
void
test_rtree_deterministic_reentrant(void)
{
	Rng			rng = {404};
	PbRTreeEntry *e = RandomEntries(&rng, D_CLUSTERED, 3000);
	PbRTree    *t1 = PbRTreeBuild(&PbMallocAllocator, e, 3000, 6),
			   *t2 = PbRTreeBuild(&PbMallocAllocator, e, 3000, 6);
	List		s1 = {0},
				s2 = {0},
				nested = {0};
	Nest		nest = {t1, &nested, e};
	int			same;

	PbRTreeJoin(t1, t1, EmitPair, &s1);
	PbRTreeJoin(t2, t2, EmitPair, &s2);
	CHECK(s1.n > 3000);
	same = s1.n == s2.n && memcmp(s1.v, s2.v, s1.n * sizeof(uint64_t)) == 0;
	CHECK(same);
	PbRTreeJoin(t1, t1, NestedSearch, &nest);
	CHECK_INT(nested.n, 2 * s1.n);
	for (size_t i = 0; i < s1.n && i < nested.n / 2; i++)
		if (nested.v[2 * i] != s1.v[i])
		{
			CHECK_INT(nested.v[2 * i], s1.v[i]);
			break;
		}
	free(s1.v);
	free(s2.v);
	free(nested.v);
	PbRTreeFree(t1);
	PbRTreeFree(t2);
	free(e);
}

/* Counts calls of the interrupt hook. */
static void
CountInterrupt(void *ctx)
{
	(*(long *) ctx)++;
}

/* A long Join calls check_interrupts of its first tree's allocator. */
void
test_rtree_join_interrupts(void)
{
	Rng			rng = {505};
	long		calls = 0;
	PbAllocator mem = PbMallocAllocator;
	PbRTreeEntry *e = RandomEntries(&rng, D_IDENTICAL, 2000);
	PbRTree    *t;
	List		got = {0};
	long		truth = 0;

	mem.check_interrupts = CountInterrupt;
	mem.ctx = &calls;
	t = PbRTreeBuild(&mem, e, 2000, 4);
	calls = 0;
	PbRTreeJoin(t, t, EmitPair, &got);
	CHECK(calls > 0);
	/* three boxes in a row, repeated: about 7/9 of the 4M pairs meet */
	for (int i = 0; i < 2000; i++)
		for (int j = 0; j < 2000; j++)
			truth += Meets(&e[i].box, &e[j].box);
	CHECK_INT(got.n, truth);
	free(got.v);
	PbRTreeFree(t);
	free(e);
}

/*
 * The Hilbert mapping on 2^k grids (k = 1..8) is a bijection onto
 * 0 .. 4^k - 1 whose consecutive cells are 4-neighbours, starting at
 * (0, 0); and the 16-bit curve refines the small ones (its top 2k bits
 * are the order-k index of the top k bits of x and y).
 */
void
test_rtree_hilbert_curve(void)
{
	Rng			rng = {606};

	for (int k = 1; k <= 8; k++)
	{
		uint32_t	side = 1u << k,
					cells = side * side;
		int32_t    *px = malloc(cells * sizeof(int32_t)),
				   *py = malloc(cells * sizeof(int32_t));
		long		bad = 0;

		pb_test_context("order %d", k);
		for (uint32_t i = 0; i < cells; i++)
			px[i] = -1;
		for (uint32_t x = 0; x < side; x++)
			for (uint32_t y = 0; y < side; y++)
			{
				uint32_t	d = PbHilbertIndex(x, y, k);

				if (d >= cells || px[d] != -1)
					bad++;
				else
				{
					px[d] = (int32_t) x;
					py[d] = (int32_t) y;
				}
			}
		CHECK_INT(bad, 0);
		CHECK(px[0] == 0 && py[0] == 0);
		for (uint32_t d = 1; bad == 0 && d < cells; d++)
			if (abs(px[d] - px[d - 1]) + abs(py[d] - py[d - 1]) != 1)
			{
				CHECK_INT(abs(px[d] - px[d - 1]) + abs(py[d] - py[d - 1]), 1);
				break;
			}
		free(px);
		free(py);
	}
	for (int i = 0; i < 20000; i++)
	{
		uint32_t	x = (uint32_t) RngRange(&rng, 0, 65535),
					y = (uint32_t) RngRange(&rng, 0, 65535);
		uint32_t	d = PbHilbertIndex(x, y, 16);
		int			k = (int) RngRange(&rng, 1, 15);

		pb_test_context("x=%u y=%u k=%d", x, y, k);
		CHECK_INT(d >> (2 * (16 - k)), PbHilbertIndex(x >> (16 - k), y >> (16 - k), k));
	}
	CHECK_INT(PbHilbertIndex(65535, 0, 16), 0xffffffffu);
}

/* Hilbert key of entry i for the order test: cell index << 32 | position. */
static uint64_t
HilbertKey(const PbRTreeEntry *e, uint32_t i, const PbBox *ext)
{
	double		cx = (e->box.xmin + e->box.xmax) / 2,
				cy = (e->box.ymin + e->box.ymax) / 2;
	double		tx = (cx - ext->xmin) / (ext->xmax - ext->xmin),
				ty = (cy - ext->ymin) / (ext->ymax - ext->ymin);
	uint32_t	gx = tx >= 1 ? 65535 : (uint32_t) (tx * 65536),
				gy = ty >= 1 ? 65535 : (uint32_t) (ty * 65536);

	return (uint64_t) PbHilbertIndex(gx, gy, 16) << 32 | i;
}

/*
 * The build sorts by the Hilbert index of box centres on a 2^16 grid over
 * the extent (ties in input order): a Search covering everything emits
 * the entries in exactly that order, for every fanout.
 */
void
test_rtree_hilbert_order(void)
{
	Rng			rng = {909};
	uint32_t	n = 5000;
	PbRTreeEntry *e = RandomEntries(&rng, D_CLUSTERED, n);
	uint64_t   *key = malloc(n * sizeof(uint64_t));
	PbBox		ext = e[0].box,
				all = {-INFINITY, -INFINITY, INFINITY, INFINITY};

	for (uint32_t i = 1; i < n; i++)
	{
		ext.xmin = fmin(ext.xmin, e[i].box.xmin);
		ext.ymin = fmin(ext.ymin, e[i].box.ymin);
		ext.xmax = fmax(ext.xmax, e[i].box.xmax);
		ext.ymax = fmax(ext.ymax, e[i].box.ymax);
	}
	for (uint32_t i = 0; i < n; i++)
		key[i] = HilbertKey(&e[i], i, &ext);
	qsort(key, n, sizeof(uint64_t), CmpU64);
	for (int f = 2; f <= 64; f *= 2)
	{
		PbRTree    *t = PbRTreeBuild(&PbMallocAllocator, e, n, f);
		List		got = {0};

		pb_test_context("fanout %d", f);
		PbRTreeSearch(t, &all, EmitId, &got);
		CHECK_INT(got.n, n);
		for (uint32_t i = 0; i < n && i < got.n; i++)
			if (got.v[i] != e[(uint32_t) key[i]].id)
			{
				CHECK_INT(got.v[i], e[(uint32_t) key[i]].id);
				break;
			}
		free(got.v);
		PbRTreeFree(t);
	}
	free(key);
	free(e);
}

/* Whether v is exactly a float. */
static int
IsFloat(double v)
{
	return (double) (float) v == v;
}

/* One bound's checks: lo is the largest float <= v, hi the smallest >= v, within float range. */
static void
CheckRounding(double v)
{
	PbBox		r = PbBoxAsPostgisFloat((PbBox) {v, v, v, v});

	pb_test_context("v=%.17g", v);
	CHECK_DBL_EQ(r.xmin, r.ymin);
	CHECK_DBL_EQ(r.xmax, r.ymax);
	if (isnan(v))
	{
		CHECK(isnan(r.xmin) && isnan(r.xmax));
		return;
	}
	if (v > FLT_MAX || v < -FLT_MAX)
	{
		/* PostGIS clamps to the finite float range */
		CHECK_DBL_EQ(r.xmin, v > 0 ? FLT_MAX : -FLT_MAX);
		CHECK_DBL_EQ(r.xmax, v > 0 ? FLT_MAX : -FLT_MAX);
		return;
	}
	CHECK(IsFloat(r.xmin) && IsFloat(r.xmax));
	CHECK(r.xmin <= v && v <= r.xmax);
	/* tightest: the next float beyond each bound is on the other side of v */
	CHECK((double) nextafterf((float) r.xmin, INFINITY) > v);
	CHECK((double) nextafterf((float) r.xmax, -INFINITY) < v);
	if (IsFloat(v))
		CHECK(r.xmin == v && r.xmax == v);
}

/*
 * PbBoxAsPostgisFloat: endpoints are floats, contain the input, and are
 * the tightest such (checked with nextafterf), over random bit patterns,
 * exact floats, subnormals, zeros and the range limits; beyond +-FLT_MAX
 * they clamp like PostGIS.  And it does its job: double boxes that miss
 * each other by less than a float ulp meet once rounded.
 */
void
test_rtree_postgis_float(void)
{
	Rng			rng = {707};
	static const double specials[] = {
		0.0, -0.0, 1.0, -1.0, 0.1, -0.1, 1e-45, -1e-45, 1e-50, -1e-50,
		FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 3.4028235677973366e38,
		-3.4028235677973366e38, 1e39, -1e39, DBL_MAX, -DBL_MAX,
		INFINITY, -INFINITY, NAN, 16777217.0, -16777217.0, 1e-310
	};
	PbBox		a = {0, 0, 1.0, 1.0},
				b = {1.0 + ldexp(1, -40), 0, 2, 1};
	PbBox		ra,
				rb;

	for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		CheckRounding(specials[i]);
	for (int i = 0; i < 200000; i++)
	{
		uint64_t	bits = RngNext(&rng);
		double		v;

		if (i % 3 == 0)
			/* exponents in and just beyond the float range */
			bits = (bits & 0x800fffffffffffffULL) |
				((uint64_t) RngRange(&rng, 1023 - 160, 1023 + 130) << 52);
		else if (i % 3 == 1)
		{
			/* near floats: a float plus a few double ulps either way */
			v = (double) (float) ((RngDouble(&rng) - 0.5) * pow(2, (double) RngRange(&rng, -140, 127)));
			v = v + (double) RngRange(&rng, -3, 3) * ldexp(fabs(v) > 0 ? fabs(v) : 1e-300, -52);
			memcpy(&bits, &v, sizeof(v));
		}
		memcpy(&v, &bits, sizeof(v));
		CheckRounding(v);
		if (pb_test_failures() > 0)
			break;
	}
	CHECK(!Meets(&a, &b));
	ra = PbBoxAsPostgisFloat(a);
	rb = PbBoxAsPostgisFloat(b);
	CHECK(Meets(&ra, &rb));
}

/*
 * pbgen-like sets: nuclei of radius 3.6..11.5 px about 20 px apart on a
 * jittered grid, integer pixel boxes; set b perturbs each nucleus (shift
 * 0-2 px, radius x0.9-1.1), drops 3% and splits 1.5% in two.
 */
static uint32_t
NucleusBoxes(Rng *r, uint32_t n, int is_b, const PbRTreeEntry *base,
			 PbRTreeEntry *out)
{
	uint32_t	side = (uint32_t) ceil(sqrt((double) n));
	uint32_t	k = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		double		cx,
					cy,
					rad;

		if (!is_b)
		{
			cx = (i % side) * 20.0 + 10 + RngRange(r, -4, 4);
			cy = (i / side) * 20.0 + 10 + RngRange(r, -4, 4);
			rad = 3.6 + RngDouble(r) * 7.9;
			out[k].box = (PbBox) {floor(cx - rad), floor(cy - rad), ceil(cx + rad), ceil(cy + rad)};
			out[k].id = k;
			k++;
			continue;
		}
		if (RngRange(r, 0, 99) < 3)
			continue;
		cx = (base[i].box.xmin + base[i].box.xmax) / 2 + RngRange(r, -2, 2);
		cy = (base[i].box.ymin + base[i].box.ymax) / 2 + RngRange(r, -2, 2);
		rad = (base[i].box.xmax - base[i].box.xmin) / 2 * (0.9 + 0.2 * RngDouble(r));
		if (RngRange(r, 0, 999) < 15)
		{
			/* split in two halves along x */
			out[k].box = (PbBox) {floor(cx - rad), floor(cy - rad), floor(cx), ceil(cy + rad)};
			out[k].id = k;
			k++;
			out[k].box = (PbBox) {floor(cx), floor(cy - rad), ceil(cx + rad), ceil(cy + rad)};
		}
		else
			out[k].box = (PbBox) {floor(cx - rad), floor(cy - rad), ceil(cx + rad), ceil(cy + rad)};
		out[k].id = k;
		k++;
	}
	return k;
}

/* Order of entries by box xmin, for the sweep below. */
static int
CmpXmin(const void *a, const void *b)
{
	double		x = ((const PbRTreeEntry *) a)->box.xmin,
				y = ((const PbRTreeEntry *) b)->box.xmin;

	return x < y ? -1 : x > y;
}

/*
 * A 200k x 200k join of pbgen-like boxes equals an independent sort-and-
 * scan truth (b sorted by xmin; for each a, the b's with xmin in
 * [a.xmin - max width, a.xmax]) and finishes quickly (time noted).
 */
void
test_rtree_join_200k(void)
{
	Rng			rng = {808};
	uint32_t	n = 200000;
	PbRTreeEntry *a = malloc(n * sizeof(PbRTreeEntry)),
			   *b = malloc(2 * n * sizeof(PbRTreeEntry)),
			   *bs;
	uint32_t	nb;
	double		t0,
				t1,
				t2,
				wmax = 0;
	PbRTree    *ta,
			   *tb;
	List		got = {0},
				want = {0};

	NucleusBoxes(&rng, n, 0, NULL, a);
	nb = NucleusBoxes(&rng, n, 1, a, b);
	t0 = TestSeconds();
	ta = PbRTreeBuild(&PbMallocAllocator, a, n, 16);
	tb = PbRTreeBuild(&PbMallocAllocator, b, nb, 16);
	t1 = TestSeconds();
	got.cap = 4 * (size_t) n;
	got.v = malloc(got.cap * sizeof(uint64_t));
	PbRTreeJoin(ta, tb, EmitPair, &got);
	t2 = TestSeconds();
	pb_test_note("%u x %u boxes: build %.3f s, join %.3f s, %zu pairs",
				 n, nb, t1 - t0, t2 - t1, got.n);
	/* generous: catches a quadratic join, not a slow machine */
	CHECK(t2 - t1 < 10.0);

	bs = malloc(nb * sizeof(PbRTreeEntry));
	memcpy(bs, b, nb * sizeof(PbRTreeEntry));
	qsort(bs, nb, sizeof(PbRTreeEntry), CmpXmin);
	for (uint32_t j = 0; j < nb; j++)
		wmax = fmax(wmax, bs[j].box.xmax - bs[j].box.xmin);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	lo = 0,
					hi = nb;

		while (lo < hi)
		{
			uint32_t	mid = lo + (hi - lo) / 2;

			if (bs[mid].box.xmin < a[i].box.xmin - wmax)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t j = lo; j < nb && bs[j].box.xmin <= a[i].box.xmax; j++)
			if (Meets(&a[i].box, &bs[j].box))
				ListPush(&want, (uint64_t) a[i].id << 32 | bs[j].id);
	}
	CHECK(want.n > n);
	ListSort(&got);
	ListSort(&want);
	ListsEqual(&got, &want, "200k join");
	free(got.v);
	free(want.v);
	free(bs);
	PbRTreeFree(ta);
	PbRTreeFree(tb);
	free(a);
	free(b);
}
