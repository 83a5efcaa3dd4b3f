/*
 * pixelbox.c: module entry point and the pixelbox.* settings.
 *
 * Nothing here touches CUDA: the GPU is probed lazily, in the backend that
 * first needs it (device.c), never in the postmaster, which runs _PG_init
 * when pixelbox is in shared_preload_libraries (for pb_progress()'s
 * shared memory, progress.c).
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "../cuda/pb_gpu.h"
#include "parallel_handoff.h"
#include "pixelbox.h"

PG_MODULE_MAGIC;

int			pb_device = PB_DEVICE_AUTO;
int			pb_cpu_method = PB_METHOD_AUTO;
int			pb_gpu_method = PB_GPU_BITMAP;
int			pb_batch_memory_kb = 1024;
int			pb_gpu_memory_mb = 1024;
int			pb_host_memory_mb = 0;
int			pb_gpus = 0;
int			pb_cpu_threads = 0;
int			pb_gpu_fault = PB_FAULT_NONE;
bool		pb_force_ewkb = false;
bool		pb_migration = true;
int			pb_pipeline_throttle = PB_THROTTLE_NONE;
int			pb_pipeline_fault = PB_PIPE_FAULT_NONE;
int			pb_tile_shapes = 2048;
bool		pb_pipelined = true;

/* Threads a CPU run uses: pixelbox.cpu_threads, or one per online CPU (0). */
int
PbCpuThreads(void)
{
	int			n = pb_cpu_threads > 0 ? pb_cpu_threads : (int) sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

/*
 * The poll every core loop, thread and GPU wait is given: has a cancel, a
 * timeout or a termination request arrived?  It only reads two flags, so
 * any thread may call it, with locks held (it never longjmps); the backend
 * services the interrupt after the core returns PB_ERR_STOPPED.  Other
 * interrupts (parallel workers' messages) wait for the end of the call.
 */
int
PbInterruptArrived(void *arg)
{
	return QueryCancelPending || ProcDiePending;
}

/* How a CPU run goes: PbCpuThreads() threads, polling PbInterruptArrived. */
PbRun
PbCpuRun(void)
{
	PbRun		run = {PbCpuThreads(), 0, PbInterruptArrived, NULL};

	return run;
}

/*
 * After a pass of a PbCpuRun: a stop means an interrupt arrived (serviced
 * here); any other failure is an error saying what failed.
 */
void
PbCheckPass(PbStatus st, const char *caller, const char *what)
{
	CHECK_FOR_INTERRUPTS();
	if (st != PB_OK)
		elog(ERROR, "%s: %s failed (status %d)", caller, what, (int) st);
}

static const struct config_enum_entry throttle_options[] = {
	{"none", PB_THROTTLE_NONE, false},
	{"filter", PB_THROTTLE_FILTER, false},
	{"aggregate", PB_THROTTLE_AGGREGATE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry pipe_fault_options[] = {
	{"none", PB_PIPE_FAULT_NONE, false},
	{"memory", PB_PIPE_FAULT_MEMORY, false},
	{NULL, 0, false}
};

static const struct config_enum_entry handoff_options[] = {
	{"auto", PB_HANDOFF_AUTO, false},
	{"shared_memory", PB_HANDOFF_SHARED, false},
	{"tuple_queue", PB_HANDOFF_QUEUE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry device_options[] = {
	{"auto", PB_DEVICE_AUTO, false},
	{"cpu", PB_DEVICE_CPU, false},
	{"gpu", PB_DEVICE_GPU, false},
	{"hybrid", PB_DEVICE_HYBRID, false},
	{NULL, 0, false}
};

static const struct config_enum_entry gpu_fault_options[] = {
	{"none", PB_FAULT_NONE, false},
	{"open", PB_FAULT_OPEN, false},
	{"submit", PB_FAULT_SUBMIT, false},
	{"run", PB_FAULT_RUN, false},
	{"blocks", PB_FAULT_BLOCKS, false},
	{NULL, 0, false}
};

static const struct config_enum_entry cpu_method_options[] = {
	{"auto", PB_METHOD_AUTO, false},
	{"pixelbox", PB_METHOD_PIXELBOX, false},
	{"bitmap", PB_METHOD_BITMAP, false},
	{"sweep", PB_METHOD_SWEEP, false},
	{"general", PB_METHOD_GENERAL, false},
	{NULL, 0, false}
};

static const struct config_enum_entry gpu_method_options[] = {
	{"bitmap", PB_GPU_BITMAP, false},
	{"pixelbox", PB_GPU_PIXELBOX, false},
	{NULL, 0, false}
};

void		_PG_init(void);

/*
 * Define the pixelbox.* settings and, when preloaded, ask for the shared
 * memory of pb_progress() (no CUDA here: it starts lazily).
 */
void
_PG_init(void)
{
	DefineCustomEnumVariable("pixelbox.device",
							 "Where jaccard_gpu and pb_cross_compare compute intersection areas.",
							 "auto uses a GPU when one is usable, cpu never touches CUDA, gpu raises an error when no GPU exists, hybrid runs reconstructions and distance transforms the GPU cannot take at once on the CPU threads and the GPUs together, and the tiles of a watershed it cannot hold on every GPU (otherwise as auto). Parallel workers always use the CPU.",
							 &pb_device, PB_DEVICE_AUTO, device_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("pixelbox.cpu_method",
							 "Exact engine for rectilinear integer pairs on the CPU.",
							 "auto picks the fastest (edge-flag bitmaps, or an integer sweep for large windows); pixelbox is the paper's PixelBox-CPU. All give identical results; other pairs always use the general engine.",
							 &pb_cpu_method, PB_METHOD_AUTO, cpu_method_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("pixelbox.gpu_method",
							 "Exact kernel for rectilinear integer pairs on the GPU.",
							 "bitmap computes edge-flag bitmaps in tiles, so a pair's cost follows its window; pixelbox is the paper's PixelBox kernel. Both give identical results.",
							 &pb_gpu_method, PB_GPU_BITMAP, gpu_method_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pixelbox.batch_memory",
							"Memory for the pairs an aggregate batches before computing them.",
							NULL,
							&pb_batch_memory_kb, 1024, 64, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomBoolVariable("pixelbox.force_ewkb",
							 "Decode geometries through EWKB instead of reading PostGIS's storage format.",
							 "A developer option for testing the portable decoding path.",
							 &pb_force_ewkb, false,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomIntVariable("pixelbox.cpu_threads",
							"CPU threads of the pipeline (pb_compare_sets, pb_compare_files), of the raster operations, and of a serial plan's aggregate (one).",
							"0 means one per CPU of the server; 1 computes in the backend alone.",
							&pb_cpu_threads, 0, 0, 256,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pixelbox.gpu_memory",
							"GPU memory one backend may use for its batches and raster images.",
							"Batches are sized to fit; each backend also holds its own CUDA context.",
							&pb_gpu_memory_mb, 1024, 16, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("pixelbox.host_memory",
							"Memory a backend may hold before the images of its raster calls go to temporary files.",
							"0 means no limit. Past it (the backend's memory counted all together), each new image of a raster or coverage call is a temporary file mapped into memory, paged by the operating system: slides larger than the server's memory complete, more slowly. temp_file_limit does not count these files.",
							&pb_host_memory_mb, 0, 0, INT_MAX / 2,
							PGC_USERSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("pixelbox.gpus",
							"GPUs a hybrid reconstruction, distance transform or watershed may use, the first ones CUDA lists.",
							"0 means every GPU of the server. Each holds up to pixelbox.gpu_memory; other GPU work uses the first.",
							&pb_gpus, 0, 0, PB_MAX_GPUS,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("pixelbox.gpu_fault",
							 "Make the GPU path fail at a given step (testing the CPU fallback).",
							 "none, open (initialization), submit (copy or launch), run (kernel). Works without a GPU.",
							 &pb_gpu_fault, PB_FAULT_NONE, gpu_fault_options,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomBoolVariable("pixelbox.migration",
							 "Move work between the CPU threads and the GPU as the pipeline's buffers fill and drain.",
							 "When the GPU is congested the smallest tasks run on CPU threads that would finish them sooner, at the rates measured in the run; when it is idle it takes filter work. Off: every stage stays where it is (for comparison).",
							 &pb_migration, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pixelbox.allow_coordinator_pull",
							 "Let pb_compare_sets without a key and pb_match_stats pull every polygon to a Citus coordinator.",
							 "Off (the default): over Citus distributed tables, not grouped by the distribution column, they raise an error instead of copying every polygon of every shard to the coordinator.",
							 &pb_allow_coordinator_pull, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pixelbox.pipelined",
							 "Run the pipeline's stages concurrently.",
							 "Off: every tile is filtered before any is aggregated, as the paper's NoPipe baselines (for comparison).",
							 &pb_pipelined, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pixelbox.tile_shapes",
							"Polygons per tile when the pipeline cuts two sets into tiles itself.",
							"Tiles are the pipeline's tasks; a polygon crossing tile borders is counted once.",
							&pb_tile_shapes, 2048, 1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("pixelbox.pipeline_throttle",
							 "Slow one pipeline stage down (testing migration).",
							 "none, filter (the CPU filter threads: the GPU takes filter work), aggregate (the aggregator: CPU threads take its tasks).",
							 &pb_pipeline_throttle, PB_THROTTLE_NONE, throttle_options,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomEnumVariable("pixelbox.pipeline_fault",
							 "Inject a failure into the pipeline's threads (testing).",
							 "none, memory (their memory pool fails after a few allocations, as when malloc returns NULL).",
							 &pb_pipeline_fault, PB_PIPE_FAULT_NONE, pipe_fault_options,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomEnumVariable("pixelbox.parallel_handoff",
							 "How pb_compare_sets's parallel workers hand their polygons to the leader.",
							 "shared_memory writes them into the query's dynamic shared memory, tuple_queue sends them through the tuple queue (slower), auto uses shared memory while /dev/shm keeps 512 MB free.",
							 &pb_parallel_handoff, PB_HANDOFF_AUTO, handoff_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pixelbox.progress",
							 "Report the progress of long comparisons as a NOTICE every pixelbox.progress_interval.",
							 "Tiles done of all, pairs computed, time elapsed and left, of pb_compare_sets, pb_compare_files, pb_intersecting_pairs, pb_match_stats and the like. Other sessions see it in pb_progress (with pixelbox in shared_preload_libraries) whether this is on or not.",
							 &pb_progress_enabled, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pixelbox.progress_interval",
							"Time between two progress NOTICEs of pixelbox.progress.",
							NULL,
							&pb_progress_interval_ms, 10000, 100, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	MarkGUCPrefixReserved("pixelbox");
	PbProgressInit();
}
