/*
 * pinned_copy.cuh: copies between a caller's pageable host memory and the
 * device, several times faster than a plain cudaMemcpy from pageable
 * memory (which one thread stages through a driver buffer), for whichever
 * side of a context moves large arrays: the raster drivers' images and
 * the polygon side's held source (pinned_copy_host.cu says how).  Each
 * side keeps its own kit, so the two may copy at once on two threads.
 * CUDA-only header.
 */
#ifndef PB_PINNED_COPY_CUH
#define PB_PINNED_COPY_CUH

#include <cuda_runtime.h>
#include <stdbool.h>
#include <stddef.h>

/* Threads of one large copy, each with its own stream and pinned pair. */
#define PINNED_COPY_THREADS 8

/* A side's copy threads' pinned buffers, streams and events (opaque). */
typedef struct PinnedKit PinnedKit;

/*
 * Copy rows between pageable host memory and the device (2D, as
 * cudaMemcpy2D; in: host to device) on device, after the work already on
 * stream after, through *kit (made on the first large copy and kept);
 * done on return.  Small copies go the plain way on after.
 */
cudaError_t PinnedCopyRows(PinnedKit **kit, int device, cudaStream_t after, bool in,
						   void *dst, size_t dpitch, const void *src, size_t spitch,
						   size_t width, size_t rows);

/* Host bytes to the device (PinnedCopyRows over a flat array). */
cudaError_t PinnedCopyIn(PinnedKit **kit, int device, cudaStream_t after, void *dst,
						 const void *src, size_t bytes);

/* Free *kit's buffers, streams and events (none made is fine). */
void		PinnedKitFree(PinnedKit **kit);

#endif							/* PB_PINNED_COPY_CUH */
