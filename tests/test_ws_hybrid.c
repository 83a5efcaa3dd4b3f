/*
 * test_ws_hybrid.c: the hybrid watershed (PbWatershedHybrid in
 * src/core/raster/watershed.h) with model devices that run their blocks
 * of the key phase on the CPU, by plain relaxation to the block's least
 * keys: the labels must be PbWatershedCpu's on random images of every
 * type, with and without markers, walls and lines, one and two devices of
 * several block sides; a device that fails half way through a block, one
 * that fails to begin, and one that is told to stop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "../src/core/raster/watershed_rules.h"
#include "harness.h"
#include "tests.h"
#include "watershed_ref.h"

/* A model device and what it was asked. */
typedef struct WsModelDev
{
	const PbWatershedSpec *spec;
	int			block;			/* side of its blocks, in tiles */
	int			fail_at;		/* run that fails half done (1-based); 0 never */
	int			stop_at;		/* run that answers "stop"; 0 never */
	bool		begin_fails;
	int			runs,
				begun,
				ended;
} WsModelDev;

/* Whether pixel i is a seed (a marker on a pixel that is not a wall). */
static bool
ModelSeed(const PbWatershedSpec *s, int64_t i)
{
	return s->markers && s->markers[i] != 0 && PbWsLevel(s, i) != PB_WS_INF;
}

/* One pass over the interior: each pixel lowered to what its neighbours offer. */
static bool
ModelPass(const PbWatershedSpec *s, uint64_t *key, int64_t x0, int64_t y0, int64_t x1,
		  int64_t y1)
{
	int64_t		w = s->image.width,
				h = s->image.height;
	bool		changed = false;

	for (int64_t y = y0; y < y1; y++)
		for (int64_t x = x0; x < x1; x++)
		{
			int64_t		i = y * w + x;
			uint32_t	lv = PbWsLevel(s, i);
			uint64_t	k = key[i];

			if (lv == PB_WS_INF || ModelSeed(s, i))
				continue;
			for (int j = 0; j < s->connectivity; j++)
			{
				int64_t		nx = x + PbNbDx(j),
							ny = y + PbNbDy(j);

				if (nx < 0 || ny < 0 || nx >= w || ny >= h ||
					PbWsLevel(s, ny * w + nx) == PB_WS_INF)
					continue;
				if (WsCand(key[ny * w + nx], lv) < k)
					k = WsCand(key[ny * w + nx], lv);
			}
			if (k != key[i])
			{
				key[i] = k;
				changed = true;
			}
		}
	return changed;
}

/* PbWsDevice.begin of the model. */
static int
ModelBegin(void *ctx, const PbWatershedSpec *spec, int tile, int64_t max_side, int *block,
		   char *err, size_t err_len)
{
	WsModelDev *d = ctx;

	if (d->begin_fails)
	{
		snprintf(err, err_len, "model device: no memory");
		return -1;
	}
	d->spec = spec;
	d->begun++;
	*block = d->block * tile <= max_side ? d->block : (int) (max_side / tile);
	return 0;
}

/* PbWsDevice.run of the model: relax the block until nothing changes. */
static int
ModelRun(void *ctx, uint64_t *key, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		 PbPollFn poll, void *poll_arg, char *err, size_t err_len)
{
	WsModelDev *d = ctx;

	(void) poll;
	(void) poll_arg;
	d->runs++;
	if (d->runs == d->stop_at)
		return 1;
	if (d->runs == d->fail_at)
	{
		/* half done: the block's middle row gets its final keys, nothing else */
		int64_t		w = d->spec->image.width,
					n = w * d->spec->image.height,
					ym = (y0 + y1) / 2;
		uint64_t   *all = WsTestAlloc((size_t) n * sizeof(uint64_t));

		memcpy(all, key, (size_t) n * sizeof(uint64_t));
		while (ModelPass(d->spec, all, x0, y0, x1, y1))
			;
		memcpy(key + ym * w + x0, all + ym * w + x0, (size_t) (x1 - x0) * sizeof(uint64_t));
		free(all);
		snprintf(err, err_len, "model device: failed");
		return -1;
	}
	while (ModelPass(d->spec, key, x0, y0, x1, y1))
		;
	return 0;
}

