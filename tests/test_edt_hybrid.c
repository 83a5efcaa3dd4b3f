/*
 * test_edt_hybrid.c: the distance transform on CPU threads and devices
 * together (edt_hybrid.h) against the CPU's own (PbDistanceCpu, itself
 * tested against a brute force in test_edt.c), distances and nearest
 * pixels bit for bit: random masks of odd sizes (a single row, a single
 * column, no background), unit and other spacing, fake devices (one, two,
 * small and large takes, failing in either pass after writing garbage,
 * slow),
 * no CPU thread at all, a stop, and bad arguments.
 *
 * The fake devices are independent of edt_cpu.c: their column pass scans
 * each column up and down from each pixel; their row pass checks that the
 * column rows it is given are those scans (else it fails the test) and
 * copies the expected rows in.
 */
#define _DEFAULT_SOURCE			/* rand_r, nanosleep */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/raster/edt_hybrid.h"
#include "../src/core/raster/pb_raster.h"
#include "harness.h"

/* One case: the mask and the CPU's answer. */
typedef struct EdtCase
{
	const uint8_t *fg;
	int32_t		w,
				h;
	double		sy,
				sx;
	const float *want;
	const int64_t *want_near;	/* NULL: nearest not asked */
} EdtCase;

/* A fake device over one case, failing at its fail_at-th range on. */
typedef struct FakeEdt
{
	const EdtCase *c;
	int			calls;
	int			fail_at;		/* 0: never */
	int			delay_ms;		/* before each column range */
	int			fail_rc;		/* what a failing call returns: -1, or 1 (stopped) */
} FakeEdt;

/* Row of the nearest background pixel of column x from row y (ties up), or -1. */
static int32_t
ScanColumn(const EdtCase *c, int32_t x, int32_t y)
{
	for (int32_t d = 0; d < c->h; d++)
	{
		if (y - d >= 0 && c->fg[(int64_t) (y - d) * c->w + x] == 0)
			return y - d;
		if (y + d < c->h && c->fg[(int64_t) (y + d) * c->w + x] == 0)
			return y + d;
	}
	return -1;
}

/* Whether this call fails; a failing call leaves garbage in its range first. */
static bool
FakeFails(FakeEdt *f, char *err, size_t err_len)
{
	f->calls++;
	if (f->fail_at == 0 || f->calls < f->fail_at)
		return false;
	snprintf(err, err_len, "fake device failed at call %d", f->calls);
	return true;
}

/* PbEdtColumnsFn of the fake device. */
static int
FakeColumns(void *ctx, const uint8_t *fg, int32_t w, int32_t h, int32_t x0, int32_t x1,
			void *colrows, char *err, size_t err_len)
{
	FakeEdt    *f = ctx;
	bool		fail = FakeFails(f, err, err_len);
	struct timespec delay = {0, f->delay_ms * 1000000L};

	nanosleep(&delay, NULL);
	CHECK(fg == f->c->fg && w == f->c->w && h == f->c->h && x0 < x1);
	for (int32_t y = 0; y < h; y++)
		for (int32_t x = x0; x < x1; x++)
		{
			int32_t		r = fail ? 12345 : ScanColumn(f->c, x, y);

			memcpy((char *) colrows + ((int64_t) y * w + x) * 4, &r, 4);
		}
	return fail ? f->fail_rc : 0;
}

/* PbEdtRowsFn of the fake device: checks its column rows, copies the answer. */
static int
FakeRows(void *ctx, int32_t w, int32_t h, double sy, double sx, int32_t y0, int32_t y1,
		 float *dist, int64_t *nearest, char *err, size_t err_len)
{
	FakeEdt    *f = ctx;
	bool		fail = FakeFails(f, err, err_len);

	CHECK(w == f->c->w && h == f->c->h && sy == f->c->sy && sx == f->c->sx && y0 < y1);
	CHECK((nearest == NULL) == (f->c->want_near == NULL));
	for (int32_t y = y0; y < y1; y++)
		for (int32_t x = 0; x < w; x++)
		{
			int64_t		i = (int64_t) y * w + x;
			int32_t		r;

			memcpy(&r, (char *) dist + i * 4, 4);
			CHECK_INT(r, ScanColumn(f->c, x, y));
			dist[i] = fail ? NAN : f->c->want[i];
			if (nearest)
				nearest[i] = fail ? -7 : f->c->want_near[i];
		}
	return fail ? f->fail_rc : 0;
}

/* A random mask, background with probability bg_pct %. */
static uint8_t *
RandomMask(int32_t w, int32_t h, int bg_pct, unsigned *rng)
{
	uint8_t    *m = malloc((size_t) w * h + 1);

	if (m == NULL)
		abort();
	for (int64_t i = 0; i < (int64_t) w * h; i++)
		m[i] = (int) (rand_r(rng) % 100) >= bg_pct;
	return m;
}

/*
 * Run the hybrid on case c with threads and the fakes (take sizes; the
 * first one's failing range, 0: none, and delay) and compare with the
 * CPU's answer.
 */
