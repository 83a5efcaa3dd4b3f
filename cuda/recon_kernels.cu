/*
 * recon_kernels.cu: the kernels of gray-scale morphological
 * reconstruction on the GPU (PbGpuReconstruct, whose host driver is
 * recon_host.cu), the FH_GPU / IWPP algorithm of Teodoro et al.:
 *
 *  1. Initial propagation by parallel raster and anti-raster scans, each
 *     decomposed into a row-wise pass (one warp per row; the update
 *     J = cap(up(J, J_left), I) is a clamp, clamps compose into clamps, so
 *     a warp scans 32 pixels at once with shuffles, coalesced) and a
 *     column-wise pass (one thread per column walking the rows, coalesced
 *     across the warp, diagonal neighbours for 8-connectivity by shuffle).
 *  2. The initial wavefront: every pixel that can still raise (dilation) or
 *     lower (erosion) a neighbour, compacted warp-wise into a global queue.
 *  3. Wavefront propagation: the queue is split evenly among thread blocks;
 *     each block loops over its own queue in iterations, updating
 *     neighbours with atomicMax (dilation) / atomicMin (erosion) and
 *     queueing those it changed through three levels: per-thread (a bit
 *     per neighbour in a register), block level in shared memory (written
 *     warp-wise after a warp prefix sum, one shared atomic per warp),
 *     global per-block queue (the block flushes the shared queue
 *     coalesced).  A launch ends after a bounded amount of work, or early
 *     once half the blocks are idle (so the host re-splits the remaining
 *     items evenly); the host polls between launches.  Items that do not
 *     fit a global block queue are dropped and counted as an overflow:
 *     the updates were made, so once the queue drains the wavefront is
 *     found again from the partial result by step 2 (the paper's re-run),
 *     and no work is lost.
 *
 * Values: uint8/uint16 as they are, floats through their order-preserving
 * level (PbFloatLevel, -0 taken as +0) shifted to int32, so the atomics
 * work on ints.
 * Reconstruction is the unique fixpoint, reached from any partial result,
 * hence equal to the CPU's.
 *
 * Below the kernels, their launchers (recon_gpu.cuh): the launch shape of
 * each kernel, and the table of one (operation, connectivity, pixel
 * size) that the host driver launches through.
 */
#include <limits.h>

#include "recon_gpu.cuh"
#include "../src/core/raster/raster_rules.h"

#define RC_THREADS 256			/* threads per propagation block */
#define RC_BQ_CAP (16 * RC_THREADS) /* block queue in shared memory */
#define RC_MAX_PUSH (8 * RC_THREADS)	/* most items one sub-round can queue */
#define RC_COL_DEPTH 8			/* rows a column-pass thread loads ahead */

/* ---------------------------------------------------------------------- */
/* value maps */

/* Device key of a pixel value: integers as they are. */
__device__ __forceinline__ int
Key(uint8_t v)
{
	return v;
}

/* 16-bit pixels: their value. */
__device__ __forceinline__ int
Key(uint16_t v)
{
	return v;
}

/* Floats: their level (PbFloatLevel), shifted to signed order. */
__device__ __forceinline__ int
Key(float v)
{
	return (int) (PbFloatLevel(v) ^ 0x80000000u);
}

/* Pixel value of a key (the inverse of Key). */
template <typename T>
__device__ __forceinline__ T
FromKey(int k)
{
	return (T) k;
}

/* Floats: the float of the level. */
template <>
__device__ __forceinline__ float
FromKey<float>(int k)
{
	return PbFloatOfLevel((uint32_t) k ^ 0x80000000u);
}

/* The stronger of two values: the max for dilation, the min for erosion. */
template <bool ER>
__device__ __forceinline__ int
Up(int a, int b)
{
	return ER ? min(a, b) : max(a, b);
}

/* v limited by the mask value m. */
template <bool ER>
__device__ __forceinline__ int
Cap(int v, int m)
{
	return ER ? max(v, m) : min(v, m);
}

