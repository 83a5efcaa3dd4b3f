/*
 * watershed_rules.h: the local rules of the watershed definition in
 * pb_watershed.h (keys, candidates, the neighbour order, pointers, line
 * pixels), shared by the reference and the tiled CPU version so both
 * read the definition from one place.  Internal to src/core.
 */
#ifndef PB_WATERSHED_RULES_H
#define PB_WATERSHED_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "raster_rules.h"
#include "watershed.h"

/* The shape of the problem, as the rules need it. */
typedef struct WsGrid
{
	int64_t		width;
	int64_t		height;
	int64_t		n;
	int			conn;
	const uint32_t *markers;	/* NULL: marker-less */
} WsGrid;

/* Fill a WsGrid from an accepted spec. */
static inline void
WsGridInit(WsGrid *g, const PbWatershedSpec *spec)
{
	g->width = spec->image.width;
	g->height = spec->image.height;
	g->n = g->width * g->height;
	g->conn = spec->connectivity;
	g->markers = spec->markers;
}

/* A key (c, d) as one number whose unsigned order is the lexicographic one. */
static inline uint64_t
WsKey(uint32_t c, uint32_t d)
{
	return ((uint64_t) c << 32) | d;
}

/* The level part c of a key. */
static inline uint32_t
WsKeyC(uint64_t k)
{
	return (uint32_t) (k >> 32);
}

/* The distance part d of a key. */
static inline uint32_t
WsKeyD(uint64_t k)
{
	return (uint32_t) k;
}

/* cand(v, u): what neighbour v with key kv offers a pixel of level lvu. */
static inline uint64_t
WsCand(uint64_t kv, uint32_t lvu)
{
	uint32_t	c = WsKeyC(kv),
				d = WsKeyD(kv);

	if (c < lvu)
		return WsKey(lvu, 0);
	return WsKey(c, d == PB_WS_INF ? d : d + 1);
}

/* base(u) of a non-seed pixel of level lvu. */
static inline uint64_t
WsBase(const WsGrid *g, uint32_t lvu)
{
	return g->markers ? WsKey(PB_WS_INF, PB_WS_INF) : WsKey(lvu, PB_WS_INF);
}

/* Index of neighbour j of (x, y), or -1 when outside the image or a wall. */
static inline int64_t
WsNeighbour(const WsGrid *g, const uint32_t *lv, int64_t x, int64_t y, int j)
{
	int64_t		nx = x + PbNbDx(j),
				ny = y + PbNbDy(j),
				v;

	if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height)
		return -1;
	v = ny * g->width + nx;
	return lv[v] == PB_WS_INF ? -1 : v;
}

/*
 * The pointer of non-seed pixel (x, y) with key k (d < INF): the index j
 * of the neighbour offering k with the smallest (key, j), or -1.
 */
static inline int
WsPointer(const WsGrid *g, const uint32_t *lv, const uint64_t *key,
		  int64_t x, int64_t y, uint64_t k)
{
	uint32_t	lvu = lv[y * g->width + x];
	int			best = -1;
	uint64_t	bestkey = 0;

	for (int j = 0; j < g->conn; j++)
	{
		int64_t		v = WsNeighbour(g, lv, x, y, j);

		if (v >= 0 && WsCand(key[v], lvu) == k && (best < 0 || key[v] < bestkey))
		{
			best = j;
			bestkey = key[v];
		}
	}
	return best;
}

/*
 * Whether labelled pixel i becomes a watershed line pixel: it is not a
 * seed and a neighbour of another basin is a seed or was flooded earlier
 * (smaller (key, index)).  lab holds the labels before any line.
 */
static inline bool
WsIsLine(const WsGrid *g, const uint32_t *lv, const uint8_t *seed,
		 const uint64_t *key, const uint32_t *lab, int64_t i)
{
	int64_t		x = i % g->width,
				y = i / g->width;

	if (lab[i] == 0 || seed[i])
		return false;
	for (int j = 0; j < g->conn; j++)
	{
		int64_t		v = WsNeighbour(g, lv, x, y, j);

		if (v >= 0 && lab[v] != 0 && lab[v] != lab[i] &&
			(seed[v] || key[v] < key[i] || (key[v] == key[i] && v < i)))
			return true;
	}
	return false;
}

#endif							/* PB_WATERSHED_RULES_H */
