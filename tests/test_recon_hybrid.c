/*
 * test_recon_hybrid.c: reconstruction on CPU threads and devices together
 * (recon_hybrid.h) against the CPU's own (PbReconstructCpu, itself tested
 * against a brute force in test_recon.c), pixel for pixel: random images of
 * every pixel type and odd sizes, a serpentine maze whose flood crosses every
 * cell many times, fake devices (the CPU's reconstruction behind the device
 * interface: one, two, slow, failing at once or after some regions), a stop,
 * and bad arguments.
 */
#define _DEFAULT_SOURCE			/* rand_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "../src/core/raster/recon_hybrid.h"
#include "../src/core/raster/recon_window.h"
#include "harness.h"
#include "recon_ref.h"
#include "tests_recon.h"

/* A fake device: the CPU reconstruction, failing from its fail_at-th region on. */
typedef struct FakeDev
{
	int			calls;
	int			fail_at;		/* 0: never */
} FakeDev;

/* PbReconRegionFn of the fake device: the CPU's window run, never seeded. */
static int
FakeRun(void *ctx, PbImage *marker, const PbImage *mask, const PbRasterWindow *win, int connectivity,
		PbReconOp op, char *err, size_t err_len)
{
	FakeDev    *f = ctx;
	size_t		n = (size_t) (win->hx1 - win->hx0) * (win->hy1 - win->hy0) * PbPixSize(marker->type);
	void	   *sm = malloc(n),
			   *sk = malloc(n);
	int			rc;

	f->calls++;
	if (f->fail_at && f->calls >= f->fail_at)
	{
		snprintf(err, err_len, "fake device failed at region %d", f->calls);
		rc = -1;
	}
	else
		rc = PbReconWindowCpu(marker, mask, win, connectivity, op, false, sm, sk) == PB_OK ? 0 : -1;
	free(sm);
	free(sk);
	return rc;
}

/* A copy of im. */
static PbImage
Copy(const PbImage *im)
{
	PbImage		c = *im;
	size_t		n = (size_t) im->width * im->height * PbPixSize(im->type);

	c.data = malloc(n ? n : 1);
	memcpy(c.data, im->data, n);
	return c;
}

/* Whether a and b hold the same bytes. */
static bool
Same(const PbImage *a, const PbImage *b)
{
	return memcmp(a->data, b->data, (size_t) a->width * a->height * PbPixSize(a->type)) == 0;
}

/*
 * Reconstruct marker under mask with the hybrid (threads, cell, the given
 * fake devices) and with PbReconstructCpu; check they agree.
 */
static void
CheckAgainstCpu(const PbImage *marker0, const PbImage *mask, int conn, PbReconOp op,
				int threads, int cell, FakeDev *fakes, int ndev, int block)
{
	PbImage		want = Copy(marker0),
				got = Copy(marker0);
	PbRun		run = {4, 0, NULL, NULL},
				hrun = {threads, 0, NULL, NULL};
	PbReconDevice devs[2];
	PbReconHybridStats st;

	memset(devs, 0, sizeof(devs));
	for (int d = 0; d < ndev; d++)
		devs[d] = (PbReconDevice) {.run = FakeRun, .ctx = &fakes[d], .block = block};
	PbReconClip(&want, mask, op);
	PbReconClip(&got, mask, op);
	CHECK_INT(PbReconstructCpu(&want, mask, conn, op, &run), PB_OK);
	CHECK_INT(PbReconstructHybrid(&got, mask, conn, op, &hrun, cell, devs, ndev, &st), PB_OK);
	CHECK(Same(&want, &got));
	CHECK_INT(st.cells, ((mask->width + cell - 1) / cell) * ((mask->height + cell - 1) / cell));
	/* every cell ran at least once, somewhere */
	{
		int64_t		pixels = st.cpu_pixels;

		for (int d = 0; d < ndev; d++)
			pixels += devs[d].pixels;
		CHECK(pixels >= (int64_t) mask->width * mask->height);
	}
	free(want.data);
	free(got.data);
}

void
test_recon_hybrid_random(void)
{
	static const PbPixType types[4] = {PB_PIX_1BB, PB_PIX_8BUI, PB_PIX_16BUI, PB_PIX_32BF};
	unsigned	rng = 7;

	for (int k = 0; k < 24; k++)
	{
		PbPixType	type = types[k % 4];
		int			top = type == PB_PIX_1BB ? 1 : type == PB_PIX_8BUI ? 255 : 1000;
		int			w = 1 + rand_r(&rng) % 90,
					h = 1 + rand_r(&rng) % 70;
		PbImage		mask = ReconRandomImage(w, h, type, &rng, top);
		PbImage		marker = ReconRandomImage(w, h, type, &rng, top / 3 + 1);
		FakeDev		fakes[2] = {{0, 0}, {0, 0}};
		int			conn = k % 2 ? 8 : 4;
		PbReconOp	op = k % 3 ? PB_RECON_DILATE : PB_RECON_ERODE;

		/* one device and 3 CPU threads, cells of 7, blocks of 3 x 3 cells */
		CheckAgainstCpu(&marker, &mask, conn, op, 4, 7, fakes, 1, 3);
		/* two devices, no CPU thread */
		CheckAgainstCpu(&marker, &mask, conn, op, 1, 5, fakes, 2, 2);
		/* one device holding the whole image in one block */
		CheckAgainstCpu(&marker, &mask, conn, op, 3, 16, fakes, 1, 64);
		free(mask.data);
		free(marker.data);
	}
}

