/*
 * recon_kernel.cu: gray-scale morphological reconstruction on the GPU
 * (PbGpuReconstruct), the FH_GPU / IWPP algorithm of Teodoro et al.:
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
 * Images larger than memory_budget are cut into tiles, each loaded with a
 * one-pixel halo of its neighbours' current values; tiles whose halo
 * changed (a neighbour's border moved) are processed again until none is
 * left, which reaches the same fixpoint.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raster_gpu_common.cuh"
#include "pb_raster_gpu_test.h"
#include "../src/core/raster/raster_rules.h"

#define RC_THREADS 256			/* threads per propagation block */
#define RC_BQ_CAP (16 * RC_THREADS) /* block queue in shared memory */
#define RC_MAX_PUSH (8 * RC_THREADS)	/* most items one sub-round can queue */
#define RC_COL_DEPTH 8			/* rows a column-pass thread loads ahead */
#define RC_MAX_ITERS 1024		/* queue iterations of a block per launch */
#define RC_MAX_ITEMS (1u << 18) /* items a block may process per launch */
#define RC_MIN_BLOCK_Q 256		/* smallest global queue of a block */
#define RC_MAX_BLOCK_Q (1u << 20)	/* largest global queue of a block */
#define RC_MAX_TILE_PIX ((size_t) 1 << 30)	/* pixel indices stay int */

/* Counters shared by host and device (words of the device array). */
enum
{
	RC_N0 = 0,					/* items in queue 0 */
	RC_N1 = 1,					/* items in queue 1 */
	RC_DONE = 2,				/* blocks whose queue ran empty this launch */
	RC_OVF = 3,					/* an item was dropped this launch */
	RC_NWORDS = 4
};

static unsigned rc_test_block_q;	/* tests: forced per-block capacity */

/* Tests only: force the per-block global queue capacity (0: automatic). */
extern "C" void
PbGpuReconTestQueue(unsigned items_per_block)
{
	rc_test_block_q = items_per_block;
}

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

/* ---------------------------------------------------------------------- */
/* host side */

/* How one call runs: sizes, tiles and device buffers. */
struct ReconPlan
{
	int			w,
				h;
	size_t		ps;				/* bytes per pixel of the type */
	int			tw,
				th;				/* tile interior (the image when untiled) */
	int			ntx,
				nty;
	size_t		tile_pix;		/* most pixels of a tile with its halo */
	unsigned	nblocks;		/* propagation blocks */
	unsigned	cb;				/* global queue of a block */
};

/* Kernels of one (operation, connectivity) pair. */
struct ReconKernels
{
	void		(*row_f) (int *, const int *, int, int);
	void		(*row_b) (int *, const int *, int, int);
	void		(*col_f) (int *, const int *, int, int);
	void		(*col_b) (int *, const int *, int, int);
	void		(*detect) (const int *, const int *, int, int, int *, unsigned *, unsigned);
	void		(*prop) (PropArgs);
	void		(*load_mask) (const void *, int *, int *, size_t, cudaStream_t, int);
};

/* The loading kernel of a pixel type, erased to one signature. */
template <typename T, bool ER>
static void
LaunchLoadMask(const void *src, int *I, int *J, size_t n, cudaStream_t s, int grid)
{
	LoadMask<T, ER><<<grid, 256, 0, s>>>((const T *) src, I, J, n);
}

/* Blocks and per-block queue for a tile of npix pixels. */
static void
QueueShape(size_t npix, int sms, int occ, unsigned *nblocks, unsigned *cb)
{
	size_t		nbk = (size_t) sms * (occ > 0 ? occ : 1);
	size_t		want = npix / 4096 + 1;
	size_t		c;

	if (want < nbk)
		nbk = want;
	c = npix / (8 * nbk);
	if (c < RC_MIN_BLOCK_Q)
		c = RC_MIN_BLOCK_Q;
	if (c > RC_MAX_BLOCK_Q)
		c = RC_MAX_BLOCK_Q;
	if (rc_test_block_q > 0)
		c = rc_test_block_q;
	*nblocks = (unsigned) nbk;
	*cb = (unsigned) c;
}

