/*
 * edt_kernels.cu: the kernels of the exact Euclidean distance transform
 * on the GPU (PbGpuDistance, whose host driver is edt_host.cu), a
 * parallel banding algorithm in the spirit of PBA+
 * (Cao et al.), giving exactly PbDistanceCpu's distances:
 *
 *  1. Column pass, in bands of 64 rows: each (column, band) thread packs
 *     the band's background rows into a 64-bit mask; one thread per column
 *     carries the nearest background row above and below every band across
 *     the bands; each (column, band) thread then writes, for its 64 rows,
 *     the row of the nearest background pixel in the column (ties to the
 *     upper row, as on the CPU), or -1.  Every access is coalesced across
 *     the columns of a warp; the image is read once, the rows written once.
 *  2. Row pass, one block per row, the row in shared memory (global
 *     scratch for rows too wide): each thread builds the lower envelope of
 *     its band's parabolas (a stack held as a doubly linked list in place),
 *     the bands' envelopes are merged pairwise in log2(threads) rounds (the
 *     lower-hull bridge walk: drop the left chain's top or the right
 *     chain's bottom while it is dominated), the surviving sites are
 *     compacted by a block prefix sum, and each thread walks its pixels
 *     along the envelope, starting from a binary search.  Output rows are
 *     written coalesced.
 *
 * Distances are computed as the CPU does: dy = (row difference) * sy,
 * dx = (column difference) * sx, d = sqrt(dy * dy + dx * dx) in double,
 * squares rounded apart (no fused multiply-add), then cast to float.  The
 * envelope walk compares those very doubles with the steps of
 * PbEdtStepsOf (raster_rules.h, as the CPU does): the spacing itself, or
 * rescaled where its squares could leave the double range, so that huge
 * or tiny spacing still finds the nearest pixel (background pixels: 0).
 * With no background at all the CPU's output is reproduced: distances to
 * the virtual pixel (row -1, column 0), nearest = -1.  Sides are limited
 * to PB_EDT_MAX_SIDE like the CPU's (so the envelope test's integers, in
 * doubles, stay exact).
 *
 * Below the kernels, their launchers (edt_gpu.cuh), which the host driver
 * edt_host.cu calls.
 */
#include "edt_gpu.cuh"
#include "../src/core/raster/raster_rules.h"

/* ---------------------------------------------------------------------- */
/* column pass */

/* Thread (x, band): the band's background rows of column x as a bit mask. */
__global__ void
EdtColMasks(const uint8_t *fg, int w, int h, unsigned long long *mask)
{
	int			x = blockIdx.x * blockDim.x + threadIdx.x;
	int			band = blockIdx.y * blockDim.y + threadIdx.y;
	int			nb = (h + ED_BAND - 1) / ED_BAND;
	unsigned long long m = 0;

	if (x >= w || band >= nb)
		return;
	for (int i = 0; i < ED_BAND; i++)
	{
		int			y = band * ED_BAND + i;

		if (y >= h)
			break;
		if (fg[(size_t) y * w + x] == 0)
			m |= 1ull << i;
	}
	mask[(size_t) band * w + x] = m;
}

/*
 * Thread x: across the bands of column x, the last background row above
 * each band (up) and the first one below it (dn), -1 when none.
 */
__global__ void
EdtColCarry(const unsigned long long *mask, int w, int nb, int *up, int *dn)
{
	int			x = blockIdx.x * blockDim.x + threadIdx.x;
	int			carry = -1;

	if (x >= w)
		return;
	for (int k = 0; k < nb; k++)
	{
		unsigned long long m = mask[(size_t) k * w + x];

		up[(size_t) k * w + x] = carry;
		if (m)
			carry = k * ED_BAND + 63 - __clzll((long long) m);
	}
	carry = -1;
	for (int k = nb - 1; k >= 0; k--)
	{
		unsigned long long m = mask[(size_t) k * w + x];

		dn[(size_t) k * w + x] = carry;
		if (m)
			carry = k * ED_BAND + __ffsll((long long) m) - 1;
	}
}

/*
 * Thread (x, band): for each row of the band, the row of the nearest
 * background pixel of column x (the upper one on a tie), or -1.
 */
__global__ void
EdtColRows(const unsigned long long *mask, const int *up, const int *dn, int w, int h,
		   int *g)
{
	int			x = blockIdx.x * blockDim.x + threadIdx.x;
	int			band = blockIdx.y * blockDim.y + threadIdx.y;
	int			nb = (h + ED_BAND - 1) / ED_BAND;
	unsigned long long m;
	int			u,
				d;

	if (x >= w || band >= nb)
		return;
	m = mask[(size_t) band * w + x];
	u = up[(size_t) band * w + x];
	d = dn[(size_t) band * w + x];
	for (int i = 0; i < ED_BAND; i++)
	{
		int			y = band * ED_BAND + i;
		unsigned long long ma = m & (i == 63 ? ~0ull : (2ull << i) - 1);
		unsigned long long mb = m >> i;
		int			a,
					b,
					r;

		if (y >= h)
			break;
		a = ma ? band * ED_BAND + 63 - __clzll((long long) ma) : u;
		b = mb ? y + __ffsll((long long) mb) - 1 : d;
		if (a < 0)
			r = b;
		else if (b < 0)
			r = a;
		else
			r = b - y < y - a ? b : a;
		g[(size_t) y * w + x] = r;
	}
}

