/*
 * decode_gserialized.c: read PostGIS's on-disk geometry (GSERIALIZED v1 of
 * PostGIS 2, v2 of PostGIS 3) straight into a batch shape.
 *
 * Layout after the varlena header: srid[3], gflags, [8 bytes of extended
 * flags (v2, G2FLAG_EXTENDED)], [bbox: 2 floats per dimension], then the
 * geometry body in native byte order: uint32 type, uint32 count, then for
 * a polygon the ring sizes (padded to 8 bytes) and the doubles.  Anything
 * unexpected is PB_ERR_VERSION so the caller can fall back to EWKB.
 */
#include <string.h>

#include "shape_build.h"

#define GF_Z		0x01
#define GF_M		0x02
#define GF_BBOX		0x04
#define GF_GEODETIC 0x08
#define G2F_EXTENDED 0x10
#define G2F_RESERVED1 0x20
#define GF_VERSION	0x40
#define G2F_RESERVED2 0x80

/* Bytes of a value prefetched before decoding it (a nucleus is ~700). */
#define DECODE_PREFETCH_BYTES 4096

/* Bounded reader over the geometry body. */
typedef struct Reader
{
	const uint8_t *p;
	const uint8_t *end;
	int			dims;
} Reader;

/* Read a native uint32, or fail when the body is too short. */
static int
ReadU32(Reader *r, uint32_t *v)
{
	if (r->end - r->p < 4)
		return 0;
	memcpy(v, r->p, 4);
	r->p += 4;
	return 1;
}

/* Reserve n points of coordinates, or fail when the body is too short. */
static const uint8_t *
TakePoints(Reader *r, uint32_t n)
{
	const uint8_t *start = r->p;
	size_t		bytes = (size_t) n * r->dims * 8;

	if ((size_t) (r->end - r->p) < bytes)
		return NULL;
	r->p += bytes;
	return start;
}

/* Decode one (sub)geometry body into the builder, recursing into collections. */
static PbStatus
DecodeBody(PbShapeBuilder *sb, Reader *r, int depth)
{
	uint32_t	type,
				count;
	const uint8_t *pts;

	if (depth > 32 || !ReadU32(r, &type) || !ReadU32(r, &count))
		return PbBuildFail(sb, PB_ERR_FORMAT, "truncated or too deeply nested geometry");
	switch (type)
	{
		case PB_POINTTYPE:
		case PB_LINETYPE:
			if ((pts = TakePoints(r, count)) == NULL)
				return PbBuildFail(sb, PB_ERR_FORMAT, "truncated %s", PbGeomTypeName(type));
			/* POINT(NaN NaN) is empty, as the EWKB decoder must read it */
			if (type == PB_POINTTYPE && count == 1 && PbBuildPointIsEmpty(pts, r->dims, 0))
				return PB_OK;
			return PbBuildCheckFinite(pts, count, r->dims, 0, sb->err);
		case PB_TRIANGLETYPE:
			if ((pts = TakePoints(r, count)) == NULL)
				return PbBuildFail(sb, PB_ERR_FORMAT, "truncated Triangle");
			return PbBuildRing(sb, pts, count, r->dims, 0, 1);
		case PB_POLYGONTYPE:
			{
				const uint8_t *sizes = r->p;

				if ((size_t) (r->end - r->p) < (size_t) count * 4 + (count & 1) * 4)
					return PbBuildFail(sb, PB_ERR_FORMAT, "truncated Polygon");
				r->p += (size_t) count * 4 + (count & 1) * 4;
				for (uint32_t i = 0; i < count; i++)
				{
					uint32_t	npoints;
					PbStatus	st;

					memcpy(&npoints, sizes + 4 * (size_t) i, 4);
					if ((pts = TakePoints(r, npoints)) == NULL)
						return PbBuildFail(sb, PB_ERR_FORMAT, "truncated Polygon ring");
					if ((st = PbBuildRing(sb, pts, npoints, r->dims, 0, i == 0)) != PB_OK)
						return st;
				}
				return PB_OK;
			}
		case PB_MULTIPOINTTYPE:
		case PB_MULTILINETYPE:
		case PB_MULTIPOLYGONTYPE:
		case PB_COLLECTIONTYPE:
			for (uint32_t i = 0; i < count; i++)
			{
				PbStatus	st = DecodeBody(sb, r, depth + 1);

				if (st != PB_OK)
					return st;
			}
			return PB_OK;
		case PB_CIRCSTRINGTYPE:
		case PB_COMPOUNDTYPE:
		case PB_CURVEPOLYTYPE:
		case PB_MULTICURVETYPE:
		case PB_MULTISURFACETYPE:
		case PB_POLYHEDRALSURFACETYPE:
		case PB_TINTYPE:
			return PbBuildFail(sb, PB_ERR_UNSUPPORTED,
							   "%s geometries are not supported", PbGeomTypeName(type));
		default:
			return PbBuildFail(sb, PB_ERR_VERSION, "unknown geometry type %u", type);
	}
}

