/*
 * bitmap_kernels.cu: the edge-flag bitmap engine on the device, the GPU's
 * default for rectilinear integer pairs; the CPU's bitmap engine
 * (src/core/geom/area_bitmap.c) with the same rules
 * (src/core/geom/bitmap_rules.h), cut so that the cost of a pair follows
 * its work and no pair holds up the rest.
 *
 * A pair's window is cut into tiles of at most BM_TILE_WORDS words of 64
 * pixels (BM_MAX_TW words wide), so a nucleus pair is one tile and a
 * merged blob against a blob is many.  One warp computes one tile at a
 * time, with the tile's two bitmaps in shared memory: its lanes flip the
 * edge flags of both shapes (every edge of the rings, read in place),
 * then each lane takes a row, the column prefix XOR is a scan across the
 * lanes (32 rows at a time), the row prefix XOR runs along the lane's
 * row, and the popcount of the AND is summed over the warp and added to
 * the pair's area with one atomic: integer partial areas, so the total is
 * exact and the order of tiles does not matter.
 *
 * Three launches after the filter: BitmapCountKernel gives each pair its
 * number of tiles (and zeroes its area); CUB's device scan turns the
 * counts into each pair's first tile; BitmapTileKernel's warps take the
 * tiles of all pairs in chunks of consecutive tiles, finding a chunk's
 * pair by binary search.  The few pairs with more than BM_MAX_PAIR_TILES
 * tiles (windows of billions of pixels; the device's routing keeps such
 * shapes on the CPU: sccg/device.h) go to the PixelBox kernel, whose
 * sampling boxes skip empty space.
 */
#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>

#include "polygon_gpu.cuh"
#include "../src/core/geom/bitmap_rules.h"

#define BM_WARPS 8				/* warps per block */
#define BM_TILE_WORDS PB_BITMAP_TILE_WORDS	/* words of one shape's bitmap of a tile */
#define BM_MAX_TW PB_BITMAP_TILE_MAX_WIDTH	/* widest tile, in words */
#define BM_CHUNK 8				/* consecutive tiles a warp takes at once */
#define BM_MAX_PAIR_TILES (1ull << 20)	/* more: the PixelBox kernel */
#define BM_COUNT_THREADS 256

/* A pair's window and how it is cut into tiles (PbBitmapTiles). */
struct TileGrid
{
	int64_t		x0,
				y0,
				x1,
				y1;
	int64_t		tw,				/* tile width in words */
				th,				/* tile height in rows */
				ntx;			/* tiles across */
	unsigned long long ntiles;
};

/* The window of shapes p and q and its tiles (none when it is empty). */
__device__ static TileGrid
GridOf(const GShape &p, const GShape &q)
{
	TileGrid	g;

	g.x0 = max(p.xmin, q.xmin);
	g.y0 = max(p.ymin, q.ymin);
	g.x1 = min(p.xmax, q.xmax);
	g.y1 = min(p.ymax, q.ymax);
	g.ntiles = PbBitmapTiles(g.x1 - g.x0, g.y1 - g.y0, &g.tw, &g.th, &g.ntx);
	return g;
}

/* Where pair pi's area goes. */
__device__ static unsigned long long *
AreaOf(const GBatch &b, uint32_t pi)
{
	return pi < b.nhost ? (unsigned long long *) &b.out[pi]
		: (unsigned long long *) &b.found[pi - b.nhost].area;
}

/* Pairs to compute: the host pairs and the found ones (0 on an overflow). */
__device__ static uint32_t
PairCount(const GBatch &b, int *overflow)
{
	unsigned long long nfound = *b.nfound;

	*overflow = nfound > b.found_cap;
	return b.nhost + (uint32_t) (*overflow ? 0 : nfound);
}

/*
 * One thread per pair slot: the pair's tile count (0 past the last pair,
 * and for the pairs handed to the PixelBox kernel), its area zeroed.
 */
