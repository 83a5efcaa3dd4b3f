/*
 * pb_gpu.h: the plain C interface to pixelbox's CUDA code.  No PostgreSQL
 * and no CUDA types here, so the glue can include it next to postgres.h.
 * Built from the .cu files when nvcc is present, from pb_gpu_none.c
 * otherwise (where every call reports that there is no GPU).  How the
 * files of cuda/ are named (*_kernels.cu device code, *_host.cu host
 * drivers, *.cuh internal headers): cuda/README.md.
 *
 * A PbGpu is one backend's context on one device, shared by the polygon
 * submissions below and the raster operations of pb_raster_gpu.h: the
 * device, its streams, pinned host buffers, and ONE memory budget for
 * all the device memory it holds (the polygon side's buffer, the raster
 * side's memory pool).  Either side, when idle, gives its cached memory
 * back when the other needs it; a raster operation gets what the polygon
 * side does not hold and cuts its image into tiles to fit.
 *
 * Polygon work is submitted one submission (parts of one or more batches)
 * at a time and runs asynchronously; the caller polls for the end (so it
 * can answer query cancels) and then reads the results.  One thread at a
 * time submits polygon work and one (perhaps another) runs raster
 * operations; the budget is shared safely between them.  Nothing here
 * may be called before fork: initialize lazily, in the backend.
 */
#ifndef PB_GPU_H
#define PB_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/sccg/device.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct PbGpu PbGpu;

/* Kernels for the areas of rectilinear integer pairs, all exact and equal. */
typedef enum PbGpuKernel
{
	PB_GPU_PIXELBOX = 0,		/* the paper's: sampling boxes, then pixelization under T */
	PB_GPU_PIXEL_ONLY = 1,		/* pixelization of the whole window (benchmarks) */
	PB_GPU_BITMAP = 2			/* edge-flag bitmaps in tiles: the default */
} PbGpuKernel;

/*
 * Count the usable CUDA devices (initializes the CUDA runtime).  Returns 0
 * and writes why into reason when there is none: no driver, no device, or
 * a build without CUDA.  Never crashes on a machine without a GPU.
 */
int			PbGpuProbe(char *reason, size_t reason_len);

/*
 * Open a context on CUDA device number device (0 .. PbGpuProbe() - 1)
 * holding at most memory_budget bytes of its memory.  NULL with a reason
 * on failure.  Contexts on different devices are independent: each may be
 * driven by its own thread.
 */
PbGpu	   *PbGpuOpen(size_t memory_budget, int device, char *err, size_t err_len);

/*
 * Change the budget (pixelbox.gpu_memory changed): cached memory over the
 * new one is given back at once where idle, else as the work ends.
 */
void		PbGpuSetBudget(PbGpu *g, size_t memory_budget);

/* Release the context (waits for work in flight). */
void		PbGpuClose(PbGpu *g);

/*
 * The context's polygon side as the pipeline's device (core
 * src/core/sccg/device.h): stage, start, poll, results and found are the
 * calls below with the kernel PbGpuSetMethod chose (PB_GPU_BITMAP unless
 * told otherwise); budget is the context's.
 */
void		PbGpuDeviceOps(PbGpu *g, PbPipeDevice *dev);

/* The kernel of the device's submissions from now on (pixelbox.gpu_method). */
void		PbGpuSetMethod(PbGpu *g, PbGpuKernel kernel);

/*
 * Start the work of parts[0..nparts): the intersection areas of the host
 * pairs of the non-filter parts, and the device filter and areas of the
 * filter parts.  Host pairs must be PB_SHAPE_INT on both sides (any other
 * shape counts as empty).  The parts are copied, so the caller may reuse
 * them at once.  Work still in flight from an earlier call is waited for
 * first.  Returns 0, or -1 with a reason (out of memory, launch failure,
 * submission larger than the budget).
 */
int			PbGpuSubmitParts(PbGpu *g, const PbDevicePart *parts, uint32_t nparts,
							 PbGpuKernel kernel, char *err, size_t err_len);

/*
 * PbGpuSubmitParts in two steps, so that packing the next submission
 * overlaps the one running: PbGpuStage checks the parts and packs them
 * into pinned memory (replacing a submission staged before);
 * PbGpuStartStaged waits for the submission in flight, whose results are
 * then gone, and starts the staged one.  Each returns 0, or -1 with a
 * reason; nothing is staged after a failed PbGpuStage.
 */
int			PbGpuStage(PbGpu *g, const PbDevicePart *parts, uint32_t nparts,
					   PbGpuKernel kernel, char *err, size_t err_len);
int			PbGpuStartStaged(PbGpu *g, char *err, size_t err_len);

/*
 * Hold the rings and int points of batch src on the device until
 * PbGpuReleaseSource (or another hold), copied once: a submission whose
 * parts all borrow src's arrays (as a pipeline task's batch does) then
 * sends only its shapes and pairs.  The source counts in the budget;
 * one that would take more than half of it is not held, and a submission
 * that does not fit beside it makes the context let it go.  Call with
 * nothing in flight or staged.  1 held, 0 not (parts are packed whole).
 * The caller keeps src's arrays unchanged while they are held.
 */
int			PbGpuHoldSource(PbGpu *g, const PbBatch *src);
void		PbGpuReleaseSource(PbGpu *g);

/*
 * Device bytes PbGpuSubmitParts needs for these parts (to check a budget),
 * counting the initial room for the pairs the filter parts find.  When the
 * filter finds more, PbGpuPoll grows that room within the budget.
 */
size_t		PbGpuPartsBytes(const PbDevicePart *parts, uint32_t nparts);

/*
 * Start computing the intersection areas of the pairs pair_idx[0..n) of
 * batch b (all PB_SHAPE_INT on both sides): a submission of one part.
 */
int			PbGpuSubmit(PbGpu *g, const PbBatch *b, const uint32_t *pair_idx,
						uint32_t n, PbGpuKernel kernel, char *err,
						size_t err_len);

/*
 * 1 when the submitted work is done, 0 while it runs, -1 with a reason.
 * When the device filter found more pairs than it had room for, the
 * submission is re-run with more room (still 0 meanwhile), or fails when
 * the budget cannot hold them: callers just keep polling.  The device
 * memory of a submission counts as in use until this returned 1 or -1.
 */
int			PbGpuPoll(PbGpu *g, char *err, size_t err_len);

/*
 * After PbGpuPoll returned 1: the intersection areas of the non-filter
 * parts' pairs, concatenated in part order, then pair order.
 */
const int64_t *PbGpuResults(const PbGpu *g);

/*
 * After PbGpuPoll returned 1: the pairs the filter parts found (in no
 * particular order) in *found, and their number.
 */
uint32_t	PbGpuFoundPairs(const PbGpu *g, const PbDeviceFound **found);

/* Milliseconds the kernels of the last finished submission ran (for benchmarks). */
double		PbGpuKernelMs(const PbGpu *g);

/* Device name and compute capability, for messages and benchmarks. */
const char *PbGpuDeviceName(const PbGpu *g);

#ifdef __cplusplus
}
#endif

#endif							/* PB_GPU_H */
