/*
 * shape_build.c: turn raw ring coordinates into a batch shape.
 *
 * Rings are written optimistically as int32 points; the first ring that is
 * not rectilinear with integer vertices within +-2^30 moves the whole shape
 * to double storage.  Areas follow ST_Area: |shell| - sum |holes|.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* Read coordinate k (x=0, y=1, ...) of point i from raw WKB-style doubles. */
static inline double
ReadCoord(const uint8_t *coords, uint32_t i, int dims, int k, int swap)
{
	uint8_t		raw[8];
	double		v;
	const uint8_t *src = coords + ((size_t) i * dims + k) * 8;

	if (swap)
	{
		for (int j = 0; j < 8; j++)
			raw[j] = src[7 - j];
		memcpy(&v, raw, 8);
	}
	else
		memcpy(&v, src, 8);
	return v;
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

/* Fold the points of a ring into the shape's box; return its |area|. */
static double
RingBoxAndArea(PbShape *s, const double *xy, const int32_t *ixy, uint32_t n)
{
	double		x0,
				y0,
				sum = 0.0;

	x0 = ixy ? ixy[0] : xy[0];
	y0 = ixy ? ixy[1] : xy[1];
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	j = (i + 1 == n) ? 0 : i + 1;
		double		xi = ixy ? ixy[2 * i] : xy[2 * i];
		double		yi = ixy ? ixy[2 * i + 1] : xy[2 * i + 1];
		double		xj = ixy ? ixy[2 * j] : xy[2 * j];
		double		yj = ixy ? ixy[2 * j + 1] : xy[2 * j + 1];

		if (xi < s->box.xmin)
			s->box.xmin = xi;
		if (xi > s->box.xmax)
			s->box.xmax = xi;
		if (yi < s->box.ymin)
			s->box.ymin = yi;
		if (yi > s->box.ymax)
			s->box.ymax = yi;
		/* translated shoelace: exact for integer rings of modest size */
		sum += (xi - x0) * (yj - y0) - (xj - x0) * (yi - y0);
	}
	return fabs(sum) / 2.0;
}

/* Try to store a ring as int32 points; 0 when it is not rectilinear integer. */
static int
TryIntRing(PbShapeBuilder *sb, const uint8_t *coords, uint32_t npoints,
		   int dims, int swap)
{
	PbBatch    *b = sb->b;
	int32_t    *out;

	b->ipts = PbGrowArray(b->mem, b->ipts, &b->cap_ipts, b->nipts + npoints,
						  2 * sizeof(int32_t));
	out = b->ipts + 2 * (size_t) b->nipts;
	for (uint32_t i = 0; i < npoints; i++)
	{
		double		x = ReadCoord(coords, i, dims, 0, swap);
		double		y = ReadCoord(coords, i, dims, 1, swap);

		if (!(fabs(x) <= PB_INT_LIMIT && fabs(y) <= PB_INT_LIMIT))
			return 0;
		out[2 * i] = (int32_t) x;
		out[2 * i + 1] = (int32_t) y;
		if ((double) out[2 * i] != x || (double) out[2 * i + 1] != y)
			return 0;
		if (i > 0 && out[2 * i] != out[2 * i - 2] && out[2 * i + 1] != out[2 * i - 1])
			return 0;
	}
	/* the closing edge must be axis-aligned too */
	if (out[0] != out[2 * npoints - 2] && out[1] != out[2 * npoints - 1])
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
			if (!isfinite(ReadCoord(coords, i, dims, k, swap)))
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
 */
PbStatus
PbBuildRing(PbShapeBuilder *sb, const uint8_t *coords, uint32_t npoints,
			int dims, int swap, int is_shell)
{
	PbBatch    *b = sb->b;
	PbShape    *s;
	PbRing	   *ring;
	double		area;

	if (PbBuildCheckFinite(coords, npoints, dims, swap, sb->err) != PB_OK)
		return sb->err->code;
	if (npoints == 0)
		return PB_OK;
	if (sb->is_int && !TryIntRing(sb, coords, npoints, dims, swap))
		SwitchToDouble(sb);
	b->rings = PbGrowArray(b->mem, b->rings, &b->cap_rings, b->nrings + 1,
						   sizeof(PbRing));
	s = &b->shapes[sb->shape];
	ring = &b->rings[b->nrings++];
	ring->npoints = npoints;
	s->nrings++;
	if (sb->is_int)
	{
		ring->start = b->nipts;
		area = RingBoxAndArea(s, NULL, b->ipts + 2 * (size_t) b->nipts, npoints);
		b->nipts += npoints;
	}
	else
	{
		double	   *out;

		b->dpts = PbGrowArray(b->mem, b->dpts, &b->cap_dpts,
							  b->ndpts + npoints, 2 * sizeof(double));
		out = b->dpts + 2 * (size_t) b->ndpts;
		for (uint32_t i = 0; i < npoints; i++)
		{
			out[2 * i] = ReadCoord(coords, i, dims, 0, swap);
			out[2 * i + 1] = ReadCoord(coords, i, dims, 1, swap);
		}
		ring->start = b->ndpts;
		area = RingBoxAndArea(s, out, NULL, npoints);
		b->ndpts += npoints;
	}
	s->area += is_shell ? area : -area;
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
