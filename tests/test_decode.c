/*
 * test_decode.c: PbDecodeEwkb (EWKB and ISO WKB, both byte orders) and
 * the shapes it builds, checked against the WKT the bytes were written
 * from.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The batch sizes a failed decode must leave alone. */
typedef struct Counts
{
	uint32_t	nshapes,
				nrings,
				nipts,
				ndpts;
} Counts;

static Counts
CountsOf(const PbBatch *b)
{
	Counts		c = {b->nshapes, b->nrings, b->nipts, b->ndpts};

	return c;
}

#define CHECK_COUNTS_SAME(b, c) \
	do { \
		CHECK_INT((b)->nshapes, (c).nshapes); \
		CHECK_INT((b)->nrings, (c).nrings); \
		CHECK_INT((b)->nipts, (c).nipts); \
		CHECK_INT((b)->ndpts, (c).ndpts); \
	} while (0)

/* Decode raw bytes; return the status. */
static PbStatus
DecodeBytes(PbBatch *b, const uint8_t *p, size_t n, uint32_t *shape, PbError *err)
{
	return PbDecodeEwkb(b, p, n, shape, err);
}

/* Check that the decoded shape s holds g's rings, area and box. */
static void
CheckShapeIsTree(const PbBatch *b, uint32_t s, const TGeom *g, const char *wkt)
{
	char		why[200];
	double		box[4] = {1, 1, 0, 0};
	const PbShape *sh = &b->shapes[s];

	pb_test_context("%s", wkt);
	if (!ShapeMatchesTree(b, s, g, why, sizeof(why)))
		pb_check_fail(__FILE__, __LINE__, "rings differ: %s", why);
	CHECK_DBL_EQ(sh->area, (double) TruthArea(g));
	if (TruthBox(g, box))
	{
		CHECK_DBL_EQ(sh->box.xmin, box[0]);
		CHECK_DBL_EQ(sh->box.ymin, box[1]);
		CHECK_DBL_EQ(sh->box.xmax, box[2]);
		CHECK_DBL_EQ(sh->box.ymax, box[3]);
	}
}

static const char *const sample_wkts[] = {
	"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2),(6 6,6 8,8 8,8 6,6 6))",
	"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))",
	"SRID=4326;POLYGON((0 0,4 1,3 5,-1 2,0 0))",
	"GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,5 5),POLYGON((0 0,2 0,2 2,0 2,0 0)))",
	"TRIANGLE((0 0,4 0,0 3,0 0))",
	"SRID=3857;POLYGON Z((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))",
	"POLYGON M((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))",
	"MULTIPOLYGON ZM(((-5 -5 1 2,5 -5 1 2,5 5 1 2,-5 5 1 2,-5 -5 1 2)))",
	"POLYGON((1e12 1e12,1000000000001 1e12,1000000000001 1000000000001.5,1e12 1e12))",
};

/* PostGIS type names, as lwtype_name() spells them. */
void
test_geom_type_names(void)
{
	CHECK(strcmp(PbGeomTypeName(PB_POLYGONTYPE), "Polygon") == 0);
	CHECK(strcmp(PbGeomTypeName(PB_MULTIPOLYGONTYPE), "MultiPolygon") == 0);
	CHECK(strcmp(PbGeomTypeName(PB_CURVEPOLYTYPE), "CurvePolygon") == 0);
	CHECK(strcmp(PbGeomTypeName(PB_TRIANGLETYPE), "Triangle") == 0);
	CHECK(strcmp(PbGeomTypeName(PB_TINTYPE), "Tin") == 0);
	CHECK(strcmp(PbGeomTypeName(0), "Unknown") == 0);
	CHECK(strcmp(PbGeomTypeName(99), "Unknown") == 0);
}

/* NDR and XDR encodings of the same geometry decode to identical shapes. */
void
test_decode_ndr_xdr_identical(void)
{
	PbBatch		b;
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(sample_wkts) / sizeof(sample_wkts[0]); i++)
	{
		TGeom	   *g = TgParse(sample_wkts[i]);
		uint32_t	a = DecodeWkt(&b, sample_wkts[i], 0),
					x = DecodeWkt(&b, sample_wkts[i], 1);

		pb_test_context("%s", sample_wkts[i]);
		if (a == UINT32_MAX || x == UINT32_MAX)
			continue;
		if (!SameShape(&b, a, &b, x, 1, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "NDR/XDR differ: %s", why);
		CheckShapeIsTree(&b, a, g, sample_wkts[i]);
		CHECK_INT(b.shapes[a].srid, g->srid);
		TgFree(g);
	}
	PbBatchFree(&b);
}

