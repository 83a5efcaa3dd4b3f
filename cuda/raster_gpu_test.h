/*
 * raster_gpu_test.h: hooks of the raster kernels for the tests only
 * (tests/test_raster_gpu.c), so they can force rare paths on small images.
 * Not part of the interface of pb_raster_gpu.h; no CUDA types here.
 */
#ifndef PB_RASTER_GPU_TEST_H
#define PB_RASTER_GPU_TEST_H

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

#ifdef __cplusplus
}
#endif

#endif							/* PB_RASTER_GPU_TEST_H */
