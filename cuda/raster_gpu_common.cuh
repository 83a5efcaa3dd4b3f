/*
 * raster_gpu_common.cuh: what the raster kernels (recon_kernel.cu,
 * edt_kernel.cu, watershed_*.cu) share: one lazily created per-process
 * CUDA context (a stream, timing events, a private stream-ordered memory
 * pool so repeated calls do not pay for cudaMalloc, a pinned word buffer
 * for counters), error reporting, polling, and the warp scan.  Nothing here runs before the first raster call,
 * so merely loading the module never initializes CUDA.  Not thread-safe:
 * PostgreSQL backends and the tests call from one thread.
 */
#ifndef PB_RASTER_GPU_COMMON_CUH
#define PB_RASTER_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_raster_gpu.h"

/* Words of pinned host memory for counters read back between rounds. */
#define RG_SMALL_WORDS 16

/* The per-process state of the raster kernels. */
typedef struct RgCtx
{
	int			sms;			/* multiprocessors of device 0 */
	size_t		smem_optin;		/* shared memory a block may opt in to */
	cudaStream_t stream;
	cudaEvent_t ev_a,
				ev_b;			/* brackets of one timed section */
	cudaMemPool_t pool;			/* device allocations, cached between calls */
	uint32_t   *h_small;		/* pinned: counters copied back */
} RgCtx;

/*
 * Get the context, creating it on first use (device 0), and let the pool
 * keep up to memory_budget bytes cached after this call.  0, or -1 with a
 * reason in err.
 */
int			RgContext(RgCtx **out, size_t memory_budget, char *err, size_t err_len);

/* Write "what: CUDA's message" into err, clear a non-sticky error; -1. */
int			RgFail(char *err, size_t err_len, const char *what, cudaError_t e);

/* Stream-ordered device allocation from the context's pool. */
cudaError_t RgAlloc(RgCtx *c, void **p, size_t bytes);

/* Stream-ordered free (NULL is fine); errors are ignored on this path. */
void		RgFree(RgCtx *c, void *p);

/* Start a timed section on the context's stream. */
cudaError_t RgTimeStart(RgCtx *c);

/* End a timed section: wait for the stream, add its milliseconds to *ms. */
cudaError_t RgTimeEnd(RgCtx *c, double *ms);

/* Nonzero when poll (may be NULL) asks to stop. */
static inline int
RgStop(PbPollFn poll, void *arg)
{
	return poll != NULL && poll(arg) != 0;
}

/*
 * The inclusive prefix sum of v over the lanes of a warp, at lane (all 32
 * lanes call it together): the warp scan of the raster kernels.
 */
template <typename T>
__device__ __forceinline__ T
RgWarpInclusiveSum(T v, int lane)
{
#pragma unroll
	for (int d = 1; d < 32; d <<= 1)
	{
		T			t = __shfl_up_sync(0xffffffffu, v, d);

		if (lane >= d)
			v += t;
	}
	return v;
}

/*
 * Run call; on failure write "what: reason" into err and jump to the
 * caller's label fail (every function using it declares its variables
 * before the first use, so the jump skips no initialization).
 */
#define RG_TRY(call, what) \
	do { \
		cudaError_t rg_e_ = (call); \
		if (rg_e_ != cudaSuccess) \
		{ \
			RgFail(err, err_len, (what), rg_e_); \
			goto fail; \
		} \
	} while (0)

#endif							/* PB_RASTER_GPU_COMMON_CUH */
