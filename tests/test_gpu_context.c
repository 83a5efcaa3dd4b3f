/*
 * test_gpu_context.c: the one GPU context of the raster GPU tests (see
 * test_gpu_context.h).
 */
#include "harness.h"
#include "test_gpu_context.h"

PbGpu *
TestGpu(size_t budget)
{
	static PbGpu *g;
	static int	absent;
	char		err[256];

	if (g == NULL && !absent && (g = PbGpuOpen(budget, 0, err, sizeof(err))) == NULL)
	{
		absent = 1;
		pb_test_note("no GPU: %s", err);
	}
	if (g != NULL)
		PbGpuSetBudget(g, budget);
	return g;
}
