/*
 * raster_run.c: run a raster operation on the GPU or the CPU, by the same
 * rules as the polygon side: pixelbox.device picks, a GPU failure gives
 * one WARNING and the CPU computes the same answer, and a cancel or
 * statement_timeout stops the work within about a second (the kernels and
 * the CPU threads poll between rounds and tiles; only this thread polls,
 * and it only reads the interrupt flags).
 */
#include "postgres.h"

#include "miscadmin.h"

#include "../cuda/pb_raster_gpu.h"
#include "raster_glue.h"

/* The poll the core and the kernels call between chunks of work. */
static int
RasterInterrupted(void *arg)
{
	return QueryCancelPending || ProcDiePending;
}

/* How the CPU runs: pixelbox.cpu_threads threads (0: one per CPU). */
static PbRun
CpuRun(void)
{
	PbRun run;

	run.threads = PbCpuThreads();
	run.tile = 0;
	run.poll = RasterInterrupted;
	run.poll_arg = NULL;
	return run;
}

/*
 * Turn a core status into an error: a stop means an interrupt arrived
 * (serviced here), out of memory is an error.
 */
static void
CheckStatus(PbStatus st, const char *caller)
{
	if (st == PB_ERR_STOPPED)
	{
		CHECK_FOR_INTERRUPTS();
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("%s: canceled", caller)));
	}
	if (st == PB_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("%s: out of memory for scratch space", caller)));
	if (st != PB_OK)
		elog(ERROR, "%s: invalid arguments to the raster core (status %d)", caller, (int) st);
}

/*
 * Reconstruct marker under mask in place (marker already clipped), on the
 * GPU when it is wanted and works, else on the CPU.
 */
void
PbRunReconstruct(PbImage *marker, const PbImage *mask, int connectivity,
				 PbReconOp op, const char *caller)
{
	PbRun run = CpuRun();

	if (PbGpuRasterWanted(caller))
	{
		char		err[256];
		PbRasterGpuStats stats;
		int			st = PbGpuReconstruct(marker, mask, connectivity, op,
										  (size_t) pb_gpu_memory_mb << 20,
										  RasterInterrupted, NULL, &stats,
										  err, sizeof(err));

		if (st == 0)
			return;
		if (st == 1)
			CheckStatus(PB_ERR_STOPPED, caller);
		/* the marker holds a partial reconstruction: the CPU finishes it */
		PbGpuRasterFailed(caller, err);
	}
	CheckStatus(PbReconstructCpu(marker, mask, connectivity, op, &run), caller);
}

/* The exact distance transform, on the GPU when wanted and working. */
void
PbRunDistance(const uint8 *fg, int32 width, int32 height, double sy, double sx,
			  float *dist, int64 *nearest, const char *caller)
{
	PbRun run = CpuRun();

	if (PbGpuRasterWanted(caller))
	{
		char		err[256];
		PbRasterGpuStats stats;
		int			st = PbGpuDistance(fg, width, height, sy, sx, dist,
									   (int64_t *) nearest,
									   (size_t) pb_gpu_memory_mb << 20,
									   RasterInterrupted, NULL, &stats,
									   err, sizeof(err));

		if (st == 0)
			return;
		if (st == 1)
			CheckStatus(PB_ERR_STOPPED, caller);
		PbGpuRasterFailed(caller, err);
	}
	CheckStatus(PbDistanceCpu(fg, width, height, sy, sx, dist, (int64_t *) nearest, &run),
				caller);
}

/*
 * The watershed of spec into labels, on the GPU when wanted and working;
 * a spec the core refuses is a bug of the caller, not of the user.
 */
void
PbRunWatershed(const PbWatershedSpec *spec, uint32 *labels, const char *caller)
{
	PbRun run = CpuRun();

	CheckStatus(PbWatershedCheck(spec), caller);
	if (PbGpuRasterWanted(caller))
	{
		char		err[256];
		PbRasterGpuStats stats;
		int			st = PbGpuWatershed(spec, labels, (size_t) pb_gpu_memory_mb << 20,
										RasterInterrupted, NULL, &stats,
										err, sizeof(err));

		if (st == 0)
			return;
		if (st == 1)
			CheckStatus(PB_ERR_STOPPED, caller);
		PbGpuRasterFailed(caller, err);
	}
	CheckStatus(PbWatershedCpu(spec, labels, &run), caller);
}