__global__ void
BitmapCountKernel(GBatch b)
{
	int			overflow;
	uint32_t	npairs = PairCount(b, &overflow);
	uint32_t	pi = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long n = 0;

	if (pi >= b.pair_cap)
		return;
	if (pi < npairs)
	{
		uint2		pr = PbPairAt(b, pi);

		n = GridOf(b.shapes[pr.x], b.shapes[pr.y]).ntiles;
		*AreaOf(b, pi) = 0;
		if (n > BM_MAX_PAIR_TILES)
		{
			b.big[atomicAdd(b.nbig, 1u)] = pi;
			n = 0;
		}
	}
	b.tiles[pi] = n;
}

/*
 * Flip the edge flags of every ring edge of shape s inside the tile
 * [x0, x1) x [y0, y1) into bm (tw words a row), the warp's lanes taking
 * the points of each ring in turn.
 */
__device__ static void
FlipFlags(const GBatch &b, const GShape &s, unsigned long long *bm, long long tw,
		  long long x0, long long y0, long long x1, long long y1, int lane)
{
	PbEdgeFlags f;

	for (uint32_t r = s.ring_first; r < s.ring_first + s.nrings; r++)
	{
		uint2		rg = b.rings[r];

		for (uint32_t i = lane; i < rg.y; i += 32)
		{
			int2		a = b.pts[rg.x + i];
			int2		c = b.pts[rg.x + (i + 1 == rg.y ? 0 : i + 1)];

			if (PbBitmapEdgeFlags(a.x, a.y, c.x, c.y, x0, y0, x1, y1, &f))
			{
				unsigned long long bit = 1ull << (f.col & 63);

				atomicXor(&bm[f.row_lo * tw + (f.col >> 6)], bit);
				if (f.row_hi < y1 - y0)
					atomicXor(&bm[f.row_hi * tw + (f.col >> 6)], bit);
			}
		}
	}
}

/* Inclusive XOR scan of v across the warp's lanes. */
__device__ static unsigned long long
WarpXorScan(unsigned long long v, int lane)
{
	for (int off = 1; off < 32; off *= 2)
	{
		unsigned long long u = __shfl_up_sync(0xffffffffu, v, off);

		if (lane >= off)
			v ^= u;
	}
	return v;
}

/*
 * The pixels inside both shapes in tile k of pair pi, computed by the
 * whole warp in its bitmaps bm[0..2 * BM_TILE_WORDS), and added to the
 * pair's area.
 */
__device__ static void
TileArea(const GBatch &b, uint32_t pi, unsigned long long k, unsigned long long *bm, int lane)
{
	uint2		pr = PbPairAt(b, pi);
	GShape		p = b.shapes[pr.x],
				q = b.shapes[pr.y];
	TileGrid	g = GridOf(p, q);
	int64_t		kx = (int64_t) (k % (unsigned long long) g.ntx),
				ky = (int64_t) (k / (unsigned long long) g.ntx);
	int64_t		x0 = g.x0 + 64 * g.tw * kx,
				y0 = g.y0 + g.th * ky;
	int64_t		x1 = min(g.x1, x0 + 64 * g.tw),
				y1 = min(g.y1, y0 + g.th);
	int64_t		tw = (x1 - x0 + 63) / 64,
				rows = y1 - y0;
	unsigned long long *bp = bm,
			   *bq = bm + BM_TILE_WORDS;
	unsigned long long cp[BM_MAX_TW] = {0},
				cq[BM_MAX_TW] = {0};
	uint64_t	last = PbBitmapLastMask(x1 - x0);
	unsigned	count = 0;

	for (int64_t i = lane; i < tw * rows; i += 32)
		bp[i] = bq[i] = 0;
	__syncwarp();
	FlipFlags(b, p, bp, tw, x0, y0, x1, y1, lane);
	FlipFlags(b, q, bq, tw, x0, y0, x1, y1, lane);
	__syncwarp();
	for (int64_t r0 = 0; r0 < rows; r0 += 32)
	{
		int64_t		row = r0 + lane;
		int			valid = row < rows;
		uint64_t	rp = 0,
					rq = 0;

#pragma unroll
		for (int w = 0; w < BM_MAX_TW; w++)
		{
			unsigned long long fp,
						fq;
			uint64_t	vp,
						vq,
						both;

			if (w >= tw)
				break;
			fp = WarpXorScan(valid ? bp[row * tw + w] : 0, lane) ^ cp[w];
			fq = WarpXorScan(valid ? bq[row * tw + w] : 0, lane) ^ cq[w];
			cp[w] = __shfl_sync(0xffffffffu, fp, 31);
			cq[w] = __shfl_sync(0xffffffffu, fq, 31);
			vp = PbBitmapPrefixXor(fp, rp);
			vq = PbBitmapPrefixXor(fq, rq);
			rp = vp >> 63;
			rq = vq >> 63;
			both = vp & vq;
			if (w == tw - 1)
				both &= last;
			count += valid ? __popcll(both) : 0;
		}
	}
	for (int off = 16; off > 0; off /= 2)
		count += __shfl_down_sync(0xffffffffu, count, off);
	if (lane == 0 && count)
		atomicAdd(AreaOf(b, pi), (unsigned long long) count);
	__syncwarp();				/* the bitmaps are reused by the next tile */
}

