/*
 * polygon_host.cu: the polygon side of a PbGpu context (pb_gpu.h), the
 * host driver of the filter and PixelBox kernels (filter_kernels.cu,
 * pixelbox_kernels.cu, launched through polygon_gpu.cuh): the
 * asynchronous path of a submission: pack its parts into pinned memory,
 * copy in, run the filter and PixelBox kernels, copy results out, all on
 * one stream; the caller polls.  Two pinned slots let the next submission
 * be packed (staged) while one runs.  PbGpuPoll finishes a submission in
 * up to three steps, none of which blocks: when the kernels are done it
 * reads how many pairs the device filter found; if they overflowed the
 * room given, it re-runs the submission with room for all of them;
 * otherwise it fetches exactly the found pairs and, once they are in,
 * reports the end.  Its device memory comes from the context's budget
 * (GpuPolyReserve, gpu_context_host.cu).
 *
 * Parts are packed on several threads (PbParallelFor from the core).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_context.cuh"
#include "polygon_gpu.cuh"
extern "C"
{
#include "../src/core/base/pb_base.h"
}

#define PACK_THREADS 8			/* threads packing one submission's parts */

/* Round up to a multiple of 256 bytes (alignment of every section). */
static size_t
Align(size_t n)
{
	return (n + 255) & ~(size_t) 255;
}

/* The budget, read under the lock (another thread may change it). */
static size_t
Budget(PbGpu *g)
{
	size_t		b;

	pthread_mutex_lock(&g->lock);
	b = g->budget;
	pthread_mutex_unlock(&g->lock);
	return b;
}

/* Make sure a pinned host buffer holds size bytes. */
static cudaError_t
GrowHost(void **buf, size_t *cap, size_t size)
{
	cudaError_t e;

	if (size <= *cap)
		return cudaSuccess;
	cudaFreeHost(*buf);
	*buf = NULL;
	*cap = 0;
	if ((e = cudaHostAlloc(buf, size + size / 2, cudaHostAllocDefault)) != cudaSuccess)
		return e;
	*cap = size + size / 2;
	return cudaSuccess;
}

/*
 * Whether part is a filter part with shapes in both sets (the others find
 * nothing and are not given to the filter kernel); its set sizes if so.
 */
static int
FilterSets(const PbDevicePart *part, size_t *na, size_t *nb)
{
	size_t		n = part->batch->nshapes;

	*na = part->split < n ? part->split : n;
	*nb = n - *na;
	return part->filter && *na > 0 && *nb > 0;
}

/* Place the sections of p from its counts (again when found_cap changes). */
static void
Layout(Packing *p)
{
	p->off_rings = Align(p->nshapes * sizeof(GShape));
	p->off_pts = p->off_rings + Align(p->nrings * sizeof(uint2));
	p->off_base = p->off_pts + Align(p->npts * sizeof(int2));
	p->off_fparts = p->off_base + Align(p->nparts * sizeof(uint32_t));
	p->off_count = p->off_fparts + Align(p->nfparts * sizeof(GFilterPart));
	p->off_pairs = p->off_count + Align(sizeof(unsigned long long));
	p->in_bytes = p->off_pairs + p->nhost * sizeof(uint2);
	p->off_found = Align(p->in_bytes);
	p->off_out = p->off_found + Align(p->found_cap * sizeof(PbDeviceFound));
	p->total = p->off_out + p->nhost * sizeof(long long);
}

/*
 * Count what the parts hold and lay them out.  A filter part gets room
 * for 8 found pairs per shape, plus 64 (never more than all its pairs):
 * tiles of nuclei meet few neighbours, and an overflow only costs a re-run.
 */
