/*
 * device.c: the GPU side of the aggregates, for one backend.
 *
 * pixelbox.device = cpu never touches CUDA; auto opens the GPU lazily, in
 * this backend, the first time a batch is ready (never in the postmaster
 * or at load time), and computes on the CPU when there is none; gpu raises
 * an error when no GPU exists.  Parallel workers always compute on the CPU
 * (only the leader or a plain backend holds a GPU), so a parallel plan
 * never multiplies CUDA contexts; the answer is the same either way.
 *
 * Any failure of an existing GPU (initialization, memory, launch, kernel)
 * gives one WARNING and the batch is computed on the CPU: the answer never
 * changes.  pixelbox.gpu_fault injects such failures, with or without a
 * GPU, so CI tests the fallback.  One aggregate state at a time may have
 * a batch in flight; another one finding the GPU busy computes its batch
 * on the CPU.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/parallel.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "../cuda/pb_gpu.h"
#include "core/sccg/pb_sccg.h"
#include "pixelbox.h"

static PbGpu *gpu;				/* this backend's handle, or NULL */
static size_t gpu_budget;		/* the budget gpu was opened with */
static bool gpu_absent;			/* the probe found no usable device */
static char gpu_absent_reason[256];
static const void *gpu_owner;	/* state whose batch is in flight */
static bool fake_in_flight;		/* an injected submission "runs" */
static int64 gpu_batches,		/* what this backend did, for pb_device_info() */
			gpu_pairs,
			fallbacks;

/* One WARNING for a failed GPU step; the caller computes on the CPU. */
static void
WarnFallback(const char *caller, const char *why)
{
	fallbacks++;
	ereport(WARNING,
			(errmsg("%s: GPU computation failed, computing on the CPU instead", caller),
			 errdetail("%s", why)));
}

/*
 * Forget owner's batch in flight: its state is going away (its memory
 * context is reset, also when a query is cancelled or fails).  The work
 * itself is drained by the next submission.
 */
void
PbGpuForget(const void *owner)
{
	if (gpu_owner == owner)
	{
		gpu_owner = NULL;
		fake_in_flight = false;
	}
}

/*
 * Decide whether a state's batches go to the GPU, opening it on first use.
 * Raises when pixelbox.device = gpu and no GPU exists.
 */
bool
PbGpuWanted(const char *caller)
{
	size_t		budget = (size_t) pb_gpu_memory_mb << 20;
	char		err[256];

	if (pb_device == PB_DEVICE_CPU || IsParallelWorker())
		return false;
	if (pb_gpu_fault == PB_FAULT_OPEN)
	{
		WarnFallback(caller, "injected failure (pixelbox.gpu_fault = open)");
		return false;
	}
	if (pb_gpu_fault != PB_FAULT_NONE)
		return true;			/* pretend: the injected fault comes later */
	if (gpu != NULL && gpu_budget != budget)
	{
		PbGpuClose(gpu);
		gpu = NULL;
	}
	if (gpu == NULL && !gpu_absent)
	{
		if (PbGpuProbe(gpu_absent_reason, sizeof(gpu_absent_reason)) == 0)
			gpu_absent = true;
		else if ((gpu = PbGpuOpen(budget, err, sizeof(err))) == NULL)
		{
			WarnFallback(caller, err);
			return false;
		}
		else
			gpu_budget = budget;
	}
	if (gpu_absent && pb_device == PB_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: pixelbox.device is \"gpu\" but no GPU can be used", caller),
				 errdetail("%s", gpu_absent_reason),
				 errhint("Set pixelbox.device to 'auto' or 'cpu'.")));
	return gpu != NULL;
}

/*
 * Start the pairs idx[0..n) of batch b (rectilinear integer) on the GPU for
 * owner.  PB_GPU_BUSY when another state's batch is in flight.
 */
