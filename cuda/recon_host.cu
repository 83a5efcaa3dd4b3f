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
 * Images larger than memory_budget (or than the largest tile) are cut
 * into tiles, each with a one-pixel halo of its neighbours' current
 * values; tiles whose halo changed (a neighbour's border moved) are
 * processed again until none is left, which reaches the same fixpoint.
 * When the keys of every tile fit the budget together, the tiles stay
 * resident on the device and their halos are exchanged there (the IWPP
 * paper's border propagation between tiles, without the host); else each
 * visit of a tile loads it from the host and stores it back.
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
#define RC_MIN_RESIDENT 2048	/* smallest side of resident tiles (launches per tile) */

static unsigned rc_test_block_q;	/* tests: forced per-block capacity */
static size_t rc_test_tile_cap; /* tests: forced largest tile (pixels) */

/* Tests only: force the per-block global queue capacity (0: automatic). */
extern "C" void
PbGpuReconTestQueue(unsigned items_per_block)
{
	rc_test_block_q = items_per_block;
}

/* Tests only: force the largest tile, halo included, in pixels (0: automatic). */
extern "C" void
PbGpuReconTestTileCap(size_t pixels)
{
	rc_test_tile_cap = pixels;
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
	bool		resident;		/* every tile stays on the device */
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

/* Device bytes of the queues of a tile of npix pixels (in, next, 2 regions). */
static size_t
QueueBytes(size_t npix, int sms, int occ)
{
	unsigned	nbk,
				cb;

	QueueShape(npix, sms, occ, &nbk, &cb);
	return (size_t) 4 * nbk * cb * sizeof(int);
}

/* Device bytes a tile of npix pixels needs through the host (J, I, staging, queues). */
static size_t
TileBytes(size_t npix, size_t ps, int sms, int occ)
{
	return npix * (8 + ps) + QueueBytes(npix, sms, occ) + 4096;
}

/*
 * Cut the image into interiors of at most side s (s >= 1), as even as the
 * sides allow, and size the tile buffers and queues.
 */
static void
CutTiles(ReconPlan *pl, long s, int sms, int occ)
{
	pl->ntx = (int) ((pl->w + s - 1) / s);
	pl->nty = (int) ((pl->h + s - 1) / s);
	pl->tw = (pl->w + pl->ntx - 1) / pl->ntx;
	pl->th = (pl->h + pl->nty - 1) / pl->nty;
	pl->tile_pix = (size_t) (pl->tw + (pl->ntx > 1 ? 2 : 0)) * (pl->th + (pl->nty > 1 ? 2 : 0));
	QueueShape(pl->tile_pix, sms, occ, &pl->nblocks, &pl->cb);
}

/*
 * Device bytes of every tile resident at once: the keys of marker and
 * mask of all tiles with their halos, one staging buffer, the queues and
 * a tile's border ring.
 */
static size_t
ResidentBytes(const ReconPlan *pl, int sms, int occ)
{
	size_t		all = (size_t) (pl->w + 2 * (pl->ntx - 1)) * (pl->h + 2 * (pl->nty - 1));

	return all * 8 + pl->tile_pix * pl->ps + QueueBytes(pl->tile_pix, sms, occ) +
		(size_t) 2 * (pl->tw + pl->th) * sizeof(int) + 8192;
}

/*
 * Choose the tiles: the whole image when it fits the budget (and the
 * largest tile), else tiles resident on the device when all of them fit
 * the budget (the largest that do), else the largest square interiors
 * (plus halo) that fit it, to go through the host.  -1 when nothing fits.
 */
static int
PlanTiles(ReconPlan *pl, size_t budget, int sms, int occ)
{
	size_t		npix = (size_t) pl->w * pl->h;
	size_t		cap = rc_test_tile_cap > 0 ? rc_test_tile_cap : RC_MAX_TILE_PIX;
	long		lo = 0,
				hi = pl->w > pl->h ? pl->w : pl->h;

	pl->resident = false;
	if (npix <= cap && TileBytes(npix, pl->ps, sms, occ) <= budget)
	{
		CutTiles(pl, hi, sms, occ);
		return 0;
	}
	while (lo < hi)				/* largest s whose tile fits */
	{
		long		mid = (lo + hi + 1) / 2;
		size_t		side_w = (size_t) (mid < pl->w ? mid : pl->w) + 2;
		size_t		side_h = (size_t) (mid < pl->h ? mid : pl->h) + 2;

		if (side_w * side_h <= cap && TileBytes(side_w * side_h, pl->ps, sms, occ) <= budget)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (lo < 1)
		return -1;
	/* resident: the largest of s, s/2, s/4, ... (down to RC_MIN_RESIDENT) whose tiles all fit */
	for (long s = lo; s >= RC_MIN_RESIDENT || s == lo; s /= 2)
	{
		CutTiles(pl, s, sms, occ);
		if (ResidentBytes(pl, sms, occ) <= budget)
		{
			pl->resident = true;
			return 0;
		}
	}
	CutTiles(pl, lo, sms, occ);
	return 0;
}

/* Device buffers of a call, reused by every tile. */
struct ReconBufs
{
	int		   *J,
			   *I;				/* the tile through the host (not resident) */
	void	   *stage;			/* pixels of the native type */
	int		   *q[2];			/* input / next queues, nblocks * cb each */
	int		   *regions;		/* 2 * nblocks * cb */
	unsigned   *cnt;			/* RC_NWORDS counters */
	char	   *halo,
			   *border;			/* a window's rings (PbGpuReconstructWindow) */
};

/*
 * Allocate b's buffers for plan pl (the tile through the host unless
 * resident, staging, queues, counters).  0, or -1 with a reason.
 */
static int
AllocBufs(RgCtx *c, const ReconPlan *pl, ReconBufs *b, char *err, size_t err_len)
{
	size_t		q = (size_t) pl->nblocks * pl->cb * sizeof(int);

	if (!pl->resident)
	{
		RG_TRY(RgAlloc(c, (void **) &b->J, pl->tile_pix * sizeof(int)), "allocating GPU memory for the marker");
		RG_TRY(RgAlloc(c, (void **) &b->I, pl->tile_pix * sizeof(int)), "allocating GPU memory for the mask");
	}
	RG_TRY(RgAlloc(c, &b->stage, pl->tile_pix * pl->ps), "allocating GPU memory for staging");
	RG_TRY(RgAlloc(c, (void **) &b->q[0], q), "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b->q[1], q), "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b->regions, 2 * q), "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b->cnt, RC_NWORDS * sizeof(unsigned)), "allocating GPU memory for counters");
	return 0;
fail:
	return -1;
}

/*
 * Free b's buffers (any of them NULL) and wait for the stream: rc, or -1
 * with a reason when the wait fails a call that had succeeded.
 */
static int
FreeBufs(RgCtx *c, ReconBufs *b, int rc, char *err, size_t err_len)
{
	RgFree(c, b->J);
	RgFree(c, b->I);
	RgFree(c, b->stage);
	RgFree(c, b->q[0]);
	RgFree(c, b->q[1]);
	RgFree(c, b->regions);
	RgFree(c, b->cnt);
	RgFree(c, b->halo);
	RgFree(c, b->border);
	if (cudaStreamSynchronize(c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	return rc;
}

/* A tile: its interior [x0, x1) x [y0, y1), and with its halo [rx0, rx1) x [ry0, ry1). */
struct TileRect
{
	int			x0,
				y0,
				x1,
				y1,
				rx0,
				ry0,
				rx1,
				ry1;
};

/* The rectangle of tile t (row-major) of the plan. */
static TileRect
TileOf(const ReconPlan *pl, size_t t)
{
	TileRect	r;
	int			tx = (int) (t % pl->ntx),
				ty = (int) (t / pl->ntx);

	r.x0 = tx * pl->tw;
	r.y0 = ty * pl->th;
	r.x1 = r.x0 + pl->tw < pl->w ? r.x0 + pl->tw : pl->w;
	r.y1 = r.y0 + pl->th < pl->h ? r.y0 + pl->th : pl->h;
	r.rx0 = r.x0 > 0 ? r.x0 - 1 : r.x0;
	r.ry0 = r.y0 > 0 ? r.y0 - 1 : r.y0;
	r.rx1 = r.x1 < pl->w ? r.x1 + 1 : r.x1;
	r.ry1 = r.y1 < pl->h ? r.y1 + 1 : r.y1;
	return r;
}

/* The grid of an elementwise kernel over n items. */
static int
ElemGrid(size_t n, int sms)
{
	size_t		g = (n + 255) / 256;
	size_t		most = (size_t) sms * 16;

	return (int) (g < 1 ? 1 : g > most ? most : g);
}

/*
 * Load tile r of marker and mask (with its halo) from the host into J and
 * I as keys, through the staging buffer; the ring of the tile's extent
 * from the device buffer ring instead of marker's, when ring is not NULL.
 * 0, or -1 with a reason.
 */
static int
LoadTile(RgCtx *c, const ReconPlan *pl, const ReconKernels *kr, void *stage, int *J, int *I,
		 const PbImage *marker, const PbImage *mask, const TileRect *r, char *ring,
		 PbRasterGpuStats *st, char *err, size_t err_len)
{
	int			rw = r->rx1 - r->rx0,
				rh = r->ry1 - r->ry0;
	size_t		n = (size_t) rw * rh;
	size_t		ps = pl->ps;
	size_t		pitch = (size_t) marker->width * ps;
	size_t		off = (size_t) r->ry0 * pitch + (size_t) r->rx0 * ps;
	int			eg = ElemGrid(n, c->sms);

	RG_TRY(RgTimeStart(c), "timing");
	if (RgCopyIn(c, stage, rw * ps, (const char *) marker->data + off, pitch,
				 rw * ps, rh, "copying the marker to the GPU", err, err_len) != 0)
		goto fail;
	if (ring != NULL)
		RG_TRY(RgRingMove((char *) stage, rw, 0, 0, rw, rh, ps, ring, false, c->stream),
			   "launching the halo's copy");
	kr->load_keys(stage, J, n, c->stream, eg);
	RG_TRY(cudaGetLastError(), "launching the marker conversion");
	if (RgCopyIn(c, stage, rw * ps, (const char *) mask->data + off, pitch,
				 rw * ps, rh, "copying the mask to the GPU", err, err_len) != 0)
		goto fail;
	kr->load_mask(stage, I, J, n, c->stream, eg);
	RG_TRY(cudaGetLastError(), "launching the mask conversion");
	RG_TRY(RgTimeEnd(c, &st->transfer_ms), "loading the tile");
	return 0;
fail:
	return -1;
}

/*
 * Store the interior of tile r from its keys J back into marker on the
 * host, through the staging buffer; when ring is not NULL, the interior's
 * own ring goes into the device buffer ring instead of marker.  0, or -1
 * with a reason.
 */
static int
StoreTile(RgCtx *c, const ReconPlan *pl, const ReconKernels *kr, void *stage, const int *J,
		  PbImage *marker, const TileRect *r, char *ring, PbRasterGpuStats *st, char *err,
		  size_t err_len)
{
	int			rw = r->rx1 - r->rx0,
				rh = r->ry1 - r->ry0;
	size_t		n = (size_t) rw * rh;
	size_t		ps = pl->ps;
	size_t		pitch = (size_t) marker->width * ps;
	int			in = ring != NULL;	/* rows and columns the ring keeps off marker */
	int			x0 = r->x0 + in,
				y0 = r->y0 + in,
				x1 = r->x1 - in,
				y1 = r->y1 - in;

	RG_TRY(RgTimeStart(c), "timing");
	kr->store_keys(J, stage, n, c->stream, ElemGrid(n, c->sms));
	RG_TRY(cudaGetLastError(), "launching the result conversion");
	if (x1 > x0 && y1 > y0 &&
		RgCopyOut(c, (char *) marker->data + (size_t) y0 * pitch + (size_t) x0 * ps, pitch,
				  (const char *) stage + ((size_t) (y0 - r->ry0) * rw + (x0 - r->rx0)) * ps,
				  rw * ps, (size_t) (x1 - x0) * ps, y1 - y0,
				  "copying the result back", err, err_len) != 0)
		goto fail;
	if (ring != NULL)
		RG_TRY(RgRingMove((char *) stage, rw, r->x0 - r->rx0, r->y0 - r->ry0, r->x1 - r->x0,
						  r->y1 - r->y0, ps, ring, true, c->stream),
			   "launching the border's copy");
	RG_TRY(RgTimeEnd(c, &st->transfer_ms), "storing the tile");
	return 0;
fail:
	return -1;
}

/*
 * Reconstruct the rw x rh keys J under I on the device: the raster and
 * anti-raster scans, then the queue phase launched in rounds, polled
 * between them, re-finding the wavefront after a queue overflow.  0, 1
 * when polled to stop, -1 with a reason.
 */
static int
Propagate(RgCtx *c, const ReconPlan *pl, const ReconKernels *kr, ReconBufs *b, int *J,
		  const int *I, int rw, int rh, PbPollFn poll, void *poll_arg,
		  PbRasterGpuStats *st, char *err, size_t err_len)
{
	size_t		n = (size_t) rw * rh;
	int			in = 0;			/* which queue is the input */
	int			detect = 1;		/* find the wavefront before propagating */
	int			pending = 0;	/* items were dropped: find it again later */
	unsigned	qcap = pl->nblocks * pl->cb;
	unsigned	nitems = 0;
	PropArgs	pa;

	RG_TRY(RgTimeStart(c), "timing");
	kr->scans(J, I, rw, rh, c->stream);
	RG_TRY(cudaGetLastError(), "launching the raster scans");
	RG_TRY(RgTimeEnd(c, &st->kernel_ms), "running the raster scans");

	memset(&pa, 0, sizeof(pa));
	pa.J = J;
	pa.I = I;
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
			kr->detect(J, I, rw, rh, b->q[in], &b->cnt[in], qcap, c->stream,
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
 * Mark dirty the neighbours of tile t whose halo overlaps the sides of
 * its interior that changed (RC_SIDE_* bits; a corner neighbour needs
 * both sides of the corner); whether any was marked.
 */
static bool
MarkNeighbours(const ReconPlan *pl, size_t t, unsigned sides, unsigned char *dirty)
{
	int			tx = (int) (t % pl->ntx),
				ty = (int) (t / pl->ntx);
	bool		any = false;

	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
		{
			int			nx = tx + dx,
						ny = ty + dy;
			bool		vert = dy == 0 || (sides & (dy < 0 ? RC_SIDE_TOP : RC_SIDE_BOTTOM));
			bool		horiz = dx == 0 || (sides & (dx < 0 ? RC_SIDE_LEFT : RC_SIDE_RIGHT));

			if ((dx || dy) && vert && horiz && nx >= 0 && nx < pl->ntx && ny >= 0 && ny < pl->nty)
			{
				dirty[(size_t) ny * pl->ntx + nx] = 1;
				any = true;
			}
		}
	return any;
}

/* A call's tiles and what visiting one needs (see SweepTiles). */
struct TileRun
{
	RgCtx	   *c;
	const ReconPlan *pl;
	const ReconKernels *kr;
	ReconBufs  *b;
	PbImage    *marker;
	const PbImage *mask;
	PbPollFn	poll;
	void	   *poll_arg;
	PbRasterGpuStats *st;
	char	   *err;
	size_t		err_len;
	char	   *ring;			/* through the host: a tile's saved border */
	int		  **tj,
			  **ti;				/* resident: each tile's keys of marker and mask */
	int		   *dring;			/* resident: a tile's saved border on the device */
	unsigned   *dsides;			/* resident: the sides that changed */
};

/*
 * Run tile t of u; 0 with *sides the RC_SIDE_* bits of the sides of its
 * interior that changed, 1 when polled to stop, -1 with a reason.
 */
typedef int (*TileVisit) (TileRun *u, size_t t, unsigned *sides);

/*
 * Visit the dirty tiles, sweeping alternately forwards and backwards,
 * until none is: the sides of a tile that changed mark the neighbours
 * beside them dirty.  0, 1 when polled to stop, -1 with a reason.
 */
static int
SweepTiles(TileRun *u, TileVisit visit)
{
	size_t		ntiles = (size_t) u->pl->ntx * u->pl->nty;
	unsigned char *dirty = (unsigned char *) malloc(ntiles);
	int			rc = 0;
	int			sweep = 0;
	bool		any;

	if (dirty == NULL)
	{
		snprintf(u->err, u->err_len, "out of host memory");
		return -1;
	}
	memset(dirty, 1, ntiles);
	do
	{
		any = false;
		for (size_t k = 0; k < ntiles && rc == 0; k++)
		{
			size_t		t = sweep % 2 == 0 ? k : ntiles - 1 - k;
			unsigned	sides = 0;

			if (!dirty[t])
				continue;
			dirty[t] = 0;
			rc = visit(u, t, &sides);
			if (rc == 0)
				any |= MarkNeighbours(u->pl, t, sides, dirty);
		}
		sweep++;
	} while (any && rc == 0);
	free(dirty);
	return rc;
}

/*
 * TileVisit through the host: load tile t with its halo from marker,
 * reconstruct it, store its interior back; any change of its border
 * counts for every side.
 */
static int
VisitThroughHost(TileRun *u, size_t t, unsigned *sides)
{
	const ReconPlan *pl = u->pl;
	TileRect	r = TileOf(pl, t);
	bool		tiled = pl->ntx * pl->nty > 1;
	int			rc;

	if (tiled)
		SaveRing(u->marker, pl->ps, r.x0, r.y0, r.x1, r.y1, u->ring);
	if (LoadTile(u->c, pl, u->kr, u->b->stage, u->b->J, u->b->I, u->marker, u->mask, &r, NULL,
				 u->st, u->err, u->err_len) != 0)
		return -1;
	rc = Propagate(u->c, pl, u->kr, u->b, u->b->J, u->b->I, r.rx1 - r.rx0, r.ry1 - r.ry0,
				   u->poll, u->poll_arg, u->st, u->err, u->err_len);
	if (rc != 0)
		return rc;
	if (StoreTile(u->c, pl, u->kr, u->b->stage, u->b->J, u->marker, &r, NULL, u->st, u->err,
				  u->err_len) != 0)
		return -1;
	*sides = tiled && RingChanged(u->marker, pl->ps, r.x0, r.y0, r.x1, r.y1, u->ring)
		? RC_SIDE_ALL : 0;
	return 0;
}

/*
 * Reconstruct tile by tile through the host until no tile's border
 * changes.  0, 1 when polled to stop, -1 with a reason.
 */
static int
RunThroughHost(TileRun *u)
{
	int			rc;

	u->ring = (char *) malloc((size_t) 2 * (u->pl->tw + u->pl->th) * u->pl->ps + 16);
	if (u->ring == NULL)
	{
		snprintf(u->err, u->err_len, "out of host memory");
		return -1;
	}
	rc = SweepTiles(u, VisitThroughHost);
	free(u->ring);
	return rc;
}

/*
 * Copy into tile t's halo the current interior pixels of its neighbours,
 * device to device (the border exchange of resident tiles).
 */
static cudaError_t
RefreshHalo(RgCtx *c, const ReconPlan *pl, int *const *tj, size_t t)
{
	TileRect	r = TileOf(pl, t);
	int			tx = (int) (t % pl->ntx),
				ty = (int) (t / pl->ntx);
	size_t		tp = (size_t) (r.rx1 - r.rx0);
	cudaError_t e = cudaSuccess;

	for (int dy = -1; dy <= 1 && e == cudaSuccess; dy++)
		for (int dx = -1; dx <= 1 && e == cudaSuccess; dx++)
		{
			int			nx = tx + dx,
						ny = ty + dy;
			size_t		u = (size_t) ny * pl->ntx + nx;
			TileRect	q;
			int			ax0,
						ax1,
						ay0,
						ay1;

			if ((!dx && !dy) || nx < 0 || nx >= pl->ntx || ny < 0 || ny >= pl->nty)
				continue;
			q = TileOf(pl, u);
			ax0 = r.rx0 > q.x0 ? r.rx0 : q.x0;
			ax1 = r.rx1 < q.x1 ? r.rx1 : q.x1;
			ay0 = r.ry0 > q.y0 ? r.ry0 : q.y0;
			ay1 = r.ry1 < q.y1 ? r.ry1 : q.y1;
			if (ax0 >= ax1 || ay0 >= ay1)
				continue;
			e = cudaMemcpy2DAsync(tj[t] + (size_t) (ay0 - r.ry0) * tp + (ax0 - r.rx0), tp * sizeof(int),
								  tj[u] + (size_t) (ay0 - q.ry0) * (q.rx1 - q.rx0) + (ax0 - q.rx0),
								  (size_t) (q.rx1 - q.rx0) * sizeof(int),
								  (size_t) (ax1 - ax0) * sizeof(int), ay1 - ay0,
								  cudaMemcpyDeviceToDevice, c->stream);
		}
	return e;
}

/*
 * TileVisit of resident tiles: refresh tile t's halo from its neighbours
 * on the device, reconstruct it, and compare the border of its interior
 * with the one before, side by side.
 */
static int
VisitResident(TileRun *u, size_t t, unsigned *sides)
{
	RgCtx	   *c = u->c;
	TileRect	r = TileOf(u->pl, t);
	int			rw = r.rx1 - r.rx0;
	char	   *err = u->err;
	size_t		err_len = u->err_len;
	int			rc;

	RG_TRY(RgTimeStart(c), "timing");
	RG_TRY(RefreshHalo(c, u->pl, u->tj, t), "exchanging tile borders on the GPU");
	RcLaunchRing(u->tj[t], rw, r.x0 - r.rx0, r.y0 - r.ry0, r.x1 - r.x0, r.y1 - r.y0,
				 u->dring, NULL, c->stream);
	RG_TRY(cudaGetLastError(), "launching the border save");
	RG_TRY(RgTimeEnd(c, &u->st->transfer_ms), "exchanging tile borders on the GPU");
	rc = Propagate(c, u->pl, u->kr, u->b, u->tj[t], u->ti[t], rw, r.ry1 - r.ry0, u->poll,
				   u->poll_arg, u->st, err, err_len);
	if (rc != 0)
		return rc;
	RG_TRY(RgTimeStart(c), "timing");
	RG_TRY(cudaMemsetAsync(u->dsides, 0, sizeof(unsigned), c->stream), "clearing a counter");
	RcLaunchRing(u->tj[t], rw, r.x0 - r.rx0, r.y0 - r.ry0, r.x1 - r.x0, r.y1 - r.y0,
				 u->dring, u->dsides, c->stream);
	RG_TRY(cudaGetLastError(), "launching the border comparison");
	RG_TRY(cudaMemcpyAsync(c->h_small, u->dsides, sizeof(unsigned), cudaMemcpyDeviceToHost,
						   c->stream), "reading counters");
	RG_TRY(RgTimeEnd(c, &u->st->kernel_ms), "comparing the tile border");
	*sides = c->h_small[0];
	return 0;
fail:
	return -1;
}

/*
 * Reconstruct with every tile resident on the device: each tile is loaded
 * once, swept (VisitResident) until none is dirty, and its interior
 * stored back.  0, 1 when polled to stop, -1 with a reason.
 */
static int
RunResident(TileRun *u)
{
	RgCtx	   *c = u->c;
	const ReconPlan *pl = u->pl;
	size_t		ntiles = (size_t) pl->ntx * pl->nty;
	char	   *err = u->err;
	size_t		err_len = u->err_len;
	int			rc = 0;

	u->tj = (int **) calloc(ntiles, sizeof(int *));
	u->ti = (int **) calloc(ntiles, sizeof(int *));
	if (u->tj == NULL || u->ti == NULL)
	{
		snprintf(err, err_len, "out of host memory");
		rc = -1;
		goto done;
	}
	RG_TRY(RgAlloc(c, (void **) &u->dring, (size_t) 2 * (pl->tw + pl->th) * sizeof(int)),
		   "allocating GPU memory for the tile borders");
	RG_TRY(RgAlloc(c, (void **) &u->dsides, sizeof(unsigned)), "allocating GPU memory for counters");
	for (size_t t = 0; t < ntiles; t++)
	{
		TileRect	r = TileOf(pl, t);
		size_t		n = (size_t) (r.rx1 - r.rx0) * (r.ry1 - r.ry0);

		RG_TRY(RgAlloc(c, (void **) &u->tj[t], n * sizeof(int)), "allocating GPU memory for the marker");
		RG_TRY(RgAlloc(c, (void **) &u->ti[t], n * sizeof(int)), "allocating GPU memory for the mask");
		if (LoadTile(c, pl, u->kr, u->b->stage, u->tj[t], u->ti[t], u->marker, u->mask, &r, NULL,
					 u->st, err, err_len) != 0)
			goto fail;
	}
	rc = SweepTiles(u, VisitResident);
	for (size_t t = 0; t < ntiles && rc == 0; t++)
	{
		TileRect	r = TileOf(pl, t);

		if (StoreTile(c, pl, u->kr, u->b->stage, u->tj[t], u->marker, &r, NULL, u->st, err,
					  err_len) != 0)
			goto fail;
	}
	goto done;
fail:
	rc = -1;
done:
	for (size_t t = 0; u->tj != NULL && t < ntiles; t++)
		RgFree(c, u->tj[t]);
	for (size_t t = 0; u->ti != NULL && t < ntiles; t++)
		RgFree(c, u->ti[t]);
	RgFree(c, u->dring);
	RgFree(c, u->dsides);
	free(u->tj);
	free(u->ti);
	return rc;
}

/*
 * Whether PbGpuReconstruct would hold the image on g's device at once,
 * whole or in resident tiles, within the budget a call would have now
 * (see pb_raster_gpu.h).
 */
extern "C" int
PbGpuReconstructHolds(PbGpu *g, int width, int height, PbPixType type, int connectivity,
					  PbReconOp op, char *err, size_t err_len)
{
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	ReconPlan	pl;
	int			occ = 0;
	int			rc;

	if (width < 1 || height < 1 || PbPixSize(type) == 0 ||
		(connectivity != 4 && connectivity != 8))
	{
		snprintf(err, err_len, "invalid reconstruction arguments (sizes, type or connectivity)");
		return -1;
	}
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	memset(&pl, 0, sizeof(pl));
	pl.w = width;
	pl.h = height;
	pl.ps = PbPixSize(type);
	RG_TRY(RcPickKernels(op == PB_RECON_ERODE, connectivity == 8, pl.ps).prop_occupancy(&occ),
		   "querying the occupancy of the propagation kernel");
	rc = PlanTiles(&pl, memory_budget, c->sms, occ) == 0 &&
		(pl.resident || pl.ntx * pl.nty == 1);
	RgEnd(c);
	return rc;
fail:
	RgEnd(c);
	return -1;
}

/*
 * Reconstruct marker under (or, eroding, above) mask on the GPU of g: the
 * whole image at once when it fits what is left of g's budget, else in
 * tiles, resident on the device when they all fit it, else through the
 * host, until no tile border changes (see pb_raster_gpu.h for the
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
	TileRun		u;
	int			occ = 0;
	int			rc = -1;
	bool		er = op == PB_RECON_ERODE;

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

	st.tiles = pl.ntx * pl.nty;
	st.resident = pl.resident;
	if (AllocBufs(c, &pl, &b, err, err_len) != 0)
		goto fail;
	memset(&u, 0, sizeof(u));
	u.c = c;
	u.pl = &pl;
	u.kr = &kr;
	u.b = &b;
	u.marker = marker;
	u.mask = mask;
	u.poll = poll;
	u.poll_arg = poll_arg;
	u.st = &st;
	u.err = err;
	u.err_len = err_len;
	rc = pl.resident ? RunResident(&u) : RunThroughHost(&u);
	goto done;
fail:
	rc = -1;
done:
	rc = FreeBufs(c, &b, rc, err, err_len);
	RgEnd(c);
	if (stats)
		*stats = st;
	return rc;
}

/* Device bytes of a w x h window (halo included) as one tile, with its two rings. */
static size_t
WindowBytes(size_t w, size_t h, size_t ps, int sms, int occ)
{
	return TileBytes(w * h, ps, sms, occ) + 4 * (w + h) * ps;
}

/* Whether a w x h window goes as one tile within budget. */
static bool
WindowFits(size_t w, size_t h, size_t ps, size_t budget, int sms, int occ)
{
	size_t		cap = rc_test_tile_cap > 0 ? rc_test_tile_cap : RC_MAX_TILE_PIX;

	return w * h <= cap && WindowBytes(w, h, ps, sms, occ) <= budget;
}

/*
 * The side of the largest square window PbGpuReconstructWindow takes on g
 * now (see pb_raster_gpu.h).
 */
extern "C" int
PbGpuReconstructWindowSide(PbGpu *g, PbPixType type, int connectivity, PbReconOp op,
						   char *err, size_t err_len)
{
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	size_t		ps = PbPixSize(type);
	long		lo = 0,
				hi = 1L << 17;
	int			occ = 0;

	if (ps == 0 || (connectivity != 4 && connectivity != 8))
	{
		snprintf(err, err_len, "invalid reconstruction arguments (type or connectivity)");
		return -1;
	}
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	RG_TRY(RcPickKernels(op == PB_RECON_ERODE, connectivity == 8, ps).prop_occupancy(&occ),
		   "querying the occupancy of the propagation kernel");
	while (lo < hi)				/* largest side that fits */
	{
		long		mid = (lo + hi + 1) / 2;

		if (WindowFits((size_t) mid, (size_t) mid, ps, memory_budget, c->sms, occ))
			lo = mid;
		else
			hi = mid - 1;
	}
	RgEnd(c);
	return (int) lo;
fail:
	RgEnd(c);
	return -1;
}

/*
 * Reconstruct window win of marker under mask on the GPU of g as one tile
 * (see pb_raster_gpu.h): the extent in from the host with its ring from
 * win->halo, propagated, the region but its ring out to marker and its
 * ring to win->border.
 */
extern "C" int
PbGpuReconstructWindow(PbGpu *g, PbImage *marker, const PbImage *mask, const PbRasterWindow *win,
					   int connectivity, PbReconOp op, PbPollFn poll, void *poll_arg,
					   PbRasterGpuStats *stats, char *err, size_t err_len)
{
	PbRasterGpuStats st;
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	ReconPlan	pl;
	ReconKernels kr;
	ReconBufs	b;
	TileRect	r;
	size_t		ps;
	int			occ = 0;
	int			rc = -1;

	memset(&st, 0, sizeof(st));
	memset(&b, 0, sizeof(b));
	memset(&pl, 0, sizeof(pl));
	if (stats)
		*stats = st;
	if (marker == NULL || mask == NULL || win == NULL || marker->width != mask->width ||
		marker->height != mask->height || marker->type != mask->type ||
		PbPixSize(marker->type) == 0 || marker->data == NULL || mask->data == NULL ||
		(connectivity != 4 && connectivity != 8) ||
		(op != PB_RECON_DILATE && op != PB_RECON_ERODE) ||
		win->halo == NULL || win->border == NULL ||
		win->hx0 < 0 || win->hy0 < 0 || win->hx1 > marker->width || win->hy1 > marker->height ||
		win->hx0 > win->x0 || win->hy0 > win->y0 || win->x0 >= win->x1 || win->y0 >= win->y1 ||
		win->x1 > win->hx1 || win->y1 > win->hy1)
	{
		snprintf(err, err_len, "invalid reconstruction window (sizes, types, rectangles, rings, connectivity or operation)");
		return -1;
	}
	ps = PbPixSize(marker->type);
	r = (TileRect) {(int) win->x0, (int) win->y0, (int) win->x1, (int) win->y1,
		(int) win->hx0, (int) win->hy0, (int) win->hx1, (int) win->hy1};
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	kr = RcPickKernels(op == PB_RECON_ERODE, connectivity == 8, ps);
	RG_TRY(kr.prop_occupancy(&occ), "querying the occupancy of the propagation kernel");
	pl.w = r.rx1 - r.rx0;
	pl.h = r.ry1 - r.ry0;
	pl.ps = ps;
	if (!WindowFits((size_t) pl.w, (size_t) pl.h, ps, memory_budget, c->sms, occ))
	{
		snprintf(err, err_len, "a %d x %d window is more than one tile of the GPU's budget (%zu bytes)",
				 pl.w, pl.h, memory_budget);
		goto fail;
	}
	CutTiles(&pl, pl.w > pl.h ? pl.w : pl.h, c->sms, occ);
	st.tiles = 1;
	if (AllocBufs(c, &pl, &b, err, err_len) != 0)
		goto fail;
	RG_TRY(RgAlloc(c, (void **) &b.halo, (size_t) PbRingPixels(pl.w, pl.h) * ps),
		   "allocating GPU memory for the halo");
	RG_TRY(RgAlloc(c, (void **) &b.border,
				   (size_t) PbRingPixels(win->x1 - win->x0, win->y1 - win->y0) * ps),
		   "allocating GPU memory for the border");
	RG_TRY(cudaMemcpyAsync(b.halo, win->halo, (size_t) PbRingPixels(pl.w, pl.h) * ps,
						   cudaMemcpyHostToDevice, c->stream), "copying the halo to the GPU");
	if (LoadTile(c, &pl, &kr, b.stage, b.J, b.I, marker, mask, &r, b.halo, &st, err, err_len) != 0)
		goto fail;
	rc = Propagate(c, &pl, &kr, &b, b.J, b.I, pl.w, pl.h, poll, poll_arg, &st, err, err_len);
	if (rc != 0)
		goto done;
	if (StoreTile(c, &pl, &kr, b.stage, b.J, marker, &r, b.border, &st, err, err_len) != 0)
		goto fail;
	RG_TRY(cudaMemcpyAsync(win->border, b.border,
						   (size_t) PbRingPixels(win->x1 - win->x0, win->y1 - win->y0) * ps,
						   cudaMemcpyDeviceToHost, c->stream), "copying the border back");
	RG_TRY(cudaStreamSynchronize(c->stream), "copying the border back");
	rc = 0;
	goto done;
fail:
	rc = -1;
done:
	rc = FreeBufs(c, &b, rc, err, err_len);
	RgEnd(c);
	if (stats)
		*stats = st;
	return rc;
}
