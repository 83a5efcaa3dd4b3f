/*
 * label_walk.h: the pixel-edge walk behind label_trace.h and
 * label_polys.h: every boundary of one set of labels of an image, as
 * simple rings with their signed areas, in one raster scan.
 *
 * The walk goes along pixel edges with the label's pixels on its right
 * (image coordinates, y down), so shells have a positive shoelace area
 * and holes a negative one.  Where two pixels of a label touch only at a
 * corner (a saddle) it turns towards the pixel it follows, so corner-
 * touching pixels stay apart; a walk that comes back to a saddle it
 * passed splits off the loop in between, so every ring is simple.  Only
 * turning points are kept: collinear unit edges are one segment.
 *
 * Which ring a hole belongs to is found from the run of pixels above its
 * top-left corner: the ring on the left edge of that run (walks record
 * every run start they pass, the "north" edges) borders the same
 * 4-connected part, and is its shell or a hole of it nearer the top.
 */
#ifndef PB_LABEL_WALK_H
#define PB_LABEL_WALK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"
#include "../geom/ewkb_write.h"

/* An image of labels: 1, 2 or 4 bytes a pixel, or 0 for a mask (nonzero = 1). */
typedef struct PbLabelImage
{
	const void *data;			/* row-major, row 0 at the top */
	uint32_t	width,
				height;
	int			bytes;			/* 0 (mask of bytes), 1, 2 or 4 */
} PbLabelImage;

/* One ring of a label: npts turning points from pts[2 * first]. */
typedef struct PbWalkRing
{
	uint32_t	label;
	uint32_t	npts;
	size_t		first;
	int64_t		area2;			/* twice the signed area: > 0 shell, < 0 hole */
	int32_t		top_x,			/* its top-left corner (least y, then x) */
				top_y;
} PbWalkRing;

/* A run start a walk passed: pixel (x, y)'s left edge is on ring ring. */
typedef struct PbWalkRunStart
{
	int32_t		y,
				x;
	uint32_t	ring;
} PbWalkRunStart;

/*
 * One walker: the labels it owns (group of ngroups, by PbLabelGroup), its
 * rings and run starts, and its scratch.  Every array comes from mem.
 */
typedef struct PbWalker
{
	const PbLabelImage *im;
	const PbAllocator *mem;
	uint8_t    *marks;			/* one byte a pixel, shared by walkers of other groups */
	uint32_t	group,
				ngroups;
	/* poll: asked by the walker that owns it; stop seen by all */
	PbPollFn	poll;
	void	   *poll_arg;
	atomic_int *stop;
	uint32_t	countdown;
	/* the turning points all walkers may keep (NULL: no limit); over it, stop */
	atomic_uint_fast64_t *points;
	uint64_t	max_points;
	int			over_budget;	/* this walker went over it */
	/* results */
	PbWalkRing *rings;
	size_t		nrings,
				cap_rings;
	int32_t    *pts;			/* x, y pairs */
	size_t		npts,
				cap_pts;
	PbWalkRunStart *runs;
	size_t		nruns,
				cap_runs;
	/* the walk in progress: turning points, their saddle flags and run marks */
	int32_t    *stk;
	uint8_t    *stk_saddle;
	size_t	   *stk_runs;
	size_t		nstk,
				cap_stk;
	int32_t    *wruns;			/* x, y of run starts of this walk */
	size_t		nwruns,
				cap_wruns;
} PbWalker;

/* The group (of ngroups) a label belongs to. */
static inline uint32_t
PbLabelGroup(uint32_t label, uint32_t ngroups)
{
	return (uint32_t) (((uint64_t) (label * 2654435761u) * ngroups) >> 32);
}

/*
 * Walk every boundary of the nonzero labels of group w->group, scanning
 * rows in order (so each label's rings come in the same order whatever the
 * grouping).  Returns PB_ERR_STOPPED when the poll (or another walker)
 * said stop; memory comes from w->mem, which never returns NULL.
 */
extern PbStatus PbWalkImage(PbWalker *w);

/* One label's geometry, as PbWalkerGeometries wrote it. */
typedef struct PbWalkLabel
{
	uint32_t	label;
	int64_t		pixels;
	size_t		offset,			/* its EWKB: out->data[offset, offset + len) */
				len;
} PbWalkLabel;

/*
 * Append to out, for every label the walker found (in label order), the
 * EWKB of its rings, vertex (c, r) at (gt[0] + c gt[1] + r gt[2],
 * gt[3] + c gt[4] + r gt[5]) (a GDAL geotransform): a POLYGON when it has
 * one shell, else a MULTIPOLYGON, each shell with its holes; *labels (n of
 * them, from w->mem) says where each is.
 */
extern void PbWalkerGeometries(PbWalker *w, const double gt[6], int32_t srid,
							   PbEwkb *out, PbWalkLabel **labels, size_t *n);

/* Free what a walker holds. */
extern void PbWalkerFree(PbWalker *w);

#endif							/* PB_LABEL_WALK_H */
