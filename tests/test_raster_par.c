/*
 * test_raster_par.c: the whole-image passes on threads (raster_par.c)
 * give the serial functions' bytes: band reads with nodata and NaN, band
 * writes, markers' labels (the first negative pixel wherever the slices
 * end), mask walls, foregrounds and fill-holes markers, on images of
 * several slices and an odd size, with 1 to 5 threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "harness.h"

#define PAR_W 1531
#define PAR_H 1789				/* 2.7M pixels: three slices and a part */

/* Random bytes of n pixels of bytes each; some zeros, NaN among floats. */
static uint8_t *
RandomPixels(Rng *r, int64_t n, int wkb_type)
{
	int			bytes = PbWkbPixBytes(wkb_type);
	uint8_t    *p = malloc((size_t) n * bytes);

	for (int64_t i = 0; i < n; i++)
	{
		uint32_t	v = RngRange(r, 0, 9) == 0 ? 0 : (uint32_t) RngNext(r);

		if (wkb_type == PB_WKB_32BF)
		{
			float		f = RngRange(r, 0, 99) == 0 ? NAN : (float) (v % 1000) - 3.0f;

			memcpy(p + i * 4, &f, 4);
		}
		else if (wkb_type == PB_WKB_8BUI)
			p[i] = (uint8_t) (v % 4);
		else
			memcpy(p + i * bytes, &v, bytes);
	}
	return p;
}

/* A band of pixels p (native order), nodata value nd. */
static PbRasterBand
Band(int wkb_type, const uint8_t *p, bool has_nodata, double nd)
{
	PbRasterBand b = {wkb_type, false, has_nodata, false, nd, p, false};

	return b;
}

/* Reads and writes of 8BUI, 16BUI and 32BF bands: the serial bytes. */
void
test_raster_par_read_write(void)
{
	Rng			r = {31};
	int64_t		n = (int64_t) PAR_W * PAR_H;
	int			types[3] = {PB_WKB_8BUI, PB_WKB_16BUI, PB_WKB_32BF};

	for (int t = 0; t < 3; t++)
		for (int threads = 1; threads <= 5; threads += 2)
		{
			int			bytes = PbWkbPixBytes(types[t]);
			uint8_t    *px = RandomPixels(&r, n, types[t]);
			PbRasterBand b = Band(types[t], px, true, 0.0);
			uint8_t    *a = malloc((size_t) n * bytes),
					   *c = malloc((size_t) n * bytes),
					   *na = malloc((size_t) n),
					   *nc = malloc((size_t) n),
					   *wa = malloc((size_t) n * bytes + 8),
					   *wc = malloc((size_t) n * bytes + 8);
			PbRun		run = {threads, 0, NULL, NULL};

			pb_test_context("type %d, %d threads", types[t], threads);
			CHECK_INT(PbRasterReadBandPar(&run, &b, n, c, nc), PbRasterReadBand(&b, n, a, na));
			CHECK(memcmp(a, c, (size_t) n * bytes) == 0);
			CHECK(memcmp(na, nc, (size_t) n) == 0);
			CHECK(PbRasterWriteBandPar(&run, wc, types[t], true, 7, a, n) ==
				  wc + 1 + bytes + (size_t) n * bytes);
			PbRasterWriteBand(wa, types[t], true, 7, a, n);
			CHECK(memcmp(wa, wc, 1 + bytes + (size_t) n * bytes) == 0);
			/* no pixels: zeros */
			PbRasterWriteBandPar(&run, wc, types[t], false, 0, NULL, n);
			PbRasterWriteBand(wa, types[t], false, 0, NULL, n);
			CHECK(memcmp(wa, wc, 1 + bytes + (size_t) n * bytes) == 0);
			free(px);
			free(a);
			free(c);
			free(na);
			free(nc);
			free(wa);
			free(wc);
		}
}

/*
 * Markers' labels and mask walls: the serial values; the first negative
 * marker is found when negatives lie in several slices, and at the very
 * last pixel.
 */
void
test_raster_par_markers_walls(void)
{
	Rng			r = {37};
	int64_t		n = (int64_t) PAR_W * PAR_H;
	uint8_t    *px = RandomPixels(&r, n, PB_WKB_32BF);
	float	   *f = (float *) px;
	uint32_t   *la = malloc(sizeof(uint32_t) * n),
			   *lc = malloc(sizeof(uint32_t) * n);
	uint8_t    *wa = calloc(n, 1),
			   *wc = calloc(n, 1);
	PbRasterBand b;
	PbRun		run = {4, 0, NULL, NULL};
	double		va,
				vc;
	int64_t		at[3] = {n - 1, 2100000, 1500000};	/* each before the last */

	for (int64_t i = 0; i < n; i++)
		f[i] = isnan(f[i]) ? f[i] : fabsf(f[i]);
	b = Band(PB_WKB_32BF, px, true, 5.0);
	CHECK_INT(PbWsMarkerLabelsPar(&run, &b, n, lc, &vc), -1);
	CHECK_INT(PbWsMarkerLabels(&b, n, la, &va), -1);
	CHECK(memcmp(la, lc, sizeof(uint32_t) * n) == 0);
	for (int k = 0; k < 3; k++)
	{
		f[at[k]] = -2.0f - k;
		pb_test_context("negative %d", k);
		CHECK_INT(PbWsMarkerLabelsPar(&run, &b, n, lc, &vc), at[k]);
		CHECK_DBL_EQ(vc, -2.0 - k);
	}
	PbWsMaskWallsPar(&run, &b, n, wc);
	PbWsMaskWalls(&b, n, wa);
	CHECK(memcmp(wa, wc, n) == 0);
	free(px);
	free(la);
	free(lc);
	free(wa);
	free(wc);
}

