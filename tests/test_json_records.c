/*
 * test_json_records.c: GeoJSON features and HoVer-Net nuclei read through
 * the reader (json_reader.h): geometries (holes, multipolygons, the
 * nucleus geometry, null ones) decoded back from their EWKB against the
 * areas and rings written, attributes in QuPath's old and new forms, the
 * same records in the same order on one thread or several, and every
 * error with the record, byte and line it names.  And the contour fill
 * (contour_fill.h) against a brute-force point-in-polygon truth.
 */
#define _DEFAULT_SOURCE			/* mkdtemp */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/core/formats/contour_fill.h"
#include "../src/core/formats/json_numbers.h"
#include "../src/core/formats/json_reader.h"
#include "testutil.h"

/* What reading a file gave: its records (copied) or its error. */
typedef struct ReadOut
{
	PbStatus	st;
	PbError		err;
	int64_t		err_line;
	PbJsonLayout layout;
	int			n;
	PbJsonRecord rec[64];
	PbBatch		batch;			/* the geometries decoded, shape[i] of rec[i] */
	uint32_t	shape[64];
} ReadOut;

/* A malloc'd copy of s, or NULL. */
static char *
Dup(const char *s)
{
	return s ? PbJsonStrdup(s) : NULL;
}

/* Write text to a file and read it with want and opt on threads threads. */
static void
ReadText(const char *text, PbJsonLayout want, int nucleus_geometry, int as_written,
		 int threads, ReadOut *out)
{
	char		dir[] = "/tmp/pb_json_rec_XXXXXX";
	char	   *path;
	PbJsonOptions opt = {nucleus_geometry, as_written};
	PbRun		run = {threads, 0, NULL, NULL};
	PbJsonReader rd;
	int			fd;

	memset(out, 0, sizeof(*out));
	PbBatchInit(&out->batch, &PbMallocAllocator);
	CHECK(mkdtemp(dir) != NULL);
	path = TestWriteFile(dir, "r.json", text, strlen(text));
	fd = open(path, O_RDONLY);
	out->st = PbJsonReaderBegin(&rd, fd, want, &opt, &PbMallocAllocator, &run, &out->err);
	while (out->st == PB_OK)
	{
		PbJsonRecord *recs;
		uint32_t	n;

		out->st = PbJsonReaderNext(&rd, &recs, &n, &out->err);
		if (out->st != PB_OK || n == 0)
			break;
		for (uint32_t i = 0; i < n && out->n < 64; i++)
		{
			PbJsonRecord *r = &out->rec[out->n];
			PbError		err;

			*r = recs[i];
			r->id = Dup(recs[i].id);
			r->object_type = Dup(recs[i].object_type);
			r->classification = Dup(recs[i].classification);
			r->measurements = Dup(recs[i].measurements);
			PbEwkbInit(&r->geom, &PbMallocAllocator);
			out->shape[out->n] = UINT32_MAX;
			if (recs[i].has_geom)
			{
				PbStatus	st = PbDecodeEwkb(&out->batch, recs[i].geom.data, recs[i].geom.len,
											  &out->shape[out->n], &err);

				CHECK_INT(st, PB_OK);
			}
			out->n++;
		}
	}
	out->err_line = rd.err_line;
	out->layout = PbJsonReaderLayout(&rd);
	PbJsonReaderEnd(&rd);
	close(fd);
	unlink(path);
	free(path);
	rmdir(dir);
}

/* Free what ReadText kept. */
static void
FreeOut(ReadOut *out)
{
	for (int i = 0; i < out->n; i++)
		PbJsonRecordFree(&out->rec[i]);
	PbBatchFree(&out->batch);
}

