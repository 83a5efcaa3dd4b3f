/*
 * pb_xpu.h: one source for the CPU and the GPU.
 *
 * A rule that the CPU engines and the CUDA kernels must apply alike (a
 * pixel test, a neighbour table, a rounding) is written once, in a header
 * under the core folder that owns it, as functions declared PB_XPU.  gcc
 * compiles them as static inline C; nvcc as __host__ __device__ inline
 * functions, so the kernel runs the very code the CPU fallback runs (the
 * way pg-strom's xpu_common.h compiles one source for both sides).  Such
 * headers hold plain C99 that both compilers accept: no allocation, no
 * libc beyond <stdint.h> and <math.h>, no C-only or C++-only syntax, and
 * no tables at file scope (device code cannot read a host array): a table
 * is a PB_XPU function of its index.
 */
#ifndef PB_XPU_H
#define PB_XPU_H

#ifdef __CUDACC__
#define PB_XPU static __host__ __device__ __forceinline__
#else
#define PB_XPU static inline
#endif

#endif							/* PB_XPU_H */
