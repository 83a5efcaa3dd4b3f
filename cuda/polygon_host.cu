/*
 * polygon_host.cu: the polygon side of a PbGpu context (pb_gpu.h), the
 * host driver of the filter and area kernels (filter_kernels.cu, and
 * bitmap_kernels.cu or pixelbox_kernels.cu as the submission's kernel
 * says, launched through polygon_gpu.cuh): the asynchronous path of a
 * submission: pack its parts into pinned memory, with each shape's points
 * once however many pairs use it, copy in, run the filter and area
 * kernels, copy results out, all on one stream; the caller polls.  Two
 * pinned slots let the next submission be packed (staged) while one
 * runs.  PbGpuPoll finishes a submission in up to three steps, none of
 * which blocks: when the kernels are done it reads how many pairs the
 * device filter found; if they overflowed the room given, it re-runs the
 * submission with room for all of them; otherwise it fetches exactly the
 * found pairs and, once they are in, reports the end.  Its device memory
 * comes from the context's budget (GpuPolyReserve, gpu_context_host.cu).
 *
 * Parts are packed on several threads (PbParallelFor from the core), a
 * large part cut into items of PACK_ITEM_SHAPES shapes.  For the length of
 * a pipeline run the context may hold the rings and points of the batch
 * its tasks borrow from on the device (PbGpuHoldSource, copied once
 * through the threaded pinned copier): a submission whose parts all
 * borrow them packs only its shapes and pairs.
 */
#include <cuda_runtime.h>
#include <stddef.h>
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

static_assert(sizeof(PbRing) == sizeof(uint2) && offsetof(PbRing, npoints) == sizeof(uint32_t),
			  "a held source's rings are read as uint2 (start, npoints)");

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

/* The budget less the held source: what a submission may take. */
static size_t
Room(PbGpu *g)
{
	size_t		b = Budget(g);

	return b > g->src_bytes ? b - g->src_bytes : 0;
}

/* Whether every part's batch borrows the rings and points g holds. */
static int
Borrowed(const PbGpu *g, const PbDevicePart *parts, uint32_t nparts)
{
	if (g == NULL || g->src_ipts == NULL)
		return 0;
	for (uint32_t i = 0; i < nparts; i++)
	{
		const PbBatch *b = parts[i].batch;

		if (b->rings != g->src_rings || b->ipts != g->src_ipts ||
			b->nrings != g->src_nrings || b->nipts != g->src_nipts)
			return 0;
	}
	return 1;
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
	p->off_tiles = p->off_out + Align(p->nhost * sizeof(long long));
	p->off_tstart = p->off_tiles + Align((p->nhost + p->found_cap) * sizeof(unsigned long long));
	p->off_big = p->off_tstart + Align((p->nhost + p->found_cap) * sizeof(unsigned long long));
	p->off_nbig = p->off_big + Align((p->nhost + p->found_cap) * sizeof(uint32_t));
	p->off_scan = p->off_nbig + Align(sizeof(unsigned));
	p->scan_bytes = PbBitmapScanBytes(p->nhost + p->found_cap);
	p->total = p->off_scan + p->scan_bytes;
}

/*
 * Count what the parts hold and lay them out: with their own rings and
 * points, or none when they all borrow those g holds (g NULL: never).  A
 * filter part gets room for 8 found pairs per shape, plus 64 (never more
 * than all its pairs): tiles of nuclei meet few neighbours, and an
 * overflow only costs a re-run.
 */