/* Device bytes a tile of npix pixels needs (see RunTile's buffers). */
static size_t
TileBytes(size_t npix, size_t ps, int sms, int occ)
{
	unsigned	nbk,
				cb;

	QueueShape(npix, sms, occ, &nbk, &cb);
	/* J, I, staging, queues in + next + 2 regions, counters, slack */
	return npix * (8 + ps) + (size_t) 4 * nbk * cb * sizeof(int) + 4096;
}

/*
 * Choose the tiles: the whole image when it fits the budget, else the
 * largest square interior (plus halo) that does.  -1 when nothing fits.
 */
static int
PlanTiles(ReconPlan *pl, size_t budget, int sms, int occ)
{
	size_t		npix = (size_t) pl->w * pl->h;
	long		s;

	pl->tw = pl->w;
	pl->th = pl->h;
	if (npix > RC_MAX_TILE_PIX || TileBytes(npix, pl->ps, sms, occ) > budget)
	{
		long		lo = 0,
					hi = pl->w > pl->h ? pl->w : pl->h;

		while (lo < hi)			/* largest s whose tile fits */
		{
			long		mid = (lo + hi + 1) / 2;
			size_t		side_w = (size_t) (mid < pl->w ? mid : pl->w) + 2;
			size_t		side_h = (size_t) (mid < pl->h ? mid : pl->h) + 2;

			if (side_w * side_h <= RC_MAX_TILE_PIX &&
				TileBytes(side_w * side_h, pl->ps, sms, occ) <= budget)
				lo = mid;
			else
				hi = mid - 1;
		}
		s = lo;
		if (s < 1)
			return -1;
		pl->tw = s < pl->w ? (int) s : pl->w;
		pl->th = s < pl->h ? (int) s : pl->h;
	}
	pl->ntx = (pl->w + pl->tw - 1) / pl->tw;
	pl->nty = (pl->h + pl->th - 1) / pl->th;
	pl->tile_pix = (size_t) (pl->tw + (pl->ntx > 1 ? 2 : 0)) * (pl->th + (pl->nty > 1 ? 2 : 0));
	QueueShape(pl->tile_pix, sms, occ, &pl->nblocks, &pl->cb);
	return 0;
}

/* Device buffers of a call, reused by every tile. */
struct ReconBufs
{
	int		   *J,
			   *I;
	void	   *stage;			/* pixels of the native type */
	int		   *q[2];			/* input / next queues, nblocks * cb each */
	int		   *regions;		/* 2 * nblocks * cb */
	unsigned   *cnt;			/* RC_NWORDS counters */
};

/* The grid of an elementwise kernel over n items. */
static int
ElemGrid(size_t n, int sms)
{
	size_t		g = (n + 255) / 256;
	size_t		most = (size_t) sms * 16;

	return (int) (g < 1 ? 1 : g > most ? most : g);
}

/*
 * Reconstruct one tile: pixels [x0, x1) x [y0, y1) of the interior, loaded
 * with the halo [rx0, rx1) x [ry0, ry1); the interior is written back into
 * marker.  0, 1 when polled to stop, -1 with a reason.
 */
