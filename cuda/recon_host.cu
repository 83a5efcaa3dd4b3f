/*
 * recon_host.cu: the host driver of gray-scale morphological
 * reconstruction on the GPU (PbGpuReconstruct of pb_raster_gpu.h), whose
 * kernels are recon_kernels.cu (the algorithm is described there): the
 * plan of a call within the context's budget, its device buffers, and per
 * tile the loading, the raster scans, the queue phase launched in rounds
 * and polled between them (re-finding the wavefront after a queue
 * overflow), and the store back.  It launches kernels only through the
 * launchers of recon_gpu.cuh.
 *
 * Images larger than memory_budget are cut into tiles, each loaded with a
 * one-pixel halo of its neighbours' current values; tiles whose halo
 * changed (a neighbour's border moved) are processed again until none is
 * left, which reaches the same fixpoint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_raster_gpu_test.h"
#include "recon_gpu.cuh"

#define RC_MAX_ITERS 1024		/* queue iterations of a block per launch */
#define RC_MAX_ITEMS (1u << 18) /* items a block may process per launch */
#define RC_MIN_BLOCK_Q 256		/* smallest global queue of a block */
#define RC_MAX_BLOCK_Q (1u << 20)	/* largest global queue of a block */
#define RC_MAX_TILE_PIX ((size_t) 1 << 30)	/* pixel indices stay int */

static unsigned rc_test_block_q;	/* tests: forced per-block capacity */

/* Tests only: force the per-block global queue capacity (0: automatic). */
extern "C" void
PbGpuReconTestQueue(unsigned items_per_block)
{
	rc_test_block_q = items_per_block;
}

/* How one call runs: sizes, tiles and device buffers. */
struct ReconPlan
{
	int			w,
				h;
	size_t		ps;				/* bytes per pixel of the type */
	int			tw,
				th;				/* tile interior (the image when untiled) */
	int			ntx,
				nty;
	size_t		tile_pix;		/* most pixels of a tile with its halo */
	unsigned	nblocks;		/* propagation blocks */
	unsigned	cb;				/* global queue of a block */
};

/* Blocks and per-block queue for a tile of npix pixels. */
static void
QueueShape(size_t npix, int sms, int occ, unsigned *nblocks, unsigned *cb)
{
	size_t		nbk = (size_t) sms * (occ > 0 ? occ : 1);
	size_t		want = npix / 4096 + 1;
	size_t		c;

	if (want < nbk)
		nbk = want;
	c = npix / (8 * nbk);
	if (c < RC_MIN_BLOCK_Q)
		c = RC_MIN_BLOCK_Q;
	if (c > RC_MAX_BLOCK_Q)
		c = RC_MAX_BLOCK_Q;
	if (rc_test_block_q > 0)
		c = rc_test_block_q;
	*nblocks = (unsigned) nbk;
	*cb = (unsigned) c;
}

/* Device bytes a tile of npix pixels needs (see RunTile's buffers). */
static size_t
TileBytes(size_t npix, size_t ps, int sms, int occ)
{
	unsigned	nbk,
				cb;

	QueueShape(npix, sms, occ, &nbk, &cb);
	/* J, I, staging, queues in + next + 2 regions, counters, slack */
	return npix * (8 + ps) + (size_t) 4 * nbk * cb * sizeof(int) + 4096;
}

/*
 * Choose the tiles: the whole image when it fits the budget, else the
 * largest square interior (plus halo) that does.  -1 when nothing fits.
 */
