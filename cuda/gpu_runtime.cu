/*
 * gpu_runtime.cu: device handle, buffers and the asynchronous path of a
 * batch: pack into pinned memory, copy in, run the kernel, copy results
 * out, all on one stream; the caller polls an event.
 *
 * The CUDA runtime is linked statically (see the Makefile): on a machine
 * without a driver the first call fails cleanly and we report why.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_layout.h"
#include "pb_gpu.h"

struct PbGpu
{
	int			sm_count;
	char		name[320];
	size_t		budget;			/* device bytes we may hold */
	cudaStream_t stream;
	cudaEvent_t start,
				stop;
	void	   *d_buf;			/* packed batch + results, on the device */
	size_t		d_cap;
	void	   *h_in;			/* packed batch, pinned */
	size_t		h_in_cap;
	int64_t    *h_out;			/* results, pinned */
	size_t		h_out_cap;
	uint32_t	npairs;			/* of the submission in flight or done */
	int			in_flight;
	float		kernel_ms;
};

/* Write "what: CUDA's message" into err; return -1. */
static int
Fail(char *err, size_t len, const char *what, cudaError_t e)
{
	snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
	return -1;
}

/* Round up to a multiple of 256 bytes (alignment of every section). */
static size_t
Align(size_t n)
{
	return (n + 255) & ~(size_t) 255;
}

extern "C" int
PbGpuProbe(char *reason, size_t reason_len)
{
	int			count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess)
	{
		snprintf(reason, reason_len, "CUDA is not usable: %s", cudaGetErrorString(e));
		return 0;
	}
	if (count == 0)
		snprintf(reason, reason_len, "no CUDA device is present");
	return count;
}

