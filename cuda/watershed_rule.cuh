/*
 * watershed_rule.cuh: the local rules of the watershed definition of
 * src/core/pb_watershed.h on the device: pixel levels, one automaton step
 * of a pixel (key, pointer, label) and the watershed-line test.  The
 * kernels of watershed_ca.cu and watershed_post.cu read their pixels
 * through an accessor (shared-memory tile or global region), so every
 * kernel applies the very same rule.
 *
 * Device state per pixel: the input pixel itself (its level is
 * computed where read), the key and the label (uint32).  Marker-controlled
 * keys are (c << 32 | d) in a uint64; marker-less ones store only d
 * (uint32), since c(u) = lv(u) there.  Walls and seeds, which never
 * change, are told by a stored d of WS_DSEED, which no real distance
 * reaches (d < pixels <= PB_WS_INF - 2): marker-less it is a wall;
 * marker-controlled (WS_INF, WS_DSEED) is a wall and (lv, WS_DSEED) a
 * seed, whose real key is (lv, 0).  Readers decode a pixel (WsDecode)
 * into a level (WS_WALL, WS_SEED or the level) and its real key.
 */
#ifndef PB_WATERSHED_RULE_CUH
#define PB_WATERSHED_RULE_CUH

#include <stdint.h>

#include "../src/core/raster/raster_rules.h"
#include "../src/core/raster/watershed.h"

#define WS_WALL PB_WS_INF		/* decoded level of a wall or NaN pixel */
#define WS_SEED (PB_WS_INF - 1) /* decoded level of a seed (real ones are below) */
#define WS_DSEED (PB_WS_INF - 1)	/* stored d of a seed or wall */
#define WS_KWALL ((uint64_t) PB_WS_INF << 32 | WS_DSEED)	/* stored key of a wall */

/* The stored key type: (c, d) marker-controlled, d alone marker-less. */
template <bool MK>
struct WsKeyOf
{
	typedef uint32_t T;
};

template <>
struct WsKeyOf<true>
{
	typedef uint64_t T;
};

/* The full key (c, d) of a pixel from its stored key and its level. */
template <bool MK>
__device__ __forceinline__ uint64_t
WsFull(typename WsKeyOf<MK>::T k, uint32_t lv)
{
	return MK ? (uint64_t) k : ((uint64_t) lv << 32 | k);
}

/* The level of a pixel value (PbWsLevel without the wall): 8 bits. */
__device__ __forceinline__ uint32_t
WsLevelOf(uint8_t v)
{
	return v;
}

/* 16 bits: the value. */
__device__ __forceinline__ uint32_t
WsLevelOf(uint16_t v)
{
	return v;
}

/* Floats: PbWsFloatLevel (NaN is a wall). */
__device__ __forceinline__ uint32_t
WsLevelOf(float f)
{
	return PbWsFloatLevel(f);
}

/*
 * Decode a pixel from its input value v and stored key *k: its level, or
 * WS_WALL (mask walls and NaN), or WS_SEED with *k made its real key.
 */
template <bool MK, typename T>
__device__ __forceinline__ uint32_t
WsDecode(T v, typename WsKeyOf<MK>::T *k)
{
	uint32_t	l = WsLevelOf(v);

	if ((uint32_t) *k != WS_DSEED || l == WS_WALL)
		return l;
	if constexpr (MK)
	{
		if (*k == WS_KWALL)
			return WS_WALL;
		*k &= 0xFFFFFFFF00000000ull;
		return WS_SEED;
	}
	return WS_WALL;
}

/* The stored key of a wall. */
template <bool MK>
__device__ __forceinline__ typename WsKeyOf<MK>::T
WsWallKey(void)
{
	return (typename WsKeyOf<MK>::T) (MK ? WS_KWALL : WS_DSEED);
}

/*
 * Decoded pixels of a region in global memory (read-only while read);
 * outside the region reads as a wall.
 */
template <typename T, bool MK>
struct WsGlobal
{
	typedef typename WsKeyOf<MK>::T K;
	const T    *img;
	const K    *key;
	const uint32_t *lab;
	int			w,
				h;

