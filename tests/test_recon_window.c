/*
 * test_recon_window.c: rings (window.h, recon_window.h) and the CPU's run
 * of a reconstruction window.  The ring order is checked pixel by pixel on
 * small and thin rectangles against its definition; a window run against
 * PbReconstructCpu of the halo'd extent with the halo put in by hand: the
 * region but its ring in the image, its ring in the border, and nothing
 * outside the region touched.
 */
#define _DEFAULT_SOURCE			/* rand_r */
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "../src/core/raster/recon_window.h"
#include "harness.h"
#include "recon_ref.h"
#include "tests_recon.h"

void
test_ring_order(void)
{
	static const int sizes[][2] = {{1, 1}, {3, 1}, {1, 3}, {2, 2}, {2, 5}, {5, 4}, {4, 7}};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
	{
		int			w = sizes[k][0],
					h = sizes[k][1];
		/* a 9 x 9 image of 16-bit pixels, value y * 9 + x; the rectangle at (2, 1) */
		uint16_t	px[81],
					ring[64],
					want[64];
		PbImage		img = {9, 9, PB_PIX_16BUI, px};
		int			n = 0;

		for (int i = 0; i < 81; i++)
			px[i] = (uint16_t) i;
		/* the definition: top row, bottom row, left column, right column between */
		for (int x = 0; x < w; x++)
			want[n++] = (uint16_t) (1 * 9 + 2 + x);
		for (int x = 0; h > 1 && x < w; x++)
			want[n++] = (uint16_t) ((h) * 9 + 2 + x);
		for (int y = 1; y < h - 1; y++)
			want[n++] = (uint16_t) ((1 + y) * 9 + 2);
		for (int y = 1; w > 1 && y < h - 1; y++)
			want[n++] = (uint16_t) ((1 + y) * 9 + 2 + w - 1);
		pb_test_context("%d x %d", w, h);
		CHECK_INT(PbRingPixels(w, h), n);
		/* every pixel on the edge, once */
		CHECK_INT(n, w * h - (w > 2 && h > 2 ? (w - 2) * (h - 2) : 0));
		PbRingGather(&img, 2, 1, 2 + w, 1 + h, ring);
		CHECK(memcmp(ring, want, (size_t) n * 2) == 0);
		/* scatter writes the ring and nothing else */
		for (int i = 0; i < n; i++)
			ring[i] = (uint16_t) (1000 + i);
		PbRingScatter(&img, 2, 1, 2 + w, 1 + h, ring);
		for (int i = 0; i < 81; i++)
		{
			int			x = i % 9 - 2,
						y = i / 9 - 1;
			bool		edge = x >= 0 && y >= 0 && x < w && y < h &&
				(x == 0 || y == 0 || x == w - 1 || y == h - 1);

			CHECK(edge ? px[i] >= 1000 : px[i] == i);
		}
		PbRingGather(&img, 2, 1, 2 + w, 1 + h, want);
		CHECK(memcmp(ring, want, (size_t) n * 2) == 0);
	}
}

/* The window of region [x0, x1) x [y0, y1) of a w x h image: grown by one, clipped. */
static PbRasterWindow
WindowOf(int w, int h, int x0, int y0, int x1, int y1)
{
	return (PbRasterWindow) {x0, y0, x1, y1, x0 > 0 ? x0 - 1 : 0, y0 > 0 ? y0 - 1 : 0,
		x1 < w ? x1 + 1 : w, y1 < h ? y1 + 1 : h, NULL, NULL};
}

/* Sub-image [x0, x1) x [y0, y1) of im. */
static PbImage
Cut(const PbImage *im, int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
	size_t		px = PbPixSize(im->type);
	PbImage		s = {(int32_t) (x1 - x0), (int32_t) (y1 - y0), im->type,
	malloc((size_t) (x1 - x0) * (y1 - y0) * px)};

	for (int64_t y = y0; y < y1; y++)
		memcpy((char *) s.data + (y - y0) * (x1 - x0) * px,
			   (char *) im->data + (y * im->width + x0) * px, (size_t) (x1 - x0) * px);
	return s;
}

/*
 * The reconstruction of marker's window win (its ring replaced by halo)
 * as an image of the halo'd extent: the full one, or with the halo pixels
 * outside the region pinned (their mask lowered or raised to them).
 */
static PbImage
Expected(const PbImage *marker, const PbImage *mask, const PbRasterWindow *win, int conn,
		 PbReconOp op, const void *halo, bool pinned)
{
	int64_t		ew = win->hx1 - win->hx0,
				eh = win->hy1 - win->hy0;
	PbImage		ext = Cut(marker, win->hx0, win->hy0, win->hx1, win->hy1);
	PbImage		extmask = Cut(mask, win->hx0, win->hy0, win->hx1, win->hy1);
	PbRun		one = {1, 0, NULL, NULL};

	PbRingScatter(&ext, 0, 0, ew, eh, halo);
	for (int64_t y = 0; pinned && y < eh; y++)
		for (int64_t x = 0; x < ew; x++)
		{
			int64_t		ix = win->hx0 + x,
						iy = win->hy0 + y;

			if (ix < win->x0 || ix >= win->x1 || iy < win->y0 || iy >= win->y1)
				PbPixSet(&extmask, y * ew + x, PbPixGet(&ext, y * ew + x));
		}
	CHECK_INT(PbReconstructCpu(&ext, &extmask, conn, op, &one), PB_OK);
	free(extmask.data);
	return ext;
}