static void
CheckHybrid(const EdtCase *c, int threads, int ndev, int take_cols, int take_rows,
			int fail_at, int delay_ms)
{
	int64_t		n = (int64_t) c->w * c->h;
	float	   *dist = malloc((size_t) n * sizeof(float) + 4);
	int64_t    *near = c->want_near ? malloc((size_t) n * sizeof(int64_t) + 8) : NULL;
	FakeEdt		fakes[2];
	PbEdtDevice devs[2];
	PbEdtHybridStats hs;
	PbRun		run = {threads, 0, NULL, NULL};
	int64_t		dev_pixels = 0;

	for (int d = 0; d < ndev; d++)
	{
		fakes[d] = (FakeEdt) {c, 0, d == 0 ? fail_at : 0, d == 0 ? delay_ms : 0, -1};
		devs[d] = (PbEdtDevice) {.columns = FakeColumns, .rows = FakeRows, .ctx = &fakes[d],
			.take_columns = take_cols, .take_rows = take_rows};
	}
	CHECK_INT(PbDistanceHybrid(c->fg, c->w, c->h, c->sy, c->sx, dist, near, &run, devs, ndev, &hs),
			  PB_OK);
	CHECK(memcmp(dist, c->want, (size_t) n * sizeof(float)) == 0);
	if (near)
		CHECK(memcmp(near, c->want_near, (size_t) n * sizeof(int64_t)) == 0);
	for (int d = 0; d < ndev; d++)
		dev_pixels += devs[d].pixels;
	CHECK_INT(dev_pixels + hs.cpu_pixels, 2 * n);	/* each pass once */
	CHECK(devs[0].failed == (fail_at > 0 && fakes[0].calls >= fail_at));
	if (devs[0].failed)
		CHECK(strstr(devs[0].err, "fake device failed") != NULL);
	if (threads == 1 && !devs[0].failed)
		CHECK_INT(hs.cpu_pixels, 0);	/* no CPU thread: the devices did all */
	free(dist);
	free(near);
}

/* Random cases of odd sizes and both spacings, every schedule. */
void
test_edt_hybrid_random(void)
{
	static const int32_t sizes[][2] = {{1, 1}, {1, 57}, {61, 1}, {37, 53}, {130, 90}, {257, 33}};
	static const double sp[][2] = {{1.0, 1.0}, {2.5, 0.5}};
	unsigned	rng = 11;

	for (int k = 0; k < 6; k++)
		for (int s = 0; s < 2; s++)
			for (int bg = 0; bg <= 10; bg += 5)
			{
				int32_t		w = sizes[k][0],
							h = sizes[k][1];
				int64_t		n = (int64_t) w * h;
				uint8_t    *fg = RandomMask(w, h, bg == 0 ? 0 : bg == 5 ? 2 : 30, &rng);
				float	   *want = malloc((size_t) n * sizeof(float));
				int64_t    *want_near = malloc((size_t) n * sizeof(int64_t));
				EdtCase		c = {fg, w, h, sp[s][0], sp[s][1], want, s == 0 ? want_near : NULL};
				PbRun		one = {1, 0, NULL, NULL};

				CHECK_INT(PbDistanceCpu(fg, w, h, c.sy, c.sx, want, s == 0 ? want_near : NULL, &one),
						  PB_OK);
				pb_test_context("%dx%d spacing %d background %d", w, h, s, bg);
				CheckHybrid(&c, 1, 1, 7, 5, 0, 0);
				CheckHybrid(&c, 3, 1, 16, 9, 0, 0);
				CheckHybrid(&c, 8, 2, 1, 1, 0, 0);
				CheckHybrid(&c, 4, 2, 1000, 1000, 0, 0);
				free(fg);
				free(want);
				free(want_near);
			}
}

/*
 * A device failing on its first range, on a later one, in the row pass
 * (after garbage in its rows): the others and its own thread finish, the
 * same answer.
 */
void
test_edt_hybrid_device_fails(void)
{
	int32_t		w = 150,
				h = 110;
	int64_t		n = (int64_t) w * h;
	unsigned	rng = 5;
	uint8_t    *fg = RandomMask(w, h, 3, &rng);
	float	   *want = malloc((size_t) n * sizeof(float));
	int64_t    *want_near = malloc((size_t) n * sizeof(int64_t));
	EdtCase		c = {fg, w, h, 1.0, 1.0, want, want_near};
	PbRun		one = {1, 0, NULL, NULL};

	CHECK_INT(PbDistanceCpu(fg, w, h, 1.0, 1.0, want, want_near, &one), PB_OK);
	/* takes of 20 columns and 20 rows: 8 column ranges at most, then rows */
	for (int fail_at = 1; fail_at <= 12; fail_at++)
		for (int threads = 1; threads <= 4; threads += 3)
		{
			pb_test_context("fail at %d, %d threads", fail_at, threads);
			CheckHybrid(&c, threads, 1, 20, 20, fail_at, 0);
			CheckHybrid(&c, threads, 2, 20, 20, fail_at, 0);
		}
	free(fg);
	free(want);
	free(want_near);
}