/* EWKB Z, M and ZM flags (and SRID flag) decode to the 2-D shape. */
void
test_decode_ewkb_zm_flags_ignored(void)
{
	static const char *const v[] = {
		"POLYGON((0 0,6 0,6 4,0 4,0 0),(1 1,1 2,2 2,2 1,1 1))",
		"SRID=900913;POLYGON Z((0 0 7,6 0 7,6 4 7,0 4 7,0 0 7),(1 1 0,1 2 0,2 2 0,2 1 0,1 1 0))",
		"POLYGON M((0 0 -1,6 0 -1,6 4 -1,0 4 -1,0 0 -1),(1 1 3,1 2 3,2 2 3,2 1 3,1 1 3))",
		"SRID=1;POLYGON ZM((0 0 1 2,6 0 1 2,6 4 1 2,0 4 1 2,0 0 1 2),(1 1 5 5,1 2 5 5,2 2 5 5,2 1 5 5,1 1 5 5))",
	};
	static const int32_t srids[] = {0, 900913, 0, 1};
	PbBatch		b;
	char		why[200];
	uint32_t	base;

	PbBatchInit(&b, &PbMallocAllocator);
	base = DecodeWkt(&b, v[0], 0);
	for (int xdr = 0; xdr < 2; xdr++)
		for (int i = 0; i < 4; i++)
		{
			uint32_t	s = DecodeWkt(&b, v[i], xdr);

			pb_test_context("%s xdr=%d", v[i], xdr);
			if (!SameShape(&b, base, &b, s, 0, why, sizeof(why)))
				pb_check_fail(__FILE__, __LINE__, "differs from 2-D: %s", why);
			CHECK_INT(b.shapes[s].srid, srids[i]);
			CHECK_INT(b.shapes[s].geomtype, PB_POLYGONTYPE);
			CHECK_INT(b.shapes[s].kind, PB_SHAPE_INT);
			CHECK_DBL_EQ(b.shapes[s].area, 23.0);
		}
	PbBatchFree(&b);
}

/* ISO WKB type codes 1003 (Z), 2003 (M), 3003 (ZM), 1006, 3007 decode like 2-D. */
void
test_decode_iso_wkb_types(void)
{
	static const char *const v[] = {
		"POLYGON Z((0 0 1,5 0 1,5 5 1,0 0 1))",
		"POLYGON M((0 0 1,5 0 1,5 5 1,0 0 1))",
		"POLYGON ZM((0 0 1 9,5 0 1 9,5 5 1 9,0 0 1 9))",
		"MULTIPOLYGON Z(((0 0 1,5 0 1,5 5 1,0 0 1)))",
		"GEOMETRYCOLLECTION ZM(POINT ZM(1 1 1 1),POLYGON ZM((0 0 1 9,5 0 1 9,5 5 1 9,0 0 1 9)))",
	};
	static const uint32_t codes[] = {1003, 2003, 3003, 1006, 3007};
	PbBatch		b;
	char		why[200];
	uint32_t	base;

	PbBatchInit(&b, &PbMallocAllocator);
	base = DecodeWkt(&b, "POLYGON((0 0,5 0,5 5,0 0))", 0);
	for (int xdr = 0; xdr < 2; xdr++)
		for (int i = 0; i < 5; i++)
		{
			TGeom	   *g = TgParse(v[i]);
			TWkbOpt		opt = {xdr, 1, 0, 0};
			TBuf		buf = {0};
			uint32_t	s = 0,
						code;
			PbError		err;
			PbStatus	st;

			TgWriteWkb(g, &opt, &buf);
			memcpy(&code, buf.p + 1, 4);
			if (xdr)
				code = __builtin_bswap32(code);
			pb_test_context("%s xdr=%d", v[i], xdr);
			CHECK_INT(code, codes[i]);	/* the writer did write ISO */
			st = DecodeBytes(&b, buf.p, buf.n, &s, &err);
			CHECK_INT(st, PB_OK);
			if (st == PB_OK)
			{
				if (!SameShape(&b, base, &b, s, 0, why, sizeof(why)))
					pb_check_fail(__FILE__, __LINE__, "differs from 2-D: %s", why);
				CHECK_INT(b.shapes[s].geomtype, g->type);
				CHECK_INT(b.shapes[s].srid, 0);
			}
			TBufFree(&buf);
			TgFree(g);
		}
	PbBatchFree(&b);
}

/* The EWKB SRID is read as a signed 32-bit value, in either byte order. */
void
test_decode_ewkb_srid(void)
{
	static const int32_t srids[] = {4326, 1, -1, 999999, 2147483647, -2147483647 - 1, 0};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int xdr = 0; xdr < 2; xdr++)
		for (size_t i = 0; i < sizeof(srids) / sizeof(srids[0]); i++)
		{
			TGeom	   *g = TgParse("POLYGON((0 0,1 0,1 1,0 0))");
			TWkbOpt		opt = {xdr, 0, 1, srids[i]};
			TBuf		buf = {0};
			uint32_t	s = 0;
			PbError		err;

			TgWriteWkb(g, &opt, &buf);
			pb_test_context("srid %d xdr %d", (int) srids[i], xdr);
			CHECK_INT(DecodeBytes(&b, buf.p, buf.n, &s, &err), PB_OK);
			CHECK_INT(b.shapes[s].srid, srids[i]);
			CHECK_DBL_EQ(b.shapes[s].area, 0.5);
			TBufFree(&buf);
			TgFree(g);
		}
	PbBatchFree(&b);
}

/* Only the outermost SRID counts: one given on a member of a collection is skipped. */
void
test_decode_ewkb_nested_srid(void)
{
	/* NDR MULTIPOLYGON, SRID 4326, of one POLYGON carrying SRID 3857 */
	static const uint8_t head[] = {
		1, 6, 0, 0, 0x20, 0xe6, 0x10, 0, 0, 1, 0, 0, 0,
		1, 3, 0, 0, 0x20, 0x11, 0x0f, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0
	};
	static const double pts[8] = {0, 0, 2, 0, 0, 2, 0, 0};
	uint8_t		buf[sizeof(head) + sizeof(pts)];
	PbBatch		b;
	uint32_t	s = 0;
	PbError		err;

	memcpy(buf, head, sizeof(head));
	memcpy(buf + sizeof(head), pts, sizeof(pts));	/* host order: NDR on little-endian hosts */
	PbBatchInit(&b, &PbMallocAllocator);
	CHECK_INT(DecodeBytes(&b, buf, sizeof(buf), &s, &err), PB_OK);
	CHECK_INT(b.shapes[s].srid, 4326);
	CHECK_INT(b.shapes[s].geomtype, PB_MULTIPOLYGONTYPE);
	CHECK_DBL_EQ(b.shapes[s].area, 2.0);
	PbBatchFree(&b);
}

