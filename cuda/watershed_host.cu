/*
 * watershed_host.cu: the host driver of PbGpuWatershed, the watershed of
 * src/core/raster/watershed.h on the GPU (the artifact-free
 * block-asynchronous cellular automaton of watershed_ca_kernels.cu, run by
 * watershed_ca_host.cu): planning, device buffers, the untiled run and the
 * tile sweeps.
 *
 * Untiled (the device state fits memory_budget): the pixels are copied
 * in (their levels are computed where read), keys and labels start at
 * INF; the wall and marker rows are staged in chunks and encoded into
 * the keys of walls and seeds; the automaton runs to its fixed point;
 * lines and the numbering of minima run on the device
 * (watershed_post_kernels.cu) and only the labels come back.  Large copies
 * go through threads and pinned buffers (watershed_copy_host.cu).
 *
 * Tiled: the image is cut into square tiles that fit the budget with a
 * one-pixel halo.  Keys live in host memory (labels in the caller's
 * array), both starting at INF, which is above the fixed point; a tile
 * run loads its pixels, state and halo, encodes walls and seeds, runs the
 * automaton on its interior with the halo fixed and stores the interior
 * back.  A tile whose border ring changed marks its eight neighbours to
 * run again; sweeps (alternately forwards and backwards) go on until no
 * tile is marked.  Keys only decrease towards the unique fixed point, so
 * this reaches the same state as an untiled run; the numbering and the
 * lines are then drawn on the host (watershed_tiled_host.cu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_raster_gpu_test.h"
#include "watershed_gpu.cuh"

#define WS_STAGE_BYTES ((size_t) 64 << 20)	/* input rows staged at once */

static int	ws_test_sync;		/* tests, benchmark: the synchronous automaton */

/* Tests and benchmark: the synchronous automaton instead (0: default). */
extern "C" void
PbGpuWatershedTestSync(int on)
{
	ws_test_sync = on;
}

/* Wall-clock milliseconds (copies run on their own threads and streams). */
static double
WsNowMs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* How one call runs. */
typedef struct WsPlan
{
	int64_t		w,
				h;				/* image */
	size_t		ps;				/* bytes per input pixel */
	size_t		kb;				/* bytes per stored key */
	bool		mk,
				wall,
				sync,
				lines;
	int			tw,
				th;				/* tile interior (the image when untiled) */
	int			ntx,
				nty;
	int			rw,
				rh;				/* largest region (tile and halo) */
} WsPlan;

/* Device buffers of a call, reused by every tile. */
typedef struct WsBufs
{
	uint32_t   *lab,
			   *lab2,
			   *act,
			   *ctl,
			   *bits,
			   *cnt;
	void	   *img,
			   *key,
			   *key2;
	char	   *stage;
} WsBufs;

/* Bytes of one staged input row of width rw (markers, walls). */
static size_t
WsStageRowBytes(const WsPlan *p, int64_t rw)
{
	return (size_t) rw * ((p->mk ? sizeof(uint32_t) : 0) + (p->wall ? 1 : 0));
}

/* Input rows of a region of width rw and height rh staged at once. */
static int
WsStageRows(const WsPlan *p, int64_t rw, int64_t rh)
{
	size_t		rb = WsStageRowBytes(p, rw);
	size_t		rows = rb > 0 ? WS_STAGE_BYTES / rb : (size_t) rh;

	if (rows < 1)
		rows = 1;
	return (int) (rows < (size_t) rh ? rows : (size_t) rh);
}

/* Device bytes of a rw x rh region; whole: with the finishing buffers. */
static size_t
WsRegionBytes(const WsPlan *p, int64_t rw, int64_t rh, bool whole)
{
	size_t		n = (size_t) rw * rh;
	size_t		per = p->ps + sizeof(uint32_t) + p->kb + (p->sync ? sizeof(uint32_t) + p->kb : 0);
	size_t		b = n * per + WsCaTiles(rw, rh) * sizeof(uint32_t) +
		(size_t) WsStageRows(p, rw, rh) * WsStageRowBytes(p, rw) + 4096;

	if (whole)
		b += (n / 32 + 1) * sizeof(uint32_t) + (n / WS_RANK_CHUNK + 1) * sizeof(uint32_t);
	return b;
}