static int
PlanTiles(ReconPlan *pl, size_t budget, int sms, int occ)
{
	size_t		npix = (size_t) pl->w * pl->h;
	long		s;

	pl->tw = pl->w;
	pl->th = pl->h;
	if (npix > RC_MAX_TILE_PIX || TileBytes(npix, pl->ps, sms, occ) > budget)
	{
		long		lo = 0,
					hi = pl->w > pl->h ? pl->w : pl->h;

		while (lo < hi)			/* largest s whose tile fits */
		{
			long		mid = (lo + hi + 1) / 2;
			size_t		side_w = (size_t) (mid < pl->w ? mid : pl->w) + 2;
			size_t		side_h = (size_t) (mid < pl->h ? mid : pl->h) + 2;

			if (side_w * side_h <= RC_MAX_TILE_PIX &&
				TileBytes(side_w * side_h, pl->ps, sms, occ) <= budget)
				lo = mid;
			else
				hi = mid - 1;
		}
		s = lo;
		if (s < 1)
			return -1;
		pl->tw = s < pl->w ? (int) s : pl->w;
		pl->th = s < pl->h ? (int) s : pl->h;
	}
	pl->ntx = (pl->w + pl->tw - 1) / pl->tw;
	pl->nty = (pl->h + pl->th - 1) / pl->th;
	pl->tile_pix = (size_t) (pl->tw + (pl->ntx > 1 ? 2 : 0)) * (pl->th + (pl->nty > 1 ? 2 : 0));
	QueueShape(pl->tile_pix, sms, occ, &pl->nblocks, &pl->cb);
	return 0;
}

/* Device buffers of a call, reused by every tile. */
struct ReconBufs
{
	int		   *J,
			   *I;
	void	   *stage;			/* pixels of the native type */
	int		   *q[2];			/* input / next queues, nblocks * cb each */
	int		   *regions;		/* 2 * nblocks * cb */
	unsigned   *cnt;			/* RC_NWORDS counters */
};

/* The grid of an elementwise kernel over n items. */
static int
ElemGrid(size_t n, int sms)
{
	size_t		g = (n + 255) / 256;
	size_t		most = (size_t) sms * 16;

	return (int) (g < 1 ? 1 : g > most ? most : g);
}

/*
 * Reconstruct one tile: pixels [x0, x1) x [y0, y1) of the interior, loaded
 * with the halo [rx0, rx1) x [ry0, ry1); the interior is written back into
 * marker.  0, 1 when polled to stop, -1 with a reason.
 */