static Packing
PackingOf(const PbDevicePart *parts, uint32_t nparts, const PbGpu *g)
{
	Packing		p;

	memset(&p, 0, sizeof(p));
	p.nparts = nparts;
	p.resident = Borrowed(g, parts, nparts);
	for (uint32_t i = 0; i < nparts; i++)
	{
		const PbBatch *b = parts[i].batch;
		size_t		na,
					nb;

		p.nshapes += b->nshapes;
		if (!p.resident)
		{
			p.nrings += parts[i].nrings;
			p.npts += parts[i].nipts;
		}
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
	uint32_t	s0;				/* its first shape */
	size_t		pair0;			/* its first host pair */
	long		fpart;			/* its filter part's index, or -1 */
};

/*
 * A piece of the packing one thread does: shapes [s_begin, s_end) of part
 * `part` with their rings and points from packed ring r0 and point i0
 * (counted in a first pass), and its host pairs [k_begin, k_end).
 */
struct PackItem
{
	uint32_t	part;
	uint32_t	s_begin,
				s_end;
	uint32_t	k_begin,
				k_end;
	uint32_t	r0,
				i0;
};

/* A packing in progress, shared by the threads packing its items. */
struct PackJob
{
	char	   *h;
	const Packing *pk;
	const PbDevicePart *parts;
	const PartAt *at;
	PackItem   *items;
};

/* Shapes (and host pairs) of one packing item: large parts are cut up. */
#define PACK_ITEM_SHAPES 4096

/* Count the rings and int points of item i's shapes into its r0 and i0. */
static void
CountItem(void *arg, int64_t i)
{
	const PackJob *job = (const PackJob *) arg;
	PackItem   *it = &job->items[i];
	const PbBatch *b = job->parts[it->part].batch;
	uint32_t	r = 0,
				pt = 0;

	for (uint32_t k = it->s_begin; k < it->s_end; k++)
	{
		const PbShape *s = &b->shapes[k];

		if (s->kind != PB_SHAPE_INT)
			continue;
		r += s->nrings;
		for (uint32_t j = 0; j < s->nrings; j++)
			pt += b->rings[s->ring_first + j].npoints;
	}
	it->r0 = r;
	it->i0 = pt;
}

/*
 * Pack item i: its shapes, the rings and int points of its PB_SHAPE_INT
 * shapes, gathered shape by shape (the batch's arrays may hold other
 * parts' too: see PbDevicePart) and renumbered from the item's first ring
 * and point (resident: the shapes keep their rings' places in the held
 * source, and nothing else is copied), and its host pairs (shifted to
 * packed shape indices).  Other shapes get nrings 0, which the kernels
 * take as empty.  The part's first item also writes its first shape and
 * its filter part.
 */
static void
PackItemAt(void *arg, int64_t i)
{
	const PackJob *job = (const PackJob *) arg;
	const PackItem *it = &job->items[i];
	const Packing *pk = job->pk;
	const PbDevicePart *part = &job->parts[it->part];
	const PartAt *at = &job->at[it->part];
	const PbBatch *b = part->batch;
	GShape	   *shapes = (GShape *) job->h + at->s0;
	uint2	   *rings = (uint2 *) (job->h + pk->off_rings);
	int2	   *pts = (int2 *) (job->h + pk->off_pts);
	uint32_t	r = it->r0,
				pt = it->i0;
	size_t		na,
				nb;

	for (uint32_t k = it->s_begin; k < it->s_end; k++)
	{
		const PbShape *s = &b->shapes[k];
		int			ok = s->kind == PB_SHAPE_INT;
		GShape	   *d = &shapes[k];

		d->xmin = ok ? (int32_t) s->box.xmin : 0;
		d->ymin = ok ? (int32_t) s->box.ymin : 0;
		d->xmax = ok ? (int32_t) s->box.xmax : 0;
		d->ymax = ok ? (int32_t) s->box.ymax : 0;
		d->ring_first = pk->resident ? s->ring_first : r;
		d->nrings = ok ? s->nrings : 0;
		for (uint32_t j = 0; ok && !pk->resident && j < s->nrings; j++, r++)
		{
			const PbRing *ring = &b->rings[s->ring_first + j];

			rings[r] = make_uint2(pt, ring->npoints);
			memcpy(pts + pt, b->ipts + 2 * (size_t) ring->start,
				   (size_t) ring->npoints * sizeof(int2));
			pt += ring->npoints;
		}
	}
	if (!part->filter)
	{
		uint2	   *pairs = (uint2 *) (job->h + pk->off_pairs) + at->pair0;

		for (uint32_t k = it->k_begin; k < it->k_end; k++)
		{
			PbPair		pr = part->pairs[part->pair_idx ? part->pair_idx[k] : k];

			pairs[k] = make_uint2(pr.a + at->s0, pr.b + at->s0);
		}
	}
	if (it->s_begin == 0 && it->k_begin == 0)
	{
		((uint32_t *) (job->h + pk->off_base))[it->part] = at->s0;
		if (at->fpart >= 0 && FilterSets(part, &na, &nb))
			((GFilterPart *) (job->h + pk->off_fparts))[at->fpart] =
				GFilterPart{it->part, at->s0, (uint32_t) na, b->nshapes, part->ref};
	}
}

/*
 * Cut the parts into packing items (at least one per part, each of at
 * most PACK_ITEM_SHAPES shapes and host pairs); NULL when out of memory.
 */
static PackItem *
ItemsOf(const PbDevicePart *parts, uint32_t nparts, size_t *nitems)
{
	size_t		n = 0,
				k = 0;
	PackItem   *items;

	for (uint32_t p = 0; p < nparts; p++)
	{
		size_t		most = parts[p].batch->nshapes;

		if (!parts[p].filter && parts[p].npairs > most)
			most = parts[p].npairs;
		n += most / PACK_ITEM_SHAPES + 1;
	}
	if ((items = (PackItem *) malloc(sizeof(PackItem) * n)) == NULL)
		return NULL;
	for (uint32_t p = 0; p < nparts; p++)
	{
		uint32_t	ns = parts[p].batch->nshapes,
					np = parts[p].filter ? 0 : parts[p].npairs;
		uint32_t	from = 0;

		do
		{
			PackItem   *it = &items[k++];

			it->part = p;
			it->s_begin = from < ns ? from : ns;
			it->s_end = ns - it->s_begin > PACK_ITEM_SHAPES ? it->s_begin + PACK_ITEM_SHAPES : ns;
			it->k_begin = from < np ? from : np;
			it->k_end = np - it->k_begin > PACK_ITEM_SHAPES ? it->k_begin + PACK_ITEM_SHAPES : np;
			from += PACK_ITEM_SHAPES;
		} while (from < ns || from < np);
	}
	*nitems = k;
	return items;
}

/*
 * Pack the parts into h as pk lays them out, and the found count, 0, on
 * up to PACK_THREADS threads (signals blocked: see PbParallelFor): the
 * copy into pinned memory is the aggregator's longest step, and one
 * thread does not reach the memory's bandwidth.  The parts are cut into
 * items; a first pass counts each item's rings and points, their running
 * sums place them, and a second pass packs them.  Returns 0, or -1 when
 * the places could not be allocated.
 */
static int
Pack(char *h, const Packing *pk, const PbDevicePart *parts, uint32_t nparts)
{
	PartAt	   *at = (PartAt *) malloc(sizeof(PartAt) * (nparts + 1));
	PartAt		next = {0, 0, 0};
	long		nf = 0;
	size_t		nitems = 0;
	PackItem   *items = ItemsOf(parts, nparts, &nitems);
	PackJob		job = {h, pk, parts, at, items};
	PbRun run = {nitems < PACK_THREADS ? (int) nitems : PACK_THREADS, 0, NULL, NULL};
	uint32_t	r = 0,
				pt = 0;

	if (at == NULL || items == NULL)
	{
		free(at);
		free(items);
		return -1;
	}
	*(unsigned long long *) (h + pk->off_count) = 0;
	for (uint32_t p = 0; p < nparts; p++)
	{
		size_t		na,
					nb;

		at[p] = next;
		at[p].fpart = FilterSets(&parts[p], &na, &nb) ? nf++ : -1;
		next.s0 += parts[p].batch->nshapes;
		if (!parts[p].filter)
			next.pair0 += parts[p].npairs;
	}
	if (pk->resident)			/* no rings or points of their own to place */
		for (size_t i = 0; i < nitems; i++)
			items[i].r0 = items[i].i0 = 0;
	else
	{
		PbParallelFor(&run, (int64_t) nitems, CountItem, &job);
		for (size_t i = 0; i < nitems; i++)
		{
			uint32_t	nr = items[i].r0,
						np = items[i].i0;

			items[i].r0 = r;
			items[i].i0 = pt;
			r += nr;
			pt += np;
		}
	}
	PbParallelFor(&run, (int64_t) nitems, PackItemAt, &job);
	free(items);
	free(at);
	return 0;
}

/* The device bytes of the parts' packed form and results (see Packing). */
extern "C" size_t
PbGpuPartsBytes(const PbDevicePart *parts, uint32_t nparts)
{
	return PackingOf(parts, nparts, NULL).total;
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
	gb.rings = (const uint2 *) (pk->resident ? (char *) g->d_src : d + pk->off_rings);
	gb.pts = (const int2 *) (pk->resident ? (char *) g->d_src + g->src_pts_at : d + pk->off_pts);
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
	gb.pair_cap = (uint32_t) (pk->nhost + pk->found_cap);
	gb.tiles = (unsigned long long *) (d + pk->off_tiles);
	gb.tile_start = (unsigned long long *) (d + pk->off_tstart);
	gb.big = (uint32_t *) (d + pk->off_big);
	gb.nbig = (unsigned *) (d + pk->off_nbig);
	gb.scan_tmp = d + pk->off_scan;
	gb.scan_bytes = pk->scan_bytes;
	if ((e = cudaMemcpyAsync(d, g->h_in, pk->in_bytes, cudaMemcpyHostToDevice, g->stream)) != cudaSuccess ||
		(e = cudaMemsetAsync(gb.nbig, 0, sizeof(unsigned), g->stream)) != cudaSuccess ||
		(e = cudaEventRecord(g->start, g->stream)) != cudaSuccess ||
		(e = PbLaunchFilter(gb, g->sm_count, g->stream)) != cudaSuccess ||
		(e = (g->kernel == PB_GPU_BITMAP ? PbLaunchBitmap(gb, g->sm_count, g->stream)
			  : PbLaunchPixelBox(gb, g->kernel == PB_GPU_PIXEL_ONLY, g->sm_count, g->stream))) != cudaSuccess ||
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
 * PbGpuStartStaged: the packing may overlap the submission in flight.  A
 * submission that does not fit beside the held source is packed whole,
 * and the source let go when it starts (the one in flight may still need
 * the source: to re-run with more room for found pairs).
 */
extern "C" int
PbGpuStage(PbGpu *g, const PbDevicePart *parts, uint32_t nparts, PbGpuKernel kernel,
		   char *err, size_t err_len)
{
	Packing		pk = PackingOf(parts, nparts, g);
	size_t		budget = Budget(g);
	int			slot = 1 - g->cur;
	cudaError_t e;

	g->staged = 0;
	g->release_staged = g->src_bytes > 0 && pk.total > Room(g);
	if (g->release_staged)
		pk = PackingOf(parts, nparts, NULL);
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
	g->slot_kernel[slot] = kernel;
	g->staged = 1;
	return 0;
}

/*
 * Hold src's rings and points on the device (see the file header), in
 * place of any held before: 1 held, 0 not, when they would take more than
 * half the budget, a submission is in flight or staged, or the device
 * could not (its error cleared: parts are then packed whole, as before).
 */
extern "C" int
PbGpuHoldSource(PbGpu *g, const PbBatch *src)
{
	size_t		rings = (size_t) src->nrings * sizeof(PbRing),
				pts_at = Align(rings),
				bytes = pts_at + (size_t) src->nipts * sizeof(int2);
	int			ok;

	PbGpuReleaseSource(g);
	if (src->nipts == 0 || bytes > Budget(g) / 2 || g->state != GPU_IDLE || g->staged)
		return 0;
	ok = GpuPolyHold(g, bytes) == 0;
	if (ok)
		ok = PinnedCopyIn(&g->kit, g->device, g->stream, g->d_src, src->rings, rings) == cudaSuccess &&
			PinnedCopyIn(&g->kit, g->device, g->stream, (char *) g->d_src + pts_at, src->ipts,
						 bytes - pts_at) == cudaSuccess;
	if (!ok)
	{
		cudaGetLastError();
		PbGpuReleaseSource(g);
		return 0;
	}
	g->src_pts_at = pts_at;
	g->src_rings = src->rings;
	g->src_ipts = src->ipts;
	g->src_nrings = src->nrings;
	g->src_nipts = src->nipts;
	return 1;
}

/*
 * Let the held source go (none is fine), after the work in flight, which
 * may read it, is over.
 */
extern "C" void
PbGpuReleaseSource(PbGpu *g)
{
	if (g->d_src == NULL)
		return;
	cudaStreamSynchronize(g->stream);
	GpuPolyUnhold(g);
	g->src_rings = NULL;
	g->src_ipts = NULL;
	g->src_nrings = 0;
	g->src_nipts = 0;
	cudaGetLastError();
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
	if (g->release_staged)
		PbGpuReleaseSource(g);
	g->release_staged = 0;
	g->staged = 0;
	g->cur = 1 - g->cur;
	g->h_in = g->h_slot[g->cur];
	g->pk = g->slot_pk[g->cur];
	g->kernel = g->slot_kernel[g->cur];
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
	size_t		room = Room(g);
	cudaError_t e;

	if (found > g->pk.found_cap)
	{
		g->pk.found_cap = found;
		Layout(&g->pk);
		if (g->pk.nhost + found > UINT32_MAX || g->pk.total > room)
		{
			snprintf(err, err_len, "the GPU MBR filter found %llu pairs; with them the batch needs %zu bytes of device memory, more than the budget leaves it (%zu)",
					 found, g->pk.total, room);
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

/* PbPipeDevice.stage: pack the parts for the context's kernel (PbGpuSetMethod). */
static int
DevStage(void *ctx, const PbDevicePart *parts, uint32_t n, char *err, size_t err_len)
{
	return PbGpuStage((PbGpu *) ctx, parts, n, ((PbGpu *) ctx)->method, err, err_len);
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

/* PbPipeDevice.hold: hold the tasks' source (PbGpuHoldSource). */
static int
DevHold(void *ctx, const PbBatch *src)
{
	return PbGpuHoldSource((PbGpu *) ctx, src);
}

/* PbPipeDevice.release: let it go. */
static void
DevRelease(void *ctx)
{
	PbGpuReleaseSource((PbGpu *) ctx);
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

/* The kernel of the pipeline's submissions from now on. */
extern "C" void
PbGpuSetMethod(PbGpu *g, PbGpuKernel kernel)
{
	g->method = kernel;
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
	dev->hold = DevHold;
	dev->release = DevRelease;
	dev->results = DevResults;
	dev->found = DevFound;
}
