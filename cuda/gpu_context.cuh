/*
 * gpu_context.cuh: what a PbGpu (pb_gpu.h) holds, for the three files
 * that run on it: gpu_context_host.cu (the context and its budget),
 * polygon_host.cu (the polygon side) and raster_context_host.cu (the
 * raster side), and the helpers they share.  CUDA-only header.
 *
 * One budget covers the device memory of both sides.  The polygon side
 * holds one buffer (d_buf, d_cap bytes), grown as submissions need and
 * kept between them, and for the length of a pipeline run the source its
 * parts borrow from (d_src, src_bytes: PbGpuHoldSource); the raster side
 * holds a stream-ordered memory pool, from which a call allocates within
 * a reservation and which keeps what the call used cached afterwards.
 * Either side gives its cached memory back when the other needs it and it
 * is idle.  The fields under "the budget" change only with lock held: the
 * polygon side may run on one thread (a pipeline's aggregator) while
 * raster calls run on another.
 */
#ifndef PB_GPU_CONTEXT_CUH
#define PB_GPU_CONTEXT_CUH

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>

#include "pb_gpu.h"
#include "raster_gpu_common.cuh"

/*
 * What the parts of a submission hold, and where each section of their
 * packed form starts: shapes, rings, int points, the first shape of each
 * part, the filter parts, the found-pair counter, the host pairs (copied
 * in up to here), then the found pairs, the host pairs' areas and the
 * bitmap engine's work space (tile counts, first tiles, the list of pairs
 * left to PixelBox and its count, the scan's storage).
 */
struct Packing
{
	int			resident;		/* rings and points are the held source's,
								 * not sections of their own */
	size_t		nshapes,
				nrings,
				npts,
				nparts,
				nhost,
				nfparts,
				filter_rows,
				found_cap;
	size_t		off_rings,
				off_pts,
				off_base,
				off_fparts,
				off_count,
				off_pairs,
				in_bytes,
				off_found,
				off_out,
				off_tiles,
				off_tstart,
				off_big,
				off_nbig,
				off_scan,
				scan_bytes,
				total;
};

/* Where a submission is: nothing in flight, kernels running, found pairs coming back. */
typedef enum GpuState
{
	GPU_IDLE = 0,
	GPU_RUNNING,
	GPU_FETCHING
} GpuState;

struct PbGpu
{
	int			device;			/* CUDA's number of the device */
	int			sm_count;
	char		name[320];

	/* the budget (see the file header): lock held to read or change */
	pthread_mutex_t lock;
	size_t		budget;			/* device bytes both sides may hold in all */
	void	   *d_buf;			/* polygon side: packed submission + results */
	size_t		d_cap;
	int			poly_busy;		/* d_buf is in use: a submission runs */
	size_t		src_bytes;		/* of d_src, the held source (0: none) */
	size_t		raster_held;	/* raster side: a call's reservation, or the
								 * bytes its pool keeps cached between calls */
	int			raster_busy;	/* a raster call runs */
	int			raster_made;	/* the raster side exists (rg) */

	/* polygon side: used by the one thread submitting */
	cudaStream_t stream;
	cudaEvent_t start,
				stop;
	void	   *h_slot[2];		/* packed submissions, pinned: the one in
								 * flight (or done) and the one staged */
	size_t		h_slot_cap[2];
	Packing		slot_pk[2];		/* their layouts */
	PbGpuKernel slot_kernel[2];
	int			cur;			/* slot of the submission in flight or done */
	void	   *d_src;			/* held source: its rings (uint2), then its int points */
	size_t		src_pts_at;		/* where its points start in d_src */
	const PbRing *src_rings;	/* the host arrays it mirrors (NULL: none held) */
	const int32_t *src_ipts;
	uint32_t	src_nrings,
				src_nipts;
	PinnedKit  *kit;			/* the polygon side's threaded copies */
	int			staged;			/* a submission waits in slot 1 - cur */
	int			release_staged; /* it is packed whole: let the source go first */
	void	   *h_in;			/* = h_slot[cur] */
	int64_t    *h_out;			/* host pairs' areas, then the found count; pinned */
	size_t		h_out_cap;
	PbDeviceFound *h_found;		/* found pairs with their areas, pinned */
	size_t		h_found_cap;
	Packing		pk;				/* of the submission in flight or done */
	PbGpuKernel kernel;			/* its kernel */
	PbGpuKernel method;			/* the kernel of the pipeline's submissions */
	GpuState	state;
	uint32_t	nfound;			/* pairs found, once fetched */
	float		kernel_ms;

	/* raster side: used by the one thread running raster calls */
	RgCtx		rg;
};

/*
 * gpu_context_host.cu: make the polygon side's buffer hold need bytes and
 * mark it in use, within the budget (the raster side's idle cache is taken
 * back if need be).  0, or -1 with a reason.
 */
int			GpuPolyReserve(PbGpu *g, size_t need, char *err, size_t err_len);

/*
 * gpu_context_host.cu: give the polygon side bytes more for a held source
 * (d_src), within the budget (0, or -1 with nothing held); and free it.
 */
int			GpuPolyHold(PbGpu *g, size_t bytes);
void		GpuPolyUnhold(PbGpu *g);

/*
 * gpu_context_host.cu: a raster call begins on g: the polygon side's
 * buffer is given back when idle, and the call reserves (and gets) every
 * byte of the budget the polygon side does not hold.
 */
size_t		GpuRasterBegin(PbGpu *g);

/* gpu_context_host.cu: the raster call is over; its pool keeps cached bytes. */
void		GpuRasterEnd(PbGpu *g, size_t cached);

/*
 * raster_context_host.cu: give back what the raster pool caches beyond
 * keep bytes (it is idle); the bytes it still holds.
 */
size_t		RgTrim(RgCtx *c, size_t keep);

/* raster_context_host.cu: destroy the raster side, made, half made or not (idle). */
void		RgDestroy(RgCtx *c);

/* Helpers of both gpu_context_host.cu and polygon_host.cu: */

/* Write "what: CUDA's message" into err; return -1. */
static inline int
Fail(char *err, size_t len, const char *what, cudaError_t e)
{
	snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
	return -1;
}

/* No submission runs any more: the polygon side's buffer is idle. */
static inline void
PolyIdle(PbGpu *g)
{
	pthread_mutex_lock(&g->lock);
	g->poly_busy = 0;
	pthread_mutex_unlock(&g->lock);
}

/* Wait for work in flight; its results are dropped. */
static inline void
Drain(PbGpu *g)
{
	if (g->state != GPU_IDLE)
	{
		cudaStreamSynchronize(g->stream);
		g->state = GPU_IDLE;
		PolyIdle(g);
	}
}

#endif							/* PB_GPU_CONTEXT_CUH */
