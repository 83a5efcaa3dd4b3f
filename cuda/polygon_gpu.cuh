/*
 * polygon_gpu.cuh: a submission as the kernels see it, shared by the host
 * driver polygon_host.cu (which packs it) and the kernels, filter_kernels.cu,
 * pixelbox_kernels.cu and bitmap_kernels.cu (which read it), and their
 * launchers.
 * CUDA-only header.
 */
#ifndef PB_POLYGON_GPU_CUH
#define PB_POLYGON_GPU_CUH

#include <stdint.h>

#include "pb_gpu.h"

/* One integer shape: its box and its rings (nrings == 0: not PB_SHAPE_INT). */
struct GShape
{
	int32_t		xmin,
				ymin,
				xmax,
				ymax;
	uint32_t	ring_first,
				nrings;
};

/* One filter part: shapes [base, base + split) against [base + split, base + nshapes). */
struct GFilterPart
{
	uint32_t	part;			/* index of the part in the submission */
	uint32_t	base;			/* its first shape in the packed shapes */
	uint32_t	split,
				nshapes;
	PbBox		ref;			/* window of the reference point */
};

/*
 * Pointers into one packed submission on the device.  The PixelBox kernel
 * computes the host pairs (areas into out), then the first
 * min(*nfound, found_cap) pairs the filter kernel found (areas into found).
 */
struct GBatch
{
	const GShape *shapes;
	const uint2 *rings;			/* (start, npoints) into pts */
	const int2 *pts;
	const uint2 *pairs;			/* host pairs: (shape a, shape b) */
	uint32_t	nhost;
	long long  *out;			/* intersection area per host pair */
	const uint32_t *part_base;	/* first packed shape of each part */
	const GFilterPart *fparts;
	uint32_t	nfparts;
	uint32_t	filter_rows;	/* largest set of a filter part */
	PbDeviceFound *found;			/* filter output, part-local shape indices */
	unsigned long long found_cap;
	unsigned long long *nfound; /* pairs found, also those beyond found_cap */
	/* the bitmap engine's work space (bitmap_kernels.cu), pair_cap slots */
	uint32_t	pair_cap;		/* nhost + found_cap */
	unsigned long long *tiles;	/* tiles of each pair */
	unsigned long long *tile_start; /* its first tile (scan of tiles) */
	uint32_t   *big;			/* pairs left to the PixelBox kernel */
	unsigned   *nbig;
	void	   *scan_tmp;		/* CUB's scan storage, scan_bytes */
	size_t		scan_bytes;
};

/*
 * Packed shape indices of pair pi of a submission: host pair pi, or for
 * pi >= nhost the pair the filter found (part-local indices shifted by
 * its part's first shape).
 */
__device__ static inline uint2
PbPairAt(const GBatch &b, uint32_t pi)
{
	PbDeviceFound f;

	if (pi < b.nhost)
		return b.pairs[pi];
	f = b.found[pi - b.nhost];
	return make_uint2(b.part_base[f.part] + f.a, b.part_base[f.part] + f.b);
}

/* Launch the PixelBox kernel (pixel_only: the PixelOnly variant). */
cudaError_t PbLaunchPixelBox(const GBatch &batch, int pixel_only, int sm_count,
							 cudaStream_t stream);

/*
 * Launch the PixelBox kernel on the pairs subset[0..*nsubset) only (the
 * count is read on the device).
 */
cudaError_t PbLaunchPixelBoxSubset(const GBatch &batch, const uint32_t *subset,
								   const unsigned *nsubset, int sm_count,
								   cudaStream_t stream);

/* Launch the bitmap engine: count, scan, tiles, PixelBox for the largest. */
cudaError_t PbLaunchBitmap(const GBatch &batch, int sm_count, cudaStream_t stream);

/* Device bytes of the bitmap engine's scan storage for n pair slots. */
size_t		PbBitmapScanBytes(size_t n);

/* Launch the MBR filter kernel over the filter parts (none: nothing). */
cudaError_t PbLaunchFilter(const GBatch &batch, int sm_count, cudaStream_t stream);

#endif							/* PB_POLYGON_GPU_CUH */
