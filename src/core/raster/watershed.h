/*
 * watershed.h: the watershed transform of pixelbox, pure C (no
 * PostgreSQL, no CUDA).  One definition, computed three ways with the same
 * labels bit for bit: PbWatershedRef (the synchronous cellular automaton,
 * sequential: the tests' reference, tests/watershed_ref.h), PbWatershedCpu
 * (tiles flooded on threads) and PbGpuWatershed (cuda/, the
 * block-asynchronous automaton).
 *
 * THE DEFINITION (the artifact-free CA-watershed of Quesada-Barriuso et
 * al., with every choice fixed so the result is unique):
 *
 * Pixels.  h(u) is the height of u encoded as an order-preserving uint32
 * level lv(u) (PbWsLevel).  Walls: pixels marked in spec->wall (outside
 * the mask, nodata) and NaN pixels.  Walls get label 0, are nobody's
 * neighbour and carry nothing.  Neighbours of u are the non-wall pixels
 * at these offsets (dx, dy), in this order, which breaks ties:
 *   0 (0,-1) up, 1 (-1,0) left, 2 (1,0) right, 3 (0,1) down,
 *   4 (-1,-1), 5 (1,-1), 6 (-1,1), 7 (1,1)     (4-connectivity: 0..3).
 *
 * Seeds.  Marker-controlled (spec->markers != NULL): every non-wall pixel
 * with markers[u] != 0 is a seed with key (lv(u), 0) and label markers[u].
 * Marker-less: no seeds are given; the seeds are the regional minima,
 * found by the automaton itself (below).
 *
 * Keys.  Every non-seed pixel u gets a key k(u) = (c(u), d(u)) (compared
 * lexicographically; INF = UINT32_MAX in either part), the least solution of
 *   k(u) = min( base(u), min over neighbours v of cand(v, u) ),
 *   cand(v, u) = (lv(u), 0)                  when c(v) < lv(u),
 *              = (c(v), min(d(v) + 1, INF))  otherwise,
 *   base(u) = (lv(u), INF) marker-less, (INF, INF) marker-controlled.
 * c(u) is the flooding level at which u is reached (the lowest possible
 * highest level along a path from a seed; lv(u) itself marker-less) and
 * d(u) the geodesic distance, in steps, from where that level was entered
 * (the paper's distance variable: it splits plateaus between the basins
 * reaching them, which removes the block artifacts).  Keys strictly grow
 * along every step, so the least solution is unique and any update order
 * reaches it.
 *
 * Pointers (the paper's lower neighbour N^F).  For a non-seed u with
 * d(u) < INF, p(u) is the neighbour v with cand(v, u) == k(u) and the
 * smallest (k(v), order index): the steepest way down, then the nearest,
 * then the first in the order above.  Seeds have no pointer.
 *
 * Labels.  A seed keeps its marker label.  Marker-controlled, a pixel with
 * c(u) = INF is unreachable: 0.  Marker-less, the pixels with d(u) = INF
 * are exactly the regional minima (plateaus no lower pixel borders); each
 * 4/8-connected minimum is one basin, numbered 1, 2, ... in row-major order
 * of its first pixel (as scipy.ndimage.label numbers them); these are the
 * marker-less seeds.  Every other pixel takes the label of p(u).
 *
 * Watershed lines (spec->lines).  A labelled non-seed pixel u becomes 0
 * when a neighbour v has a label other than 0 and u's, and v is a seed or
 * (k(v), index(v)) < (k(u), index(u)): of two touching basins, the pixel
 * flooded later gives way.  Seeds never become lines.  The test uses the
 * labels before any line was drawn.
 */
#ifndef PB_WATERSHED_H
#define PB_WATERSHED_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/pb_xpu.h"
#include "image.h"
#include "raster_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_WS_INF UINT32_MAX	/* no level / no distance yet */

/*
 * The most pixels of a watershed: 2^32 (65536 x 65536).
 * A distance d(u) counts the steps of a shortest path of distinct pixels,
 * so d <= n - 1, and d = n - 1 only when that path takes every pixel of
 * the image: one pixel wide or high (PbImage's int32 sides keep those
 * below 2^31 pixels), since a wider image with every pixel on the path is
 * the full grid, whose longest shortest path is w + h - 2 < n - 1.  So d
 * stays below PB_WS_INF.  Pixel indices stay below 2^32: the CPU queue
 * and union-find keep them as uint32.
 */
#define PB_WS_MAX_PIXELS ((uint64_t) 1 << 32)

/*
 * The most pixels of a marker-less watershed on the GPU alone (and in the
 * reference): its provisional labels are a minimum's first pixel index + 1
 * (numbered at the end), which must stay apart from 0 (walls) and
 * PB_WS_INF (no label yet).  The CPU numbers its minima by union-find
 * after the keys, and a hybrid's GPUs take blocks of keys only: they go
 * to PB_WS_MAX_PIXELS.
 */
#define PB_WS_MAX_MINIMA_PIXELS ((uint64_t) PB_WS_INF - 2)

/* The most pixels of a watershed with markers or without, on the GPU alone or not. */
static inline uint64_t
PbWsMaxPixels(bool markers, bool gpu_alone)
{
	return markers || !gpu_alone ? PB_WS_MAX_PIXELS : PB_WS_MAX_MINIMA_PIXELS;
}

/* What to segment. */
typedef struct PbWatershedSpec
{
	PbImage		image;			/* heights: PB_PIX_8BUI, PB_PIX_16BUI or PB_PIX_32BF */
	const uint8_t *wall;		/* NULL, or per pixel nonzero = outside the mask */
	const uint32_t *markers;	/* NULL = marker-less; else 0 or a label per pixel */
	int			connectivity;	/* 4 or 8 */
	bool		lines;			/* draw watershed lines (label 0) */
} PbWatershedSpec;

