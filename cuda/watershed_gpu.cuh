/*
 * watershed_gpu.cuh: what the files of the GPU watershed share (internal
 * to cuda/watershed_*.cu): the device state of one region and how its
 * pixels are encoded and decoded, the automaton (its kernels and their
 * launchers, watershed_ca_kernels.cu; its driver, watershed_ca_host.cu),
 * the loading and finishing kernels (watershed_post_kernels.cu), the
 * copies (pinned_copy.cuh, through the raster side) and the host steps
 * of tiled runs (watershed_tiled_host.cu), all used by PbGpuWatershed
 * (watershed_host.cu).  The rules the kernels apply
 * to decoded pixels are src/core/raster/watershed_rules.h, which the CPU
 * versions apply too.
 *
 * A region is the whole image (untiled) or one tile with a one-pixel halo
 * of its neighbours' current state: only the pixels of its updatable
 * rectangle change, the halo around it is read-only.
 *
 * Device state per pixel: the input pixel itself (its level is
 * computed where read), the key and the label (uint32).  Marker-controlled
 * keys are (c << 32 | d) in a uint64; marker-less ones store only d
 * (uint32), since c(u) = lv(u) there.  Walls and seeds, which never
 * change, are told by a stored d of WS_DSEED, which no real distance
 * reaches (d < pixels <= PB_WS_INF - 2): marker-less it is a wall;
 * marker-controlled (WS_INF, WS_DSEED) is a wall and (lv, WS_DSEED) a
 * seed, whose real key is (lv, 0).  Readers decode a pixel (WsDecode)
 * into a level (WS_WALL, WS_SEED or the level) and its real key.
 */
#ifndef PB_WATERSHED_GPU_CUH
#define PB_WATERSHED_GPU_CUH

#include <stdbool.h>
#include <stdint.h>

#include "raster_gpu_common.cuh"
#include "../src/core/raster/watershed.h"
#include "../src/core/raster/watershed_rules.h"

#define WS_T 32					/* side of the pixel tile of one CA block */
#define WS_THREADS 256			/* threads of a CA block (32 x 8, 4 rows each) */
#define WS_RANK_CHUNK 4096		/* pixels per block when numbering minima */

/* Words of the CA's control array. */
enum
{
	WS_LAST = 0,				/* last round + 1 that activated a tile */
	WS_GRAB = 1,				/* 3 rotating tile counters of the rounds */
	WS_CTL_WORDS = 4
};

/* Device buffers and geometry of one region. */
typedef struct WsRegion
{
	void	   *img;			/* input pixels of type (levels) */
	void	   *key;			/* uint64 marker-controlled, uint32 (d) marker-less */
	uint32_t   *lab;
	void	   *key2;			/* second buffers of the synchronous CA */
	uint32_t   *lab2;
	uint32_t   *act;			/* per CA tile: the last round it must run in */
	uint32_t   *ctl;			/* WS_CTL_WORDS */
	int			w,
				h;				/* region size */
	int			ux0,
				uy0,
				ux1,
				uy1;			/* updatable rectangle */
	int64_t		gx0,
				gy0,
				gw;				/* region origin in the image, image width */
	PbPixType	type;
	bool		mk;				/* marker-controlled */
	bool		c8;				/* 8-connectivity */
} WsRegion;

#define WS_WALL PB_WS_INF		/* decoded level of a wall or NaN pixel */
#define WS_SEED (PB_WS_INF - 1) /* decoded level of a seed (real ones are below) */
#define WS_DSEED (PB_WS_INF - 1)	/* stored d of a seed or wall */
#define WS_KWALL ((uint64_t) PB_WS_INF << 32 | WS_DSEED)	/* stored key of a wall */

/* The stored key type: (c, d) marker-controlled, d alone marker-less. */
template <bool MK>
struct WsKeyOf
{
	typedef uint32_t T;
};

template <>
struct WsKeyOf<true>
{
	typedef uint64_t T;
};

