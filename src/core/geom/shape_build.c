/*
 * shape_build.c: turn raw ring coordinates into a batch shape.
 *
 * Rings are written optimistically as int32 points; the first ring that is
 * not rectilinear with integer vertices within +-2^30 moves the whole shape
 * to double storage.  Areas follow ST_Area: |shell| - sum |holes|.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../base/pb_vector.h"
#include "shape_build.h"

/* Names of PostGIS geometry types, as lwtype_name() prints them. */
static const char *const type_names[] = {
	"Unknown", "Point", "LineString", "Polygon", "MultiPoint",
	"MultiLineString", "MultiPolygon", "GeometryCollection", "CircularString",
	"CompoundCurve", "CurvePolygon", "MultiCurve", "MultiSurface",
	"PolyhedralSurface", "Triangle", "Tin"
};

/* Return the PostGIS name of a geometry type number. */
const char *
PbGeomTypeName(int geomtype)
{
	if (geomtype < 1 || geomtype > PB_TINTYPE)
		return type_names[0];
	return type_names[geomtype];
}

/* Record an error with a formatted message and return its code. */
PbStatus
PbBuildFail(PbShapeBuilder *sb, PbStatus code, const char *fmt,...)
{
	va_list		ap;

	sb->err->code = code;
	va_start(ap, fmt);
	vsnprintf(sb->err->message, sizeof(sb->err->message), fmt, ap);
	va_end(ap);
	return code;
}

/* Start a new shape of the given type and SRID at the end of batch b. */
void
PbBuildBegin(PbShapeBuilder *sb, PbBatch *b, int geomtype, int32_t srid,
			 PbError *err)
{
	PbShape    *s;

	b->shapes = PbGrowArray(b->mem, b->shapes, &b->cap_shapes,
							b->nshapes + 1, sizeof(PbShape));
	s = &b->shapes[b->nshapes];
	memset(s, 0, sizeof(*s));
	s->geomtype = (uint8_t) geomtype;
	s->srid = srid;
	s->ring_first = b->nrings;
	s->box.xmin = s->box.ymin = INFINITY;
	s->box.xmax = s->box.ymax = -INFINITY;
	sb->b = b;
	sb->shape = b->nshapes++;
	sb->is_int = 1;
	sb->ipts_start = b->nipts;
	sb->rings_start = b->nrings;
	sb->dpts_start = b->ndpts;
	sb->shells = 0;
	sb->err = err;
	err->code = PB_OK;
	err->message[0] = '\0';
}

/* Move the shape's int points so far to double storage. */
static void
SwitchToDouble(PbShapeBuilder *sb)
{
	PbBatch    *b = sb->b;
	PbShape    *s = &b->shapes[sb->shape];
	uint32_t	n = b->nipts - sb->ipts_start;
	uint32_t	base = b->ndpts;

	b->dpts = PbGrowArray(b->mem, b->dpts, &b->cap_dpts, base + n,
						  2 * sizeof(double));
	for (uint32_t i = 0; i < 2 * n; i++)
		b->dpts[2 * base + i] = b->ipts[2 * sb->ipts_start + i];
	for (uint32_t r = s->ring_first; r < b->nrings; r++)
		b->rings[r].start = base + (b->rings[r].start - sb->ipts_start);
	b->ndpts += n;
	b->nipts = sb->ipts_start;
	sb->is_int = 0;
}

/* Read one raw double, byte-swapped when swap. */
static inline double
RawDouble(const uint8_t *src, int swap)
{
	uint64_t	bits;
	double		v;

	memcpy(&bits, src, 8);
	if (swap)
		bits = __builtin_bswap64(bits);
	memcpy(&v, &bits, 8);
	return v;
}

/* Grow the shape's box to hold (x0,y0)-(x1,y1). */
static inline void
GrowBox(PbShape *s, double xmin, double ymin, double xmax, double ymax)
{
	if (xmin < s->box.xmin)
		s->box.xmin = xmin;
	if (ymin < s->box.ymin)
		s->box.ymin = ymin;
	if (xmax > s->box.xmax)
		s->box.xmax = xmax;
	if (ymax > s->box.ymax)
		s->box.ymax = ymax;
}

/*
 * One coordinate of the int path: *out is v as an int32 when v is an
 * integer within +-PB_INT_LIMIT; returns 1 otherwise (NaN included), 0
 * when it qualifies.  The conversion adds 1.5 * 2^52, which leaves v
 * rounded to an integer in the low 32 bits of the sum (two's complement):
 * unlike a cast, it is defined for every double and has no branch, so the
 * loops below vectorize over it.
 */
