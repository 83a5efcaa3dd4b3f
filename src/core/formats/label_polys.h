/*
 * label_polys.h: a whole label image (StarDist, Cellpose: uint8, uint16 or
 * uint32 labels, 0 the background) to one geometry per label, along pixel
 * edges, exactly (label_walk.h), on threads.
 *
 * The labels are split into as many groups as the run has threads (by a
 * hash of the label); each thread scans the image for the boundaries of
 * its group's labels, so every label is walked by one thread and its
 * rings come in raster order whatever the number of threads.  Memory:
 * one byte a pixel of marks beside the image, and the rings.
 */
#ifndef PB_LABEL_POLYS_H
#define PB_LABEL_POLYS_H

#include "label_trace.h"
#include "label_walk.h"

/* The most pixels a label image may have (2^31: 8 GiB of uint32 labels). */
#define PB_LABEL_MAX_PIXELS ((uint64_t) 1 << 31)

/*
 * The corners (polygon vertices) a label image's outlines may have: one
 * per PB_LABEL_PIXELS_PER_CORNER pixels, and at least 2^24.  Real
 * segmentations have one per 15 to 20 pixels (the IHC image's two, at
 * 4096²); an image of single-pixel objects (a checkerboard) has four per
 * pixel, and its polygons would take ~100 bytes a pixel, far more than
 * the image: it is refused before memory grows with it.
 */
#define PB_LABEL_PIXELS_PER_CORNER 4

static inline uint64_t
PbLabelMaxPoints(uint64_t pixels)
{
	uint64_t	n = pixels / PB_LABEL_PIXELS_PER_CORNER;

	return n > ((uint64_t) 1 << 24) ? n : (uint64_t) 1 << 24;
}

/* One label's geometry. */
typedef struct PbLabelShape
{
	uint32_t	label;
	int64_t		pixels;			/* its pixel count (its area in pixels) */
	const uint8_t *ewkb;		/* POLYGON or MULTIPOLYGON, host byte order */
	size_t		len;
} PbLabelShape;

struct PbLabelGroupOut;

/* Every label's geometry, in label order (malloc'd; PbLabelShapesFree). */
typedef struct PbLabelShapes
{
	PbLabelShape *shapes;
	size_t		n;
	struct PbLabelGroupOut *groups;
	uint32_t	ngroups;
} PbLabelShapes;

/*
 * Trace every nonzero label of im (bytes 1, 2 or 4), vertex (c, r) at
 * (gt[0] + c gt[1] + r gt[2], gt[3] + c gt[4] + r gt[5]) with SRID srid,
 * on run->threads threads; run->poll is asked on the calling thread
 * between rows and long walks.  Errors: PB_ERR_BADARG for a size out of
 * range, PB_ERR_NOMEM, PB_ERR_STOPPED; out then holds nothing.
 */
extern PbStatus PbTraceLabels(const PbLabelImage *im, const double gt[6], int32_t srid,
							  const PbRun *run, PbLabelShapes *out, PbError *err);

/* Free what PbTraceLabels returned. */
extern void PbLabelShapesFree(PbLabelShapes *s);

#endif							/* PB_LABEL_POLYS_H */
