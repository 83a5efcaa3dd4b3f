/*
 * test_decode_agree.c: the GSERIALIZED and EWKB decoders accept and reject
 * the same geometries with the same messages (POINT(NaN NaN) is an empty
 * point on both paths, as PostGIS's ST_Area and ST_Intersection take it),
 * and a GeometryCollection whose polygons overlap is refused on both.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* One input and what both decoders must say about it. */
typedef struct AgreeCase
{
	const char *wkt;
	PbStatus	status;
	const char *message;		/* part of the error message, or NULL */
	double		area;			/* ST_Area when accepted */
} AgreeCase;

static const AgreeCase agree_cases[] = {
	/* a point whose every ordinate is NaN is POINT EMPTY */
	{"POINT(nan nan)", PB_OK, NULL, 0},
	{"GEOMETRYCOLLECTION(POINT(nan nan),POLYGON((0 0,4 0,4 4,0 4,0 0)))", PB_OK, NULL, 16},
	{"GEOMETRYCOLLECTION(MULTIPOINT(nan nan,1 1),POLYGON((0 0,4 0,4 4,0 4,0 0)))", PB_OK, NULL, 16},
	{"GEOMETRYCOLLECTION Z(POINT Z(nan nan nan),POLYGON Z((0 0 1,4 0 1,4 4 1,0 4 1,0 0 1)))", PB_OK, NULL, 16},
	/* any other NaN is an error, wherever it is */
	{"GEOMETRYCOLLECTION(POINT(nan 1),POLYGON((0 0,4 0,4 4,0 4,0 0)))", PB_ERR_NONFINITE, "non-finite", 0},
	{"GEOMETRYCOLLECTION Z(POINT Z(nan nan 1),POLYGON Z((0 0 1,4 0 1,4 4 1,0 4 1,0 0 1)))", PB_ERR_NONFINITE, "non-finite", 0},
	{"GEOMETRYCOLLECTION(LINESTRING(nan nan,1 1),POLYGON((0 0,4 0,4 4,0 4,0 0)))", PB_ERR_NONFINITE, "non-finite", 0},
	{"POLYGON((0 0,4 0,4 nan,0 0))", PB_ERR_NONFINITE, "non-finite", 0},
	/* polygon coordinates beyond +-1e150; points and lines may be anywhere */
	{"POLYGON((0 0,4 0,4 2e150,0 0))", PB_ERR_NONFINITE, "polygon coordinate beyond +-1e150", 0},
	{"GEOMETRYCOLLECTION(POINT(1e300 1),LINESTRING(0 0,-1e308 1),POLYGON((0 0,4 0,4 4,0 4,0 0)))", PB_OK, NULL, 16},
	/* a collection's polygons may touch, nest in holes, or be apart */
	{"GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((10 0,20 0,20 10,10 10,10 0)))", PB_OK, NULL, 200},
	{"GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,8 2,8 8,2 8,2 2)),POLYGON((3 3,7 3,7 7,3 7,3 3)))", PB_OK, NULL, 80},
	{"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,0.5 1,0 0)),POLYGON((1 0,1.5 1,0.5 1,1 0)),LINESTRING(0 0,9 9),POINT EMPTY)", PB_OK, NULL, 1},
	{"GEOMETRYCOLLECTION(POLYGON((0 0,4 0,4 4,0 4,0 0)),GEOMETRYCOLLECTION EMPTY,MULTIPOLYGON(((20 20,30 20,30 30,20 30,20 20))))", PB_OK, NULL, 116},
	/* ... but not overlap (ST_Area counts the overlap twice) */
	{"GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((0 0,10 0,10 10,0 10,0 0)))", PB_ERR_UNSUPPORTED, "overlapping polygons", 0},
	{"GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((5 0,15 0,15 10,5 10,5 0)))", PB_ERR_UNSUPPORTED, "overlapping polygons", 0},
	{"GEOMETRYCOLLECTION(POLYGON((0 0,4 0,4 4,0 4,0 0)),GEOMETRYCOLLECTION(MULTIPOLYGON(((3 3,5 3,5 5,3 5,3 3)))))", PB_ERR_UNSUPPORTED, "overlapping polygons", 0},
	{"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,0.5 1,0 0)),TRIANGLE((0.5 0,1.5 0,1 1,0.5 0)))", PB_ERR_UNSUPPORTED, "overlapping polygons", 0},
	/* a multipolygon's overlapping parts are its own (invalid) business: even-odd */
	{"MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0)),((5 0,15 0,15 10,5 10,5 0)))", PB_OK, NULL, 200},
};

/* Decode g as GSERIALIZED version ver (copied to an exact-size buffer). */
static PbStatus
DecodeGserVersion(PbBatch *b, const TGeom *g, int ver, uint32_t *s, PbError *err)
{
	TGserOpt	o = {ver, ver == 2, 0, 0};
	TBuf		buf = {0};
	uint8_t    *p;
	PbStatus	st;

	TgWriteGser(g, &o, &buf);
	p = malloc(buf.n);
	memcpy(p, buf.p, buf.n);
	st = PbDecodeGserialized(b, p, buf.n, s, err);
	free(p);
	TBufFree(&buf);
	return st;
}

/* EWKB (both byte orders) and GSERIALIZED v1 and v2 agree on every case: status, message, shape. */
void
test_decode_paths_agree(void)
{
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(agree_cases) / sizeof(agree_cases[0]); i++)
	{
		const AgreeCase *c = &agree_cases[i];
		TGeom	   *g = TgParse(c->wkt);
		uint32_t	ref = 0;
		PbError		ref_err;
		PbStatus	ref_st;

		pb_test_context("%s (EWKB)", c->wkt);
		ref_st = DecodeTg(&b, g, 0, &ref, &ref_err);
		CHECK_INT(ref_st, c->status);
		if (ref_st != PB_OK && c->message)
			CHECK_STR_HAS(ref_err.message, c->message);
		if (ref_st == PB_OK)
			CHECK_NEAR(b.shapes[ref].area, c->area, 1e-12);
		for (int path = 0; path < 3; path++)
		{
			uint32_t	s = 0,
						n0 = b.nshapes;
			PbError		err;
			PbStatus	st;
			char		why[256];

			pb_test_context("%s (%s)", c->wkt, path == 0 ? "XDR EWKB" : path == 1 ? "GSERIALIZED v1" : "GSERIALIZED v2");
			st = path == 0 ? DecodeTg(&b, g, 1, &s, &err) : DecodeGserVersion(&b, g, path, &s, &err);
			CHECK_INT(st, ref_st);
			if (st != PB_OK && ref_st != PB_OK)
			{
				if (strcmp(err.message, ref_err.message) != 0)
					pb_check_fail(__FILE__, __LINE__, "message \"%s\" != EWKB's \"%s\"",
								  err.message, ref_err.message);
				CHECK_INT(b.nshapes, n0);
			}
			if (st == PB_OK && ref_st == PB_OK && !SameShape(&b, ref, &b, s, 0, why, sizeof(why)))
				pb_check_fail(__FILE__, __LINE__, "shapes differ: %s", why);
		}
		TgFree(g);
		PbBatchReset(&b);
	}
	PbBatchFree(&b);
}