static inline int
IntCoord(double v, int32_t *out)
{
	double		shifted = v + 0x1.8p52;
	uint64_t	bits;
	int32_t		i;

	memcpy(&bits, &shifted, 8);
	i = (int32_t) (uint32_t) bits;
	*out = i;
	return !((v >= -PB_INT_LIMIT) & (v <= PB_INT_LIMIT)) | ((double) i != v);
}

/*
 * Convert n native doubles, 8-byte aligned (a ring as PostGIS stores it:
 * x, y, x, y, ...), to int32 at out; nonzero when one does not qualify
 * (IntCoord).  The decoder's hottest loop, vectorized.
 */
PB_VECTOR_CLONES static int
ConvertAligned(const double *restrict v, size_t n, int32_t *restrict out)
{
	int			bad = 0;

	for (size_t i = 0; i < n; i++)
		bad |= IntCoord(v[i], &out[i]);
	return bad;
}

/* ConvertAligned for any other layout: dims doubles a point, swapped when swap. */
static int
ConvertStrided(const uint8_t *coords, uint32_t n, int dims, int swap, int32_t *out)
{
	size_t		stride = (size_t) dims * 8;
	int			bad = 0;

	for (uint32_t i = 0; i < n; i++)
		bad |= IntCoord(RawDouble(coords + i * stride, swap), &out[2 * i]) |
			IntCoord(RawDouble(coords + i * stride + 8, swap), &out[2 * i + 1]);
	return bad;
}

/* The box (xmin, ymin, xmax, ymax) of n int32 points (n >= 1). */
PB_VECTOR_CLONES static void
IntBox(const int32_t *restrict pts, uint32_t n, int32_t *restrict box)
{
	int32_t		xmin = pts[0],
				ymin = pts[1],
				xmax = pts[0],
				ymax = pts[1];

	for (size_t i = 1; i < n; i++)
	{
		xmin = pts[2 * i] < xmin ? pts[2 * i] : xmin;
		xmax = pts[2 * i] > xmax ? pts[2 * i] : xmax;
		ymin = pts[2 * i + 1] < ymin ? pts[2 * i + 1] : ymin;
		ymax = pts[2 * i + 1] > ymax ? pts[2 * i + 1] : ymax;
	}
	box[0] = xmin;
	box[1] = ymin;
	box[2] = xmax;
	box[3] = ymax;
}

/*
 * A ring's signed area is -sum over its edges of dx * (y - y0): a vertical
 * edge adds 0, and so does the closing edge (it is vertical, or it ends at
 * y0).  Both sums below take edges 1..n-1 of n int32 points and set *bad
 * when one of them is neither horizontal nor vertical.
 *
 * AreaSum64: in int64, with 32-bit differences, for a ring whose box is
 * under 2^31 on each side and whose n terms cannot reach 2^62 together
 * (the caller checks); vectorized.  The sum and the check come back
 * apart: GCC 12 does not vectorize the loop when the |area| is formed
 * in the same function.
 */
PB_VECTOR_CLONES static int64_t
AreaSum64(const int32_t *restrict pts, uint32_t n, int *restrict bad)
{
	int64_t		sum = 0;
	int			b = 0;

	for (size_t i = 1; i < n; i++)
	{
		int32_t		dx = (int32_t) ((uint32_t) pts[2 * i] - (uint32_t) pts[2 * i - 2]);
		int32_t		dy = (int32_t) ((uint32_t) pts[2 * i + 1] - (uint32_t) pts[1]);

		b |= (dx != 0) & (pts[2 * i + 1] != pts[2 * i - 1]);
		sum -= (int64_t) dx * dy;
	}
	*bad = b;
	return sum;
}

/* AreaSum64 for any ring within +-2^30: terms under 2^62 in int64, summed in 128 bits. */
static __int128
AreaSum128(const int32_t *pts, uint32_t n, int *bad)
{
	__int128	sum = 0;
	int			b = 0;

	for (uint32_t i = 1; i < n; i++)
	{
		int64_t		dx = (int64_t) pts[2 * i] - pts[2 * i - 2];

		b |= (dx != 0) & (pts[2 * i + 1] != pts[2 * i - 1]);
		sum -= dx * ((int64_t) pts[2 * i + 1] - pts[1]);
	}
	*bad = b;
	return sum;
}

/*
 * The exact |area| of a ring of n int32 points (n >= 1) with box (xmin,
 * ymin, xmax, ymax), or -1 when an edge (the closing one included) is
 * neither horizontal nor vertical.
 */
