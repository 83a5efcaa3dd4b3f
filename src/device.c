/*
 * device.c: this backend's GPU, for the aggregates, the pipeline and the
 * raster operations: one context (cuda/pb_gpu.h) with one memory budget,
 * pixelbox.gpu_memory, and one way of falling back to the CPU.
 *
 * pixelbox.device = cpu never touches CUDA; auto opens the context lazily,
 * in this backend, the first time some work wants it (never in the
 * postmaster or at load time), and computes on the CPU when there is no
 * GPU; gpu raises an error when no GPU exists.  Parallel workers always
 * compute on the CPU (only the leader or a plain backend holds a GPU), so
 * a parallel plan never multiplies CUDA contexts; the answer is the same
 * either way.
 *
 * Any failure of an existing GPU (initialization, memory, launch, kernel)
 * gives one WARNING (PbGpuFallback) and the work is computed on the CPU:
 * the answer never changes.  The context is then closed, when no work
 * holds it, so that the next use starts afresh.  pixelbox.gpu_fault
 * injects such failures, with or without a GPU: test_seams.c wraps the
 * way to the GPU (PbGpuOpener) here, in Acquire, and nowhere else.
 *
 * Polygon work has an owner: one aggregate state with a batch in flight,
 * or one pipeline run, at a time; another one finding the GPU busy
 * computes on the CPU.  Raster operations run on the context's raster
 * side, beside polygon work, within what is left of the budget.
 *
 * That context is on the first GPU CUDA lists.  A hybrid reconstruction,
 * distance transform or watershed also drives the others (up to pixelbox.gpus): each gets a raster-only
 * context of its own, opened on first use with the same budget and kept
 * for the backend's life, each driven by its own thread.
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

static PbGpu *gpu;				/* this backend's context, or NULL */
static PbGpu *more_gpus[PB_MAX_GPUS];	/* raster contexts of devices 1, 2, ... */
static bool gpu_absent;			/* the probe found no usable device */
static char gpu_absent_reason[256];
static const void *gpu_owner;	/* state or run whose polygon work holds the GPU */
static PbPipeDevice owner_dev;	/* the device its work runs on */
static int64 gpu_batches,		/* what this backend did, for pb_device_info() */
			gpu_pairs,
			fallbacks;

/*
 * The real way to the GPU: this backend's context, opened on first use,
 * with the budget of pixelbox.gpu_memory (kept up to date).  A probe
 * finding no device is remembered for the life of the backend.
 */
static PbGpuOpened
OpenGpu(void *ctx, PbGpuUse use, PbGpu **g, char *why, size_t why_len)
{
	size_t		budget = (size_t) pb_gpu_memory_mb << 20;

	*g = NULL;
	if (gpu == NULL && !gpu_absent)
	{
		if (PbGpuProbe(gpu_absent_reason, sizeof(gpu_absent_reason)) == 0)
			gpu_absent = true;
		else if ((gpu = PbGpuOpen(budget, 0, why, why_len)) == NULL)
			return PB_GPU_OPEN_FAILED;
	}
	if (gpu == NULL)
		return PB_GPU_ABSENT;
	PbGpuSetBudget(gpu, budget);
	PbGpuSetMethod(gpu, (PbGpuKernel) pb_gpu_method);
	*g = gpu;
	return PB_GPU_OPENED;
}

/* The real polygon device: the context's polygon side. */
static void
GpuDevice(void *ctx, PbGpu *g, PbPipeDevice *dev)
{
	PbGpuDeviceOps(g, dev);
}

static const PbGpuOpener real_gpu = {OpenGpu, GpuDevice, NULL};

/*
 * The one way to the GPU: true with the context in *opener's hands when
 * GPU work is wanted and possible (*g may be NULL where a test seam stands
 * in for a GPU); false when the CPU computes: pixelbox.device = cpu, a
 * parallel worker, no GPU under auto, or a failure to open (after its one
 * WARNING).  Raises when pixelbox.device = gpu and no GPU exists.
 */