/* Whether a and b are both NULL or equal strings. */
static int
SameStr(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

#define SQUARE(x, y, s) "[[" #x "," #y "],[" #x "+" #s "," #y "]]"

/* QuPath's forms: holes, multipolygons, ids, classes, measurements, nuclei. */
void
test_json_geojson_features(void)
{
	const char *text =
		"{\"type\": \"FeatureCollection\", \"features\": [\n"
		"{\"type\": \"Feature\", \"id\": \"a-1\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": "
		"[[[0,0],[10,0],[10,10],[0,10],[0,0]], [[2,2],[2,4],[4,4],[4,2],[2,2]]]},"
		" \"nucleusGeometry\": {\"type\": \"Polygon\", \"coordinates\": [[[1,1],[3,1],[3,3],[1,1]]]},"
		" \"properties\": {\"objectType\": \"cell\", \"classification\": {\"name\": \"Tumor\", \"color\": [1,2,3]},"
		" \"measurements\": {\"Area\": 96, \"Bad\": NaN, \"Inf\": -Infinity}}},\n"
		"{\"type\": \"Feature\", \"id\": 17, \"geometry\": {\"type\": \"MultiPolygon\", \"coordinates\": "
		"[[[[0,0],[1,0],[1,1],[0,0]]], [[[5.5,5],[7.5,5],[7.5,6],[5.5,5]]]]},"
		" \"properties\": {\"classification\": \"Stroma\", \"nucleusGeometry\": {\"type\": \"Polygon\", "
		"\"coordinates\": [[[0,0],[2,0],[2,2],[0,0]]]},"
		" \"measurements\": [{\"name\": \"Area\", \"value\": 1.25}, {\"name\": \"n\", \"value\": null}]}},\n"
		"{\"type\": \"Feature\", \"geometry\": null, \"properties\": null},\n"
		"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": []}}\n"
		"]}";
	ReadOut		o;

	for (int threads = 1; threads <= 3; threads += 2)
	{
		pb_test_context("geometry, %d threads", threads);
		ReadText(text, PB_JSON_FEATURES, 0, 0, threads, &o);
		CHECK_INT(o.st, PB_OK);
		if (o.st != PB_OK)
			pb_check_fail(__FILE__, __LINE__, "%s", o.err.message);
		CHECK_INT(o.n, 4);
		if (o.n == 4)
		{
			CHECK(SameStr(o.rec[0].id, "a-1") && SameStr(o.rec[1].id, "17") && o.rec[2].id == NULL);
			CHECK(SameStr(o.rec[0].object_type, "cell") && o.rec[1].object_type == NULL);
			CHECK(SameStr(o.rec[0].classification, "Tumor") &&
				  SameStr(o.rec[1].classification, "Stroma") && o.rec[2].classification == NULL);
			CHECK(SameStr(o.rec[0].measurements,
						  "{\"Area\":96,\"Bad\":\"NaN\",\"Inf\":\"-Infinity\"}"));
			CHECK(SameStr(o.rec[1].measurements, "{\"Area\":1.25,\"n\":null}"));
			CHECK(o.rec[2].measurements == NULL);
			CHECK(o.rec[0].has_geom && o.rec[1].has_geom && !o.rec[2].has_geom && o.rec[3].has_geom);
			CHECK_INT(o.rec[3].number, 4);
			if (o.rec[0].has_geom && o.rec[1].has_geom && o.rec[3].has_geom)
			{
				CHECK_DBL_EQ(o.batch.shapes[o.shape[0]].area, 96.0);
				CHECK_INT(o.batch.shapes[o.shape[0]].nrings, 2);
				CHECK_INT(o.batch.shapes[o.shape[0]].geomtype, PB_POLYGONTYPE);
				CHECK_DBL_EQ(o.batch.shapes[o.shape[1]].area, 1.5);
				CHECK_INT(o.batch.shapes[o.shape[1]].geomtype, PB_MULTIPOLYGONTYPE);
				CHECK_INT(o.batch.shapes[o.shape[3]].kind, PB_SHAPE_EMPTY);
			}
		}
		FreeOut(&o);
	}
	pb_test_context("nucleusGeometry");
	ReadText(text, PB_JSON_FEATURES, 1, 0, 2, &o);
	CHECK_INT(o.st, PB_OK);
	CHECK_INT(o.n, 4);
	if (o.n == 4)
	{
		CHECK(o.rec[0].has_geom && o.rec[1].has_geom && !o.rec[2].has_geom && !o.rec[3].has_geom);
		if (o.rec[0].has_geom && o.rec[1].has_geom)
		{
			CHECK_DBL_EQ(o.batch.shapes[o.shape[0]].area, 2.0);
			CHECK_DBL_EQ(o.batch.shapes[o.shape[1]].area, 2.0);
		}
	}
	FreeOut(&o);
	pb_test_context("%s", "");
}