static double
RectilinearArea(const int32_t *pts, uint32_t n, const int32_t *box)
{
	double		w = (double) box[2] - box[0],
				h = (double) box[3] - box[1],
				area;
	int			bad;

	if (pts[2 * (size_t) (n - 1)] != pts[0] && pts[2 * (size_t) (n - 1) + 1] != pts[1])
		return -1.0;
	if (w < 0x1p31 && h < 0x1p31 && (double) n * w * h < 0x1p62)
	{
		int64_t		sum = AreaSum64(pts, n, &bad);

		area = (double) (sum < 0 ? -sum : sum);
	}
	else
	{
		__int128	sum = AreaSum128(pts, n, &bad);

		area = (double) (sum < 0 ? -sum : sum);
	}
	return bad ? -1.0 : area;
}

/*
 * Store a ring as int32 points when it is rectilinear with integer
 * vertices within +-2^30, growing the box; return its exact |area|, or -1
 * when it does not qualify.  The points are converted first, then boxed,
 * checked and summed from the int32 copy, each pass without a branch on
 * the data.
 */
static double
TryIntRing(PbShapeBuilder *sb, const uint8_t *coords, uint32_t npoints,
		   int dims, int swap)
{
	PbBatch    *b = sb->b;
	int32_t    *out;
	int32_t		box[4];
	double		area;

	b->ipts = PbGrowArray(b->mem, b->ipts, &b->cap_ipts, b->nipts + npoints,
						  2 * sizeof(int32_t));
	out = b->ipts + 2 * (size_t) b->nipts;
	if (dims == 2 && !swap && ((uintptr_t) coords & 7) == 0
		? ConvertAligned((const double *) coords, 2 * (size_t) npoints, out)
		: ConvertStrided(coords, npoints, dims, swap, out))
		return -1.0;
	IntBox(out, npoints, box);
	if ((area = RectilinearArea(out, npoints, box)) < 0.0)
		return -1.0;
	GrowBox(&b->shapes[sb->shape], box[0], box[1], box[2], box[3]);
	return area;
}

/*
 * Copy a ring as doubles, checking coordinates are within +-PB_COORD_LIMIT
 * (so finite) and growing the box; return
 * its |area| by the shoelace formula, translated to the first point.
 */
static PbStatus
DoubleRing(PbShapeBuilder *sb, const uint8_t *coords, uint32_t npoints,
		   int dims, int swap, double *area)
{
	PbBatch    *b = sb->b;
	double	   *out;
	double		xmin = INFINITY,
				ymin = INFINITY,
				xmax = -INFINITY,
				ymax = -INFINITY,
				sum = 0.0;
	size_t		stride = (size_t) dims * 8;

	b->dpts = PbGrowArray(b->mem, b->dpts, &b->cap_dpts, b->ndpts + npoints,
						  2 * sizeof(double));
	out = b->dpts + 2 * (size_t) b->ndpts;
	for (uint32_t i = 0; i < npoints; i++)
	{
		double		x = RawDouble(coords + i * stride, swap);
		double		y = RawDouble(coords + i * stride + 8, swap);

		if (!(fabs(x) <= PB_COORD_LIMIT && fabs(y) <= PB_COORD_LIMIT))
			return !isfinite(x) || !isfinite(y)
				? PbBuildFail(sb, PB_ERR_NONFINITE,
							  "geometry has a non-finite coordinate (NaN or Infinity)")
				: PbBuildFail(sb, PB_ERR_NONFINITE,
							  "geometry has a polygon coordinate beyond +-1e150, where area arithmetic would overflow");
		out[2 * i] = x;
		out[2 * i + 1] = y;
		xmin = fmin(xmin, x);
		xmax = fmax(xmax, x);
		ymin = fmin(ymin, y);
		ymax = fmax(ymax, y);
		if (i > 0)
			sum += (out[2 * i - 2] - out[0]) * (y - out[1]) - (x - out[0]) * (out[2 * i - 1] - out[1]);
	}
	GrowBox(&b->shapes[sb->shape], xmin, ymin, xmax, ymax);
	*area = fabs(sum) / 2.0;
	return PB_OK;
}

/*
 * Whether a single point (dims raw doubles) is all NaN: WKB writes POINT
 * EMPTY so, and PostGIS takes POINT(NaN NaN) for an empty point too (its
 * ST_Intersection and ST_Area ignore it), so both decoders skip it.
 */
int
PbBuildPointIsEmpty(const uint8_t *pt, int dims, int swap)
{
	for (int k = 0; k < dims; k++)
		if (!isnan(RawDouble(pt + 8 * k, swap)))
			return 0;
	return 1;
}

