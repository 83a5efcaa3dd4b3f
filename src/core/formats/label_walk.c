/*
 * label_walk.c: the pixel-edge walk of a label image (see label_walk.h).
 *
 * A directed edge is a vertex (x, y) and a direction: east along the top
 * edge of pixel (x, y), south along the right edge of pixel (x - 1, y),
 * west along the bottom edge of pixel (x - 1, y - 1), north along the left
 * edge of pixel (x, y - 1); the label's pixel is always on the walker's
 * right.  The scan starts a walk at every top or bottom boundary edge not
 * walked yet (every ring has one), so one byte a pixel marks the walked
 * horizontal edges, and the saddles the walk in progress holds.
 */
#include <string.h>

#include "label_walk.h"

/* Directions. */
enum
{
	DIR_E, DIR_S, DIR_W, DIR_N
};

/* The four pixels around a vertex, as bits. */
enum
{
	NB_NW = 1, NB_NE = 2, NB_SW = 4, NB_SE = 8
};

/* Bits of a pixel's mark byte. */
enum
{
	MARK_TOP = 1,				/* its top edge was walked */
	MARK_BOTTOM = 2,			/* its bottom edge was walked */
	MARK_SADDLE_TL = 4,			/* the saddle at its top-left corner is on the walk */
	MARK_SADDLE_TR = 8			/* the saddle at its top-right corner is on the walk */
};

/* Walk steps between polls (or looks at the stop flag). */
#define WALK_POLL_STEPS 65536

/* The pixel on the right of an edge of each direction, and on its left. */
static const uint8_t right_of[4] = {NB_SE, NB_SW, NB_NW, NB_NE};
static const uint8_t left_of[4] = {NB_NE, NB_SE, NB_SW, NB_NW};

/* Label of pixel i (a mask's nonzero bytes are label 1). */
static inline uint32_t
LabelAt(const PbLabelImage *im, size_t i)
{
	switch (im->bytes)
	{
		case 0:
			return ((const uint8_t *) im->data)[i] != 0;
		case 1:
			return ((const uint8_t *) im->data)[i];
		case 2:
			return ((const uint16_t *) im->data)[i];
		default:
			return ((const uint32_t *) im->data)[i];
	}
}

/* Whether pixel (c, r), maybe outside the image, has label L. */
static inline int
IsLabel(const PbLabelImage *im, int64_t c, int64_t r, uint32_t L)
{
	if (c < 0 || r < 0 || c >= im->width || r >= im->height)
		return 0;
	return LabelAt(im, (size_t) r * im->width + (size_t) c) == L;
}

/* Which of the four pixels around vertex (x, y) have label L. */
static inline int
Neighbours(const PbLabelImage *im, int64_t x, int64_t y, uint32_t L)
{
	return (IsLabel(im, x - 1, y - 1, L) ? NB_NW : 0) |
		(IsLabel(im, x, y - 1, L) ? NB_NE : 0) |
		(IsLabel(im, x - 1, y, L) ? NB_SW : 0) |
		(IsLabel(im, x, y, L) ? NB_SE : 0);
}

/*
 * The direction to leave a vertex by, having come in going d: the first
 * boundary edge of right turn, straight on, left turn (the right turn
 * first keeps to the pixel followed, so a saddle parts its two pixels).
 */
static inline int
NextDir(int d, int nb)
{
	static const int order[3] = {1, 0, 3};

	for (int k = 0; k < 3; k++)
	{
		int			e = (d + order[k]) & 3;

		if ((nb & right_of[e]) && !(nb & left_of[e]))
			return e;
	}
	return d;					/* not reached: an edge always continues */
}

/* Make room for need more elements in an array of elem-byte elements. */
static void *
Reserve(const PbAllocator *mem, void *p, size_t *cap, size_t n, size_t need,
		size_t elem)
{
	size_t		c;

	if (*cap - n >= need)
		return p;
	c = *cap ? *cap * 2 : 64;
	while (c - n < need)
		c *= 2;
	p = p ? mem->resize(mem->ctx, p, c * elem) : mem->alloc(mem->ctx, c * elem);
	*cap = c;
	return p;
}

/* Ask the poll (its owner only) and look at the stop flag: nonzero stops. */
static int
Stopped(PbWalker *w)
{
	if (w->poll != NULL && w->poll(w->poll_arg))
		atomic_store(w->stop, 1);
	return atomic_load_explicit(w->stop, memory_order_relaxed);
}

/* The mark byte and bit of the saddle at vertex (x, y) (kind 1: SE pixel is L). */
static inline uint8_t *
SaddleMark(PbWalker *w, int64_t x, int64_t y, int kind, uint8_t *bit)
{
	size_t		row = (size_t) y * w->im->width;

	if (kind == 1)
	{
		*bit = MARK_SADDLE_TL;
		return &w->marks[row + (size_t) x];
	}
	*bit = MARK_SADDLE_TR;
	return &w->marks[row + (size_t) x - 1];
}

/*
 * Make stk[from, nstk) a ring of label L (and the run starts the walk
 * recorded from wruns[runs_from] on, its run starts).
 */