/* Whether a is strictly weaker than b (b may raise/lower a). */
template <bool ER>
__device__ __forceinline__ bool
Weaker(int a, int b)
{
	return ER ? a > b : a < b;
}

/* The weakest key: the start of a scan. */
template <bool ER>
__device__ __forceinline__ int
Weakest()
{
	return ER ? INT_MAX : INT_MIN;
}

/* Atomically make *p at least as strong as v; the old value. */
template <bool ER>
__device__ __forceinline__ int
AtomicUp(int *p, int v)
{
	return ER ? atomicMin(p, v) : atomicMax(p, v);
}

/* ---------------------------------------------------------------------- */
/* loading and storing */

/* J = key(src) for n pixels. */
template <typename T>
__global__ void
LoadKeys(const T *src, int *J, size_t n)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
		J[i] = Key(src[i]);
}

/* I = key(src), and J clipped to it (so J never crosses the mask). */
template <typename T, bool ER>
__global__ void
LoadMask(const T *src, int *I, int *J, size_t n)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		int			m = Key(src[i]);

		I[i] = m;
		J[i] = Cap<ER>(J[i], m);
	}
}

/* dst = pixel values of J. */
template <typename T>
__global__ void
StoreKeys(const int *J, T *dst, size_t n)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
		dst[i] = FromKey<T>(J[i]);
}

/* ---------------------------------------------------------------------- */
/* raster scans */

/*
 * Row pass, one warp per row, left to right (REV: right to left): each
 * pixel's update v -> cap(up(v, J), I) is a clamp; a warp composes the
 * clamps of 32 pixels by a shuffle scan and applies them to the carry.
 */
template <bool ER, bool REV>
__global__ void
RowScan(int *J, const int *I, int w, int h)
{
	int			row = (int) ((blockIdx.x * (size_t) blockDim.x + threadIdx.x) >> 5);
	int			lane = threadIdx.x & 31;
	int		   *jr;
	const int  *ir;
	int			carry = Weakest<ER>();

	if (row >= h)
		return;					/* whole warps leave together */
	jr = J + (size_t) row * w;
	ir = I + (size_t) row * w;
	for (int base = 0; base < w; base += 32)
	{
		int			i = base + lane;
		int			x = REV ? w - 1 - i : i;
		int			a = Weakest<ER>();	/* identity clamp */
		int			b = Weakest<!ER>();
		int			v;

		if (i < w)
		{
			a = jr[x];
			b = __ldg(&ir[x]);
		}
#pragma unroll
		for (int d = 1; d < 32; d <<= 1)
		{
			int			pa = __shfl_up_sync(0xffffffffu, a, d);
			int			pb = __shfl_up_sync(0xffffffffu, b, d);

			if (lane >= d)
			{
				/* mine after the predecessor's: clamp (mine(pa), mine(pb)) */
				int			na = Cap<ER>(Up<ER>(pa, a), b);
				int			nb = Cap<ER>(Up<ER>(pb, a), b);

				a = na;
				b = nb;
			}
		}
		v = Cap<ER>(Up<ER>(carry, a), b);
		if (i < w)
			jr[x] = v;
		carry = __shfl_sync(0xffffffffu, v, 31);
	}
}

/*
 * Column pass, one thread per column walking the rows top-down (REV:
 * bottom-up), loading RC_COL_DEPTH rows ahead.  8-connectivity also takes
 * the diagonal neighbours of the previous row, from neighbour lanes by
 * shuffle, at warp edges from memory (possibly not yet updated: any value
 * read is a valid lower bound, the queue phase completes the work).
 */