/*
 * The tiles of all pairs, BM_CHUNK consecutive tiles per warp at a time:
 * the chunk's first pair by binary search over the first tiles, the next
 * ones by stepping on.
 */
__global__ void __launch_bounds__(BM_WARPS * 32)
BitmapTileKernel(GBatch b)
{
	__shared__ unsigned long long bits[BM_WARPS][2 * BM_TILE_WORDS];
	int			overflow;
	uint32_t	npairs = PairCount(b, &overflow);
	int			lane = threadIdx.x & 31;
	unsigned long long *bm = bits[threadIdx.x / 32];
	unsigned long long nwarps = (unsigned long long) gridDim.x * BM_WARPS;
	unsigned long long total;

	if (overflow || npairs == 0)
		return;
	total = b.tile_start[b.pair_cap - 1] + b.tiles[b.pair_cap - 1];
	for (unsigned long long t0 = (blockIdx.x * (unsigned long long) BM_WARPS + threadIdx.x / 32) * BM_CHUNK;
		 t0 < total; t0 += nwarps * BM_CHUNK)
	{
		uint32_t	lo = 0,
					hi = npairs;

		/* the last pair whose first tile is at or before t0 */
		while (hi - lo > 1)
		{
			uint32_t	mid = lo + (hi - lo) / 2;

			if (b.tile_start[mid] <= t0)
				lo = mid;
			else
				hi = mid;
		}
		for (unsigned long long t = t0; t < t0 + BM_CHUNK && t < total; t++)
		{
			while (lo + 1 < npairs && b.tile_start[lo + 1] <= t)
				lo++;
			TileArea(b, lo, t - b.tile_start[lo], bm, lane);
		}
	}
}

/* Device bytes of the scan's temporary storage for n pair slots. */
size_t
PbBitmapScanBytes(size_t n)
{
	size_t		bytes = 0;

	if (n > 0)
		cub::DeviceScan::ExclusiveSum(NULL, bytes, (const unsigned long long *) NULL,
									  (unsigned long long *) NULL, n);
	return bytes;
}

/*
 * Launch the bitmap engine on stream: count, scan, tiles, then the PixelBox
 * kernel on the pairs too large for tiles.
 */
cudaError_t
PbLaunchBitmap(const GBatch &batch, int sm_count, cudaStream_t stream)
{
	size_t		scan_bytes = batch.scan_bytes;
	cudaError_t e;

	if (batch.pair_cap == 0)
		return cudaSuccess;
	BitmapCountKernel<<<(batch.pair_cap + BM_COUNT_THREADS - 1) / BM_COUNT_THREADS,
		BM_COUNT_THREADS, 0, stream>>>(batch);
	if ((e = cudaGetLastError()) != cudaSuccess ||
		(e = cub::DeviceScan::ExclusiveSum(batch.scan_tmp, scan_bytes, batch.tiles, batch.tile_start,
										   batch.pair_cap, stream)) != cudaSuccess)
		return e;
	BitmapTileKernel<<<sm_count * 8, BM_WARPS * 32, 0, stream>>>(batch);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	return PbLaunchPixelBoxSubset(batch, batch.big, batch.nbig, sm_count, stream);
}
