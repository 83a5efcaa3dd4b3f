/*
 * test_text_ewkb.c: the EWKB PbParseTextLineEwkb writes for a line (what
 * pb_read_polygons hands PostGIS) is, byte for byte, the EWKB of the same
 * geometry written by the test-only writer (tests/wkt.c): type, SRID, Z
 * and M, EMPTY parts, holes; lists as Polygons; closing points that
 * repeat the first point's bits.  The shape parsed alongside is the one
 * the EWKB decodes to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/geom/pb_geom.h"
#include "testutil.h"

/* Whether the host is little-endian (the writer's byte order). */
static int
HostIsLittle(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *) &one == 1;
}

/*
 * Check that line parses, writing the EWKB of ref_wkt (tagged EWKT, as
 * tests/wkt.c reads it) in the host's order, and that the EWKB decodes to
 * the parsed shape.
 */
static void
CheckEwkb(const char *line, const char *ref_wkt)
{
	TBuf		want = {0};
	PbBatch		b,
				dec;
	PbEwkb		w;
	PbTextLineKind kind;
	int64_t		id;
	int			has_id;
	uint32_t	shape,
				ds = UINT32_MAX;
	PbError		err;
	char		why[200];

	pb_test_context("line \"%s\"", line);
	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&dec, &PbMallocAllocator);
	PbEwkbInit(&w, &PbMallocAllocator);
	WktToWkb(ref_wkt, !HostIsLittle(), &want);
	CHECK_INT(PbParseTextLineEwkb(&b, line, strlen(line), &kind, &id, &has_id, &shape, &w, &err),
			  PB_OK);
	CHECK_INT(kind, PB_LINE_POLYGON);
	if (w.len != want.n || memcmp(w.data, want.p, want.n) != 0)
		pb_check_fail(__FILE__, __LINE__, "EWKB differs from that of %s (%zu bytes, want %zu)",
					  ref_wkt, w.len, want.n);
	else
	{
		CHECK_INT(PbDecodeEwkb(&dec, w.data, w.len, &ds, &err), PB_OK);
		if (!SameShape(&b, shape, &dec, ds, 1, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "shape differs from its EWKB's: %s", why);
	}
	pb_test_context("%s", "");
	TBufFree(&want);
	PbEwkbFree(&w);
	PbBatchFree(&b);
	PbBatchFree(&dec);
}

/* Every kind of polygon line gives the EWKB of its geometry. */
void
test_text_ewkb_matches_writer(void)
{
	static const char *const cases[][2] = {
		{"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))",
		"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))"},
		{"7 SRID=4326;MULTIPOLYGON(((0 0,3 0,3 3,0 0)),EMPTY,((5 5,9 5,9 7,5 5)))",
		"SRID=4326;MULTIPOLYGON(((0 0,3 0,3 3,0 0)),EMPTY,((5 5,9 5,9 7,5 5)))"},
		{"MULTIPOLYGON(EMPTY,((0.5 0,1 0,1 1,0.5 0)))", "MULTIPOLYGON(EMPTY,((0.5 0,1 0,1 1,0.5 0)))"},
		{"POLYGON Z ((0 0 1,1 0 2,1 1 3,0 0 4))", "POLYGON Z ((0 0 1,1 0 2,1 1 3,0 0 4))"},
		{"POLYGONM((0 0 1,1 0 2,1 1 3,0 0 4))", "POLYGON M ((0 0 1,1 0 2,1 1 3,0 0 4))"},
		{"polygon zm ((0 0 1 9,1 0 2 9,1 1 3 9,0 0 4 9))", "POLYGON ZM ((0 0 1 9,1 0 2 9,1 1 3 9,0 0 4 9))"},
		/* untagged: 3 ordinates are x y z, 4 are x y z m (as PostGIS reads them) */
		{"POLYGON((0 0 1,1 0 2,1 1 3,0 0 4))", "POLYGON Z ((0 0 1,1 0 2,1 1 3,0 0 4))"},
		{"MULTIPOLYGON(EMPTY,((0 0 1 9,1 0 2 9,1 1 3 9,0 0 4 9)))",
		"MULTIPOLYGON ZM (EMPTY,((0 0 1 9,1 0 2 9,1 1 3 9,0 0 4 9)))"},
		{"SRID=3;MULTIPOLYGON Z (((0 0 1,1 0 2,1 1 3,0 0 4),(0.2 0.1 0,0.9 0.1 0,0.9 0.8 0,0.2 0.1 0)))",
		"SRID=3;MULTIPOLYGON Z (((0 0 1,1 0 2,1 1 3,0 0 4),(0.2 0.1 0,0.9 0.1 0,0.9 0.8 0,0.2 0.1 0)))"},
		{"POLYGON EMPTY", "POLYGON EMPTY"},
		{"SRID=5;MULTIPOLYGON M EMPTY", "SRID=5;MULTIPOLYGON M EMPTY"},
		{"POLYGON Z EMPTY", "POLYGON Z EMPTY"},
		/* numbers in every spelling, a ring closed by -0 (PostGIS's memcmp needs 0) */
		{"1 POLYGON((0 0,1e1 0,1E+1 10,+0 10,-00 -00))", "POLYGON((0 0,10 0,10 10,0 10,0 0))"},
		{"POLYGON((.5 0,5. 0,5 1e-1,.5 0))", "POLYGON((0.5 0,5 0,5 0.1,0.5 0))"},
		{"POLYGON((-0 -0,1 0,1 1,0 0))", "POLYGON((-0 -0,1 0,1 1,-0 -0))"},
		/* lists: one closed ring of a Polygon */
		{"5 0 0 1 0 1 1", "POLYGON((0 0,1 0,1 1,0 0))"},
		{"5 0 0, 1 0, 1 1, -0 -0", "POLYGON((0 0,1 0,1 1,0 0))"},
		{"-9\t0.25 0 1 0 1 1 0.25 0\r\n", "POLYGON((0.25 0,1 0,1 1,0.25 0))"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CheckEwkb(cases[i][0], cases[i][1]);
}

/* A failed line after a good one: the EWKB holds only what the next good line gives. */
void
test_text_ewkb_after_error(void)
{
	PbBatch		b;
	PbEwkb		w;
	PbTextLineKind kind;
	int64_t		id;
	int			has_id;
	uint32_t	shape;
	PbError		err;
	const char *bad = "POLYGON Z ((0 0 1,1 0 2,1 1 3,0 0))";
	const char *skip = "# a comment";

	PbBatchInit(&b, &PbMallocAllocator);
	PbEwkbInit(&w, &PbMallocAllocator);
	CHECK_INT(PbParseTextLineEwkb(&b, bad, strlen(bad), &kind, &id, &has_id, &shape, &w, &err),
			  PB_ERR_FORMAT);
	CHECK_STR_HAS(err.message, "mixed dimensions");
	CHECK_INT(PbParseTextLineEwkb(&b, skip, strlen(skip), &kind, &id, &has_id, &shape, &w, &err),
			  PB_OK);
	CHECK_INT(kind, PB_LINE_SKIP);
	CHECK(w.len == 0);
	PbEwkbFree(&w);
	PbBatchFree(&b);
	CheckEwkb("2 0 0 3 0 3 3", "POLYGON((0 0,3 0,3 3,0 0))");
}