/*
 * Choose the tiles: the whole image when it fits the budget, else the
 * largest square interior whose region (with halo) does.  -1 when nothing
 * fits.
 */
static int
WsPlanTiles(WsPlan *p, size_t budget)
{
	p->tw = (int) p->w;
	p->th = (int) p->h;
	p->rw = (int) p->w;
	p->rh = (int) p->h;
	if (WsRegionBytes(p, p->w, p->h, true) > budget)
	{
		int64_t		lo = 0,
					hi = p->w > p->h ? p->w : p->h;

		while (lo < hi)			/* largest side whose region fits */
		{
			int64_t		mid = (lo + hi + 1) / 2;
			int64_t		rw = (mid < p->w ? mid : p->w) + 2,
						rh = (mid < p->h ? mid : p->h) + 2;

			if (WsRegionBytes(p, rw < p->w ? rw : p->w, rh < p->h ? rh : p->h, false) <= budget)
				lo = mid;
			else
				hi = mid - 1;
		}
		if (lo < 1)
			return -1;
		p->tw = (int) (lo < p->w ? lo : p->w);
		p->th = (int) (lo < p->h ? lo : p->h);
		p->rw = (int) (p->tw + 2 < p->w ? p->tw + 2 : p->w);
		p->rh = (int) (p->th + 2 < p->h ? p->th + 2 : p->h);
	}
	p->ntx = (int) ((p->w + p->tw - 1) / p->tw);
	p->nty = (int) ((p->h + p->th - 1) / p->th);
	return 0;
}

/* Allocate the buffers of the plan (whole: with the finishing ones). */
static int
WsAlloc(RgCtx *c, const WsPlan *p, WsBufs *b, bool whole, char *err, size_t err_len)
{
	size_t		n = (size_t) p->rw * p->rh;
	size_t		stage = (size_t) WsStageRows(p, p->rw, p->rh) * WsStageRowBytes(p, p->rw);

	RG_TRY(RgAlloc(c, &b->img, n * p->ps), "allocating GPU memory for the image");
	RG_TRY(RgAlloc(c, (void **) &b->lab, n * sizeof(uint32_t)), "allocating GPU memory for labels");
	RG_TRY(RgAlloc(c, &b->key, n * p->kb), "allocating GPU memory for keys");
	if (p->sync)
	{
		RG_TRY(RgAlloc(c, (void **) &b->lab2, n * sizeof(uint32_t)), "allocating GPU memory for labels");
		RG_TRY(RgAlloc(c, &b->key2, n * p->kb), "allocating GPU memory for keys");
	}
	RG_TRY(RgAlloc(c, (void **) &b->act, WsCaTiles(p->rw, p->rh) * sizeof(uint32_t)),
		   "allocating GPU memory for tile flags");
	RG_TRY(RgAlloc(c, (void **) &b->ctl, WS_CTL_WORDS * sizeof(uint32_t)),
		   "allocating GPU memory for counters");
	RG_TRY(RgAlloc(c, (void **) &b->stage, stage), "allocating GPU memory for staging");
	if (whole)
	{
		RG_TRY(RgAlloc(c, (void **) &b->bits, (n / 32 + 1) * sizeof(uint32_t)),
			   "allocating GPU memory for the lines");
		RG_TRY(RgAlloc(c, (void **) &b->cnt, (n / WS_RANK_CHUNK + 1) * sizeof(uint32_t)),
			   "allocating GPU memory for counts");
	}
	return 0;
fail:
	return -1;
}

/* Free the buffers (stream-ordered; NULL ones are skipped). */
static void
WsFreeBufs(RgCtx *c, WsBufs *b)
{
	RgFree(c, b->img);
	RgFree(c, b->lab);
	RgFree(c, b->lab2);
	RgFree(c, b->act);
	RgFree(c, b->ctl);
	RgFree(c, b->bits);
	RgFree(c, b->cnt);
	RgFree(c, b->key);
	RgFree(c, b->key2);
	RgFree(c, b->stage);
}