static int
RunTile(RgCtx *c, const ReconPlan *pl, const ReconKernels *kr, ReconBufs *b,
		PbImage *marker, const PbImage *mask, int x0, int y0, int x1, int y1,
		PbPollFn poll, void *poll_arg, PbRasterGpuStats *st, char *err, size_t err_len)
{
	int			rx0 = x0 > 0 && pl->ntx > 1 ? x0 - 1 : x0;
	int			ry0 = y0 > 0 && pl->nty > 1 ? y0 - 1 : y0;
	int			rx1 = x1 < pl->w && pl->ntx > 1 ? x1 + 1 : x1;
	int			ry1 = y1 < pl->h && pl->nty > 1 ? y1 + 1 : y1;
	int			rw = rx1 - rx0,
				rh = ry1 - ry0;
	size_t		n = (size_t) rw * rh;
	size_t		ps = pl->ps;
	size_t		off = ((size_t) ry0 * pl->w + rx0) * ps;
	int			eg = ElemGrid(n, c->sms);
	int			in = 0;			/* which queue is the input */
	int			detect = 1;		/* find the wavefront before propagating */
	int			pending = 0;	/* items were dropped: find it again later */
	unsigned	qcap = pl->nblocks * pl->cb;
	unsigned	nitems = 0;
	PropArgs	pa;

	/* load marker and mask */
	RG_TRY(RgTimeStart(c), "timing");
	RG_TRY(cudaMemcpy2DAsync(b->stage, rw * ps, (const char *) marker->data + off,
							 (size_t) pl->w * ps, rw * ps, rh, cudaMemcpyHostToDevice,
							 c->stream), "copying the marker to the GPU");
	switch (pl->ps)
	{
		case 1:
			LoadKeys<uint8_t><<<eg, 256, 0, c->stream>>>((const uint8_t *) b->stage, b->J, n);
			break;
		case 2:
			LoadKeys<uint16_t><<<eg, 256, 0, c->stream>>>((const uint16_t *) b->stage, b->J, n);
			break;
		default:
			LoadKeys<float><<<eg, 256, 0, c->stream>>>((const float *) b->stage, b->J, n);
			break;
	}
	RG_TRY(cudaGetLastError(), "launching the marker conversion");
	RG_TRY(cudaMemcpy2DAsync(b->stage, rw * ps, (const char *) mask->data + off,
							 (size_t) pl->w * ps, rw * ps, rh, cudaMemcpyHostToDevice,
							 c->stream), "copying the mask to the GPU");
	kr->load_mask(b->stage, b->I, b->J, n, c->stream, eg);
	RG_TRY(cudaGetLastError(), "launching the mask conversion");
	RG_TRY(RgTimeEnd(c, &st->transfer_ms), "loading the tile");

	/* raster and anti-raster scans */
	RG_TRY(RgTimeStart(c), "timing");
	kr->row_f<<<(unsigned) ((rh * 32 + 255) / 256), 256, 0, c->stream>>>(b->J, b->I, rw, rh);
	kr->col_f<<<(unsigned) ((rw + 31) / 32), 32, 0, c->stream>>>(b->J, b->I, rw, rh);
	kr->row_b<<<(unsigned) ((rh * 32 + 255) / 256), 256, 0, c->stream>>>(b->J, b->I, rw, rh);
	kr->col_b<<<(unsigned) ((rw + 31) / 32), 32, 0, c->stream>>>(b->J, b->I, rw, rh);
	RG_TRY(cudaGetLastError(), "launching the raster scans");
	RG_TRY(RgTimeEnd(c, &st->kernel_ms), "running the raster scans");

	/* the queue phase, polled between rounds */
	memset(&pa, 0, sizeof(pa));
	pa.J = b->J;
	pa.I = b->I;
	pa.w = rw;
	pa.h = rh;
	pa.cap_in = qcap;
	pa.regions = b->regions;
	pa.cb = pl->cb;
	pa.ctl = b->cnt;
	pa.max_iters = RC_MAX_ITERS;
	pa.max_items = RC_MAX_ITEMS;
	for (;;)
	{
		if (RgStop(poll, poll_arg))
			return 1;
		if (detect)
		{
			RG_TRY(RgTimeStart(c), "timing");
			RG_TRY(cudaMemsetAsync(&b->cnt[in], 0, sizeof(unsigned), c->stream),
				   "clearing a counter");
			kr->detect<<<ElemGrid(n, c->sms), 256, 0, c->stream>>>(b->J, b->I, rw, rh,
																   b->q[in], &b->cnt[in], qcap);
			RG_TRY(cudaGetLastError(), "launching the wavefront detection");
			RG_TRY(cudaMemcpyAsync(c->h_small, b->cnt, RC_NWORDS * sizeof(unsigned),
								   cudaMemcpyDeviceToHost, c->stream), "reading counters");
			RG_TRY(RgTimeEnd(c, &st->kernel_ms), "finding the wavefront");
			nitems = c->h_small[in];
			if (nitems > qcap)
			{
				nitems = qcap;
				pending = 1;
				st->overflows++;
			}
			detect = 0;
		}
		if (nitems == 0)
		{
			if (!pending)
				break;
			pending = 0;
			detect = 1;
			continue;
		}
		RG_TRY(RgTimeStart(c), "timing");
		RG_TRY(cudaMemsetAsync(&b->cnt[!in], 0, sizeof(unsigned), c->stream),
			   "clearing a counter");
		RG_TRY(cudaMemsetAsync(&b->cnt[RC_DONE], 0, 2 * sizeof(unsigned), c->stream),
			   "clearing a counter");
		pa.qin = b->q[in];
		pa.nin = &b->cnt[in];
		pa.qnext = b->q[!in];
		pa.nnext = &b->cnt[!in];
		kr->prop<<<pl->nblocks, RC_THREADS, 0, c->stream>>>(pa);
		RG_TRY(cudaGetLastError(), "launching the wavefront propagation");
		RG_TRY(cudaMemcpyAsync(c->h_small, b->cnt, RC_NWORDS * sizeof(unsigned),
							   cudaMemcpyDeviceToHost, c->stream), "reading counters");
		RG_TRY(RgTimeEnd(c, &st->kernel_ms), "propagating the wavefront");
		st->rounds++;
		if (c->h_small[RC_OVF])
		{
			pending = 1;
			st->overflows++;
		}
		in = !in;
		nitems = c->h_small[in];
	}

	/* store the interior back */
	RG_TRY(RgTimeStart(c), "timing");
	switch (pl->ps)
	{
		case 1:
			StoreKeys<uint8_t><<<eg, 256, 0, c->stream>>>(b->J, (uint8_t *) b->stage, n);
			break;
		case 2:
			StoreKeys<uint16_t><<<eg, 256, 0, c->stream>>>(b->J, (uint16_t *) b->stage, n);
			break;
		default:
			StoreKeys<float><<<eg, 256, 0, c->stream>>>(b->J, (float *) b->stage, n);
			break;
	}
	RG_TRY(cudaGetLastError(), "launching the result conversion");
	RG_TRY(cudaMemcpy2DAsync((char *) marker->data + ((size_t) y0 * pl->w + x0) * ps,
							 (size_t) pl->w * ps,
							 (const char *) b->stage + ((size_t) (y0 - ry0) * rw + (x0 - rx0)) * ps,
							 rw * ps, (size_t) (x1 - x0) * ps, y1 - y0,
							 cudaMemcpyDeviceToHost, c->stream), "copying the result back");
	RG_TRY(RgTimeEnd(c, &st->transfer_ms), "storing the tile");
	return 0;
fail:
	return -1;
}

