/*
 * pixelbox.h: declarations shared by the PostgreSQL glue files.
 * Never include CUDA headers next to this one (float4 clashes).
 */
#ifndef PIXELBOX_H
#define PIXELBOX_H

#include "postgres.h"
#include "fmgr.h"

#include "core/geom/pb_geom.h"

/* pixelbox.device */
typedef enum PbDeviceSetting
{
	PB_DEVICE_AUTO,
	PB_DEVICE_CPU,
	PB_DEVICE_GPU,
	PB_DEVICE_HYBRID
} PbDeviceSetting;

/* pixelbox.gpu_fault: failures injected to test the CPU fallback */
typedef enum PbGpuFault
{
	PB_FAULT_NONE,
	PB_FAULT_OPEN,
	PB_FAULT_SUBMIT,
	PB_FAULT_RUN,
	PB_FAULT_BLOCKS				/* the GPUs' blocks of a hybrid watershed */
} PbGpuFault;

/* What PbGpuStartBatch did. */
typedef enum PbGpuStart
{
	PB_GPU_STARTED,				/* the batch runs on the GPU */
	PB_GPU_BUSY,				/* another state's batch is in flight: use the CPU */
	PB_GPU_FAILED				/* failed (one WARNING given): use the CPU from now on */
} PbGpuStart;

/* pixelbox.pipeline_throttle: a stage slowed down to force migration */
typedef enum PbThrottle
{
	PB_THROTTLE_NONE,
	PB_THROTTLE_FILTER,
	PB_THROTTLE_AGGREGATE
} PbThrottle;

/* pixelbox.pipeline_fault: a failure injected into the pipeline's threads */
typedef enum PbPipeFault
{
	PB_PIPE_FAULT_NONE,
	PB_PIPE_FAULT_MEMORY
} PbPipeFault;

/* GUC variables (pixelbox.c) */
extern int	pb_device;
extern int	pb_gpu_memory_mb;
extern int	pb_host_memory_mb;
extern int	pb_gpus;
extern int	pb_cpu_threads;
extern int	pb_gpu_fault;
extern int	pb_cpu_method;
extern int	pb_gpu_method;
extern int	pb_batch_memory_kb;
extern bool pb_force_ewkb;
extern bool pb_migration;
extern bool pb_pipelined;

extern int	PbCpuThreads(void);
extern int	PbInterruptArrived(void *arg);
extern PbRun PbCpuRun(void);
extern void PbCheckPass(PbStatus st, const char *caller, const char *what);
extern int	pb_pipeline_throttle;
extern int	pb_pipeline_fault;
extern int	pb_tile_shapes;

/* pg_alloc.c: a PbAllocator on palloc in a memory context */
extern void PbPgAllocatorInit(PbAllocator *mem, MemoryContext cxt);

/* file_input.c: the file readers' access rule, error wording and stop */
extern void CheckFileAccess(const char *caller);
extern void ReportFileError(const char *caller, const char *path, bool opened, int io_errno,
							PbStatus st, int64 line, const PbError *err);
extern void RaiseStop(const char *caller) pg_attribute_noreturn();

/* geom_input.c: decode a geometry argument or value into a batch shape */
extern uint32_t PbDecodeGeometryArg(FunctionCallInfo fcinfo, int argno,
									PbBatch *batch, const char *caller);
extern Datum PbGeometryFromEwkb(Oid recv, Oid ioparam, const uint8_t *ewkb, size_t len,
								const char *caller);
extern uint32_t PbDecodeGeometryDatum(Datum d, Oid typid, PbBatch *batch,
									  const char *caller);
extern void PbCheckSameSrid(const PbBatch *batch, uint32_t a, uint32_t b,
							const char *caller);
extern void PbCheckSetSrid(int32_t *srid, bool *has_srid, int32_t next,
						   const char *caller);

/*
 * geom_memo.c: the large geometries (stored out of line or compressed) an
 * aggregate argument decoded into one fill (serial, never 0) of a batch,
 * so that a value met in many rows is decoded once
 */
struct memo_hash;
typedef struct PbGeomMemo
{
	uint64		serial;			/* the batch fill its shapes are in; 0: none */
	struct memo_hash *map;		/* value identity -> shape */
	char	   *arena;			/* copies of the compressed values */
	Size		arena_len,
				arena_cap;
	/* the last plain inline value decoded, to know it again in the next row */
	uint64		last_serial;	/* the fill its shape is in; 0: none */
	uint32		last_shape;
	char	   *last;			/* a copy of its bytes */
	Size		last_len,
				last_cap;
} PbGeomMemo;