static int
RunTile(RgCtx *c, const ReconPlan *pl, const ReconKernels *kr, ReconBufs *b,
		PbImage *marker, const PbImage *mask, int x0, int y0, int x1, int y1,
		PbPollFn poll, void *poll_arg, PbRasterGpuStats *st, char *err, size_t err_len)
{
	int			rx0 = x0 > 0 && pl->ntx > 1 ? x0 - 1 : x0;
	int			ry0 = y0 > 0 && pl->nty > 1 ? y0 - 1 : y0;
	int			rx1 = x1 < pl->w && pl->ntx > 1 ? x1 + 1 : x1;
	int			ry1 = y1 < pl->h && pl->nty > 1 ? y1 + 1 : y1;
	int			rw = rx1 - rx0,
				rh = ry1 - ry0;
	size_t		n = (size_t) rw * rh;
	size_t		ps = pl->ps;
	size_t		off = ((size_t) ry0 * pl->w + rx0) * ps;
	int			eg = ElemGrid(n, c->sms);
	int			in = 0;			/* which queue is the input */
	int			detect = 1;		/* find the wavefront before propagating */
	int			pending = 0;	/* items were dropped: find it again later */
	unsigned	qcap = pl->nblocks * pl->cb;
	unsigned	nitems = 0;
	PropArgs	pa;

	/* load marker and mask */
	RG_TRY(RgTimeStart(c), "timing");
	RG_TRY(cudaMemcpy2DAsync(b->stage, rw * ps, (const char *) marker->data + off,
							 (size_t) pl->w * ps, rw * ps, rh, cudaMemcpyHostToDevice,
							 c->stream), "copying the marker to the GPU");
	kr->load_keys(b->stage, b->J, n, c->stream, eg);
	RG_TRY(cudaGetLastError(), "launching the marker conversion");
	RG_TRY(cudaMemcpy2DAsync(b->stage, rw * ps, (const char *) mask->data + off,
							 (size_t) pl->w * ps, rw * ps, rh, cudaMemcpyHostToDevice,
							 c->stream), "copying the mask to the GPU");
	kr->load_mask(b->stage, b->I, b->J, n, c->stream, eg);
	RG_TRY(cudaGetLastError(), "launching the mask conversion");
	RG_TRY(RgTimeEnd(c, &st->transfer_ms), "loading the tile");

	/* raster and anti-raster scans */
	RG_TRY(RgTimeStart(c), "timing");
	kr->scans(b->J, b->I, rw, rh, c->stream);
	RG_TRY(cudaGetLastError(), "launching the raster scans");
	RG_TRY(RgTimeEnd(c, &st->kernel_ms), "running the raster scans");

	/* the queue phase, polled between rounds */
	memset(&pa, 0, sizeof(pa));
	pa.J = b->J;
	pa.I = b->I;
	pa.w = rw;
	pa.h = rh;
	pa.cap_in = qcap;
	pa.regions = b->regions;
	pa.cb = pl->cb;
	pa.ctl = b->cnt;
	pa.max_iters = RC_MAX_ITERS;
	pa.max_items = RC_MAX_ITEMS;
	for (;;)
	{
		if (RgStop(poll, poll_arg))
			return 1;
		if (detect)
		{
			RG_TRY(RgTimeStart(c), "timing");
			RG_TRY(cudaMemsetAsync(&b->cnt[in], 0, sizeof(unsigned), c->stream),
				   "clearing a counter");
			kr->detect(b->J, b->I, rw, rh, b->q[in], &b->cnt[in], qcap, c->stream,
					   ElemGrid(n, c->sms));
			RG_TRY(cudaGetLastError(), "launching the wavefront detection");
			RG_TRY(cudaMemcpyAsync(c->h_small, b->cnt, RC_NWORDS * sizeof(unsigned),
								   cudaMemcpyDeviceToHost, c->stream), "reading counters");
			RG_TRY(RgTimeEnd(c, &st->kernel_ms), "finding the wavefront");
			nitems = c->h_small[in];
			if (nitems > qcap)
			{
				nitems = qcap;
				pending = 1;
				st->overflows++;
			}
			detect = 0;
		}
		if (nitems == 0)
		{
			if (!pending)
				break;
			pending = 0;
			detect = 1;
			continue;
		}
		RG_TRY(RgTimeStart(c), "timing");
		RG_TRY(cudaMemsetAsync(&b->cnt[!in], 0, sizeof(unsigned), c->stream),
			   "clearing a counter");
		RG_TRY(cudaMemsetAsync(&b->cnt[RC_DONE], 0, 2 * sizeof(unsigned), c->stream),
			   "clearing a counter");
		pa.qin = b->q[in];
		pa.nin = &b->cnt[in];
		pa.qnext = b->q[!in];
		pa.nnext = &b->cnt[!in];
		kr->prop(pa, c->stream, pl->nblocks);
		RG_TRY(cudaGetLastError(), "launching the wavefront propagation");
		RG_TRY(cudaMemcpyAsync(c->h_small, b->cnt, RC_NWORDS * sizeof(unsigned),
							   cudaMemcpyDeviceToHost, c->stream), "reading counters");
		RG_TRY(RgTimeEnd(c, &st->kernel_ms), "propagating the wavefront");
		st->rounds++;
		if (c->h_small[RC_OVF])
		{
			pending = 1;
			st->overflows++;
		}
		in = !in;
		nitems = c->h_small[in];
	}

	/* store the interior back */
	RG_TRY(RgTimeStart(c), "timing");
	kr->store_keys(b->J, b->stage, n, c->stream, eg);
	RG_TRY(cudaGetLastError(), "launching the result conversion");
	RG_TRY(cudaMemcpy2DAsync((char *) marker->data + ((size_t) y0 * pl->w + x0) * ps,
							 (size_t) pl->w * ps,
							 (const char *) b->stage + ((size_t) (y0 - ry0) * rw + (x0 - rx0)) * ps,
							 rw * ps, (size_t) (x1 - x0) * ps, y1 - y0,
							 cudaMemcpyDeviceToHost, c->stream), "copying the result back");
	RG_TRY(RgTimeEnd(c, &st->transfer_ms), "storing the tile");
	return 0;
fail:
	return -1;
}