/* The kernels of one (operation, connectivity) pair and pixel size. */
template <bool ER, bool C8>
static ReconKernels
KernelsOf(size_t ps)
{
	ReconKernels k;

	k.row_f = RowScan<ER, false>;
	k.row_b = RowScan<ER, true>;
	k.col_f = ColScan<ER, C8, false>;
	k.col_b = ColScan<ER, C8, true>;
	k.detect = Detect<ER, C8>;
	k.prop = Propagate<ER, C8>;
	k.load_mask = ps == 1 ? LaunchLoadMask<uint8_t, ER>
		: ps == 2 ? LaunchLoadMask<uint16_t, ER> : LaunchLoadMask<float, ER>;
	return k;
}

/* Save the border ring of tile interior [x0,x1)x[y0,y1) of img into ring. */
static void
SaveRing(const PbImage *img, size_t ps, int x0, int y0, int x1, int y1, char *ring)
{
	const char *d = (const char *) img->data;
	size_t		rowb = (size_t) (x1 - x0) * ps;

	memcpy(ring, d + ((size_t) y0 * img->width + x0) * ps, rowb);
	ring += rowb;
	memcpy(ring, d + ((size_t) (y1 - 1) * img->width + x0) * ps, rowb);
	ring += rowb;
	for (int y = y0; y < y1; y++)
	{
		memcpy(ring, d + ((size_t) y * img->width + x0) * ps, ps);
		memcpy(ring + ps, d + ((size_t) y * img->width + x1 - 1) * ps, ps);
		ring += 2 * ps;
	}
}

