/*
 * pixelbox_kernels.cu: the PixelBox kernel (Wang et al., VLDB 2012, sec. 3,
 * Algorithm 1) for rectilinear integer polygon pairs.
 *
 * One thread block per pair (grid-stride over pairs).  The intersection of
 * the two boxes is the first sampling box on a stack in shared memory, kept
 * as four separate sub-stacks (x0, y0, x1, y1: no bank conflicts).  A box
 * smaller than the pixelization threshold T = n^2/2 (n threads) is
 * pixelized: every pixel centre is tested by ray casting against both
 * polygons.  A larger box is split into n sub-boxes, one per thread, whose
 * positions follow Lemma 1 (no boundary edge meets a sub-box's interior:
 * its first pixel decides inside/outside; otherwise it hovers); sub-boxes
 * inside both add their size, hovering ones are pushed.  The polygons'
 * edges sit in shared memory when they fit, split into vertical and
 * horizontal lists; otherwise they are read from the rings in global
 * memory.  Per-thread areas are summed in the block: one int64 per pair.
 * Every test is on integers, so the result is exact and equals
 * PixelBox-CPU's (src/core/geom/pixelbox_cpu.c) on every pair: both
 * apply the per-edge rules of src/core/geom/pixelbox_rules.h.
 */
#include <cuda_runtime.h>

#include "polygon_gpu.cuh"
#include "../src/core/geom/pixelbox_rules.h"

#define PB_THREADS 64			/* n: threads per block */
#define PB_SPLIT 8				/* sub-boxes per side: PB_SPLIT^2 == n */
#define PB_T (PB_THREADS * PB_THREADS / 2)	/* pixelization threshold */
#define PB_STACK (PB_THREADS * 13)	/* >= 1 + 12 levels of n - 1 children */
#define PB_EDGE_CAP 768			/* edges of a pair kept in shared memory */

/* Edges of both polygons in shared memory, split by direction. */
struct SharedEdges
{
	const PbAxisEdge *v[2];
	const PbAxisEdge *h[2];
	int			nv[2],
				nh[2];

	/* Ray casting: is the centre of pixel (px, py) inside polygon s? */
	__device__ int PixelIn(int s, long long px, long long py) const
	{
		int			inside = 0;

#pragma unroll 4
		for (int i = 0; i < nv[s]; i++)
			inside ^= PbPixelRayCrosses(v[s][i].c, v[s][i].lo, v[s][i].hi, px, py);
		return inside;
	}

	/* Lemma 1: position of box [x0,x1) x [y0,y1) relative to polygon s. */
	__device__ int Position(int s, long long x0, long long y0, long long x1, long long y1) const
	{
		int			hover = 0;

#pragma unroll 4
		for (int i = 0; i < nv[s]; i++)
			hover |= PbEdgeCutsBox(v[s][i].c, v[s][i].lo, v[s][i].hi, x0, x1, y0, y1);
#pragma unroll 4
		for (int i = 0; i < nh[s]; i++)
			hover |= PbEdgeCutsBox(h[s][i].c, h[s][i].lo, h[s][i].hi, y0, y1, x0, x1);
		if (hover)
			return PB_BOX_HOVER;
		return PixelIn(s, x0, y0) ? PB_BOX_INSIDE : PB_BOX_OUTSIDE;
	}
};

/* Edges of both polygons read from their rings in global memory. */
struct GlobalEdges
{
	const int2 *pts;
	const uint2 *rings;
	uint32_t	ring_first[2],
				nrings[2];

	/* Ray casting over the vertical edges of every ring of polygon s. */
	__device__ int PixelIn(int s, long long px, long long py) const
	{
		int			inside = 0;

		for (uint32_t r = ring_first[s]; r < ring_first[s] + nrings[s]; r++)
		{
			uint2		rg = rings[r];
			int2		a = pts[rg.x + rg.y - 1];

			for (uint32_t i = 0; i < rg.y; i++)
			{
				int2		b = pts[rg.x + i];

				inside ^= PbRingEdgeRayCrosses(a.x, a.y, b.x, b.y, px, py);
				a = b;
			}
		}
		return inside;
	}

	/* Lemma 1 over every edge of every ring of polygon s. */
	__device__ int Position(int s, long long x0, long long y0, long long x1, long long y1) const
	{
		for (uint32_t r = ring_first[s]; r < ring_first[s] + nrings[s]; r++)
		{
			uint2		rg = rings[r];
			int2		a = pts[rg.x + rg.y - 1];

			for (uint32_t i = 0; i < rg.y; i++)
			{
				int2		b = pts[rg.x + i];

				if (PbRingEdgeCutsBox(a.x, a.y, b.x, b.y, x0, y0, x1, y1))
					return PB_BOX_HOVER;
				a = b;
			}
		}
		return PixelIn(s, x0, y0) ? PB_BOX_INSIDE : PB_BOX_OUTSIDE;
	}
};

