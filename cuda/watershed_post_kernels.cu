/*
 * watershed_post_kernels.cu: the kernels around the automaton of the GPU
 * watershed: encoding a region's walls and seeds from the staged input
 * rows, and finishing an untiled run on the device:
 * the watershed lines (one bit per pixel, from the labels before any
 * line), then, marker-less, the numbering of the minima (a minimum is
 * labelled by its first pixel's index + 1; the roots, pixels whose label
 * is their own index + 1, are counted per chunk, the counts scanned, and
 * each root's rank written into the key buffer, which every label then
 * looks up).
 */
#include "watershed_gpu.cuh"

/* The grid of an elementwise kernel over n items. */
static unsigned
WsElemGrid(size_t n, int sms)
{
	size_t		g = (n + 255) / 256;
	size_t		most = (size_t) sms * 16;

	return (unsigned) (g < 1 ? 1 : g > most ? most : g);
}

/*
 * Walls and seeds of rows [row0, row0 + nrows) into their keys: walls
 * (wall[i] or NaN) get the wall key and label 0, seeds (mk[i] != 0) the
 * key (lv, WS_DSEED) and their marker.
 */
template <typename T, bool MK>
__global__ void
WsInitRows(const T *img, void *key, uint32_t *lab, int w, int row0, int nrows,
		   const uint8_t *wall, const uint32_t *mk)
{
	typedef typename WsKeyOf<MK>::T K;
	size_t		n = (size_t) w * nrows;

	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		size_t		g = (size_t) row0 * w + i;
		uint32_t	l = WsLevelOf(img[g]);

		if (l == WS_WALL || (wall != NULL && wall[i]))
		{
			((K *) key)[g] = WsWallKey<MK>();
			lab[g] = 0;
		}
		else if (MK && mk != NULL && mk[i] != 0)
		{
			((K *) key)[g] = (K) WsKey(l, WS_DSEED);
			lab[g] = mk[i];
		}
	}
}

/* The initialization of a pixel type for a marker mode. */
template <typename T>
static void
WsInitOf(const WsRegion *r, const uint8_t *wall, const uint32_t *mk, int row0, int nrows,
		 cudaStream_t s, unsigned g)
{
	if (r->mk)
		WsInitRows<T, true><<<g, 256, 0, s>>>((const T *) r->img, r->key, r->lab, r->w, row0,
											  nrows, wall, mk);
	else
		WsInitRows<T, false><<<g, 256, 0, s>>>((const T *) r->img, r->key, r->lab, r->w, row0,
											   nrows, wall, NULL);
}

/* Encode the walls and seeds of staged rows (see watershed_gpu.cuh). */
void
WsLaunchInit(const WsRegion *r, const uint8_t *wall, const uint32_t *mk, int row0, int nrows,
			 cudaStream_t s, int sms)
{
	unsigned	g = WsElemGrid((size_t) r->w * nrows, sms);

	switch (r->type)
	{
		case PB_PIX_16BUI:
			WsInitOf<uint16_t>(r, wall, mk, row0, nrows, s, g);
			break;
		case PB_PIX_32BF:
			WsInitOf<float>(r, wall, mk, row0, nrows, s, g);
			break;
		default:
			WsInitOf<uint8_t>(r, wall, mk, row0, nrows, s, g);
			break;
	}
}

/* Marker-less keys from the CPU's (c, d) keys: their distance parts. */
__global__ void
WsImportD(uint32_t *key, const uint64_t *in, size_t n)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
		key[i] = WsKeyD(in[i]);
}

/* Load the CPU's keys of a whole marker-less region (see watershed_gpu.cuh). */
void
WsLaunchImport(const WsRegion *r, const uint64_t *in, cudaStream_t s, int sms)
{
	size_t		n = (size_t) r->w * r->h;

	WsImportD<<<WsElemGrid(n, sms), 256, 0, s>>>((uint32_t *) r->key, in, n);
}

/*
 * The real keys of region r's updatable rectangle, in the CPU's form,
 * into out (laid out as the region): (INF, INF) for walls, (lv, 0) for
 * seeds, (lv, d) marker-less.
 */
template <typename T, bool MK>
__global__ void
WsExportRect(WsRegion r, uint64_t *out)
{
	typedef typename WsKeyOf<MK>::T K;
	size_t		cols = (size_t) (r.ux1 - r.ux0);
	size_t		n = cols * (size_t) (r.uy1 - r.uy0);

	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		size_t		g = (size_t) (r.uy0 + i / cols) * r.w + r.ux0 + i % cols;
		K			k = ((const K *) r.key)[g];
		uint32_t	l = WsDecode<MK>(((const T *) r.img)[g], &k);

		out[g] = l == WS_WALL ? WsKey(PB_WS_INF, PB_WS_INF) : WsFull<MK>(k, l);
	}
}