/* A polygon with holes: rings kept in order, area |shell| - sum |holes|. */
void
test_decode_polygon_holes(void)
{
	/* shell counter-clockwise, first hole clockwise, second counter-clockwise */
	const char *wkt = "POLYGON((0 0,20 0,20 10,0 10,0 0),(1 1,1 3,5 3,5 1,1 1),(10 2,12 2,12 8,10 8,10 2))";
	TGeom	   *g = TgParse(wkt);
	PbBatch		b;
	uint32_t	s;

	PbBatchInit(&b, &PbMallocAllocator);
	s = DecodeWkt(&b, wkt, 0);
	CheckShapeIsTree(&b, s, g, wkt);
	CHECK_DBL_EQ(b.shapes[s].area, 200.0 - 8.0 - 12.0);
	CHECK_INT(b.shapes[s].nrings, 3);
	CHECK_INT(b.shapes[s].kind, PB_SHAPE_INT);
	CHECK_INT(b.shapes[s].geomtype, PB_POLYGONTYPE);
	TgFree(g);
	PbBatchFree(&b);
}

/* A multipolygon: every polygon's shell adds, every hole subtracts. */
void
test_decode_multipolygon(void)
{
	const char *wkt = "MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0),(2 2,8 2,8 8,2 8,2 2)),"
		"((4 4,6 4,6 6,4 6,4 4)),((20 0,30 0,30 1,20 1,20 0)),EMPTY)";
	TGeom	   *g = TgParse(wkt);
	PbBatch		b;
	uint32_t	s;

	PbBatchInit(&b, &PbMallocAllocator);
	s = DecodeWkt(&b, wkt, 1);
	CheckShapeIsTree(&b, s, g, wkt);
	CHECK_DBL_EQ(b.shapes[s].area, 100.0 - 36.0 + 4.0 + 10.0);
	CHECK_INT(b.shapes[s].nrings, 4);
	CHECK_INT(b.shapes[s].geomtype, PB_MULTIPOLYGONTYPE);
	TgFree(g);
	PbBatchFree(&b);
}

/* A collection keeps its polygonal parts (nested too); points and lines add nothing, not even to the box. */
void
test_decode_collection_keeps_polygons(void)
{
	const char *wkt = "GEOMETRYCOLLECTION(POINT(100 100),LINESTRING(-50 -50,60 70),"
		"POLYGON((0 0,4 0,4 4,0 4,0 0)),MULTIPOINT(1 1,(200 200)),"
		"MULTILINESTRING((0 0,1 1),(5 5,-9 9)),"
		"GEOMETRYCOLLECTION(MULTIPOLYGON(((10 0,12 0,12 3,10 0))),POINT EMPTY),"
		"POLYGON EMPTY)";
	const char *only = "MULTIPOLYGON(((0 0,4 0,4 4,0 4,0 0)),((10 0,12 0,12 3,10 0)))";
	TGeom	   *g = TgParse(wkt);
	PbBatch		b;
	uint32_t	s,
				t;
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	s = DecodeWkt(&b, wkt, 0);
	t = DecodeWkt(&b, only, 1);
	CheckShapeIsTree(&b, s, g, wkt);
	CHECK_DBL_EQ(b.shapes[s].area, 16.0 + 3.0);
	CHECK_INT(b.shapes[s].geomtype, PB_COLLECTIONTYPE);
	CHECK_DBL_EQ(b.shapes[s].box.xmax, 12.0);
	CHECK_DBL_EQ(b.shapes[s].box.ymin, 0.0);
	if (!SameShape(&b, s, &b, t, 0, why, sizeof(why)))
		pb_check_fail(__FILE__, __LINE__, "collection != its polygons: %s", why);
	TgFree(g);
	PbBatchFree(&b);
}

/* TRIANGLE (WKB type 17, ISO 1017) is a polygonal type; TIN/POLYHEDRALSURFACE are not supported. */
void
test_decode_triangle(void)
{
	static const char *const v[] = {
		"TRIANGLE((0 0,4 0,0 3,0 0))",
		"TRIANGLE Z((0 0 1,4 0 1,0 3 1,0 0 1))",
		"GEOMETRYCOLLECTION(TRIANGLE((0 0,4 0,0 3,0 0)))",
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int iso = 0; iso < 2; iso++)
		for (int xdr = 0; xdr < 2; xdr++)
			for (int i = 0; i < 3; i++)
			{
				TGeom	   *g = TgParse(v[i]);
				TWkbOpt		opt = {xdr, iso, 0, 0};
				TBuf		buf = {0};
				uint32_t	s = 0;
				PbError		err;
				PbStatus	st;

				TgWriteWkb(g, &opt, &buf);
				pb_test_context("%s iso=%d xdr=%d", v[i], iso, xdr);
				st = DecodeBytes(&b, buf.p, buf.n, &s, &err);
				CHECK_INT(st, PB_OK);
				if (st != PB_OK)
					pb_check_fail(__FILE__, __LINE__, "message: %s", err.message);
				else
				{
					CheckShapeIsTree(&b, s, g, v[i]);
					CHECK_DBL_EQ(b.shapes[s].area, 6.0);
					CHECK_INT(b.shapes[s].kind, PB_SHAPE_DOUBLE);
					CHECK_INT(b.shapes[s].geomtype, g->type);
				}
				TBufFree(&buf);
				TgFree(g);
			}
	PbBatchFree(&b);
}

