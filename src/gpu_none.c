/*
 * gpu_none.c: the GPU interface of a build without nvcc: no device, ever.
 */
#include <stdio.h>

#include "../cuda/pb_gpu.h"

/* Report that this build cannot use a GPU. */
int
PbGpuProbe(char *reason, size_t reason_len)
{
	snprintf(reason, reason_len, "pixelbox was built without CUDA (nvcc was not found)");
	return 0;
}