	__device__ __forceinline__ uint32_t
	Lv(int x, int y) const
	{
		size_t		g = (size_t) y * w + x;
		K			k;

		if (x < 0 || y < 0 || x >= w || y >= h)
			return WS_WALL;
		k = __ldg(&key[g]);
		return WsDecode<MK>(__ldg(&img[g]), &k);
	}

	__device__ __forceinline__ K
	Key(int x, int y) const
	{
		size_t		g = (size_t) y * w + x;
		K			k = __ldg(&key[g]);

		WsDecode<MK>(__ldg(&img[g]), &k);
		return k;
	}

	__device__ __forceinline__ uint32_t
	Lab(int x, int y) const
	{
		return __ldg(&lab[(size_t) y * w + x]);
	}
};

/*
 * One step of the automaton for non-seed, non-wall pixel (x, y) of level
 * lv: its key k(u) = min(base, min cand(v, u)), its pointer's label (the
 * neighbour offering k with the smallest (key, order)) or, with d = INF,
 * marker-less the least of idx1 (its index + 1) and the labels of its
 * equal-level d = INF neighbours, marker-controlled 0.  A reads decoded
 * pixels: Lv (WS_WALL outside), Key (real), Lab.
 */
template <bool MK, bool C8, typename A>
__device__ __forceinline__ void
WsStep(const A &a, int x, int y, uint32_t lv, uint32_t idx1,
	   typename WsKeyOf<MK>::T *nkey, uint32_t *nlab)
{
	uint64_t	flat = (uint64_t) lv << 32 | PB_WS_INF;
	uint64_t	best = MK ? ~0ull : flat;	/* base(u) */
	uint64_t	pk = ~0ull;		/* the pointer's key */
	uint32_t	plab = 0;
	uint32_t	ml = idx1;

#pragma unroll
	for (int j = 0; j < (C8 ? 8 : 4); j++)
	{
		int			nx = x + PbNbDx(j),
					ny = y + PbNbDy(j);
		uint32_t	lvn = a.Lv(nx, ny);
		uint64_t	kv,
					cand;

		if (lvn == WS_WALL)
			continue;
		kv = WsFull<MK>(a.Key(nx, ny), lvn);
		cand = (uint32_t) (kv >> 32) < lv ? (uint64_t) lv << 32
			: kv + ((uint32_t) kv != PB_WS_INF);
		/* ties of cand: the smaller key, then the earlier neighbour */
		if (cand < best || (cand == best && kv < pk))
		{
			best = cand;
			pk = kv;
			plab = a.Lab(nx, ny);
		}
		if (!MK && kv == flat)
			ml = min(ml, a.Lab(nx, ny));
	}
	*nkey = (typename WsKeyOf<MK>::T) best;
	*nlab = (uint32_t) best != PB_WS_INF ? plab : (MK ? 0u : ml);
}

/*
 * Whether pixel (x, y), not a wall, becomes a watershed-line pixel: it is
 * labelled and not a seed (marker-less: a minimum, d = INF), and a
 * neighbour of another basin is a seed or has a smaller (key, index).
 */
template <bool MK, bool C8, typename A>
__device__ __forceinline__ bool
WsLine(const A &a, int x, int y)
{
	uint32_t	lv = a.Lv(x, y);
	uint32_t	lab = a.Lab(x, y);
	uint64_t	ku = WsFull<MK>(a.Key(x, y), lv);

	if (lab == 0 || (MK ? lv == WS_SEED : (uint32_t) ku == PB_WS_INF))
		return false;
#pragma unroll
	for (int j = 0; j < (C8 ? 8 : 4); j++)
	{
		int			nx = x + PbNbDx(j),
					ny = y + PbNbDy(j);
		uint32_t	lvn = a.Lv(nx, ny);
		uint32_t	ln;
		uint64_t	kv;

		if (lvn == WS_WALL)
			continue;
		ln = a.Lab(nx, ny);
		if (ln == 0 || ln == lab)
			continue;
		kv = WsFull<MK>(a.Key(nx, ny), lvn);
		if ((MK ? lvn == WS_SEED : (uint32_t) kv == PB_WS_INF) || kv < ku ||
			(kv == ku && PbNbBefore(j)))
			return true;
	}
	return false;
}

#endif							/* PB_WATERSHED_RULE_CUH */
