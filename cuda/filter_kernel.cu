/*
 * filter_kernel.cu: the MBR filter on the device, for the filter parts of a
 * submission (tile tasks whose filter work migrated to the GPU).
 *
 * A filter part pairs the shapes of set a = [0, split) with those of set
 * b = [split, nshapes) by brute force, which on a tile of a few thousand
 * shapes is cheaper on the GPU than building and joining R-trees: the
 * blocks of part p are grid column p; each thread takes one shape of the
 * larger set (a row) and tests it against the smaller set (the columns),
 * staged through shared memory a tile at a time, so every box is read from
 * global memory once per row block.  Boxes are rounded outward to float
 * exactly as PostGIS stores them (__int2float_rd / _ru are exact for the
 * +-2^30 integers of PB_SHAPE_INT shapes, like PbBoxAsPostgisFloat), so the
 * pairs are those PostGIS's && finds.  A pair is kept when its reference
 * point (largest xmin, largest ymin of the float boxes) lies in the part's
 * half-open window, which counts a pair seen by several tiles once.  Kept
 * pairs are appended with an atomic counter that keeps counting past the
 * room there is, so the runtime sees an overflow and re-runs with more.
 */
#include <cuda_runtime.h>

#include "gpu_layout.h"

#define PB_FILTER_THREADS 128	/* rows per block, and columns per tile */

/* The box of s rounded outward to floats; empty (meets nothing) when s is not int. */
__device__ static float4
FloatBox(const GShape &s)
{
	if (s.nrings == 0)
		return make_float4(INFINITY, INFINITY, -INFINITY, -INFINITY);
	return make_float4(__int2float_rd(s.xmin), __int2float_rd(s.ymin),
					   __int2float_ru(s.xmax), __int2float_ru(s.ymax));
}

/*
 * Keep the pair of part-local shapes u and v (one of each set) when its
 * reference point (x, y) lies in the part's window, compared in double.
 */
__device__ static void
Emit(const GBatch &b, const GFilterPart &fp, uint32_t u, uint32_t v, float x,
	 float y)
{
	if ((double) x >= fp.ref.xmin && (double) x < fp.ref.xmax &&
		(double) y >= fp.ref.ymin && (double) y < fp.ref.ymax)
	{
		unsigned long long k = atomicAdd(b.nfound, 1ULL);

		/* set a holds the smaller indices */
		if (k < b.found_cap)
			b.found[k] = PbDeviceFound{fp.part, min(u, v), max(u, v), 0};
	}
}

/* The kernel: blockIdx.x is the filter part, blockIdx.y strides over its rows. */
__global__ void __launch_bounds__(PB_FILTER_THREADS)
FilterKernel(GBatch b)
{
	__shared__ float4 tile[PB_FILTER_THREADS];
	const GFilterPart fp = b.fparts[blockIdx.x];
	const uint32_t nb = fp.nshapes - fp.split;
	const int	rows_a = fp.split >= nb;
	const uint32_t nrows = rows_a ? fp.split : nb,
				ncols = rows_a ? nb : fp.split;
	const uint32_t row0 = rows_a ? 0 : fp.split,
				col0 = rows_a ? fp.split : 0;

	for (uint32_t r0 = blockIdx.y * PB_FILTER_THREADS; r0 < nrows;
		 r0 += gridDim.y * PB_FILTER_THREADS)
	{
		uint32_t	r = r0 + threadIdx.x;
		float4		rb = r < nrows ? FloatBox(b.shapes[fp.base + row0 + r])
			: make_float4(INFINITY, INFINITY, -INFINITY, -INFINITY);

		for (uint32_t c0 = 0; c0 < ncols; c0 += PB_FILTER_THREADS)
		{
			uint32_t	n = min(ncols - c0, (uint32_t) PB_FILTER_THREADS);

			__syncthreads();	/* everyone is done with the previous tile */
			if (threadIdx.x < n)
				tile[threadIdx.x] = FloatBox(b.shapes[fp.base + col0 + c0 + threadIdx.x]);
			__syncthreads();
			for (uint32_t j = 0; j < n; j++)
			{
				float4		cb = tile[j];

				if (rb.x <= cb.z && cb.x <= rb.z && rb.y <= cb.w && cb.y <= rb.w)
					Emit(b, fp, row0 + r, col0 + c0 + j, fmaxf(rb.x, cb.x),
						 fmaxf(rb.y, cb.y));
			}
		}
	}
}

/*
 * Launch the filter on stream: one grid column per filter part, and as many
 * row blocks per part as its largest set needs, but no more than it takes
 * (with the other parts) to give every multiprocessor a few blocks.
 */
cudaError_t
PbLaunchFilter(const GBatch &batch, int sm_count, cudaStream_t stream)
{
	unsigned	need,
				fill;

	if (batch.nfparts == 0)
		return cudaSuccess;
	need = (batch.filter_rows + PB_FILTER_THREADS - 1) / PB_FILTER_THREADS;
	fill = ((unsigned) sm_count * 8 + batch.nfparts - 1) / batch.nfparts;
	FilterKernel<<<dim3(batch.nfparts, need < fill ? need : fill), PB_FILTER_THREADS, 0,
		stream>>>(batch);
	return cudaGetLastError();
}