/* The same records in the same order, from 1 thread or 4, over several blocks. */
void
test_json_records_threads(void)
{
	size_t		cap = 16 << 20,
				len = 0;
	char	   *text = malloc(cap);
	int			n = 30000;
	ReadOut    *one = malloc(sizeof(ReadOut)),
			   *four = malloc(sizeof(ReadOut));
	char		dir[] = "/tmp/pb_json_rec_XXXXXX";
	char	   *path;
	int64_t		count[2] = {0, 0};
	double		area[2] = {0, 0};

	len += (size_t) sprintf(text, "[");
	for (int i = 0; i < n; i++)
		len += (size_t) sprintf(text + len,
								"%s{\"type\":\"Feature\",\"id\":%d,\"geometry\":{\"type\":\"Polygon\","
								"\"coordinates\":[[[%d,0],[%d,0],[%d,%d],[%d,0]]]}}",
								i ? ",\n" : "", i, i, i + 2, i + 2, 1 + i % 7, i);
	len += (size_t) sprintf(text + len, "]");
	CHECK(mkdtemp(dir) != NULL);
	path = TestWriteFile(dir, "t.json", text, len);
	for (int t = 0; t < 2; t++)
	{
		PbJsonOptions opt = {0, 0};
		PbRun		run = {t ? 4 : 1, 0, NULL, NULL};
		PbJsonReader rd;
		PbError		err;
		PbStatus	st;
		int			fd = open(path, O_RDONLY);
		int			blocks = 0;

		st = PbJsonReaderBegin(&rd, fd, PB_JSON_FEATURES, &opt, &PbMallocAllocator, &run, &err);
		while (st == PB_OK)
		{
			PbJsonRecord *recs;
			uint32_t	k;

			st = PbJsonReaderNext(&rd, &recs, &k, &err);
			if (st != PB_OK || k == 0)
				break;
			blocks++;
			for (uint32_t i = 0; i < k; i++)
			{
				char		want[16];

				sprintf(want, "%lld", (long long) count[t]);
				CHECK(recs[i].number == count[t] + 1 && SameStr(recs[i].id, want));
				area[t] += 1 + count[t] % 7;
				count[t]++;
			}
		}
		CHECK_INT(st, PB_OK);
		CHECK(blocks >= 3);
		PbJsonReaderEnd(&rd);
		close(fd);
	}
	CHECK_INT(count[0], n);
	CHECK_INT(count[1], n);
	unlink(path);
	free(path);
	rmdir(dir);
	free(text);
	free(one);
	free(four);
}

/* A bad feature: its JSON and the message, byte and line of its error. */
typedef struct BadRecord
{
	const char *json;
	const char *message;		/* on the record's line, or the next for a JSON with a newline */
} BadRecord;