extern uint32 PbDecodeGeometryArgMemo(FunctionCallInfo fcinfo, int argno, PbBatch *batch,
									  uint64 serial, PbGeomMemo *memo, MemoryContext cxt,
									  const char *caller);

/*
 * device.c: this backend's GPU, one context (cuda/pb_gpu.h) for the
 * aggregates, the pipeline and the raster operations, and the one WARNING
 * of a fallback to the CPU.
 */
struct PbGpu;
struct PbPipeDevice;
extern void PbGpuForget(const void *owner);
extern bool PbGpuWanted(const char *caller);
extern PbGpuStart PbGpuStartBatch(const void *owner, const PbBatch *b,
								  const uint32_t *idx, uint32_t n,
								  const char *caller);
extern const int64_t *PbGpuFinishBatch(const void *owner, const char *caller);
extern bool PbGpuPipeDevice(const void *owner, struct PbPipeDevice *dev, const char *caller);
extern void PbGpuPipeRelease(const void *owner);
extern void PbGpuFallback(const char *caller, const char *why);

/* GPU work of PbGpuTry on context g: 0 done, 1 stopped (a cancel), -1 failed (err says why). */
typedef int (*PbGpuWork) (struct PbGpu *g, void *arg, char *err, size_t err_len);
extern int	PbGpuTry(const char *caller, PbGpuWork work, void *arg);

/* The most GPUs a backend drives at once (pixelbox.gpus). */
#define PB_MAX_GPUS 16
/* A hybrid run's GPU contexts: first, then those of the other devices. */
extern int	PbGpuRasterDevices(struct PbGpu *first, struct PbGpu **out, const char *caller);
/* GPU g failed: its WARNING, and its context closed for a fresh start. */
extern void PbGpuFailed(struct PbGpu *g, const char *caller, const char *why);

/* What the GPU is opened for (a test seam fails them differently). */
typedef enum PbGpuUse
{
	PB_GPU_FOR_POLYGONS,
	PB_GPU_FOR_RASTERS
} PbGpuUse;

/* What opening the GPU gave. */
typedef enum PbGpuOpened
{
	PB_GPU_OPENED,				/* the context (NULL where a test seam stands in) */
	PB_GPU_ABSENT,				/* no GPU in this backend: not a failure */
	PB_GPU_OPEN_FAILED			/* a GPU failed to open: why says why */
} PbGpuOpened;

/*
 * The way to this backend's GPU (device.c has the real one; test_seams.c
 * may wrap it): open gives the context, opened on first use; device makes
 * the polygon device (core src/core/sccg/device.h) on a context.
 */
typedef struct PbGpuOpener
{
	PbGpuOpened (*open) (void *ctx, PbGpuUse use, struct PbGpu **g, char *why,
						 size_t why_len);
	void		(*device) (void *ctx, struct PbGpu *g, struct PbPipeDevice *dev);
	void	   *ctx;
} PbGpuOpener;

/*
 * test_seams.c: the testing settings (pixelbox.gpu_fault,
 * pipeline_throttle, pipeline_fault) as decorators: of the way to the
 * GPU, and of a pipeline run's configuration (its memory in cxt).
 */
struct PbPipeConfig;
extern const PbGpuOpener *PbSeamsGpu(const PbGpuOpener *real);
struct PbWsDevice;
extern void PbSeamsWsDevices(struct PbWsDevice *devs, int ndev);
extern void PbSeamsPipeline(struct PbPipeConfig *c, MemoryContext cxt);

/* pipeline_run.c: one pipeline run in this backend */
typedef struct PbPipeRun PbPipeRun;
struct PbTask;
struct PbCompareAcc;
extern PbPipeRun *PbPipeRunStart(MemoryContext cxt, const char *caller, int64 tasks,
								  const struct PbBatch *source);
extern void PbPipeRunFeed(PbPipeRun *r, struct PbTask *t);
extern void PbPipeRunAddTileTime(PbPipeRun *r, double seconds);
extern void PbPipeRunAddMerge(PbPipeRun *r, int64 chunks, double seconds, int64 shared,
						  int64 in_state);
extern void PbPipeRunExpect(PbPipeRun *r, int64 tasks);
extern void PbPipeRunFinish(PbPipeRun *r, struct PbCompareAcc *acc);
extern void PbPipeRunEnd(PbPipeRun *r);

/* compare_agg.c: the pb_comparison columns of a result */
struct PbCompareResult;
extern void PbCompareResultDatums(const struct PbCompareResult *r, Datum *values, bool *nulls);

/*
 * state_types.c: the flat forms of the partial states (pb_comparison_state,
 * pb_set_comparison_state) and their text, which Citus ships from workers
 * to the coordinator.  Reading checks the bytes and raises on bad ones.
 */
