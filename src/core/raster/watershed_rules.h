/*
 * watershed_rules.h: the local rules of the watershed definition in
 * watershed.h, written once for the CPU versions (watershed_cpu.c and
 * the reference, tests/watershed_ref.c) and the GPU's (the kernels
 * cuda/watershed_ca_kernels.cu and cuda/watershed_post_kernels.cu, the
 * host steps of tiled runs cuda/watershed_tiled_host.cu) as PB_XPU
 * functions: keys, candidates, the base key, the pointer's tie order, the
 * label a step gives, and the watershed-line rule.  The neighbour order that
 * breaks ties is raster_rules.h's.  The kernels keep their own encoding
 * of walls and seeds (cuda/watershed_gpu.cuh) and decode it before they
 * apply these rules.
 *
 * Below the rules, helpers over the CPU versions' per-pixel arrays
 * (levels, keys, seeds and labels of the whole image): WsGrid and what
 * reads it.  Internal to the raster core and the kernels.
 */
#ifndef PB_WATERSHED_RULES_H
#define PB_WATERSHED_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/pb_xpu.h"
#include "raster_rules.h"
#include "watershed.h"

/* A key (c, d) as one number whose unsigned order is the lexicographic one. */
PB_XPU uint64_t
WsKey(uint32_t c, uint32_t d)
{
	return ((uint64_t) c << 32) | d;
}

/* The level part c of a key. */
PB_XPU uint32_t
WsKeyC(uint64_t k)
{
	return (uint32_t) (k >> 32);
}

/* The distance part d of a key. */
PB_XPU uint32_t
WsKeyD(uint64_t k)
{
	return (uint32_t) k;
}

/*
 * cand(v, u): what neighbour v with key kv offers a pixel of level lvu:
 * (lvu, 0) when c(v) < lvu, else (c(v), d(v) + 1), d = INF staying INF.
 * The + 1 never carries into c: d is INF or below INF - 1.
 */
PB_XPU uint64_t
WsCand(uint64_t kv, uint32_t lvu)
{
	return WsKeyC(kv) < lvu ? WsKey(lvu, 0) : kv + (WsKeyD(kv) != PB_WS_INF);
}

/* base(u) of a non-seed pixel of level lvu (mk: marker-controlled). */
PB_XPU uint64_t
WsBase(bool mk, uint32_t lvu)
{
	return mk ? WsKey(PB_WS_INF, PB_WS_INF) : WsKey(lvu, PB_WS_INF);
}

/*
 * The pointer's order: whether a neighbour offering cand, with key kv,
 * beats the best so far (offering best, with key bestkey): the smaller
 * candidate, then the smaller key.  Neighbours are offered in the order
 * j of raster_rules.h, so on a full tie the earlier one stays.  Started
 * from (base(u), UINT64_MAX), the fold ends on u's key, and, when its d
 * is below INF, on the pointer.
 */
PB_XPU bool
WsPrefer(uint64_t cand, uint64_t kv, uint64_t best, uint64_t bestkey)
{
	return cand < best || (cand == best && kv < bestkey);
}

/*
 * WsCand is monotone in kv for a fixed lvu (kv < kw gives cand(kv) <=
 * cand(kw): (lvu, 0) is below every candidate of a key whose c is lvu or
 * more, and kv + 1 <= kw), so the WsPrefer fold over a pixel's neighbours
 * picks the first neighbour of least key.  At the least solution a
 * non-seed pixel's key is the fold's result, and its d is below INF only
 * when that neighbour won over the base: such a pixel's pointer is then
 * simply its first neighbour of least key (the CPU's PointerRows, ws_pointers.h).
 */

/*
 * Marker-less, whether a neighbour with key kv shares the plateau of a
 * pixel of level lvu that no lower pixel reached so far (a minimum so
 * far, whose pixels take the least label among them): its key is (lvu,
 * INF).  Marker-less, c(v) is lv(v), so that is "same level, d = INF".
 */
