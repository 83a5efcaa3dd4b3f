/*
 * pb_raster_gpu.h: the plain C interface to pixelbox's raster kernels
 * (morphological reconstruction by irregular wavefront propagation, exact
 * Euclidean distance transform, block-asynchronous CA watershed).  No
 * PostgreSQL and no CUDA types here.  Built from the .cu files of cuda/
 * when nvcc is present, from pb_raster_gpu_none.c otherwise (every call
 * then fails with a reason).
 *
 * Each call runs on the context g of pb_gpu.h (its raster stream and
 * memory pool, made on the first call) and is synchronous for the caller
 * but polls (on the calling thread) between kernel rounds, so a cancel is
 * answered within about a second.  Device memory is allocated per call
 * within what is left of g's budget (what its polygon side does not hold;
 * idle, that side gives its memory back first); images that do not fit
 * are processed in tiles (with border propagation between them for
 * reconstruction), giving the same result as an untiled run.  One thread
 * at a time runs raster calls on a context.  Results are identical to the
 * CPU functions of src/core/raster/pb_raster.h.
 *
 * Return: 0 done, 1 stopped by poll (output unspecified), -1 failure with
 * a reason in err (the caller computes on the CPU instead).
 */
#ifndef PB_RASTER_GPU_H
#define PB_RASTER_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/raster/image.h"
#include "../src/core/raster/window.h"
#include "../src/core/raster/watershed.h"
#include "pb_gpu.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* What the last call did, for reports and benchmarks. */
typedef struct PbRasterGpuStats
{
	int			tiles;			/* tiles the image was cut into (1: whole image) */
	int			resident;		/* 1: the tiles stayed on the device between rounds */
	int			rounds;			/* kernel rounds (propagation passes, re-runs) */
	int			overflows;		/* queue overflows handled by re-running */
	double		kernel_ms;		/* device time of the kernels */
	double		transfer_ms;	/* host<->device copies */
} PbRasterGpuStats;

/*
 * Like PbReconstructCpu (marker already clipped to mask), on the GPU.  On
 * failure or stop, every pixel of marker holds its input value or a value
 * the propagation reached (a partial reconstruction, which the CPU can
 * finish: reconstruction from it gives the same result).
 */
int			PbGpuReconstruct(PbGpu *g, PbImage *marker, const PbImage *mask,
							 int connectivity, PbReconOp op,
							 PbPollFn poll, void *poll_arg,
							 PbRasterGpuStats *stats, char *err, size_t err_len);

/*
 * Whether PbGpuReconstruct, called now, would hold a width x height image
 * of type on the device at once (whole, or in tiles all resident there)
 * rather than pass it through the host in pieces: 1 or 0, or -1 with a
 * reason in err.
 */
int			PbGpuReconstructHolds(PbGpu *g, int width, int height, PbPixType type,
								  int connectivity, PbReconOp op, char *err, size_t err_len);

/*
 * Like PbReconWindowCpu (src/core/raster/recon_window.h), on the GPU of g:
 * window win of marker under mask as one tile, whose halo'd extent must
 * fit what is left of g's budget (a square of PbGpuReconstructWindowSide
 * pixels a side does).  The extent moves between the host and the device
 * in one pitched copy each way, with no host scratch.  0, 1 when polled to
 * stop, -1 with a reason (the region then holds a partial reconstruction
 * and win->border is undefined).
 */
int			PbGpuReconstructWindow(PbGpu *g, PbImage *marker, const PbImage *mask,
								   const PbRasterWindow *win, int connectivity, PbReconOp op,
								   PbPollFn poll, void *poll_arg,
								   PbRasterGpuStats *stats, char *err, size_t err_len);

/*
 * The side of the largest square extent (halo included) of pixel type
 * that PbGpuReconstructWindow, called now, takes on g as one tile: >= 1,
 * 0 when none fits, or -1 with a reason in err.
 */
int			PbGpuReconstructWindowSide(PbGpu *g, PbPixType type, int connectivity,
									   PbReconOp op, char *err, size_t err_len);

/* Like PbDistanceCpu, on the GPU. */
int			PbGpuDistance(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
						  double sy, double sx, float *dist, int64_t *nearest,
						  PbPollFn poll, void *poll_arg,
						  PbRasterGpuStats *stats, char *err, size_t err_len);

/*
 * Threads each large host-device copy of a raster call runs on (memcpy
 * through pinned buffers): a hybrid run leaves the CPU side that many
 * fewer threads per GPU, as both sides are bound by the host's memory.
 */
#define PB_RASTER_COPY_THREADS 8

/*
 * Whether PbGpuDistance, called now on g for a width x height image (with
 * nearest pixels or not), runs in one piece (1) or in strips (0); either
 * way the columns and rows of its strips (the image's sides when in one
 * piece).  -1 with a reason in err.
 */
int			PbGpuDistancePlan(PbGpu *g, int32_t width, int32_t height, bool nearest,
							  int32_t *strip_columns, int32_t *strip_rows,
							  char *err, size_t err_len);

