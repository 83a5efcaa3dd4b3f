/*
 * pb_gpu.h: the plain C interface to pixelbox's CUDA code.  No PostgreSQL
 * and no CUDA types here, so the glue can include it next to postgres.h.
 * Built from the .cu files when nvcc is present, from src/gpu_none.c otherwise.
 */
#ifndef PB_GPU_H
#define PB_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * Count the usable CUDA devices.  Initializes the CUDA runtime on first
 * call (call it lazily, in a backend, never before fork).  Returns 0 and
 * writes why into reason when there is none: no driver, no device, or a
 * build without CUDA.  Never crashes on a machine without a GPU.
 */
int			PbGpuProbe(char *reason, size_t reason_len);

#ifdef __cplusplus
}
#endif

#endif							/* PB_GPU_H */