PB_XPU bool
WsSameMinimum(bool mk, uint64_t kv, uint32_t lvu)
{
	return !mk && kv == WsKey(lvu, PB_WS_INF);
}

/*
 * The label a step gives a non-seed pixel whose key came out as k: its
 * pointer's label plab when d < INF; else marker-less ml (the least of
 * its index + 1 and its minimum's labels so far), marker-controlled 0
 * (not reached from any marker yet).
 */
PB_XPU uint32_t
WsStepLabel(bool mk, uint64_t k, uint32_t plab, uint32_t ml)
{
	return WsKeyD(k) != PB_WS_INF ? plab : (mk ? 0u : ml);
}

/* Whether a neighbour labelled labv belongs to another basin than labu. */
PB_XPU bool
WsOtherBasin(uint32_t labu, uint32_t labv)
{
	return labv != 0 && labv != labu;
}

/*
 * The line rule: labelled non-seed pixel u becomes a line pixel when a
 * neighbour v of another basin (WsOtherBasin) is a seed or was flooded
 * before u.  Whether neighbour j of u, with key kv, was flooded before u
 * (key ku): v has the smaller (key, index), i.e. kv is below ku, or equal
 * to it and v comes first in row-major order.
 */
PB_XPU bool
WsFloodedBefore(uint64_t kv, uint64_t ku, int j)
{
	return kv < ku || (kv == ku && PbNbBefore(j));
}

/* The shape of the problem, as the CPU versions' helpers need it. */
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

/*
 * Level of pixel i: lv[i], or, lv NULL, its key's c.  Marker-less, a
 * pixel's key keeps its level as c from the start (WsBase, a wall's
 * (INF, INF) included) to the end (a candidate below (lvu, INF) has c =
 * lvu), so the CPU's marker-less runs keep no level array.
 */
static inline uint32_t
WsLevelOf(const uint32_t *lv, const uint64_t *key, int64_t i)
{
	return lv ? lv[i] : WsKeyC(key[i]);
}

/*
 * Index of neighbour j of (x, y), or -1 when outside the image or a wall
 * (levels as WsLevelOf reads them).
 */
static inline int64_t
WsNeighbour(const WsGrid *g, const uint32_t *lv, const uint64_t *key, int64_t x, int64_t y,
			int j)
{
	int64_t		nx = x + PbNbDx(j),
				ny = y + PbNbDy(j),
				v;

	if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height)
		return -1;
	v = ny * g->width + nx;
	return WsLevelOf(lv, key, v) == PB_WS_INF ? -1 : v;
}

/*
 * The pointer of non-seed pixel (x, y), from its neighbours' keys: the
 * index j that WsPrefer picks, or -1 when the key they give it has
 * d = INF (no pointer).
 */
static inline int
WsPointer(const WsGrid *g, const uint32_t *lv, const uint64_t *key,
		  int64_t x, int64_t y)
{
	uint32_t	lvu = WsLevelOf(lv, key, y * g->width + x);
	uint64_t	best = WsBase(g->markers != NULL, lvu),
				bestkey = UINT64_MAX;
	int			p = -1;

	for (int j = 0; j < g->conn; j++)
	{
		int64_t		v = WsNeighbour(g, lv, key, x, y, j);

		if (v >= 0 && WsPrefer(WsCand(key[v], lvu), key[v], best, bestkey))
		{
			best = WsCand(key[v], lvu);
			bestkey = key[v];
			p = j;
		}
	}
	return WsKeyD(best) != PB_WS_INF ? p : -1;
}

/*
 * Whether labelled pixel i becomes a watershed line pixel (the line rule
 * above); it is not one when it is a seed.  lab holds the labels before
 * any line.
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
		int64_t		v = WsNeighbour(g, lv, key, x, y, j);

		if (v >= 0 && WsOtherBasin(lab[i], lab[v]) &&
			(seed[v] || WsFloodedBefore(key[v], key[i], j)))
			return true;
	}
	return false;
}

#endif							/* PB_WATERSHED_RULES_H */
