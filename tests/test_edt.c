/*
 * test_edt.c: the exact Euclidean distance transform (edt_cpu.c) against a
 * brute force written here: for each foreground pixel the minimum over all
 * background pixels of dy * dy + dx * dx in double (dy, dx scaled by the
 * spacing, as SciPy computes them), square-rooted and cast to float.  The
 * distances must be bit-identical, the reported nearest pixel must be
 * background and at exactly that distance, and with unit spacing it must
 * be the one SciPy's feature transform picks (smallest column, then
 * smallest row, among the nearest).  Also: degenerate images, threads,
 * stopping through poll, and argument checks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "harness.h"

/* The spacings (sy, sx) every comparison runs with. */
static const double spacings[][2] = {{1.0, 1.0}, {2.5, 0.5}, {0.3, 1.7}};

#define NSPACINGS ((int) (sizeof(spacings) / sizeof(spacings[0])))

/* malloc that aborts the test program on failure. */
static void *
XMalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

/* SciPy's squared distance from (y, x) to (by, bx): dy^2 + dx^2 in double. */
static double
SqDist(int64_t y, int64_t x, int64_t by, int64_t bx, double sy, double sx)
{
	double		dy = (double) (by - y) * sy;
	double		dx = (double) (bx - x) * sx;

	return dy * dy + dx * dx;
}

/*
 * Brute force: per pixel the smallest squared distance over all background
 * pixels (want2) and the first minimizer in (column, row) order (want_near,
 * -1 without background).  With no background, SciPy's distance to the
 * virtual feature (row -1, column 0).
 */
static void
BruteEdt(const uint8_t *fg, int w, int h, double sy, double sx,
		 double *want2, int64_t *want_near)
{
	int64_t		n = (int64_t) w * h;
	int64_t    *bg = XMalloc((size_t) n * sizeof(int64_t));
	int64_t		nbg = 0;

	/* column-major order, so the first minimizer is the smallest (x, y) */
	for (int x = 0; x < w; x++)
		for (int y = 0; y < h; y++)
			if (fg[(int64_t) y * w + x] == 0)
				bg[nbg++] = (int64_t) y * w + x;
	for (int64_t i = 0; i < n; i++)
	{
		int64_t		y = i / w,
					x = i % w;
		double		best = INFINITY;
		int64_t		bi = -1;

		if (nbg == 0)
			best = SqDist(y, x, -1, 0, sy, sx);
		for (int64_t j = 0; j < nbg; j++)
		{
			double		d2 = SqDist(y, x, bg[j] / w, bg[j] % w, sy, sx);

			if (d2 < best)
			{
				best = d2;
				bi = bg[j];
			}
		}
		want2[i] = best;
		want_near[i] = bi;
	}
	free(bg);
}

/*
 * Run PbDistanceCpu on fg with the given threads and compare with the
 * brute force: distances bit-identical, nearest a background pixel at that
 * exact distance (SciPy's choice with unit spacing), the same distances
 * without nearest.
 */
static void
CheckAgainstBrute(const uint8_t *fg, int w, int h, double sy, double sx,
				  int threads)
{
	int64_t		n = (int64_t) w * h;
	float	   *dist = XMalloc((size_t) n * sizeof(float));
	float	   *dist2 = XMalloc((size_t) n * sizeof(float));
	int64_t    *near = XMalloc((size_t) n * sizeof(int64_t));
	double	   *want2 = XMalloc((size_t) n * sizeof(double));
	int64_t    *want_near = XMalloc((size_t) n * sizeof(int64_t));
	PbRun run = {threads, 0, NULL, NULL};
	int			unit = sy == 1.0 && sx == 1.0;

	BruteEdt(fg, w, h, sy, sx, want2, want_near);
	CHECK_INT(PbDistanceCpu(fg, w, h, sy, sx, dist, near, &run), PB_OK);
	CHECK_INT(PbDistanceCpu(fg, w, h, sy, sx, dist2, NULL, &run), PB_OK);
	for (int64_t i = 0; i < n && pb_test_failures() < 5; i++)
	{
		float		want = (float) sqrt(want2[i]);
		int64_t		k = near[i];

		CHECK(memcmp(&dist[i], &want, sizeof(float)) == 0);
		CHECK(memcmp(&dist2[i], &dist[i], sizeof(float)) == 0);
		if (want_near[i] < 0)
		{
			CHECK_INT(k, -1);
			continue;
		}
		if (fg[i] == 0)
			CHECK_INT(k, i);
		CHECK(k >= 0 && k < n);
		if (k < 0 || k >= n)
			continue;
		CHECK_INT(fg[k], 0);
		CHECK_DBL_EQ(SqDist(i / w, i % w, k / w, k % w, sy, sx), want2[i]);
		if (unit)
			CHECK_INT(k, want_near[i]);
	}
	free(dist);
	free(dist2);
	free(near);
	free(want2);
	free(want_near);
}

