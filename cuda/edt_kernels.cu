/*
 * edt_kernel.cu: the exact Euclidean distance transform on the GPU
 * (PbGpuDistance), a parallel banding algorithm in the spirit of PBA+
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
 * squares rounded apart (no fused multiply-add), then cast to float; the
 * envelope walk compares those very doubles.  With no background at all
 * the CPU's output is reproduced: distances to the virtual pixel (row -1,
 * column 0), nearest = -1.  Sides are limited to 65535 like the CPU's.
 *
 * Images larger than memory_budget: the column pass runs over column
 * strips and the row pass over row strips, the column rows kept in host
 * memory in between, which gives the identical result.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raster_gpu_common.cuh"

#define ED_BAND 64				/* rows of a column-pass band (bits of a mask) */
#define ED_T 1024				/* threads of a row block */
#define ED_MAX_SIDE 65535		/* as PbDistanceCpu */
#define ED_LAUNCH_PIX ((size_t) 1 << 27)	/* pixels of one row-pass launch */

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
	 * spacing, in exact integers (as the CPU does); the output alone uses
	 * the spacing.
	 */
	const bool	equal = a.sy == a.sx;
	const double cy = equal ? 1.0 : a.sy,
				cx = equal ? 1.0 : a.sx;
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
/* host side */

/* How one call runs. */
struct EdtPlan
{
	int			w,
				h,
				nb;				/* bands of the column pass */
	int			ws,
				hs;				/* column strip width, row strip height */
	bool		single;			/* one strip each way: column rows stay on the GPU */
	bool		shared_rows;	/* the row kernel keeps the row in shared memory */
	size_t		row_smem;		/* its dynamic shared memory */
	int			row_grid;		/* its blocks */
	size_t		scratch;		/* its global scratch (wide rows) */
};

/* Device bytes of one column of the column pass (fg, masks, up, dn, rows). */
static size_t
ColBytes(const EdtPlan *p)
{
	return (size_t) p->h * (1 + sizeof(int)) + (size_t) p->nb * (8 + 2 * sizeof(int));
}

/* Device bytes of one row of the row pass (rows, dist, nearest). */
static size_t
RowBytes(const EdtPlan *p, bool nearest)
{
	return (size_t) p->w * (sizeof(int) + sizeof(float) + (nearest ? 8 : 0));
}

/*
 * Plan the strips and the row kernel's memory within budget.  -1 with a
 * reason when not even one column and one row fit.
 */
static int
PlanEdt(EdtPlan *p, const RgCtx *c, size_t budget, bool nearest, char *err, size_t err_len)
{
	size_t		stat = (size_t) (2 * ED_T + ED_T / 32) * sizeof(int);
	size_t		col_all,
				row_all,
				avail;
	int			occ = 0;

	p->nb = (p->h + ED_BAND - 1) / ED_BAND;
	p->row_smem = (size_t) p->w * (sizeof(int) + 2 * sizeof(uint16_t));
	p->shared_rows = p->row_smem + stat <= c->smem_optin;
	p->scratch = 0;
	if (p->shared_rows)
	{
		if (cudaFuncSetAttribute(EdtRows<uint16_t, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
								 (int) p->row_smem) != cudaSuccess ||
			cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, EdtRows<uint16_t, true>, ED_T,
														  p->row_smem) != cudaSuccess || occ < 1)
		{
			/* no large shared memory for this kernel: rows in global scratch */
			cudaGetLastError();
			p->shared_rows = false;
		}
		else
			p->row_grid = c->sms * occ;
	}
	if (!p->shared_rows)
	{
		p->row_smem = 0;
		p->row_grid = c->sms * 2;
	}
	if (p->row_grid > p->h)
		p->row_grid = p->h;
	if (!p->shared_rows)
		p->scratch = (size_t) p->row_grid * p->w * 3 * sizeof(int);

	col_all = (size_t) p->w * ColBytes(p);
	row_all = (size_t) p->h * RowBytes(p, nearest) + p->scratch;
	/* one strip each way: the column buffers go before the row pass's come */
	p->single = col_all <= budget && row_all <= budget;
	if (p->single)
	{
		p->ws = p->w;
		p->hs = p->h;
		return 0;
	}
	p->ws = (int) (budget / ColBytes(p) < (size_t) p->w ? budget / ColBytes(p) : (size_t) p->w);
	avail = budget > p->scratch ? budget - p->scratch : 0;
	p->hs = (int) (avail / RowBytes(p, nearest) < (size_t) p->h ? avail / RowBytes(p, nearest) : (size_t) p->h);
	if (p->ws < 1 || p->hs < 1)
	{
		snprintf(err, err_len, "memory budget of %zu bytes is too small for one column and one row of the distance transform",
				 budget);
		return -1;
	}
	return 0;
}