/* The shared sampling-box stack: four sub-stacks and the top. */
struct BoxStack
{
	int		   *x0,
			   *y0,
			   *x1,
			   *y1;
	int		   *top;
	int		   *count;
};

/*
 * This thread's share of the intersection area of the window
 * [wx0,wx1) x [wy0,wy1), by sampling boxes and pixelization (Algorithm 1).
 * Every thread of the block must call it (it synchronizes).
 */
template <class ES>
__device__ long long
PairArea(const ES &es, int wx0, int wy0, int wx1, int wy1, int pixel_only,
		 const BoxStack &st)
{
	const int	tid = threadIdx.x;
	long long	acc = 0;

	if (tid == 0)
	{
		st.x0[0] = wx0;
		st.y0[0] = wy0;
		st.x1[0] = wx1;
		st.y1[0] = wy1;
		*st.top = 1;
	}
	__syncthreads();
	for (;;)
	{
		int			t = *st.top;
		long long	bx0,
					by0,
					w,
					h;

		if (t == 0)
			break;
		t--;
		bx0 = st.x0[t];
		by0 = st.y0[t];
		w = st.x1[t] - bx0;
		h = st.y1[t] - by0;
		__syncthreads();		/* everyone has read the top before it moves */
		if (pixel_only || w * h < PB_T)
		{
			for (long long j = tid; j < w * h; j += PB_THREADS)
			{
				long long	px = bx0 + j % w,
							py = by0 + j / w;

				acc += es.PixelIn(0, px, py) & es.PixelIn(1, px, py);
			}
			if (tid == 0)
				*st.top = t;
		}
		else
		{
			int			kx = PbSplitCount(w, PB_SPLIT);
			int			ky = PbSplitCount(h, PB_SPLIT);

			if (tid == 0)
				*st.count = t;
			__syncthreads();
			if (tid < kx * ky)
			{
				int			i = tid % kx,
							j = tid / kx;
				long long	cx0 = PbSplitAt(bx0, w, i, kx),
							cx1 = PbSplitAt(bx0, w, i + 1, kx);
				long long	cy0 = PbSplitAt(by0, h, j, ky),
							cy1 = PbSplitAt(by0, h, j + 1, ky);
				int			pp = es.Position(0, cx0, cy0, cx1, cy1);
				int			pq = pp == PB_BOX_OUTSIDE ? PB_BOX_OUTSIDE : es.Position(1, cx0, cy0, cx1, cy1);

				if (pp == PB_BOX_INSIDE && pq == PB_BOX_INSIDE)
					acc += (cx1 - cx0) * (cy1 - cy0);
				else if (pp != PB_BOX_OUTSIDE && pq != PB_BOX_OUTSIDE)
				{
					int			k = atomicAdd(st.count, 1);

					st.x0[k] = (int) cx0;
					st.y0[k] = (int) cy0;
					st.x1[k] = (int) cx1;
					st.y1[k] = (int) cy1;
				}
			}
			__syncthreads();
			if (tid == 0)
				*st.top = *st.count;
		}
		__syncthreads();
	}
	return acc;
}

/* Number of points in the rings of shape s. */
__device__ static uint32_t
ShapePoints(const GBatch &b, const GShape &s)
{
	uint32_t	n = 0;

	for (uint32_t r = s.ring_first; r < s.ring_first + s.nrings; r++)
		n += b.rings[r].y;
	return n;
}

/* Split the edges of shape s into the vertical list v and horizontal list h. */
__device__ static void
LoadEdges(const GBatch &b, const GShape &s, PbAxisEdge *v, PbAxisEdge *h, int *nv,
		  int *nh)
{
	for (uint32_t r = s.ring_first; r < s.ring_first + s.nrings; r++)
	{
		uint2		rg = b.rings[r];

		for (uint32_t i = threadIdx.x; i < rg.y; i += PB_THREADS)
		{
			int2		a = b.pts[rg.x + i];
			int2		c = b.pts[rg.x + (i + 1 == rg.y ? 0 : i + 1)];
			PbAxisEdge	e;

			switch (PbAxisEdgeOf(a.x, a.y, c.x, c.y, &e))
			{
				case PB_EDGE_VERTICAL:
					v[atomicAdd(nv, 1)] = e;
					break;
				case PB_EDGE_HORIZONTAL:
					h[atomicAdd(nh, 1)] = e;
					break;
				case PB_EDGE_NONE:
					break;
			}
		}
	}
}

