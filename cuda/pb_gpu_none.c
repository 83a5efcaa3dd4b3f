/*
 * pb_gpu_none.c: the GPU interface of pb_gpu.h in a build without nvcc
 * (compiled by the C compiler): no device, ever.  No CUDA and no
 * PostgreSQL headers here.
 */
#include <stdio.h>
#include <string.h>

#include "pb_gpu.h"

/* Report that this build cannot use a GPU. */
int
PbGpuProbe(char *reason, size_t reason_len)
{
	snprintf(reason, reason_len, "pixelbox was built without CUDA (nvcc was not found)");
	return 0;
}

/* No context without CUDA. */
PbGpu *
PbGpuOpen(size_t memory_budget, int device, char *err, size_t err_len)
{
	(void) memory_budget, (void) device;
	PbGpuProbe(err, err_len);
	return NULL;
}

/* Unreachable without a context. */
void
PbGpuSetBudget(PbGpu *g, size_t memory_budget)
{
	(void) g, (void) memory_budget;
}

/* Nothing to release. */
void
PbGpuClose(PbGpu *g)
{
	(void) g;
}

/* Unreachable without a context: nothing to set. */
void
PbGpuSetMethod(PbGpu *g, PbGpuKernel kernel)
{
	(void) g;
	(void) kernel;
}

/* Unreachable without a context: a device with no operations. */
void
PbGpuDeviceOps(PbGpu *g, PbPipeDevice *dev)
{
	(void) g;
	memset(dev, 0, sizeof(*dev));
}

/* Unreachable without a context; fail for safety. */
int
PbGpuSubmit(PbGpu *g, const PbBatch *b, const uint32_t *pair_idx, uint32_t n,
			PbGpuKernel kernel, char *err, size_t err_len)
{
	(void) g, (void) b, (void) pair_idx, (void) n, (void) kernel;
	return PbGpuProbe(err, err_len) - 1;
}

/* Unreachable without a context; fail for safety. */
int
PbGpuSubmitParts(PbGpu *g, const PbDevicePart *parts, uint32_t nparts,
				 PbGpuKernel kernel, char *err, size_t err_len)
{
	(void) g, (void) parts, (void) nparts, (void) kernel;
	return PbGpuProbe(err, err_len) - 1;
}

/* Unreachable without a context; fail for safety. */
int
PbGpuStage(PbGpu *g, const PbDevicePart *parts, uint32_t nparts, PbGpuKernel kernel,
		   char *err, size_t err_len)
{
	(void) g, (void) parts, (void) nparts, (void) kernel;
	return PbGpuProbe(err, err_len) - 1;
}

/* Unreachable without a context; fail for safety. */
int
PbGpuStartStaged(PbGpu *g, char *err, size_t err_len)
{
	(void) g;
	return PbGpuProbe(err, err_len) - 1;
}

/* Unreachable without a context: nothing is held. */
int
PbGpuHoldSource(PbGpu *g, const PbBatch *src)
{
	(void) g, (void) src;
	return 0;
}

/* Nothing is held without CUDA. */
void
PbGpuReleaseSource(PbGpu *g)
{
	(void) g;
}

/* Nothing is ever packed without CUDA. */
size_t
PbGpuPartsBytes(const PbDevicePart *parts, uint32_t nparts)
{
	(void) parts, (void) nparts;
	return 0;
}

/* Unreachable without a context; fail for safety. */
int
PbGpuPoll(PbGpu *g, char *err, size_t err_len)
{
	(void) g;
	return PbGpuProbe(err, err_len) - 1;
}

/* Unreachable without a context. */
const int64_t *
PbGpuResults(const PbGpu *g)
{
	(void) g;
	return NULL;
}

/* Unreachable without a context: nothing found. */
uint32_t
PbGpuFoundPairs(const PbGpu *g, const PbDeviceFound **found)
{
	(void) g;
	*found = NULL;
	return 0;
}

/* Unreachable without a context. */
double
PbGpuKernelMs(const PbGpu *g)
{
	(void) g;
	return 0.0;
}

/* Unreachable without a context. */
const char *
PbGpuDeviceName(const PbGpu *g)
{
	(void) g;
	return "none";
}