/* The full key (c, d) of a pixel from its stored key and its level. */
template <bool MK>
__device__ __forceinline__ uint64_t
WsFull(typename WsKeyOf<MK>::T k, uint32_t lv)
{
	return MK ? (uint64_t) k : WsKey(lv, (uint32_t) k);
}

/* The level of a pixel value (PbWsLevel without the wall): 8 bits. */
__device__ __forceinline__ uint32_t
WsLevelOf(uint8_t v)
{
	return v;
}

/* 16 bits: the value. */
__device__ __forceinline__ uint32_t
WsLevelOf(uint16_t v)
{
	return v;
}

/* Floats: PbWsFloatLevel (NaN is a wall). */
__device__ __forceinline__ uint32_t
WsLevelOf(float f)
{
	return PbWsFloatLevel(f);
}

/*
 * Decode a pixel from its input value v and stored key *k: its level, or
 * WS_WALL (mask walls and NaN), or WS_SEED with *k made its real key.
 */
template <bool MK, typename T>
__device__ __forceinline__ uint32_t
WsDecode(T v, typename WsKeyOf<MK>::T *k)
{
	uint32_t	l = WsLevelOf(v);

	if ((uint32_t) *k != WS_DSEED || l == WS_WALL)
		return l;
	if constexpr (MK)
	{
		if (*k == WS_KWALL)
			return WS_WALL;
		*k &= 0xFFFFFFFF00000000ull;
		return WS_SEED;
	}
	return WS_WALL;
}

/* The stored key of a wall. */
template <bool MK>
__device__ __forceinline__ typename WsKeyOf<MK>::T
WsWallKey(void)
{
	return (typename WsKeyOf<MK>::T) (MK ? WS_KWALL : WS_DSEED);
}

/*
 * Decoded pixels of a region in global memory (read-only while read);
 * outside the region reads as a wall.
 */
template <typename T, bool MK>
struct WsGlobal
{
	typedef typename WsKeyOf<MK>::T K;
	const T    *img;
	const K    *key;
	const uint32_t *lab;
	int			w,
				h;

	__device__ __forceinline__ uint32_t
	Lv(int x, int y) const
	{
		size_t		g = (size_t) y * w + x;
		K			k;

		if (x < 0 || y < 0 || x >= w || y >= h)
			return WS_WALL;
		k = __ldg(&key[g]);
		return WsDecode<MK>(__ldg(&img[g]), &k);
	}

	__device__ __forceinline__ K
	Key(int x, int y) const
	{
		size_t		g = (size_t) y * w + x;
		K			k = __ldg(&key[g]);

		WsDecode<MK>(__ldg(&img[g]), &k);
		return k;
	}

	__device__ __forceinline__ uint32_t
	Lab(int x, int y) const
	{
		return __ldg(&lab[(size_t) y * w + x]);
	}
};

/* Bytes of one stored key. */
static inline size_t
WsKeyBytes(bool mk)
{
	return mk ? sizeof(uint64_t) : sizeof(uint32_t);
}

/* CA tiles covering a w x h updatable rectangle. */
static inline size_t
WsCaTiles(int64_t w, int64_t h)
{
	return (size_t) ((w + WS_T - 1) / WS_T) * (size_t) ((h + WS_T - 1) / WS_T);
}

/* What a round or a synchronous step works on. */
struct WsCaArgs
{
	const void *img;
	void	   *key;
	uint32_t   *lab;
	int			w,
				h;
	int			ux0,
				uy0,
				ux1,
				uy1;
	int			tiles_x,
				tiles_y;
	unsigned	ntiles;
	uint64_t	gx0,
				gy0,
				gw;
	uint32_t   *act;
	uint32_t   *ctl;
};

/*
 * The launchers of one (pixel type, marker mode, connectivity), all
 * asynchronous on stream s with grid blocks: one block-asynchronous round
 * (blocks of WS_THREADS), one synchronous step from (key_in, lab_in) to
 * (key_out, lab_out) (blocks of 256); and the blocks of each kernel that
 * fit on one multiprocessor.
 */