/* Sum a per-thread value over the block; the total is valid in thread 0. */
__device__ static long long
BlockSum(long long v, long long *partial)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		partial[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x == 0)
		for (int w = 1; w < PB_THREADS / 32; w++)
			v += partial[w];
	return v;
}

/*
 * The kernel: one block per pair, grid-stride over the host pairs and then
 * the pairs the filter kernel found (their number is read here, on the
 * device, so the host never waits between the two kernels), or over the
 * pairs subset[0..*nsubset) when subset is given (the bitmap engine's
 * largest windows).
 */
__global__ void __launch_bounds__(PB_THREADS)
PixelBoxKernel(GBatch b, int pixel_only, const uint32_t *subset, const unsigned *nsubset)
{
	__shared__ int sx0[PB_STACK],
				sy0[PB_STACK],
				sx1[PB_STACK],
				sy1[PB_STACK];
	__shared__ PbAxisEdge edges[PB_EDGE_CAP];
	__shared__ int s_top,
				s_count,
				s_n[4];
	__shared__ long long s_partial[PB_THREADS / 32];
	BoxStack	st = {sx0, sy0, sx1, sy1, &s_top, &s_count};
	unsigned long long nfound = *b.nfound;
	uint32_t	npairs = subset ? *nsubset : b.nhost + (uint32_t) nfound;

	/* the filter ran out of room: PbGpuPoll re-runs all with more */
	if (nfound > b.found_cap)
		return;
	for (uint32_t k = blockIdx.x; k < npairs; k += gridDim.x)
	{
		uint32_t	pi = subset ? subset[k] : k;
		uint2		pr = PbPairAt(b, pi);
		GShape		p = b.shapes[pr.x],
					q = b.shapes[pr.y];
		int			wx0 = max(p.xmin, q.xmin),
					wy0 = max(p.ymin, q.ymin);
		int			wx1 = min(p.xmax, q.xmax),
					wy1 = min(p.ymax, q.ymax);
		long long	area = 0;

		if (wx1 > wx0 && wy1 > wy0)
		{
			uint32_t	np = ShapePoints(b, p),
						nq = ShapePoints(b, q);

			if (2 * (np + nq) <= PB_EDGE_CAP)
			{
				SharedEdges es;

				if (threadIdx.x < 4)
					s_n[threadIdx.x] = 0;
				__syncthreads();
				es.v[0] = edges;
				es.h[0] = edges + np;
				es.v[1] = edges + 2 * np;
				es.h[1] = edges + 2 * np + nq;
				LoadEdges(b, p, edges, edges + np, &s_n[0], &s_n[1]);
				LoadEdges(b, q, edges + 2 * np, edges + 2 * np + nq, &s_n[2], &s_n[3]);
				__syncthreads();
				es.nv[0] = s_n[0];
				es.nh[0] = s_n[1];
				es.nv[1] = s_n[2];
				es.nh[1] = s_n[3];
				area = PairArea(es, wx0, wy0, wx1, wy1, pixel_only, st);
			}
			else
			{
				GlobalEdges es = {b.pts, b.rings, {p.ring_first, q.ring_first}, {p.nrings, q.nrings}};

				area = PairArea(es, wx0, wy0, wx1, wy1, pixel_only, st);
			}
		}
		area = BlockSum(area, s_partial);
		if (threadIdx.x == 0)
		{
			if (pi < b.nhost)
				b.out[pi] = area;
			else
				b.found[pi - b.nhost].area = area;
		}
		__syncthreads();		/* shared memory is reused by the next pair */
	}
}

/*
 * Launch the kernel on stream: a few blocks per multiprocessor, grid-stride,
 * no more blocks than the most pairs there can be.
 */
cudaError_t
PbLaunchPixelBox(const GBatch &batch, int pixel_only, int sm_count,
				 cudaStream_t stream)
{
	unsigned long long most = batch.nhost + batch.found_cap;
	unsigned	grid = (unsigned) sm_count * 16;

	if (most == 0)
		return cudaSuccess;
	if (grid > most)
		grid = (unsigned) most;
	PixelBoxKernel<<<grid, PB_THREADS, 0, stream>>>(batch, pixel_only, NULL, NULL);
	return cudaGetLastError();
}

/*
 * Launch the kernel on the pairs subset[0..*nsubset): the count is known
 * only on the device, so the grid is sized for a few; blocks past it exit.
 */
cudaError_t
PbLaunchPixelBoxSubset(const GBatch &batch, const uint32_t *subset, const unsigned *nsubset,
					   int sm_count, cudaStream_t stream)
{
	PixelBoxKernel<<<sm_count * 4, PB_THREADS, 0, stream>>>(batch, 0, subset, nsubset);
	return cudaGetLastError();
}
