/*
 * test_parse_text.c: PbParseTextLine (WKT lines and "id x y ..." lists),
 * checked against the shapes PbDecodeEwkb builds from EWKB written by the
 * test-only writer (tests/wkt.c) for the same polygons.  Every line is
 * handed over in a buffer of exactly its length (no NUL), so ASan catches
 * any read past the end.
 */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/geom/pb_geom.h"
#include "testutil.h"

/* ---- helpers ---- */

/* The batch sizes a failed or skipped line must leave alone. */
typedef struct TextCounts
{
	uint32_t	nshapes,
				nrings,
				nipts,
				ndpts;
} TextCounts;

static TextCounts
TextCountsOf(const PbBatch *b)
{
	TextCounts	c = {b->nshapes, b->nrings, b->nipts, b->ndpts};

	return c;
}

static int
TextCountsSame(const PbBatch *b, TextCounts c)
{
	return b->nshapes == c.nshapes && b->nrings == c.nrings &&
		b->nipts == c.nipts && b->ndpts == c.ndpts;
}

/* The outputs of one parse. */
typedef struct Parsed
{
	PbStatus	st;
	PbTextLineKind kind;
	int64_t		id;
	int			has_id;
	uint32_t	shape;
	PbError		err;
} Parsed;

/* Parse len bytes of text from a heap copy of exactly that size. */
static Parsed
ParseN(PbBatch *b, const char *text, size_t len)
{
	Parsed		r;
	char	   *copy = malloc(len ? len : 1);

	memcpy(copy, text, len);
	r.st = PbParseTextLine(b, copy, len, &r.kind, &r.id, &r.has_id, &r.shape, &r.err);
	free(copy);
	return r;
}

static Parsed
Parse(PbBatch *b, const char *text)
{
	return ParseN(b, text, strlen(text));
}

/* A growable string. */
typedef struct Str
{
	char	   *s;
	size_t		n,
				cap;
} Str;