/* Save the border ring of tile interior [x0,x1)x[y0,y1) of img into ring. */
static void
SaveRing(const PbImage *img, size_t ps, int x0, int y0, int x1, int y1, char *ring)
{
	const char *d = (const char *) img->data;
	size_t		rowb = (size_t) (x1 - x0) * ps;

	memcpy(ring, d + ((size_t) y0 * img->width + x0) * ps, rowb);
	ring += rowb;
	memcpy(ring, d + ((size_t) (y1 - 1) * img->width + x0) * ps, rowb);
	ring += rowb;
	for (int y = y0; y < y1; y++)
	{
		memcpy(ring, d + ((size_t) y * img->width + x0) * ps, ps);
		memcpy(ring + ps, d + ((size_t) y * img->width + x1 - 1) * ps, ps);
		ring += 2 * ps;
	}
}

/* Whether the border ring of the tile differs from the saved one. */
static bool
RingChanged(const PbImage *img, size_t ps, int x0, int y0, int x1, int y1, const char *ring)
{
	const char *d = (const char *) img->data;
	size_t		rowb = (size_t) (x1 - x0) * ps;

	if (memcmp(ring, d + ((size_t) y0 * img->width + x0) * ps, rowb) != 0 ||
		memcmp(ring + rowb, d + ((size_t) (y1 - 1) * img->width + x0) * ps, rowb) != 0)
		return true;
	ring += 2 * rowb;
	for (int y = y0; y < y1; y++)
	{
		if (memcmp(ring, d + ((size_t) y * img->width + x0) * ps, ps) != 0 ||
			memcmp(ring + ps, d + ((size_t) y * img->width + x1 - 1) * ps, ps) != 0)
			return true;
		ring += 2 * ps;
	}
	return false;
}

/*
 * Reconstruct marker under (or, eroding, above) mask on the GPU of g: the
 * whole image at once when it fits what is left of g's budget, else tile
 * by tile until no tile border changes (see pb_raster_gpu.h for the
 * contract).
 */
