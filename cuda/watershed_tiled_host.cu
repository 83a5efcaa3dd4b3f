/*
 * watershed_tiled_host.cu: the host steps of a tiled GPU watershed
 * (watershed_host.cu), whose state lives in host memory between tile
 * runs: filling the initial state, the numbering of the minima and the
 * watershed lines over the whole image once every tile has settled
 * (untiled runs do both on the device, watershed_post_kernels.cu), on
 * host threads; and the border rings whose changes tell which tiles must
 * run again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watershed_gpu.cuh"

/* Threads of the host steps, and the items they share out. */
#define WS_HOST_THREADS 16
#define WS_HOST_ITEMS 64

/* Run fn over n items on the host threads (no polling: short steps). */
static void
WsHostFor(int64_t n, PbParItemFn fn, void *arg)
{
	PbRun run = {WS_HOST_THREADS, 0, NULL, NULL};

	PbParallelFor(&run, n, fn, arg);
}

/* A fill of bytes over items. */
typedef struct WsFillJob
{
	char	   *p;
	size_t		n;
	int			v;
} WsFillJob;

/* Fill item i's share of the bytes. */
static void
WsFillItem(void *arg, int64_t i)
{
	WsFillJob  *j = (WsFillJob *) arg;
	size_t		per = (j->n + WS_HOST_ITEMS - 1) / WS_HOST_ITEMS;
	size_t		lo = per * (size_t) i < j->n ? per * (size_t) i : j->n;
	size_t		hi = lo + per < j->n ? lo + per : j->n;

	memset(j->p + lo, j->v, hi - lo);
}

/* memset on the host threads. */
void
WsHostFill(void *p, int v, size_t n)
{
	WsFillJob	j = {(char *) p, n, v};

	WsHostFor(WS_HOST_ITEMS, WsFillItem, &j);
}

/* The numbering of minima, in bands of pixels (multiples of 8, so each
 * band owns whole bytes of the root bitmap). */
typedef struct WsNumberJob
{
	uint32_t   *labels;
	int64_t		n;
	int64_t		per;			/* pixels per band */
	uint8_t    *root;			/* bitmap */
	uint32_t	start[WS_HOST_ITEMS];	/* roots before each band */
	int			phase;			/* 0 count, 1 rank the roots, 2 map the others */
} WsNumberJob;

/* One phase of the numbering over band b. */
static void
WsNumberItem(void *arg, int64_t b)
{
	WsNumberJob *j = (WsNumberJob *) arg;
	int64_t		lo = b * j->per < j->n ? b * j->per : j->n;
	int64_t		hi = lo + j->per < j->n ? lo + j->per : j->n;
	uint32_t   *l = j->labels;
	uint32_t	k = j->start[b];

	for (int64_t i = lo; i < hi; i++)
	{
		bool		is_root = j->phase < 2 ? l[i] == (uint32_t) (i + 1)
			: (j->root[i / 8] >> (i % 8) & 1);

		if (j->phase == 0)
			k += is_root;
		else if (j->phase == 1 && is_root)
		{
			l[i] = ++k;
			j->root[i / 8] |= (uint8_t) (1u << (i % 8));
		}
		else if (j->phase == 2 && !is_root && l[i] != 0)
			l[i] = l[l[i] - 1]; /* a root's rank by now */
	}
	if (j->phase == 0)
		j->start[b] = k;
}

/*
 * Number the minima of marker-less labels in place: a root (label ==
 * index + 1, a minimum's first pixel) gets its rank in row-major order,
 * every other labelled pixel its root's rank.  0, or -1 without memory.
 */