/* Check that every coordinate of a run of points is finite. */
PbStatus
PbBuildCheckFinite(const uint8_t *coords, uint32_t npoints, int dims, int swap,
				   PbError *err)
{
	for (uint32_t i = 0; i < npoints; i++)
		for (int k = 0; k < dims; k++)
			if (!isfinite(RawDouble(coords + ((size_t) i * dims + k) * 8, swap)))
			{
				err->code = PB_ERR_NONFINITE;
				snprintf(err->message, sizeof(err->message),
						 "geometry has a non-finite coordinate (NaN or Infinity)");
				return PB_ERR_NONFINITE;
			}
	return PB_OK;
}

/*
 * Append one ring (npoints points of dims doubles each, raw bytes, swapped
 * when swap) to the shape; is_shell says whether it adds or removes area.
 * Z and M values are checked for finiteness and otherwise ignored.
 */
PbStatus
PbBuildRing(PbShapeBuilder *sb, const uint8_t *coords, uint32_t npoints,
			int dims, int swap, int is_shell)
{
	PbBatch    *b = sb->b;
	PbRing	   *ring;
	double		area = -1.0;

	if (npoints == 0)
		return PB_OK;
	if (dims > 2 && PbBuildCheckFinite(coords, npoints, dims, swap, sb->err) != PB_OK)
		return sb->err->code;
	if (!sb->is_int || (area = TryIntRing(sb, coords, npoints, dims, swap)) < 0.0)
	{
		if (sb->is_int)
			SwitchToDouble(sb);
		if (DoubleRing(sb, coords, npoints, dims, swap, &area) != PB_OK)
			return sb->err->code;
	}
	b->rings = PbGrowArray(b->mem, b->rings, &b->cap_rings, b->nrings + 1,
						   sizeof(PbRing));
	ring = &b->rings[b->nrings++];
	ring->npoints = npoints;
	if (sb->is_int)
	{
		ring->start = b->nipts;
		b->nipts += npoints;
	}
	else
	{
		ring->start = b->ndpts;
		b->ndpts += npoints;
	}
	b->shapes[sb->shape].nrings++;
	b->shapes[sb->shape].area += is_shell ? area : -area;
	sb->shells += is_shell;
	return PB_OK;
}

/* Finish the shape: decide its kind; return its index in the batch. */
uint32_t
PbBuildEnd(PbShapeBuilder *sb)
{
	PbShape    *s = &sb->b->shapes[sb->shape];

	if (s->nrings == 0)
	{
		s->kind = PB_SHAPE_EMPTY;
		s->box.xmin = s->box.ymin = s->box.xmax = s->box.ymax = 0.0;
	}
	else
		s->kind = sb->is_int ? PB_SHAPE_INT : PB_SHAPE_DOUBLE;
	return sb->shape;
}

/*
 * After PbBuildEnd: fail when the shape is a GeometryCollection whose
 * polygonal parts overlap.  ST_Area sums the parts, counting an overlap
 * twice, while pixelbox's even-odd rule cancels it and GEOS unions the
 * parts (or raises a TopologyException): no answer would match.  The parts
 * overlap exactly when the even-odd area (the shape intersected with
 * itself) falls short of the sum; the tolerance covers the rounding of
 * both (the shoelace's grows with the points and the box).
 */
PbStatus
PbBuildCheckParts(PbShapeBuilder *sb)
{
	PbBatch    *b = sb->b;
	const PbShape *s = &b->shapes[sb->shape];
	PbScratch	scratch;
	double		even_odd,
				slack;

	if (s->geomtype != PB_COLLECTIONTYPE || sb->shells < 2)
		return PB_OK;
	PbScratchInit(&scratch, b->mem);
	even_odd = PbIntersectionArea(&scratch, b, sb->shape, sb->shape, PB_METHOD_AUTO);
	PbScratchFree(&scratch);
	slack = 1e-9 * s->area + 8 * DBL_EPSILON * (double) PbShapePoints(b, s) *
		(s->box.xmax - s->box.xmin) * (s->box.ymax - s->box.ymin);
	if (s->area - even_odd > slack)
		return PbBuildFail(sb, PB_ERR_UNSUPPORTED,
						   "GeometryCollection with overlapping polygons is not supported");
	return PB_OK;
}

/* Drop the partial shape after an error; return the error's code. */
PbStatus
PbBuildAbort(PbShapeBuilder *sb)
{
	sb->b->nshapes = sb->shape;
	sb->b->nrings = sb->rings_start;
	sb->b->nipts = sb->ipts_start;
	sb->b->ndpts = sb->dpts_start;
	return sb->err->code;
}