/* Whether got's region (image coordinates) equals want's (the extent's). */
static bool
RegionEquals(const PbImage *got, const PbImage *want, const PbRasterWindow *win)
{
	for (int64_t y = win->y0; y < win->y1; y++)
		for (int64_t x = win->x0; x < win->x1; x++)
			if (PbPixGet(got, y * got->width + x) !=
				PbPixGet(want, (y - win->hy0) * want->width + x - win->hx0))
				return false;
	return true;
}

/*
 * Run window win of marker (halo: the image's ring of the extent with
 * some pixels raised to the mask, the kind of change a neighbour makes)
 * with PbReconWindowCpu and check it against PbReconstructCpu of the
 * extent: the region but its ring in the image, its ring in the border,
 * nothing else touched.  A seeded run propagates from the halo alone (the
 * halo pinned), unless it gave up on a flood and ran the full algorithm:
 * either answer is right.
 */
static void
CheckWindow(const PbImage *marker0, const PbImage *mask, PbRasterWindow win, int conn,
			PbReconOp op, bool seeded, unsigned *rng)
{
	size_t		px = PbPixSize(mask->type);
	int64_t		ew = win.hx1 - win.hx0,
				eh = win.hy1 - win.hy0;
	PbImage		got = Cut(marker0, 0, 0, marker0->width, marker0->height);
	PbImage		ext = Cut(marker0, win.hx0, win.hy0, win.hx1, win.hy1);
	PbImage		hm = Cut(mask, win.hx0, win.hy0, win.hx1, win.hy1);
	PbImage		want;
	int64_t		nh = PbRingPixels(ew, eh),
				nb = PbRingPixels(win.x1 - win.x0, win.y1 - win.y0);
	void	   *halo = malloc((size_t) nh * px),
			   *border = malloc((size_t) nb * px),
			   *s0 = malloc((size_t) (ew * eh) * px),
			   *s1 = malloc((size_t) (ew * eh) * px);

	/*
	 * halo: the ring with some pixels outside the region moved to the
	 * mask's value (still valid); on an image edge the ring holds region
	 * pixels too, which only their own worker changes
	 */
	for (int64_t y = 0; y < eh; y++)
		for (int64_t x = 0; x < ew; x++)
			if ((win.hx0 + x < win.x0 || win.hx0 + x >= win.x1 || win.hy0 + y < win.y0 ||
				 win.hy0 + y >= win.y1) && rand_r(rng) % 3 == 0)
				PbPixSet(&ext, y * ew + x, PbPixGet(&hm, y * ew + x));
	PbRingGather(&ext, 0, 0, ew, eh, halo);
	win.halo = halo;
	win.border = border;
	CHECK_INT(PbReconWindowCpu(&got, mask, &win, conn, op, seeded, s0, s1), PB_OK);
	/* the border, back in the image: the region is then all in got */
	PbRingScatter(&got, win.x0, win.y0, win.x1, win.y1, border);
	want = Expected(marker0, mask, &win, conn, op, halo, false);
	if (seeded && !RegionEquals(&got, &want, &win))
	{
		free(want.data);
		want = Expected(marker0, mask, &win, conn, op, halo, true);
	}
	CHECK(RegionEquals(&got, &want, &win));
	/* outside the region: untouched */
	for (int64_t y = 0; y < got.height; y++)
		for (int64_t x = 0; x < got.width; x++)
			if (x < win.x0 || x >= win.x1 || y < win.y0 || y >= win.y1)
				CHECK(PbPixGet(&got, y * got.width + x) == PbPixGet(marker0, y * got.width + x));
	free(got.data);
	free(ext.data);
	free(hm.data);
	free(want.data);
	free(halo);
	free(border);
	free(s0);
	free(s1);
}

void
test_recon_window_cpu(void)
{
	static const PbPixType types[3] = {PB_PIX_8BUI, PB_PIX_16BUI, PB_PIX_32BF};
	unsigned	rng = 99;

	for (int k = 0; k < 36; k++)
	{
		PbPixType	type = types[k % 3];
		int			w = 1 + rand_r(&rng) % 40,
					h = 1 + rand_r(&rng) % 30;
		PbImage		mask = ReconRandomImage(w, h, type, &rng, 200);
		PbImage		marker = ReconRandomImage(w, h, type, &rng, 60);
		PbReconOp	op = k % 4 < 2 ? PB_RECON_DILATE : PB_RECON_ERODE;
		int			conn = k % 2 ? 8 : 4;
		int			x0 = rand_r(&rng) % w,
					y0 = rand_r(&rng) % h;
		int			x1 = x0 + 1 + rand_r(&rng) % (w - x0),
					y1 = y0 + 1 + rand_r(&rng) % (h - y0);
		bool		seeded = k % 6 >= 3;

		pb_test_context("k %d: %d x %d, region [%d,%d) x [%d,%d)%s", k, w, h, x0, x1, y0, y1,
						seeded ? ", seeded" : "");
		CHECK_INT(PbReconClip(&marker, &mask, op), PB_OK);
		if (seeded)
		{
			/*
			 * the region a fixpoint of an earlier run (the whole image's
			 * reconstruction), then pixels outside it changed: the region
			 * stays stable within itself, all that seeding needs
			 */
			PbRun		one = {1, 0, NULL, NULL};

			CHECK_INT(PbReconstructCpu(&marker, &mask, conn, op, &one), PB_OK);
			for (int64_t i = 0; i < (int64_t) w * h; i++)
				if (rand_r(&rng) % 4 == 0 && !(i % w >= x0 && i % w < x1 && i / w >= y0 && i / w < y1))
					PbPixSet(&marker, i, 0);
			CHECK_INT(PbReconClip(&marker, &mask, op), PB_OK);
		}
		CheckWindow(&marker, &mask, WindowOf(w, h, x0, y0, x1, y1), conn, op, seeded, &rng);
		free(mask.data);
		free(marker.data);
	}
}
