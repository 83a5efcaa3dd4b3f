/*
 * recon_window.c: rings and the CPU's run of a reconstruction window
 * (recon_window.h).
 */
#include "recon_window.h"

#include <stdlib.h>
#include <string.h>

#include "raster_rules.h"

/*
 * Copy the ring of rectangle [x0, x1) x [y0, y1) of the pixels data (width
 * pixels a row, px bytes each) into ring (out) or back.
 */
static void
RingMove(uint8_t *data, int64_t width, size_t px, int64_t x0, int64_t y0, int64_t x1,
		 int64_t y1, uint8_t *r, bool out)
{
	for (int k = 0; k < 4; k++)
	{
		int64_t		x,
					y,
					n;
		int			down;

		PbRingSegment(x1 - x0, y1 - y0, k, &x, &y, &n, &down);
		for (int64_t i = 0; i < n; i++, r += px)
		{
			uint8_t    *p = data + ((y0 + y + (down ? i : 0)) * width + x0 + x +
									(down ? 0 : i)) * px;

			memcpy(out ? r : p, out ? p : r, px);
		}
	}
}

void
PbRingGather(const PbImage *img, int64_t x0, int64_t y0, int64_t x1, int64_t y1, void *ring)
{
	RingMove(img->data, img->width, PbPixSize(img->type), x0, y0, x1, y1, ring, true);
}

void
PbRingScatter(PbImage *img, int64_t x0, int64_t y0, int64_t x1, int64_t y1, const void *ring)
{
	/* the ring is only read in this direction */
	RingMove(img->data, img->width, PbPixSize(img->type), x0, y0, x1, y1, (uint8_t *) ring,
			 false);
}

/*
 * Propagate into the region of window win in sub (its halo'd extent; the
 * region a fixpoint of an earlier run) from its halo, through a FIFO:
 * Vincent's last phase, seeded by every halo pixel.  False when that
 * passes a sixteenth of the region's pixels in updates (a flood: the full
 * algorithm is cheaper) or runs out of memory; sub then holds a partial
 * reconstruction.
 */
static bool
SeededRun(PbImage *sub, const PbImage *submask, const PbRasterWindow *win, int conn,
		  PbReconOp op)
{
	int64_t		w = sub->width,
				rx0 = win->x0 - win->hx0,
				ry0 = win->y0 - win->hy0,
				rx1 = win->x1 - win->hx0,
				ry1 = win->y1 - win->hy0,
				budget = (rx1 - rx0) * (ry1 - ry0) / 16 + 16,
				head = 0,
				tail = 0,
				updates = 0;
	/* every halo pixel once, then one entry an update */
	int64_t    *queue = malloc(sizeof(int64_t) * (size_t) (budget + 2 * (w + sub->height) + 8));
	bool		dilate = op == PB_RECON_DILATE;

	if (queue == NULL)
		return false;
	/* the halo: every pixel of sub outside the region */
	for (int64_t y = 0; y < sub->height; y++)
		for (int64_t x = 0; x < w; x++)
		{
			if (x >= rx0 && x < rx1 && y >= ry0 && y < ry1)
				x = rx1 - 1;	/* skip the region's row */
			else
				queue[tail++] = y * w + x;
		}
	while (head < tail)
	{
		int64_t		q = queue[head++];
		double		vq = PbPixGet(sub, q);

		for (int j = 0; j < conn; j++)
		{
			int64_t		px = q % w + PbNbDx(j),
						py = q / w + PbNbDy(j);
			int64_t		p = py * w + px;
			double		cand,
						vp;

			if (px < rx0 || px >= rx1 || py < ry0 || py >= ry1)
				continue;
			vp = PbPixGet(sub, p);
			cand = PbPixGet(submask, p);
			cand = dilate ? (vq < cand ? vq : cand) : (vq > cand ? vq : cand);
			if (dilate ? !(cand > vp) : !(cand < vp))
				continue;
			if (++updates > budget)
			{
				free(queue);
				return false;
			}
			PbPixSet(sub, p, cand);
			queue[tail++] = p;
		}
	}
	free(queue);
	return true;
}

/*
 * Copy rows [ya, yb) x columns [xa, xb) between the pixels of an image
 * (data, width pixels a row) and sub, whose pixel (0, 0) is the image's
 * (ox, oy): into sub (in) or back into the image.
 */
static void
MoveRect(void *data, int64_t width, PbImage *sub, int64_t ox, int64_t oy, int64_t xa,
		 int64_t ya, int64_t xb, int64_t yb, bool in)
{
	size_t		px = PbPixSize(sub->type);

	if (xb <= xa)
		return;
	for (int64_t y = ya; y < yb; y++)
	{
		uint8_t    *p = (uint8_t *) data + (y * width + xa) * px;
		uint8_t    *q = (uint8_t *) sub->data + ((y - oy) * sub->width + xa - ox) * px;

		memcpy(in ? q : p, in ? p : q, (size_t) (xb - xa) * px);
	}
}

PbStatus
PbReconWindowCpu(PbImage *marker, const PbImage *mask, const PbRasterWindow *win,
				 int connectivity, PbReconOp op, bool seeded, void *scratch_marker,
				 void *scratch_mask)
{
	PbImage		sub = {(int32_t) (win->hx1 - win->hx0), (int32_t) (win->hy1 - win->hy0),
	marker->type, scratch_marker};
	PbImage		submask = {sub.width, sub.height, mask->type, scratch_mask};
	PbRun		one = {1, 0, NULL, NULL};	/* a window is one thread's */
	PbStatus	st;

	MoveRect(marker->data, marker->width, &sub, win->hx0, win->hy0, win->hx0, win->hy0,
			 win->hx1, win->hy1, true);
	MoveRect(mask->data, mask->width, &submask, win->hx0, win->hy0, win->hx0, win->hy0,
			 win->hx1, win->hy1, true);
	PbRingScatter(&sub, 0, 0, sub.width, sub.height, win->halo);
	if (!(seeded && SeededRun(&sub, &submask, win, connectivity, op)) &&
		(st = PbReconstructCpu(&sub, &submask, connectivity, op, &one)) != PB_OK)
		return st;
	/* the region but its ring back into marker, its ring to border */
	MoveRect(marker->data, marker->width, &sub, win->hx0, win->hy0, win->x0 + 1, win->y0 + 1,
			 win->x1 - 1, win->y1 - 1, false);
	PbRingGather(&sub, win->x0 - win->hx0, win->y0 - win->hy0, win->x1 - win->hx0,
				 win->y1 - win->hy0, win->border);
	return PB_OK;
}
