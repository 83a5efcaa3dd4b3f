/*
 * raster_gpu_common.cuh: what the raster kernels and their host drivers
 * (recon_*, edt_*, watershed_*) share: the raster side of a PbGpu
 * context (pb_gpu.h), made on its first raster call (a stream, timing
 * events, a private stream-ordered memory pool so repeated calls do not
 * pay for cudaMalloc, a pinned word buffer for counters), the call's
 * share of the context's budget, error reporting, polling, threaded host
 * copies, and the warp scan.  One thread at a time runs raster calls on a
 * context.
 */
#ifndef PB_RASTER_GPU_COMMON_CUH
#define PB_RASTER_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_raster_gpu.h"
#include "pinned_copy.cuh"

/* Words of pinned host memory for counters read back between rounds. */
#define RG_SMALL_WORDS 16

/* The raster side of a context. */
typedef struct RgCtx
{
	int			device;			/* the CUDA device it runs on */
	int			sms;			/* its multiprocessors */
	size_t		smem_optin;		/* shared memory a block may opt in to */
	cudaStream_t stream;
	cudaEvent_t ev_a,
				ev_b;			/* brackets of one timed section */
	cudaMemPool_t pool;			/* device allocations, cached between calls */
	uint32_t   *h_small;		/* pinned: counters copied back */
	PbGpu	   *gpu;			/* the context it belongs to */
	PinnedKit  *kit;			/* its threaded copies' buffers, made on first use */
} RgCtx;

/*
 * Begin a raster call on g: its raster side in *out (made on the first
 * call, on g's device), and in *budget the device bytes the call may
 * allocate, reserved from g's budget until RgEnd.  0, or -1 with a reason
 * in err (and nothing to end).
 */
int			RgBegin(PbGpu *g, RgCtx **out, size_t *budget, char *err, size_t err_len);

/*
 * End the call begun by RgBegin, its allocations freed and its stream
 * synchronized: the reservation goes back to the budget, the pool keeps
 * what it used cached for the next call.
 */
void		RgEnd(RgCtx *c);

/* Write "what: CUDA's message" into err, clear a non-sticky error; -1. */
int			RgFail(char *err, size_t err_len, const char *what, cudaError_t e);

/* Stream-ordered device allocation from the context's pool. */
cudaError_t RgAlloc(RgCtx *c, void **p, size_t bytes);

/* Stream-ordered free (NULL is fine); errors are ignored on this path. */
void		RgFree(RgCtx *c, void *p);

/*
 * Copy rows between the caller's pageable memory and the device (2D, as
 * cudaMemcpy2D), after the work on the context's stream, through threads
 * and pinned buffers (pinned_copy.cuh); done on return.  0, or -1
 * with "what: reason" in err.
 */
int			RgCopyIn(RgCtx *c, void *dst, size_t dpitch, const void *src, size_t spitch,
					 size_t width, size_t rows, const char *what, char *err, size_t err_len);
int			RgCopyOut(RgCtx *c, void *dst, size_t dpitch, const void *src, size_t spitch,
					  size_t width, size_t rows, const char *what, char *err, size_t err_len);

/* Start a timed section on the context's stream. */
cudaError_t RgTimeStart(RgCtx *c);

/* End a timed section: wait for the stream, add its milliseconds to *ms. */
cudaError_t RgTimeEnd(RgCtx *c, double *ms);

/*
 * Pack the ring (window.h's order) of the w x h rectangle at (ox, oy) of
 * a device tile, pitch pixels of ps bytes a row, into the device buffer
 * ring (pack), or unpack ring into it; launched on stream s
 * (ring_kernels.cu).
 */
cudaError_t RgRingMove(char *tile, int64_t pitch, int64_t ox, int64_t oy, int64_t w, int64_t h,
					   size_t ps, char *ring, bool pack, cudaStream_t s);

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
