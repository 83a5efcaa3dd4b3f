/*
 * decode_ewkb.c: read PostGIS EWKB (and OGC/ISO WKB) in either byte order.
 *
 * This is the portable path: the geometry type's send function produces
 * EWKB whatever PostGIS's internal format is.  Z and M are skipped, like
 * ST_Area does; a POINT EMPTY is written as NaN coordinates and is empty.
 */
#include <string.h>

#include "shape_build.h"

#define EWKB_Z		0x80000000u
#define EWKB_M		0x40000000u
#define EWKB_SRID	0x20000000u

/* Bounded reader over WKB bytes with the current byte order. */
typedef struct WkbReader
{
	const uint8_t *p;
	const uint8_t *end;
	int			swap;
} WkbReader;

/* Return whether this machine stores integers little-endian. */
static int
HostIsLittle(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *) &one == 1;
}

/* Read a uint32 in the reader's byte order, or fail when short. */
static int
WkbU32(WkbReader *r, uint32_t *v)
{
	uint8_t		raw[4];

	if (r->end - r->p < 4)
		return 0;
	for (int i = 0; i < 4; i++)
		raw[i] = r->swap ? r->p[3 - i] : r->p[i];
	memcpy(v, raw, 4);
	r->p += 4;
	return 1;
}

/* Reserve n points of dims doubles, or NULL when short. */
static const uint8_t *
WkbPoints(WkbReader *r, uint32_t n, int dims)
{
	const uint8_t *start = r->p;
	size_t		bytes = (size_t) n * dims * 8;

	if ((size_t) (r->end - r->p) < bytes)
		return NULL;
	r->p += bytes;
	return start;
}

/*
 * Map a WKB type code to PostGIS's type number: they agree up to 12, then
 * WKB says 15 PolyhedralSurface, 16 TIN, 17 Triangle (13/14 are abstract).
 */
static uint32_t
WkbTypeToPostgis(uint32_t type)
{
	switch (type)
	{
		case 15:
			return PB_POLYHEDRALSURFACETYPE;
		case 16:
			return PB_TINTYPE;
		case 17:
			return PB_TRIANGLETYPE;
		case 13:
		case 14:
			return 0;			/* abstract Curve/Surface: never encoded */
		default:
			return type;
	}
}

/* Decode one WKB geometry (header included) into the builder. */
static PbStatus
DecodeWkb(PbShapeBuilder *sb, WkbReader *r, int depth, int *outer_type,
		  int32_t *srid)
{
	uint32_t	raw,
				type,
				count;
	int			dims;
	const uint8_t *pts;

	if (depth > 32 || r->p >= r->end)
		return PbBuildFail(sb, PB_ERR_FORMAT, "truncated or too deeply nested WKB");
	if (r->p[0] > 1)
		return PbBuildFail(sb, PB_ERR_FORMAT, "invalid WKB byte order %u", r->p[0]);
	r->swap = (r->p[0] == 1) != HostIsLittle();
	r->p++;
	if (!WkbU32(r, &raw))
		return PbBuildFail(sb, PB_ERR_FORMAT, "truncated WKB");
	dims = 2 + ((raw & EWKB_Z) != 0) + ((raw & EWKB_M) != 0);
	type = raw & 0x0fffffffu;
	if (type >= 1000 && type < 4000)
	{
		dims = 2 + (type / 1000 == 1 || type / 1000 == 3) + (type / 1000 >= 2);
		type %= 1000;
	}
	if (raw & EWKB_SRID)
	{
		uint32_t	s;

		if (!WkbU32(r, &s))
			return PbBuildFail(sb, PB_ERR_FORMAT, "truncated WKB");
		if (depth == 0)
			*srid = (int32_t) s;
	}
	type = WkbTypeToPostgis(type);
	if (depth == 0)
		*outer_type = (int) type;
	if (type == PB_POINTTYPE)
	{
		if ((pts = WkbPoints(r, 1, dims)) == NULL)
			return PbBuildFail(sb, PB_ERR_FORMAT, "truncated Point");
		return PbBuildPointIsEmpty(pts, dims, r->swap) ? PB_OK
			: PbBuildCheckFinite(pts, 1, dims, r->swap, sb->err);
	}
	if (type < 1 || type > PB_TINTYPE)
		return PbBuildFail(sb, PB_ERR_FORMAT, "unknown WKB geometry type %u", type);
	if (!WkbU32(r, &count))
		return PbBuildFail(sb, PB_ERR_FORMAT, "truncated %s", PbGeomTypeName(type));
	switch (type)
	{
		case PB_LINETYPE:
			if ((pts = WkbPoints(r, count, dims)) == NULL)
				return PbBuildFail(sb, PB_ERR_FORMAT, "truncated LineString");
			return PbBuildCheckFinite(pts, count, dims, r->swap, sb->err);
		case PB_POLYGONTYPE:
		case PB_TRIANGLETYPE:
			for (uint32_t i = 0; i < count; i++)
			{
				uint32_t	npoints;
				PbStatus	st;

				if (!WkbU32(r, &npoints) || (pts = WkbPoints(r, npoints, dims)) == NULL)
					return PbBuildFail(sb, PB_ERR_FORMAT, "truncated %s ring", PbGeomTypeName(type));
				if ((st = PbBuildRing(sb, pts, npoints, dims, r->swap, i == 0)) != PB_OK)
					return st;
			}
			return PB_OK;
		case PB_MULTIPOINTTYPE:
		case PB_MULTILINETYPE:
		case PB_MULTIPOLYGONTYPE:
		case PB_COLLECTIONTYPE:
			for (uint32_t i = 0; i < count; i++)
			{
				PbStatus	st = DecodeWkb(sb, r, depth + 1, outer_type, srid);

				if (st != PB_OK)
					return st;
			}
			return PB_OK;
		default:
			return PbBuildFail(sb, PB_ERR_UNSUPPORTED,
							   "%s geometries are not supported", PbGeomTypeName(type));
	}
}

/* Decode (E)WKB bytes as a new shape of batch b. */
PbStatus
PbDecodeEwkb(PbBatch *b, const uint8_t *data, size_t len, uint32_t *shape,
			 PbError *err)
{
	PbShapeBuilder sb;
	WkbReader	r = {data, data + len, 0};
	int			type = 0;
	int32_t		srid = 0;
	PbStatus	st;

	PbBuildBegin(&sb, b, 0, 0, err);
	st = DecodeWkb(&sb, &r, 0, &type, &srid);
	if (st == PB_OK && r.p != r.end)
		st = PbBuildFail(&sb, PB_ERR_FORMAT, "trailing bytes after WKB geometry");
	if (st != PB_OK)
		return PbBuildAbort(&sb);
	b->shapes[sb.shape].geomtype = (uint8_t) type;
	b->shapes[sb.shape].srid = srid;
	*shape = PbBuildEnd(&sb);
	if (PbBuildCheckParts(&sb) != PB_OK)
		return PbBuildAbort(&sb);
	return PB_OK;
}
