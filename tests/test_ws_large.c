/*
 * test_ws_large.c: the CPU watershed (watershed_cpu.c) against the
 * reference automaton (watershed_ref.c) on images large enough for whole
 * tiles of the default side, with what makes its tile floods work hard:
 * wide plateaus whose distances cross many tiles, few levels (many equal
 * keys in the queue), float heights spread over the whole exponent range
 * (keys that differ in every bit, so that the radix heap's entries move
 * through many buckets), walls, markers, and lines.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "harness.h"
#include "tests.h"
#include "watershed_ref.h"

/*
 * Heights of a w x h image: a few bumps (levels of their distance to the
 * bump's centre, quantized to `levels` steps) over a flat background,
 * so that most pixels lie on plateaus; as 8-bit values, or (type 32BF)
 * as floats of magnitude 2^(3 * level - 60) with alternating signs per
 * bump, NaN now and then.
 */
static void *
BumpImage(Rng *r, int w, int h, PbPixType type, int levels)
{
	int			bumps = 3 + (int) RngRange(r, 0, 12);
	int		   *bx = WsTestAlloc(sizeof(int) * bumps),
			   *by = WsTestAlloc(sizeof(int) * bumps),
			   *br = WsTestAlloc(sizeof(int) * bumps);
	void	   *d = WsTestAlloc((size_t) w * h * 4);

	for (int b = 0; b < bumps; b++)
	{
		bx[b] = (int) RngRange(r, 0, w - 1);
		by[b] = (int) RngRange(r, 0, h - 1);
		br[b] = (int) RngRange(r, 8, 60);
	}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
		{
			int			lv = levels - 1,
						sign = 1;

			for (int b = 0; b < bumps; b++)
			{
				double		dist = hypot(x - bx[b], y - by[b]);
				int			q = (int) (dist * levels / br[b]);

				if (q < lv)
				{
					lv = q;
					sign = b % 2 ? -1 : 1;
				}
			}
			if (type == PB_PIX_32BF)
				((float *) d)[y * w + x] = RngRange(r, 0, 499) == 0 ? NAN :
					(float) (sign * ldexp(1.0, 3 * lv - 60));
			else
				((uint8_t *) d)[y * w + x] = (uint8_t) lv;
		}
	free(bx);
	free(by);
	free(br);
	return d;
}

/* The CPU version on several tile sides and thread counts against the reference. */
static void
LargeCompare(const PbWatershedSpec *s)
{
	static const int tiles[] = {0, 64, 29};
	static const int threads[] = {2, 3, 1};

	WsCheckCpuAgainstRef(s, tiles, threads, 3);
}

/*
 * 8-bit and float bump images of 300 x 270 (two default tiles across):
 * marker-less and with markers (a few random pixels and a border strip),
 * with and without walls and lines, 4- and 8-connected.
 */
void
test_ws_large_plateaus(void)
{
	Rng			r = {777};
	int			w = 300,
				h = 270;

	for (int iter = 0; iter < 8; iter++)
	{
		PbPixType	type = iter % 2 ? PB_PIX_32BF : PB_PIX_8BUI;
		int			levels = 2 + (int) RngRange(&r, 0, 30);
		void	   *img = BumpImage(&r, w, h, type, levels);
		uint8_t    *wall = NULL;
		uint32_t   *markers = NULL;
		PbWatershedSpec s;

		if (iter % 4 >= 2)
		{
			wall = WsTestAlloc((size_t) w * h);
			for (int i = 0; i < w * h; i++)
				wall[i] = RngRange(&r, 0, 40) == 0 || (i % w == w / 2 && i / w % 50 < 40);
		}
		if (iter % 8 >= 4)
		{
			markers = WsTestAlloc((size_t) w * h * 4);
			for (int i = 0; i < w * h; i++)
				if (RngRange(&r, 0, 2000) == 0)
					markers[i] = 1 + (uint32_t) RngRange(&r, 0, 20);
			for (int x = 0; x < w; x++)
				markers[x] = 99;
		}
		s = WsTestSpec(w, h, type, img, wall, markers, iter % 3 == 0 ? 4 : 8, iter % 3 == 1);
		pb_test_context("iteration %d: type %d levels %d conn %d walls %d markers %d lines %d",
						iter, (int) type, levels, s.connectivity, wall != NULL,
						markers != NULL, s.lines);
		LargeCompare(&s);
		free(img);
		free(wall);
		free(markers);
	}
}