template <bool ER, bool C8, bool REV>
__global__ void
ColScan(int *J, const int *I, int w, int h)
{
	int			x = blockIdx.x * blockDim.x + threadIdx.x;
	int			lane = threadIdx.x & 31;
	bool		in = x < w;
	int			prev = Weakest<ER>();

	for (int y0 = 0; y0 < h; y0 += RC_COL_DEPTH)
	{
		int			a[RC_COL_DEPTH],
					b[RC_COL_DEPTH];

#pragma unroll
		for (int k = 0; k < RC_COL_DEPTH; k++)
		{
			int			yy = y0 + k;
			int			y = REV ? h - 1 - yy : yy;

			a[k] = Weakest<ER>();
			b[k] = Weakest<!ER>();
			if (in && yy < h)
			{
				a[k] = J[(size_t) y * w + x];
				b[k] = __ldg(&I[(size_t) y * w + x]);
			}
		}
#pragma unroll
		for (int k = 0; k < RC_COL_DEPTH; k++)
		{
			int			yy = y0 + k;
			int			y = REV ? h - 1 - yy : yy;
			int			v = Up<ER>(a[k], prev);

			if (yy >= h)
				break;			/* uniform across the warp */
			if (C8)
			{
				int			left = __shfl_up_sync(0xffffffffu, prev, 1);
				int			right = __shfl_down_sync(0xffffffffu, prev, 1);
				int			py = REV ? y + 1 : y - 1;

				if (lane == 0)
					left = (yy > 0 && x > 0 && x - 1 < w)
						? __ldcg(&J[(size_t) py * w + x - 1]) : Weakest<ER>();
				if (lane == 31 || x + 1 >= w)
					right = (yy > 0 && x + 1 < w)
						? __ldcg(&J[(size_t) py * w + x + 1]) : Weakest<ER>();
				v = Up<ER>(v, Up<ER>(left, right));
			}
			v = Cap<ER>(v, b[k]);
			if (in)
				J[(size_t) y * w + x] = v;
			prev = v;
		}
	}
}

/* ---------------------------------------------------------------------- */
/* the queue phase */

/*
 * The initial wavefront: every pixel p with a neighbour q that p can still
 * change (J(q) weaker than J(p) and J(q) != I(q)), appended warp-wise to
 * q[0, cap); *n counts them all (more than cap: some were dropped).
 */
template <bool ER, bool C8>
__global__ void
Detect(const int *J, const int *I, int w, int h, int *q, unsigned *n, unsigned cap)
{
	size_t		npix = (size_t) w * h;
	size_t		warps = ((size_t) gridDim.x * blockDim.x) >> 5;
	size_t		wid = (blockIdx.x * (size_t) blockDim.x + threadIdx.x) >> 5;
	int			lane = threadIdx.x & 31;

	for (size_t base = wid * 32; base < npix; base += warps * 32)
	{
		size_t		p = base + lane;
		bool		active = false;
		unsigned	mask;

		if (p < npix)
		{
			int			x = (int) (p % w);
			int			y = (int) (p / w);
			int			jp = J[p];

			for (int d = 0; d < (C8 ? 8 : 4) && !active; d++)
			{
				int			nx = x + PbNbDx(d);
				int			ny = y + PbNbDy(d);
				size_t		o;
				int			jq;

				if (nx < 0 || nx >= w || ny < 0 || ny >= h)
					continue;
				o = (size_t) ny * w + nx;
				jq = J[o];
				active = Weaker<ER>(jq, jp) && jq != __ldg(&I[o]);
			}
		}
		mask = __ballot_sync(0xffffffffu, active);
		if (mask != 0)
		{
			unsigned	pos = 0;

			if (lane == 0)
				pos = atomicAdd(n, (unsigned) __popc(mask));
			pos = __shfl_sync(0xffffffffu, pos, 0);
			pos += __popc(mask & ((1u << lane) - 1));
			if (active && pos < cap)
				q[pos] = (int) p;
		}
	}
}

/*
 * Copy the block queue bq[0, cur) to the block's global queue out at
 * *out_n (every thread keeps the same *out_n); items past cb are dropped
 * and flagged.  Called by all threads of the block.
 */