int
WsHostNumber(uint32_t *labels, int64_t n, char *err, size_t err_len)
{
	WsNumberJob j;
	uint32_t	k = 0;

	memset(&j, 0, sizeof(j));
	j.labels = labels;
	j.n = n;
	j.per = ((n + WS_HOST_ITEMS - 1) / WS_HOST_ITEMS + 7) / 8 * 8;
	j.root = (uint8_t *) calloc((size_t) (n + 7) / 8, 1);
	if (j.root == NULL)
	{
		snprintf(err, err_len, "out of host memory for numbering the watershed basins");
		return -1;
	}
	WsHostFor(WS_HOST_ITEMS, WsNumberItem, &j);
	for (int b = 0; b < WS_HOST_ITEMS; b++)	/* counts to starts */
	{
		uint32_t	c = j.start[b];

		j.start[b] = k;
		k += c;
	}
	j.phase = 1;
	WsHostFor(WS_HOST_ITEMS, WsNumberItem, &j);
	j.phase = 2;
	WsHostFor(WS_HOST_ITEMS, WsNumberItem, &j);
	free(j.root);
	return 0;
}

/* The full key (c, d) of non-wall pixel i of level lv. */
static inline uint64_t
WsHostKey(const void *keys, bool mk, int64_t i, uint32_t lv)
{
	if (mk)
		return ((const uint64_t *) keys)[i];
	return (uint64_t) lv << 32 | ((const uint32_t *) keys)[i];
}

/* Whether non-wall pixel i with full key k is a seed (a marker, or a minimum). */
static inline bool
WsHostSeed(const PbWatershedSpec *spec, int64_t i, uint64_t k)
{
	return spec->markers ? spec->markers[i] != 0 : (uint32_t) k == PB_WS_INF;
}

/* The lines, in bands of rows; rows are 4 per band: above, below, two rolling. */
typedef struct WsLinesJob
{
	const PbWatershedSpec *spec;
	const void *keys;
	uint32_t   *labels;
	int64_t		per;			/* rows per band */
	uint32_t   *rows;			/* 4 * WS_HOST_ITEMS rows */
	int			phase;			/* 0 save the rows around each band, 1 draw */
} WsLinesJob;

/*
 * Whether pixel (x, y) becomes a line pixel (the line rule of
 * watershed_rules.h, over the neighbours of raster_rules.h); prev, cur,
 * next: its rows' labels before lines.
 */
static bool
WsHostIsLine(const PbWatershedSpec *spec, const void *keys, const uint32_t *prev,
			 const uint32_t *cur, const uint32_t *next, int64_t x, int64_t y)
{
	int64_t		w = spec->image.width,
				h = spec->image.height,
				i = y * w + x;
	bool		mk = spec->markers != NULL;
	uint32_t	lu = cur[x];
	uint64_t	ku;

	if (lu == 0)				/* walls too */
		return false;
	ku = WsHostKey(keys, mk, i, PbWsLevel(spec, i));
	if (WsHostSeed(spec, i, ku))
		return false;
	for (int j = 0; j < spec->connectivity; j++)
	{
		int64_t		nx = x + PbNbDx(j),
					ny = y + PbNbDy(j),
					v = ny * w + nx;
		uint32_t	lvn,
					ln;
		uint64_t	kv;

		if (nx < 0 || ny < 0 || nx >= w || ny >= h)
			continue;
		lvn = PbWsLevel(spec, v);
		if (lvn == PB_WS_INF)
			continue;
		ln = (ny < y ? prev : ny == y ? cur : next)[nx];
		if (!WsOtherBasin(lu, ln))
			continue;
		kv = WsHostKey(keys, mk, v, lvn);
		if (WsHostSeed(spec, v, kv) || WsFloodedBefore(kv, ku, j))
			return true;
	}
	return false;
}