/* A w x h mask whose pixels are background with probability pbg. */
static uint8_t *
RandomMask(Rng *r, int w, int h, double pbg)
{
	int64_t		n = (int64_t) w * h;
	uint8_t    *fg = XMalloc((size_t) n);

	for (int64_t i = 0; i < n; i++)
		fg[i] = RngDouble(r) < pbg ? 0 : (uint8_t) RngRange(r, 1, 255);
	return fg;
}

/* Random small images, densities from very sparse to very dense. */
void
test_edt_random_vs_brute(void)
{
	static const double pbgs[] = {0.0005, 0.005, 0.03, 0.1, 0.3, 0.6, 0.9, 0.99};
	Rng			r = {20240611};

	for (int iter = 0; iter < 400; iter++)
	{
		int			w = (int) RngRange(&r, 1, 29);
		int			h = (int) RngRange(&r, 1, 29);
		double		pbg = pbgs[iter % 8];
		uint8_t    *fg = RandomMask(&r, w, h, pbg);

		for (int s = 0; s < NSPACINGS; s++)
		{
			pb_test_context("iter %d %dx%d pbg %g spacing (%g, %g)", iter, w, h,
							pbg, spacings[s][0], spacings[s][1]);
			CheckAgainstBrute(fg, w, h, spacings[s][0], spacings[s][1], 1);
		}
		free(fg);
		if (pb_test_failures())
			return;
	}
}

/* 1x1, 1xN, Nx1 and odd sizes, every density. */
void
test_edt_line_shapes(void)
{
	static const int sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {1, 97}, {97, 1},
	{1, 300}, {300, 1}, {3, 131}, {131, 3}, {65, 67}};
	Rng			r = {77};

	for (int z = 0; z < (int) (sizeof(sizes) / sizeof(sizes[0])); z++)
		for (int rep = 0; rep < 6; rep++)
		{
			int			w = sizes[z][0],
						h = sizes[z][1];
			double		pbg = rep == 0 ? 0.0 : 1.0 / (1 << (2 * rep - 1));
			uint8_t    *fg = RandomMask(&r, w, h, pbg);

			for (int s = 0; s < NSPACINGS; s++)
			{
				pb_test_context("%dx%d pbg %g spacing (%g, %g)", w, h, pbg,
								spacings[s][0], spacings[s][1]);
				CheckAgainstBrute(fg, w, h, spacings[s][0], spacings[s][1], 1);
			}
			free(fg);
		}
}

/* Larger sparse images (the brute force costs pixels x background). */
void
test_edt_sparse_large(void)
{
	Rng			r = {4242};

	for (int iter = 0; iter < 6; iter++)
	{
		int			w = (int) RngRange(&r, 200, 520);
		int			h = (int) RngRange(&r, 150, 400);
		int64_t		n = (int64_t) w * h;
		uint8_t    *fg = XMalloc((size_t) n);
		int			npts = (int) RngRange(&r, 1, 24);

		memset(fg, 1, (size_t) n);
		for (int p = 0; p < npts; p++)
			fg[RngRange(&r, 0, n - 1)] = 0;
		for (int s = 0; s < NSPACINGS; s++)
		{
			pb_test_context("%dx%d %d points spacing (%g, %g)", w, h, npts,
							spacings[s][0], spacings[s][1]);
			CheckAgainstBrute(fg, w, h, spacings[s][0], spacings[s][1], 1 + iter % 3);
		}
		free(fg);
	}
}