#define PB_COMPARISON_STATE_MAX (1 + PB_ACC_CODE_MAX)
typedef struct PbSetTotals
{
	PbCompareAcc acc;
	int64		counts[4];		/* polygons of a, of b, missed of a, of b */
	PbKeyRange *ranges;			/* the keys compared, sorted ranges */
	uint32		nranges;
} PbSetTotals;
extern Size PbComparisonStateFlatten(const PbCompareAcc *acc, uint8 *out);
extern void PbComparisonStateRead(const uint8 *in, Size len, PbCompareAcc *acc);
extern Size PbSetStateFlatSize(uint32 nranges);
extern Size PbSetStateFlatten(const PbSetTotals *t, uint8 *out);
extern void PbSetStateRead(const uint8 *in, Size len, PbSetTotals *t, MemoryContext cxt);
extern void PbBadState(const char *what) pg_attribute_noreturn();
extern void PbReadKeyRanges(const uint8 *in, Size len, MemoryContext cxt, PbKeyRange **ranges,
							uint32 *nranges, const char *what);
extern bytea *PbStateFromHex(const char *text, const char *what);

/* citus_guard.c: no silent pull of every polygon to a Citus coordinator */
extern bool pb_allow_coordinator_pull;
extern void PbRejectCoordinatorPull(FunctionCallInfo fcinfo, const char *caller);
extern void PbRejectDistributedTable(Oid relid, const char *caller);

/* set_compare.c: two polygon sets, paired by R-trees (pb_compare_sets) */
typedef struct SetsState SetsState;
extern SetsState *PbSetsCreate(MemoryContext cxt);
extern PbBatch *PbSetsBatch(SetsState *s);
extern void PbSetsAdd(SetsState *s, uint32_t shape, bool in_a, const char *caller);
extern Datum PbSetsResult(SetsState *s, FunctionCallInfo fcinfo, const char *caller);
extern Datum PbSetsResultDatum(FunctionCallInfo fcinfo, const struct PbCompareAcc *acc,
							   const int64 *counts, const char *caller);
typedef void (*PbSetsPairFn) (void *ctx, uint32_t a, uint32_t b, double area);
extern void PbSetsPairs(SetsState *s, PbSetsPairFn emit, void *ctx, const char *caller);
/* the aggregate support functions, for other aggregates over the same state */
extern SetsState *PbSetsTransition(FunctionCallInfo fcinfo, const char *caller);
extern SetsState *PbSetsCombine(FunctionCallInfo fcinfo, const char *caller);
extern bytea *PbSetsSerialize(FunctionCallInfo fcinfo, const char *caller);
extern SetsState *PbSetsDeserialize(FunctionCallInfo fcinfo, const char *caller);
extern void PbSetsSetThreshold(SetsState *s, double threshold, const char *caller);
extern bool PbSetsThreshold(const SetsState *s, double *threshold);
extern const uint8 *PbSetsInA(const SetsState *s);

/*
 * pair_rows.c: the rows of two tables (arguments table, id column, geometry
 * column, for a then b) read into a set pair, with each shape's row id
 */
typedef struct PbTableSets
{
	SetsState  *sets;
	int64	   *ids;			/* per shape of the sets' batch */
	bool	   *id_null;
} PbTableSets;
extern void PbReadTables(FunctionCallInfo fcinfo, MemoryContext cxt, const char *caller,
						 PbTableSets *out);

/*
 * progress.c: the progress of a long comparison, as a NOTICE
 * (pixelbox.progress) and in shared memory for pb_progress() (with
 * pixelbox in shared_preload_libraries); backend's thread only, except
 * PbProgressDue, which any thread may ask.
 */
typedef enum PbProgressPhase
{
	PB_PHASE_SCAN,				/* an aggregate reads its rows */
	PB_PHASE_PARSE,				/* files parsed */
	PB_PHASE_UNPACK,			/* parallel workers' chunks unpacked */
	PB_PHASE_COMPARE			/* the pipeline's tiles */
} PbProgressPhase;
extern bool pb_progress_enabled;
extern int	pb_progress_interval_ms;
extern void PbProgressInit(void);
extern void PbProgressStart(const char *operation, MemoryContext cxt);
extern bool PbProgressActive(void);
extern void PbProgressEnter(PbProgressPhase phase, int64 total);
extern void PbProgressUpdate(int64 done, int64 total, int64 pairs);
extern bool PbProgressDue(void);
extern void PbProgressRow(const char *operation, MemoryContext cxt);
extern void PbProgressNotice(void);
extern double PbProgressNoticeIn(void);
extern void PbProgressEnd(void);

#endif							/* PIXELBOX_H */