extern "C" PbGpu *
PbGpuOpen(size_t memory_budget, char *err, size_t err_len)
{
	PbGpu	   *g;
	cudaDeviceProp prop;
	cudaError_t e;

	if (PbGpuProbe(err, err_len) == 0)
		return NULL;
	g = (PbGpu *) calloc(1, sizeof(PbGpu));
	if (g == NULL)
	{
		snprintf(err, err_len, "out of host memory");
		return NULL;
	}
	g->budget = memory_budget;
	if ((e = cudaSetDevice(0)) != cudaSuccess ||
		(e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess ||
		(e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess ||
		(e = cudaEventCreate(&g->start)) != cudaSuccess ||
		(e = cudaEventCreate(&g->stop)) != cudaSuccess)
	{
		Fail(err, err_len, "CUDA initialization failed", e);
		free(g);
		return NULL;
	}
	g->sm_count = prop.multiProcessorCount;
	snprintf(g->name, sizeof(g->name), "%s (sm_%d%d, %d SMs)", prop.name, prop.major,
			 prop.minor, prop.multiProcessorCount);
	return g;
}

/* Wait for work in flight; its results are dropped. */
static void
Drain(PbGpu *g)
{
	if (g->in_flight)
	{
		cudaStreamSynchronize(g->stream);
		g->in_flight = 0;
	}
}

extern "C" void
PbGpuClose(PbGpu *g)
{
	if (g == NULL)
		return;
	Drain(g);
	cudaFree(g->d_buf);
	cudaFreeHost(g->h_in);
	cudaFreeHost(g->h_out);
	cudaEventDestroy(g->start);
	cudaEventDestroy(g->stop);
	cudaStreamDestroy(g->stream);
	free(g);
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

/* Where each section of a packed batch starts, and its total size. */
struct Packing
{
	size_t		off_rings,
				off_pts,
				off_pairs,
				in_bytes,
				total;
};

/* Lay out n pairs of batch b: shapes, rings, int points, pairs; then results. */
static Packing
PackingOf(const PbBatch *b, uint32_t n)
{
	Packing		p;

	p.off_rings = Align((size_t) b->nshapes * sizeof(GShape));
	p.off_pts = p.off_rings + Align((size_t) b->nrings * sizeof(uint2));
	p.off_pairs = p.off_pts + Align((size_t) b->nipts * sizeof(int2));
	p.in_bytes = p.off_pairs + Align((size_t) n * sizeof(uint2));
	p.total = p.in_bytes + (size_t) n * sizeof(long long);
	return p;
}

extern "C" size_t
PbGpuPackedBytes(const PbBatch *b, uint32_t n)
{
	return PackingOf(b, n).total;
}

extern "C" int
PbGpuSubmit(PbGpu *g, const PbBatch *b, const uint32_t *pair_idx, uint32_t n,
			PbGpuKernel kernel, char *err, size_t err_len)
{
	Packing		pk = PackingOf(b, n);
	size_t		off_rings = pk.off_rings,
				off_pts = pk.off_pts,
				off_pairs = pk.off_pairs,
				in_bytes = pk.in_bytes,
				total = pk.total;
	char	   *h;
	GShape	   *shapes;
	uint2	   *pairs;
	GBatch		gb;
	cudaError_t e;

	Drain(g);
	if (total > g->budget)
	{
		snprintf(err, err_len, "batch needs %zu bytes of device memory, more than the budget (%zu)",
				 total, g->budget);
		return -1;
	}
	if ((e = GrowHost(&g->h_in, &g->h_in_cap, in_bytes)) != cudaSuccess)
		return Fail(err, err_len, "pinned host allocation failed", e);
	if ((e = GrowHost((void **) &g->h_out, &g->h_out_cap, (size_t) n * sizeof(int64_t) + 8)) != cudaSuccess)
		return Fail(err, err_len, "pinned host allocation failed", e);
	if (total > g->d_cap)
	{
		size_t		want = total + total / 2 < g->budget ? total + total / 2 : g->budget;

		cudaFree(g->d_buf);
		g->d_buf = NULL;
		g->d_cap = 0;
		if ((e = cudaMalloc(&g->d_buf, want)) != cudaSuccess)
		{
			cudaGetLastError();	/* out of memory is not sticky: clear it */
			return Fail(err, err_len, "device allocation failed", e);
		}
		g->d_cap = want;
	}
	/* pack: shapes (int boxes), rings, int points, pairs */
	h = (char *) g->h_in;
	shapes = (GShape *) h;
	for (uint32_t i = 0; i < b->nshapes; i++)
	{
		const PbShape *s = &b->shapes[i];
		int			ok = s->kind == PB_SHAPE_INT;

		shapes[i].xmin = ok ? (int32_t) s->box.xmin : 0;
		shapes[i].ymin = ok ? (int32_t) s->box.ymin : 0;
		shapes[i].xmax = ok ? (int32_t) s->box.xmax : 0;
		shapes[i].ymax = ok ? (int32_t) s->box.ymax : 0;
		shapes[i].ring_first = s->ring_first;
		shapes[i].nrings = ok ? s->nrings : 0;
	}
	memcpy(h + off_rings, b->rings, (size_t) b->nrings * sizeof(uint2));
	memcpy(h + off_pts, b->ipts, (size_t) b->nipts * sizeof(int2));
	pairs = (uint2 *) (h + off_pairs);
	for (uint32_t k = 0; k < n; k++)
	{
		pairs[k].x = b->pairs[pair_idx[k]].a;
		pairs[k].y = b->pairs[pair_idx[k]].b;
	}
	gb.shapes = (const GShape *) g->d_buf;
	gb.rings = (const uint2 *) ((char *) g->d_buf + off_rings);
	gb.pts = (const int2 *) ((char *) g->d_buf + off_pts);
	gb.pairs = (const uint2 *) ((char *) g->d_buf + off_pairs);
	gb.npairs = n;
	gb.out = (long long *) ((char *) g->d_buf + in_bytes);
	if ((e = cudaMemcpyAsync(g->d_buf, g->h_in, in_bytes, cudaMemcpyHostToDevice, g->stream)) != cudaSuccess ||
		(e = cudaEventRecord(g->start, g->stream)) != cudaSuccess ||
		(e = PbLaunchPixelBox(gb, kernel == PB_GPU_PIXEL_ONLY, g->sm_count, g->stream)) != cudaSuccess ||
		(e = cudaEventRecord(g->stop, g->stream)) != cudaSuccess ||
		(e = cudaMemcpyAsync(g->h_out, gb.out, (size_t) n * sizeof(long long), cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess)
		return Fail(err, err_len, "kernel launch failed", e);
	g->npairs = n;
	g->in_flight = 1;
	return 0;
}

extern "C" int
PbGpuPoll(PbGpu *g, char *err, size_t err_len)
{
	cudaError_t e;

	if (!g->in_flight)
		return 1;
	e = cudaStreamQuery(g->stream);
	if (e == cudaErrorNotReady)
		return 0;
	g->in_flight = 0;
	if (e != cudaSuccess)
		return Fail(err, err_len, "GPU computation failed", e);
	if (cudaEventElapsedTime(&g->kernel_ms, g->start, g->stop) != cudaSuccess)
		g->kernel_ms = 0;
	return 1;
}

extern "C" const int64_t *
PbGpuResults(const PbGpu *g)
{
	return g->h_out;
}

extern "C" double
PbGpuKernelMs(const PbGpu *g)
{
	return g->kernel_ms;
}

extern "C" const char *
PbGpuDeviceName(const PbGpu *g)
{
	return g->name;
}