/*
 * The largest side, PB_EDT_MAX_SIDE, both ways (strips two pixels thick):
 * distances along the whole side, every spacing, against the brute force.
 */
void
test_edt_largest_side(void)
{
	Rng			r = {1717};

	for (int iter = 0; iter < 2; iter++)
	{
		int			w = iter == 0 ? PB_EDT_MAX_SIDE : 2;
		int			h = iter == 0 ? 2 : PB_EDT_MAX_SIDE;
		int64_t		n = (int64_t) w * h;
		uint8_t    *fg = XMalloc((size_t) n);

		memset(fg, 1, (size_t) n);
		fg[0] = 0;				/* one corner: distances up to the whole side */
		for (int p = 0; p < 3; p++)
			fg[RngRange(&r, n / 2, n - 1)] = 0;
		for (int s = 0; s < NSPACINGS; s++)
		{
			pb_test_context("%dx%d spacing (%g, %g)", w, h, spacings[s][0], spacings[s][1]);
			CheckAgainstBrute(fg, w, h, spacings[s][0], spacings[s][1], 2);
		}
		free(fg);
	}
}

/* All background: zero everywhere, every pixel its own nearest. */
void
test_edt_all_background(void)
{
	int			w = 37,
				h = 23;
	uint8_t    *fg = calloc((size_t) w * h, 1);
	float	   *dist = XMalloc((size_t) w * h * sizeof(float));
	int64_t    *near = XMalloc((size_t) w * h * sizeof(int64_t));
	PbRun run = {3, 0, NULL, NULL};

	if (fg == NULL)
		abort();
	for (int s = 0; s < NSPACINGS; s++)
	{
		CHECK_INT(PbDistanceCpu(fg, w, h, spacings[s][0], spacings[s][1], dist,
								near, &run), PB_OK);
		for (int64_t i = 0; i < (int64_t) w * h; i++)
		{
			CHECK(dist[i] == 0.0f);
			CHECK_INT(near[i], i);
		}
	}
	free(fg);
	free(dist);
	free(near);
}

/*
 * All foreground: SciPy's distances to the virtual feature (row -1,
 * column 0), sqrt(((y + 1) sy)^2 + (x sx)^2), and nearest -1.
 */
void
test_edt_all_foreground(void)
{
	int			w = 41,
				h = 17;
	uint8_t    *fg = XMalloc((size_t) w * h);
	float	   *dist = XMalloc((size_t) w * h * sizeof(float));
	int64_t    *near = XMalloc((size_t) w * h * sizeof(int64_t));
	PbRun run = {2, 0, NULL, NULL};

	memset(fg, 7, (size_t) w * h);
	for (int s = 0; s < NSPACINGS; s++)
	{
		double		sy = spacings[s][0],
					sx = spacings[s][1];

		CHECK_INT(PbDistanceCpu(fg, w, h, sy, sx, dist, near, &run), PB_OK);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++)
			{
				float		want = (float) sqrt(SqDist(y, x, -1, 0, sy, sx));

				CHECK(dist[y * w + x] == want);
				CHECK_INT(near[y * w + x], -1);
			}
	}
	/* 1x1: the spacing of the row */
	CHECK_INT(PbDistanceCpu(fg, 1, 1, 2.5, 0.5, dist, near, &run), PB_OK);
	CHECK(dist[0] == 2.5f);
	free(fg);
	free(dist);
	free(near);
}