/*
 * The level of a float height: PbFloatLevel (-0 as +0), PB_WS_INF for NaN
 * (a wall).  Real levels are below PB_WS_INF (+inf maps to 0xFF800000).
 * The CPU versions and the kernels both level floats with it.
 */
PB_XPU uint32_t
PbWsFloatLevel(float f)
{
	return f != f ? PB_WS_INF : PbFloatLevel(f);
}

/*
 * The level of pixel i: the value itself for integer types,
 * PbWsFloatLevel for 32BF; PB_WS_INF for a wall or NaN pixel.
 */
static inline uint32_t
PbWsLevel(const PbWatershedSpec *spec, int64_t i)
{
	if (spec->wall && spec->wall[i])
		return PB_WS_INF;
	switch (spec->image.type)
	{
		case PB_PIX_16BUI:
			return ((const uint16_t *) spec->image.data)[i];
		case PB_PIX_32BF:
			return PbWsFloatLevel(((const float *) spec->image.data)[i]);
		default:
			return ((const uint8_t *) spec->image.data)[i];
	}
}

/*
 * PB_ERR_BADARG unless the spec is one the CPU watershed (and the hybrid)
 * accepts; PbWatershedCheckGpu: one the GPU alone accepts (marker-less,
 * at most PB_WS_MAX_MINIMA_PIXELS).
 */
PbStatus PbWatershedCheck(const PbWatershedSpec *spec);
PbStatus PbWatershedCheckGpu(const PbWatershedSpec *spec);

/*
 * The watershed of spec into labels (width * height, caller's), on
 * run->threads threads in tiles of run->tile (0: default).  PB_ERR_STOPPED
 * when poll asked to stop (labels then unspecified), PB_ERR_NOMEM.
 */
PbStatus PbWatershedCpu(const PbWatershedSpec *spec, uint32_t *labels,
							  const PbRun *run);

/*
 * PbWatershedCpu with its image-sized scratch (14 bytes a pixel with
 * markers: levels, keys, seeds, pointers; marker-less 10, the levels
 * read from the keys, or 14 with lines, for the minima's forest, which
 * otherwise takes the keys' place) from scratch,
 * on the calling thread before any other starts (an allocator that raises
 * leaves nothing behind); NULL: malloc.
 */
PbStatus PbWatershedCpuIn(const PbWatershedSpec *spec, uint32_t *labels,
						  const PbRun *run, const PbAllocator *scratch);

/* The most devices of a hybrid watershed. */
#define PB_WS_MAX_DEVICES 16

/*
 * A device of a hybrid watershed (PbWatershedHybrid), which runs blocks of
 * its key phase.  begin: get ready for spec's image, whose tiles are tile
 * pixels a side; *block gets the side of its blocks in tiles (>= 1, at
 * most max_side pixels); 0, or -1 with a reason.  run: the least keys of
 * interior [x0,x1) x [y0,y1) given the keys around it, read from and
 * written back to key, the CPU version's image-wide keys ((c, d); a
 * seed's (lv, 0); a wall's (INF, INF)), no other pixel's written; 0, 1
 * when poll asked to stop, -1 with a reason (either way the interior's
 * keys then lie between what they were and the answer).  end: release
 * what begin took.  Called from one thread at a time.
 */
typedef struct PbWsDevice
{
	int			(*begin) (void *ctx, const PbWatershedSpec *spec, int tile, int64_t max_side,
						  int *block, char *err, size_t err_len);
	int			(*run) (void *ctx, uint64_t *key, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
						PbPollFn poll, void *poll_arg, char *err, size_t err_len);
	void		(*end) (void *ctx);
	void	   *ctx;
	/* out */
	int64_t		regions;		/* block runs */
	int64_t		pixels;			/* pixels of those blocks */
	double		busy_s;			/* seconds in run() */
	bool		failed;			/* begin or a run failed: err says why */
	char		err[256];
} PbWsDevice;

/* What the CPU threads of a hybrid watershed did. */
typedef struct PbWsHybridStats
{
	int64_t		tiles;			/* tiles of the image */
	int64_t		cpu_runs;		/* tile runs on the CPU threads */
	double		cpu_busy_s;		/* summed over the threads */
	int			cpu_threads;
	double		init_s;			/* seconds of devices begun, levels, seeds, first keys */
	double		keys_s;			/* seconds of the key phase (the devices' part) */
	double		pointers_s;		/* of the CPU threads' pointers after it, */
	double		minima_s;		/* their numbering of the minima (0 with markers), */
	double		labels_s;		/* and their labels and lines */
} PbWsHybridStats;

/*
 * PbWatershedCpuIn with the ndev devices taking blocks of the key phase's
 * tiles from the CPU threads' schedule (tile_sweep.h): each device, on a
 * thread of its own, takes the block with the most tiles to run and runs
 * it as one; run->threads less one per device CPU threads take the
 * tiles.  The keys only decrease to the one least solution, whoever runs
 * what, so the labels are PbWatershedCpu's, bit for bit.  A device that
 * fails stops taking blocks (failed, err) and the others finish its work.
 * stats may be NULL.
 */
PbStatus PbWatershedHybrid(const PbWatershedSpec *spec, uint32_t *labels,
						   const PbRun *run, const PbAllocator *scratch,
						   PbWsDevice *devs, int ndev, PbWsHybridStats *stats);

#ifdef __cplusplus
}
#endif

#endif							/* PB_WATERSHED_H */