/*
 * Run the region of interior [x0,x1) x [y0,y1): untiled (hkeys NULL) the
 * whole image, finished on the device, labels copied out; tiled, with a
 * halo, state from and back to hkeys and labels.  0, 1 when polled to
 * stop, -1 with a reason.
 */
static int
WsRunRegion(RgCtx *c, const WsPlan *p, const WsBufs *b, const PbWatershedSpec *spec,
			uint32_t *labels, char *hkeys, int x0, int y0, int x1, int y1,
			PbPollFn poll, void *poll_arg, PbRasterGpuStats *st, char *err, size_t err_len)
{
	bool		tiled = hkeys != NULL;
	int			rx0 = tiled && x0 > 0 ? x0 - 1 : x0;
	int			ry0 = tiled && y0 > 0 ? y0 - 1 : y0;
	int			rx1 = tiled && x1 < p->w ? x1 + 1 : x1;
	int			ry1 = tiled && y1 < p->h ? y1 + 1 : y1;
	int			rw = rx1 - rx0,
				rh = ry1 - ry0;
	int			rows = WsStageRows(p, rw, rh);
	size_t		n = (size_t) rw * rh;
	size_t		W = (size_t) p->w;
	uint32_t   *st_mk = (uint32_t *) b->stage;
	uint8_t    *st_wall = (uint8_t *) b->stage + (p->mk ? (size_t) rows * rw * sizeof(uint32_t) : 0);
	WsRegion	r;
	double		t0;
	int			rc;

	memset(&r, 0, sizeof(r));
	r.img = b->img;
	r.key = b->key;
	r.lab = b->lab;
	r.key2 = b->key2;
	r.lab2 = b->lab2;
	r.act = b->act;
	r.ctl = b->ctl;
	r.w = rw;
	r.h = rh;
	r.ux0 = x0 - rx0;
	r.uy0 = y0 - ry0;
	r.ux1 = x1 - rx0;
	r.uy1 = y1 - ry0;
	r.gx0 = rx0;
	r.gy0 = ry0;
	r.gw = p->w;
	r.type = spec->image.type;
	r.mk = p->mk;
	r.c8 = spec->connectivity == 8;

	/* the pixels; the state: INF, or the tile's and its halo's from the host */
	t0 = WsNowMs();
	if (RgCopyIn(c, b->img, rw * p->ps,
				 (const char *) spec->image.data + ((size_t) ry0 * W + rx0) * p->ps, W * p->ps,
				 rw * p->ps, rh, "copying the image to the GPU", err, err_len) != 0)
		return -1;
	if (tiled)
	{
		if (RgCopyIn(c, b->key, rw * p->kb, hkeys + ((size_t) ry0 * W + rx0) * p->kb, W * p->kb,
					 rw * p->kb, rh, "copying watershed keys to the GPU", err, err_len) != 0 ||
			RgCopyIn(c, b->lab, rw * sizeof(uint32_t), labels + (size_t) ry0 * W + rx0,
					 W * sizeof(uint32_t), rw * sizeof(uint32_t), rh,
					 "copying watershed labels to the GPU", err, err_len) != 0)
			return -1;
	}
	else
	{
		RG_TRY(cudaMemsetAsync(b->key, 0xFF, n * p->kb, c->stream), "clearing keys");
		RG_TRY(cudaMemsetAsync(b->lab, 0xFF, n * sizeof(uint32_t), c->stream), "clearing labels");
	}

	/* walls and seeds into the keys, a chunk of rows at a time */
	for (int row0 = 0; row0 < rh; row0 += rows)
	{
		int			nr = rows < rh - row0 ? rows : rh - row0;
		size_t		off = (size_t) (ry0 + row0) * W + rx0;

		if ((spec->wall && RgCopyIn(c, st_wall, rw, spec->wall + off, W, rw, nr,
									"copying the mask to the GPU", err, err_len) != 0) ||
			(spec->markers && RgCopyIn(c, st_mk, rw * sizeof(uint32_t), spec->markers + off,
									   W * sizeof(uint32_t), rw * sizeof(uint32_t), nr,
									   "copying the markers to the GPU", err, err_len) != 0))
			return -1;
		WsLaunchInit(&r, spec->wall ? st_wall : NULL, spec->markers ? st_mk : NULL, row0, nr,
					 c->stream, c->sms);
		RG_TRY(cudaGetLastError(), "launching the watershed initialization");
	}
	RG_TRY(cudaStreamSynchronize(c->stream), "loading the watershed input");
	st->transfer_ms += WsNowMs() - t0;

	rc = WsRunCa(c, &r, p->sync, poll, poll_arg, st, err, err_len);
	if (rc != 0)
		return rc;

	if (!tiled)
	{
		RG_TRY(RgTimeStart(c), "timing");
		WsLaunchFinish(&r, p->lines, b->bits, b->cnt, c->stream, c->sms);
		RG_TRY(cudaGetLastError(), "launching the watershed lines and numbering");
		RG_TRY(RgTimeEnd(c, &st->kernel_ms), "drawing lines and numbering basins");
		t0 = WsNowMs();
		if (RgCopyOut(c, labels, rw * sizeof(uint32_t), b->lab, rw * sizeof(uint32_t),
					  rw * sizeof(uint32_t), rh, "copying the labels back", err, err_len) != 0)
			return -1;
		st->transfer_ms += WsNowMs() - t0;
		return 0;
	}
	t0 = WsNowMs();
	if (RgCopyOut(c, hkeys + ((size_t) y0 * W + x0) * p->kb, W * p->kb,
				  (const char *) b->key + ((size_t) r.uy0 * rw + r.ux0) * p->kb, rw * p->kb,
				  (size_t) (x1 - x0) * p->kb, y1 - y0, "copying watershed keys back", err, err_len) != 0 ||
		RgCopyOut(c, labels + (size_t) y0 * W + x0, W * sizeof(uint32_t),
				  b->lab + (size_t) r.uy0 * rw + r.ux0, rw * sizeof(uint32_t),
				  (size_t) (x1 - x0) * sizeof(uint32_t), y1 - y0, "copying watershed labels back",
				  err, err_len) != 0)
		return -1;
	st->transfer_ms += WsNowMs() - t0;
	return 0;
fail:
	return -1;
}

