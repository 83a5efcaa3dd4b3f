/*
 * device.c: decide where an aggregate's batches are computed.
 *
 * This version computes every batch on the CPU: pixelbox.device = auto
 * never touches CUDA, and gpu raises an error saying why no GPU can be
 * used (the probe runs lazily here, in the backend, never at load time).
 */
#include "postgres.h"

#include "../cuda/pb_gpu.h"
#include "pixelbox.h"

/* Return whether to use the GPU; raise when pixelbox.device insists on one. */
bool
PbDeviceUseGpu(const char *caller)
{
	char		reason[256];

	if (pb_device != PB_DEVICE_GPU)
		return false;
	if (PbGpuProbe(reason, sizeof(reason)) > 0)
		snprintf(reason, sizeof(reason), "this version of pixelbox has no GPU kernel yet");
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s: pixelbox.device is \"gpu\" but no GPU can be used", caller),
			 errdetail("%s", reason),
			 errhint("Set pixelbox.device to 'auto' or 'cpu'.")));
	return false;				/* not reached */
}
