/*
 * gpu_probe.cu: find out whether a CUDA device can be used.  The runtime is
 * linked statically, so the extension loads on machines without a driver;
 * there cudaGetDeviceCount simply fails and we say why.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "pb_gpu.h"

/* Count usable devices; 0 with a reason when there is none. */
extern "C" int
PbGpuProbe(char *reason, size_t reason_len)
{
	int			count = 0;
	cudaError_t err = cudaGetDeviceCount(&count);

	if (err != cudaSuccess)
	{
		snprintf(reason, reason_len, "CUDA is not usable: %s", cudaGetErrorString(err));
		return 0;
	}
	if (count == 0)
		snprintf(reason, reason_len, "no CUDA device is present");
	return count;
}