/* A single background pixel in each corner: the distance to it, everywhere. */
void
test_edt_corner_pixel(void)
{
	int			w = 211,
				h = 157;
	int64_t		n = (int64_t) w * h;
	uint8_t    *fg = XMalloc((size_t) n);
	float	   *dist = XMalloc((size_t) n * sizeof(float));
	int64_t    *near = XMalloc((size_t) n * sizeof(int64_t));
	int64_t		corners[4] = {0, w - 1, n - w, n - 1};
	PbRun run = {2, 0, NULL, NULL};

	for (int c = 0; c < 4; c++)
		for (int s = 0; s < NSPACINGS; s++)
		{
			double		sy = spacings[s][0],
						sx = spacings[s][1];
			int64_t		k = corners[c];

			memset(fg, 1, (size_t) n);
			fg[k] = 0;
			pb_test_context("corner %d spacing (%g, %g)", c, sy, sx);
			CHECK_INT(PbDistanceCpu(fg, w, h, sy, sx, dist, near, &run), PB_OK);
			for (int64_t i = 0; i < n && pb_test_failures() < 5; i++)
			{
				float		want = (float) sqrt(SqDist(i / w, i % w, k / w, k % w, sy, sx));

				CHECK(dist[i] == want);
				CHECK_INT(near[i], k);
			}
		}
	free(fg);
	free(dist);
	free(near);
}

/* Equal spacing s scales unit distances by s exactly when s is a power of 2. */
void
test_edt_power_of_two_spacing(void)
{
	Rng			r = {9};
	int			w = 123,
				h = 77;
	uint8_t    *fg = RandomMask(&r, w, h, 0.02);
	float	   *d1 = XMalloc((size_t) w * h * sizeof(float));
	float	   *d4 = XMalloc((size_t) w * h * sizeof(float));
	int64_t    *n1 = XMalloc((size_t) w * h * sizeof(int64_t));
	int64_t    *n4 = XMalloc((size_t) w * h * sizeof(int64_t));
	PbRun run = {1, 0, NULL, NULL};

	CHECK_INT(PbDistanceCpu(fg, w, h, 1.0, 1.0, d1, n1, &run), PB_OK);
	CHECK_INT(PbDistanceCpu(fg, w, h, 4.0, 4.0, d4, n4, &run), PB_OK);
	for (int64_t i = 0; i < (int64_t) w * h; i++)
	{
		CHECK(d4[i] == 4.0f * d1[i]);
		CHECK_INT(n4[i], n1[i]);
	}
	free(fg);
	free(d1);
	free(d4);
	free(n1);
	free(n4);
}

/* Threads 2..8 give exactly what one thread gives, distances and nearest. */
void
test_edt_threads_agree(void)
{
	static const int sizes[][2] = {{301, 203}, {2000, 37}, {37, 2000}, {129, 1}};
	Rng			r = {31337};

	for (int z = 0; z < (int) (sizeof(sizes) / sizeof(sizes[0])); z++)
	{
		int			w = sizes[z][0],
					h = sizes[z][1];
		int64_t		n = (int64_t) w * h;
		uint8_t    *fg = RandomMask(&r, w, h, z == 1 ? 0.001 : 0.05);
		float	   *d1 = XMalloc((size_t) n * sizeof(float));
		float	   *dt = XMalloc((size_t) n * sizeof(float));
		int64_t    *n1 = XMalloc((size_t) n * sizeof(int64_t));
		int64_t    *nt = XMalloc((size_t) n * sizeof(int64_t));

		for (int s = 0; s < NSPACINGS; s++)
		{
			PbRun run = {1, 0, NULL, NULL};

			CHECK_INT(PbDistanceCpu(fg, w, h, spacings[s][0], spacings[s][1],
									d1, n1, &run), PB_OK);
			for (int t = 2; t <= 8; t++)
			{
				pb_test_context("%dx%d spacing %d threads %d", w, h, s, t);
				run.threads = t;
				CHECK_INT(PbDistanceCpu(fg, w, h, spacings[s][0], spacings[s][1],
										dt, nt, &run), PB_OK);
				CHECK(memcmp(d1, dt, (size_t) n * sizeof(float)) == 0);
				CHECK(memcmp(n1, nt, (size_t) n * sizeof(int64_t)) == 0);
			}
		}
		free(fg);
		free(d1);
		free(dt);
		free(n1);
		free(nt);
	}
}