/* Every error of a feature, named with its number, byte and line. */
void
test_json_geojson_errors(void)
{
	static const BadRecord cases[] = {
		{"3", "feature 2 (byte 40): a number, not a GeoJSON Feature (an object)"},
		{"{\"geometry\": null}", "feature 2 (byte 40): its \"type\" is missing, not \"Feature\""},
		{"{\"type\": \"Polygon\"}", "its \"type\" is \"Polygon\", not \"Feature\""},
		{"{\"type\": \"Feature\"}", "no \"geometry\" member"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"LineString\", \"coordinates\": [[0,0],[1,1]]}}",
		"its geometry is a LineString, not a Polygon or MultiPolygon"},
		{"{\"type\": \"Feature\", \"geometry\": {\"coordinates\": []}}", "its geometry has no \"type\" string"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\"}}", "its geometry (a Polygon) has no \"coordinates\""},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[0,0]]]}}",
		"ring 1 has 3 positions; a ring needs at least 4 (the last repeating the first)"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[1,1],[0,1]]]}}",
		"ring 1 is not closed: its last position (0 1) is not its first (0 0), as GeoJSON requires"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"MultiPolygon\", \"coordinates\": [[[[0,0],[1,0],[1,1],[0,0]]], [[[0,0],[1,0],[1,1],[0,0]], [[0,0],[1,0],[1,1],[0,\"1\"]]]]}}",
		"position 4 of ring 2 of polygon 2: coordinate y is a string, not a finite number"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[1,NaN],[0,0]]]}}",
		"position 3 of ring 1: coordinate y is NaN, not a finite number"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1e999,0],[1,1],[0,0]]]}}",
		"position 2 of ring 1: coordinate x is not finite, not a finite number"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[99999999999999999999,0],[1,1],[0,0]]]}}",
		"position 2 of ring 1: coordinate x is out of range, not a finite number"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1],[1,1],[0,0]]]}}",
		"position 2 of ring 1 has 1 number; a position needs 2"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],7,[1,1],[0,0]]]}}",
		"position 2 of ring 1 is a number, not an array of numbers"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [5]}}",
		"ring 1 is a number, not an array of positions"},
		/* a string decoding to a placeholder of the fast number path is a string */
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [\"\\u00010\"]}, "
			"\"properties\": {\"x\": [[0,0],[1,0],[1,1],[0,0]]}}",
		"ring 1 is a string, not an array of positions"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": {}}}",
		"the coordinates of its geometry are an object, not an array of rings"},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"MultiPolygon\", \"coordinates\": [1]}}",
		"polygon 1 of its geometry is a number, not an array of rings"},
		{"{\"type\": \"Feature\", \"geometry\": [], \"id\": 1}", "its geometry is an array, not a GeoJSON geometry"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"id\": [1]}", "its id is an array, not a string or a number"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"properties\": 4}", "its properties are a number, not an object"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"properties\": {\"objectType\": 4}}",
		"properties.objectType is a number, not a string"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"properties\": {\"classification\": [1]}}",
		"properties.classification is an array, not an object or a string"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"properties\": {\"classification\": {\"name\": 1}}}",
		"properties.classification.name is a number, not a string"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"properties\": {\"measurements\": 1}}",
		"properties.measurements is a number, not an object or an array"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"properties\": {\"measurements\": [{\"name\": \"a\"}]}}",
		"measurement 1 is not {\"name\": string, \"value\": ...}"},
		{"{\"type\": \"Feature\",\n \"geometry\": tru}", "feature 2 (byte 76): not JSON: boolean expected"},
		{"{\"type\": \"Feature\",\n \"geometry\": [1,]}", "feature 2 (byte 76): not JSON: unexpected character"},
		{"{\"type\": \"Feature\", \"geometry\": null, /* c */}", "not JSON: "},
		{"{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[1,1],[0,0]]]},\n \"x\": tru}",
		"feature 2 (byte 146): not JSON: boolean expected"},
		{"{\"type\": \"Feature\", \"geometry\": null, \"id\": \"a\x01\"}",
		"feature 2 (byte 86): not JSON: a control character (byte 0x01) in a string"},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		char		text[1024];
		ReadOut		o;

		/* one good feature first (40 bytes to the second), then the bad one */
		snprintf(text, sizeof(text),
				 "[{\"type\":\"Feature\",\"geometry\":null},\n  %s,\n{}]", cases[c].json);
		pb_test_context("case %zu: %s", c, cases[c].json);
		ReadText(text, PB_JSON_FEATURES, 0, 0, 2, &o);
		CHECK_INT(o.st, PB_ERR_FORMAT);
		CHECK_STR_HAS(o.err.message, cases[c].message);
		CHECK_INT(o.err_line, strchr(cases[c].json, '\n') ? 3 : 2);
		CHECK_INT(o.n, 0);
		FreeOut(&o);
	}
	pb_test_context("%s", "");
}

