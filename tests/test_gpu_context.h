/*
 * test_gpu_context.h: the one GPU context of the raster GPU tests
 * (reconstruction, EDT and watershed, in pb_gpu_tests), shared as a
 * backend shares its one context.
 */
#ifndef PB_TEST_GPU_CONTEXT_H
#define PB_TEST_GPU_CONTEXT_H

#include <stddef.h>

#include "../cuda/pb_gpu.h"

/*
 * The tests' GPU context, opened once, with its budget set to budget; NULL
 * without a GPU (noted once; the calls given it then fail with a reason).
 */
PbGpu	   *TestGpu(size_t budget);

#endif							/* PB_TEST_GPU_CONTEXT_H */
