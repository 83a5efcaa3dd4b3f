/*
 * watershed_blocks_host.cu: a GPU as a device of the hybrid watershed
 * (PbWatershedHybrid, src/core/raster/watershed.h), which runs blocks of
 * the CPU's key phase with the automaton of watershed_ca_kernels.cu.
 *
 * The state is the CPU's: image-wide 64-bit keys (c, d) in host memory,
 * which the CPU threads' tiles update beside the blocks.  A block run
 * loads the block and a one-pixel halo: its pixels, its keys (marker-less,
 * their d parts, as the automaton stores them), its walls and seeds
 * encoded over them; runs the automaton to the block's fixed point with
 * the halo fixed; and writes the block's keys back in the CPU's form.
 * Labels are not loaded or kept: the CPU threads label every pixel from
 * the keys once all have settled, as after their own key phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watershed_host.cuh"

/* One GPU's part of a hybrid watershed. */
struct PbGpuWsBlocks
{
	PbGpu	   *g;
	RgCtx	   *c;				/* begun: its raster side */
	const PbWatershedSpec *spec;
	WsPlan		p;				/* regions of up to rw x rh */
	WsBufs		b;
	uint64_t   *k64;			/* marker-less: the region's keys in the CPU's form */
	PbRasterGpuStats st;
};

/* See pb_raster_gpu.h. */
extern "C" PbGpuWsBlocks *
PbGpuWsBlocksNew(PbGpu *g)
{
	PbGpuWsBlocks *k = (PbGpuWsBlocks *) calloc(1, sizeof(PbGpuWsBlocks));

	if (k != NULL)
		k->g = g;
	return k;
}

/* Device bytes of a region of side (with halo) s x s, clipped to the image. */
static size_t
BlockBytes(const WsPlan *p, int64_t s)
{
	int64_t		rw = s < p->w ? s : p->w,
				rh = s < p->h ? s : p->h;

	return WsRegionBytes(p, rw, rh, false) + (p->mk ? 0 : (size_t) rw * rh * sizeof(uint64_t));
}

/*
 * PbWsDevice.begin: the largest block side, in whole tiles of max_side
 * at most, whose region fits the GPU's budget, and its buffers.
 */
extern "C" int
PbGpuWsBlocksBegin(void *ctx, const PbWatershedSpec *spec, int tile, int64_t max_side,
				   int *block, char *err, size_t err_len)
{
	PbGpuWsBlocks *k = (PbGpuWsBlocks *) ctx;
	size_t		budget;
	int64_t		tiles = max_side / tile;

	memset(&k->st, 0, sizeof(k->st));
	k->spec = spec;
	if (RgBegin(k->g, &k->c, &budget, err, err_len) != 0)
	{
		k->c = NULL;
		return -1;
	}
	WsPlanOf(&k->p, spec);
	while (tiles > 0 && BlockBytes(&k->p, tiles * tile + 2) > budget)
		tiles--;
	if (tiles < 1)
	{
		snprintf(err, err_len, "memory budget of %zu bytes is too small for a block of the watershed",
				 budget);
		goto fail;
	}
	k->p.tw = k->p.th = (int) (tiles * tile);
	k->p.rw = (int) (tiles * tile + 2 < k->p.w ? tiles * tile + 2 : k->p.w);
	k->p.rh = (int) (tiles * tile + 2 < k->p.h ? tiles * tile + 2 : k->p.h);
	if (WsAlloc(k->c, &k->p, &k->b, false, err, err_len) != 0)
		goto fail;
	if (!k->p.mk)
		RG_TRY(RgAlloc(k->c, (void **) &k->k64, (size_t) k->p.rw * k->p.rh * sizeof(uint64_t)),
			   "allocating GPU memory for keys");
	*block = (int) tiles;
	return 0;
fail:
	PbGpuWsBlocksEnd(k);
	return -1;
}

/*
 * Load block [x0,x1) x [y0,y1) and its halo into region r: its pixels;
 * the host's keys (marker-less through k64); labels cleared (not used);
 * walls and seeds encoded.  0, or -1 with a reason.
 */
