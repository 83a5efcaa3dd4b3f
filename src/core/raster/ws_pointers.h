/*
 * ws_pointers.h: the CPU watershed's pointer rule over a row, written so
 * that the compiler vectorizes it.  Inside the image's outer frame a
 * non-seed pixel's pointer is its first neighbour of least key
 * (watershed_rules.h says why); this finds that neighbour for every pixel
 * of a stretch of a row at once, with no branch, and the caller keeps it
 * only for the pixels that have a pointer (marker-less: PbWsMinimaOf).
 */
#ifndef PB_WS_POINTERS_H
#define PB_WS_POINTERS_H

#include <stdint.h>

/*
 * For each pixel x of [0, n), whose key is key[x] and whose neighbour j
 * (PbNbDx/PbNbDy order, j < conn: 4 or 8) is key[x + off[j]], the least j
 * whose key is the least of them, into out[x].  Every key read must lie
 * in the image: the stretch is inside the outer frame.
 */
extern void PbWsLeastNeighbours(const uint64_t *key, const int64_t off[8], int conn,
								int64_t n, uint8_t *out);

/*
 * Marker-less, after PbWsLeastNeighbours over the same stretch into ptr:
 * a pixel whose key's d is INF has no pointer (ptr[x] = done) and is a
 * seed, a minimum's (seed[x] = 1), unless it is a wall (c INF too); the
 * others keep their least neighbour and are no seed (seed[x] = 0).
 */
extern void PbWsMinimaOf(const uint64_t *key, int64_t n, uint8_t done, uint8_t *ptr,
						 uint8_t *seed);

#endif							/* PB_WS_POINTERS_H */
