/*
 * pb_raster_gpu_none.c: the raster interface of pb_raster_gpu.h in a build
 * without nvcc (compiled by the C compiler): every call fails with a
 * reason, and the caller computes on the CPU.  No CUDA and no PostgreSQL
 * headers here.
 */
#include <stdio.h>
#include <string.h>

#include "pb_raster_gpu.h"

/* Report that this build has no GPU code; -1 for the caller to return. */
static int
NoCuda(PbRasterGpuStats *stats, char *err, size_t err_len)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "pixelbox was built without CUDA");
	return -1;
}

/* No GPU reconstruction without CUDA. */
int
PbGpuReconstruct(PbGpu *g, PbImage *marker, const PbImage *mask, int connectivity,
				 PbReconOp op, PbPollFn poll, void *poll_arg,
				 PbRasterGpuStats *stats, char *err, size_t err_len)
{
	(void) g, (void) marker, (void) mask, (void) connectivity, (void) op;
	(void) poll, (void) poll_arg;
	return NoCuda(stats, err, err_len);
}

/* No GPU to hold a reconstruction without CUDA. */
int
PbGpuReconstructHolds(PbGpu *g, int width, int height, PbPixType type, int connectivity,
					  PbReconOp op, char *err, size_t err_len)
{
	(void) g, (void) width, (void) height, (void) type, (void) connectivity, (void) op;
	return NoCuda(NULL, err, err_len);
}

/* No GPU reconstruction of a window without CUDA. */
int
PbGpuReconstructWindow(PbGpu *g, PbImage *marker, const PbImage *mask, const PbRasterWindow *win,
					   int connectivity, PbReconOp op, PbPollFn poll, void *poll_arg,
					   PbRasterGpuStats *stats, char *err, size_t err_len)
{
	(void) g, (void) marker, (void) mask, (void) win, (void) connectivity, (void) op;
	(void) poll, (void) poll_arg;
	return NoCuda(stats, err, err_len);
}

/* No GPU window side without CUDA. */
int
PbGpuReconstructWindowSide(PbGpu *g, PbPixType type, int connectivity, PbReconOp op,
						   char *err, size_t err_len)
{
	(void) g, (void) type, (void) connectivity, (void) op;
	return NoCuda(NULL, err, err_len);
}

/* No GPU distance transform without CUDA. */
int
PbGpuDistance(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
			  double sy, double sx, float *dist, int64_t *nearest,
			  PbPollFn poll, void *poll_arg,
			  PbRasterGpuStats *stats, char *err, size_t err_len)
{
	(void) g, (void) fg, (void) width, (void) height, (void) sy, (void) sx;
	(void) dist, (void) nearest, (void) poll, (void) poll_arg;
	return NoCuda(stats, err, err_len);
}

/* No GPU distance transform plan without CUDA. */
int
PbGpuDistancePlan(PbGpu *g, int32_t width, int32_t height, bool nearest,
				  int32_t *strip_columns, int32_t *strip_rows, char *err, size_t err_len)
{
	(void) g, (void) width, (void) height, (void) nearest, (void) strip_columns, (void) strip_rows;
	return NoCuda(NULL, err, err_len);
}

/* No GPU column pass without CUDA. */
int
PbGpuDistanceColumns(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
					 int32_t x0, int32_t x1, void *colrows, PbPollFn poll, void *poll_arg,
					 PbRasterGpuStats *stats, char *err, size_t err_len)
{
	(void) g, (void) fg, (void) width, (void) height, (void) x0, (void) x1, (void) colrows;
	(void) poll, (void) poll_arg;
	return NoCuda(stats, err, err_len);
}

/* No GPU row pass without CUDA. */
int
PbGpuDistanceRows(PbGpu *g, int32_t width, int32_t height, double sy, double sx,
				  int32_t y0, int32_t y1, float *dist, int64_t *nearest,
				  PbPollFn poll, void *poll_arg, PbRasterGpuStats *stats,
				  char *err, size_t err_len)
{
	(void) g, (void) width, (void) height, (void) sy, (void) sx, (void) y0, (void) y1;
	(void) dist, (void) nearest, (void) poll, (void) poll_arg;
	return NoCuda(stats, err, err_len);
}

/* No GPU watershed without CUDA. */
int
PbGpuWatershed(PbGpu *g, const PbWatershedSpec *spec, uint32_t *labels,
			   void *host_keys, PbPollFn poll, void *poll_arg,
			   PbRasterGpuStats *stats, char *err, size_t err_len)
{
	(void) g, (void) spec, (void) labels, (void) host_keys, (void) poll, (void) poll_arg;
	return NoCuda(stats, err, err_len);
}

/* No GPU watershed in tiles, so no host keys, without CUDA. */
size_t
PbGpuWatershedHostKeyBytes(const PbWatershedSpec *spec)
{
	(void) spec;
	return 0;
}

/* No GPU watershed without CUDA. */
int
PbGpuWatershedHolds(PbGpu *g, const PbWatershedSpec *spec, char *err, size_t err_len)
{
	(void) g, (void) spec;
	return NoCuda(NULL, err, err_len);
}

/* No GPU watershed in bands without CUDA. */
int
PbGpuWatershedBandsFit(PbGpu *const *gpus, int ngpu, const PbWatershedSpec *spec, char *err,
					   size_t err_len)
{
	(void) gpus, (void) ngpu, (void) spec;
	return NoCuda(NULL, err, err_len);
}

/* No GPU watershed on several GPUs without CUDA. */
int
PbGpuWatershedOn(PbGpu *const *gpus, int ngpu, const PbWatershedSpec *spec, uint32_t *labels,
				 void *host_keys, PbPollFn poll, void *poll_arg, PbRasterGpuStats *stats,
				 PbGpuShare *shares, char *err, size_t err_len)
{
	(void) gpus, (void) ngpu, (void) spec, (void) labels, (void) host_keys, (void) poll,
		(void) poll_arg, (void) shares;
	return NoCuda(stats, err, err_len);
}

/* No GPU blocks of a hybrid watershed without CUDA. */
PbGpuWsBlocks *
PbGpuWsBlocksNew(PbGpu *g)
{
	(void) g;
	return NULL;
}

/* No GPU blocks of a hybrid watershed without CUDA. */
int
PbGpuWsBlocksBegin(void *ctx, const PbWatershedSpec *spec, int tile, int64_t max_side,
				   int *block, char *err, size_t err_len)
{
	(void) ctx, (void) spec, (void) tile, (void) max_side, (void) block;
	return NoCuda(NULL, err, err_len);
}

/* No GPU blocks of a hybrid watershed without CUDA. */
int
PbGpuWsBlocksRun(void *ctx, uint64_t *key, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
				 PbPollFn poll, void *poll_arg, char *err, size_t err_len)
{
	(void) ctx, (void) key, (void) x0, (void) y0, (void) x1, (void) y1, (void) poll,
		(void) poll_arg;
	return NoCuda(NULL, err, err_len);
}

/* Nothing to end without CUDA. */
void
PbGpuWsBlocksEnd(void *ctx)
{
	(void) ctx;
}

/* Nothing to free without CUDA. */
void
PbGpuWsBlocksFree(PbGpuWsBlocks *k, PbRasterGpuStats *stats)
{
	(void) k;
	if (stats)
		memset(stats, 0, sizeof(*stats));
}