struct WsCaKernels
{
	void		(*round) (const WsCaArgs &, uint32_t, cudaStream_t, unsigned);
	void		(*step) (const WsCaArgs &, const void *, const uint32_t *, void *, uint32_t *,
						 uint32_t, cudaStream_t, unsigned);
	cudaError_t (*round_occupancy) (int *);
	cudaError_t (*step_occupancy) (int *);
};

/* watershed_ca_kernels.cu: the launchers of region r's automaton. */
WsCaKernels WsCaPick(const WsRegion *r);

/*
 * watershed_ca_host.cu: run the automaton of region r to its fixed point
 * (keys and labels, before numbering and lines): block-asynchronously, or
 * synchronously (key2/lab2 needed) when sync.  0, 1 when poll asked to
 * stop, -1 with a reason in err.
 */
int			WsRunCa(RgCtx *c, const WsRegion *r, bool sync, PbPollFn poll, void *poll_arg,
					PbRasterGpuStats *st, char *err, size_t err_len);

/*
 * Encode the walls (mask, NaN: label 0) and seeds (label: the marker) of
 * rows [row0, row0 + nrows) of region r into their keys, from its pixels
 * and the staged rows of wall and mk (either may be NULL).  Other pixels
 * keep their key and label.  Asynchronous on the stream.
 */
void		WsLaunchInit(const WsRegion *r, const uint8_t *wall, const uint32_t *mk,
						 int row0, int nrows, cudaStream_t s, int sms);

/*
 * Finish a settled region in place on the device: the watershed lines
 * (lines: bits has one bit per pixel of the region) and, marker-less
 * untiled (number), the numbering of the minima (cnt has one word per
 * WS_RANK_CHUNK pixels; the key buffer is reused).  A band of several
 * draws its lines only: its interior rows' are right, as every neighbour
 * they read is in the region; the host numbers the minima of all bands.
 * Asynchronous on the stream.
 */
void		WsLaunchFinish(const WsRegion *r, bool lines, bool number, uint32_t *bits,
						   uint32_t *cnt, cudaStream_t s, int sms);

/*
 * Blocks of a hybrid run (watershed_blocks_host.cu): load the keys of
 * the CPU's form ((c, d) in 64 bits) of the whole marker-less region r
 * from in, on the device (marker-controlled keys have that form
 * already); export the settled keys of its updatable rectangle in that
 * form into out (marker-controlled, out may be r->key itself).  Walls and
 * seeds are encoded after the import (WsLaunchInit) and decoded by the
 * export.  Asynchronous on the stream.
 */
void		WsLaunchImport(const WsRegion *r, const uint64_t *in, cudaStream_t s, int sms);
void		WsLaunchExport(const WsRegion *r, uint64_t *out, cudaStream_t s, int sms);

/* Host, tiled runs: memset on host threads. */
void		WsHostFill(void *p, int v, size_t n);

/* Host, tiled runs: number the minima of marker-less labels; 0 or -1. */
int			WsHostNumber(uint32_t *labels, int64_t n, char *err, size_t err_len);

/* Host, tiled runs: draw the watershed lines into labels; 0 or -1. */
int			WsHostLines(const PbWatershedSpec *spec, const void *keys, uint32_t *labels,
						char *err, size_t err_len);

/* Host: save the border ring of rectangle [x0,x1) x [y0,y1) of a w-wide array. */
void		WsRingSave(const void *a, size_t es, int64_t w, int x0, int y0, int x1, int y1,
					   char *ring);

/* Host: whether that border ring differs from the saved one. */
bool		WsRingChanged(const void *a, size_t es, int64_t w, int x0, int y0, int x1, int y1,
						  const char *ring);

#endif							/* PB_WATERSHED_GPU_CUH */