PbGpuStart
PbGpuStartBatch(const void *owner, const PbBatch *b, const uint32_t *idx,
				uint32_t n, const char *caller)
{
	char		err[256];

	if (gpu_owner != NULL && gpu_owner != owner)
		return PB_GPU_BUSY;
	if (pb_gpu_fault == PB_FAULT_SUBMIT)
	{
		WarnFallback(caller, "injected failure (pixelbox.gpu_fault = submit)");
		return PB_GPU_FAILED;
	}
	if (pb_gpu_fault == PB_FAULT_RUN)
		fake_in_flight = true;
	else if (gpu == NULL || PbGpuSubmit(gpu, b, idx, n, PB_GPU_PIXELBOX, err, sizeof(err)) != 0)
	{
		WarnFallback(caller, gpu ? err : "the GPU was closed after an earlier failure");
		return PB_GPU_FAILED;
	}
	gpu_owner = owner;
	gpu_batches++;
	gpu_pairs += n;
	return PB_GPU_STARTED;
}

/*
 * Wait for owner's batch in flight, answering cancels; its intersection
 * areas in submission order, or NULL (after one WARNING) when it failed.
 */
const int64_t *
PbGpuFinishBatch(const void *owner, const char *caller)
{
	char		err[256];
	int			st;

	Assert(gpu_owner == owner);
	gpu_owner = NULL;
	if (fake_in_flight)
	{
		fake_in_flight = false;
		WarnFallback(caller, "injected failure (pixelbox.gpu_fault = run)");
		return NULL;
	}
	while ((st = PbGpuPoll(gpu, err, sizeof(err))) == 0)
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(20);
	}
	if (st < 0)
	{
		/* the context may be unusable after a kernel error: start afresh next time */
		PbGpuClose(gpu);
		gpu = NULL;
		WarnFallback(caller, err);
		return NULL;
	}
	return PbGpuResults(gpu);
}

PG_FUNCTION_INFO_V1(pb_device_info);
/*
 * This backend's device: its GPU (or why there is none, or that none was
 * needed yet) and how many batches and pairs went to it, and how many
 * times a GPU failure fell back to the CPU.
 */
Datum
pb_device_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	const char *device = gpu ? PbGpuDeviceName(gpu)
		: gpu_absent ? gpu_absent_reason : "no GPU opened in this backend yet";

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "pb_device_info: return type must be a row type");
	values[0] = CStringGetTextDatum(device);
	values[1] = Int64GetDatum(gpu_batches);
	values[2] = Int64GetDatum(gpu_pairs);
	values[3] = Int64GetDatum(fallbacks);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/* The GPU behind a pipeline run, with pixelbox.gpu_fault's injections. */
typedef struct PipeGpu
{
	PbGpu	   *gpu;			/* NULL when a fault is injected without a GPU */
	int			fault;
	bool		faking;			/* an injected "run" is in flight */
} PipeGpu;

static PipeGpu pipe_gpu;

/* Device bytes a submission needs. */
static size_t
PipeBytes(void *ctx, const PbDevicePart *parts, uint32_t n)
{
	PipeGpu    *pg = (PipeGpu *) ctx;

	return pg->gpu ? PbGpuPartsBytes(parts, n) : 0;
}

/* Stage a submission (or fail as pixelbox.gpu_fault = submit says). */
static int
PipeStage(void *ctx, const PbDevicePart *parts, uint32_t n, char *err, size_t err_len)
{
	PipeGpu    *pg = (PipeGpu *) ctx;

	if (pg->fault == PB_FAULT_SUBMIT)
	{
		snprintf(err, err_len, "injected failure (pixelbox.gpu_fault = submit)");
		return -1;
	}
	if (pg->fault == PB_FAULT_RUN)
		return 0;
	return PbGpuStage(pg->gpu, parts, n, PB_GPU_PIXELBOX, err, err_len);
}

/* Start the staged submission (pixelbox.gpu_fault = run: a run that will fail). */
static int
PipeStart(void *ctx, char *err, size_t err_len)
{
	PipeGpu    *pg = (PipeGpu *) ctx;

	if (pg->fault == PB_FAULT_RUN)
	{
		pg->faking = true;
		return 0;
	}
	return PbGpuStartStaged(pg->gpu, err, err_len);
}