/* HoVer-Net: attributes, both polygons of a contour, and the errors. */
void
test_json_hovernet_nuclei(void)
{
	/* a diamond of pixel centres (13 pixels), and a rectangle with a diagonal (6) */
	const char *text =
		"{\"mag\": 40, \"nuc\": {\n"
		"\"1\": {\"bbox\": [[0,0],[5,5]], \"centroid\": [2,2], \"contour\": [[2,0],[4,2],[2,4],[0,2]],"
		" \"type_prob\": 0.75, \"type\": 2},\n"
		"\"x\\\"y\": {\"contour\": [[10,10],[10,13],[11,13],[11,12]], \"type\": null, \"type_prob\": null}\n"
		"}}";
	ReadOut		o;

	ReadText(text, PB_JSON_NUCLEI, 0, 0, 2, &o);
	CHECK_INT(o.st, PB_OK);
	CHECK_INT(o.layout, PB_JSON_NUCLEI);
	CHECK_INT(o.n, 2);
	if (o.n == 2)
	{
		CHECK(SameStr(o.rec[0].id, "1") && SameStr(o.rec[1].id, "x\"y"));
		CHECK(o.rec[0].has_type && o.rec[0].type == 2 && o.rec[0].has_type_prob &&
			  o.rec[0].type_prob == 0.75);
		CHECK(!o.rec[1].has_type && !o.rec[1].has_type_prob);
		CHECK(o.rec[0].has_geom && o.rec[1].has_geom);
		if (o.rec[0].has_geom && o.rec[1].has_geom)
		{
			/* pixels, each of area 1, outlined on pixel edges */
			CHECK_DBL_EQ(o.batch.shapes[o.shape[0]].area, 13.0);
			CHECK_INT(o.batch.shapes[o.shape[0]].geomtype, PB_POLYGONTYPE);
			CHECK_DBL_EQ(o.batch.shapes[o.shape[1]].area, 6.0);
			CHECK_DBL_EQ(o.batch.shapes[o.shape[1]].box.xmin, 10.0);
			CHECK_DBL_EQ(o.batch.shapes[o.shape[1]].box.ymax, 14.0);
		}
	}
	FreeOut(&o);
	/* as written: the contour closed, area by the shoelace formula */
	ReadText(text, PB_JSON_NUCLEI, 0, 1, 1, &o);
	CHECK_INT(o.st, PB_OK);
	if (o.n == 2 && o.rec[0].has_geom)
	{
		CHECK_DBL_EQ(o.batch.shapes[o.shape[0]].area, 8.0);
		CHECK_INT(o.batch.shapes[o.shape[0]].geomtype, PB_POLYGONTYPE);
		CHECK_DBL_EQ(o.batch.shapes[o.shape[1]].area, 2.0);
	}
	FreeOut(&o);
	/* a GeoJSON file read by content */
	ReadText("{\"features\": []}", PB_JSON_ANY, 0, 0, 1, &o);
	CHECK(o.st == PB_OK && o.layout == PB_JSON_FEATURES && o.n == 0);
	FreeOut(&o);
}

/* Every error of a nucleus, named by its id. */
void
test_json_hovernet_errors(void)
{
	static const BadRecord cases[] = {
		{"4", "nucleus \"b\" (byte 50): a number, not an object"},
		{"{}", "nucleus \"b\" (byte 50): no \"contour\" member"},
		{"{\"contour\": 1}", "its contour is a number, not an array of [x, y] points"},
		{"{\"contour\": [[0,0],[1,1],[0,0],[1,1]]}", "its contour has 2 distinct points, fewer than a polygon needs (3)"},
		{"{\"contour\": [[0,0],[1],[0,0]]}", "point 2 of its contour is too short, not [x, y]"},
		{"{\"contour\": [[0,0],\"a\",[0,0]]}", "point 2 of its contour is a string, not [x, y]"},
		{"{\"contour\": [[0,0],[1,NaN],[0,0]]}", "point 2 of its contour: y is NaN, not a finite number"},
		{"{\"contour\": [[0,0],[1.5,0],[0,1]]}",
		"point 2 of its contour (1.5 0) is not on a pixel centre (integers within +-2^30); read it with contour => 'as_written'"},
		{"{\"contour\": [[0,0],[100000,0],[0,100000]]}", "a contour spanning 100001 x 100001 pixels"},
		{"{\"contour\": [[0,0],[1,0],[0,1]], \"type\": \"t\"}", "its type is a string, not an integer"},
		{"{\"contour\": [[0,0],[1,0],[0,1]], \"type\": 1.5}", "its type is a number, not an integer"},
		{"{\"contour\": [[0,0],[1,0],[0,1]], \"type\": 9999999999}", "its type is out of range, not an integer"},
		{"{\"contour\": [[0,0],[1,0],[0,1]], \"type_prob\": []}", "its type_prob is an array, not a number"},
		{"{\"contour\": [[0,0],[1,0],[0,1]]\n, \"type\": x}", "nucleus 2 (byte 97): not JSON: unexpected character"},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		char		text[1024];
		ReadOut		o;

		snprintf(text, sizeof(text),
				 "{\"nuc\": {\"a\": {\"contour\": [[0,0],[0,1],[1,0]]},\n \"b\": %s}}", cases[c].json);
		pb_test_context("case %zu: %s", c, cases[c].json);
		ReadText(text, PB_JSON_NUCLEI, 0, 0, 2, &o);
		CHECK_INT(o.st, PB_ERR_FORMAT);
		CHECK_STR_HAS(o.err.message, cases[c].message);
		CHECK_INT(o.err_line, strchr(cases[c].json, '\n') ? 3 : 2);
		FreeOut(&o);
	}
	pb_test_context("%s", "");
}