/*
 * A serpentine maze: walls (0) every 4th row with one gap, alternating
 * sides; corridors of value 200 - (x + y) % 50, the marker the mask's value
 * at the entrance only.
 */
static void
Maze(int w, int h, PbImage *marker, PbImage *mask)
{
	*mask = (PbImage) {w, h, PB_PIX_8BUI, calloc((size_t) w * h, 1)};
	*marker = (PbImage) {w, h, PB_PIX_8BUI, calloc((size_t) w * h, 1)};
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
		{
			bool		wall = y % 4 == 1 && x != ((y / 4) % 2 ? 0 : w - 1);

			((uint8_t *) mask->data)[(size_t) y * w + x] = wall ? 0 : 200 - (x + y) % 50;
		}
	((uint8_t *) marker->data)[0] = ((uint8_t *) mask->data)[0];
}

void
test_recon_hybrid_maze(void)
{
	PbImage		marker,
				mask;
	FakeDev		fakes[2] = {{0, 0}, {0, 0}};

	Maze(123, 97, &marker, &mask);
	for (int conn = 4; conn <= 8; conn += 4)
	{
		CheckAgainstCpu(&marker, &mask, conn, PB_RECON_DILATE, 4, 8, fakes, 1, 4);
		CheckAgainstCpu(&marker, &mask, conn, PB_RECON_DILATE, 2, 10, fakes, 2, 3);
		CheckAgainstCpu(&marker, &mask, conn, PB_RECON_DILATE, 1, 9, fakes, 1, 2);
	}
	/* the flood reached the last corridor */
	{
		PbImage		got = Copy(&marker);
		PbRun		run = {3, 0, NULL, NULL};
		PbReconDevice dev = {.run = FakeRun, .ctx = &fakes[0], .block = 4};
		PbReconHybridStats st;

		CHECK_INT(PbReconstructHybrid(&got, &mask, 8, PB_RECON_DILATE, &run, 8, &dev, 1, &st),
				  PB_OK);
		CHECK(((uint8_t *) got.data)[(size_t) 96 * 123 + 60] > 0);
		/* cells ran again as the flood came back to them */
		CHECK(st.cpu_regions + dev.regions * 16 > st.cells);
		free(got.data);
	}
	free(marker.data);
	free(mask.data);
}

void
test_recon_hybrid_device_fails(void)
{
	PbImage		marker,
				mask;
	PbRun		run = {3, 0, NULL, NULL},
				alone = {1, 0, NULL, NULL},
				cpu = {2, 0, NULL, NULL};
	PbImage		want;

	Maze(80, 61, &marker, &mask);
	want = Copy(&marker);
	CHECK_INT(PbReconstructCpu(&want, &mask, 8, PB_RECON_DILATE, &cpu), PB_OK);
	/* failing at once, after some regions; with and without CPU threads */
	for (int fail_at = 1; fail_at <= 3; fail_at++)
		for (int t = 0; t < 2; t++)
		{
			FakeDev		fake = {0, fail_at};
			PbReconDevice dev = {.run = FakeRun, .ctx = &fake, .block = 2};
			PbReconHybridStats st;
			PbImage		got = Copy(&marker);

			CHECK_INT(PbReconstructHybrid(&got, &mask, 8, PB_RECON_DILATE, t ? &run : &alone,
										  7, &dev, 1, &st), PB_OK);
			CHECK(Same(&want, &got));
			CHECK(dev.failed);
			CHECK(strstr(dev.err, "fake device failed") != NULL);
			CHECK_INT(dev.regions, fail_at - 1);
			free(got.data);
		}
	free(want.data);
	free(marker.data);
	free(mask.data);
}

/* A poll that asks to stop from its n-th call on. */
static int
StopAfter(void *arg)
{
	int		   *n = arg;

	return --*n <= 0;
}

void
test_recon_hybrid_stop_and_badarg(void)
{
	PbImage		marker,
				mask;
	int			polls = 3;
	PbRun		run = {2, 0, StopAfter, &polls};
	FakeDev		fake = {0, 0};
	PbReconDevice dev = {.run = FakeRun, .ctx = &fake, .block = 1};
	PbReconHybridStats st;
	PbImage		small = {2, 2, PB_PIX_8BUI, NULL};

	Maze(200, 161, &marker, &mask);
	CHECK_INT(PbReconstructHybrid(&marker, &mask, 8, PB_RECON_DILATE, &run, 4, &dev, 1, &st),
			  PB_ERR_STOPPED);
	run.poll = NULL;
	CHECK_INT(PbReconstructHybrid(&marker, &mask, 8, PB_RECON_DILATE, &run, 0, &dev, 1, &st),
			  PB_ERR_BADARG);
	CHECK_INT(PbReconstructHybrid(&marker, &mask, 8, PB_RECON_DILATE, &run, 4, &dev, 0, &st),
			  PB_ERR_BADARG);
	CHECK_INT(PbReconstructHybrid(&marker, &mask, 6, PB_RECON_DILATE, &run, 4, &dev, 1, &st),
			  PB_ERR_BADARG);
	CHECK_INT(PbReconstructHybrid(&small, &mask, 8, PB_RECON_DILATE, &run, 4, &dev, 1, &st),
			  PB_ERR_BADARG);
	dev.block = 0;
	CHECK_INT(PbReconstructHybrid(&marker, &mask, 8, PB_RECON_DILATE, &run, 4, &dev, 1, &st),
			  PB_ERR_BADARG);
	free(marker.data);
	free(mask.data);
}