/* ---------------------------------------------------------------------- */
/* row pass */

/*
 * The CPU's squared distance from pixel (y, x) to (row, col): the squares
 * of the spaced differences rounded apart, then added.
 */
__device__ __forceinline__ double
Dist2(int row, int col, int y, int x, double sy, double sx)
{
	double		t1 = __dmul_rn((double) (row - y), sy);
	double		t2 = __dmul_rn((double) (col - x), sx);

	return __dadd_rn(__dmul_rn(t1, t1), __dmul_rn(t2, t2));
}

/*
 * Whether site b (columns a < b < c, column rows G[]) is nowhere strictly
 * lowest among the parabolas of a, b, c on row y: the a-b intersection is
 * not left of the b-c one.  Exact with unit spacing (what equal spacing
 * is reduced to) at our sizes: integers below 2^53.
 */
__device__ __forceinline__ bool
Dominated(const int *G, int a, int b, int c, int y, double sy2, double sx2)
{
	double		da = (double) (G[a] - y),
				db = (double) (G[b] - y),
				dc = (double) (G[c] - y);
	double		ha = sy2 * da * da,
				hb = sy2 * db * db,
				hc = sy2 * dc * dc;
	double		lhs = (double) (c - b) * (hb - ha + sx2 * ((double) b * b - (double) a * a));
	double		rhs = (double) (b - a) * (hc - hb + sx2 * ((double) c * c - (double) b * b));

	return lhs >= rhs;
}

/*
 * Row pass: one block per row (grid-stride over the strip's rows).
 * L is the link type (uint16 in shared memory, int32 in global scratch);
 * SH says where the row lives.  Per row: load the column rows (G), build
 * band envelopes, merge them, compact the survivors into arr (aliasing
 * prv), pick each pixel's site into nxt, write the outputs coalesced.
 * Dead sites are marked by G = -1.
 */