__device__ __forceinline__ void
FlushBlockQueue(const int *bq, unsigned cur, int *out, unsigned *out_n,
				unsigned cb, unsigned *ovf)
{
	for (unsigned i = threadIdx.x; i < cur; i += blockDim.x)
	{
		unsigned	o = *out_n + i;

		if (o < cb)
			out[o] = bq[i];
	}
	if (threadIdx.x == 0 && *out_n + cur > cb)
		atomicExch(ovf, 1u);
	*out_n += cur;
}

/*
 * Wavefront propagation (FH_GPU's queue phase).  Block b takes its even
 * share of the input items, then iterates: its threads take the items of
 * the current queue in turn (RC_THREADS at a time), update the neighbours
 * with atomics and queue those they changed (a bit per neighbour, then the
 * warp's items in one go into the shared block queue, which is flushed
 * coalesced to the block's global queue whenever it might not hold the
 * next sub-round); the new global queue is the next iteration's.  The
 * block stops when its queue is empty, after bounded work, or when half
 * the blocks are idle while it still holds many items; it then appends
 * what is left to qnext for the next launch.
 */
template <bool ER, bool C8>
__global__ void
__launch_bounds__(RC_THREADS)
Propagate(PropArgs a)
{
	__shared__ int bq[RC_BQ_CAP];
	__shared__ unsigned bq_n;
	__shared__ unsigned s_pos;
	__shared__ int s_cmd;
	const int	tid = threadIdx.x;
	const int	lane = tid & 31;
	const unsigned nb = gridDim.x;
	unsigned	n = min(*a.nin, a.cap_in);
	unsigned	lo = (unsigned) ((unsigned long long) n * blockIdx.x / nb);
	unsigned	hi = (unsigned) ((unsigned long long) n * (blockIdx.x + 1) / nb);
	const int  *in = a.qin + lo;
	unsigned	in_n = hi - lo;
	unsigned	processed = 0;
	int			side = 0;

	if (tid == 0)
		bq_n = 0;
	__syncthreads();
	for (int iter = 0;; iter++)
	{
		int		   *out = a.regions + (size_t) (2 * blockIdx.x + side) * a.cb;
		unsigned	out_n = 0;
		unsigned	cur;

		for (unsigned base = 0; base < in_n; base += blockDim.x)
		{
			unsigned	k = base + tid;
			unsigned	m = 0;
			int			p = -1;
			int			cnt,
						incl,
						total;
			unsigned	pos = 0;

			if (k < in_n)
			{
				int			v;
				int			x,
							y;

				p = __ldcg(&in[k]);
				x = p % a.w;
				y = p / a.w;
				v = __ldcg(&a.J[p]);
#pragma unroll
				for (int d = 0; d < (C8 ? 8 : 4); d++)
				{
					int			nx = x + PbNbDx(d);
					int			ny = y + PbNbDy(d);
					int			q,
								jq,
								iq,
								nv;

					if (nx < 0 || nx >= a.w || ny < 0 || ny >= a.h)
						continue;
					q = p + PbNbDy(d) * a.w + PbNbDx(d);
					jq = __ldcg(&a.J[q]);
					if (!Weaker<ER>(jq, v))
						continue;
					iq = __ldg(&a.I[q]);
					if (jq == iq)
						continue;
					nv = Cap<ER>(v, iq);
					if (Weaker<ER>(AtomicUp<ER>(&a.J[q], nv), nv))
						m |= 1u << d;
				}
			}
			/* per-thread queue (m) -> block queue, warp-wise */
			cnt = __popc(m);
			incl = RgWarpInclusiveSum(cnt, lane);
			total = __shfl_sync(0xffffffffu, incl, 31);
			if (total > 0)
			{
				if (lane == 31)
					pos = atomicAdd(&bq_n, (unsigned) total);
				pos = __shfl_sync(0xffffffffu, pos, 31) + (unsigned) (incl - cnt);
				while (m != 0)
				{
					int			d = __ffs(m) - 1;

					m &= m - 1;
					bq[pos++] = p + PbNbDy(d) * a.w + PbNbDx(d);
				}
			}
			__syncthreads();
			cur = bq_n;
			__syncthreads();	/* all have read bq_n before it changes */
			if (cur > RC_BQ_CAP - RC_MAX_PUSH)
			{
				FlushBlockQueue(bq, cur, out, &out_n, a.cb, &a.ctl[RC_OVF]);
				__syncthreads();
				if (tid == 0)
					bq_n = 0;
				__syncthreads();
			}
		}
		cur = bq_n;
		__syncthreads();
		if (cur > 0)
		{
			FlushBlockQueue(bq, cur, out, &out_n, a.cb, &a.ctl[RC_OVF]);
			__syncthreads();
			if (tid == 0)
				bq_n = 0;
		}
		processed += in_n;
		in = out;
		in_n = min(out_n, a.cb);
		side ^= 1;
		if (tid == 0)
		{
			int			cmd = 0;

			if (in_n == 0)
			{
				cmd = 1;		/* done */
				atomicAdd(&a.ctl[RC_DONE], 1u);
			}
			else if (iter + 1 >= a.max_iters || processed >= a.max_items)
				cmd = 2;		/* bounded work: hand the rest back */
			else if (in_n >= 4 * RC_THREADS &&
					 2 * *(volatile unsigned *) &a.ctl[RC_DONE] >= nb)
				cmd = 2;		/* others idle: re-split the rest */
			s_cmd = cmd;
		}
		__syncthreads();		/* also orders the flushed queue for reading */
		if (s_cmd == 1)
			return;
		if (s_cmd == 2)
		{
			if (tid == 0)
				s_pos = atomicAdd(a.nnext, in_n);
			__syncthreads();
			for (unsigned i = tid; i < in_n; i += blockDim.x)
				a.qnext[s_pos + i] = __ldcg(&in[i]);
			return;
		}
	}
}

