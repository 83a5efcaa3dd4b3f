/*
 * filter_kernels.cu: the MBR filter on the device, for the filter parts of a
 * submission (tile tasks whose filter work migrated to the GPU).
 *
 * A filter part pairs the shapes of set a = [0, split) with those of set
 * b = [split, nshapes) by brute force, which on a tile of a few thousand
 * shapes is cheaper on the GPU than building and joining R-trees: the
 * blocks of part p are grid column p; each thread takes one shape of the
 * larger set (a row) and tests it against the smaller set (the columns),
 * staged through shared memory a tile at a time, so every box is read from
 * global memory once per row block.  The box rules are those of the CPU
 * filter, from src/core/geom/box_float4.h: boxes are rounded outward to
 * float exactly as PostGIS stores them, so the pairs are those PostGIS's
 * && finds, and a pair is kept when its reference point (largest xmin,
 * largest ymin of the float boxes) lies in the part's half-open window,
 * which counts a pair seen by several tiles once.  Kept
 * pairs are appended with an atomic counter that keeps counting past the
 * room there is, so the host driver sees an overflow and re-runs with more.
 */
#include <cuda_runtime.h>

#include "polygon_gpu.cuh"
#include "../src/core/geom/box_float4.h"

#define PB_FILTER_THREADS 128	/* rows per block, and columns per tile */

/* The box of s rounded outward to floats; empty (meets nothing) when s is not int. */
__device__ static float4
FloatBox(const GShape &s)
{
	if (s.nrings == 0)
		return make_float4(INFINITY, INFINITY, -INFINITY, -INFINITY);
	return make_float4(PbFloatDown(s.xmin), PbFloatDown(s.ymin),
					   PbFloatUp(s.xmax), PbFloatUp(s.ymax));
}

/*
 * Keep the pair of part-local shapes u and v (one of each set), whose float
 * boxes ub and vb meet, when its reference point lies in the part's window.
 */
__device__ static void
Emit(const GBatch &b, const GFilterPart &fp, uint32_t u, uint32_t v,
	 float4 ub, float4 vb)
{
	if (PbRefPointIn(ub.x, ub.y, vb.x, vb.y, &fp.ref))
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

				if (PbBoxesMeet(rb.x, rb.y, rb.z, rb.w, cb.x, cb.y, cb.z, cb.w))
					Emit(b, fp, row0 + r, col0 + c0 + j, rb, cb);
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