/* Whether the border ring of the tile differs from the saved one. */
static bool
RingChanged(const PbImage *img, size_t ps, int x0, int y0, int x1, int y1, const char *ring)
{
	const char *d = (const char *) img->data;
	size_t		rowb = (size_t) (x1 - x0) * ps;

	if (memcmp(ring, d + ((size_t) y0 * img->width + x0) * ps, rowb) != 0 ||
		memcmp(ring + rowb, d + ((size_t) (y1 - 1) * img->width + x0) * ps, rowb) != 0)
		return true;
	ring += 2 * rowb;
	for (int y = y0; y < y1; y++)
	{
		if (memcmp(ring, d + ((size_t) y * img->width + x0) * ps, ps) != 0 ||
			memcmp(ring + ps, d + ((size_t) y * img->width + x1 - 1) * ps, ps) != 0)
			return true;
		ring += 2 * ps;
	}
	return false;
}

/* The kernels of the operation, connectivity and pixel size. */
static ReconKernels
PickKernels(bool er, bool c8, size_t ps)
{
	if (er)
		return c8 ? KernelsOf<true, true>(ps) : KernelsOf<true, false>(ps);
	return c8 ? KernelsOf<false, true>(ps) : KernelsOf<false, false>(ps);
}

/*
 * Reconstruct marker under (or, eroding, above) mask on the GPU of g: the
 * whole image at once when it fits what is left of g's budget, else tile
 * by tile until no tile border changes (see pb_raster_gpu.h for the
 * contract).
 */
