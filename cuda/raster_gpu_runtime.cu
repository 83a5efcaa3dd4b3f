/*
 * raster_gpu_runtime.cu: the per-process CUDA context of the raster kernels
 * (see raster_gpu_common.cuh): created on the first raster call, kept for
 * the life of the process so repeated calls reuse the stream, the events,
 * the pinned counters and the device memory cached in the pool.
 */
#include <stdio.h>
#include <string.h>

#include "raster_gpu_common.cuh"

static RgCtx rg_ctx;
static int	rg_ready;

/* Write "what: CUDA's message" into err; clear a non-sticky error; -1. */
int
RgFail(char *err, size_t err_len, const char *what, cudaError_t e)
{
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "%s: %s", what, cudaGetErrorString(e));
	cudaGetLastError();
	return -1;
}

/* Create the stream, events, memory pool and pinned counters of device 0. */
static int
RgCreate(RgCtx *c, char *err, size_t err_len)
{
	int			count = 0;
	int			pools = 0;
	int			optin = 0;
	cudaDeviceProp prop;
	cudaMemPoolProps props;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess)
		return RgFail(err, err_len, "CUDA is not usable", e);
	if (count == 0)
	{
		snprintf(err, err_len, "no CUDA device is present");
		return -1;
	}
	memset(&props, 0, sizeof(props));
	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = 0;
	if ((e = cudaSetDevice(0)) != cudaSuccess ||
		(e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0)) != cudaSuccess)
		return RgFail(err, err_len, "CUDA initialization failed", e);
	if (!pools)
	{
		snprintf(err, err_len, "device 0 (%s) has no stream-ordered memory pools", prop.name);
		return -1;
	}
	c->sms = prop.multiProcessorCount;
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
		/* destroying null handles fails harmlessly */
		if (c->pool)
			cudaMemPoolDestroy(c->pool);
		cudaEventDestroy(c->ev_a);
		cudaEventDestroy(c->ev_b);
		cudaStreamDestroy(c->stream);
		cudaGetLastError();
		memset(c, 0, sizeof(*c));
		return -1;
	}
	return 0;
}

/* The context, created on first use; the pool keeps memory_budget cached. */
int
RgContext(RgCtx **out, size_t memory_budget, char *err, size_t err_len)
{
	uint64_t	keep = memory_budget;
	cudaError_t e;

	if (!rg_ready)
	{
		memset(&rg_ctx, 0, sizeof(rg_ctx));
		if (RgCreate(&rg_ctx, err, err_len) != 0)
			return -1;
		rg_ready = 1;
	}
	if ((e = cudaSetDevice(0)) != cudaSuccess ||
		(e = cudaMemPoolSetAttribute(rg_ctx.pool, cudaMemPoolAttrReleaseThreshold, &keep)) != cudaSuccess)
		return RgFail(err, err_len, "CUDA device setup failed", e);
	*out = &rg_ctx;
	return 0;
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