/* One phase of the lines over band b of rows. */
static void
WsLinesItem(void *arg, int64_t b)
{
	WsLinesJob *j = (WsLinesJob *) arg;
	int64_t		w = j->spec->image.width,
				h = j->spec->image.height;
	int64_t		y0 = b * j->per < h ? b * j->per : h;
	int64_t		y1 = y0 + j->per < h ? y0 + j->per : h;
	uint32_t   *above = j->rows + (size_t) (4 * b) * w,
			   *below = above + w,
			   *prev = below + w,
			   *cur = prev + w;
	size_t		rb = (size_t) w * sizeof(uint32_t);

	if (j->phase == 0)			/* rows the neighbour bands will change */
	{
		if (y0 > 0 && y0 < y1)
			memcpy(above, j->labels + (y0 - 1) * w, rb);
		if (y1 < h && y0 < y1)
			memcpy(below, j->labels + y1 * w, rb);
		return;
	}
	memcpy(prev, above, rb);
	for (int64_t y = y0; y < y1; y++)
	{
		const uint32_t *next = y + 1 == y1 ? below : j->labels + (y + 1) * w;
		uint32_t   *t;

		memcpy(cur, j->labels + y * w, rb);
		for (int64_t x = 0; x < w; x++)
			if (WsHostIsLine(j->spec, j->keys, prev, cur, next, x, y))
				j->labels[y * w + x] = 0;
		t = prev;
		prev = cur;
		cur = t;
	}
}

/*
 * Draw the watershed lines into labels (the rule of watershed.h) in
 * bands of rows on the host threads, each band reading the labels of the
 * rows around it as they were before any line.  0, or -1 without memory.
 */
int
WsHostLines(const PbWatershedSpec *spec, const void *keys, uint32_t *labels,
			char *err, size_t err_len)
{
	WsLinesJob	j;
	int64_t		w = spec->image.width,
				h = spec->image.height;

	j.spec = spec;
	j.keys = keys;
	j.labels = labels;
	j.per = (h + WS_HOST_ITEMS - 1) / WS_HOST_ITEMS;
	j.rows = (uint32_t *) malloc((size_t) 4 * WS_HOST_ITEMS * w * sizeof(uint32_t));
	if (j.rows == NULL)
	{
		snprintf(err, err_len, "out of host memory for the watershed lines");
		return -1;
	}
	j.phase = 0;
	WsHostFor(WS_HOST_ITEMS, WsLinesItem, &j);
	j.phase = 1;
	WsHostFor(WS_HOST_ITEMS, WsLinesItem, &j);
	free(j.rows);
	return 0;
}

/* Save the border ring of [x0,x1) x [y0,y1) of a w-wide array of es-byte items. */
void
WsRingSave(const void *a, size_t es, int64_t w, int x0, int y0, int x1, int y1, char *ring)
{
	const char *d = (const char *) a;
	size_t		rowb = (size_t) (x1 - x0) * es;

	memcpy(ring, d + ((size_t) y0 * w + x0) * es, rowb);
	ring += rowb;
	memcpy(ring, d + ((size_t) (y1 - 1) * w + x0) * es, rowb);
	ring += rowb;
	for (int y = y0; y < y1; y++)
	{
		memcpy(ring, d + ((size_t) y * w + x0) * es, es);
		memcpy(ring + es, d + ((size_t) y * w + x1 - 1) * es, es);
		ring += 2 * es;
	}
}

/* Whether the border ring of the rectangle differs from the saved one. */
bool
WsRingChanged(const void *a, size_t es, int64_t w, int x0, int y0, int x1, int y1,
			  const char *ring)
{
	const char *d = (const char *) a;
	size_t		rowb = (size_t) (x1 - x0) * es;

	if (memcmp(ring, d + ((size_t) y0 * w + x0) * es, rowb) != 0 ||
		memcmp(ring + rowb, d + ((size_t) (y1 - 1) * w + x0) * es, rowb) != 0)
		return true;
	ring += 2 * rowb;
	for (int y = y0; y < y1; y++)
	{
		if (memcmp(ring, d + ((size_t) y * w + x0) * es, es) != 0 ||
			memcmp(ring + es, d + ((size_t) y * w + x1 - 1) * es, es) != 0)
			return true;
		ring += 2 * es;
	}
	return false;
}