extern "C" int
PbGpuReconstruct(PbGpu *g, PbImage *marker, const PbImage *mask, int connectivity,
				 PbReconOp op, PbPollFn poll, void *poll_arg,
				 PbRasterGpuStats *stats, char *err, size_t err_len)
{
	PbRasterGpuStats st;
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	ReconPlan	pl;
	ReconKernels kr;
	ReconBufs	b;
	unsigned char *dirty = NULL;
	char	   *ring = NULL;
	int			occ = 0;
	int			rc = -1;
	bool		er = op == PB_RECON_ERODE;
	bool		any;
	int			sweep = 0;
	size_t		ntiles;

	memset(&st, 0, sizeof(st));
	memset(&b, 0, sizeof(b));
	memset(&pl, 0, sizeof(pl));
	if (stats)
		*stats = st;
	if (marker == NULL || mask == NULL || marker->width != mask->width ||
		marker->height != mask->height || marker->type != mask->type ||
		marker->width < 0 || marker->height < 0 || PbPixSize(marker->type) == 0 ||
		(connectivity != 4 && connectivity != 8) ||
		(op != PB_RECON_DILATE && op != PB_RECON_ERODE))
	{
		snprintf(err, err_len, "invalid reconstruction arguments (sizes, types, connectivity or operation)");
		return -1;
	}
	if (marker->width == 0 || marker->height == 0)
		return 0;
	if (marker->data == NULL || mask->data == NULL)
	{
		snprintf(err, err_len, "invalid reconstruction arguments (no pixel data)");
		return -1;
	}
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	kr = PickKernels(er, connectivity == 8, PbPixSize(marker->type));
	RG_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kr.prop, RC_THREADS, 0),
		   "querying the occupancy of the propagation kernel");
	pl.w = marker->width;
	pl.h = marker->height;
	pl.ps = PbPixSize(marker->type);
	if (PlanTiles(&pl, memory_budget, c->sms, occ) != 0)
	{
		snprintf(err, err_len, "memory budget of %zu bytes is too small for one tile of the reconstruction",
				 memory_budget);
		goto fail;
	}

	ntiles = (size_t) pl.ntx * pl.nty;
	st.tiles = (int) ntiles;
	RG_TRY(RgAlloc(c, (void **) &b.J, pl.tile_pix * sizeof(int)), "allocating GPU memory for the marker");
	RG_TRY(RgAlloc(c, (void **) &b.I, pl.tile_pix * sizeof(int)), "allocating GPU memory for the mask");
	RG_TRY(RgAlloc(c, &b.stage, pl.tile_pix * pl.ps), "allocating GPU memory for staging");
	RG_TRY(RgAlloc(c, (void **) &b.q[0], (size_t) pl.nblocks * pl.cb * sizeof(int)),
		   "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b.q[1], (size_t) pl.nblocks * pl.cb * sizeof(int)),
		   "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b.regions, (size_t) 2 * pl.nblocks * pl.cb * sizeof(int)),
		   "allocating GPU memory for the queues");
	RG_TRY(RgAlloc(c, (void **) &b.cnt, RC_NWORDS * sizeof(unsigned)), "allocating GPU memory for counters");

	dirty = (unsigned char *) malloc(ntiles);
	ring = (char *) malloc((size_t) 2 * (pl.tw + pl.th) * pl.ps + 16);
	if (dirty == NULL || ring == NULL)
	{
		snprintf(err, err_len, "out of host memory");
		goto fail;
	}
	memset(dirty, 1, ntiles);

	/* sweep the tiles (alternately forwards and backwards) while any is dirty */
	do
	{
		any = false;
		for (size_t k = 0; k < ntiles; k++)
		{
			size_t		t = sweep % 2 == 0 ? k : ntiles - 1 - k;
			int			tx = (int) (t % pl.ntx),
						ty = (int) (t / pl.ntx);
			int			x0 = tx * pl.tw,
						y0 = ty * pl.th;
			int			x1 = x0 + pl.tw < pl.w ? x0 + pl.tw : pl.w;
			int			y1 = y0 + pl.th < pl.h ? y0 + pl.th : pl.h;
			int			r;

			if (!dirty[t])
				continue;
			dirty[t] = 0;
			if (ntiles > 1)
				SaveRing(marker, pl.ps, x0, y0, x1, y1, ring);
			r = RunTile(c, &pl, &kr, &b, marker, mask, x0, y0, x1, y1, poll, poll_arg,
						&st, err, err_len);
			if (r != 0)
			{
				rc = r;
				goto done;
			}
			if (ntiles > 1 && RingChanged(marker, pl.ps, x0, y0, x1, y1, ring))
			{
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++)
					{
						int			nx = tx + dx,
									ny = ty + dy;

						if ((dx || dy) && nx >= 0 && nx < pl.ntx && ny >= 0 && ny < pl.nty)
						{
							dirty[(size_t) ny * pl.ntx + nx] = 1;
							any = true;
						}
					}
			}
		}
		sweep++;
	} while (any);
	rc = 0;
	goto done;
fail:
	rc = -1;
done:
	RgFree(c, b.J);
	RgFree(c, b.I);
	RgFree(c, b.stage);
	RgFree(c, b.q[0]);
	RgFree(c, b.q[1]);
	RgFree(c, b.regions);
	RgFree(c, b.cnt);
	if (cudaStreamSynchronize(c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	RgEnd(c);
	free(dirty);
	free(ring);
	if (stats)
		*stats = st;
	return rc;
}
