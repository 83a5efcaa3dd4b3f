/*
 * testutil.h: helpers shared by the tests: decoding WKT into a batch,
 * independent truths (shoelace areas and even-odd point tests written
 * here, not taken from the core), comparing shapes, and generators of
 * rectilinear test shapes (traced pixel masks, random orthogonal rings).
 */
#ifndef PB_TEST_UTIL_H
#define PB_TEST_UTIL_H

#include <stdint.h>

#include "../src/core/geom/pb_geom.h"
#include "harness.h"
#include "wkt.h"

/* Append an empty shape to b, standing in for one that failed to decode. */
extern uint32_t DummyShape(PbBatch *b);
/* Decode WKT (as EWKB, NDR or XDR) into b; a failed decode is a failed check (and a dummy shape). */
extern uint32_t DecodeWkt(PbBatch *b, const char *wkt, int xdr);
/* Decode a geometry tree as EWKB; returns the status, shape in *shape. */
extern PbStatus DecodeTg(PbBatch *b, const TGeom *g, int xdr, uint32_t *shape,
						 PbError *err);
/* DecodeTg, a failure being a failed check (and an empty shape). */
extern uint32_t DecodeTgChecked(PbBatch *b, const TGeom *g, int xdr);

/* The tree of a one-ring polygon given as n points xy (ring closed here). */
extern TGeom *TgPolygonOf(const double *xy, int n);
/* Write len bytes to dir/name; return the path (malloc). */
extern char *TestWriteFile(const char *dir, const char *name, const char *data,
						   size_t len);
/* Seconds on a monotonic clock (time bounds in tests). */
extern double TestSeconds(void);

/* ST_Area-style area of a tree by the shoelace formula, in long double. */
extern long double TruthArea(const TGeom *g);
/* Even-odd rule over every ring of every polygon / triangle of g. */
extern int	TruthInside(const TGeom *g, double x, double y);
/* Bounding box of the polygonal parts: xmin, ymin, xmax, ymax. */
extern int	TruthBox(const TGeom *g, double box[4]);
/* Pixels [x0,x1) x [y0,y1) whose centres are inside both a and b. */
extern int64_t TruthPixelsBoth(const TGeom *a, const TGeom *b, int64_t x0,
							   int64_t y0, int64_t x1, int64_t y1);
/* TruthPixelsBoth over the intersection of the boxes of a and b. */
extern double TruthPixelsOverlap(const TGeom *a, const TGeom *b);

/* Point i of ring r (an index into b->rings) of shape s, as doubles. */
extern void ShapePointXY(const PbBatch *b, const PbShape *s, uint32_t r,
						 uint32_t i, double *x, double *y);
/* Whether two decoded shapes have the same kind, rings, points, area, box. */
extern int	SameShape(const PbBatch *ba, uint32_t a, const PbBatch *bb,
					  uint32_t b, int compare_type_srid, char *why, size_t whylen);
/* Whether shape s holds exactly the polygon rings of g (x, y only). */
extern int	ShapeMatchesTree(const PbBatch *b, uint32_t s, const TGeom *g,
							 char *why, size_t whylen);

/* The rings of a decoded shape as a MULTIPOLYGON of one-ring polygons. */
extern TGeom *TreeFromShape(const PbBatch *b, uint32_t s);

/* A W x H pixel mask. */
typedef struct Mask
{
	int			w,
				h;
	uint8_t    *bit;			/* bit[j * w + i] */
} Mask;

extern Mask MaskNew(int w, int h);
extern void MaskFree(Mask *m);
/* Random noise of the given density (0..1). */
extern void MaskNoise(Mask *m, Rng *r, double density);
/* XOR of nrect random rectangles: blobs with holes and islands. */
extern void MaskRects(Mask *m, Rng *r, int nrect);

/*
 * Trace a mask into a MULTIPOLYGON: outer rings (with their holes) of the
 * set cells, vertex (i, j) placed at (xs[i], ys[j]) (strictly increasing).
 * Rings start at a random vertex, keep collinear vertices when
 * keep_collinear, and are reversed at random (orientation must not matter).
 */
extern TGeom *MaskTrace(const Mask *m, const int64_t *xs, const int64_t *ys,
						Rng *r, int keep_collinear);

/*
 * A shape of nrings random rectilinear rings (each 2 * k vertices with
 * coordinates in [x0, x0 + span) x [y0, y0 + span)): self-crossing,
 * overlapping and touching rings included.  Polygons of a multipolygon
 * when multi, else rings of one polygon.
 */
extern TGeom *RandomOrthoShape(Rng *r, int nrings, int maxk, int64_t x0,
							   int64_t y0, int64_t span, int multi);

#endif							/* PB_TEST_UTIL_H */
