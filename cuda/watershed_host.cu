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
 * go through threads and pinned buffers (pinned_copy.cuh).
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

#include "../src/core/raster/tile_sweep.h"
#include "pb_raster_gpu_test.h"
#include "watershed_host.cuh"

#define WS_STAGE_BYTES ((size_t) 64 << 20)	/* input rows staged at once */

static int	ws_test_sync;		/* tests, benchmark: the synchronous automaton */

/* Tests and benchmark: the synchronous automaton instead (0: default). */
extern "C" void
PbGpuWatershedTestSync(int on)
{
	ws_test_sync = on;
}

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

/*
 * Bytes of the staging buffer of plan p (sized by its largest region).
 * A smaller region stages as many of its own rows as fit in it
 * (WsRunRegion): a narrower region stages more rows at once, never more
 * bytes.
 */
static size_t
WsStageBytes(const WsPlan *p)
{
	return (size_t) WsStageRows(p, p->rw, p->rh) * WsStageRowBytes(p, p->rw);
}

/* Device bytes of a rw x rh region; whole: with the finishing buffers. */
size_t
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
 * Choose the tiles: the whole image when it fits the budget (and no
 * max_side is set), else the largest square interior whose region (with
 * halo) does, of max_side at most where set.  -1 when nothing fits.
 */
