/*
 * edt_gpu.cuh: what the two halves of the GPU distance transform share:
 * edt_kernels.cu (the column and row kernels and their launchers) and
 * edt_host.cu (PbGpuDistance: strips, device memory, copies, polling).
 * The band and block sizes both sides count with, the row kernel's
 * arguments, and the launchers, so the host file launches no kernel
 * itself.  CUDA-only header.
 */
#ifndef PB_EDT_GPU_CUH
#define PB_EDT_GPU_CUH

#include <stdbool.h>

#include "raster_gpu_common.cuh"

#define ED_BAND 64				/* rows of a column-pass band (bits of a mask) */
#define ED_T 1024				/* threads of a row block */

/* What the row kernel needs besides its buffers. */
struct RowArgs
{
	const int  *g;				/* column rows of the strip's rows */
	int			w;
	int			rows;			/* rows in the strip */
	int			y0;				/* image row of the strip's first row */
	double		sy,
				sx;
	float	   *dist;
	long long  *nearest;		/* may be NULL */
	char	   *scratch;		/* global scratch of the wide-row variant */
};

/*
 * edt_kernels.cu: the column pass over a w-wide, h-high strip of fg (nb
 * bands): its masks, the carries up and down, and the column rows into g.
 * Asynchronous on stream s.
 */
void		EdtLaunchColumns(const uint8_t *fg, int w, int h, int nb, unsigned long long *mask,
							 int *up, int *dn, int *g, cudaStream_t s);

/*
 * edt_kernels.cu: one launch of the row pass on grid blocks of ED_T, the
 * row in smem bytes of shared memory (shared_rows) or in a's global
 * scratch.  Asynchronous on stream s.
 */
void		EdtLaunchRows(const RowArgs &a, bool shared_rows, size_t smem, cudaStream_t s,
						  int grid);

/*
 * edt_kernels.cu: let the shared-memory row kernel use smem bytes of
 * dynamic shared memory, and how many of its blocks then fit on one
 * multiprocessor (*occ).
 */
cudaError_t EdtSharedRowsOccupancy(size_t smem, int *occ);

#endif							/* PB_EDT_GPU_CUH */