/*
 * The exact distance transform on the GPU of g: column bands, then rows in
 * shared memory, in one piece or in strips when the image does not fit
 * what is left of g's budget (see pb_raster_gpu.h for the contract).
 */
extern "C" int
PbGpuDistance(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
			  double sy, double sx, float *dist, int64_t *nearest,
			  PbPollFn poll, void *poll_arg,
			  PbRasterGpuStats *stats, char *err, size_t err_len)
{
	PbRasterGpuStats st;
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	EdtPlan		p;
	int		   *host_g = NULL;
	uint8_t    *d_fg = NULL;
	unsigned long long *d_mask = NULL;
	int		   *d_up = NULL,
			   *d_dn = NULL,
			   *d_g = NULL;
	float	   *d_dist = NULL;
	long long  *d_near = NULL;
	char	   *d_scratch = NULL;
	int			rc = -1;
	int			chunk;
	RowArgs		ra;

	memset(&st, 0, sizeof(st));
	memset(&p, 0, sizeof(p));
	if (stats)
		*stats = st;
	if (width < 0 || height < 0 || width > ED_MAX_SIDE || height > ED_MAX_SIDE ||
		!(sy > 0) || !(sx > 0) || !isfinite(sy) || !isfinite(sx))
	{
		snprintf(err, err_len, "invalid distance transform arguments (sides 0 to %d, finite spacing > 0)",
				 ED_MAX_SIDE);
		return -1;
	}
	if (width == 0 || height == 0)
		return 0;
	if (fg == NULL || dist == NULL)
	{
		snprintf(err, err_len, "invalid distance transform arguments (no pixel data)");
		return -1;
	}
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	p.w = width;
	p.h = height;
	if (PlanEdt(&p, c, memory_budget, nearest != NULL, err, err_len) != 0)
		goto fail;
	if (!p.single)
	{
		host_g = (int *) malloc((size_t) p.w * p.h * sizeof(int));
		if (host_g == NULL)
		{
			snprintf(err, err_len, "out of host memory for the column pass of the distance transform");
			goto fail;
		}
	}
	st.tiles = p.single ? 1 : (p.w + p.ws - 1) / p.ws + (p.h + p.hs - 1) / p.hs;

	/* column pass, over column strips */
	RG_TRY(RgAlloc(c, (void **) &d_fg, (size_t) p.ws * p.h), "allocating GPU memory for the image");
	RG_TRY(RgAlloc(c, (void **) &d_mask, (size_t) p.ws * p.nb * 8), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &d_up, (size_t) p.ws * p.nb * sizeof(int)), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &d_dn, (size_t) p.ws * p.nb * sizeof(int)), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &d_g, (size_t) p.ws * p.h * sizeof(int)), "allocating GPU memory for the column rows");
	for (int x0 = 0; x0 < p.w; x0 += p.ws)
	{
		int			sw = p.w - x0 < p.ws ? p.w - x0 : p.ws;
		dim3		blk(32, 8);
		dim3		grd((sw + 31) / 32, (p.nb + 7) / 8);

		if (RgStop(poll, poll_arg))
		{
			rc = 1;
			goto done;
		}
		RG_TRY(RgTimeStart(c), "timing");
		RG_TRY(cudaMemcpy2DAsync(d_fg, sw, fg + x0, p.w, sw, p.h, cudaMemcpyHostToDevice, c->stream),
			   "copying the image to the GPU");
		RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying the image to the GPU");
		RG_TRY(RgTimeStart(c), "timing");
		EdtColMasks<<<grd, blk, 0, c->stream>>>(d_fg, sw, p.h, d_mask);
		EdtColCarry<<<(sw + 127) / 128, 128, 0, c->stream>>>(d_mask, sw, p.nb, d_up, d_dn);
		EdtColRows<<<grd, blk, 0, c->stream>>>(d_mask, d_up, d_dn, sw, p.h, d_g);
		RG_TRY(cudaGetLastError(), "launching the column pass");
		RG_TRY(RgTimeEnd(c, &st.kernel_ms), "running the column pass");
		st.rounds++;
		if (!p.single)
		{
			RG_TRY(RgTimeStart(c), "timing");
			RG_TRY(cudaMemcpy2DAsync(host_g + x0, (size_t) p.w * sizeof(int), d_g, (size_t) sw * sizeof(int),
									 (size_t) sw * sizeof(int), p.h, cudaMemcpyDeviceToHost, c->stream),
				   "copying column rows from the GPU");
			RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying column rows from the GPU");
		}
	}
	RgFree(c, d_fg);
	RgFree(c, d_mask);
	RgFree(c, d_up);
	RgFree(c, d_dn);
	d_fg = NULL;
	d_mask = NULL;
	d_up = d_dn = NULL;
	if (!p.single)
	{
		RgFree(c, d_g);
		d_g = NULL;
		RG_TRY(RgAlloc(c, (void **) &d_g, (size_t) p.w * p.hs * sizeof(int)), "allocating GPU memory for the column rows");
	}

	/* row pass, over row strips */
	RG_TRY(RgAlloc(c, (void **) &d_dist, (size_t) p.w * p.hs * sizeof(float)), "allocating GPU memory for distances");
	if (nearest)
		RG_TRY(RgAlloc(c, (void **) &d_near, (size_t) p.w * p.hs * 8), "allocating GPU memory for nearest pixels");
	if (p.scratch)
		RG_TRY(RgAlloc(c, (void **) &d_scratch, p.scratch), "allocating GPU scratch for wide rows");
	memset(&ra, 0, sizeof(ra));
	ra.w = p.w;
	ra.sy = sy;
	ra.sx = sx;
	ra.scratch = d_scratch;
	chunk = (int) (ED_LAUNCH_PIX / p.w > 0 ? ED_LAUNCH_PIX / p.w : 1);
	for (int y0 = 0; y0 < p.h; y0 += p.hs)
	{
		int			sh = p.h - y0 < p.hs ? p.h - y0 : p.hs;

		if (RgStop(poll, poll_arg))
		{
			rc = 1;
			goto done;
		}
		if (!p.single)
		{
			RG_TRY(RgTimeStart(c), "timing");
			RG_TRY(cudaMemcpyAsync(d_g, host_g + (size_t) y0 * p.w, (size_t) sh * p.w * sizeof(int),
								   cudaMemcpyHostToDevice, c->stream), "copying column rows to the GPU");
			RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying column rows to the GPU");
		}
		/* launches of at most ED_LAUNCH_PIX pixels, polled between */
		for (int r0 = 0; r0 < sh; r0 += chunk)
		{
			int			rows = sh - r0 < chunk ? sh - r0 : chunk;
			int			grid = p.row_grid < rows ? p.row_grid : rows;

			if (r0 > 0 && RgStop(poll, poll_arg))
			{
				rc = 1;
				goto done;
			}
			ra.g = d_g + (size_t) r0 * p.w;
			ra.dist = d_dist + (size_t) r0 * p.w;
			ra.nearest = d_near ? d_near + (size_t) r0 * p.w : NULL;
			ra.rows = rows;
			ra.y0 = y0 + r0;
			RG_TRY(RgTimeStart(c), "timing");
			if (p.shared_rows)
				EdtRows<uint16_t, true><<<grid, ED_T, p.row_smem, c->stream>>>(ra);
			else
				EdtRows<int, false><<<grid, ED_T, 0, c->stream>>>(ra);
			RG_TRY(cudaGetLastError(), "launching the row pass");
			RG_TRY(RgTimeEnd(c, &st.kernel_ms), "running the row pass");
			st.rounds++;
		}
		RG_TRY(RgTimeStart(c), "timing");
		RG_TRY(cudaMemcpyAsync(dist + (size_t) y0 * p.w, d_dist, (size_t) sh * p.w * sizeof(float),
							   cudaMemcpyDeviceToHost, c->stream), "copying distances from the GPU");
		if (nearest)
			RG_TRY(cudaMemcpyAsync(nearest + (size_t) y0 * p.w, d_near, (size_t) sh * p.w * 8,
								   cudaMemcpyDeviceToHost, c->stream), "copying nearest pixels from the GPU");
		RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying results from the GPU");
	}
	rc = 0;
	goto done;
fail:
	rc = -1;
done:
	RgFree(c, d_fg);
	RgFree(c, d_mask);
	RgFree(c, d_up);
	RgFree(c, d_dn);
	RgFree(c, d_g);
	RgFree(c, d_dist);
	RgFree(c, d_near);
	RgFree(c, d_scratch);
	if (cudaStreamSynchronize(c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	RgEnd(c);
	free(host_g);
	if (stats)
		*stats = st;
	return rc;
}