static void
StrAdd(Str *s, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* Append printf-style text to s. */
static void
StrAdd(Str *s, const char *fmt,...)
{
	va_list		ap;
	int			k;

	for (;;)
	{
		va_start(ap, fmt);
		k = vsnprintf(s->s ? s->s + s->n : NULL, s->s ? s->cap - s->n : 0, fmt, ap);
		va_end(ap);
		if (s->s != NULL && s->n + (size_t) k < s->cap)
			break;
		s->cap = (s->n + (size_t) k + 1) * 2 + 64;
		s->s = realloc(s->s, s->cap);
		if (s->s == NULL)
			abort();
	}
	s->n += (size_t) k;
}

/*
 * Check that line parses to a polygon equal (type and SRID too) to the
 * EWKB decode of ref_wkt, with the given id.
 */
static void
CheckLine(const char *line, const char *ref_wkt, int has_id, int64_t id)
{
	PbBatch		b,
				ref;
	Parsed		r;
	uint32_t	rs;
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&ref, &PbMallocAllocator);
	pb_test_context("line \"%s\"", line);
	DummyShape(&b);				/* the shape index must not be 0 by luck */
	r = Parse(&b, line);
	rs = DecodeWkt(&ref, ref_wkt, 0);
	if (r.st != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "failed: %s", r.err.message);
	else
	{
		CHECK_INT(r.kind, PB_LINE_POLYGON);
		CHECK_INT(r.shape, 1);
		CHECK_INT(b.nshapes, 2);
		CHECK_INT(r.has_id, has_id);
		CHECK(r.id == id);
		CHECK_INT(r.err.code, PB_OK);
		if (!SameShape(&b, r.shape, &ref, rs, 1, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "differs from EWKB of %s: %s", ref_wkt, why);
	}
	pb_test_context("%s", "");
	PbBatchFree(&b);
	PbBatchFree(&ref);
}

/*
 * Check that len bytes of line fail with status st, a message containing
 * what and " at column col", and leave a batch holding a shape unchanged.
 */
static void
CheckErrorN(const char *line, size_t len, PbStatus st, const char *what, int col)
{
	PbBatch		b;
	TextCounts	before;
	Parsed		r;
	char		at[32];

	PbBatchInit(&b, &PbMallocAllocator);
	pb_test_context("line \"%.*s\"", (int) len, line);
	Parse(&b, "1 0 0 2 0 2 2 0 2");
	before = TextCountsOf(&b);
	r = ParseN(&b, line, len);
	CHECK_INT(r.st, st);
	CHECK_INT(r.err.code, st);
	CHECK_INT(r.shape, UINT32_MAX);
	CHECK_STR_HAS(r.err.message, what);
	snprintf(at, sizeof(at), " at column %d", col);
	CHECK_STR_HAS(r.err.message, at);
	CHECK(TextCountsSame(&b, before));
	pb_test_context("%s", "");
	PbBatchFree(&b);
}

static void
CheckError(const char *line, PbStatus st, const char *what, int col)
{
	CheckErrorN(line, strlen(line), st, what, col);
}

/* Write ring k of polygon g as "(x y[ z][ m], ...)" with %.17g numbers. */
static void
WriteRing(Str *s, const TGeom *g, int k, const char *sep)
{
	int			d = TgDims(g);

	StrAdd(s, "(");
	for (int i = 0; i < g->rings[k].npts; i++)
	{
		StrAdd(s, "%s", i ? sep : "");
		for (int j = 0; j < d; j++)
			StrAdd(s, "%s%.17g", j ? " " : "", g->rings[k].c[(size_t) i * d + j]);
	}
	StrAdd(s, ")");
}

/* Write a polygon's ring list "((...),(...))". */
static void
WritePolygonBody(Str *s, const TGeom *g, const char *sep)
{
	StrAdd(s, "(");
	for (int k = 0; k < g->nrings; k++)
	{
		StrAdd(s, "%s", k ? sep : "");
		WriteRing(s, g, k, sep);
	}
	StrAdd(s, ")");
}

/* Write a POLYGON or MULTIPOLYGON tree as WKT (sep between items). */
static void
WriteWkt(Str *s, const TGeom *g, const char *sep)
{
	const char *tag = g->hasz && g->hasm ? " ZM" : g->hasz ? " Z" : g->hasm ? " M" : "";

	if (g->type == PB_POLYGONTYPE)
	{
		StrAdd(s, "POLYGON%s", tag);
		if (g->nrings == 0)
			StrAdd(s, " EMPTY");
		else
			WritePolygonBody(s, g, sep);
		return;
	}
	StrAdd(s, "MULTIPOLYGON%s", tag);
	if (g->ngeoms == 0)
	{
		StrAdd(s, " EMPTY");
		return;
	}
	StrAdd(s, "(");
	for (int i = 0; i < g->ngeoms; i++)
	{
		StrAdd(s, "%s", i ? sep : "");
		if (g->geoms[i]->nrings == 0)
			StrAdd(s, "EMPTY");
		else
			WritePolygonBody(s, g->geoms[i], sep);
	}
	StrAdd(s, ")");
}

/* A random polygon or multipolygon: rectilinear integer, or with random doubles. */
static TGeom *
RandomTextShape(Rng *r)
{
	int			multi = (int) RngRange(r, 0, 1);
	TGeom	   *g;

	if (RngRange(r, 0, 1))
		return RandomOrthoShape(r, (int) RngRange(r, 1, 3), 6, RngRange(r, -50, 50),
								RngRange(r, -50, 50), 40, multi);
	g = TgNew(multi ? PB_MULTIPOLYGONTYPE : PB_POLYGONTYPE, 0, 0);
	for (int k = (int) RngRange(r, 1, 3); k > 0; k--)
	{
		int			n = (int) RngRange(r, 3, 9);
		double		c[2 * 10];
		TGeom	   *target = g;

		for (int i = 0; i < n; i++)
		{
			c[2 * i] = (RngDouble(r) - 0.5) * pow(10.0, (double) RngRange(r, -3, 8));
			c[2 * i + 1] = (RngDouble(r) - 0.5) * pow(10.0, (double) RngRange(r, -3, 8));
		}
		c[2 * n] = c[0];
		c[2 * n + 1] = c[1];
		if (multi)
		{
			target = TgNew(PB_POLYGONTYPE, 0, 0);
			TgAddChild(g, target);
		}
		TgAddRing(target, c, n + 1);
	}
	return g;
}

/* Decode a tree as EWKB into b, failing the test when that fails. */
static uint32_t
TruthShape(PbBatch *b, const TGeom *g)
{
	PbError		err;
	uint32_t	s = UINT32_MAX;

	if (DecodeTg(b, g, 0, &s, &err) != PB_OK)
	{
		pb_check_fail(__FILE__, __LINE__, "truth decode failed: %s", err.message);
		s = DummyShape(b);
	}
	return s;
}

/*
 * Check that the EWKB PbParseTextLineEwkb writes for line is the bytes
 * tests/wkt.c writes for g in the host's byte order, and that the shape
 * is the same as without EWKB.
 */
static void
CheckEwkbOf(const char *line, const TGeom *g)
{
	const uint16_t one = 1;
	TWkbOpt		opt = {*(const uint8_t *) &one == 0, 0, g->srid != 0, g->srid};
	TBuf		want = {0};
	PbBatch		b;
	PbEwkb		w;
	Parsed		r;

	PbBatchInit(&b, &PbMallocAllocator);
	PbEwkbInit(&w, &PbMallocAllocator);
	r.st = PbParseTextLineEwkb(&b, line, strlen(line), &r.kind, &r.id, &r.has_id, &r.shape,
							   &w, &r.err);
	TgWriteWkb(g, &opt, &want);
	CHECK_INT(r.st, PB_OK);
	CHECK(w.len == want.n && memcmp(w.data, want.p, want.n) == 0);
	TBufFree(&want);
	PbEwkbFree(&w);
	PbBatchFree(&b);
}

/* ---- tests ---- */

/* WKT lines, with and without ids, build the same shapes as their EWKB. */
void
test_text_wkt_matches_ewkb(void)
{
	static const char *const wkts[] = {
		"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2),(6 6,6 8,8 8,8 6,6 6))",
		"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))",
		"SRID=4326;POLYGON((0 0,4 1,3 5,-1 2,0 0))",
		"SRID=-3;POLYGON((0 0,4 1,3 5,-1 2,0 0))",
		"SRID=3857;POLYGON Z((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))",
		"POLYGON M((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))",
		"MULTIPOLYGON ZM(((-5 -5 1 2,5 -5 1 2,5 5 1 2,-5 5 1 2,-5 -5 1 2)))",
		"POLYGON((1e12 1e12,1000000000001 1e12,1000000000001 1000000000001.5,1e12 1e12))",
		"POLYGON((0.5 0.25,2.5e0 0.25,+2.5 1E1,-.5 1e+1,0.5 0.25))",
		"POLYGON((1073741824 0,1073741825 0,1073741825 1,1073741824 1,1073741824 0))",
		"POLYGON((-0 0,1 -0,1 1,0 1,-0 0))",
		"POLYGON EMPTY",
		"MULTIPOLYGON EMPTY",
		"POLYGON Z EMPTY",
		"MULTIPOLYGON(EMPTY,((0 0,1 0,1 1,0 1,0 0)),EMPTY)",
	};

	for (size_t i = 0; i < sizeof(wkts) / sizeof(wkts[0]); i++)
	{
		char		line[300];

		CheckLine(wkts[i], wkts[i], 0, 0);
		snprintf(line, sizeof(line), "%zu\t%s\n", i + 1, wkts[i]);
		CheckLine(line, wkts[i], 1, (int64_t) i + 1);
		snprintf(line, sizeof(line), "-%zu %s", i, wkts[i]);
		CheckLine(line, wkts[i], 1, -(int64_t) i);
	}
	/* integer rectilinear rings take the int path, others double */
	{
		PbBatch		b;
		Parsed		r;

		PbBatchInit(&b, &PbMallocAllocator);
		r = Parse(&b, "7\tPOLYGON((0 0,4 0,4 4,0 4,0 0))");
		CHECK(r.st == PB_OK && b.shapes[r.shape].kind == PB_SHAPE_INT);
		r = Parse(&b, "7\tPOLYGON((0 0,4 0,4 4.5,0 0))");
		CHECK(r.st == PB_OK && b.shapes[r.shape].kind == PB_SHAPE_DOUBLE);
		r = Parse(&b, "7\tPOLYGON EMPTY");
		CHECK(r.st == PB_OK && b.shapes[r.shape].kind == PB_SHAPE_EMPTY);
		PbBatchFree(&b);
	}
}

/* Keyword spellings: case, attached or spaced Z/M tags, SRID spacing. */
void
test_text_wkt_spellings(void)
{
	static const char *const ref = "SRID=4326;POLYGON Z((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))";

	CheckLine("srid=4326;polygon z((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))", ref, 0, 0);
	CheckLine("SRID = 4326 ; PolygonZ ( ( 0 0 1 , 8 0 2 , 8 8 3 , 0 8 4 , 0 0 1 ) )", ref, 0, 0);
	CheckLine("SRID=4326;POLYGON((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))", ref, 0, 0);
	CheckLine("3 SRID=4326;POLYGON Z ((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))", ref, 1, 3);
	CheckLine("MultiPolygonZM(((0 0 1 2,1 0 1 2,1 1 1 2,0 0 1 2)))",
			  "MULTIPOLYGON ZM(((0 0 1 2,1 0 1 2,1 1 1 2,0 0 1 2)))", 0, 0);
	CheckLine("POLYGONM((0 0 1,1 0 1,1 1 1,0 0 1))", "POLYGON M((0 0 1,1 0 1,1 1 1,0 0 1))", 0, 0);
	CheckLine("POLYGON((0 0 7,8 0 7,8 8 7,0 8 7,0 0 7))", "POLYGON Z((0 0 7,8 0 7,8 8 7,0 8 7,0 0 7))", 0, 0);
	CheckLine("POLYGON((0 0 7 1,8 0 7 1,8 8 7 1,0 0 7 1))", "POLYGON ZM((0 0 7 1,8 0 7 1,8 8 7 1,0 0 7 1))", 0, 0);
	CheckLine("polygon empty", "POLYGON EMPTY", 0, 0);
	CheckLine("multipolygon(empty)", "MULTIPOLYGON(EMPTY)", 0, 0);
}

/* Coordinate lists: open rings are closed, closed ones kept; commas and blanks separate. */
void
test_text_list_matches_ewkb(void)
{
	static const char *const sq = "POLYGON((0 0,4 0,4 4,0 4,0 0))";

	CheckLine("1 0 0 4 0 4 4 0 4", sq, 1, 1);
	CheckLine("1 0 0 4 0 4 4 0 4 0 0", sq, 1, 1);
	CheckLine("1,0,0,4,0,4,4,0,4", sq, 1, 1);
	CheckLine("1, 0 0, 4 0, 4 4, 0 4, 0 0", sq, 1, 1);
	CheckLine("  1\t0\t0\t4\t0\t4\t4\t0\t4\r\n", sq, 1, 1);
	CheckLine("1 0 0 4 0 4 4 0 4 \t \n", sq, 1, 1);
	CheckLine("1 +0 -0 4e0 0 4.0 40e-1 0 .4e1", sq, 1, 1);
	/* triangle with doubles; a ring with a repeated point */
	CheckLine("9 0.5 0.5 3.25 0.5 0.5 7.125", "POLYGON((0.5 0.5,3.25 0.5,0.5 7.125,0.5 0.5))", 1, 9);
	CheckLine("9 0 0 0 0 4 0 4 4", "POLYGON((0 0,0 0,4 0,4 4,0 0))", 1, 9);
	/* a list is a single-ring Polygon with SRID 0 */
	{
		PbBatch		b;
		Parsed		r;

		PbBatchInit(&b, &PbMallocAllocator);
		r = Parse(&b, "5 0 0 1 0 1 1");
		CHECK(r.st == PB_OK);
		CHECK_INT(b.shapes[r.shape].geomtype, PB_POLYGONTYPE);
		CHECK_INT(b.shapes[r.shape].srid, 0);
		CHECK_INT(b.shapes[r.shape].nrings, 1);
		CHECK_INT(b.rings[b.shapes[r.shape].ring_first].npoints, 4);
		PbBatchFree(&b);
	}
}

/* Ids: int64 extremes, signs, leading zeros; out of range is an error. */
void
test_text_ids(void)
{
	static const char *const sq = "POLYGON((0 0,1 0,1 1,0 1,0 0))";

	CheckLine("9223372036854775807 0 0 1 0 1 1 0 1", sq, 1, INT64_MAX);
	CheckLine("-9223372036854775808 0 0 1 0 1 1 0 1", sq, 1, INT64_MIN);
	CheckLine("9223372036854775807\tPOLYGON((0 0,1 0,1 1,0 1,0 0))", sq, 1, INT64_MAX);
	CheckLine("-9223372036854775808 POLYGON((0 0,1 0,1 1,0 1,0 0))", sq, 1, INT64_MIN);
	CheckLine("+00042 0 0 1 0 1 1 0 1", sq, 1, 42);
	CheckLine("0 0 0 1 0 1 1 0 1", sq, 1, 0);
	CheckLine("-1\t\t  POLYGON((0 0,1 0,1 1,0 1,0 0))", sq, 1, -1);
	CheckError("9223372036854775808 0 0 1 0 1 1", PB_ERR_FORMAT, "an id out of range", 1);
	CheckError("  -9223372036854775809 POLYGON EMPTY", PB_ERR_FORMAT, "an id out of range", 3);
	CheckError("99999999999999999999999 0 0 1 0 1 1", PB_ERR_FORMAT, "an id out of range", 1);
}

/* Whitespace anywhere between tokens (spaces, tabs, CR, VT, FF), CRLF, no terminator. */
void
test_text_whitespace_variants(void)
{
	static const char *const ref = "MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))";
	static const char *const lines[] = {
		"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))\n",
		"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))\r\n",
		"  MULTIPOLYGON ( ( ( 0 0 , 3 0 , 3 3 , 0 3 , 0 0 ) ) , ( ( 5 5 , 9 5 , 9 7 , 5 7 , 5 5 ) , ( 6 6 , 6 6.5 , 7 6.5 , 7 6 , 6 6 ) ) )  ",
		"\tMULTIPOLYGON\t(((0\t0,3\t0,3\t3,0\t3,0\t0)),\t((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))\t\r\n",
		"MULTIPOLYGON(((0   0,\r3 0,\v3 3,\f0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))",
		"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))\n\n",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		CheckLine(lines[i], ref, 0, 0);
	CheckLine("  12 \t MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))\r\n", ref, 1, 12);
}

/* Blank, whitespace-only and comment lines are skipped without touching the batch. */
void
test_text_skip_lines(void)
{
	static const char *const lines[] = {"", "\n", "\r\n", "   \t  ", "\t\r\n", "#", "# id x y",
	"   # POLYGON((0 0,1 0,1 1,0 0))\n", "#\r\n"};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	Parse(&b, "1 0 0 2 0 2 2");
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
	{
		TextCounts	before = TextCountsOf(&b);
		Parsed		r = Parse(&b, lines[i]);

		pb_test_context("line %zu", i);
		CHECK_INT(r.st, PB_OK);
		CHECK_INT(r.kind, PB_LINE_SKIP);
		CHECK_INT(r.shape, UINT32_MAX);
		CHECK_INT(r.has_id, 0);
		CHECK(TextCountsSame(&b, before));
	}
	/* a zero-length line needs no buffer at all */
	{
		Parsed		r;

		r.st = PbParseTextLine(&b, NULL, 0, &r.kind, &r.id, &r.has_id, &r.shape, &r.err);
		CHECK(r.st == PB_OK && r.kind == PB_LINE_SKIP);
	}
	PbBatchFree(&b);
}

/* Every syntax error: status, message and column (1-based byte offset). */
void
test_text_errors(void)
{
	/* unterminated parentheses: the column is just past the line's content */
	CheckError("POLYGON((0 0,1 0,1 1,0 0)", PB_ERR_FORMAT, "unterminated parenthesis (opened at column 8)", 26);
	CheckError("POLYGON((0 0,1 0,1 1,0 0)\r\n", PB_ERR_FORMAT, "unterminated parenthesis (opened at column 8)", 26);
	CheckError("POLYGON((0 0,1 0,1 1", PB_ERR_FORMAT, "unterminated parenthesis (opened at column 9)", 21);
	CheckError("POLYGON((0 0,1 0,1 1,0 0),", PB_ERR_FORMAT, "unterminated parenthesis (opened at column 8)", 27);
	CheckError("MULTIPOLYGON(((0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "unterminated parenthesis (opened at column 13)", 33);
	CheckError("MULTIPOLYGON(((0 0,1 0,1 1,0 0)),(", PB_ERR_FORMAT, "unterminated parenthesis (opened at column 34)", 35);
	/* missing coordinates and numbers */
	CheckError("POLYGON((0 0,1 0,1,0 0))", PB_ERR_FORMAT, "missing coordinate", 19);
	CheckError("POLYGON((0 0,1 0,1 1,0))", PB_ERR_FORMAT, "missing coordinate", 23);
	CheckError("POLYGON((0 0,,1 0,1 1,0 0))", PB_ERR_FORMAT, "expected a number, found ','", 14);
	CheckError("POLYGON(())", PB_ERR_FORMAT, "expected a number, found ')'", 10);
	CheckError("POLYGON((0 0 0 0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "more than 4 ordinates", 18);
	CheckError("POLYGON((0 0,1 0 0,1 1,0 0))", PB_ERR_FORMAT, "point has 3 ordinates where 2 were expected", 14);
	CheckError("POLYGON Z((0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "point has 2 ordinates where 3 were expected", 12);
	CheckError("POLYGON((0 0,1-1,1 1,0 0))", PB_ERR_FORMAT, "unexpected '-' after a number", 15);
	CheckError("POLYGON((0 0,1 0,1 1e,0 0))", PB_ERR_FORMAT, "exponent without digits", 20);
	/* coordinate lists */
	CheckError("17 1 2 3 4 5 6 7", PB_ERR_FORMAT, "odd number of coordinates (7)", 16);
	CheckError("17 1 2 3 4 5 6 7\r\n", PB_ERR_FORMAT, "odd number of coordinates (7)", 16);
	CheckError("17 1 2 3 4 5 6,", PB_ERR_FORMAT, "expected a number after ','", 16);
	CheckError("17 1 2,,3 4 5 6", PB_ERR_FORMAT, "expected a number, found ','", 8);
	CheckError("17 1 2 3 4 5 6x", PB_ERR_FORMAT, "expected whitespace or ',' between numbers, found 'x'", 15);
	CheckError("17 1 2 3 4 5 6 . 8", PB_ERR_FORMAT, "expected a number, found '.'", 16);
	CheckError("17.5 0 0 1 0 1 1", PB_ERR_FORMAT, "the id must be an integer", 3);
	CheckError("17POLYGON((0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "expected whitespace after the id, found 'P'", 3);
	CheckError("@ 1 2", PB_ERR_FORMAT, "expected an id, a WKT geometry or '#', found '@'", 1);
	/* too few points */
	CheckError("17", PB_ERR_FORMAT, "at least 3 distinct points, found 0", 3);
	CheckError("17 \t", PB_ERR_FORMAT, "at least 3 distinct points, found 0", 5);
	CheckError("17 5 5", PB_ERR_FORMAT, "at least 3 distinct points, found 1", 4);
	CheckError("17 0 0 1 0", PB_ERR_FORMAT, "at least 3 distinct points, found 2", 4);
	CheckError("17 0 0 1 1 0 0 1 1 0 0", PB_ERR_FORMAT, "at least 3 distinct points, found 2", 4);
	CheckError("POLYGON((0 0,1 1,0 0))", PB_ERR_FORMAT, "a polygon ring needs at least 4, found 3", 9);
	CheckError("POLYGON((0 0,1 0,1 1,0 0),(0 0))", PB_ERR_FORMAT, "a polygon ring needs at least 4, found 1", 27);
	CheckError("POLYGON((0 0,1 0,1 1,0 1))", PB_ERR_FORMAT, "ring is not closed", 9);
	/* types */
	CheckError("POLYGN((0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "unknown geometry type \"POLYGN\"", 1);
	CheckError("5\tFOO(1 2)", PB_ERR_FORMAT, "unknown geometry type \"FOO\"", 3);
	CheckError("POLYGONX((0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "unknown geometry type \"POLYGONX\"", 1);
	CheckError("POINT(1 2)", PB_ERR_UNSUPPORTED, "Point geometries are not supported", 1);
	CheckError("1 LINESTRING(0 0,1 1)", PB_ERR_UNSUPPORTED, "LineString geometries are not supported", 3);
	CheckError("GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 0)))", PB_ERR_UNSUPPORTED, "GeometryCollection geometries", 1);
	CheckError("SRID=4326;CURVEPOLYGON(CIRCULARSTRING(0 0,1 1,2 0,1 -1,0 0))", PB_ERR_UNSUPPORTED, "CurvePolygon geometries", 11);
	CheckError("17\tSRID=4326;TIN Z EMPTY", PB_ERR_UNSUPPORTED, "Tin geometries", 14);
	CheckError("multipointm(1 2 3)", PB_ERR_UNSUPPORTED, "MultiPoint geometries", 1);
	CheckError("POLYGON", PB_ERR_FORMAT, "expected '(' or EMPTY, found end of line", 8);
	CheckError("POLYGON FULL", PB_ERR_FORMAT, "expected '(' or EMPTY, found 'F'", 9);
	CheckError("MULTIPOLYGON((0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "expected '(' opening a ring, found '0'", 15);
	CheckError("MULTIPOLYGON(((0 0,1 0,1 1,0 0)),NONE)", PB_ERR_FORMAT, "expected '(' or EMPTY, found 'N'", 34);
	CheckError("POLYGON((0 0,1 0,1 1,0 0);(0 0,1 0,1 1,0 0))", PB_ERR_FORMAT, "expected ',' or ')' after a ring, found ';'", 26);
	CheckError("SRID=x;POLYGON EMPTY", PB_ERR_FORMAT, "expected an SRID, found 'x'", 6);
	CheckError("SRID=4326 POLYGON EMPTY", PB_ERR_FORMAT, "expected ';' after the SRID, found 'P'", 11);
	CheckError("SRID=99999999999;POLYGON EMPTY", PB_ERR_FORMAT, "an SRID out of range", 6);
	CheckError("SRID=4326;", PB_ERR_FORMAT, "expected a geometry type, found end of line", 11);
	/* trailing garbage */
	CheckError("POLYGON((0 0,1 0,1 1,0 0)) x", PB_ERR_FORMAT, "unexpected 'x' after the geometry", 28);
	CheckError("POLYGON((0 0,1 0,1 1,0 0)))", PB_ERR_FORMAT, "unexpected ')' after the geometry", 27);
	CheckError("POLYGON EMPTY 17", PB_ERR_FORMAT, "unexpected '1' after the geometry", 15);
	CheckError("1 POLYGON((0 0,1 0,1 1,0 0))\n2 POLYGON EMPTY", PB_ERR_FORMAT, "unexpected '2' after the geometry", 30);
	CheckErrorN("POLYGON EMPTY\0x", 15, PB_ERR_FORMAT, "unexpected byte 0x00 after the geometry", 14);
	/* non-finite numbers */
	CheckError("POLYGON((0 0,1 0,1 nan,0 0))", PB_ERR_NONFINITE, "non-finite coordinate", 20);
	CheckError("POLYGON((0 0,1 0,1 -Infinity,0 0))", PB_ERR_NONFINITE, "non-finite coordinate", 20);
	CheckError("POLYGON Z((0 0 0,1 0 INF,1 1 0,0 0 0))", PB_ERR_NONFINITE, "non-finite coordinate", 22);
	CheckError("17 0 0 inf 0 1 1", PB_ERR_NONFINITE, "non-finite coordinate", 8);
	CheckError("17 NaN 0 1 0 1 1", PB_ERR_NONFINITE, "non-finite coordinate", 4);
	CheckError("17 1e400 0 1 0 1 1", PB_ERR_NONFINITE, "out of the range of doubles", 4);
	CheckError("POLYGON((0 0,1 0,1 -2e308,0 0))", PB_ERR_NONFINITE, "out of the range of doubles", 20);
	/* finite, but beyond the builder's +-1e150 (products would overflow) */
	CheckError("POLYGON((0 0,1 0,1 -1.0000000000000001e151,0 0))", PB_ERR_NONFINITE,
			   "polygon coordinate beyond +-1e150, where area arithmetic would overflow", 20);
	CheckError("POLYGON Z((0 0 1e300,2e150 0 0,1 1 0,0 0 0))", PB_ERR_NONFINITE,
			   "polygon coordinate beyond +-1e150", 22);
	CheckError("17 0 0 1e150 0 1 1e151", PB_ERR_NONFINITE, "polygon coordinate beyond +-1e150", 18);
}

/*
 * Numbers longer than the scanner's stack buffer (a heap copy) convert as
 * strtod does, and an out-of-range one is an error, not a read of the
 * freed copy (once a server crash: ~120 digits for AddressSanitizer,
 * unmapped memory at ~128 KB).
 */
void
test_text_long_numbers(void)
{
	static const size_t ndigits[] = {130, 1000, 200000};
	size_t		cap = 200000 + 100;
	char	   *num = malloc(cap),
			   *line = malloc(cap + 64);
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(ndigits) / sizeof(ndigits[0]); i++)
	{
		size_t		n = ndigits[i];
		Parsed		r;
		double		want,
					x,
					y;

		/* out of range: n ones, times 10^400 */
		memset(num, '1', n);
		snprintf(num + n, cap - n, "e400");
		snprintf(line, cap + 64, "1 0 0 1 0 1 %s", num);
		CheckErrorN(line, strlen(line), PB_ERR_NONFINITE, "out of the range of doubles", 13);

		/* in range: 0.000...0001e(n - 1), that is 0.1, and n - 2 zeros then 12345 */
		num[0] = '0';
		num[1] = '.';
		memset(num + 2, '0', n - 3);
		snprintf(num + n - 1, cap - n + 1, "1e%zu", n - 3);
		for (int k = 0; k < 2; k++)
		{
			if (k == 1)
			{
				memset(num, '0', n);
				snprintf(num + n, cap - n, "12345");
			}
			want = strtod(num, NULL);
			snprintf(line, cap + 64, "1 %s 0.5 1234.5678 0.5 1234.5678 9876.5", num);
			pb_test_context("%zu digits, form %d", n, k);
			r = Parse(&b, line);
			if (r.st != PB_OK)
				pb_check_fail(__FILE__, __LINE__, "failed: %s", r.err.message);
			else
			{
				ShapePointXY(&b, &b.shapes[r.shape], b.shapes[r.shape].ring_first, 0, &x, &y);
				if (memcmp(&x, &want, sizeof(double)) != 0)
					pb_check_fail(__FILE__, __LINE__, "%.17g != strtod's %.17g", x, want);
			}
			PbBatchReset(&b);
		}
	}
	pb_test_context("%s", "");
	PbBatchFree(&b);
	free(num);
	free(line);
}

/* Numbers convert exactly as strtod (correctly rounded) does, fast path or not. */
void
test_text_numbers_match_strtod(void)
{
	static const char *const fixed[] = {
		"0", "-0", "+0.000", "1", "-1", "9007199254740992", "9007199254740993",
		"9007199254740995", "18446744073709551615", "18446744073709551616",
		"123456789012345678901234567890", "0.1", "0.3", "2.675", "1e22", "1e23",
		"-1e-22", "1e-23", "4.9e-324", "2.4703282292062327e-324", "1e-400",
		"2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308",
		"0.000000000000000000000000000000000000001", "1.00000000000000000000000000001",
		"100000000000000000000000", "3.14159265358979323846264338327950288",
		"123456.789e-3", ".5", "5.", "-.75E+2", "000000000000000000000000000001.5",
		"9007199254740993e-22", "12345678901234567e3", "1000000000000000000000e-21",
	};
	Rng			rng = {77};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int i = 0; i < 6000; i++)
	{
		char		num[400],
					line[460];
		Parsed		r;
		double		want,
					x,
					y;

		if (i < (int) (sizeof(fixed) / sizeof(fixed[0])))
			snprintf(num, sizeof(num), "%s", fixed[i]);
		else if (i % 3 == 0)
		{
			/* a random double, printed with a random precision */
			double		v = (RngDouble(&rng) - 0.5) * pow(10.0, (double) RngRange(&rng, -30, 30));

			snprintf(num, sizeof(num), i % 2 ? "%.*g" : "%.*e", (int) RngRange(&rng, 1, 20), v);
		}
		else
		{
			/* random digit strings: long mantissas, any decimal point, exponents */
			int			nd = (int) RngRange(&rng, 1, i % 3 == 1 ? 17 : 40),
						dot = (int) RngRange(&rng, -1, nd),
						k = 0;

			if (RngRange(&rng, 0, 1))
				num[k++] = '-';
			for (int d = 0; d < nd; d++)
			{
				if (d == dot)
					num[k++] = '.';
				num[k++] = (char) ('0' + RngRange(&rng, 0, 9));
			}
			if (RngRange(&rng, 0, 1))
				k += snprintf(num + k, sizeof(num) - (size_t) k, "e%d", (int) RngRange(&rng, -40, 40));
			num[k] = '\0';
		}
		want = strtod(num, NULL);
		snprintf(line, sizeof(line), "1 %s 0.5 1234.5678 0.5 1234.5678 9876.5", num);
		pb_test_context("number %s", num);
		r = Parse(&b, line);
		if (!isfinite(want) || fabs(want) > 1e150)
			CHECK_INT(r.st, PB_ERR_NONFINITE);
		else if (r.st != PB_OK)
			pb_check_fail(__FILE__, __LINE__, "failed: %s", r.err.message);
		else
		{
			ShapePointXY(&b, &b.shapes[r.shape], b.shapes[r.shape].ring_first, 0, &x, &y);
			if (memcmp(&x, &want, sizeof(double)) != 0)
				pb_check_fail(__FILE__, __LINE__, "%.17g != strtod's %.17g", x, want);
		}
		PbBatchReset(&b);
	}
	PbBatchFree(&b);
}

/*
 * A decimal-comma LC_NUMERIC does not change numbers that need strtod
 * (skipped, with a note, where no such locale is installed).
 */
void
test_text_locale_independent(void)
{
	static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE", "ru_RU.UTF-8"};
	static const char *const line = "1 0.12345678901234567890123 0.5 1234.5678 0.5 1234.5678 9876.5e-1";
	PbBatch		b;
	Parsed		r;
	double		x0,
				y0,
				x1,
				y1;
	const char *got = NULL;

	PbBatchInit(&b, &PbMallocAllocator);
	r = Parse(&b, line);
	CHECK_INT(r.st, PB_OK);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && got == NULL; i++)
		got = setlocale(LC_NUMERIC, names[i]);
	if (got == NULL || r.st != PB_OK)
		pb_test_note("no decimal-comma locale installed: not tested");
	else
	{
		Parsed		r2 = Parse(&b, line);

		CHECK_INT(r2.st, PB_OK);
		if (r2.st == PB_OK)
		{
			ShapePointXY(&b, &b.shapes[r.shape], b.shapes[r.shape].ring_first, 0, &x0, &y0);
			ShapePointXY(&b, &b.shapes[r2.shape], b.shapes[r2.shape].ring_first, 0, &x1, &y1);
			CHECK_DBL_EQ(x1, x0);
			CHECK_DBL_EQ(x1, 0.12345678901234567890123);
		}
	}
	setlocale(LC_NUMERIC, "C");
	PbBatchFree(&b);
}

/* A failed line (after rings were added, from the heap scratch too) leaves the batch as it was. */
void
test_text_failure_leaves_batch(void)
{
	static const char *const good[] = {
		"1\tPOLYGON((0 0,4 0,4 4,0 4,0 0))",
		"2 0 0 4 0 4 4.5",
		"3\tMULTIPOLYGON(((0 0,4 0,4 4,0 4,0 0)),((10 10,11 10,11 11,10 10)))",
	};
	static const char *const bad[] = {
		"MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0)),((0 0,1 0,1 nan,0 0)))",
		"MULTIPOLYGON(((0 0,10 0,10 10,0 0)),((0 0,1 0,1 1,0 1,0 0)),((0 0,1 0,1 1,0 0))",
		"POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 1)) junk",
		"POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,2 1,2 2,1 2))",
		"POLYGON((0 0,10 0,10 10.5,0 10,0 0),(1 1,2 1,2 2))",
	};
	PbBatch		b,
				ref;
	Str			big = {0};
	char		why[200];

	/* a long ring (past the stack scratch) followed by an error */
	StrAdd(&big, "POLYGON((0 0");
	for (int i = 1; i <= 1000; i++)
		StrAdd(&big, ",%d %d", i, i % 2 ? i - 1 : i);
	StrAdd(&big, ",0 1000,0 0),(1 1,2 1,2 2,1 2)");
	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&ref, &PbMallocAllocator);
	for (int round = 0; round < 3; round++)
	{
		for (int i = 0; i < 3; i++)
		{
			Parse(&b, good[i]);
			Parse(&ref, good[i]);
		}
		for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++)
		{
			TextCounts	c = TextCountsOf(&b);
			const char *line = i < sizeof(bad) / sizeof(bad[0]) ? bad[i] : big.s;
			Parsed		r = Parse(&b, line);

			pb_test_context("bad line %zu round %d", i, round);
			CHECK(r.st != PB_OK);
			CHECK(TextCountsSame(&b, c));
		}
	}
	/* a good line after the failures is right, and earlier shapes are intact */
	Parse(&b, good[2]);
	Parse(&ref, good[2]);
	CHECK_INT(b.nshapes, ref.nshapes);
	for (uint32_t s = 0; s < b.nshapes && s < ref.nshapes; s++)
		if (!SameShape(&b, s, &ref, s, 1, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "shape %u: %s", s, why);
	free(big.s);
	PbBatchFree(&b);
	PbBatchFree(&ref);
}

/* Long rings (heap scratch) in both formats, and random shapes written as text, match EWKB. */
void
test_text_random_shapes_match_ewkb(void)
{
	Rng			rng = {4242};

	for (int iter = 0; iter < 400; iter++)
	{
		TGeom	   *g;
		Str			line = {0};
		PbBatch		b,
					ref;
		Parsed		r;
		uint32_t	rs;
		char		why[200];
		int			list = iter % 4 == 3;

		if (iter < 4)
		{
			/* a staircase ring of thousands of points */
			int			n = 3000 * (iter + 1);
			double	   *c = malloc(sizeof(double) * 2 * (2 * (size_t) n + 2));

			g = TgNew(PB_POLYGONTYPE, 0, 0);
			for (int i = 0; i < n; i++)
			{
				c[4 * i] = i;
				c[4 * i + 1] = i;
				c[4 * i + 2] = i + 1;
				c[4 * i + 3] = i;
			}
			c[4 * n] = n;
			c[4 * n + 1] = n;
			c[4 * n + 2] = 0;
			c[4 * n + 3] = 0;
			TgAddRing(g, c, 2 * n + 2);
			free(c);
			list = iter % 2;
			if (iter == 3)
				g->rings[0].c[7] += 0.5;	/* double path */
		}
		else
			g = RandomTextShape(&rng);
		if (list)
		{
			/* the first ring, open, as a list */
			const TRing *ring = g->type == PB_POLYGONTYPE ? &g->rings[0] : &g->geoms[0]->rings[0];
			TGeom	   *one = TgNew(PB_POLYGONTYPE, 0, 0);

			StrAdd(&line, "%d", iter);
			for (int i = 0; i + 1 < ring->npts; i++)
				StrAdd(&line, iter % 8 == 3 ? ", %.17g,%.17g" : " %.17g %.17g", ring->c[2 * i], ring->c[2 * i + 1]);
			/* a list whose last point is its first is not closed again */
			TgAddRing(one, ring->c, ring->c[0] == ring->c[2 * ring->npts - 4] &&
					  ring->c[1] == ring->c[2 * ring->npts - 3] ? ring->npts - 1 : ring->npts);
			TgFree(g);
			g = one;
		}
		else
		{
			StrAdd(&line, "%d\t", iter);
			WriteWkt(&line, g, iter % 3 ? "," : " , ");
		}
		StrAdd(&line, "\n");
		PbBatchInit(&b, &PbMallocAllocator);
		PbBatchInit(&ref, &PbMallocAllocator);
		pb_test_context("iter %d: %.80s", iter, line.s);
		r = Parse(&b, line.s);
		rs = TruthShape(&ref, g);
		if (r.st != PB_OK)
			pb_check_fail(__FILE__, __LINE__, "failed: %s", r.err.message);
		else
		{
			CHECK(r.has_id && r.id == iter);
			if (!SameShape(&b, r.shape, &ref, rs, 1, why, sizeof(why)))
				pb_check_fail(__FILE__, __LINE__, "differs: %s", why);
		}
		CheckEwkbOf(line.s, g);
		PbBatchFree(&b);
		PbBatchFree(&ref);
		TgFree(g);
		free(line.s);
	}
}

/* The column number in an error message ("... at column N"), or 0. */
static long
MessageColumn(const char *msg)
{
	const char *at = strstr(msg, " at column ");

	return at ? strtol(at + 11, NULL, 10) : 0;
}

/*
 * Mutated valid lines (every truncation, byte flips, insertions, deletions)
 * never crash or read out of bounds (ASan), and every outcome is coherent:
 * a polygon adds exactly one shape, a skip or an error adds nothing, and an
 * error names a column within the line.
 */
void
test_text_fuzzed_lines(void)
{
	static const char alphabet[] = "()0123456789.,-+eE \t\r\nnNaAiIfFzZmM#;=PpSsxX";
	Rng			rng = {99};
	PbBatch		b;
	long		polygons = 0,
				errors = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int iter = 0; iter < 300; iter++)
	{
		TGeom	   *g = RandomTextShape(&rng);
		Str			line = {0};
		char	   *buf;

		if (iter % 5 == 0)
			StrAdd(&line, "SRID=%d;", iter);
		else if (iter % 5 == 1)
			StrAdd(&line, "%d ", -iter);
		if (iter % 7 == 3)
		{
			const TRing *ring = g->type == PB_POLYGONTYPE ? &g->rings[0] : &g->geoms[0]->rings[0];

			line.n = 0;
			StrAdd(&line, "%d", iter);
			for (int i = 0; i < ring->npts; i++)
				StrAdd(&line, " %.6g %.6g", ring->c[2 * i], ring->c[2 * i + 1]);
		}
		else
			WriteWkt(&line, g, ",");
		buf = malloc(line.n + 1);
		for (size_t len = 0; len <= line.n + 8; len++)
		{
			size_t		n = len <= line.n ? len : line.n;
			int			mode = len <= line.n ? 0 : (int) RngRange(&rng, 1, 4);
			TextCounts	before = TextCountsOf(&b);
			Parsed		r;

			memcpy(buf, line.s, n);
			for (int k = 0; mode > 0 && k < mode && n > 0; k++)
			{
				size_t		at = (size_t) RngRange(&rng, 0, (int64_t) n - 1);

				if (mode == 4 && n > 1)
				{
					memmove(buf + at, buf + at + 1, n - at - 1);	/* delete */
					n--;
				}
				else if (RngRange(&rng, 0, 1))
					buf[at] = alphabet[RngRange(&rng, 0, (int64_t) sizeof(alphabet) - 2)];
				else
					buf[at] = (char) RngRange(&rng, 0, 255);
			}
			r = ParseN(&b, buf, n);
			pb_test_context("iter %d len %zu: %.*s", iter, n, (int) (n < 120 ? n : 120), buf);
			if (r.st == PB_OK && r.kind == PB_LINE_POLYGON)
			{
				CHECK_INT(r.shape, before.nshapes);
				CHECK_INT(b.nshapes, before.nshapes + 1);
				polygons++;
			}
			else
			{
				CHECK(TextCountsSame(&b, before));
				CHECK_INT(r.shape, UINT32_MAX);
				if (r.st != PB_OK)
				{
					long		col = MessageColumn(r.err.message);

					CHECK(col >= 1 && (size_t) col <= n + 1);
					CHECK_INT(r.err.code, r.st);
					errors++;
				}
			}
			if (b.nshapes > 1000)
				PbBatchReset(&b);
		}
		free(buf);
		free(line.s);
		TgFree(g);
	}
	pb_test_note("%ld polygons, %ld errors", polygons, errors);
	CHECK(polygons > 300 && errors > 1000);
	PbBatchFree(&b);
}

/* Read a file of lines (PB_PBGEN_LINES, e.g. pbgen output) into one buffer, or NULL. */
static char *
ReadLinesFile(size_t *len)
{
	const char *path = getenv("PB_PBGEN_LINES");
	FILE	   *f;
	char	   *data = NULL;
	size_t		cap = 0,
				n = 0,
				got;

	if (path == NULL || (f = fopen(path, "rb")) == NULL)
		return NULL;
	do
	{
		if (n + 65536 > cap)
			data = realloc(data, cap = (n + 65536) * 2);
		got = fread(data + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return data;
}

/* Check each "id<TAB>WKT" line of data against the EWKB of its WKT (tests/wkt.c's reader). */
static void
VerifyTabLines(const char *data, size_t len)
{
	const char *p = data,
			   *end = data + len;
	PbBatch		b,
				ref;

	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&ref, &PbMallocAllocator);
	while (p < end && pb_test_failures() == 0)
	{
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		size_t		n = nl ? (size_t) (nl - p) : (size_t) (end - p);
		const char *tab = memchr(p, '\t', n);

		if (tab != NULL)
		{
			char	   *wkt = malloc(n + 1);
			char		why[200] = "";
			Parsed		r = ParseN(&b, p, n);
			uint32_t	rs;

			memcpy(wkt, tab + 1, (size_t) (p + n - tab - 1));
			wkt[p + n - tab - 1] = '\0';
			rs = DecodeWkt(&ref, wkt, 0);
			if (r.st != PB_OK || !SameShape(&b, r.shape, &ref, rs, 1, why, sizeof(why)))
				pb_check_fail(__FILE__, __LINE__, "line %.40s: %s %s", p, r.err.message, why);
			free(wkt);
			PbBatchReset(&b);
			PbBatchReset(&ref);
		}
		p += n + 1;
	}
	PbBatchFree(&b);
	PbBatchFree(&ref);
}

/*
 * Lines like pbgen's ("id<TAB>POLYGON(...)" of traced nuclei) parse to the
 * shapes of their EWKB, and the parse speed is noted (ns per vertex; with
 * PB_PBGEN_LINES=file the "id<TAB>WKT" lines of that file, e.g. from
 * bench/pbgen, are checked and timed instead).
 */
void
test_text_pbgen_lines_speed(void)
{
	Rng			rng = {2024};
	Str			text = {0};
	PbBatch		b,
				ref;
	size_t		len = 0,
				vertices = 0,
				lines = 0;
	char	   *data = ReadLinesFile(&len);
	struct timespec t0,
				t1;
	double		best = 1e30;

	PbBatchInit(&b, &PbMallocAllocator);
	PbBatchInit(&ref, &PbMallocAllocator);
	if (data == NULL)
	{
		/* 2000 traced nuclei (some with a hole), each checked against its EWKB */
		int64_t		xs[41],
					ys[41];

		for (int i = 0; i < 2000; i++)
		{
			Mask		m = MaskNew(40, 40);
			TGeom	   *g;
			char		why[200] = "";
			size_t		start = text.n;
			Parsed		r;

			for (int k = 0; k <= 40; k++)
			{
				xs[k] = 1000 * (i % 50) + k;
				ys[k] = 1000 * (i / 50) + k;
			}
			/* a nucleus: a pixelated ellipse of radius 4-11, some with a hole */
			{
				double		rx = 4 + 7 * RngDouble(&rng),
							ry = rx * (0.8 + 0.4 * RngDouble(&rng));

				for (int y = 0; y < 40; y++)
					for (int x = 0; x < 40; x++)
						m.bit[y * 40 + x] = (x - 19.5) * (x - 19.5) / (rx * rx) +
							(y - 19.5) * (y - 19.5) / (ry * ry) < 1.0;
				if (i % 20 == 0)
					m.bit[19 * 40 + 19] = 0;
			}
			g = MaskTrace(&m, xs, ys, &rng, 0);
			if (g->ngeoms > 0)
			{
				TGeom	   *poly = g->geoms[0];

				StrAdd(&text, "%d\t", i + 1);
				WriteWkt(&text, poly, ",");
				StrAdd(&text, "\n");
				r = ParseN(&b, text.s + start, text.n - start);
				if (r.st != PB_OK || !SameShape(&b, r.shape, &ref, TruthShape(&ref, poly), 1, why, sizeof(why)))
					pb_check_fail(__FILE__, __LINE__, "blob %d: %s %s", i, r.err.message, why);
			}
			TgFree(g);
			MaskFree(&m);
		}
		data = text.s;
		len = text.n;
		text.s = NULL;
	}
	else
		VerifyTabLines(data, len);
	/* time whole passes over the lines; keep the best of 5 */
	for (int pass = 0; pass < 5; pass++)
	{
		const char *p = data,
				   *end = data + len;

		PbBatchReset(&b);
		vertices = lines = 0;
		timespec_get(&t0, TIME_UTC);
		while (p < end)
		{
			const char *nl = memchr(p, '\n', (size_t) (end - p));
			size_t		n = nl ? (size_t) (nl - p) + 1 : (size_t) (end - p);
			Parsed		r;

			r.st = PbParseTextLine(&b, p, n, &r.kind, &r.id, &r.has_id, &r.shape, &r.err);
			if (r.st != PB_OK)
			{
				pb_check_fail(__FILE__, __LINE__, "line %zu: %s", lines + 1, r.err.message);
				break;
			}
			lines += r.kind == PB_LINE_POLYGON;
			p += n;
		}
		timespec_get(&t1, TIME_UTC);
		vertices = b.nipts + b.ndpts;
		{
			double		ns = (double) (t1.tv_sec - t0.tv_sec) * 1e9 + (double) (t1.tv_nsec - t0.tv_nsec);

			if (ns < best)
				best = ns;
		}
	}
	pb_test_note("%zu lines, %zu vertices, %zu bytes: %.1f ns/vertex, %.0f ns/line, %.0f MB/s",
				 lines, vertices, len, best / (double) (vertices ? vertices : 1),
				 best / (double) (lines ? lines : 1), (double) len / best * 1e3);
	CHECK(lines > 0);
	free(data);
	PbBatchFree(&b);
	PbBatchFree(&ref);
}