/*
 * The tiled run: sweeps over the marked tiles until none is marked, then
 * the numbering and the lines on the host.  0, 1, or -1 with a reason.
 */
static int
WsRunTiled(RgCtx *c, const WsPlan *p, const WsBufs *b, const PbWatershedSpec *spec,
		   uint32_t *labels, PbPollFn poll, void *poll_arg, PbRasterGpuStats *st,
		   char *err, size_t err_len)
{
	size_t		npix = (size_t) p->w * p->h;
	size_t		ntiles = (size_t) p->ntx * p->nty;
	size_t		ring_items = (size_t) 2 * (p->tw + p->th) + 4;
	char	   *hkeys = (char *) malloc(npix * p->kb);
	unsigned char *dirty = (unsigned char *) malloc(ntiles);
	char	   *ring_k = (char *) malloc(ring_items * p->kb);
	char	   *ring_l = (char *) malloc(ring_items * sizeof(uint32_t));
	int			rc = -1;
	int			sweep = 0;
	bool		any;

	if (hkeys == NULL || dirty == NULL || ring_k == NULL || ring_l == NULL)
	{
		snprintf(err, err_len, "out of host memory for a tiled watershed");
		goto done;
	}
	WsHostFill(hkeys, 0xFF, npix * p->kb);
	WsHostFill(labels, 0xFF, npix * sizeof(uint32_t));
	memset(dirty, 1, ntiles);
	do
	{
		any = false;
		for (size_t k = 0; k < ntiles; k++)
		{
			size_t		t = sweep % 2 == 0 ? k : ntiles - 1 - k;
			int			tx = (int) (t % p->ntx),
						ty = (int) (t / p->ntx);
			int			x0 = tx * p->tw,
						y0 = ty * p->th;
			int			x1 = x0 + p->tw < p->w ? x0 + p->tw : (int) p->w;
			int			y1 = y0 + p->th < p->h ? y0 + p->th : (int) p->h;

			if (!dirty[t])
				continue;
			dirty[t] = 0;
			WsRingSave(hkeys, p->kb, p->w, x0, y0, x1, y1, ring_k);
			WsRingSave(labels, sizeof(uint32_t), p->w, x0, y0, x1, y1, ring_l);
			rc = WsRunRegion(c, p, b, spec, labels, hkeys, x0, y0, x1, y1, poll, poll_arg,
							 st, err, err_len);
			if (rc != 0)
				goto done;
			if (WsRingChanged(hkeys, p->kb, p->w, x0, y0, x1, y1, ring_k) ||
				WsRingChanged(labels, sizeof(uint32_t), p->w, x0, y0, x1, y1, ring_l))
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++)
					{
						int			nx = tx + dx,
									ny = ty + dy;

						if ((dx || dy) && nx >= 0 && nx < p->ntx && ny >= 0 && ny < p->nty)
						{
							dirty[(size_t) ny * p->ntx + nx] = 1;
							any = true;
						}
					}
		}
		sweep++;
	} while (any);
	rc = 0;
	if (!p->mk && WsHostNumber(labels, (int64_t) npix, err, err_len) != 0)
		rc = -1;
	else if (p->lines && WsHostLines(spec, hkeys, labels, err, err_len) != 0)
		rc = -1;