static void
EmitRing(PbWalker *w, uint32_t L, size_t from, size_t runs_from)
{
	size_t		n = w->nstk - from;
	const int32_t *s = w->stk + 2 * from;
	PbWalkRing *ring;
	uint64_t	a2 = 0;
	int32_t		tx = s[0],
				ty = s[1];

	if (w->points != NULL && atomic_fetch_add(w->points, n) + n > w->max_points)
	{
		/* pixel-wide detail everywhere: stop before memory grows with it */
		w->over_budget = 1;
		atomic_store(w->stop, 1);
	}
	w->rings = Reserve(w->mem, w->rings, &w->cap_rings, w->nrings, 1, sizeof(PbWalkRing));
	w->pts = Reserve(w->mem, w->pts, &w->cap_pts, w->npts, n, 2 * sizeof(int32_t));
	memcpy(w->pts + 2 * w->npts, s, n * 2 * sizeof(int32_t));
	for (size_t i = 0; i < n; i++)
	{
		const int32_t *p = s + 2 * i,
				   *q = s + 2 * ((i + 1) % n);

		/* modulo 2^64: exact, since the sum fits */
		a2 += (uint64_t) ((int64_t) p[0] * q[1]) - (uint64_t) ((int64_t) q[0] * p[1]);
		if (p[1] < ty || (p[1] == ty && p[0] < tx))
		{
			tx = p[0];
			ty = p[1];
		}
	}
	ring = &w->rings[w->nrings];
	ring->label = L;
	ring->npts = (uint32_t) n;
	ring->first = w->npts;
	ring->area2 = (int64_t) a2;
	ring->top_x = tx;
	ring->top_y = ty;
	w->npts += n;
	w->runs = Reserve(w->mem, w->runs, &w->cap_runs, w->nruns, w->nwruns - runs_from,
					  sizeof(PbWalkRunStart));
	for (size_t i = runs_from; i < w->nwruns; i++)
	{
		PbWalkRunStart *rs = &w->runs[w->nruns++];

		rs->x = w->wruns[2 * i];
		rs->y = w->wruns[2 * i + 1];
		rs->ring = (uint32_t) w->nrings;
	}
	w->nrings++;
}

/* Clear the saddle bits of the turning points stk[from, nstk). */
static void
ClearSaddles(PbWalker *w, size_t from)
{
	for (size_t i = from; i < w->nstk; i++)
		if (w->stk_saddle[i])
		{
			uint8_t		bit;
			uint8_t    *m = SaddleMark(w, w->stk[2 * i], w->stk[2 * i + 1],
									   w->stk_saddle[i], &bit);

			*m &= (uint8_t) ~bit;
		}
}

/* Double the room of the stack of turning points (three parallel arrays). */
static void
GrowStack(PbWalker *w)
{
	const PbAllocator *m = w->mem;
	size_t		cap = w->cap_stk ? w->cap_stk * 2 : 64;

	w->stk = w->stk ? m->resize(m->ctx, w->stk, cap * 2 * sizeof(int32_t))
		: m->alloc(m->ctx, cap * 2 * sizeof(int32_t));
	w->stk_saddle = w->stk_saddle ? m->resize(m->ctx, w->stk_saddle, cap)
		: m->alloc(m->ctx, cap);
	w->stk_runs = w->stk_runs ? m->resize(m->ctx, w->stk_runs, cap * sizeof(size_t))
		: m->alloc(m->ctx, cap * sizeof(size_t));
	w->cap_stk = cap;
}

/*
 * A turning point (x, y) of the walk of label L, its neighbours nb: kept,
 * or, at a saddle the walk holds already, the loop since then split off
 * as a ring of its own.
 */
static void
Turn(PbWalker *w, uint32_t L, int32_t x, int32_t y, int nb)
{
	int			kind = 0;

	if (nb == (NB_NW | NB_SE) || nb == (NB_NE | NB_SW))
	{
		uint8_t		bit;
		uint8_t    *m;

		kind = (nb & NB_SE) ? 1 : 2;
		m = SaddleMark(w, x, y, kind, &bit);
		if (*m & bit)
		{
			size_t		p = w->nstk - 1;

			while (w->stk[2 * p] != x || w->stk[2 * p + 1] != y)
				p--;
			EmitRing(w, L, p, w->stk_runs[p]);
			ClearSaddles(w, p);
			w->nwruns = w->stk_runs[p];
			w->nstk = p + 1;
			return;
		}
		*m |= bit;
	}
	if (w->nstk == w->cap_stk)
		GrowStack(w);
	w->stk[2 * w->nstk] = x;
	w->stk[2 * w->nstk + 1] = y;
	w->stk_saddle[w->nstk] = (uint8_t) kind;
	w->stk_runs[w->nstk] = w->nwruns;
	w->nstk++;
}

/*
 * Walk the boundary of label L through the edge leaving (x0, y0) going
 * d0 until it comes back to it, emitting its rings.
 */
