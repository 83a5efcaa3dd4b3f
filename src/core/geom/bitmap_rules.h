/*
 * bitmap_rules.h: the rules of the edge-flag bitmap engine, written once
 * for the CPU engine (area_bitmap.c) and the bitmap kernel
 * (cuda/bitmap_kernels.cu), which must agree on every pair.
 *
 * A window [x0, x1) x [y0, y1) of pixels is a bitmap of rows of 64-bit
 * words, bit b of word k of row r standing for pixel (x0 + 64k + b, y0 + r).
 * Each vertical edge x = c, y in [lo, hi) flips the bit of its column
 * (column 0 when the edge lies left of the window: its parity still counts)
 * in the first row it spans and in the row past its last; a prefix XOR
 * down each column, then along each row, leaves exactly the pixels whose
 * centres are inside the shape (even-odd rule).  Any sub-window is a window
 * of its own: the same rule over it gives its own pixels, so a large
 * window can be cut into tiles computed apart and their counts added.
 * Pixels are unit squares and every test is on integers: exact.
 */
#ifndef PB_GEOM_BITMAP_RULES_H
#define PB_GEOM_BITMAP_RULES_H

#include <stdint.h>

#include "../base/pb_xpu.h"

/*
 * The bitmap kernel's tiles: at most PB_BITMAP_TILE_WORDS words of each
 * shape's bitmap (8,192 pixels), at most PB_BITMAP_TILE_MAX_WIDTH words
 * wide.  The device's routing (sccg/device.h) counts work in these tiles.
 */
#define PB_BITMAP_TILE_WORDS 128
#define PB_BITMAP_TILE_MAX_WIDTH 4

/*
 * How the bitmap kernel cuts a window width x height pixels into tiles:
 * tiles *tw words wide and *th rows high, *ntx of them across; returns
 * how many in all (0 for an empty window).  A window inside another never
 * has more tiles.
 */
PB_XPU uint64_t
PbBitmapTiles(int64_t width, int64_t height, int64_t *tw, int64_t *th, int64_t *ntx)
{
	int64_t		nw = (width + 63) / 64;

	if (width <= 0 || height <= 0)
		return 0;
	*tw = nw < PB_BITMAP_TILE_MAX_WIDTH ? nw : PB_BITMAP_TILE_MAX_WIDTH;
	*th = PB_BITMAP_TILE_WORDS / *tw;
	*ntx = (nw + *tw - 1) / *tw;
	return (uint64_t) *ntx * (uint64_t) ((height + *th - 1) / *th);
}

/* Where one edge flips bits of a window: its column and rows (relative). */
typedef struct PbEdgeFlags
{
	int64_t		col;			/* column of both flips */
	int64_t		row_lo;			/* first flip */
	int64_t		row_hi;			/* second flip; none when == the window's rows */
} PbEdgeFlags;

/*
 * The flips of ring edge (xa, ya) -> (xb, yb) in window [x0, x1) x [y0, y1),
 * into *f; false when it flips nothing (not vertical, right of the window,
 * or no row of its span inside).
 */
PB_XPU int
PbBitmapEdgeFlags(int64_t xa, int64_t ya, int64_t xb, int64_t yb, int64_t x0,
				  int64_t y0, int64_t x1, int64_t y1, PbEdgeFlags *f)
{
	int64_t		lo = ya < yb ? ya : yb,
				hi = ya < yb ? yb : ya;

	if (xa != xb || xa >= x1)
		return 0;
	lo = lo > y0 ? lo : y0;
	hi = hi < y1 ? hi : y1;
	if (lo >= hi)
		return 0;
	f->col = xa > x0 ? xa - x0 : 0;
	f->row_lo = lo - y0;
	f->row_hi = hi - y0;
	return 1;
}

/*
 * Turn a word of a row's column parities into inside bits: the prefix XOR
 * along the word, inverted when the row's parity carried in from the words
 * to its left is odd.  The next word's carry is the result's top bit.
 */
PB_XPU uint64_t
PbBitmapPrefixXor(uint64_t v, uint64_t carry)
{
	v ^= v << 1;
	v ^= v << 2;
	v ^= v << 4;
	v ^= v << 8;
	v ^= v << 16;
	v ^= v << 32;
	return carry ? ~v : v;
}

/* The bits of a row's last word that lie inside a window width px wide. */
PB_XPU uint64_t
PbBitmapLastMask(int64_t width)
{
	return (width & 63) ? (((uint64_t) 1 << (width & 63)) - 1) : ~(uint64_t) 0;
}

#endif							/* PB_GEOM_BITMAP_RULES_H */
