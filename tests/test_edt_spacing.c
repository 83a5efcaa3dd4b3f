/*
 * test_edt_spacing.c: the distance transform (edt_cpu.c) with spacing far
 * from 1, where squares of spaced differences overflow or underflow a
 * double: huge and tiny equal steps, steps hundreds of binary orders apart.
 * The truth is a brute force in long double, whose wider exponent holds
 * every such square: per pixel the smallest ((dr sy)^2 + (dc sx)^2) over
 * the background, its square root cast to float.  Background pixels must
 * get 0 (as SciPy gives them), every distance the float of the true one,
 * and the nearest pixel a background pixel at the true smallest distance.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "harness.h"

_Static_assert(LDBL_MAX_EXP > DBL_MAX_EXP && LDBL_MIN_EXP < DBL_MIN_EXP,
			   "the oracle needs a long double wider than double");

/* malloc that aborts the test program on failure. */
static void *
XAlloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

/*
 * The true squared distance from (y, x) to (by, bx) in long double; with
 * equal steps in units of the step, so that ties (3^2 + 4^2 = 5^2) are
 * exact.
 */
static long double
TrueSq(int64_t y, int64_t x, int64_t by, int64_t bx, double sy, double sx)
{
	long double dy = (long double) (by - y) * (sy == sx ? 1 : sy);
	long double dx = (long double) (bx - x) * (sy == sx ? 1 : sx);

	return dy * dy + dx * dx;
}

/*
 * Run PbDistanceCpu (threads 1 and 3) on the w x h mask fg and compare
 * every pixel with the long double brute force.
 */
static void
CheckTrue(const uint8_t *fg, int w, int h, double sy, double sx)
{
	int64_t		n = (int64_t) w * h;
	float	   *dist = XAlloc((size_t) n * sizeof(float));
	int64_t    *near = XAlloc((size_t) n * sizeof(int64_t));

	for (int threads = 1; threads <= 3; threads += 2)
	{
		PbRun run = {threads, 0, NULL, NULL};

		CHECK_INT(PbDistanceCpu(fg, w, h, sy, sx, dist, near, &run), PB_OK);
		for (int64_t i = 0; i < n && pb_test_failures() < 5; i++)
		{
			long double best = INFINITY;
			float		want;

			for (int64_t j = 0; j < n; j++)
				if (fg[j] == 0 && TrueSq(i / w, i % w, j / w, j % w, sy, sx) < best)
					best = TrueSq(i / w, i % w, j / w, j % w, sy, sx);
			want = (float) (sqrtl(best) * (sy == sx ? sy : 1));
			if (fg[i] == 0)
				CHECK(dist[i] == 0.0f);
			CHECK(memcmp(&dist[i], &want, sizeof(float)) == 0);
			CHECK(near[i] >= 0 && near[i] < n);
			if (near[i] < 0 || near[i] >= n)
				continue;
			CHECK_INT(fg[near[i]], 0);
			CHECK(TrueSq(i / w, i % w, near[i] / w, near[i] % w, sy, sx) == best);
		}
	}
	free(dist);
	free(near);
}

/*
 * Spacings whose squares leave the double range, on random masks with
 * background: equal steps from 2^-600 to 1.7e308 (distances 0 or past the
 * float range, except background pixels: 0, not sqrt(0 * inf)), and
 * steps up to ~2^1000 apart, where the distances along the smaller step
 * are finite floats (dc * sx with sy = 1e200) or those along the larger
 * (dr * 2^100 with sx = 2^-450).
 */
void
test_edt_extreme_spacing(void)
{
	static const double steps[][2] = {
		{1e155, 1e155}, {1e200, 1e200}, {1.7e308, 1.7e308}, {0x1p-600, 0x1p-600},
		{1e-300, 1e-300}, {1e200, 1.0}, {1.0, 1e200}, {1e200, 0.75}, {1e300, 1e-10},
		{0x1p600, 0x1p100}, {0x1p100, 0x1p-450}, {0x1p-450, 0x1p100}, {1e-300, 1e10},
		{0x1p490, 0x1p-10}, {0x1p-490, 0x1p-470}
	};
	Rng			r = {1155};

	for (int iter = 0; iter < 40; iter++)
	{
		int			w = (int) RngRange(&r, 1, 23);
		int			h = (int) RngRange(&r, 1, 23);
		int64_t		n = (int64_t) w * h;
		uint8_t    *fg = XAlloc((size_t) n);
		double		pbg = iter % 2 ? 0.05 : 0.3;

		for (int64_t i = 0; i < n; i++)
			fg[i] = RngDouble(&r) < pbg ? 0 : 1;
		fg[RngRange(&r, 0, n - 1)] = 0;
		for (int s = 0; s < (int) (sizeof(steps) / sizeof(steps[0])); s++)
		{
			pb_test_context("iter %d %dx%d spacing (%g, %g)", iter, w, h,
							steps[s][0], steps[s][1]);
			CheckTrue(fg, w, h, steps[s][0], steps[s][1]);
		}
		free(fg);
		if (pb_test_failures())
			return;
	}
}

/*
 * The row pass's case that went wrong: on the last row the envelope holds
 * two sites of other rows (squares past the double range with sy = 1e200)
 * before the one of the row itself; a pixel of that row is at a finite
 * distance along it, and the background pixel itself at 0.
 */
void
test_edt_huge_step_row(void)
{
	static const uint8_t fg[3 * 6] = {
		0, 1, 1, 1, 1, 1,
		1, 0, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 0
	};
	float		dist[18];
	int64_t		near[18];
	PbRun run = {1, 0, NULL, NULL};

	CHECK_INT(PbDistanceCpu(fg, 6, 3, 1e200, 1.0, dist, near, &run), PB_OK);
	for (int x = 0; x < 6; x++)
	{
		CHECK(dist[12 + x] == (float) (5 - x));
		CHECK_INT(near[12 + x], 17);
	}
	CHECK(dist[0] == 0.0f && dist[5] == 5.0f && dist[6] == 1.0f && dist[11] == 4.0f);
}