/* A poll that asks to stop once it has been called stop_at times. */
typedef struct PollCount
{
	int			calls;
	int			stop_at;		/* 0: never stop */
} PollCount;

/* Count the call; nonzero from the stop_at-th call on. */
static int
CountingPoll(void *arg)
{
	PollCount  *p = arg;

	p->calls++;
	return p->stop_at > 0 && p->calls >= p->stop_at;
}

/* A poll asking to stop gives PB_ERR_STOPPED promptly, in either pass. */
void
test_edt_poll_stop(void)
{
	Rng			r = {5};
	int			w = 700,
				h = 600;
	int64_t		n = (int64_t) w * h;
	uint8_t    *fg = RandomMask(&r, w, h, 0.01);
	float	   *dist = XMalloc((size_t) n * sizeof(float));
	float	   *ref = XMalloc((size_t) n * sizeof(float));
	PbRun one = {1, 0, NULL, NULL};

	CHECK_INT(PbDistanceCpu(fg, w, h, 0.3, 1.7, ref, NULL, &one), PB_OK);
	for (int threads = 1; threads <= 3; threads++)
	{
		PollCount	never = {0, 0};
		PbRun run = {threads, 0, CountingPoll, &never};
		/*
		 * One thread polls 12 times in the column pass (11 items) and 8 in
		 * the row pass (7 items of 93 rows); with more threads the caller
		 * may poll as few as once per pass.
		 */
		int			stops[] = {1, 2, 6, 13, 15};
		int			nstops = threads == 1 ? 5 : 2;

		pb_test_context("threads %d", threads);
		CHECK_INT(PbDistanceCpu(fg, w, h, 0.3, 1.7, dist, NULL, &run), PB_OK);
		CHECK(never.calls > 0);
		CHECK(memcmp(dist, ref, (size_t) n * sizeof(float)) == 0);
		for (int k = 0; k < nstops; k++)
		{
			PollCount	pc = {0, stops[k]};

			run.poll_arg = &pc;
			pb_test_context("threads %d stop at poll %d", threads, stops[k]);
			CHECK_INT(PbDistanceCpu(fg, w, h, 0.3, 1.7, dist, NULL, &run),
					  PB_ERR_STOPPED);
			CHECK_INT(pc.calls, stops[k]);
		}
	}
	free(fg);
	free(dist);
	free(ref);
}

/* Invalid sizes, spacing and buffers are PB_ERR_BADARG; empty images are fine. */
void
test_edt_badarg(void)
{
	uint8_t		fg[4] = {0, 1, 1, 0};
	float		dist[4];
	int64_t		near[4];
	PbRun run = {1, 0, NULL, NULL};

	CHECK_INT(PbDistanceCpu(fg, -1, 2, 1, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, -1, 1, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, PB_EDT_MAX_SIDE + 1, 1, 1, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 1, PB_EDT_MAX_SIDE + 1, 1, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, 0, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, 1, 0, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, -1, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, 1, -2.5, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, NAN, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, 1, NAN, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, INFINITY, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, 1, INFINITY, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(NULL, 2, 2, 1, 1, dist, near, &run), PB_ERR_BADARG);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, 1, 1, NULL, near, &run), PB_ERR_BADARG);
	/* empty images need no buffers; nearest and run may be NULL */
	CHECK_INT(PbDistanceCpu(NULL, 0, 5, 1, 1, NULL, NULL, &run), PB_OK);
	CHECK_INT(PbDistanceCpu(NULL, 5, 0, 1, 1, NULL, NULL, &run), PB_OK);
	CHECK_INT(PbDistanceCpu(fg, 2, 2, 1, 1, dist, NULL, NULL), PB_OK);
	CHECK(dist[0] == 0.0f && dist[1] == 1.0f && dist[2] == 1.0f && dist[3] == 0.0f);
}