/*
 * The border ring of an interior (see RcLaunchRing): item i is the top
 * row, then the bottom row, the left column, the right column.
 */
__global__ void
RingPass(const int *J, size_t pitch, int x0, int y0, int w, int h, int *ring,
		 unsigned *changed)
{
	size_t		n = 2 * (size_t) w + 2 * (size_t) h;

	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		size_t		x,
					y;
		unsigned	side;
		int			v;

		if (i < (size_t) w)
			side = RC_SIDE_TOP, x = i, y = 0;
		else if (i < 2 * (size_t) w)
			side = RC_SIDE_BOTTOM, x = i - w, y = h - 1;
		else if (i < 2 * (size_t) w + h)
			side = RC_SIDE_LEFT, x = 0, y = i - 2 * (size_t) w;
		else
			side = RC_SIDE_RIGHT, x = w - 1, y = i - 2 * (size_t) w - h;
		v = J[(y0 + y) * pitch + x0 + x];
		if (changed == NULL)
			ring[i] = v;
		else if (ring[i] != v)
			atomicOr(changed, side);
	}
}

/* ---------------------------------------------------------------------- */
/* launchers (recon_gpu.cuh) */

/* The border ring of an interior: saved, or compared (see recon_gpu.cuh). */
void
RcLaunchRing(const int *J, size_t pitch, int x0, int y0, int w, int h, int *ring,
			 unsigned *changed, cudaStream_t s)
{
	size_t		n = 2 * (size_t) w + 2 * (size_t) h;
	unsigned	grid = (unsigned) ((n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024);

	RingPass<<<grid, 256, 0, s>>>(J, pitch, x0, y0, w, h, ring, changed);
}

/* key(src) into J for n pixels of type T, on grid blocks of 256. */
template <typename T>
static void
LaunchLoadKeys(const void *src, int *J, size_t n, cudaStream_t s, int grid)
{
	LoadKeys<T><<<grid, 256, 0, s>>>((const T *) src, J, n);
}

/* The loading kernel of a pixel type, erased to one signature. */
template <typename T, bool ER>
static void
LaunchLoadMask(const void *src, int *I, int *J, size_t n, cudaStream_t s, int grid)
{
	LoadMask<T, ER><<<grid, 256, 0, s>>>((const T *) src, I, J, n);
}

/* The pixel values of J into dst of type T for n pixels, on grid blocks of 256. */
template <typename T>
static void
LaunchStoreKeys(const int *J, void *dst, size_t n, cudaStream_t s, int grid)
{
	StoreKeys<T><<<grid, 256, 0, s>>>(J, (T *) dst, n);
}

/*
 * The raster and anti-raster scans of a w x h tile: rows (a warp per row,
 * 8 rows per block) and columns (a thread per column), each way.
 */
template <bool ER, bool C8>
static void
LaunchScans(int *J, const int *I, int w, int h, cudaStream_t s)
{
	RowScan<ER, false><<<(unsigned) ((h * 32 + 255) / 256), 256, 0, s>>>(J, I, w, h);
	ColScan<ER, C8, false><<<(unsigned) ((w + 31) / 32), 32, 0, s>>>(J, I, w, h);
	RowScan<ER, true><<<(unsigned) ((h * 32 + 255) / 256), 256, 0, s>>>(J, I, w, h);
	ColScan<ER, C8, true><<<(unsigned) ((w + 31) / 32), 32, 0, s>>>(J, I, w, h);
}

/* The initial wavefront into q[0, cap), counted in *n, on grid blocks of 256. */
template <bool ER, bool C8>
static void
LaunchDetect(const int *J, const int *I, int w, int h, int *q, unsigned *n, unsigned cap,
			 cudaStream_t s, int grid)
{
	Detect<ER, C8><<<grid, 256, 0, s>>>(J, I, w, h, q, n, cap);
}

/* One propagation launch of grid blocks of RC_THREADS. */
template <bool ER, bool C8>
static void
LaunchPropagate(PropArgs a, cudaStream_t s, unsigned grid)
{
	Propagate<ER, C8><<<grid, RC_THREADS, 0, s>>>(a);
}

/* Propagation blocks that fit on one multiprocessor, into *occ. */
template <bool ER, bool C8>
static cudaError_t
PropOccupancy(int *occ)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, Propagate<ER, C8>, RC_THREADS, 0);
}