static bool
Acquire(const char *caller, PbGpuUse use, const PbGpuOpener **opener, PbGpu **g)
{
	char		why[256];

	if (pb_device == PB_DEVICE_CPU || IsParallelWorker())
		return false;
	*opener = PbSeamsGpu(&real_gpu);
	switch ((*opener)->open((*opener)->ctx, use, g, why, sizeof(why)))
	{
		case PB_GPU_OPENED:
			return true;
		case PB_GPU_OPEN_FAILED:
			PbGpuFallback(caller, why);
			return false;
		case PB_GPU_ABSENT:
			break;
	}
	if (pb_device == PB_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: pixelbox.device is \"gpu\" but no GPU can be used", caller),
				 errdetail("%s", gpu_absent_reason),
				 errhint("Set pixelbox.device to 'auto' or 'cpu'.")));
	return false;
}

/*
 * The one WARNING of a GPU failure; the caller computes on the CPU.  The
 * context may be unusable after a device error: it is closed, when no
 * polygon work holds it, and the next use opens a fresh one.
 */
void
PbGpuFallback(const char *caller, const char *why)
{
	PbGpuFailed(gpu, caller, why);
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
		gpu_owner = NULL;
}

/*
 * Decide whether a state's batches go to the GPU, opening it on first use.
 * Raises when pixelbox.device = gpu and no GPU exists.
 */
bool
PbGpuWanted(const char *caller)
{
	const PbGpuOpener *opener;
	PbGpu	   *g;

	return Acquire(caller, PB_GPU_FOR_POLYGONS, &opener, &g);
}

/*
 * Start the pairs idx[0..n) of batch b (rectilinear integer) on the GPU for
 * owner: one part, staged and started on the polygon device.  PB_GPU_BUSY
 * when another state's batch or a pipeline run holds the GPU.
 */
PbGpuStart
PbGpuStartBatch(const void *owner, const PbBatch *b, const uint32_t *idx,
				uint32_t n, const char *caller)
{
	const PbGpuOpener *opener;
	PbGpu	   *g;
	PbDevicePart part;
	char		err[256];

	if (gpu_owner != NULL && gpu_owner != owner)
		return PB_GPU_BUSY;
	if (!Acquire(caller, PB_GPU_FOR_POLYGONS, &opener, &g))
		return PB_GPU_FAILED;
	opener->device(opener->ctx, g, &owner_dev);
	part = PbDeviceOnePart(b, idx, n);
	if (owner_dev.stage(owner_dev.ctx, &part, 1, err, sizeof(err)) != 0 ||
		owner_dev.start(owner_dev.ctx, err, sizeof(err)) != 0)
	{
		PbGpuFallback(caller, err);
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
	while ((st = owner_dev.poll(owner_dev.ctx, err, sizeof(err))) == 0)
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(20);
	}
	if (st < 0)
	{
		PbGpuFallback(caller, err);
		return NULL;
	}
	return owner_dev.results(owner_dev.ctx);
}

/*
 * Give a pipeline run (owner) the GPU as its device, when one is wanted
 * and no other state holds it; false: the run aggregates on the CPU.
 * The pipeline's aggregator thread is then the only user of the device
 * until PbGpuPipeRelease.
 */
