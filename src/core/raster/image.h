/*
 * image.h: images and the raster operations on them (no PostgreSQL, no CUDA).
 *
 * Images are dense row-major arrays of one band.  Operations:
 *  - gray-scale morphological reconstruction by dilation or erosion
 *    (Vincent's fast hybrid algorithm, tiled over threads);
 *  - the exact Euclidean distance transform of a binary mask, with pixel
 *    spacing and the nearest background pixel as options.
 *
 * Memory: callers own the image buffers; scratch space is malloc'd inside
 * and freed before return, and failure to get it is PB_ERR_NOMEM, never an
 * abort.  Threads never call back into the caller except through poll,
 * which only the calling thread invokes: a nonzero return stops the work
 * promptly with PB_ERR_STOPPED (the output is then unspecified).
 */
#ifndef PB_RASTER_IMAGE_H
#define PB_RASTER_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"
#include "../base/pb_xpu.h"

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

/*
 * Bytes per pixel of a type, 0 for a value that is not one; PB_XPU: the
 * kernels size their buffers with it too.
 */
PB_XPU size_t
PbPixSize(PbPixType type)
{
	switch (type)
	{
		case PB_PIX_1BB:
		case PB_PIX_8BUI:
			return 1;
		case PB_PIX_16BUI:
			return 2;
		case PB_PIX_32BF:
			return 4;
	}
	return 0;
}

/* One band of pixels, row-major, width * height elements of type. */
typedef struct PbImage
{
	int32_t		width;
	int32_t		height;
	PbPixType	type;
	void	   *data;
} PbImage;

/* Pixel i of im as a double (every pixel type converts exactly). */
static inline double
PbPixGet(const PbImage *im, int64_t i)
{
	switch (im->type)
	{
		case PB_PIX_16BUI:
			return ((const uint16_t *) im->data)[i];
		case PB_PIX_32BF:
			return ((const float *) im->data)[i];
		default:
			return ((const uint8_t *) im->data)[i];
	}
}

/* Set pixel i of im to v (a value of its type). */
static inline void
PbPixSet(PbImage *im, int64_t i, double v)
{
	switch (im->type)
	{
		case PB_PIX_16BUI:
			((uint16_t *) im->data)[i] = (uint16_t) v;
			break;
		case PB_PIX_32BF:
			((float *) im->data)[i] = (float) v;
			break;
		default:
			((uint8_t *) im->data)[i] = (uint8_t) v;
			break;
	}
}

/* Reconstruction by dilation (marker grows under mask) or by erosion. */
typedef enum PbReconOp
{
	PB_RECON_DILATE,
	PB_RECON_ERODE
} PbReconOp;

/*
 * Reconstruct marker under mask in place (same size and type; 4 or 8
 * connectivity).  The marker must already lie under the mask (above it,
 * for erosion): see PbReconClip.  Float images must hold no NaN.
 */
PbStatus PbReconstructCpu(PbImage *marker, const PbImage *mask,
								int connectivity, PbReconOp op,
								const PbRun *run);

/*
 * Clip marker to mask in place: min(marker, mask) for dilation, max for
 * erosion (MATLAB's convention for a marker that crosses the mask).
 */
PbStatus PbReconClip(PbImage *marker, const PbImage *mask, PbReconOp op);

/*
 * PB_ERR_BADARG unless marker and mask (same size and type, a known type,
 * pixel data when there are pixels), connectivity (4 or 8) and op are
 * arguments the reconstruction accepts, PB_OK when they are.
 */
PbStatus	PbReconCheck(const PbImage *marker, const PbImage *mask,
						 int connectivity, PbReconOp op);

/*
 * The largest side of the exact distance transform (CPU and GPU): 2^17,
 * so that every integer coefficient of its envelope test (side times a
 * squared side, three of them summed) stays below 2^53, exact as a double
 * and far inside int64.  Whole slides of 131072 pixels a side fit.
 */
#define PB_EDT_MAX_SIDE 131072

/*
 * Exact Euclidean distance transform.  fg[i] != 0 marks foreground; each
 * foreground pixel gets the distance to the nearest background pixel,
 * background pixels 0.  Spacing: row step sy, column step sx (> 0, finite);
 * sides up to PB_EDT_MAX_SIDE.  With no background pixel at all the
 * distances are SciPy's: to a virtual background pixel at row -1, column
 * 0.  nearest (optional) receives, per pixel, y * width + x of a nearest
 * background pixel (-1 when there is none).  Distances equal SciPy's
 * distance_transform_edt cast to float, bit for bit.
 */
PbStatus PbDistanceCpu(const uint8_t *fg, int32_t width, int32_t height,
							 double sy, double sx, float *dist,
							 int64_t *nearest, const PbRun *run);

#ifdef __cplusplus
}
#endif

#endif							/* PB_RASTER_IMAGE_H */