/* The kernels of one (operation, connectivity) pair and pixel size. */
template <bool ER, bool C8>
static ReconKernels
KernelsOf(size_t ps)
{
	ReconKernels k;

	k.load_keys = ps == 1 ? LaunchLoadKeys<uint8_t>
		: ps == 2 ? LaunchLoadKeys<uint16_t> : LaunchLoadKeys<float>;
	k.load_mask = ps == 1 ? LaunchLoadMask<uint8_t, ER>
		: ps == 2 ? LaunchLoadMask<uint16_t, ER> : LaunchLoadMask<float, ER>;
	k.scans = LaunchScans<ER, C8>;
	k.detect = LaunchDetect<ER, C8>;
	k.prop = LaunchPropagate<ER, C8>;
	k.store_keys = ps == 1 ? LaunchStoreKeys<uint8_t>
		: ps == 2 ? LaunchStoreKeys<uint16_t> : LaunchStoreKeys<float>;
	k.prop_occupancy = PropOccupancy<ER, C8>;
	return k;
}

/* The kernels of the operation, connectivity and pixel size. */
ReconKernels
RcPickKernels(bool er, bool c8, size_t ps)
{
	if (er)
		return c8 ? KernelsOf<true, true>(ps) : KernelsOf<true, false>(ps);
	return c8 ? KernelsOf<false, true>(ps) : KernelsOf<false, false>(ps);
}
