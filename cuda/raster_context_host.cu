/*
 * raster_context_host.cu: the raster side of a PbGpu context (see
 * raster_gpu_common.cuh and gpu_context.cuh): made on the first raster
 * call and kept with the context, so repeated calls reuse the stream, the
 * events, the pinned counters and the device memory cached in the pool.
 * Each call reserves its share of the context's budget
 * (gpu_context_host.cu keeps the account) and plans its tiles within it.
 */
#include <stdio.h>
#include <string.h>

#include "gpu_context.cuh"

/* Write "what: CUDA's message" into err; clear a non-sticky error; -1. */
int
RgFail(char *err, size_t err_len, const char *what, cudaError_t e)
{
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "%s: %s", what, cudaGetErrorString(e));
	cudaGetLastError();
	return -1;
}

/* Make the stream, events, memory pool and pinned counters of g's raster side. */
static int
RgCreate(RgCtx *c, PbGpu *g, char *err, size_t err_len)
{
	int			pools = 0;
	int			optin = 0;
	cudaMemPoolProps props;
	cudaError_t e;

	memset(c, 0, sizeof(*c));
	memset(&props, 0, sizeof(props));
	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = g->device;
	if ((e = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, g->device)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
									g->device)) != cudaSuccess)
		return RgFail(err, err_len, "CUDA initialization failed", e);
	if (!pools)
	{
		snprintf(err, err_len, "device %d (%s) has no stream-ordered memory pools", g->device,
				 g->name);
		return -1;
	}
	c->gpu = g;
	c->device = g->device;
	c->sms = g->sm_count;
	c->smem_optin = (size_t) optin;
	if ((e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) != cudaSuccess)
		return RgFail(err, err_len, "creating a CUDA stream failed", e);
	if ((e = cudaEventCreate(&c->ev_a)) != cudaSuccess ||
		(e = cudaEventCreate(&c->ev_b)) != cudaSuccess ||
		(e = cudaMemPoolCreate(&c->pool, &props)) != cudaSuccess ||
		(e = cudaHostAlloc((void **) &c->h_small, RG_SMALL_WORDS * sizeof(uint32_t),
						   cudaHostAllocDefault)) != cudaSuccess)
	{
		RgFail(err, err_len, "CUDA initialization failed", e);
		RgDestroy(c);
		return -1;
	}
	return 0;
}

/* Destroy the raster side, made or half made. */
void
RgDestroy(RgCtx *c)
{
	if (c->stream)
	{
		cudaStreamSynchronize(c->stream);
		cudaStreamDestroy(c->stream);
	}
	if (c->pool)
		cudaMemPoolDestroy(c->pool);
	if (c->ev_a)
		cudaEventDestroy(c->ev_a);
	if (c->ev_b)
		cudaEventDestroy(c->ev_b);
	cudaFreeHost(c->h_small);
	PinnedKitFree(&c->kit);
	cudaGetLastError();
	memset(c, 0, sizeof(*c));
}

static_assert(PB_RASTER_COPY_THREADS == PINNED_COPY_THREADS,
			  "a hybrid run leaves the CPU side as many threads per GPU as a copy takes");

/* Rows between host and device through c's copy kit (in: host to device). */
static int
RgCopy(RgCtx *c, bool in, void *dst, size_t dpitch, const void *src, size_t spitch,
	   size_t width, size_t rows, const char *what, char *err, size_t err_len)
{
	cudaError_t e = PinnedCopyRows(&c->kit, c->device, c->stream, in, dst, dpitch, src, spitch,
								   width, rows);

	return e == cudaSuccess ? 0 : RgFail(err, err_len, what, e);
}

/* Host rows to the device (see raster_gpu_common.cuh). */
int
RgCopyIn(RgCtx *c, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		 size_t rows, const char *what, char *err, size_t err_len)
{
	return RgCopy(c, true, dst, dpitch, src, spitch, width, rows, what, err, err_len);
}

/* Device rows to the host (see raster_gpu_common.cuh). */
int
RgCopyOut(RgCtx *c, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		  size_t rows, const char *what, char *err, size_t err_len)
{
	return RgCopy(c, false, dst, dpitch, src, spitch, width, rows, what, err, err_len);
}

/* The bytes the pool holds from the device, used or cached. */
static size_t
RgHeld(RgCtx *c)
{
	uint64_t	held = 0;

	if (cudaMemPoolGetAttribute(c->pool, cudaMemPoolAttrReservedMemCurrent, &held) != cudaSuccess)
		cudaGetLastError();
	return (size_t) held;
}

/* Give back what the idle pool caches beyond keep bytes. */
size_t
RgTrim(RgCtx *c, size_t keep)
{
	if (cudaMemPoolTrimTo(c->pool, keep) != cudaSuccess)
		cudaGetLastError();
	return RgHeld(c);
}

/*
 * The raster side of g, made on first use; the call's reservation, which
 * the pool may keep cached after it (see raster_gpu_common.cuh).
 */
int
RgBegin(PbGpu *g, RgCtx **out, size_t *budget, char *err, size_t err_len)
{
	uint64_t	keep;
	cudaError_t e;

	if (g == NULL)
	{
		snprintf(err, err_len, "no GPU context");
		return -1;
	}
	if ((e = cudaSetDevice(g->device)) != cudaSuccess)
		return RgFail(err, err_len, "CUDA device setup failed", e);
	if (g->rg.pool == NULL && RgCreate(&g->rg, g, err, err_len) != 0)
		return -1;
	*budget = GpuRasterBegin(g);
	keep = *budget;
	if ((e = cudaMemPoolSetAttribute(g->rg.pool, cudaMemPoolAttrReleaseThreshold, &keep)) != cudaSuccess)
	{
		GpuRasterEnd(g, RgHeld(&g->rg));
		return RgFail(err, err_len, "CUDA device setup failed", e);
	}
	*out = &g->rg;
	return 0;
}

/* The call is over: what the pool holds now is what the raster side keeps. */
void
RgEnd(RgCtx *c)
{
	GpuRasterEnd(c->gpu, RgHeld(c));
}

/* Stream-ordered device allocation from the context's pool. */
cudaError_t
RgAlloc(RgCtx *c, void **p, size_t bytes)
{
	return cudaMallocFromPoolAsync(p, bytes ? bytes : 1, c->pool, c->stream);
}

/* Stream-ordered free of p (NULL is fine). */
void
RgFree(RgCtx *c, void *p)
{
	if (p != NULL && cudaFreeAsync(p, c->stream) != cudaSuccess)
		cudaGetLastError();
}

/* Start a timed section on the context's stream. */
cudaError_t
RgTimeStart(RgCtx *c)
{
	return cudaEventRecord(c->ev_a, c->stream);
}

/* End a timed section: wait for the stream, add its milliseconds to *ms. */
cudaError_t
RgTimeEnd(RgCtx *c, double *ms)
{
	float		t = 0;
	cudaError_t e;

	if ((e = cudaEventRecord(c->ev_b, c->stream)) != cudaSuccess ||
		(e = cudaEventSynchronize(c->ev_b)) != cudaSuccess ||
		(e = cudaEventElapsedTime(&t, c->ev_a, c->ev_b)) != cudaSuccess)
		return e;
	*ms += t;
	return cudaSuccess;
}