extern "C" int
PbGpuReconstruct(PbGpu *g, PbImage *marker, const PbImage *mask, int connectivity,
				 PbReconOp op, PbPollFn poll, void *poll_arg,
				 PbRasterGpuStats *stats, char *err, size_t err_len)
{
	PbRasterGpuStats st;
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	ReconPlan	pl;
	ReconKernels kr;
	ReconBufs	b;
	unsigned char *dirty = NULL;
	char	   *ring = NULL;
	int			occ = 0;
	int			rc = -1;
	bool		er = op == PB_RECON_ERODE;
	bool		any;
	int			sweep = 0;
	size_t		ntiles;

	memset(&st, 0, sizeof(st));
	memset(&b, 0, sizeof(b));
	memset(&pl, 0, sizeof(pl));
	if (stats)
		*stats = st;
	if (marker == NULL || mask == NULL || marker->width != mask->width ||
		marker->height != mask->height || marker->type != mask->type ||
		marker->width < 0 || marker->height < 0 || PbPixSize(marker->type) == 0 ||
		(connectivity != 4 && connectivity != 8) ||
		(op != PB_RECON_DILATE && op != PB_RECON_ERODE))
	{
		snprintf(err, err_len, "invalid reconstruction arguments (sizes, types, connectivity or operation)");
		return -1;
	}
	if (marker->width == 0 || marker->height == 0)
		return 0;
	if (marker->data == NULL || mask->data == NULL)
	{
		snprintf(err, err_len, "invalid reconstruction arguments (no pixel data)");
		return -1;
	}
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	kr = RcPickKernels(er, connectivity == 8, PbPixSize(marker->type));
	RG_TRY(kr.prop_occupancy(&occ), "querying the occupancy of the propagation kernel");
	pl.w = marker->width;
	pl.h = marker->height;
	pl.ps = PbPixSize(marker->type);
	if (PlanTiles(&pl, memory_budget, c->sms, occ) != 0)
	{
		snprintf(err, err_len, "memory budget of %zu bytes is too small for one tile of the reconstruction",
				 memory_budget);
		goto fail;
	}

	ntiles = (size_t) pl.ntx * pl.nty;
	st.tiles = (int) ntiles;
	RG_TRY(RgAlloc(c, (void **) &b.J, pl.tile_pix * sizeof(int)), "allocating GPU memory for the marker");
	RG_TRY(RgAlloc(c, (void **) &b.I, pl.tile_pix * sizeof(int)), "allocating GPU memory for the mask");
	RG_TRY(RgAlloc(c, &b.stage, pl.tile_pix * pl.ps), "allocating GPU memory for staging");
	RG_TRY(RgAlloc(c, (void **) &b.q[0], (size_t) pl.nblocks * pl.cb * sizeof(int)),
		   "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b.q[1], (size_t) pl.nblocks * pl.cb * sizeof(int)),
		   "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b.regions, (size_t) 2 * pl.nblocks * pl.cb * sizeof(int)),
		   "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b.cnt, RC_NWORDS * sizeof(unsigned)), "allocating GPU memory for counters");

	dirty = (unsigned char *) malloc(ntiles);
	ring = (char *) malloc((size_t) 2 * (pl.tw + pl.th) * pl.ps + 16);
	if (dirty == NULL || ring == NULL)
	{
		snprintf(err, err_len, "out of host memory");
		goto fail;
	}
	memset(dirty, 1, ntiles);

	/* sweep the tiles (alternately forwards and backwards) while any is dirty */
	do
	{
		any = false;
		for (size_t k = 0; k < ntiles; k++)
		{
			size_t		t = sweep % 2 == 0 ? k : ntiles - 1 - k;
			int			tx = (int) (t % pl.ntx),
						ty = (int) (t / pl.ntx);
			int			x0 = tx * pl.tw,
						y0 = ty * pl.th;
			int			x1 = x0 + pl.tw < pl.w ? x0 + pl.tw : pl.w;
			int			y1 = y0 + pl.th < pl.h ? y0 + pl.th : pl.h;
			int			r;

			if (!dirty[t])
				continue;
			dirty[t] = 0;
			if (ntiles > 1)
				SaveRing(marker, pl.ps, x0, y0, x1, y1, ring);
			r = RunTile(c, &pl, &kr, &b, marker, mask, x0, y0, x1, y1, poll, poll_arg,
						&st, err, err_len);
			if (r != 0)
			{
				rc = r;
				goto done;
			}
			if (ntiles > 1 && RingChanged(marker, pl.ps, x0, y0, x1, y1, ring))
			{
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++)
					{
						int			nx = tx + dx,
									ny = ty + dy;

						if ((dx || dy) && nx >= 0 && nx < pl.ntx && ny >= 0 && ny < pl.nty)
						{
							dirty[(size_t) ny * pl.ntx + nx] = 1;
							any = true;
						}
					}
			}
		}
		sweep++;
	} while (any);
	rc = 0;
	goto done;
fail:
	rc = -1;
done:
	RgFree(c, b.J);
	RgFree(c, b.I);
	RgFree(c, b.stage);
	RgFree(c, b.q[0]);
	RgFree(c, b.q[1]);
	RgFree(c, b.regions);
	RgFree(c, b.cnt);
	if (cudaStreamSynchronize(c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	RgEnd(c);
	free(dirty);
	free(ring);
	if (stats)
		*stats = st;
	return rc;
}