/*
 * The hybrid transform's device passes (src/core/raster/edt_hybrid.h): the
 * column pass over columns [x0, x1) of fg into colrows (int32 column rows,
 * width per row, at each pixel's place), and the row pass over rows
 * [y0, y1) whose column rows dist holds in its bytes, in place, in strips
 * of g's budget.  0, 1 when polled to stop, -1 with a reason.
 */
int			PbGpuDistanceColumns(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
								 int32_t x0, int32_t x1, void *colrows,
								 PbPollFn poll, void *poll_arg,
								 PbRasterGpuStats *stats, char *err, size_t err_len);
int			PbGpuDistanceRows(PbGpu *g, int32_t width, int32_t height, double sy, double sx,
							  int32_t y0, int32_t y1, float *dist, int64_t *nearest,
							  PbPollFn poll, void *poll_arg,
							  PbRasterGpuStats *stats, char *err, size_t err_len);

/*
 * The watershed of src/core/raster/watershed.h on the GPU: the
 * artifact-free block-asynchronous cellular automaton.  labels equal
 * PbWatershedCpu's, bit for bit, at every memory budget (images above it
 * run in tiles whose borders are exchanged until none changes, the
 * image's keys kept in host memory between tile runs: in host_keys, of
 * PbGpuWatershedHostKeyBytes(spec) bytes, where the caller lends them, so
 * that they count against its own memory budget; NULL: malloc'd).
 */
int			PbGpuWatershed(PbGpu *g, const PbWatershedSpec *spec, uint32_t *labels,
						   void *host_keys, PbPollFn poll, void *poll_arg,
						   PbRasterGpuStats *stats, char *err, size_t err_len);

/* The bytes of the host keys of spec's watershed in tiles (0 without CUDA). */
size_t		PbGpuWatershedHostKeyBytes(const PbWatershedSpec *spec);

/*
 * Whether PbGpuWatershed, called now on g, runs spec's image untiled (1)
 * or in tiles (0); -1 with a reason in err.
 */
int			PbGpuWatershedHolds(PbGpu *g, const PbWatershedSpec *spec, char *err, size_t err_len);

/*
 * Whether PbGpuWatershedOn, called now on gpus (ngpu of them, the first
 * unable to hold the image whole), runs it in resident bands (1) or in
 * tiles through the host (0); -1 with a reason in err.
 */
int			PbGpuWatershedBandsFit(PbGpu *const *gpus, int ngpu, const PbWatershedSpec *spec,
								   char *err, size_t err_len);

/* What one GPU of a call on several did: its tile runs, seconds running them. */
typedef struct PbGpuShare
{
	int64_t		runs;
	double		busy_s;
} PbGpuShare;

/*
 * PbGpuWatershed on the ngpu contexts of gpus together (each driven by a
 * thread of its own; the calling thread drives the first and is the one
 * that waits on poll): an image the first holds whole runs there alone;
 * a larger one is cut into tiles that fit the smallest of their budgets
 * (and, on several GPUs, a quarter of the image's side at most, so that
 * tiles run side by side), and each GPU takes the next tile none of whose
 * neighbours is running, until no tile's border changes.  Same labels as on one GPU, bit for bit.
 * shares (ngpu of them, or NULL) gets what each GPU did.
 */
int			PbGpuWatershedOn(PbGpu *const *gpus, int ngpu, const PbWatershedSpec *spec,
							 uint32_t *labels, void *host_keys, PbPollFn poll, void *poll_arg,
							 PbRasterGpuStats *stats, PbGpuShare *shares,
							 char *err, size_t err_len);

/*
 * A GPU as a device of the hybrid watershed (PbWatershedHybrid in
 * src/core/raster/watershed.h): blocks of the CPU's key phase run by the
 * automaton on g, within g's budget.  New: the device's context (NULL:
 * out of memory); Begin, Run and End: its PbWsDevice functions, ctx that
 * context; Free: the context freed, after End, and stats (or NULL) given
 * what its blocks did (tiles: the blocks run).
 */
typedef struct PbGpuWsBlocks PbGpuWsBlocks;

PbGpuWsBlocks *PbGpuWsBlocksNew(PbGpu *g);
int			PbGpuWsBlocksBegin(void *ctx, const PbWatershedSpec *spec, int tile, int64_t max_side,
							   int *block, char *err, size_t err_len);
int			PbGpuWsBlocksRun(void *ctx, uint64_t *key, int64_t x0, int64_t y0, int64_t x1,
							 int64_t y1, PbPollFn poll, void *poll_arg, char *err, size_t err_len);
void		PbGpuWsBlocksEnd(void *ctx);
void		PbGpuWsBlocksFree(PbGpuWsBlocks *k, PbRasterGpuStats *stats);

#ifdef __cplusplus
}
#endif

#endif							/* PB_RASTER_GPU_H */