/* Whether lattice point (px, py) is on the segment a-b (exact). */
static int
OnSegment(int64_t px, int64_t py, int64_t ax, int64_t ay, int64_t bx, int64_t by)
{
	return (bx - ax) * (py - ay) == (by - ay) * (px - ax) &&
		px >= (ax < bx ? ax : bx) && px <= (ax < bx ? bx : ax) &&
		py >= (ay < by ? ay : by) && py <= (ay < by ? by : ay);
}

/* Even-odd test of a point on no edge: crossings of the ray to +x (exact). */
static int
Inside(int64_t px, int64_t py, const int64_t *xy, int n)
{
	int			in = 0;

	for (int i = 0; i < n; i++)
	{
		int64_t		ax = xy[2 * i],
					ay = xy[2 * i + 1],
					bx = xy[2 * ((i + 1) % n)],
					by = xy[2 * ((i + 1) % n) + 1];

		if ((ay > py) != (by > py))
		{
			/* x of the crossing > px, sign-corrected for the edge's direction */
			int64_t		lhs = (px - ax) * (by - ay),
						rhs = (bx - ax) * (py - ay);

			if (by > ay ? lhs < rhs : lhs > rhs)
				in = !in;
		}
	}
	return in;
}

/*
 * A contour zig-zagging across its box (a small file, a huge fill: rows
 * crossed and lattice points add up over the edges) is refused before any
 * memory is taken; a nucleus-sized one of the same box is filled.
 */
void
test_contour_fill_zigzag(void)
{
	enum
	{
		N = 2048
	};
	int64_t    *xy = malloc(sizeof(int64_t) * 2 * N);
	PbFilled	f;
	PbError		err = {0};
	PbStatus	st;

	for (int i = 0; i < N; i++)
	{
		xy[2 * i] = i / 2;
		xy[2 * i + 1] = (i % 4 == 1 || i % 4 == 2) ? 16383 : 0;
	}
	st = PbFillContour(xy, N, &PbMallocAllocator, &f, &err);
	CHECK_INT(st, PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "a contour whose edges are 16778238 pixels long in all");
	CHECK_STR_HAS(err.message, "more than the 16777216 a contour may have");
	CHECK(f.mask == NULL);
	/* its outline alone: the box's four corners */
	xy[0] = 0, xy[1] = 0, xy[2] = 1023, xy[3] = 0, xy[4] = 1023, xy[5] = 16383, xy[6] = 0, xy[7] = 16383;
	st = PbFillContour(xy, 4, &PbMallocAllocator, &f, &err);
	CHECK_INT(st, PB_OK);
	CHECK_INT(f.width, 1024);
	CHECK_INT(f.height, 16384);
	free(f.mask);
	free(xy);
}