/* Foregrounds and fill-holes markers of 8BUI, 16BUI and 32BF images. */
void
test_raster_par_foreground_marker(void)
{
	Rng			r = {41};
	PbPixType	types[3] = {PB_PIX_8BUI, PB_PIX_16BUI, PB_PIX_32BF};
	int			wkb[3] = {PB_WKB_8BUI, PB_WKB_16BUI, PB_WKB_32BF};
	int32_t		sizes[3][2] = {{PAR_W, PAR_H}, {1, 3000000}, {3000000, 1}};

	for (int t = 0; t < 3; t++)
		for (int s = 0; s < 3; s++)
		{
			int64_t		n = (int64_t) sizes[s][0] * sizes[s][1];
			size_t		ps = PbPixSize(types[t]);
			uint8_t    *px = RandomPixels(&r, n, wkb[t]),
					   *nd = malloc(n),
					   *fa = malloc(n),
					   *fc = malloc(n);
			PbImage		im = {sizes[s][0], sizes[s][1], types[t], px};
			PbImage		ma = {sizes[s][0], sizes[s][1], types[t], malloc(n * ps)},
						mc = {sizes[s][0], sizes[s][1], types[t], malloc(n * ps)};
			PbRun		run = {3, 0, NULL, NULL};

			for (int64_t i = 0; i < n; i++)
				nd[i] = RngRange(&r, 0, 20) == 0;
			pb_test_context("type %d, %d x %d", types[t], sizes[s][0], sizes[s][1]);
			PbDistanceForeground(&im, nd, fa);
			PbDistanceForegroundPar(&run, &im, nd, fc);
			CHECK(memcmp(fa, fc, n) == 0);
			PbFillHolesMarker(&im, &ma);
			PbFillHolesMarkerPar(&run, &im, &mc);
			CHECK(memcmp(ma.data, mc.data, n * ps) == 0);
			free(px);
			free(nd);
			free(fa);
			free(fc);
			free(ma.data);
			free(mc.data);
		}
}

/*
 * Markers clipped to masks (dilation and erosion, three pixel types) and
 * buffers zeroed: the serial bytes; mismatched types refused as before.
 */
void
test_raster_par_clip_zero(void)
{
	Rng			r = {43};
	int64_t		n = (int64_t) PAR_W * PAR_H;
	PbPixType	types[3] = {PB_PIX_8BUI, PB_PIX_16BUI, PB_PIX_32BF};
	int			wkb[3] = {PB_WKB_8BUI, PB_WKB_16BUI, PB_WKB_32BF};
	PbRun		run = {4, 0, NULL, NULL};
	uint8_t    *z = malloc(n + 5);
	PbImage		a,
				b;

	for (int t = 0; t < 3; t++)
		for (int op = 0; op < 2; op++)
		{
			size_t		ps = PbPixSize(types[t]);
			uint8_t    *mk = RandomPixels(&r, n, wkb[t]),
					   *mask = RandomPixels(&r, n, wkb[t]),
					   *copy = malloc(n * ps);
			PbImage		m1 = {PAR_W, PAR_H, types[t], mk},
						m2 = {PAR_W, PAR_H, types[t], copy},
						k = {PAR_W, PAR_H, types[t], mask};
			PbReconOp	rop = op ? PB_RECON_ERODE : PB_RECON_DILATE;

			if (types[t] == PB_PIX_32BF)	/* the clip's inputs have no NaN */
				for (int64_t i = 0; i < n; i++)
				{
					if (isnan(((float *) mk)[i]))
						((float *) mk)[i] = 1.0f;
					if (isnan(((float *) mask)[i]))
						((float *) mask)[i] = 2.0f;
				}
			memcpy(copy, mk, n * ps);
			pb_test_context("type %d, op %d", types[t], op);
			CHECK(PbReconClip(&m1, &k, rop) == PB_OK);
			CHECK(PbReconClipPar(&run, &m2, &k, rop) == PB_OK);
			CHECK(memcmp(mk, copy, n * ps) == 0);
			free(mk);
			free(mask);
			free(copy);
		}
	a = (PbImage) {PAR_W, PAR_H, PB_PIX_8BUI, z};
	b = (PbImage) {PAR_W, PAR_H, PB_PIX_16BUI, z};
	CHECK(PbReconClipPar(&run, &a, &b, PB_RECON_DILATE) == PB_ERR_BADARG);
	memset(z, 7, n + 5);
	PbZeroPar(&run, z, n);
	CHECK(z[0] == 0 && z[n - 1] == 0 && z[n] == 7);
	for (int64_t i = 0; i < n; i += 4099)
		CHECK(z[i] == 0);
	free(z);
}