/*
 * A slow device holding the last columns while the CPU threads run out of
 * column ranges: the row pass must wait for it (rows read every column).
 */
void
test_edt_hybrid_slow_device(void)
{
	int32_t		w = 400,
				h = 300;
	int64_t		n = (int64_t) w * h;
	unsigned	rng = 9;
	uint8_t    *fg = RandomMask(w, h, 1, &rng);
	float	   *want = malloc((size_t) n * sizeof(float));
	EdtCase		c = {fg, w, h, 1.0, 1.0, want, NULL};
	PbRun		one = {1, 0, NULL, NULL};

	CHECK_INT(PbDistanceCpu(fg, w, h, 1.0, 1.0, want, NULL, &one), PB_OK);
	CheckHybrid(&c, 4, 1, 100, 100, 0, 150);
	free(fg);
	free(want);
}

/* Poll for the stop test: stop at once. */
static int
StopNow(void *arg)
{
	(void) arg;
	return 1;
}

/*
 * A stop through poll, a device stopped by its own poll, and the
 * arguments PbDistanceHybrid refuses.
 */
void
test_edt_hybrid_stop_and_badarg(void)
{
	int32_t		w = 64,
				h = 64;
	unsigned	rng = 3;
	uint8_t    *fg = RandomMask(w, h, 5, &rng);
	float	   *dist = malloc((size_t) w * h * sizeof(float));
	float	   *want = malloc((size_t) w * h * sizeof(float));
	EdtCase		c = {fg, w, h, 1.0, 1.0, want, NULL};
	FakeEdt		f = {&c, 0, 0, 0, -1};
	PbEdtDevice dev = {.columns = FakeColumns, .rows = FakeRows, .ctx = &f, .take_columns = 8,
	.take_rows = 8};
	PbEdtHybridStats hs;
	PbRun		stop = {4, 0, StopNow, NULL};
	PbRun		run = {2, 0, NULL, NULL};

	CHECK_INT(PbDistanceCpu(fg, w, h, 1.0, 1.0, want, NULL, &run), PB_OK);
	CHECK_INT(PbDistanceHybrid(fg, w, h, 1.0, 1.0, dist, NULL, &stop, &dev, 1, &hs),
			  PB_ERR_STOPPED);
	/*
	 * a device stopped by a poll of its own stops the run, in either pass
	 * (alone, it makes 8 column ranges, then 8 row ranges)
	 */
	for (int at = 1; at <= 9; at += 8)
	{
		FakeEdt		g = {&c, 0, at, 0, 1};
		PbEdtDevice gd = dev;
		PbRun		solo = {1, 0, NULL, NULL};

		gd.ctx = &g;
		CHECK_INT(PbDistanceHybrid(fg, w, h, 1.0, 1.0, dist, NULL, &solo, &gd, 1, &hs),
				  PB_ERR_STOPPED);
		CHECK(!gd.failed);
		CHECK_INT(g.calls, at);
	}
	CHECK_INT(PbDistanceHybrid(fg, w, h, 1.0, 1.0, dist, NULL, &run, &dev, 0, &hs), PB_ERR_BADARG);
	CHECK_INT(PbDistanceHybrid(fg, w, h, 1.0, 1.0, dist, NULL, NULL, &dev, 1, &hs), PB_ERR_BADARG);
	CHECK_INT(PbDistanceHybrid(fg, w, h, 0.0, 1.0, dist, NULL, &run, &dev, 1, &hs), PB_ERR_BADARG);
	CHECK_INT(PbDistanceHybrid(fg, PB_EDT_MAX_SIDE + 1, 1, 1.0, 1.0, dist, NULL, &run, &dev, 1, &hs),
			  PB_ERR_BADARG);
	CHECK_INT(PbDistanceHybrid(NULL, w, h, 1.0, 1.0, dist, NULL, &run, &dev, 1, &hs),
			  PB_ERR_BADARG);
	dev.take_rows = 0;
	CHECK_INT(PbDistanceHybrid(fg, w, h, 1.0, 1.0, dist, NULL, &run, &dev, 1, &hs), PB_ERR_BADARG);
	dev.take_rows = 8;
	dev.rows = NULL;
	CHECK_INT(PbDistanceHybrid(fg, w, h, 1.0, 1.0, dist, NULL, &run, &dev, 1, &hs), PB_ERR_BADARG);
	dev.rows = FakeRows;
	/* empty images: nothing to do, nothing called */
	f.calls = 0;
	CHECK_INT(PbDistanceHybrid(fg, 0, 5, 1.0, 1.0, dist, NULL, &run, &dev, 1, &hs), PB_OK);
	CHECK_INT(f.calls, 0);
	/* and after all that, a plain run still gives the answer */
	CHECK_INT(PbDistanceHybrid(fg, w, h, 1.0, 1.0, dist, NULL, &run, &dev, 1, &hs), PB_OK);
	CHECK(memcmp(dist, want, (size_t) w * h * sizeof(float)) == 0);
	free(fg);
	free(dist);
	free(want);
}
