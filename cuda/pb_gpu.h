/*
 * pb_gpu.h: the plain C interface to pixelbox's CUDA code.  No PostgreSQL
 * and no CUDA types here, so the glue can include it next to postgres.h.
 * Built from the .cu files when nvcc is present, from src/gpu_none.c
 * otherwise (where every call reports that there is no GPU).
 *
 * A PbGpu is one backend's handle on one device: a stream, device buffers
 * within a memory budget, and pinned host buffers.  Work is submitted a
 * batch at a time and runs asynchronously; the caller polls for the end
 * (so it can answer query cancels) and then reads the results.  Nothing
 * here may be called before fork: initialize lazily, in the backend.
 */
#ifndef PB_GPU_H
#define PB_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/pb_core.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct PbGpu PbGpu;

/* Kernel variants (the benchmark compares them). */
typedef enum PbGpuKernel
{
	PB_GPU_PIXELBOX = 0,		/* sampling boxes, then pixelization under T */
	PB_GPU_PIXEL_ONLY = 1		/* pixelization of the whole window */
} PbGpuKernel;

/*
 * Count the usable CUDA devices (initializes the CUDA runtime).  Returns 0
 * and writes why into reason when there is none: no driver, no device, or
 * a build without CUDA.  Never crashes on a machine without a GPU.
 */
int			PbGpuProbe(char *reason, size_t reason_len);

/*
 * Open a handle on device 0 using at most memory_budget bytes of device
 * memory.  NULL with a reason on failure.
 */
PbGpu	   *PbGpuOpen(size_t memory_budget, char *err, size_t err_len);

/* Release the handle (waits for work in flight). */
void		PbGpuClose(PbGpu *g);

/*
 * Start computing the intersection pixel counts of the pairs pair_idx[0..n)
 * of batch b (all PB_SHAPE_INT on both sides).  The batch is copied, so
 * the caller may reuse it at once.  Work still in flight from an earlier
 * call is waited for first.  Returns 0, or -1 with a reason (out of
 * memory, launch failure, batch larger than the budget).
 */
int			PbGpuSubmit(PbGpu *g, const PbBatch *b, const uint32_t *pair_idx,
						uint32_t n, PbGpuKernel kernel, char *err,
						size_t err_len);

/* Device bytes PbGpuSubmit needs for n pairs of batch b (to check a budget). */
size_t		PbGpuPackedBytes(const PbBatch *b, uint32_t n);

/* 1 when the submitted work is done, 0 while it runs, -1 with a reason. */
int			PbGpuPoll(PbGpu *g, char *err, size_t err_len);

/* Intersection areas of the finished submission, in pair_idx order. */
const int64_t *PbGpuResults(const PbGpu *g);

/* Milliseconds the last finished kernel ran (for benchmarks). */
double		PbGpuKernelMs(const PbGpu *g);

/* Device name and compute capability, for messages and benchmarks. */
const char *PbGpuDeviceName(const PbGpu *g);

#ifdef __cplusplus
}
#endif

#endif							/* PB_GPU_H */