static Packing
PackingOf(const PbDevicePart *parts, uint32_t nparts)
{
	Packing		p;

	memset(&p, 0, sizeof(p));
	p.nparts = nparts;
	for (uint32_t i = 0; i < nparts; i++)
	{
		const PbBatch *b = parts[i].batch;
		size_t		na,
					nb;

		p.nshapes += b->nshapes;
		p.nrings += parts[i].nrings;
		p.npts += parts[i].nipts;
		if (FilterSets(&parts[i], &na, &nb))
		{
			size_t		room = 8 * (na + nb) + 64;

			p.nfparts++;
			if (na > p.filter_rows)
				p.filter_rows = na;
			if (nb > p.filter_rows)
				p.filter_rows = nb;
			p.found_cap += room < na * nb ? room : na * nb;
		}
		else if (!parts[i].filter)
			p.nhost += parts[i].npairs;
	}
	Layout(&p);
	return p;
}

/* Where one part goes in the packed submission. */
struct PartAt
{
	uint32_t	s0,				/* its first shape, ring and point */
				r0,
				i0;
	size_t		pair0;			/* its first host pair */
	long		fpart;			/* its filter part's index, or -1 */
};

/* A packing in progress, shared by the threads packing its parts. */
struct PackJob
{
	char	   *h;
	const Packing *pk;
	const PbDevicePart *parts;
	const PartAt *at;
};

/*
 * Pack part p where at[p] says: shapes, the rings and int points of its
 * PB_SHAPE_INT shapes, gathered shape by shape (the batch's arrays may
 * hold other parts' too: see PbDevicePart) and renumbered from the part's
 * first ring and point, the part's first shape, its filter part or its
 * host pairs (shifted to packed shape indices).  Other shapes get nrings
 * 0, which the kernels take as empty.
 */
static void
PackPart(void *arg, int64_t p)
{
	const PackJob *job = (const PackJob *) arg;
	const Packing *pk = job->pk;
	const PbDevicePart *part = &job->parts[p];
	const PartAt *at = &job->at[p];
	const PbBatch *b = part->batch;
	GShape	   *shapes = (GShape *) job->h + at->s0;
	uint2	   *rings = (uint2 *) (job->h + pk->off_rings) + at->r0;
	int2	   *pts = (int2 *) (job->h + pk->off_pts) + at->i0;
	uint32_t	r = 0,
				pt = 0;
	size_t		na,
				nb;

	((uint32_t *) (job->h + pk->off_base))[p] = at->s0;
	for (uint32_t i = 0; i < b->nshapes; i++)
	{
		const PbShape *s = &b->shapes[i];
		int			ok = s->kind == PB_SHAPE_INT;
		GShape	   *d = &shapes[i];

		d->xmin = ok ? (int32_t) s->box.xmin : 0;
		d->ymin = ok ? (int32_t) s->box.ymin : 0;
		d->xmax = ok ? (int32_t) s->box.xmax : 0;
		d->ymax = ok ? (int32_t) s->box.ymax : 0;
		d->ring_first = at->r0 + r;
		d->nrings = ok ? s->nrings : 0;
		for (uint32_t k = 0; ok && k < s->nrings; k++, r++)
		{
			const PbRing *ring = &b->rings[s->ring_first + k];

			rings[r] = make_uint2(at->i0 + pt, ring->npoints);
			memcpy(pts + pt, b->ipts + 2 * (size_t) ring->start,
				   (size_t) ring->npoints * sizeof(int2));
			pt += ring->npoints;
		}
	}
	if (at->fpart >= 0 && FilterSets(part, &na, &nb))
		((GFilterPart *) (job->h + pk->off_fparts))[at->fpart] =
			GFilterPart{(uint32_t) p, at->s0, (uint32_t) na, b->nshapes, part->ref};
	else if (!part->filter)
	{
		uint2	   *pairs = (uint2 *) (job->h + pk->off_pairs) + at->pair0;

		for (uint32_t k = 0; k < part->npairs; k++)
		{
			PbPair		pr = part->pairs[part->pair_idx ? part->pair_idx[k] : k];

			pairs[k] = make_uint2(pr.a + at->s0, pr.b + at->s0);
		}
	}
}

/*
 * Pack the parts into h as pk lays them out, and the found count, 0.  The
 * parts go to up to PACK_THREADS threads (signals blocked: see
 * PbParallelFor), each part's place fixed first by summing the sizes of
 * those before it: the copy into pinned memory is the aggregator's
 * longest step, and one thread does not reach the memory's bandwidth.
 * Returns 0, or -1 when the places could not be allocated.
 */
