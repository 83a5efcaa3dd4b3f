/*
 * window.h: a region of a larger image that one worker reconstructs on its
 * own while others write the pixels around it (the hybrid's cells and
 * blocks, recon_hybrid.h), and the order in which the one-pixel ring of a
 * rectangle is packed into a buffer.  The CPU and the GPU driver both move
 * rings in this order, so it is written once, PB_XPU (base/pb_xpu.h).
 *
 * Why rings: the workers next to a region read its outermost pixels (their
 * halo) while it runs, and write the pixels just outside it (its halo).
 * So a worker reads its halo, and writes its own outermost pixels, under
 * the neighbours' locks, through small packed rings; the rest of the
 * region is its own and moves straight between the image and the worker
 * (for the GPU, one pitched copy each way, with no host scratch).
 */
#ifndef PB_RASTER_WINDOW_H
#define PB_RASTER_WINDOW_H

#include <stdint.h>

#include "../base/pb_xpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A region [x0, x1) x [y0, y1) of an image, its halo'd extent [hx0, hx1) x
 * [hy0, hy1) (the region grown by one pixel, clipped to the image), and the
 * two rings a run moves through the caller: halo, the caller's current
 * values of the halo'd extent's ring (read under the neighbours' locks),
 * which the run uses instead of the image's; border, where the run leaves
 * the region's own ring instead of writing it into the image.
 */
typedef struct PbRasterWindow
{
	int64_t		x0,
				y0,
				x1,
				y1;
	int64_t		hx0,
				hy0,
				hx1,
				hy1;
	const void *halo;
	void	   *border;
} PbRasterWindow;

/*
 * Segment k (0..3) of the ring of a w x h rectangle (w, h >= 1): it starts
 * at (*x, *y) of the rectangle and runs *n pixels along a row (*down 0) or
 * down a column (*down 1).  The ring packs segments 0..3 one after the
 * other: the top row, the bottom row, then the left and right columns
 * between them; a segment of a thin rectangle that would repeat pixels is
 * empty.
 */
PB_XPU void
PbRingSegment(int64_t w, int64_t h, int k, int64_t *x, int64_t *y, int64_t *n, int *down)
{
	int64_t		inner = h > 2 ? h - 2 : 0;

	*x = k == 3 ? w - 1 : 0;
	*y = k == 1 ? h - 1 : k >= 2 ? 1 : 0;
	*down = k >= 2;
	*n = k == 0 ? w : k == 1 ? (h > 1 ? w : 0) : k == 2 ? inner : (w > 1 ? inner : 0);
}

/* Pixels of the ring of a w x h rectangle: every pixel on its edge. */
PB_XPU int64_t
PbRingPixels(int64_t w, int64_t h)
{
	int64_t		total = 0;

	for (int k = 0; k < 4; k++)
	{
		int64_t		x,
					y,
					n;
		int			down;

		PbRingSegment(w, h, k, &x, &y, &n, &down);
		total += n;
	}
	return total;
}

#ifdef __cplusplus
}
#endif

#endif							/* PB_RASTER_WINDOW_H */