/* The fill against brute force, on random contours of every slope. */
void
test_contour_fill_truth(void)
{
	Rng			r = {4242};

	for (int iter = 0; iter < 400; iter++)
	{
		int			n = (int) RngRange(&r, 1, 12);
		int64_t		xy[24];
		PbFilled	f;
		PbError		err;
		PbStatus	st;
		int			bad = 0;

		for (int i = 0; i < 2 * n; i++)
			xy[i] = RngRange(&r, -6, 14) + (i % 2 ? 1000 : -50);
		if (iter % 3 == 0)		/* steps of a traced outline: 8 directions */
			for (int i = 1; i < n; i++)
			{
				int64_t		d = RngRange(&r, 1, 5);
				int			dir = (int) RngRange(&r, 0, 7);
				static const int dx[8] = {1, 1, 0, -1, -1, -1, 0, 1},
							dy[8] = {0, 1, 1, 1, 0, -1, -1, -1};

				xy[2 * i] = xy[2 * i - 2] + dx[dir] * d;
				xy[2 * i + 1] = xy[2 * i - 1] + dy[dir] * d;
			}
		pb_test_context("iter %d (%d vertices)", iter, n);
		st = PbFillContour(xy, (uint32_t) n, &PbMallocAllocator, &f, &err);
		CHECK_INT(st, PB_OK);
		if (st != PB_OK)
			continue;
		for (uint32_t row = 0; row < f.height && !bad; row++)
			for (uint32_t col = 0; col < f.width && !bad; col++)
			{
				int64_t		px = f.x0 + col,
							py = f.y0 + row;
				int			on = 0;

				for (int i = 0; i < n && !on; i++)
					on = OnSegment(px, py, xy[2 * i], xy[2 * i + 1], xy[2 * ((i + 1) % n)],
								   xy[2 * ((i + 1) % n) + 1]);
				if (f.mask[row * f.width + col] != (on || Inside(px, py, xy, n)))
				{
					pb_check_fail(__FILE__, __LINE__, "pixel (%lld %lld): %d", (long long) px,
								  (long long) py, f.mask[row * f.width + col]);
					bad = 1;
				}
			}
		free(f.mask);
	}
	pb_test_context("%s", "");
}

/*
 * The fast parser's numbers are strtod's (json-c's) in every spelling,
 * and a record's bytes come back around its placeholders: json-c's error
 * offsets in the copy map back to the record's own.
 */
void
test_json_numbers_fast_path(void)
{
	static const char *const spell[] = {"%.17g", "%.3f", "%.0f", "%.6e", "%.15E", "%.1f"};
	Rng			r = {777};
	PbNumTree	t;
	char		rec[4096],
				out[4096];

	memset(&t, 0, sizeof(t));
	for (int iter = 0; iter < 2000; iter++)
	{
		double		v[4];
		size_t		len = 0,
					out_len,
					bad_at;
		int			long_int = 0;

		len += (size_t) sprintf(rec, "{\"a\": \"[[1]]\", \"c\": [[");
		for (int k = 0; k < 4; k++)
		{
			double		x = (RngDouble(&r) - 0.5) * pow(10, (double) RngRange(&r, -30, 30));
			char		num[64];

			if (k == 1)
				x = (double) RngRange(&r, -100000, 100000);
			sprintf(num, spell[RngRange(&r, 0, 5)], x);
			v[k] = strtod(num, NULL);
			if (strpbrk(num, ".eE") == NULL)
			{
				if (v[k] == 0)
					v[k] = 0.0; /* json-c's integer 0, not -0 */
				/* json-c saturates longer integers: the fast path leaves them */
				long_int |= strlen(num) - (num[0] == '-') > 18;
			}
			len += (size_t) sprintf(rec + len, "%s%s", k ? ", " : "", num);
		}
		len += (size_t) sprintf(rec + len, "]], \"z\": 1}");
		CHECK(PbNumSubstitute(&t, rec, len, out, &out_len, &bad_at) == 0);
		CHECK_INT(t.nroots, !long_int);
		if (t.nroots == 1)
		{
			const PbNumNode *outer = &t.nodes[t.roots[0]];
			const PbNumNode *inner = PbNumKid(&t, outer, 0);

			CHECK_INT(inner->count, 4);
			for (uint32_t k = 0; k < 4 && k < inner->count; k++)
				if (memcmp(&PbNumKid(&t, inner, k)->value, &v[k], sizeof(double)) != 0)
				{
					pb_check_fail(__FILE__, __LINE__, "%s: number %u is %.17g, strtod %.17g",
								  rec, k, PbNumKid(&t, inner, k)->value, v[k]);
					break;
				}
			/* "z" after the placeholder is at its own offset again */
			CHECK(strstr(out, "\"c\": \"\x01" "0\", \"z\"") != NULL);
			CHECK_INT(PbNumFileOffset(&t, (size_t) (strstr(out, "\"z\"") - out)),
					  (int64_t) (strstr(rec, "\"z\"") - rec));
		}
	}
	/* a raw control character in a string is refused at its byte */
	CHECK(PbNumSubstitute(&t, "[\"a\x02\"]", 5, out, &(size_t) {0}, &(size_t) {0}) == -1);
	PbNumFree(&t);
}
