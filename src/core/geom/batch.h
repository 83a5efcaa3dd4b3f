/*
 * batch.h: polygons as the core holds them (no PostgreSQL, no CUDA).
 *
 * Geometries are decoded into a PbBatch: a compact, relocatable store of
 * shapes (one per decoded geometry), their rings, and the coordinates of
 * those rings: int32 pairs when every ring is rectilinear with integer
 * vertices (what pixel tracing produces), doubles otherwise.  Pairs of
 * shapes are queued in the batch and their exact intersection areas are
 * computed by the engines in area_*.c.
 *
 * Semantics, the same for every engine (and the GPU kernel):
 *  - the area of a shape is ST_Area's: per polygon |shell| - sum |holes|
 *    (shoelace), summed over polygons;
 *  - a point is inside a shape when a ray from it crosses the shape's rings
 *    (all rings of all polygons) an odd number of times (even-odd rule).
 *    For valid polygons and multipolygons this is the OGC interior; for
 *    invalid ones (bow-ties, self-touching rings, overlapping parts) it is
 *    a documented, deterministic answer;
 *  - the intersection area is the measure of the points inside both.
 *
 * Memory comes from an injected allocator, so PostgreSQL can hand in
 * palloc (freed with its memory context on error) and tests malloc.
 */
#ifndef PB_GEOM_BATCH_H
#define PB_GEOM_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Axis-aligned box, closed, in double coordinates. */
typedef struct PbBox
{
	double		xmin,
				ymin,
				xmax,
				ymax;
} PbBox;

/* How a shape's coordinates are stored. */
typedef enum PbShapeKind
{
	PB_SHAPE_EMPTY = 0,			/* no polygonal part: area 0 */
	PB_SHAPE_INT = 1,			/* rectilinear, integer vertices in +-2^30 */
	PB_SHAPE_DOUBLE = 2			/* anything else */
} PbShapeKind;

/* Integer coordinates kept in the int path are within +-PB_INT_LIMIT. */
#define PB_INT_LIMIT 1073741824.0

/* One ring: npoints coordinates starting at point index start. */
typedef struct PbRing
{
	uint32_t	start;
	uint32_t	npoints;
} PbRing;

/* One decoded geometry. */
typedef struct PbShape
{
	uint8_t		kind;			/* PbShapeKind */
	uint8_t		geomtype;		/* PostGIS type number of the geometry */
	int32_t		srid;
	uint32_t	ring_first;		/* index of first ring in batch->rings */
	uint32_t	nrings;
	double		area;			/* ST_Area of the shape */
	PbBox		box;			/* bounding box of its polygonal parts */
} PbShape;

/* Two shapes (indices into batch->shapes) whose intersection is wanted. */
typedef struct PbPair
{
	uint32_t	a;
	uint32_t	b;
} PbPair;

/*
 * The batch: shapes, rings and points in growable arrays.  Integer shapes
 * store (x, y) pairs in ipts, double shapes in dpts; ring starts index
 * points (not array elements) of the pool of their shape's kind.
 */
typedef struct PbBatch
{
	const PbAllocator *mem;
	PbShape    *shapes;
	uint32_t	nshapes,
				cap_shapes;
	PbRing	   *rings;
	uint32_t	nrings,
				cap_rings;
	int32_t    *ipts;
	uint32_t	nipts,
				cap_ipts;		/* in points */
	double	   *dpts;
	uint32_t	ndpts,
				cap_dpts;		/* in points */
	PbPair	   *pairs;
	uint32_t	npairs,
				cap_pairs;
	uint64_t	serial;			/* new at every PbBatchInit and PbBatchReset: what
								 * its shapes are (0: unknown, nothing cached) */
} PbBatch;

/* batch.c */
extern void PbBatchInit(PbBatch *b, const PbAllocator *mem);
extern void PbBatchReset(PbBatch *b);
extern void PbBatchFree(PbBatch *b);
extern size_t PbBatchBytes(const PbBatch *b);
extern void PbBatchAddPair(PbBatch *b, uint32_t a, uint32_t bb);
/* Make room for this many shapes, rings and points in total. */
extern void PbBatchReserve(PbBatch *b, uint32_t shapes, uint32_t rings,
						   uint32_t ipts, uint32_t dpts);
/* Hint the kernel to back the batch's large arrays with huge pages. */
extern void PbBatchAdviseHuge(PbBatch *b);
/* Append every shape of src (rings and points; not its pairs) to dst. */
extern void PbBatchAppend(PbBatch *dst, const PbBatch *src);