static int
WsPlanTiles(WsPlan *p, size_t budget, int64_t max_side)
{
	p->tw = (int) p->w;
	p->th = (int) p->h;
	p->rw = (int) p->w;
	p->rh = (int) p->h;
	if (max_side > 0 || WsRegionBytes(p, p->w, p->h, true) > budget)
	{
		int64_t		lo = 0,
					hi = p->w > p->h ? p->w : p->h;

		if (max_side > 0 && max_side < hi)
			hi = max_side;
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
int
WsAlloc(RgCtx *c, const WsPlan *p, WsBufs *b, bool whole, char *err, size_t err_len)
{
	size_t		n = (size_t) p->rw * p->rh;
	size_t		stage = WsStageBytes(p);

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
void
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
 * The region of interior [x0,x1) x [y0,y1) on the buffers of b: untiled,
 * the whole image; tiled, with a one-pixel halo wherever the image goes on.
 */
void
WsRegionOf(const WsPlan *p, const WsBufs *b, const PbWatershedSpec *spec, bool tiled,
		   int x0, int y0, int x1, int y1, WsRegion *r)
{
	int			rx0 = tiled && x0 > 0 ? x0 - 1 : x0;
	int			ry0 = tiled && y0 > 0 ? y0 - 1 : y0;
	int			rx1 = tiled && x1 < p->w ? x1 + 1 : x1;
	int			ry1 = tiled && y1 < p->h ? y1 + 1 : y1;

	memset(r, 0, sizeof(*r));
	r->img = b->img;
	r->key = b->key;
	r->lab = b->lab;
	r->key2 = b->key2;
	r->lab2 = b->lab2;
	r->act = b->act;
	r->ctl = b->ctl;
	r->w = rx1 - rx0;
	r->h = ry1 - ry0;
	r->ux0 = x0 - rx0;
	r->uy0 = y0 - ry0;
	r->ux1 = x1 - rx0;
	r->uy1 = y1 - ry0;
	r->gx0 = rx0;
	r->gy0 = ry0;
	r->gw = p->w;
	r->type = spec->image.type;
	r->mk = p->mk;
	r->c8 = spec->connectivity == 8;
}

/*
 * The state (keys and labels) of image rows [y0,y1) of region r, all its
 * columns, from hkeys and labels to the device (rows of the region).
 */
static int
WsLoadRows(RgCtx *c, const WsPlan *p, const WsRegion *r, const uint32_t *labels,
		   const char *hkeys, int64_t y0, int64_t y1, PbRasterGpuStats *st, char *err,
		   size_t err_len)
{
	size_t		W = (size_t) p->w;
	size_t		at = (size_t) (y0 - r->gy0) * r->w;
	size_t		from = (size_t) y0 * W + r->gx0;
	double		t0 = WsNowMs();

	if (RgCopyIn(c, (char *) r->key + at * p->kb, r->w * p->kb, hkeys + from * p->kb, W * p->kb,
				 r->w * p->kb, y1 - y0, "copying watershed keys to the GPU", err, err_len) != 0 ||
		RgCopyIn(c, r->lab + at, r->w * sizeof(uint32_t), labels + from, W * sizeof(uint32_t),
				 r->w * sizeof(uint32_t), y1 - y0, "copying watershed labels to the GPU",
				 err, err_len) != 0)
		return -1;
	st->transfer_ms += WsNowMs() - t0;
	return 0;
}

/*
 * The state of image rows [y0,y1) of region r, its updatable columns only,
 * from the device back to hkeys and labels.
 */
static int
WsStoreRows(RgCtx *c, const WsPlan *p, const WsRegion *r, uint32_t *labels, char *hkeys,
			int64_t y0, int64_t y1, PbRasterGpuStats *st, char *err, size_t err_len)
{
	size_t		W = (size_t) p->w;
	size_t		at = (size_t) (y0 - r->gy0) * r->w + r->ux0;
	size_t		to = (size_t) y0 * W + r->gx0 + r->ux0;
	size_t		cols = (size_t) (r->ux1 - r->ux0);
	double		t0 = WsNowMs();

	if (RgCopyOut(c, hkeys + to * p->kb, W * p->kb, (const char *) r->key + at * p->kb,
				  r->w * p->kb, cols * p->kb, y1 - y0, "copying watershed keys back",
				  err, err_len) != 0 ||
		RgCopyOut(c, labels + to, W * sizeof(uint32_t), r->lab + at, r->w * sizeof(uint32_t),
				  cols * sizeof(uint32_t), y1 - y0, "copying watershed labels back",
				  err, err_len) != 0)
		return -1;
	st->transfer_ms += WsNowMs() - t0;
	return 0;
}

/* Copy region r's pixels to the device.  0, or -1 with a reason. */
int
WsLoadPixels(RgCtx *c, const WsPlan *p, const WsBufs *b, const WsRegion *r,
			 const PbWatershedSpec *spec, PbRasterGpuStats *st, char *err, size_t err_len)
{
	size_t		W = (size_t) p->w;
	double		t0 = WsNowMs();

	if (RgCopyIn(c, b->img, r->w * p->ps,
				 (const char *) spec->image.data + ((size_t) r->gy0 * W + r->gx0) * p->ps,
				 W * p->ps, r->w * p->ps, r->h, "copying the image to the GPU", err, err_len) != 0)
		return -1;
	st->transfer_ms += WsNowMs() - t0;
	return 0;
}

/*
 * Encode region r's walls and seeds into its keys (over the state
 * loaded), the input rows staged a chunk at a time; then wait for the
 * load.  0, or -1 with a reason.
 */
int
WsLoadMarks(RgCtx *c, const WsPlan *p, const WsBufs *b, const WsRegion *r,
			const PbWatershedSpec *spec, PbRasterGpuStats *st, char *err, size_t err_len)
{
	int			rw = r->w,
				rh = r->h;
	size_t		rb = WsStageRowBytes(p, rw);
	size_t		fit = rb > 0 ? WsStageBytes(p) / rb : (size_t) rh;

	/*
	 * The rows of this region that the staging buffer holds: not
	 * WsStageRows of its own width, which rounds differently and overran
	 * the buffer by up to a row of the plan (65536² at 1GB: 10 KB).
	 */
	int			rows = fit < (size_t) rh ? (int) fit : rh;
	size_t		W = (size_t) p->w;
	uint32_t   *st_mk = (uint32_t *) b->stage;
	uint8_t    *st_wall = (uint8_t *) b->stage + (p->mk ? (size_t) rows * rw * sizeof(uint32_t) : 0);
	double		t0 = WsNowMs();

	for (int row0 = 0; row0 < rh; row0 += rows)
	{
		int			nr = rows < rh - row0 ? rows : rh - row0;
		size_t		off = (size_t) (r->gy0 + row0) * W + r->gx0;

		if ((spec->wall && RgCopyIn(c, st_wall, rw, spec->wall + off, W, rw, nr,
									"copying the mask to the GPU", err, err_len) != 0) ||
			(spec->markers && RgCopyIn(c, st_mk, rw * sizeof(uint32_t), spec->markers + off,
									   W * sizeof(uint32_t), rw * sizeof(uint32_t), nr,
									   "copying the markers to the GPU", err, err_len) != 0))
			return -1;
		WsLaunchInit(r, spec->wall ? st_wall : NULL, spec->markers ? st_mk : NULL, row0, nr,
					 c->stream, c->sms);
		RG_TRY(cudaGetLastError(), "launching the watershed initialization");
	}
	RG_TRY(cudaStreamSynchronize(c->stream), "loading the watershed input");
	st->transfer_ms += WsNowMs() - t0;
	return 0;
fail:
	return -1;
}

/*
 * Load region r: its pixels; its state, INF (hkeys NULL) or the host's
 * (hkeys and labels); its walls and seeds encoded into the keys.  0, or
 * -1 with a reason.
 */
int
WsLoadRegion(RgCtx *c, const WsPlan *p, const WsBufs *b, const WsRegion *r,
			 const PbWatershedSpec *spec, const uint32_t *labels, const char *hkeys,
			 PbRasterGpuStats *st, char *err, size_t err_len)
{
	size_t		n = (size_t) r->w * r->h;

	if (WsLoadPixels(c, p, b, r, spec, st, err, err_len) != 0)
		return -1;
	if (hkeys != NULL)
	{
		if (WsLoadRows(c, p, r, labels, hkeys, r->gy0, r->gy0 + r->h, st, err, err_len) != 0)
			return -1;
	}
	else
	{
		RG_TRY(cudaMemsetAsync(b->key, 0xFF, n * p->kb, c->stream), "clearing keys");
		RG_TRY(cudaMemsetAsync(b->lab, 0xFF, n * sizeof(uint32_t), c->stream), "clearing labels");
	}
	return WsLoadMarks(c, p, b, r, spec, st, err, err_len);
fail:
	return -1;
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
	WsRegion	r;
	double		t0;
	int			rc;

	WsRegionOf(p, b, spec, hkeys != NULL, x0, y0, x1, y1, &r);
	if (WsLoadRegion(c, p, b, &r, spec, labels, hkeys, st, err, err_len) != 0)
		return -1;
	rc = WsRunCa(c, &r, p->sync, poll, poll_arg, st, err, err_len);
	if (rc != 0)
		return rc;
	if (hkeys != NULL)
		return WsStoreRows(c, p, &r, labels, hkeys, y0, y1, st, err, err_len);
	RG_TRY(RgTimeStart(c), "timing");
	WsLaunchFinish(&r, p->lines, !p->mk, b->bits, b->cnt, c->stream, c->sms);
	RG_TRY(cudaGetLastError(), "launching the watershed lines and numbering");
	RG_TRY(RgTimeEnd(c, &st->kernel_ms), "drawing lines and numbering basins");
	t0 = WsNowMs();
	if (RgCopyOut(c, labels, r.w * sizeof(uint32_t), b->lab, r.w * sizeof(uint32_t),
				  r.w * sizeof(uint32_t), r.h, "copying the labels back", err, err_len) != 0)
		return -1;
	st->transfer_ms += WsNowMs() - t0;
	return 0;
fail:
	return -1;
}

/* What the GPUs of a tiled run share: the plan, the state, the schedule. */
typedef struct WsTiledJob
{
	const WsPlan *p;
	const PbWatershedSpec *spec;
	uint32_t   *labels;
	char	   *hkeys;			/* keys, in host memory between tile runs */
	PbTileSweep *sweep;
	PbPollFn	poll;
	void	   *poll_arg;
	WsDev	   *first;			/* the GPU the calling thread drives (it polls) */
} WsTiledJob;

/*
 * One GPU's tiles: its buffers, then the tiles the schedule gives it until
 * none is left, each with its border rings saved before and compared
 * after (a changed ring marks the neighbours); a failure or a stop stops
 * every GPU's schedule.
 */
static void
WsDevTiles(WsDev *d)
{
	WsTiledJob *j = d->job;
	const WsPlan *p = j->p;
	size_t		ring_items = (size_t) 2 * (p->tw + p->th) + 4;
	char	   *ring_k = (char *) malloc(ring_items * p->kb);
	char	   *ring_l = (char *) malloc(ring_items * sizeof(uint32_t));
	bool		polls = d == j->first;
	cudaError_t e;
	int64_t		t;

	if ((e = cudaSetDevice(d->c->device)) != cudaSuccess)
	{
		snprintf(d->err, sizeof(d->err), "CUDA device setup failed: %s", cudaGetErrorString(e));
		d->rc = -1;
	}
	else if (ring_k == NULL || ring_l == NULL)
	{
		snprintf(d->err, sizeof(d->err), "out of host memory for a tiled watershed");
		d->rc = -1;
	}
	else
		d->rc = WsAlloc(d->c, p, &d->b, false, d->err, sizeof(d->err));
	while (d->rc == 0 && (t = PbTileSweepTake(j->sweep, polls)) >= 0)
	{
		int			tx = (int) (t % p->ntx),
					ty = (int) (t / p->ntx);
		int			x0 = tx * p->tw,
					y0 = ty * p->th;
		int			x1 = x0 + p->tw < p->w ? x0 + p->tw : (int) p->w;
		int			y1 = y0 + p->th < p->h ? y0 + p->th : (int) p->h;
		double		t0 = WsNowMs();

		WsRingSave(j->hkeys, p->kb, p->w, x0, y0, x1, y1, ring_k);
		WsRingSave(j->labels, sizeof(uint32_t), p->w, x0, y0, x1, y1, ring_l);
		d->rc = WsRunRegion(d->c, p, &d->b, j->spec, j->labels, j->hkeys, x0, y0, x1, y1,
							j->poll, j->poll_arg, &d->st, d->err, sizeof(d->err));
		if (d->rc != 0)
			break;
		PbTileSweepDone(j->sweep, t,
						WsRingChanged(j->hkeys, p->kb, p->w, x0, y0, x1, y1, ring_k) ||
						WsRingChanged(j->labels, sizeof(uint32_t), p->w, x0, y0, x1, y1, ring_l));
		d->share.runs++;
		d->share.busy_s += (WsNowMs() - t0) / 1e3;
	}
	if (d->rc != 0)				/* a failure's reason is in d->err */
		PbTileSweepStop(j->sweep, d->rc == 1 ? PB_ERR_STOPPED : PB_ERR_UNSUPPORTED);
	WsFreeBufs(d->c, &d->b);
	if (cudaStreamSynchronize(d->c->stream) != cudaSuccess && d->rc == 0)
	{
		snprintf(d->err, sizeof(d->err), "CUDA failed while freeing: %s",
				 cudaGetErrorString(cudaGetLastError()));
		d->rc = -1;
	}
	cudaGetLastError();
	free(ring_k);
	free(ring_l);
}

/* pthread entry of a GPU other than the first. */
static void *
WsDevMain(void *arg)
{
	WsDevTiles((WsDev *) arg);
	return NULL;
}

/*
 * The host's state before a run in pieces: keys in lent (the caller's) or
 * in a new array (returned; NULL without memory) and labels, all INF,
 * which is above the fixed point.
 */
static char *
WsHostBegin(const WsPlan *p, uint32_t *labels, char *lent)
{
	size_t		npix = (size_t) p->w * p->h;
	char	   *hkeys = lent ? lent : (char *) malloc(npix * p->kb);

	if (hkeys != NULL)
	{
		WsHostFill(hkeys, 0xFF, npix * p->kb);
		WsHostFill(labels, 0xFF, npix * sizeof(uint32_t));
	}
	return hkeys;
}

/*
 * The host's finish of a run in pieces, once every piece has settled: the
 * numbering of the minima (marker-less) and the lines, from hkeys.  0, or
 * -1 with a reason.
 */
static int
WsHostFinish(const WsPlan *p, const PbWatershedSpec *spec, const char *hkeys, uint32_t *labels,
			 char *err, size_t err_len)
{
	if (!p->mk && WsHostNumber(labels, p->w * p->h, err, err_len) != 0)
		return -1;
	if (p->lines && WsHostLines(spec, hkeys, labels, err, err_len) != 0)
		return -1;
	return 0;
}

/*
 * The tiled run on the GPUs of devs (each begun, with the plan's tiles
 * fitting its budget): the first on the calling thread, the others on
 * threads of their own, all taking tiles from one schedule until no
 * border changes; then the numbering and the lines on the host.  0, 1,
 * or -1 with a reason (the first failure's).
 */
static int
WsRunTiled(WsDev *devs, int ndev, const WsPlan *p, const PbWatershedSpec *spec,
		   uint32_t *labels, char *host_keys, PbPollFn poll, void *poll_arg, char *err,
		   size_t err_len)
{
	PbRun		run = {1, 0, poll, poll_arg};
	WsTiledJob	j = {p, spec, labels, WsHostBegin(p, labels, host_keys),
	PbTileSweepNew(p->ntx, p->nty, &run), poll, poll_arg, &devs[0]};
	int			rc = 0;

	if (j.hkeys == NULL || j.sweep == NULL)
	{
		snprintf(err, err_len, "out of host memory for a tiled watershed");
		rc = -1;
		goto done;
	}
	for (int d = 0; d < ndev; d++)
	{
		devs[d].job = &j;
		/* a GPU whose thread does not start leaves its tiles to the others */
		if (d > 0 && PbThreadStart(&devs[d].thread, WsDevMain, &devs[d]) != 0)
			devs[d].job = NULL;
	}
	WsDevTiles(&devs[0]);
	for (int d = 1; d < ndev; d++)
		if (devs[d].job != NULL)
			pthread_join(devs[d].thread, NULL);
	for (int d = 0; d < ndev && rc != -1; d++)
		if (devs[d].rc != 0)
		{
			rc = devs[d].rc;
			if (rc == -1)
				snprintf(err, err_len, "%s", devs[d].err);
		}
	if (rc == 0 && PbTileSweepStatus(j.sweep) == PB_ERR_STOPPED)
		rc = 1;
	if (rc == 0 && WsHostFinish(p, spec, j.hkeys, labels, err, err_len) != 0)
		rc = -1;
done:
	if (host_keys == NULL)
		free(j.hkeys);
	PbTileSweepFree(j.sweep);
	return rc;
}

/*
 * The untiled run of the whole image on the GPU of d (begun): buffers,
 * the region, the buffers freed.  0, 1, or -1 with a reason.
 */
static int
WsRunWhole(WsDev *d, const WsPlan *p, const PbWatershedSpec *spec, uint32_t *labels,
		   PbPollFn poll, void *poll_arg, char *err, size_t err_len)
{
	int			rc = WsAlloc(d->c, p, &d->b, true, err, err_len);

	if (rc == 0)
		rc = WsRunRegion(d->c, p, &d->b, spec, labels, NULL, 0, 0, (int) p->w, (int) p->h,
						 poll, poll_arg, &d->st, err, err_len);
	WsFreeBufs(d->c, &d->b);
	if (cudaStreamSynchronize(d->c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	d->share.runs = 1;
	return rc;
}

/* The plan of spec's watershed: sizes, key bytes, what it reads and draws. */
void
WsPlanOf(WsPlan *p, const PbWatershedSpec *spec)
{
	memset(p, 0, sizeof(*p));
	p->w = spec->image.width;
	p->h = spec->image.height;
	p->ps = PbPixSize(spec->image.type);
	p->mk = spec->markers != NULL;
	p->wall = spec->wall != NULL;
	p->kb = WsKeyBytes(p->mk);
	p->sync = ws_test_sync != 0;
	p->lines = spec->lines;
}

/* Whether plan p runs untiled, with its finishing buffers, in budget. */
static bool
WsWhole(WsPlan *p, size_t budget)
{
	return WsPlanTiles(p, budget, 0) == 0 && p->ntx == 1 && p->nty == 1 && p->rw == p->w &&
		p->rh == p->h && WsRegionBytes(p, p->w, p->h, true) <= budget;
}

/* Whether spec's watershed runs untiled on g now (see pb_raster_gpu.h). */
extern "C" int
PbGpuWatershedHolds(PbGpu *g, const PbWatershedSpec *spec, char *err, size_t err_len)
{
	RgCtx	   *c;
	size_t		budget;
	WsPlan		p;
	bool		whole;

	if (PbWatershedCheckGpu(spec) != PB_OK)
	{
		snprintf(err, err_len, "invalid watershed arguments (sizes, pixel type, connectivity or data)");
		return -1;
	}
	if (RgBegin(g, &c, &budget, err, err_len) != 0)
		return -1;
	WsPlanOf(&p, spec);
	whole = WsWhole(&p, budget);
	RgEnd(c);
	return whole ? 1 : 0;
}

/* Whether spec's watershed runs in resident bands on gpus (see pb_raster_gpu.h). */
extern "C" int
PbGpuWatershedBandsFit(PbGpu *const *gpus, int ngpu, const PbWatershedSpec *spec, char *err,
					   size_t err_len)
{
	WsDev		devs[PB_WS_MAX_DEVICES];
	WsPlan		p;
	int			begun = 0,
				rc = -1;

	if (ngpu < 1 || ngpu > PB_WS_MAX_DEVICES || PbWatershedCheckGpu(spec) != PB_OK)
	{
		snprintf(err, err_len, "invalid watershed arguments (sizes, pixel type, connectivity or data)");
		return -1;
	}
	memset(devs, 0, sizeof(devs));
	WsPlanOf(&p, spec);
	for (; begun < ngpu; begun++)
		if (RgBegin(gpus[begun], &devs[begun].c, &devs[begun].budget, err, err_len) != 0)
			goto done;
	rc = WsBandsFit(&p, devs, ngpu) ? 1 : 0;
done:
	for (int d = 0; d < begun; d++)
		RgEnd(devs[d].c);
	return rc;
}

/*
 * The watershed of spec on the GPUs of gpus, untiled on the first when it
 * fits what is left of its budget, else in tiles of the smallest budget
 * among them (see pb_raster_gpu.h for the contract).
 */
extern "C" int
PbGpuWatershedOn(PbGpu *const *gpus, int ngpu, const PbWatershedSpec *spec, uint32_t *labels,
				 void *host_keys, PbPollFn poll, void *poll_arg, PbRasterGpuStats *stats,
				 PbGpuShare *shares, char *err, size_t err_len)
{
	PbRasterGpuStats st;
	WsDev	   *devs = NULL;
	size_t		budget = 0;
	WsPlan		p;
	int			begun = 0;
	int			rc = -1;

	memset(&st, 0, sizeof(st));
	if (stats)
		*stats = st;
	if (shares && ngpu > 0)
		memset(shares, 0, (size_t) ngpu * sizeof(PbGpuShare));
	if (ngpu < 1 || gpus == NULL || PbWatershedCheckGpu(spec) != PB_OK || labels == NULL)
	{
		snprintf(err, err_len, "invalid watershed arguments (sizes, pixel type, connectivity or data)");
		return -1;
	}
	if ((devs = (WsDev *) calloc((size_t) ngpu, sizeof(WsDev))) == NULL)
	{
		snprintf(err, err_len, "out of host memory for a watershed");
		return -1;
	}
	WsPlanOf(&p, spec);
	if (RgBegin(gpus[0], &devs[0].c, &devs[0].budget, err, err_len) != 0)
		goto done;
	begun = 1;
	budget = devs[0].budget;
	if (WsWhole(&p, budget))
	{
		st.tiles = 1;
		rc = WsRunWhole(&devs[0], &p, spec, labels, poll, poll_arg, err, err_len);
		goto done;
	}
	for (; begun < ngpu; begun++)
	{
		if (RgBegin(gpus[begun], &devs[begun].c, &devs[begun].budget, err, err_len) != 0)
			goto done;
		budget = devs[begun].budget < budget ? devs[begun].budget : budget;
	}
	if (WsBandsFit(&p, devs, ngpu))	/* a band on each GPU, resident */
	{
		st.tiles = ngpu;
		rc = WsRunBands(devs, ngpu, &p, spec, labels, poll, poll_arg, err, err_len);
		goto done;
	}
	/* several GPUs: a quarter of the side at most, so that tiles run side by side */
	if (WsPlanTiles(&p, budget, ngpu > 1 ? ((p.w > p.h ? p.w : p.h) + 3) / 4 : 0) != 0)
	{
		snprintf(err, err_len, "memory budget of %zu bytes is too small for one tile of the watershed",
				 budget);
		goto done;
	}
	st.tiles = p.ntx * p.nty;
	rc = WsRunTiled(devs, ngpu, &p, spec, labels, (char *) host_keys, poll, poll_arg, err,
					err_len);
done:
	for (int d = 0; d < begun; d++)
	{
		st.rounds += devs[d].st.rounds;
		st.overflows += devs[d].st.overflows;
		st.kernel_ms += devs[d].st.kernel_ms;
		st.transfer_ms += devs[d].st.transfer_ms;
		if (shares)
			shares[d] = devs[d].share;
		RgEnd(devs[d].c);
	}
	free(devs);
	if (stats)
		*stats = st;
	return rc;
}

/* The watershed of spec on the GPU of g (see pb_raster_gpu.h). */
extern "C" int
PbGpuWatershed(PbGpu *g, const PbWatershedSpec *spec, uint32_t *labels, void *host_keys,
			   PbPollFn poll, void *poll_arg, PbRasterGpuStats *stats, char *err, size_t err_len)
{
	return PbGpuWatershedOn(&g, 1, spec, labels, host_keys, poll, poll_arg, stats, NULL, err,
							err_len);
}

/* The bytes of the host keys of spec's watershed in tiles (see pb_raster_gpu.h). */
extern "C" size_t
PbGpuWatershedHostKeyBytes(const PbWatershedSpec *spec)
{
	WsPlan		p;

	WsPlanOf(&p, spec);
	return (size_t) p.w * p.h * p.kb;
}