bool
PbGpuPipeDevice(const void *owner, PbPipeDevice *dev, const char *caller)
{
	const PbGpuOpener *opener;
	PbGpu	   *g;

	if (!Acquire(caller, PB_GPU_FOR_POLYGONS, &opener, &g) || gpu_owner != NULL)
		return false;
	opener->device(opener->ctx, g, dev);
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
 * Run raster work on this backend's GPU when GPU work is wanted: 0 when
 * it did the work, 1 when a cancel stopped it (the caller raises it), -1
 * when the CPU must compute (no GPU wanted or usable, or a failure, after
 * its one WARNING).
 */
int
PbGpuTry(const char *caller, PbGpuWork work, void *arg)
{
	const PbGpuOpener *opener;
	PbGpu	   *g;
	char		err[256];
	int			st;

	if (!Acquire(caller, PB_GPU_FOR_RASTERS, &opener, &g))
		return -1;
	st = work(g, arg, err, sizeof(err));
	if (st < 0)
		PbGpuFallback(caller, err);
	return st;
}

/* The GPUs of a hybrid run still to open, opened on the CPU threads. */
typedef struct GpuOpening
{
	size_t		budget;
	int			device[PB_MAX_GPUS];	/* item i opens device[i] */
	PbGpu	   *opened[PB_MAX_GPUS];	/* or NULL, with why[i] */
	char		why[PB_MAX_GPUS][256];
} GpuOpening;

/*
 * PbParItemFn: open one device's context.  Opening a context takes a
 * fraction of a second; the devices of a run open side by side, so that
 * the first call of a session on four GPUs waits for one opening, not four.
 */
static void
OpenOneGpu(void *arg, int64_t i)
{
	GpuOpening *o = (GpuOpening *) arg;

	o->opened[i] = PbGpuOpen(o->budget, o->device[i], o->why[i], sizeof(o->why[i]));
}

/*
 * The contexts of a hybrid run's GPUs into out (PB_MAX_GPUS of room):
 * first (the backend's context, on device 0), then those of devices 1, 2,
 * ... up to pixelbox.gpus (0: every device CUDA lists), opened on first
 * use, all at once, with the budget of pixelbox.gpu_memory.  A device that
 * fails to open gives one WARNING and is left out.  Returns how many.
 */
int
PbGpuRasterDevices(PbGpu *first, PbGpu **out, const char *caller)
{
	char		why[256];
	GpuOpening	o = {.budget = (size_t) pb_gpu_memory_mb << 20};
	int			count = PbGpuProbe(why, sizeof(why));
	int			nopen = 0,
				n = 1;

	out[0] = first;
	if (pb_gpus > 0)
		count = Min(count, pb_gpus);
	count = Min(count, PB_MAX_GPUS);
	for (int d = 1; d < count; d++)
		if (more_gpus[d] == NULL)
			o.device[nopen++] = d;
	if (nopen > 0)
	{
		PbRun		run = {.threads = nopen};

		(void) PbParallelFor(&run, nopen, OpenOneGpu, &o);
	}
	for (int i = 0; i < nopen; i++)
	{
		more_gpus[o.device[i]] = o.opened[i];
		if (o.opened[i] == NULL)
			ereport(WARNING,
					(errmsg("%s: GPU %d could not be opened, computing without it",
							caller, o.device[i]),
					 errdetail("%s", o.why[i])));
	}
	for (int d = 1; d < count; d++)
		if (more_gpus[d] != NULL)
		{
			PbGpuSetBudget(more_gpus[d], o.budget);
			out[n++] = more_gpus[d];
		}
	return n;
}

/*
 * GPU g failed (g may be NULL where a test seam stood in for it): the one
 * WARNING, and its context is closed (the first GPU's when no polygon work
 * holds it), so that the next use opens a fresh one.  The caller computes
 * the work on the CPU, or a hybrid run has already finished it without g.
 */
void
PbGpuFailed(PbGpu *g, const char *caller, const char *why)
{
	fallbacks++;
	if (g != NULL && g == gpu && gpu_owner == NULL)
	{
		PbGpuClose(gpu);
		gpu = NULL;
	}
	for (int d = 1; g != NULL && d < PB_MAX_GPUS; d++)
		if (more_gpus[d] == g)
		{
			PbGpuClose(g);
			more_gpus[d] = NULL;
		}
	ereport(WARNING,
			(errmsg("%s: GPU computation failed, computing on the CPU instead", caller),
			 errdetail("%s", why)));
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

PG_FUNCTION_INFO_V1(pb_gpu_warm);
/*
 * Open now the GPU contexts this backend's raster work would use under
 * the current settings (the first GPU; with pixelbox.device = hybrid
 * every GPU of pixelbox.gpus), so that a session's first call does not
 * wait for them (a context takes a fraction of a second to open); how
 * many are open.  0 with pixelbox.device = cpu, in a parallel worker, or
 * without a GPU under auto and hybrid; a failure to open warns as the
 * work would.
 */
Datum
pb_gpu_warm(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_gpu_warm";
	const PbGpuOpener *opener;
	PbGpu	   *g;
	PbGpu	   *gpus[PB_MAX_GPUS];

	if (!Acquire(caller, PB_GPU_FOR_RASTERS, &opener, &g))
		PG_RETURN_INT32(0);
	PG_RETURN_INT32(pb_device == PB_DEVICE_HYBRID ? PbGpuRasterDevices(g, gpus, caller) : 1);
}