/* Empty geometries of every kind (and WKB POINT EMPTY, NaN coordinates) are PB_SHAPE_EMPTY with area 0. */
void
test_decode_empty(void)
{
	static const char *const v[] = {
		"POLYGON EMPTY", "MULTIPOLYGON EMPTY", "GEOMETRYCOLLECTION EMPTY",
		"POINT EMPTY", "POINT Z EMPTY", "POINT ZM EMPTY", "LINESTRING EMPTY",
		"POINT(1 2)", "LINESTRING(0 0,5 5)", "MULTIPOINT(EMPTY,(1 1))",
		"GEOMETRYCOLLECTION(POINT EMPTY,POLYGON EMPTY,MULTIPOLYGON(EMPTY))",
		"TRIANGLE EMPTY", "MULTILINESTRING((0 0,1 0,1 1,0 0))",
	};
	PbBatch		b;
	PbScratch	sc;
	uint32_t	sq;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	sq = DecodeWkt(&b, "POLYGON((-10 -10,10 -10,10 10,-10 10,-10 -10))", 0);
	for (int xdr = 0; xdr < 2; xdr++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		{
			uint32_t	s = DecodeWkt(&b, v[i], xdr);

			pb_test_context("%s xdr=%d", v[i], xdr);
			if (s == UINT32_MAX)
				continue;
			CHECK_INT(b.shapes[s].kind, PB_SHAPE_EMPTY);
			CHECK_DBL_EQ(b.shapes[s].area, 0.0);
			CHECK_INT(b.shapes[s].nrings, 0);
			for (int m = PB_METHOD_AUTO; m <= PB_METHOD_GENERAL; m++)
			{
				CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, s, sq, (PbMethod) m), 0.0);
				CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, sq, s, (PbMethod) m), 0.0);
			}
		}
	/* a polygon whose only ring has no points */
	{
		TGeom	   *g = TgNew(PB_POLYGONTYPE, 0, 0);
		uint32_t	s = 0;
		PbError		err;

		TgAddRing(g, NULL, 0);
		CHECK_INT(DecodeTg(&b, g, 0, &s, &err), PB_OK);
		CHECK_INT(b.shapes[s].kind, PB_SHAPE_EMPTY);
		TgFree(g);
	}
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* A NaN or infinite coordinate in any part fails with PB_ERR_NONFINITE and its message, leaving the batch as it was. */
void
test_decode_nonfinite(void)
{
	static const char *const v[] = {
		"POLYGON((0 0,nan 0,1 1,0 0))",
		"POLYGON((0 0,1 0,1 inf,0 0))",
		"POLYGON((0 0,10 0,10 10,0 0),(1 1,2 1,2 -inf,1 1))",
		"MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 nan,5 5)))",
		"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 0)),LINESTRING(0 0,inf 1))",
		"GEOMETRYCOLLECTION(POINT(nan 1),POLYGON((0 0,1 0,1 1,0 0)))",
		"POINT(1 nan)",
		"POINT(inf inf)",
		"MULTIPOINT((1 1),(nan 2))",
		"POLYGON((0 0,2 0,2 2,0 2,0 0),(0.5 0.5,1 0.5,1 1,nan 1,0.5 0.5))",
		"TRIANGLE((0 0,1 0,inf 1,0 0))",
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	DecodeWkt(&b, "POLYGON((0 0,1 0,1 1,0 1,0 0))", 0);
	DecodeWkt(&b, "POLYGON((0 0,1 0,1 1.5,0 0))", 0);
	for (int xdr = 0; xdr < 2; xdr++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		{
			TGeom	   *g = TgParse(v[i]);
			Counts		c = CountsOf(&b);
			uint32_t	s = 12345;
			PbError		err;

			pb_test_context("%s xdr=%d", v[i], xdr);
			CHECK_INT(DecodeTg(&b, g, xdr, &s, &err), PB_ERR_NONFINITE);
			CHECK_INT(err.code, PB_ERR_NONFINITE);
			CHECK_STR_HAS(err.message, "non-finite");
			CHECK_INT(s, 12345);
			CHECK_COUNTS_SAME(&b, c);
			TgFree(g);
		}
	PbBatchFree(&b);
}

/* Bases for the truncation and fuzz loops. */
static const char *const fuzz_wkts[] = {
	"SRID=4326;POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))",
	"MULTIPOLYGON Z(((0 0 1,3 0 1,3 3 1,0 0 1)),((5 5 0,9 5 0,9 7 0,5 5 0)))",
	"GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,5 5),POLYGON((0 0,2.5 0,2 2,0 0)),GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 0))))",
	"TRIANGLE((0 0,4 0,0 3,0 0))",
	"POLYGON M((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))",
};

/* Every strict prefix of a valid WKB is PB_ERR_FORMAT, with the batch untouched. */
void
test_decode_truncated_every_length(void)
{
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	DecodeWkt(&b, "POLYGON((0 0,1 0,1 1,0 1,0 0))", 0);
	for (size_t i = 0; i < sizeof(fuzz_wkts) / sizeof(fuzz_wkts[0]); i++)
		for (int xdr = 0; xdr < 2; xdr++)
		{
			TBuf		buf = {0};

			WktToWkb(fuzz_wkts[i], xdr, &buf);
			for (size_t len = 0; len < buf.n; len++)
			{
				/* a copy of exactly len bytes, so ASan sees any over-read */
				uint8_t    *p = malloc(len ? len : 1);
				Counts		c = CountsOf(&b);
				uint32_t	s;
				PbError		err;
				PbStatus	st;

				memcpy(p, buf.p, len);
				pb_test_context("%s xdr=%d len=%zu", fuzz_wkts[i], xdr, len);
				st = DecodeBytes(&b, p, len, &s, &err);
				CHECK_INT(st, PB_ERR_FORMAT);
				CHECK_INT(err.code, PB_ERR_FORMAT);
				CHECK(err.message[0] != '\0');
				CHECK_COUNTS_SAME(&b, c);
				free(p);
			}
			TBufFree(&buf);
		}
	PbBatchFree(&b);
}

/* A decoded shape's rings and points lie inside the batch's arrays. */
static void
CheckShapeSane(const PbBatch *b, uint32_t s)
{
	const PbShape *sh = &b->shapes[s];

	CHECK(s < b->nshapes);
	CHECK(sh->ring_first + sh->nrings <= b->nrings);
	CHECK(sh->kind <= PB_SHAPE_DOUBLE);
	CHECK((sh->kind == PB_SHAPE_EMPTY) == (sh->nrings == 0));
	for (uint32_t r = sh->ring_first; r < sh->ring_first + sh->nrings && r < b->nrings; r++)
		CHECK((uint64_t) b->rings[r].start + b->rings[r].npoints <=
			  (sh->kind == PB_SHAPE_INT ? b->nipts : b->ndpts));
	CHECK(sh->kind != PB_SHAPE_EMPTY || sh->area == 0);
}

/*
 * Run the engines on a fuzzed shape with itself: any small shape must not
 * crash them; a small int one must follow even-odd on whatever rings came
 * out (brute force).  Returns whether it was checked against brute force.
 */
static int
CheckFuzzedEngines(PbBatch *b, PbScratch *sc, uint32_t s)
{
	const PbBox *bx = &b->shapes[s].box;
	TGeom	   *g;
	double		truth;

	if (b->shapes[s].kind == PB_SHAPE_EMPTY || bx->xmax - bx->xmin >= 1e6 ||
		bx->ymax - bx->ymin >= 1e6)
		return 0;
	(void) PbIntersectionArea(sc, b, s, s, PB_METHOD_AUTO);
	if (b->shapes[s].kind != PB_SHAPE_INT || bx->xmax - bx->xmin > 64 ||
		bx->ymax - bx->ymin > 64)
		return 0;
	g = TreeFromShape(b, s);
	truth = (double) TruthPixelsBoth(g, g, (int64_t) bx->xmin, (int64_t) bx->ymin,
									 (int64_t) bx->xmax, (int64_t) bx->ymax);
	for (int m = PB_METHOD_AUTO; m <= PB_METHOD_GENERAL; m++)
		CHECK_DBL_EQ(PbIntersectionArea(sc, b, s, s, (PbMethod) m), truth);
	TgFree(g);
	return 1;
}

/* Random byte changes never crash; failures leave the batch alone, successes are consistent. */
void
test_decode_fuzzed_bytes(void)
{
	Rng			rng = {42};
	PbBatch		b;
	PbScratch	sc;
	int			nok = 0,
				nfail = 0,
				nint = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(fuzz_wkts) / sizeof(fuzz_wkts[0]); i++)
		for (int xdr = 0; xdr < 2; xdr++)
		{
			TBuf		buf = {0};

			WktToWkb(fuzz_wkts[i], xdr, &buf);
			for (int iter = 0; iter < 1500; iter++)
			{
				uint8_t    *p = malloc(buf.n);
				int			nflip = (int) RngRange(&rng, 1, 3);
				Counts		c = CountsOf(&b);
				uint32_t	s = 0;
				PbError		err;
				PbStatus	st;

				memcpy(p, buf.p, buf.n);
				for (int k = 0; k < nflip; k++)
				{
					size_t		at = (size_t) RngRange(&rng, 0, (int64_t) buf.n - 1);

					if (RngRange(&rng, 0, 1))
						p[at] ^= (uint8_t) (1u << RngRange(&rng, 0, 7));
					else
						p[at] = (uint8_t) RngNext(&rng);
				}
				pb_test_context("%s xdr=%d iter=%d", fuzz_wkts[i], xdr, iter);
				st = DecodeBytes(&b, p, buf.n, &s, &err);
				CHECK(st == PB_OK || st == PB_ERR_FORMAT || st == PB_ERR_UNSUPPORTED ||
					  st == PB_ERR_NONFINITE);
				if (st == PB_OK)
				{
					nok++;
					CHECK_INT(b.nshapes, c.nshapes + 1);
					CheckShapeSane(&b, s);
					nint += CheckFuzzedEngines(&b, &sc, s);
				}
				else
				{
					nfail++;
					CHECK_INT(err.code, st);
					CHECK_COUNTS_SAME(&b, c);
				}
				free(p);
				if (b.nshapes > 1000)
					PbBatchReset(&b);
			}
			TBufFree(&buf);
		}
	CHECK(nok > 100 && nfail > 100 && nint > 100);	/* the loop did exercise all */
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* Malformed headers, unknown types and trailing bytes are PB_ERR_FORMAT. */
void
test_decode_garbage(void)
{
	static const struct
	{
		uint8_t		bytes[16];
		size_t		n;
	}			v[] = {
		{{2, 3, 0, 0, 0, 0, 0, 0, 0}, 9},	/* byte order 2 */
		{{1, 99, 0, 0, 0, 0, 0, 0, 0}, 9},	/* type 99 */
		{{1, 0, 0, 0, 0, 0, 0, 0, 0}, 9},	/* type 0 */
		{{0, 0, 0, 0, 18, 0, 0, 0, 0}, 9},	/* XDR type 18 */
		{{1, 0xbb, 0x0f, 0, 0, 0, 0, 0, 0}, 9},	/* ISO 4027 */
		{{1, 3, 0, 0, 0, 0, 0, 0, 0, 0xff}, 10},	/* POLYGON EMPTY + trailing byte */
		{{1, 6, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, 9},	/* MULTIPOLYGON of 2^32-1 parts, none there */
		{{1, 3, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f}, 13},	/* ring of 2^31-1 points */
		{{1, 7, 0, 0, 0x20, 0xe6, 0x10}, 7},	/* SRID cut short */
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		uint8_t    *p = malloc(v[i].n);
		uint32_t	s;
		PbError		err;

		memcpy(p, v[i].bytes, v[i].n);
		pb_test_context("case %zu", i);
		CHECK_INT(DecodeBytes(&b, p, v[i].n, &s, &err), PB_ERR_FORMAT);
		CHECK_INT(b.nshapes, 0);
		free(p);
	}
	/* and a nesting deeper than 32 collections */
	{
		TGeom	   *g = TgParse("POLYGON((0 0,1 0,1 1,0 0))");
		uint32_t	s;
		PbError		err;

		for (int d = 0; d < 40; d++)
		{
			TGeom	   *c = TgNew(PB_COLLECTIONTYPE, 0, 0);

			TgAddChild(c, g);
			g = c;
		}
		CHECK_INT(DecodeTg(&b, g, 0, &s, &err), PB_ERR_FORMAT);
		TgFree(g);
	}
	PbBatchFree(&b);
}

/* Curved and polyhedral types (alone or inside a collection) are PB_ERR_UNSUPPORTED, named in the message. */
void
test_decode_curves_unsupported(void)
{
	static const struct
	{
		const char *wkt;
		const char *name;
	}			v[] = {
		{"CIRCULARSTRING(0 0,1 1,2 0)", "CircularString"},
		{"COMPOUNDCURVE(CIRCULARSTRING(0 0,1 1,2 0),(2 0,0 0))", "CompoundCurve"},
		{"CURVEPOLYGON(CIRCULARSTRING(0 0,2 0,0 0))", "CurvePolygon"},
		{"CURVEPOLYGON((0 0,2 0,2 2,0 0))", "CurvePolygon"},
		{"MULTICURVE((0 0,1 1),CIRCULARSTRING(0 0,1 1,2 0))", "MultiCurve"},
		{"MULTISURFACE(((0 0,2 0,2 2,0 0)))", "MultiSurface"},
		{"POLYHEDRALSURFACE(((0 0,2 0,2 2,0 0)))", "PolyhedralSurface"},
		{"TIN(((0 0,2 0,2 2,0 0)))", "Tin"},
		{"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 0)),CURVEPOLYGON((0 0,2 0,2 2,0 0)))", "CurvePolygon"},
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int xdr = 0; xdr < 2; xdr++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		{
			TGeom	   *g = TgParse(v[i].wkt);
			uint32_t	s;
			PbError		err;

			pb_test_context("%s xdr=%d", v[i].wkt, xdr);
			CHECK_INT(DecodeTg(&b, g, xdr, &s, &err), PB_ERR_UNSUPPORTED);
			CHECK_STR_HAS(err.message, v[i].name);
			CHECK_INT(b.nshapes, 0);
			CHECK_INT(b.nrings, 0);
			TgFree(g);
		}
	PbBatchFree(&b);
}

/* The int path is taken exactly for rectilinear rings with integer vertices within +-2^30. */
void
test_decode_int_path_choice(void)
{
	static const struct
	{
		const char *wkt;
		int			kind;
	}			v[] = {
		{"POLYGON((0 0,5 0,5 5,0 5,0 0))", PB_SHAPE_INT},
		{"POLYGON((0 0,5 0,5 5,0 5))", PB_SHAPE_INT},	/* unclosed: closing edge vertical */
		{"POLYGON((0 0,5 0,5 5))", PB_SHAPE_DOUBLE},	/* unclosed: closing edge diagonal */
		{"POLYGON((0 0,5 0,5 5,0 5),(1 1,2 1,2 2))", PB_SHAPE_DOUBLE},
		{"POLYGON((0 0,5 0,5 5,0 0))", PB_SHAPE_DOUBLE},	/* diagonal closing edge */
		{"POLYGON((0 0,5 0,4 5,0 5,0 0))", PB_SHAPE_DOUBLE},	/* diagonal edge */
		{"POLYGON((0 0,5 0,5 5,0.5 5,0.5 0,0 0))", PB_SHAPE_DOUBLE},
		{"POLYGON((0 0,3000000000 0,3000000000 5,0 5,0 0))", PB_SHAPE_DOUBLE},
		{"POLYGON((-1073741824 -1073741824,1073741824 -1073741824,1073741824 1073741824,-1073741824 1073741824,-1073741824 -1073741824))", PB_SHAPE_INT},
		{"POLYGON((0 0,1073741825 0,1073741825 1,0 1,0 0))", PB_SHAPE_DOUBLE},
		{"POLYGON((0 -1073741825,1 -1073741825,1 0,0 0,0 -1073741825))", PB_SHAPE_DOUBLE},
		{"POLYGON((0 0,5 0,5 5,0 5,0 0),(1 1,2 1,1 2,1 1))", PB_SHAPE_DOUBLE},	/* diagonal hole */
		{"MULTIPOLYGON(((0 0,5 0,5 5,0 5,0 0)),((7 7,8 7,8 8.25,7 8.25,7 7)))", PB_SHAPE_DOUBLE},
		{"POLYGON((0 0,0 0,5 0,5 0,5 5,0 5,0 0))", PB_SHAPE_INT},	/* repeated points */
		{"POLYGON((0 0,2 0,4 0,4 4,0 4,0 0))", PB_SHAPE_INT},	/* collinear points */
		{"POLYGON Z((0 0 0.5,5 0 0.25,5 5 0.1,0 5 0,0 0 0.5))", PB_SHAPE_INT},	/* fractional Z is ignored */
		{"POLYGON((-0 0,5 0,5 5,-0 5,-0 0))", PB_SHAPE_INT},
		{"POLYGON((1e-300 0,5 0,5 5,1e-300 5,1e-300 0))", PB_SHAPE_DOUBLE},
		/* lines and points are not rings: their coordinates do not matter */
		{"GEOMETRYCOLLECTION(LINESTRING(0.5 0.5,1 3e9),POINT(0.25 7),POLYGON((0 0,5 0,5 5,0 5,0 0)))", PB_SHAPE_INT},
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		TGeom	   *g = TgParse(v[i].wkt);
		uint32_t	s = DecodeWkt(&b, v[i].wkt, (int) (i & 1));
		char		why[200];

		pb_test_context("%s", v[i].wkt);
		if (s == UINT32_MAX)
			continue;
		CHECK_INT(b.shapes[s].kind, v[i].kind);
		if (!ShapeMatchesTree(&b, s, g, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "points differ: %s", why);
		CHECK_DBL_EQ(b.shapes[s].area, (double) TruthArea(g));
		TgFree(g);
	}
	PbBatchFree(&b);
}

/* Int rings decoded before a later ring forces double storage keep their points; the int pool is given back. */
void
test_decode_switch_to_double_keeps_points(void)
{
	const char *wkt = "MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2)),"
		"((20 20,30 20,30 30,20 30,20 20)),((40 40,45 40,41 44,40 40)),((50 50,51 50,51 51,50 51,50 50)))";
	TGeom	   *g = TgParse(wkt);
	PbBatch		b;
	uint32_t	first,
				s;
	uint32_t	nipts;
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	first = DecodeWkt(&b, "POLYGON((0 0,1 0,1 1,0 1,0 0))", 0);
	nipts = b.nipts;
	s = DecodeWkt(&b, wkt, 0);
	CHECK_INT(b.shapes[s].kind, PB_SHAPE_DOUBLE);
	CHECK_INT(b.nipts, nipts);
	CHECK_INT(b.ndpts, 5 + 5 + 5 + 4 + 5);
	if (!ShapeMatchesTree(&b, s, g, why, sizeof(why)))
		pb_check_fail(__FILE__, __LINE__, "points differ: %s", why);
	CHECK_DBL_EQ(b.shapes[s].area, (double) TruthArea(g));
	CHECK_INT(b.shapes[first].kind, PB_SHAPE_INT);
	CHECK_DBL_EQ(b.shapes[first].area, 1.0);
	TgFree(g);
	PbBatchFree(&b);
}

/* A failed decode (at any point: after int rings, after the switch to doubles) leaves counts and earlier shapes as they were. */
void
test_decode_failure_leaves_batch(void)
{
	static const char *const bad[] = {
		"MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0)),((0 0,1 0,1 nan,0 0)))",
		"MULTIPOLYGON(((0 0,10 0,10 10,0 0)),((0 0,1 0,1 1,0 1,0 0)),((0 0,1 0,1 inf,0 0)))",
		"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 1,0 0)),POLYGON((0 0,1 0,1 1.5,0 0)),CIRCULARSTRING(0 0,1 1,2 0))",
		"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 1,0 0)),TIN(((0 0,1 0,1 1,0 0))))",
	};
	static const char *const good[] = {
		"POLYGON((0 0,4 0,4 4,0 4,0 0))",
		"POLYGON((0 0,4 0,4 4.5,0 0))",
		"MULTIPOLYGON(((0 0,4 0,4 4,0 4,0 0)),((10 10,11 10,11 11,10 10)))",
	};
	PbBatch		b,
				ref;
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&ref, &PbMallocAllocator);
	for (int round = 0; round < 3; round++)
	{
		for (int i = 0; i < 3; i++)
		{
			DecodeWkt(&b, good[i], round & 1);
			DecodeWkt(&ref, good[i], 0);
		}
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			Counts		c = CountsOf(&b);
			TGeom	   *g = TgParse(bad[i]);
			uint32_t	s;
			PbError		err;

			pb_test_context("%s round %d", bad[i], round);
			CHECK(DecodeTg(&b, g, 0, &s, &err) != PB_OK);
			CHECK_COUNTS_SAME(&b, c);
			TgFree(g);
		}
	}
	/* a good decode after the failures is right, and earlier shapes are intact */
	{
		TGeom	   *g = TgParse(good[2]);
		uint32_t	s = DecodeWkt(&b, good[2], 0);

		if (!ShapeMatchesTree(&b, s, g, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "after failures: %s", why);
		TgFree(g);
	}
	CHECK_INT(b.nshapes, ref.nshapes + 1);
	for (uint32_t i = 0; i < ref.nshapes; i++)
		if (!SameShape(&b, i, &ref, i, 1, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "shape %u changed: %s", i, why);
	PbBatchFree(&b);
	PbBatchFree(&ref);
}

/* Many int and double shapes interleaved in one batch all decode right, and pairs across them intersect right. */
void
test_decode_mixed_batch(void)
{
	Rng			rng = {7};
	PbBatch		b;
	PbScratch	sc;
	TGeom	   *trees[60];
	uint32_t	ids[60];
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (int i = 0; i < 60; i++)
	{
		Mask		m = MaskNew(8, 8);
		int64_t		xs[9],
					ys[9];
		PbError		err;

		MaskRects(&m, &rng, 3);
		for (int k = 0; k <= 8; k++)
			xs[k] = ys[k] = k;
		trees[i] = MaskTrace(&m, xs, ys, &rng, 0);
		/* every third shape gets a diagonal triangle: double storage */
		if (i % 3 == 1)
		{
			TGeom	   *tri = TgParse("POLYGON((0 0,3 0,0 3,0 0))");

			TgAddChild(trees[i], tri);
		}
		pb_test_context("shape %d", i);
		if (DecodeTg(&b, trees[i], i & 1, &ids[i], &err) != PB_OK)
		{
			pb_check_fail(__FILE__, __LINE__, "decode failed: %s", err.message);
			ids[i] = DummyShape(&b);
		}
		MaskFree(&m);
	}
	for (int i = 0; i < 60; i++)
	{
		pb_test_context("shape %d", i);
		if (trees[i]->ngeoms > 0)
			CHECK_INT(b.shapes[ids[i]].kind, i % 3 == 1 ? PB_SHAPE_DOUBLE : PB_SHAPE_INT);
		if (!ShapeMatchesTree(&b, ids[i], trees[i], why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "points differ: %s", why);
		CHECK_DBL_EQ(b.shapes[ids[i]].area, (double) TruthArea(trees[i]));
	}
	/* intersections within the mixed batch equal those of fresh two-shape batches */
	for (int i = 0; i + 1 < 60; i++)
	{
		PbBatch		two;
		uint32_t	a,
					c;
		PbError		err;

		PbBatchInit(&two, &PbMallocAllocator);
		DecodeTg(&two, trees[i], 0, &a, &err);
		DecodeTg(&two, trees[i + 1], 0, &c, &err);
		pb_test_context("pair %d", i);
		CHECK_DBL_EQ(PbIntersectionArea(&sc, &b, ids[i], ids[i + 1], PB_METHOD_AUTO),
					 PbIntersectionArea(&sc, &two, a, c, PB_METHOD_AUTO));
		PbBatchFree(&two);
	}
	for (int i = 0; i < 60; i++)
		TgFree(trees[i]);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

/* PbBatchAddPair queues pairs, PbBatchBytes counts payload, PbBatchReset empties but keeps memory. */
void
test_batch_reset_pairs_bytes(void)
{
	PbBatch		b;
	uint32_t	s,
				t;
	size_t		bytes;
	void	   *shapes;

	PbBatchInit(&b, &PbMallocAllocator);
	CHECK_INT(PbBatchBytes(&b), 0);
	s = DecodeWkt(&b, "POLYGON((0 0,4 0,4 4,0 4,0 0))", 0);
	t = DecodeWkt(&b, "POLYGON((0 0,4 0,4 4.5,0 0))", 0);
	for (int i = 0; i < 100; i++)
		PbBatchAddPair(&b, s, t);
	CHECK_INT(b.npairs, 100);
	CHECK_INT(b.pairs[99].a, s);
	CHECK_INT(b.pairs[99].b, t);
	bytes = 2 * sizeof(PbShape) + 2 * sizeof(PbRing) + 5 * 2 * sizeof(int32_t) +
		4 * 2 * sizeof(double) + 100 * sizeof(PbPair);
	CHECK_INT(PbBatchBytes(&b), bytes);
	shapes = b.shapes;
	PbBatchReset(&b);
	CHECK_INT(b.nshapes + b.nrings + b.nipts + b.ndpts + b.npairs, 0);
	CHECK(b.shapes == shapes);
	s = DecodeWkt(&b, "POLYGON((0 0,2 0,2 2,0 2,0 0))", 1);
	CHECK_INT(s, 0);
	CHECK_DBL_EQ(b.shapes[s].area, 4.0);
	PbBatchFree(&b);
	CHECK(b.shapes == NULL && b.nshapes == 0);
}