static int
Pack(char *h, const Packing *pk, const PbDevicePart *parts, uint32_t nparts)
{
	PartAt	   *at = (PartAt *) malloc(sizeof(PartAt) * (nparts + 1));
	PartAt		next = {0, 0, 0, 0, 0};
	long		nf = 0;
	PackJob		job = {h, pk, parts, at};
	PbRun run = {nparts < PACK_THREADS ? (int) nparts : PACK_THREADS, 0, NULL, NULL};

	if (at == NULL)
		return -1;
	*(unsigned long long *) (h + pk->off_count) = 0;
	for (uint32_t p = 0; p < nparts; p++)
	{
		const PbBatch *b = parts[p].batch;
		size_t		na,
					nb;

		at[p] = next;
		at[p].fpart = FilterSets(&parts[p], &na, &nb) ? nf++ : -1;
		next.s0 += b->nshapes;
		next.r0 += parts[p].nrings;
		next.i0 += parts[p].nipts;
		if (!parts[p].filter)
			next.pair0 += parts[p].npairs;
	}
	PbParallelFor(&run, nparts, PackPart, &job);
	free(at);
	return 0;
}

/* The device bytes of the parts' packed form and results (see Packing). */
extern "C" size_t
PbGpuPartsBytes(const PbDevicePart *parts, uint32_t nparts)
{
	return PackingOf(parts, nparts).total;
}

/*
 * Run the submission packed in g->h_in as g->pk lays it out (within the
 * budget: the callers checked): copy it in, filter, compute every area,
 * copy back the host pairs' areas and the found count.  Used to start a
 * submission and to re-run it with more room after the filter overflowed.
 */
