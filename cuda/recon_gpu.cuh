/*
 * recon_gpu.cuh: what the two halves of the GPU reconstruction share:
 * recon_kernels.cu (the kernels and their launchers) and recon_host.cu
 * (PbGpuReconstruct: tiles, device memory, the rounds polled between
 * launches).  The counters both sides read, the arguments of a
 * propagation launch, and the launchers of one (operation, connectivity,
 * pixel size), so the host file launches no kernel itself.  CUDA-only
 * header.
 */
#ifndef PB_RECON_GPU_CUH
#define PB_RECON_GPU_CUH

#include <stdbool.h>

#include "raster_gpu_common.cuh"

/* Counters shared by host and device (words of the device array). */
enum
{
	RC_N0 = 0,					/* items in queue 0 */
	RC_N1 = 1,					/* items in queue 1 */
	RC_DONE = 2,				/* blocks whose queue ran empty this launch */
	RC_OVF = 3,					/* an item was dropped this launch */
	RC_NWORDS = 4
};

/* The sides of a tile's interior, as bits of a border comparison. */
enum
{
	RC_SIDE_TOP = 1,
	RC_SIDE_BOTTOM = 2,
	RC_SIDE_LEFT = 4,
	RC_SIDE_RIGHT = 8,
	RC_SIDE_ALL = 15
};

/* What a propagation launch works on. */
struct PropArgs
{
	int		   *J;
	const int  *I;
	int			w,
				h;
	const int  *qin;			/* this launch's items ... */
	const unsigned *nin;		/* ... and their number (capped at cap_in) */
	unsigned	cap_in;
	int		   *regions;		/* 2 global queues of cb items per block */
	unsigned	cb;
	int		   *qnext;			/* items left at the end of the launch */
	unsigned   *nnext;
	unsigned   *ctl;			/* RC_DONE, RC_OVF */
	int			max_iters;
	unsigned	max_items;
};

/*
 * The launchers of one (operation, connectivity) pair and pixel size, all
 * asynchronous on stream s: the pixels in native type (src, dst) to keys
 * and back, the raster and anti-raster scans, the wavefront detection and
 * one propagation launch of grid blocks; and the propagation blocks that
 * fit on one multiprocessor.
 */
struct ReconKernels
{
	void		(*load_keys) (const void *, int *, size_t, cudaStream_t, int);
	void		(*load_mask) (const void *, int *, int *, size_t, cudaStream_t, int);
	void		(*scans) (int *, const int *, int, int, cudaStream_t);
	void		(*detect) (const int *, const int *, int, int, int *, unsigned *, unsigned,
						   cudaStream_t, int);
	void		(*prop) (PropArgs, cudaStream_t, unsigned);
	void		(*store_keys) (const int *, void *, size_t, cudaStream_t, int);
	cudaError_t (*prop_occupancy) (int *);
};

/*
 * recon_kernels.cu: the launchers of the operation (er: erosion),
 * connectivity (c8: 8) and pixel size ps (bytes).
 */
ReconKernels RcPickKernels(bool er, bool c8, size_t ps);

/*
 * The border ring of a tile's interior, w x h at (x0, y0) of the keys J
 * (pitch pixels a row), asynchronously on s: saved into ring (2w + 2h
 * items) when changed is NULL, else the RC_SIDE_* bits of the sides where
 * J now differs from the saved ring ORed into *changed.
 */
void		RcLaunchRing(const int *J, size_t pitch, int x0, int y0, int w, int h, int *ring,
						 unsigned *changed, cudaStream_t s);

#endif							/* PB_RECON_GPU_CUH */