/* Points in all rings of shape s (an upper bound on its edges). */
extern size_t PbShapePoints(const PbBatch *b, const PbShape *s);
/* The intersection of the boxes of p and q (empty when xmax <= xmin). */
extern PbBox PbWindow(const PbShape *p, const PbShape *q);

/* PostGIS geometry type numbers (liblwgeom.h), used in messages too. */
enum
{
	PB_POINTTYPE = 1, PB_LINETYPE, PB_POLYGONTYPE, PB_MULTIPOINTTYPE,
	PB_MULTILINETYPE, PB_MULTIPOLYGONTYPE, PB_COLLECTIONTYPE,
	PB_CIRCSTRINGTYPE, PB_COMPOUNDTYPE, PB_CURVEPOLYTYPE, PB_MULTICURVETYPE,
	PB_MULTISURFACETYPE, PB_POLYHEDRALSURFACETYPE, PB_TRIANGLETYPE,
	PB_TINTYPE
};

/* The PostGIS name of a geometry type number ("Polygon", ...). */
extern const char *PbGeomTypeName(int geomtype);

/* decode_gserialized.c: PostGIS GSERIALIZED v1/v2, bytes after varlena header */
extern PbStatus PbDecodeGserialized(PbBatch *b, const uint8_t *data,
									size_t len, uint32_t *shape,
									PbError *err);

/* decode_ewkb.c: (E)WKB/ISO WKB in either byte order */
extern PbStatus PbDecodeEwkb(PbBatch *b, const uint8_t *data, size_t len,
							 uint32_t *shape, PbError *err);

/* Which engine computes an intersection area. */
typedef enum PbMethod
{
	PB_METHOD_AUTO = 0,			/* fastest exact engine for the pair */
	PB_METHOD_PIXELBOX,			/* PixelBox-CPU (int pairs; else general) */
	PB_METHOD_BITMAP,			/* edge-flag bitmaps (int pairs; else general) */
	PB_METHOD_SWEEP,			/* integer slab sweep (int pairs; else general) */
	PB_METHOD_GENERAL			/* exact slab method on doubles */
} PbMethod;

/* Indexes of large shapes' edges kept across pairs (edge_index.h). */
typedef struct PbEdgeCache PbEdgeCache;
/* The pixels of a shape that pairs in a row share (bitmap_solid.h). */
typedef struct PbSolidCache PbSolidCache;

/* Scratch buffers reused across pairs by the engines. */
typedef struct PbScratch
{
	const PbAllocator *mem;
	void	   *buf[6];
	size_t		cap[6];
	PbEdgeCache *edges;			/* NULL until a large shape is met twice */
	PbSolidCache *solid;		/* NULL until a shape is kept */
	bool		keep_runs;		/* its pairs come in runs that share a shape
								 * (a join's rows): bitmap_solid.h */
} PbScratch;

extern void PbScratchInit(PbScratch *s, const PbAllocator *mem);
extern void PbScratchFree(PbScratch *s);
/* Buffer slot i with at least size bytes (contents not preserved). */
extern void *PbScratchGet(PbScratch *s, int slot, size_t size);
/* Buffer slot i with at least size bytes, keeping its contents. */
extern void *PbScratchGrow(PbScratch *s, int slot, size_t size);

/* Let the caller's interrupt hook run (it may longjmp out of the engine). */
static inline void
PbScratchPoll(const PbScratch *s)
{
	if (s->mem->check_interrupts)
		s->mem->check_interrupts(s->mem->ctx);
}

/* intersect.c: exact area of the intersection of shapes a and b. */
extern double PbIntersectionArea(PbScratch *s, const PbBatch *b, uint32_t a,
								 uint32_t bb, PbMethod method);

/* The engines, each exact for the pairs it accepts. */
extern double PbAreaPixelBox(PbScratch *s, const PbBatch *b,
							 const PbShape *p, const PbShape *q);
extern double PbAreaBitmap(PbScratch *s, const PbBatch *b,
						   const PbShape *p, const PbShape *q);
extern double PbAreaSweep(PbScratch *s, const PbBatch *b,
						  const PbShape *p, const PbShape *q);
extern double PbAreaGeneral(PbScratch *s, const PbBatch *b,
							const PbShape *p, const PbShape *q);

/* Largest bitmap (in 64-bit words per polygon) the auto method uses. */
#define PB_BITMAP_MAX_WORDS 16384

#ifdef __cplusplus
}
#endif

#endif							/* PB_GEOM_BATCH_H */