/* Poll the submission (an injected run failure fails here). */
static int
PipePoll(void *ctx, char *err, size_t err_len)
{
	PipeGpu    *pg = (PipeGpu *) ctx;

	if (pg->faking)
	{
		pg->faking = false;
		snprintf(err, err_len, "injected failure (pixelbox.gpu_fault = run)");
		return -1;
	}
	return PbGpuPoll(pg->gpu, err, err_len);
}

/* Areas of the submission's given pairs. */
static const int64_t *
PipeResults(void *ctx)
{
	return PbGpuResults(((PipeGpu *) ctx)->gpu);
}

/* Pairs the device's filter found. */
static uint32_t
PipeFound(void *ctx, const PbDeviceFound **found)
{
	return PbGpuFoundPairs(((PipeGpu *) ctx)->gpu, found);
}

/*
 * Give a pipeline run (owner) the GPU as its device, when one is wanted
 * and no other state holds it; false: the run aggregates on the CPU.
 * The pipeline's aggregator thread is then the only user of the handle
 * until PbGpuPipeRelease.
 */
bool
PbGpuPipeDevice(const void *owner, PbPipeDevice *dev, const char *caller)
{
	if (!PbGpuWanted(caller) || gpu_owner != NULL)
		return false;
	if (pb_gpu_fault == PB_FAULT_SUBMIT || pb_gpu_fault == PB_FAULT_RUN)
		pipe_gpu.gpu = NULL;
	else if (gpu == NULL)
		return false;
	else
		pipe_gpu.gpu = gpu;
	pipe_gpu.fault = pb_gpu_fault;
	pipe_gpu.faking = false;
	memset(dev, 0, sizeof(*dev));
	dev->ctx = &pipe_gpu;
	dev->name = "gpu";
	dev->can_filter = 1;
	dev->budget = (size_t) pb_gpu_memory_mb << 20;
	dev->bytes = PipeBytes;
	dev->stage = PipeStage;
	dev->start = PipeStart;
	dev->poll = PipePoll;
	dev->results = PipeResults;
	dev->found = PipeFound;
	gpu_owner = owner;
	return true;
}

/* The run is over (or failed): the GPU is free for others. */
void
PbGpuPipeRelease(const void *owner)
{
	if (gpu_owner == owner)
		gpu_owner = NULL;
}

/*
 * The pipeline dropped the GPU during a run (its work was redone on the
 * CPU): one WARNING; a real device failure also closes the handle so the
 * next use starts afresh.
 */
void
PbGpuPipeFailed(const char *why, const char *caller)
{
	if (pb_gpu_fault == PB_FAULT_NONE && gpu != NULL)
	{
		PbGpuClose(gpu);
		gpu = NULL;
	}
	WarnFallback(caller, why);
}

/*
 * Decide whether a raster operation runs on the GPU: as for the aggregates
 * (pixelbox.device, parallel workers on the CPU, an error when device =
 * gpu and there is none), probing the device once per backend.  The raster
 * kernels allocate per call, so no handle is opened here.  An injected
 * fault gives its one WARNING and the CPU.
 */
bool
PbGpuRasterWanted(const char *caller)
{
	static bool probed;

	if (pb_device == PB_DEVICE_CPU || IsParallelWorker())
		return false;
	if (pb_gpu_fault != PB_FAULT_NONE)
	{
		WarnFallback(caller, "injected failure (pixelbox.gpu_fault)");
		return false;
	}
	if (!probed && gpu == NULL &&
		PbGpuProbe(gpu_absent_reason, sizeof(gpu_absent_reason)) == 0)
		gpu_absent = true;
	probed = true;
	if (gpu_absent && pb_device == PB_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: pixelbox.device is \"gpu\" but no GPU can be used", caller),
				 errdetail("%s", gpu_absent_reason),
				 errhint("Set pixelbox.device to 'auto' or 'cpu'.")));
	return !gpu_absent;
}

/* A raster kernel failed: one WARNING; the caller computes on the CPU. */
void
PbGpuRasterFailed(const char *caller, const char *why)
{
	WarnFallback(caller, why);
}