/* The export of a pixel type. */
template <typename T>
static void
WsExportOf(const WsRegion *r, uint64_t *out, cudaStream_t s, unsigned g)
{
	if (r->mk)
		WsExportRect<T, true><<<g, 256, 0, s>>>(*r, out);
	else
		WsExportRect<T, false><<<g, 256, 0, s>>>(*r, out);
}

/* Export the keys of a settled region (see watershed_gpu.cuh). */
void
WsLaunchExport(const WsRegion *r, uint64_t *out, cudaStream_t s, int sms)
{
	unsigned	g = WsElemGrid((size_t) (r->ux1 - r->ux0) * (r->uy1 - r->uy0), sms);

	switch (r->type)
	{
		case PB_PIX_16BUI:
			WsExportOf<uint16_t>(r, out, s, g);
			break;
		case PB_PIX_32BF:
			WsExportOf<float>(r, out, s, g);
			break;
		default:
			WsExportOf<uint8_t>(r, out, s, g);
			break;
	}
}

/*
 * Whether pixel (x, y), not a wall, becomes a watershed-line pixel (the
 * line rule of watershed_rules.h): it is labelled and not a seed
 * (marker-less: a minimum, d = INF), and a neighbour of another basin is a
 * seed or was flooded before it.
 */
template <bool MK, bool C8, typename A>
__device__ __forceinline__ bool
WsLine(const A &a, int x, int y)
{
	uint32_t	lv = a.Lv(x, y);
	uint32_t	lab = a.Lab(x, y);
	uint64_t	ku = WsFull<MK>(a.Key(x, y), lv);

	if (lab == 0 || (MK ? lv == WS_SEED : WsKeyD(ku) == PB_WS_INF))
		return false;
#pragma unroll
	for (int j = 0; j < (C8 ? 8 : 4); j++)
	{
		int			nx = x + PbNbDx(j),
					ny = y + PbNbDy(j);
		uint32_t	lvn = a.Lv(nx, ny);
		uint64_t	kv;

		if (lvn == WS_WALL)
			continue;
		if (!WsOtherBasin(lab, a.Lab(nx, ny)))
			continue;
		kv = WsFull<MK>(a.Key(nx, ny), lvn);
		if ((MK ? lvn == WS_SEED : WsKeyD(kv) == PB_WS_INF) ||
			WsFloodedBefore(kv, ku, j))
			return true;
	}
	return false;
}

/* One bit per pixel: whether it becomes a watershed-line pixel. */
template <typename T, bool MK, bool C8>
__global__ void
WsLineBits(WsGlobal<T, MK> r, uint32_t *bits)
{
	size_t		n = (size_t) r.w * r.h;
	size_t		stride = (size_t) gridDim.x * blockDim.x;
	int			lane = threadIdx.x & 31;

	for (size_t b = (blockIdx.x * (size_t) blockDim.x + threadIdx.x) & ~(size_t) 31; b < n;
		 b += stride)
	{
		size_t		i = b + lane;
		bool		line = false;
		unsigned	m;

		if (i < n)
		{
			int			x = (int) (i % r.w),
						y = (int) (i / r.w);

			line = r.Lv(x, y) != WS_WALL && WsLine<MK, C8>(r, x, y);
		}
		m = __ballot_sync(0xffffffffu, line);
		if (lane == 0)
			bits[b / 32] = m;
	}
}

/* Roots (label == index + 1) in each chunk of WS_RANK_CHUNK pixels. */
__global__ void
WsCountRoots(const uint32_t *lab, size_t n, uint32_t *cnt)
{
	__shared__ unsigned s_n;
	size_t		c0 = (size_t) blockIdx.x * WS_RANK_CHUNK;
	unsigned	k = 0;

	if (threadIdx.x == 0)
		s_n = 0;
	__syncthreads();
	for (size_t i = c0 + threadIdx.x; i < c0 + WS_RANK_CHUNK && i < n; i += blockDim.x)
		k += lab[i] == (uint32_t) (i + 1);
	k = __reduce_add_sync(0xffffffffu, k);
	if ((threadIdx.x & 31) == 0 && k)
		atomicAdd(&s_n, k);
	__syncthreads();
	if (threadIdx.x == 0)
		cnt[blockIdx.x] = s_n;
}

