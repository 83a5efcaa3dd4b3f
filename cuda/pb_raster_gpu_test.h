/*
 * pb_raster_gpu_test.h: hooks of the raster kernels for the tests and the
 * benchmark only, so they can force rare paths or baselines.
 * Not part of the interface of pb_raster_gpu.h; no CUDA types here.
 */
#ifndef PB_RASTER_GPU_TEST_H
#define PB_RASTER_GPU_TEST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * Force the capacity of each propagation block's global queue in
 * PbGpuReconstruct to items_per_block (tiny values force queue overflows
 * and re-runs from the partial result); 0 restores the automatic size.
 */
void		PbGpuReconTestQueue(unsigned items_per_block);

/*
 * Force the largest tile of PbGpuReconstruct, halo included, to pixels
 * (small values cut even small images into tiles, resident on the device
 * when the budget holds them all); 0 restores the automatic size.
 */
void		PbGpuReconTestTileCap(size_t pixels);

/*
 * Make PbGpuWatershed update the automaton synchronously (one step of
 * every pixel per kernel launch, the paper's baseline of section 4.1)
 * instead of block-asynchronously; 0 restores the default.  For the
 * benchmark's comparison and the tests; the labels are the same.
 */
void		PbGpuWatershedTestSync(int on);

#ifdef __cplusplus
}
#endif

#endif							/* PB_RASTER_GPU_TEST_H */