static PbStatus
Walk(PbWalker *w, uint32_t L, int32_t x0, int32_t y0, int d0)
{
	const PbLabelImage *im = w->im;
	size_t		width = im->width;
	int32_t		x = x0,
				y = y0;
	int			d = d0;

	w->nstk = 0;
	w->nwruns = 0;
	for (;;)
	{
		int			nb,
					nd;

		switch (d)
		{
			case DIR_E:
				w->marks[(size_t) y * width + (size_t) x] |= MARK_TOP;
				x++;
				break;
			case DIR_S:
				y++;
				break;
			case DIR_W:
				w->marks[(size_t) (y - 1) * width + (size_t) (x - 1)] |= MARK_BOTTOM;
				x--;
				break;
			default:
				w->wruns = Reserve(w->mem, w->wruns, &w->cap_wruns, w->nwruns, 1,
								   2 * sizeof(int32_t));
				w->wruns[2 * w->nwruns] = x;
				w->wruns[2 * w->nwruns + 1] = y - 1;
				w->nwruns++;
				y--;
				break;
		}
		nb = Neighbours(im, x, y, L);
		nd = NextDir(d, nb);
		if (nd != d)
			Turn(w, L, x, y, nb);
		if (x == x0 && y == y0 && nd == d0)
			break;
		d = nd;
		if (--w->countdown == 0)
		{
			w->countdown = WALK_POLL_STEPS;
			/* one long ring counts too, before it is emitted */
			if (w->points != NULL && atomic_load(w->points) + w->nstk > w->max_points)
			{
				w->over_budget = 1;
				atomic_store(w->stop, 1);
			}
			if (Stopped(w))
				return PB_ERR_STOPPED;
		}
	}
	EmitRing(w, L, 0, 0);
	ClearSaddles(w, 0);
	return PB_OK;
}

/*
 * The scan of rows [0, height) of an image of pixel type T (label of a
 * pixel: LABEL(v)), starting a walk at every unwalked top or bottom edge
 * of a label of the group; written once per type so the inner loop reads
 * its pixels directly (the scan touches every pixel of the image).
 */
#define SCAN_ROWS(T, LABEL) \
	do { \
		const T    *px = (const T *) im->data; \
		for (uint32_t r = 0; r < im->height; r++) \
		{ \
			const T    *row = px + (size_t) r * width; \
			const T    *up = r > 0 ? row - width : NULL; \
			const T    *down = r + 1 < im->height ? row + width : NULL; \
			if ((r & 15) == 0 && Stopped(w)) \
				return PB_ERR_STOPPED; \
			for (uint32_t c = 0; c < im->width; c++) \
			{ \
				uint32_t	L = LABEL(row[c]); \
				size_t		i = (size_t) r * width + c; \
				PbStatus	st; \
				if (L == 0) \
					continue; \
				if (L != last) \
				{ \
					last = L; \
					mine = PbLabelGroup(L, w->ngroups) == w->group; \
				} \
				if (!mine) \
					continue; \
				if ((up == NULL || LABEL(up[c]) != L) && !(w->marks[i] & MARK_TOP)) \
				{ \
					st = Walk(w, L, (int32_t) c, (int32_t) r, DIR_E); \
					if (st != PB_OK) \
						return st; \
				} \
				if ((down == NULL || LABEL(down[c]) != L) && !(w->marks[i] & MARK_BOTTOM)) \
				{ \
					st = Walk(w, L, (int32_t) c + 1, (int32_t) r + 1, DIR_W); \
					if (st != PB_OK) \
						return st; \
				} \
			} \
		} \
	} while (0)

#define AS_LABEL(v) ((uint32_t) (v))
#define AS_MASK(v) ((uint32_t) ((v) != 0))

/* Scan the rows, walking from every unwalked top or bottom edge of the group. */
PbStatus
PbWalkImage(PbWalker *w)
{
	const PbLabelImage *im = w->im;
	size_t		width = im->width;
	uint32_t	last = 0;
	int			mine = 0;

	w->countdown = WALK_POLL_STEPS;
	switch (im->bytes)
	{
		case 0:
			SCAN_ROWS(uint8_t, AS_MASK);
			break;
		case 1:
			SCAN_ROWS(uint8_t, AS_LABEL);
			break;
		case 2:
			SCAN_ROWS(uint16_t, AS_LABEL);
			break;
		default:
			SCAN_ROWS(uint32_t, AS_LABEL);
			break;
	}
	return PB_OK;
}

/* Release every array of the walker. */
void
PbWalkerFree(PbWalker *w)
{
	void	   *arrays[] = {w->rings, w->pts, w->runs, w->stk, w->stk_saddle,
	w->stk_runs, w->wruns};

	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		if (arrays[i] != NULL)
			w->mem->release(w->mem->ctx, arrays[i]);
	w->rings = NULL;
	w->pts = NULL;
	w->runs = NULL;
	w->stk = NULL;
	w->stk_saddle = NULL;
	w->stk_runs = NULL;
	w->wruns = NULL;
	w->nrings = w->npts = w->nruns = w->nstk = w->nwruns = 0;
	w->cap_rings = w->cap_pts = w->cap_runs = w->cap_stk = w->cap_wruns = 0;
}
