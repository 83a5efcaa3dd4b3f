/*
 * device.h: the device interface of the SCCG pipeline: what the aggregator
 * hands a device (parts of a submission), what a device filter finds, and
 * the operations the aggregator calls.  The GPU implements it in cuda/
 * (cuda/pb_gpu.h); the tests and the glue may wrap it.
 */
#ifndef PB_SCCG_DEVICE_H
#define PB_SCCG_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../geom/batch.h"
#include "../geom/bitmap_rules.h"

#ifdef __cplusplus
extern "C"
{
#endif

/*
 * One source of work in a submission: the shapes of one batch and what to
 * compute on them.  Several parts (the tile tasks of a pipeline, say) go to
 * the device together, so small tasks still fill it.  Only the rings of
 * the batch's shapes are read (each shape's own, from ring_first), so its
 * ring and point arrays may hold others' too: a tile task's batch borrows
 * the arrays of the whole set.
 */
typedef struct PbDevicePart
{
	const PbBatch *batch;		/* the part's shapes (only PB_SHAPE_INT ones are ever paired) */
	uint32_t	nrings,			/* rings and points of its PB_SHAPE_INT shapes */
				nipts;			/* (PbDevicePartCount), what the device gets */
	const PbPair *pairs;		/* pairs to compute, indices into batch->shapes (filter == 0) */
	const uint32_t *pair_idx;	/* if not NULL: compute pairs[pair_idx[k]], k < npairs */
	uint32_t	npairs;

	/*
	 * filter != 0: ignore pairs; instead the device finds every pair (a, b)
	 * with a < split <= b (shapes [0, split) are one set, [split, nshapes)
	 * the other), both PB_SHAPE_INT, whose boxes rounded outward to float4
	 * (as PostGIS stores them: xmin/ymin rounded down, xmax/ymax rounded up)
	 * intersect as closed boxes, and whose reference point (max of the two
	 * float xmins, max of the two float ymins) lies in the half-open window
	 * ref: ref.xmin <= x < ref.xmax and ref.ymin <= y < ref.ymax (compared
	 * in double), and computes their areas.
	 */
	int			filter;
	uint32_t	split;
	PbBox		ref;
} PbDevicePart;

/*
 * Most points a shape may have for its pairs to go to the device.  The
 * PixelBox kernel's work on a pair grows with its points times the boxes
 * it samples, the CPU sweep's as n log n: a 20,000-vertex comb against a
 * box took 14.7 s on an H100 and 1.5 ms on one CPU core.  Nuclei and even
 * merged blobs (~1,400 points) stay far below it.
 */
#define PB_DEVICE_SHAPE_POINTS 4096

/*
 * Most work a shape may bring to the bitmap kernel: the tiles of its box
 * (PbBitmapTiles) times its points plus PB_DEVICE_TILE_COST, the fixed
 * cost of a tile in edge reads.  Every tile of a pair reads both shapes'
 * edges, and a pair's window lies in both boxes, so it has no more tiles
 * than either: no pair of such shapes costs more than twice this (a few
 * milliseconds of one warp).  A merged blob is ~10^4; a 1 Gpx tissue
 * outline of 4,000 points ~5 x 10^8, which the CPU sweep does faster.
 */
#define PB_DEVICE_SHAPE_WORK ((double) (1 << 26))
#define PB_DEVICE_TILE_COST 64

/*
 * Whether shape s of b is one the device computes pairs of: rectilinear
 * integer, not huge (PB_DEVICE_SHAPE_POINTS), and not too much work for
 * its box (PB_DEVICE_SHAPE_WORK).  A pair goes to the device when both of
 * its shapes do; a task may be filtered there when all of its shapes do.
 */
static inline int
PbDeviceShape(const PbBatch *b, const PbShape *s)
{
	size_t		points;
	int64_t		tw,
				th,
				ntx;
	uint64_t	tiles;

	if (s->kind != PB_SHAPE_INT || (points = PbShapePoints(b, s)) > PB_DEVICE_SHAPE_POINTS)
		return 0;
	tiles = PbBitmapTiles((int64_t) (s->box.xmax - s->box.xmin), (int64_t) (s->box.ymax - s->box.ymin),
						  &tw, &th, &ntx);
	return (double) tiles * (double) (points + PB_DEVICE_TILE_COST) <= PB_DEVICE_SHAPE_WORK;
}

/* Set part->nrings and part->nipts from its batch's shapes. */
static inline void
PbDevicePartCount(PbDevicePart *part)
{
	const PbBatch *b = part->batch;

	part->nrings = 0;
	part->nipts = 0;
	for (uint32_t i = 0; i < b->nshapes; i++)
		if (b->shapes[i].kind == PB_SHAPE_INT)
			for (uint32_t r = 0; r < b->shapes[i].nrings; r++)
			{
				part->nrings++;
				part->nipts += b->rings[b->shapes[i].ring_first + r].npoints;
			}
}

/* The part computing pairs pair_idx[0..n) of batch b's pair list, counted. */
static inline PbDevicePart
PbDeviceOnePart(const PbBatch *b, const uint32_t *pair_idx, uint32_t n)
{
	PbDevicePart part;

	memset(&part, 0, sizeof(part));
	part.batch = b;
	part.pairs = b->pairs;
	part.pair_idx = pair_idx;
	part.npairs = n;
	PbDevicePartCount(&part);
	return part;
}

/* One pair found by the device filter, with its area. */
typedef struct PbDeviceFound
{
	uint32_t	part;			/* index of the part in the submission */
	uint32_t	a,
				b;				/* shape indices in that part's batch */
	int64_t		area;
} PbDeviceFound;

/*
 * A device as the aggregator sees it (the GPU through cuda/pb_gpu.h, or a
 * test double).  Called from the aggregator thread only.  stage prepares
 * the parts of the next submission (while the one started before may
 * still run); start waits for the one in flight, whose results are then
 * gone, and starts the staged one; poll returns 1 when done, 0 while
 * running, -1 (with a reason) on failure, after which the pipeline
 * computes on the CPU; results and found read the done submission's.
 * hold and release may be NULL: hold keeps the rings and points of batch
 * src (which the tasks' batches borrow) on the device until release, with
 * nothing in flight or staged, so that parts borrowing them need not send
 * them: 1 held, 0 not (the parts are sent whole, as without it).
 */
typedef struct PbPipeDevice
{
	void	   *ctx;
	const char *name;			/* for the report: "gpu" */
	int			can_filter;		/* takes PbDevicePart.filter parts */
	size_t		budget;			/* bytes a submission may need */
	size_t		(*bytes) (void *ctx, const PbDevicePart *parts, uint32_t n);
	int			(*stage) (void *ctx, const PbDevicePart *parts, uint32_t n,
						  char *err, size_t err_len);
	int			(*start) (void *ctx, char *err, size_t err_len);
	int			(*poll) (void *ctx, char *err, size_t err_len);
	const int64_t *(*results) (void *ctx);
	uint32_t	(*found) (void *ctx, const PbDeviceFound **found);
	int			(*hold) (void *ctx, const PbBatch *src);
	void		(*release) (void *ctx);
} PbPipeDevice;

#ifdef __cplusplus
}
#endif

#endif							/* PB_SCCG_DEVICE_H */