template <typename L, bool SH>
__global__ void
__launch_bounds__(ED_T)
EdtRows(RowArgs a)
{
	extern __shared__ __align__(16) unsigned char smem[];
	__shared__ int s_bot[ED_T],
				s_top[ED_T];
	__shared__ int s_warp[ED_T / 32];
	const L		NONE = (L) ~(L) 0;
	const int	tid = threadIdx.x;
	const int	lane = tid & 31;
	const int	w = a.w;
	unsigned char *base = SH ? smem : (unsigned char *) a.scratch +
		(size_t) blockIdx.x * w * (sizeof(int) + 2 * sizeof(L));
	int		   *G = (int *) base;
	L		   *prv = (L *) (base + (size_t) w * sizeof(int));
	L		   *nxt = prv + w;
	L		   *arr = prv;			/* after the merges */
	const int	band = (w + ED_T - 1) / ED_T;
	const int	lo = min(w, tid * band);
	const int	hi = min(w, lo + band);
	/*
	 * Equal spacing scales every distance alike: choose sites with unit
	 * spacing, in exact integers (as the CPU does); other spacing with the
	 * CPU's steps (which cannot overflow); the output alone uses the
	 * spacing.
	 */
	const bool	equal = a.sy == a.sx;
	const PbEdtSteps steps = PbEdtStepsOf(a.sy, a.sx);
	const double cy = equal ? 1.0 : steps.cy,
				cx = equal ? 1.0 : steps.cx;
	const double sy2 = cy * cy,
				sx2 = cx * cx;

	for (int r = blockIdx.x; r < a.rows; r += gridDim.x)
	{
		const int	y = a.y0 + r;
		int			top = -1,
					bot = -1;
		int			cnt = 0,
					incl,
					n;

		for (int x = tid; x < w; x += ED_T)
			G[x] = a.g[(size_t) r * w + x];
		__syncthreads();

		/* the envelope of the band's sites, as a stack */
		for (int x = lo; x < hi; x++)
		{
			if (G[x] < 0)
				continue;
			while (top >= 0 && prv[top] != NONE && Dominated(G, prv[top], top, x, y, sy2, sx2))
			{
				G[top] = -1;
				top = prv[top];
			}
			prv[x] = top < 0 ? NONE : (L) top;
			if (top >= 0)
				nxt[top] = (L) x;
			else
				bot = x;
			top = x;
		}
		if (top >= 0)
			nxt[top] = NONE;
		s_bot[tid] = bot;
		s_top[tid] = top;
		__syncthreads();

		/* merge neighbouring chains: the lower-hull bridge walk */
		for (int s = 1; s < ED_T; s <<= 1)
		{
			if ((tid & (2 * s - 1)) == 0 && tid + s < ED_T)
			{
				int			at = s_top[tid],
							bb = s_bot[tid + s],
							bt = s_top[tid + s];

				if (at < 0)
				{
					s_bot[tid] = bb;
					s_top[tid] = bt;
				}
				else if (bb >= 0)
				{
					bool		changed;

					do
					{
						changed = false;
						while (prv[at] != NONE && Dominated(G, prv[at], at, bb, y, sy2, sx2))
						{
							G[at] = -1;
							at = prv[at];
							changed = true;
						}
						while (nxt[bb] != NONE && Dominated(G, at, bb, nxt[bb], y, sy2, sx2))
						{
							G[bb] = -1;
							bb = nxt[bb];
							changed = true;
						}
					} while (changed);
					nxt[at] = (L) bb;
					prv[bb] = (L) at;
					s_top[tid] = bt;
				}
			}
			__syncthreads();
		}

		/* compact the surviving sites, in order, into arr */
		for (int x = lo; x < hi; x++)
			cnt += G[x] >= 0;
		incl = RgWarpInclusiveSum(cnt, lane);
		if (lane == 31)
			s_warp[tid >> 5] = incl;
		__syncthreads();
		if (tid < 32)
		{
			int			v = RgWarpInclusiveSum(tid < ED_T / 32 ? s_warp[tid] : 0, lane);

			if (tid < ED_T / 32)
				s_warp[tid] = v;	/* inclusive warp prefix */
		}
		__syncthreads();
		n = s_warp[ED_T / 32 - 1];
		{
			int			o = incl - cnt + ((tid >> 5) > 0 ? s_warp[(tid >> 5) - 1] : 0);

			for (int x = lo; x < hi; x++)
				if (G[x] >= 0)
					arr[o++] = (L) x;
		}
		__syncthreads();

		/* each pixel's site: binary search for the first, then walk */
		if (n > 0 && lo < hi)
		{
			int			k0 = 0,
						k1 = n - 1;

			while (k0 < k1)
			{
				int			mid = (k0 + k1 + 1) / 2;
				int			sm = arr[mid],
							sp = arr[mid - 1];

				if (Dist2(G[sm], sm, y, lo, cy, cx) < Dist2(G[sp], sp, y, lo, cy, cx))
					k0 = mid;
				else
					k1 = mid - 1;
			}
			for (int x = lo; x < hi; x++)
			{
				int			s0 = arr[k0];
				double		best = Dist2(G[s0], s0, y, x, cy, cx);

				while (k0 + 1 < n)
				{
					int			s1 = arr[k0 + 1];
					double		next = Dist2(G[s1], s1, y, x, cy, cx);

					if (next >= best)
						break;
					best = next;
					k0++;
				}
				nxt[x] = arr[k0];
			}
		}
		__syncthreads();

		/* outputs, coalesced */
		for (int x = tid; x < w; x += ED_T)
		{
			size_t		o = (size_t) r * w + x;

			if (n > 0)
			{
				int			s = nxt[x];

				a.dist[o] = (float) sqrt(Dist2(G[s], s, y, x, a.sy, a.sx));
				if (a.nearest)
					a.nearest[o] = (long long) G[s] * w + s;
			}
			else
			{
				a.dist[o] = (float) sqrt(Dist2(-1, 0, y, x, a.sy, a.sx));
				if (a.nearest)
					a.nearest[o] = -1;
			}
		}
		__syncthreads();		/* before the next row overwrites G */
	}
}

/* ---------------------------------------------------------------------- */
/* launchers (edt_gpu.cuh) */

/* The column pass over a strip: masks, carries, column rows. */
void
EdtLaunchColumns(const uint8_t *fg, int w, int h, int nb, unsigned long long *mask,
				 int *up, int *dn, int *g, cudaStream_t s)
{
	dim3		blk(32, 8);
	dim3		grd((w + 31) / 32, (nb + 7) / 8);

	EdtColMasks<<<grd, blk, 0, s>>>(fg, w, h, mask);
	EdtColCarry<<<(w + 127) / 128, 128, 0, s>>>(mask, w, nb, up, dn);
	EdtColRows<<<grd, blk, 0, s>>>(mask, up, dn, w, h, g);
}

/* One launch of the row pass, the row in shared memory or in global scratch. */
void
EdtLaunchRows(const RowArgs &a, bool shared_rows, size_t smem, cudaStream_t s, int grid)
{
	if (shared_rows)
		EdtRows<uint16_t, true><<<grid, ED_T, smem, s>>>(a);
	else
		EdtRows<int, false><<<grid, ED_T, 0, s>>>(a);
}

/* Allow the shared-memory row kernel smem bytes; its blocks per multiprocessor. */
cudaError_t
EdtSharedRowsOccupancy(size_t smem, int *occ)
{
	cudaError_t e;

	if ((e = cudaFuncSetAttribute(EdtRows<uint16_t, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
								  (int) smem)) != cudaSuccess)
		return e;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, EdtRows<uint16_t, true>, ED_T, smem);
}