static int
BlockLoad(PbGpuWsBlocks *k, const uint64_t *key, const WsRegion *r, char *err, size_t err_len)
{
	RgCtx	   *c = k->c;
	size_t		W = (size_t) k->p.w;
	size_t		n = (size_t) r->w * r->h;
	double		t0;

	if (WsLoadPixels(c, &k->p, &k->b, r, k->spec, &k->st, err, err_len) != 0)
		return -1;
	t0 = WsNowMs();
	if (RgCopyIn(c, k->p.mk ? (uint64_t *) k->b.key : k->k64, r->w * sizeof(uint64_t),
				 key + (size_t) r->gy0 * W + r->gx0, W * sizeof(uint64_t),
				 r->w * sizeof(uint64_t), r->h, "copying watershed keys to the GPU",
				 err, err_len) != 0)
		return -1;
	k->st.transfer_ms += WsNowMs() - t0;
	if (!k->p.mk)
		WsLaunchImport(r, k->k64, c->stream, c->sms);
	RG_TRY(cudaMemsetAsync(k->b.lab, 0xFF, n * sizeof(uint32_t), c->stream), "clearing labels");
	return WsLoadMarks(c, &k->p, &k->b, r, k->spec, &k->st, err, err_len);
fail:
	return -1;
}

/* PbWsDevice.run: one block, from the host's keys back to them. */
extern "C" int
PbGpuWsBlocksRun(void *ctx, uint64_t *key, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
				 PbPollFn poll, void *poll_arg, char *err, size_t err_len)
{
	PbGpuWsBlocks *k = (PbGpuWsBlocks *) ctx;
	RgCtx	   *c = k->c;
	size_t		W = (size_t) k->p.w;
	uint64_t   *out = k->p.mk ? (uint64_t *) k->b.key : k->k64;
	WsRegion	r;
	cudaError_t e;
	double		t0;
	int			rc;

	if ((e = cudaSetDevice(c->device)) != cudaSuccess)
	{
		snprintf(err, err_len, "CUDA device setup failed: %s", cudaGetErrorString(e));
		return -1;
	}
	WsRegionOf(&k->p, &k->b, k->spec, true, (int) x0, (int) y0, (int) x1, (int) y1, &r);
	if (BlockLoad(k, key, &r, err, err_len) != 0)
		return -1;
	rc = WsRunCa(c, &r, k->p.sync, poll, poll_arg, &k->st, err, err_len);
	if (rc != 0)
		return rc;
	WsLaunchExport(&r, out, c->stream, c->sms);
	RG_TRY(cudaGetLastError(), "launching the export of watershed keys");
	t0 = WsNowMs();
	if (RgCopyOut(c, key + (size_t) y0 * W + x0, W * sizeof(uint64_t),
				  out + (size_t) r.uy0 * r.w + r.ux0, r.w * sizeof(uint64_t),
				  (size_t) (x1 - x0) * sizeof(uint64_t), (size_t) (y1 - y0),
				  "copying watershed keys back", err, err_len) != 0)
		return -1;
	k->st.transfer_ms += WsNowMs() - t0;
	k->st.tiles++;
	return 0;
fail:
	return -1;
}

/* PbWsDevice.end: the buffers freed and the GPU's call ended. */
extern "C" void
PbGpuWsBlocksEnd(void *ctx)
{
	PbGpuWsBlocks *k = (PbGpuWsBlocks *) ctx;

	if (k->c == NULL)
		return;
	cudaSetDevice(k->c->device);
	WsFreeBufs(k->c, &k->b);
	RgFree(k->c, k->k64);
	k->k64 = NULL;
	memset(&k->b, 0, sizeof(k->b));
	cudaStreamSynchronize(k->c->stream);
	cudaGetLastError();
	RgEnd(k->c);
	k->c = NULL;
}

/* See pb_raster_gpu.h. */
extern "C" void
PbGpuWsBlocksFree(PbGpuWsBlocks *k, PbRasterGpuStats *stats)
{
	if (k == NULL)
		return;
	if (stats)
		*stats = k->st;
	free(k);
}
