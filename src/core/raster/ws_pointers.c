/*
 * ws_pointers.c: the least neighbour of each pixel of a row (ws_pointers.h).
 *
 * The neighbours' offsets are fixed for the whole stretch, so their keys
 * are contiguous vectors in x, and the fold over them (keep the earlier
 * j on ties: a strict <) is a select per lane.  x86-64's baseline (SSE2)
 * has no 64-bit compare, so on x86-64 with GCC the function is also built
 * for AVX2 and AVX-512 and the loader picks the best the CPU has
 * (PB_VECTOR_CLONES, base/pb_vector.h).
 */
#include "ws_pointers.h"

#include "../base/pb_vector.h"
#include "watershed_rules.h"

/* Fold neighbour j (its key v) into the least so far (p, least). */
#define WS_FOLD(j, v) \
	do { \
		uint64_t	v_ = (v); \
		p = v_ < least ? (uint8_t) (j) : p; \
		least = v_ < least ? v_ : least; \
	} while (0)

/* The 8-connected stretch: every neighbour's offset a loop-invariant scalar. */
PB_VECTOR_CLONES static void
LeastOf8(const uint64_t *restrict key, const int64_t *off, int64_t n, uint8_t *restrict out)
{
	const int64_t o0 = off[0], o1 = off[1], o2 = off[2], o3 = off[3],
				o4 = off[4], o5 = off[5], o6 = off[6], o7 = off[7];

	for (int64_t x = 0; x < n; x++)
	{
		const uint64_t *k = key + x;
		uint64_t	least = k[o0];
		uint8_t		p = 0;

		WS_FOLD(1, k[o1]);
		WS_FOLD(2, k[o2]);
		WS_FOLD(3, k[o3]);
		WS_FOLD(4, k[o4]);
		WS_FOLD(5, k[o5]);
		WS_FOLD(6, k[o6]);
		WS_FOLD(7, k[o7]);
		out[x] = p;
	}
}

/* The 4-connected stretch. */
PB_VECTOR_CLONES static void
LeastOf4(const uint64_t *restrict key, const int64_t *off, int64_t n, uint8_t *restrict out)
{
	const int64_t o0 = off[0], o1 = off[1], o2 = off[2], o3 = off[3];

	for (int64_t x = 0; x < n; x++)
	{
		const uint64_t *k = key + x;
		uint64_t	least = k[o0];
		uint8_t		p = 0;

		WS_FOLD(1, k[o1]);
		WS_FOLD(2, k[o2]);
		WS_FOLD(3, k[o3]);
		out[x] = p;
	}
}

/* See ws_pointers.h: a select per lane, as above. */
PB_VECTOR_CLONES void
PbWsMinimaOf(const uint64_t *restrict key, int64_t n, uint8_t done, uint8_t *restrict ptr,
			 uint8_t *restrict seed)
{
	for (int64_t x = 0; x < n; x++)
	{
		uint64_t	k = key[x];
		uint8_t		p = ptr[x],
					none = WsKeyD(k) == PB_WS_INF;

		seed[x] = none & (WsKeyC(k) != PB_WS_INF);
		ptr[x] = none ? done : p;
	}
}

/* Each pixel's first neighbour of least key, over a stretch of a row. */
void
PbWsLeastNeighbours(const uint64_t *key, const int64_t off[8], int conn, int64_t n,
					uint8_t *out)
{
	if (conn == 8)
		LeastOf8(key, off, n, out);
	else
		LeastOf4(key, off, n, out);
}
