/*
 * pixelbox.h: declarations shared by the PostgreSQL glue files.
 * Never include CUDA headers next to this one (float4 clashes).
 */
#ifndef PIXELBOX_H
#define PIXELBOX_H

#include "postgres.h"
#include "fmgr.h"

#include "core/pb_core.h"

/* pixelbox.device */
typedef enum PbDeviceSetting
{
	PB_DEVICE_AUTO,
	PB_DEVICE_CPU,
	PB_DEVICE_GPU
} PbDeviceSetting;

/* GUC variables (pixelbox.c) */
extern int	pb_device;
extern int	pb_cpu_method;
extern int	pb_batch_memory_kb;
extern bool pb_force_ewkb;

/* pg_alloc.c: a PbAllocator on palloc in a memory context */
extern void PbPgAllocatorInit(PbAllocator *mem, MemoryContext cxt);

/* geom_input.c: decode a geometry argument into a batch shape */
extern uint32_t PbDecodeGeometryArg(FunctionCallInfo fcinfo, int argno,
									PbBatch *batch, const char *caller);
extern void PbCheckSameSrid(const PbBatch *batch, uint32_t a, uint32_t b,
							const char *caller);

/* device.c: where aggregate batches run */
extern bool PbDeviceUseGpu(const char *caller);

#endif							/* PIXELBOX_H */