static int
Launch(PbGpu *g, char *err, size_t err_len)
{
	const Packing *pk = &g->pk;
	char	   *d;
	GBatch		gb;
	cudaError_t e;

	if ((e = GrowHost((void **) &g->h_out, &g->h_out_cap, (pk->nhost + 1) * sizeof(int64_t))) != cudaSuccess)
		return Fail(err, err_len, "pinned host allocation failed", e);
	if (GpuPolyReserve(g, pk->total, err, err_len) != 0)
		return -1;
	d = (char *) g->d_buf;
	gb.shapes = (const GShape *) d;
	gb.rings = (const uint2 *) (d + pk->off_rings);
	gb.pts = (const int2 *) (d + pk->off_pts);
	gb.pairs = (const uint2 *) (d + pk->off_pairs);
	gb.nhost = (uint32_t) pk->nhost;
	gb.out = (long long *) (d + pk->off_out);
	gb.part_base = (const uint32_t *) (d + pk->off_base);
	gb.fparts = (const GFilterPart *) (d + pk->off_fparts);
	gb.nfparts = (uint32_t) pk->nfparts;
	gb.filter_rows = (uint32_t) pk->filter_rows;
	gb.found = (PbDeviceFound *) (d + pk->off_found);
	gb.found_cap = pk->found_cap;
	gb.nfound = (unsigned long long *) (d + pk->off_count);
	if ((e = cudaMemcpyAsync(d, g->h_in, pk->in_bytes, cudaMemcpyHostToDevice, g->stream)) != cudaSuccess ||
		(e = cudaEventRecord(g->start, g->stream)) != cudaSuccess ||
		(e = PbLaunchFilter(gb, g->sm_count, g->stream)) != cudaSuccess ||
		(e = PbLaunchPixelBox(gb, g->pixel_only, g->sm_count, g->stream)) != cudaSuccess ||
		(e = cudaEventRecord(g->stop, g->stream)) != cudaSuccess ||
		(e = cudaMemcpyAsync(g->h_out, gb.out, pk->nhost * sizeof(long long), cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess ||
		(e = cudaMemcpyAsync(g->h_out + pk->nhost, gb.nfound, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess)
	{
		/* what was queued may still read h_in, which the next submission rewrites */
		cudaStreamSynchronize(g->stream);
		PolyIdle(g);
		return Fail(err, err_len, "kernel launch failed", e);
	}
	g->state = GPU_RUNNING;
	return 0;
}

/*
 * Check the parts fit and pack them into the pinned slot not in use, for
 * PbGpuStartStaged: the packing may overlap the submission in flight.
 */
extern "C" int
PbGpuStage(PbGpu *g, const PbDevicePart *parts, uint32_t nparts, PbGpuKernel kernel,
		   char *err, size_t err_len)
{
	Packing		pk = PackingOf(parts, nparts);
	size_t		budget = Budget(g);
	int			slot = 1 - g->cur;
	cudaError_t e;

	g->staged = 0;
	if (pk.nshapes > UINT32_MAX || pk.nrings > UINT32_MAX || pk.npts > UINT32_MAX ||
		pk.nhost + pk.found_cap > UINT32_MAX)
	{
		snprintf(err, err_len, "submission has more shapes, rings, points or pairs than a GPU batch can index");
		return -1;
	}
	if (pk.total > budget)
	{
		snprintf(err, err_len, "batch needs %zu bytes of device memory, more than the budget (%zu)",
				 pk.total, budget);
		return -1;
	}
	if ((e = GrowHost(&g->h_slot[slot], &g->h_slot_cap[slot], pk.in_bytes)) != cudaSuccess)
		return Fail(err, err_len, "pinned host allocation failed", e);
	if (Pack((char *) g->h_slot[slot], &pk, parts, nparts) != 0)
	{
		snprintf(err, err_len, "out of host memory packing a GPU batch");
		return -1;
	}
	g->slot_pk[slot] = pk;
	g->slot_pixel_only[slot] = kernel == PB_GPU_PIXEL_ONLY;
	g->staged = 1;
	return 0;
}

/*
 * Start the staged submission, after the one in flight (whose results
 * the caller has read) is over.
 */
extern "C" int
PbGpuStartStaged(PbGpu *g, char *err, size_t err_len)
{
	if (!g->staged)
	{
		snprintf(err, err_len, "no GPU submission is staged");
		return -1;
	}
	Drain(g);
	g->staged = 0;
	g->cur = 1 - g->cur;
	g->h_in = g->h_slot[g->cur];
	g->pk = g->slot_pk[g->cur];
	g->pixel_only = g->slot_pixel_only[g->cur];
	g->nfound = 0;
	return Launch(g, err, err_len);
}

/* Stage the parts and start them at once. */
extern "C" int
PbGpuSubmitParts(PbGpu *g, const PbDevicePart *parts, uint32_t nparts,
				 PbGpuKernel kernel, char *err, size_t err_len)
{
	if (PbGpuStage(g, parts, nparts, kernel, err, err_len) != 0)
		return -1;
	return PbGpuStartStaged(g, err, err_len);
}

/* The older one-batch entry point: a submission of one part. */
extern "C" int
PbGpuSubmit(PbGpu *g, const PbBatch *b, const uint32_t *pair_idx, uint32_t n,
			PbGpuKernel kernel, char *err, size_t err_len)
{
	PbDevicePart	part = PbDeviceOnePart(b, pair_idx, n);

	return PbGpuSubmitParts(g, &part, 1, kernel, err, err_len);
}

/*
 * The kernels are done and the filter found found pairs: re-run with room
 * for all of them when they overflowed (the count is exact, so once is
 * enough), else start fetching them.  0 (still running), 1 (done), -1.
 */
static int
KernelsDone(PbGpu *g, unsigned long long found, char *err, size_t err_len)
{
	size_t		budget = Budget(g);
	cudaError_t e;

	if (found > g->pk.found_cap)
	{
		g->pk.found_cap = found;
		Layout(&g->pk);
		if (g->pk.nhost + found > UINT32_MAX || g->pk.total > budget)
		{
			snprintf(err, err_len, "the GPU MBR filter found %llu pairs; with them the batch needs %zu bytes of device memory, more than the budget (%zu)",
					 found, g->pk.total, budget);
			return -1;
		}
		return Launch(g, err, err_len);
	}
	g->nfound = (uint32_t) found;
	if (found == 0)
		return 1;
	if ((e = GrowHost((void **) &g->h_found, &g->h_found_cap, found * sizeof(PbDeviceFound))) != cudaSuccess)
		return Fail(err, err_len, "pinned host allocation failed", e);
	if ((e = cudaMemcpyAsync(g->h_found, (char *) g->d_buf + g->pk.off_found, found * sizeof(PbDeviceFound),
							 cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess)
		return Fail(err, err_len, "copy of the found pairs failed", e);
	g->state = GPU_FETCHING;
	return 0;
}

/*
 * Advance the submission when the stream is idle (see the file header);
 * once it is over, its device memory is idle.
 */
extern "C" int
PbGpuPoll(PbGpu *g, char *err, size_t err_len)
{
	GpuState	was = g->state;
	cudaError_t e;
	int			rc;

	if (was == GPU_IDLE)
		return 1;
	e = cudaStreamQuery(g->stream);
	if (e == cudaErrorNotReady)
		return 0;
	g->state = GPU_IDLE;
	if (e != cudaSuccess)
		rc = Fail(err, err_len, "GPU computation failed", e);
	else if (was == GPU_FETCHING)
		rc = 1;
	else
	{
		if (cudaEventElapsedTime(&g->kernel_ms, g->start, g->stop) != cudaSuccess)
			g->kernel_ms = 0;
		rc = KernelsDone(g, (unsigned long long) g->h_out[g->pk.nhost], err, err_len);
	}
	if (g->state == GPU_IDLE)
		PolyIdle(g);
	return rc;
}

/* The host pairs' areas, copied back by Launch. */
extern "C" const int64_t *
PbGpuResults(const PbGpu *g)
{
	return g->h_out;
}

/* The found pairs, fetched by KernelsDone. */
extern "C" uint32_t
PbGpuFoundPairs(const PbGpu *g, const PbDeviceFound **found)
{
	*found = g->h_found;
	return g->nfound;
}

/* Milliseconds the kernels of the last finished submission ran. */
extern "C" double
PbGpuKernelMs(const PbGpu *g)
{
	return g->kernel_ms;
}

/* PbPipeDevice.bytes: what a submission of the parts needs. */
static size_t
DevBytes(void *ctx, const PbDevicePart *parts, uint32_t n)
{
	return PbGpuPartsBytes(parts, n);
}

/* PbPipeDevice.stage: pack the parts for the PixelBox kernel. */
static int
DevStage(void *ctx, const PbDevicePart *parts, uint32_t n, char *err, size_t err_len)
{
	return PbGpuStage((PbGpu *) ctx, parts, n, PB_GPU_PIXELBOX, err, err_len);
}

/* PbPipeDevice.start: start the staged submission. */
static int
DevStart(void *ctx, char *err, size_t err_len)
{
	return PbGpuStartStaged((PbGpu *) ctx, err, err_len);
}

/* PbPipeDevice.poll: advance the submission. */
static int
DevPoll(void *ctx, char *err, size_t err_len)
{
	return PbGpuPoll((PbGpu *) ctx, err, err_len);
}

/* PbPipeDevice.results: the host pairs' areas. */
static const int64_t *
DevResults(void *ctx)
{
	return PbGpuResults((const PbGpu *) ctx);
}

/* PbPipeDevice.found: the pairs the filter found. */
static uint32_t
DevFound(void *ctx, const PbDeviceFound **found)
{
	return PbGpuFoundPairs((const PbGpu *) ctx, found);
}

/* The polygon side as the pipeline's device. */
extern "C" void
PbGpuDeviceOps(PbGpu *g, PbPipeDevice *dev)
{
	memset(dev, 0, sizeof(*dev));
	dev->ctx = g;
	dev->name = "gpu";
	dev->can_filter = 1;
	dev->budget = Budget(g);
	dev->bytes = DevBytes;
	dev->stage = DevStage;
	dev->start = DevStart;
	dev->poll = DevPoll;
	dev->results = DevResults;
	dev->found = DevFound;
}