/* PbWsDevice.end of the model. */
static void
ModelEnd(void *ctx)
{
	((WsModelDev *) ctx)->ended++;
}

/* A PbWsDevice over model m. */
static PbWsDevice
ModelDevice(WsModelDev *m)
{
	PbWsDevice	d;

	memset(&d, 0, sizeof(d));
	d.begin = ModelBegin;
	d.run = ModelRun;
	d.end = ModelEnd;
	d.ctx = m;
	return d;
}

/* A small xorshift generator. */
static uint64_t
HyNext(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random heights of type with few levels (plateaus), NaN now and then for floats. */
static void *
HyImage(uint64_t *r, int w, int h, PbPixType type, int levels)
{
	int64_t		n = (int64_t) w * h;
	void	   *d = WsTestAlloc(n * 4);

	for (int64_t i = 0; i < n; i++)
	{
		uint32_t	v = (uint32_t) (HyNext(r) % (uint64_t) levels);

		if (type == PB_PIX_16BUI)
			((uint16_t *) d)[i] = (uint16_t) (v * 300);
		else if (type == PB_PIX_32BF)
			((float *) d)[i] = HyNext(r) % 50 == 0 ? NAN : (float) v - 2.5f;
		else
			((uint8_t *) d)[i] = (uint8_t) v;
	}
	return d;
}

/*
 * The hybrid with models (ndev of them) against the CPU alone on s:
 * the labels, each model begun and ended once (unless its begin fails).
 * Returns the blocks the models ran.
 */
static int64_t
HyCompare(const PbWatershedSpec *s, WsModelDev *models, int ndev, int threads)
{
	int64_t		n = (int64_t) s->image.width * s->image.height;
	uint32_t   *want = WsTestAlloc(n * 4),
			   *got = WsTestAlloc(n * 4);
	PbRun		run = {threads, 8, NULL, NULL};
	PbWsDevice	devs[2];
	PbWsHybridStats st;
	int64_t		blocks = 0;

	for (int d = 0; d < ndev; d++)
		devs[d] = ModelDevice(&models[d]);
	CHECK_INT(PbWatershedCpu(s, want, &run), PB_OK);
	CHECK_INT(PbWatershedHybrid(s, got, &run, NULL, devs, ndev, &st), PB_OK);
	for (int64_t i = 0; i < n; i++)
		if (got[i] != want[i])
		{
			pb_check_fail(__FILE__, __LINE__, "pixel %lld: %u, the CPU's %u", (long long) i,
						  got[i], want[i]);
			break;
		}
	CHECK_INT(st.tiles, ((s->image.width + 7) / 8) * ((s->image.height + 7) / 8));
	CHECK(st.init_s > 0 && st.keys_s > 0 && st.pointers_s > 0 && st.labels_s > 0);
	CHECK(s->markers ? st.minima_s == 0 : st.minima_s > 0);
	for (int d = 0; d < ndev; d++)
	{
		CHECK_INT(models[d].begun, models[d].begin_fails ? 0 : 1);
		CHECK_INT(models[d].ended, models[d].begun);
		CHECK_INT(devs[d].regions, models[d].runs);
		CHECK(devs[d].failed == (models[d].begin_fails ||
								 (models[d].fail_at > 0 && models[d].runs >= models[d].fail_at)));
		blocks += devs[d].regions;
	}
	free(want);
	free(got);
	return blocks;
}

/* Random images of every kind, one or two model devices of blocks of 1 to 3 tiles. */
void
test_ws_hybrid_matches_cpu(void)
{
	static const PbPixType types[] = {PB_PIX_8BUI, PB_PIX_16BUI, PB_PIX_32BF};
	uint64_t	r = 88172645463325252ull;
	int64_t		blocks = 0;

	for (int iter = 0; iter < 36; iter++)
	{
		int			w = 20 + (int) (HyNext(&r) % 70),
					h = 20 + (int) (HyNext(&r) % 70);
		PbPixType	type = types[iter % 3];
		void	   *img = HyImage(&r, w, h, type, 2 + (int) (HyNext(&r) % 6));
		uint8_t    *wall = NULL;
		uint32_t   *markers = NULL;
		WsModelDev	m[2] = {{.block = 1 + iter % 3}, {.block = 2}};
		PbWatershedSpec s;

		if (iter % 4 == 1)
		{
			wall = WsTestAlloc((size_t) w * h);
			for (int i = 0; i < w * h; i++)
				wall[i] = HyNext(&r) % 7 == 0;
		}
		if (iter % 2 == 1)
		{
			markers = WsTestAlloc((size_t) w * h * 4);
			for (int i = 0; i < w * h; i++)
				markers[i] = HyNext(&r) % 40 == 0 ? 1 + (uint32_t) (HyNext(&r) % 5) : 0;
		}
		s = WsTestSpec(w, h, type, img, wall, markers, iter % 6 < 3 ? 4 : 8, iter % 5 == 0);
		pb_test_context("iteration %d: %dx%d type %d markers %d walls %d devices %d",
						iter, w, h, (int) type, markers != NULL, wall != NULL, 1 + iter % 2);
		blocks += HyCompare(&s, m, 1 + iter % 2, 3);
		free(img);
		free(wall);
		free(markers);
	}
	CHECK(blocks > 0);
}

/*
 * A device that fails half way through a block, one whose begin
 * fails: the others finish, same labels; a device told to stop stops the
 * run.
 */
void
test_ws_hybrid_failures(void)
{
	uint64_t	r = 4101842887655102017ull;
	int			w = 90,
				h = 70;
	void	   *img = HyImage(&r, w, h, PB_PIX_8BUI, 4);
	PbWatershedSpec s = WsTestSpec(w, h, PB_PIX_8BUI, img, NULL, NULL, 8, true);
	WsModelDev	nobegin[1] = {{.block = 2, .begin_fails = true}};
	WsModelDev	stops = {.block = 2, .stop_at = 1};
	PbWsDevice	dev = ModelDevice(&stops);
	uint32_t   *labels = WsTestAlloc((size_t) w * h * 4);
	PbRun		run = {2, 8, NULL, NULL};

	for (int at = 2; at <= 8; at++)
		for (int block = 1; block <= 2; block++)
		{
			/* later blocks are more often tiles the CPU ran before: their first scans matter */
			WsModelDev	fails[2] = {{.block = block, .fail_at = at}, {.block = 3}};

			pb_test_context("a device fails its block %d of %d tiles a side, %d devices", at, block,
							1 + at % 2);
			HyCompare(&s, fails, 1 + at % 2, 2);
			CHECK(fails[0].runs <= at);	/* it took no block after */
		}
	pb_test_context("a device fails to begin");
	HyCompare(&s, nobegin, 1, 2);
	CHECK_INT(nobegin[0].runs, 0);
	pb_test_context("a device says stop");
	CHECK_INT(PbWatershedHybrid(&s, labels, &run, NULL, &dev, 1, NULL), PB_ERR_STOPPED);
	CHECK_INT(stops.ended, 1);
	pb_test_context("bad arguments");
	CHECK_INT(PbWatershedHybrid(&s, labels, &run, NULL, NULL, 1, NULL), PB_ERR_BADARG);
	CHECK_INT(PbWatershedHybrid(&s, labels, &run, NULL, &dev, PB_WS_MAX_DEVICES + 1, NULL),
			  PB_ERR_BADARG);
	free(labels);
	free(img);
}