done:
	free(hkeys);
	free(dirty);
	free(ring_k);
	free(ring_l);
	return rc;
}

/*
 * The watershed of spec on the GPU of g, untiled when it fits what is left
 * of g's budget, else in tiles (see pb_raster_gpu.h for the contract).
 */
extern "C" int
PbGpuWatershed(PbGpu *g, const PbWatershedSpec *spec, uint32_t *labels,
			   PbPollFn poll, void *poll_arg, PbRasterGpuStats *stats, char *err, size_t err_len)
{
	PbRasterGpuStats st;
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	WsPlan		p;
	WsBufs		b;
	bool		whole;
	int			rc = -1;

	memset(&st, 0, sizeof(st));
	memset(&b, 0, sizeof(b));
	memset(&p, 0, sizeof(p));
	if (stats)
		*stats = st;
	if (PbWatershedCheck(spec) != PB_OK || labels == NULL)
	{
		snprintf(err, err_len, "invalid watershed arguments (sizes, pixel type, connectivity or data)");
		return -1;
	}
	p.w = spec->image.width;
	p.h = spec->image.height;
	p.ps = PbPixSize(spec->image.type);
	p.mk = spec->markers != NULL;
	p.wall = spec->wall != NULL;
	p.kb = WsKeyBytes(p.mk);
	p.sync = ws_test_sync != 0;
	p.lines = spec->lines;
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	if (WsPlanTiles(&p, memory_budget) != 0)
	{
		snprintf(err, err_len, "memory budget of %zu bytes is too small for one tile of the watershed",
				 memory_budget);
		goto done;
	}
	whole = p.ntx == 1 && p.nty == 1 && p.rw == p.w && p.rh == p.h &&
		WsRegionBytes(&p, p.w, p.h, true) <= memory_budget;
	st.tiles = whole ? 1 : p.ntx * p.nty;
	if (WsAlloc(c, &p, &b, whole, err, err_len) != 0)
		goto done;
	if (whole)
		rc = WsRunRegion(c, &p, &b, spec, labels, NULL, 0, 0, (int) p.w, (int) p.h,
						 poll, poll_arg, &st, err, err_len);
	else
		rc = WsRunTiled(c, &p, &b, spec, labels, poll, poll_arg, &st, err, err_len);
done:
	WsFreeBufs(c, &b);
	if (cudaStreamSynchronize(c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	RgEnd(c);
	if (stats)
		*stats = st;
	return rc;
}
