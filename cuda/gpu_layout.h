/*
 * gpu_layout.h: the batch as the kernel sees it, shared by the runtime
 * (which packs it) and the kernel (which reads it).  CUDA-only header.
 */
#ifndef PB_GPU_LAYOUT_H
#define PB_GPU_LAYOUT_H

#include <stdint.h>

/* One integer shape: its box and its rings. */
struct GShape
{
	int32_t		xmin,
				ymin,
				xmax,
				ymax;
	uint32_t	ring_first,
				nrings;
};

/* Pointers into one packed batch on the device. */
struct GBatch
{
	const GShape *shapes;
	const uint2 *rings;			/* (start, npoints) into pts */
	const int2 *pts;
	const uint2 *pairs;			/* (shape a, shape b) */
	uint32_t	npairs;
	long long  *out;			/* intersection area per pair */
};

/* Launch the PixelBox kernel (pixel_only: the PixelOnly variant). */
cudaError_t PbLaunchPixelBox(const GBatch &batch, int pixel_only, int sm_count,
							 cudaStream_t stream);

#endif							/* PB_GPU_LAYOUT_H */