/* Exclusive prefix sum of cnt[0, n) in place, one block of 1024 threads. */
__global__ void
__launch_bounds__(1024)
WsScanCounts(uint32_t *cnt, size_t n)
{
	__shared__ uint32_t s_warp[32];
	size_t		per = (n + 1023) / 1024;
	size_t		lo = threadIdx.x * per,
				hi = lo + per < n ? lo + per : n;
	int			lane = threadIdx.x & 31,
				wid = threadIdx.x >> 5;
	uint32_t	sum = 0,
				incl;

	for (size_t i = lo; i < hi; i++)
		sum += cnt[i];
	incl = RgWarpInclusiveSum(sum, lane);
	if (lane == 31)
		s_warp[wid] = incl;
	__syncthreads();
	if (wid == 0)
	{
		uint32_t	v = s_warp[lane];

		s_warp[lane] = RgWarpInclusiveSum(v, lane) - v;	/* exclusive over warps */
	}
	__syncthreads();
	sum = s_warp[wid] + incl - sum; /* exclusive start of this thread */
	for (size_t i = lo; i < hi; i++)
	{
		uint32_t	v = cnt[i];

		cnt[i] = sum;
		sum += v;
	}
}

/*
 * The rank (1, 2, ...) of every root of a chunk, written at the root's
 * index into rank: the roots before the chunk plus those before it in
 * the chunk, plus one.  256 threads per block.
 */
__global__ void
__launch_bounds__(256)
WsWriteRanks(const uint32_t *lab, size_t n, const uint32_t *cnt, uint32_t *rank)
{
	__shared__ uint32_t s_warp[8];
	size_t		c0 = (size_t) blockIdx.x * WS_RANK_CHUNK;
	uint32_t	run = cnt[blockIdx.x];
	int			lane = threadIdx.x & 31,
				wid = threadIdx.x >> 5;

	for (size_t p = c0; p < c0 + WS_RANK_CHUNK && p < n; p += 256)
	{
		size_t		i = p + threadIdx.x;
		bool		root = i < n && lab[i] == (uint32_t) (i + 1);
		unsigned	m = __ballot_sync(0xffffffffu, root);
		uint32_t	before = 0,
					total = 0;

		if (lane == 0)
			s_warp[wid] = __popc(m);
		__syncthreads();
		for (int k = 0; k < 8; k++)
		{
			before += k < wid ? s_warp[k] : 0;
			total += s_warp[k];
		}
		if (root)
			rank[i] = run + before + __popc(m & ((1u << lane) - 1)) + 1;
		run += total;
		__syncthreads();		/* s_warp is reused */
	}
}

/* Labels: 0 on line pixels, else marker-less the rank of their root. */
__global__ void
WsApply(uint32_t *lab, size_t n, const uint32_t *bits, const uint32_t *rank)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		uint32_t	l = lab[i];

		if (bits != NULL && (bits[i / 32] >> (i % 32) & 1))
			l = 0;
		else if (rank != NULL && l != 0)
			l = rank[l - 1];
		lab[i] = l;
	}
}

/* The line bits of a pixel type for a marker mode and connectivity. */
template <typename T>
static void
WsLinesOf(const WsRegion *r, uint32_t *bits, cudaStream_t s, unsigned g)
{
	if (r->mk)
	{
		WsGlobal<T, true> rd = {(const T *) r->img, (const uint64_t *) r->key, r->lab, r->w, r->h};

		if (r->c8)
			WsLineBits<T, true, true><<<g, 256, 0, s>>>(rd, bits);
		else
			WsLineBits<T, true, false><<<g, 256, 0, s>>>(rd, bits);
	}
	else
	{
		WsGlobal<T, false> rd = {(const T *) r->img, (const uint32_t *) r->key, r->lab, r->w, r->h};

		if (r->c8)
			WsLineBits<T, false, true><<<g, 256, 0, s>>>(rd, bits);
		else
			WsLineBits<T, false, false><<<g, 256, 0, s>>>(rd, bits);
	}
}

/* Lines, then the numbering of minima (see watershed_gpu.cuh). */
void
WsLaunchFinish(const WsRegion *r, bool lines, bool number, uint32_t *bits, uint32_t *cnt,
			   cudaStream_t s, int sms)
{
	size_t		n = (size_t) r->w * r->h;
	size_t		chunks = (n + WS_RANK_CHUNK - 1) / WS_RANK_CHUNK;
	unsigned	g = WsElemGrid(n, sms);

	if (lines)
		switch (r->type)
		{
			case PB_PIX_16BUI:
				WsLinesOf<uint16_t>(r, bits, s, g);
				break;
			case PB_PIX_32BF:
				WsLinesOf<float>(r, bits, s, g);
				break;
			default:
				WsLinesOf<uint8_t>(r, bits, s, g);
				break;
		}
	if (number)
	{
		WsCountRoots<<<(unsigned) chunks, 256, 0, s>>>(r->lab, n, cnt);
		WsScanCounts<<<1, 1024, 0, s>>>(cnt, chunks);
		WsWriteRanks<<<(unsigned) chunks, 256, 0, s>>>(r->lab, n, cnt, (uint32_t *) r->key);
	}
	if (lines || number)
		WsApply<<<g, 256, 0, s>>>(r->lab, n, lines ? bits : NULL,
								  number ? (const uint32_t *) r->key : NULL);
}
