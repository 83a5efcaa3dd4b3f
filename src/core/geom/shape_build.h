/*
 * shape_build.h: appending decoded rings to a PbBatch, shared by the
 * GSERIALIZED and WKB decoders.
 */
#ifndef PB_SHAPE_BUILD_H
#define PB_SHAPE_BUILD_H

#include "batch.h"

/* State of one shape being appended to a batch. */
typedef struct PbShapeBuilder
{
	PbBatch    *b;
	uint32_t	shape;			/* index of the shape in b->shapes */
	int			is_int;			/* every ring so far is rectilinear integer */
	uint32_t	ipts_start;		/* first int point of this shape */
	uint32_t	rings_start;	/* batch sizes when the shape began */
	uint32_t	dpts_start;
	uint32_t	shells;			/* polygonal parts (shells, triangles) so far */
	PbError    *err;
} PbShapeBuilder;

/*
 * Polygon coordinates are within +-PB_COORD_LIMIT: differences, their
 * products (orientations, shoelace terms) and sums of those stay far from
 * overflow, so no area or predicate becomes Inf or NaN.
 */
#define PB_COORD_LIMIT 1e150

/* Grow an array to hold need elements (used by batch.c and the builder). */
extern void *PbGrowArray(const PbAllocator *mem, void *arr, uint32_t *cap,
						 uint32_t need, size_t elem);

extern void PbBuildBegin(PbShapeBuilder *sb, PbBatch *b, int geomtype,
						 int32_t srid, PbError *err);
extern PbStatus PbBuildRing(PbShapeBuilder *sb, const uint8_t *coords,
							uint32_t npoints, int dims, int swap,
							int is_shell);
extern int	PbBuildPointIsEmpty(const uint8_t *pt, int dims, int swap);
extern PbStatus PbBuildCheckFinite(const uint8_t *coords, uint32_t npoints,
								   int dims, int swap, PbError *err);
extern uint32_t PbBuildEnd(PbShapeBuilder *sb);
extern PbStatus PbBuildCheckParts(PbShapeBuilder *sb);
extern PbStatus PbBuildAbort(PbShapeBuilder *sb);
extern PbStatus PbBuildFail(PbShapeBuilder *sb, PbStatus code,
							const char *fmt,...) __attribute__((format(printf, 3, 4)));

#endif							/* PB_SHAPE_BUILD_H */
