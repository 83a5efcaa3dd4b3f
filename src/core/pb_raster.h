/*
 * pb_raster.h: the pure-C raster core of pixelbox (no PostgreSQL, no CUDA).
 *
 * Images are dense row-major arrays of one band.  Operations:
 *  - gray-scale morphological reconstruction by dilation or erosion
 *    (Vincent's fast hybrid algorithm, tiled over threads);
 *  - the exact Euclidean distance transform of a binary mask, with pixel
 *    spacing and the nearest background pixel as options.
 *
 * Memory: callers own the image buffers; scratch space is malloc'd inside
 * and freed before return, and failure to get it is PB_R_NOMEM, never an
 * abort.  Threads never call back into the caller except through poll,
 * which only the calling thread invokes: a nonzero return stops the work
 * promptly with PB_R_STOPPED (the output is then unspecified).
 */
#ifndef PB_RASTER_H
#define PB_RASTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pixel types the raster operations handle (PostGIS names). */
typedef enum PbPixType
{
	PB_PIX_1BB,					/* 0/1, stored as uint8 */
	PB_PIX_8BUI,				/* uint8 */
	PB_PIX_16BUI,				/* uint16 */
	PB_PIX_32BF					/* float */
} PbPixType;

/* One band of pixels, row-major, width * height elements of type. */
typedef struct PbImage
{
	int32_t		width;
	int32_t		height;
	PbPixType	type;
	void	   *data;
} PbImage;

/* Results of raster operations. */
typedef enum PbRasterStatus
{
	PB_R_OK = 0,
	PB_R_STOPPED,				/* poll asked to stop */
	PB_R_NOMEM,					/* scratch memory could not be had */
	PB_R_BADARG					/* sizes, types or connectivity invalid */
} PbRasterStatus;

/* Asked between chunks of work, on the calling thread only: nonzero stops. */
typedef int (*PbPollFn) (void *arg);

/* How to run an operation on the CPU. */
typedef struct PbRasterRun
{
	int			threads;		/* worker threads, >= 1 (the caller is one) */
	int			tile;			/* tile side for tiled runs; 0 = default */
	PbPollFn	poll;			/* may be NULL */
	void	   *poll_arg;
} PbRasterRun;

/* Reconstruction by dilation (marker grows under mask) or by erosion. */
typedef enum PbReconOp
{
	PB_RECON_DILATE,
	PB_RECON_ERODE
} PbReconOp;

/* Bytes per pixel of a type. */
size_t		PbPixSize(PbPixType type);

/*
 * Reconstruct marker under mask in place (same size and type; 4 or 8
 * connectivity).  The marker must already lie under the mask (above it,
 * for erosion): see PbReconClip.  Float images must hold no NaN.
 */
PbRasterStatus PbReconstructCpu(PbImage *marker, const PbImage *mask,
								int connectivity, PbReconOp op,
								const PbRasterRun *run);

/*
 * Clip marker to mask in place: min(marker, mask) for dilation, max for
 * erosion (MATLAB's convention for a marker that crosses the mask).
 */
PbRasterStatus PbReconClip(PbImage *marker, const PbImage *mask, PbReconOp op);

/*
 * Sequential reference reconstruction (Vincent's hybrid algorithm on the
 * whole image, one thread); PbReconstructCpu must equal it.
 */
PbRasterStatus PbReconstructSeq(PbImage *marker, const PbImage *mask,
								int connectivity, PbReconOp op);

/*
 * Exact Euclidean distance transform.  fg[i] != 0 marks foreground; each
 * foreground pixel gets the distance to the nearest background pixel,
 * background pixels 0.  Spacing: row step sy, column step sx (> 0, finite);
 * sides up to 65535.  With no background pixel at all the distances are
 * SciPy's: to a virtual background pixel at row -1, column 0.  nearest
 * (optional) receives, per pixel, y * width + x of a nearest background
 * pixel (-1 when there is none).  Distances equal SciPy's
 * distance_transform_edt cast to float, bit for bit.
 */
PbRasterStatus PbDistanceCpu(const uint8_t *fg, int32_t width, int32_t height,
							 double sy, double sx, float *dist,
							 int64_t *nearest, const PbRasterRun *run);

/*
 * Run fn(arg, i) for every i in [0, n) on run->threads threads (the caller
 * included; threads that cannot be started leave their items to the
 * others), the caller polling between its items.  Returns PB_R_STOPPED
 * when poll asked to stop (some items then never ran), PB_R_OK otherwise.
 */
typedef void (*PbParItemFn) (void *arg, int64_t i);
PbRasterStatus PbParallelFor(const PbRasterRun *run, int64_t n,
							 PbParItemFn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif							/* PB_RASTER_H */