/*
 * Decode a GSERIALIZED geometry (data: the bytes after the 4-byte varlena
 * header, len of them) as a new shape of batch b.
 */
PbStatus
PbDecodeGserialized(PbBatch *b, const uint8_t *data, size_t len,
					uint32_t *shape, PbError *err)
{
	PbShapeBuilder sb;
	Reader		r;
	uint8_t		flags;
	int32_t		srid;
	size_t		off = 4;
	uint32_t	type = 0;
	PbStatus	st;

	err->code = PB_ERR_VERSION;
	strcpy(err->message, "unrecognized GSERIALIZED header");
	if (len < 8)
		return PB_ERR_VERSION;
	/*
	 * A value is usually read here first (its page's bytes are cold): ask
	 * for all its cache lines at once, so that the misses overlap instead
	 * of coming one after another as the rings are read.
	 */
	for (size_t at = 64; at < len && at < DECODE_PREFETCH_BYTES; at += 64)
		__builtin_prefetch(data + at);
	flags = data[3];
	/* 0x80 marks a later version whatever the 0x40 bit says (v1 never sets it) */
	if (flags & G2F_RESERVED2)
		return PB_ERR_VERSION;
	if (flags & GF_GEODETIC)
	{
		err->code = PB_ERR_UNSUPPORTED;
		strcpy(err->message, "geography values are not supported");
		return PB_ERR_UNSUPPORTED;
	}
	if (flags & GF_VERSION)
	{
		if (flags & G2F_RESERVED1)
			return PB_ERR_VERSION;
		if (flags & G2F_EXTENDED)
			off += 8;
	}
	r.dims = 2 + ((flags & GF_Z) != 0) + ((flags & GF_M) != 0);
	if (flags & GF_BBOX)
		off += (size_t) r.dims * 2 * sizeof(float);
	if (len < off + 8)
		return PB_ERR_VERSION;
	/* 21-bit SRID, sign-extended as PostGIS does */
	srid = (int32_t) (((uint32_t) (data[0] & 0x1f) << 16) | ((uint32_t) data[1] << 8) | data[2]);
	srid = (int32_t) ((uint32_t) srid << 11) >> 11;
	memcpy(&type, data + off, 4);
	r.p = data + off;
	r.end = data + len;
	PbBuildBegin(&sb, b, (int) type, srid, err);
	st = DecodeBody(&sb, &r, 0);
	if (st == PB_OK && r.p != r.end)
		st = PbBuildFail(&sb, PB_ERR_VERSION, "trailing bytes after geometry");
	if (st != PB_OK)
		return PbBuildAbort(&sb);
	*shape = PbBuildEnd(&sb);
	if (PbBuildCheckParts(&sb) != PB_OK)
		return PbBuildAbort(&sb);
	return PB_OK;
}
