/*
 * test_gserialized.c: PbDecodeGserialized on bytes built here by hand
 * following the layout at the top of decode_gserialized.c (PostGIS 2's v1
 * and PostGIS 3's v2, with and without bounding box and extended flags);
 * every shape must equal the one decoded from the same geometry's EWKB.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/geom/pb_geom.h"
#include "testutil.h"

static const char *const gser_wkts[] = {
	"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))",
	"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2),(6 6,6 8,8 8,8 6,6 6))",
	"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))",
	"POLYGON((0 0,4 1,3 5,-1 2,0 0))",
	("GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,5 5),POLYGON((0 0,2 0,2 2,0 2,0 0)),"
	 "GEOMETRYCOLLECTION(MULTIPOINT(1 1,2 2),TRIANGLE((2 0,6 0,2 3,2 0))))"),
	"TRIANGLE((0 0,4 0,0 3,0 0))",
	"POLYGON EMPTY", "POINT EMPTY", "POINT(3 4)", "GEOMETRYCOLLECTION EMPTY",
	"MULTIPOLYGON(((-1073741824 -5,1073741824 -5,1073741824 5,-1073741824 5,-1073741824 -5)))",
	"POLYGON((1e12 1e12,1000000000001 1e12,1000000000001 1000000000001.5,1e12 1e12))",
};

/*
 * Decode g as GSERIALIZED with options o, copied lead bytes into a malloc'd
 * buffer: lead 4 places it as PostgreSQL holds it aligned (after a 4-byte
 * varlena header, so its doubles are 8-byte aligned: the int path's
 * vectorized converter reads them), lead 0 4 bytes off (the converter for
 * any layout).
 */
static PbStatus
DecodeGserAt(PbBatch *b, const TGeom *g, const TGserOpt *o, size_t lead, uint32_t *s,
			 PbError *err)
{
	TBuf		buf = {0};
	uint8_t    *p;
	PbStatus	st;

	TgWriteGser(g, o, &buf);
	p = malloc(buf.n + lead);
	memcpy(p + lead, buf.p, buf.n);
	st = PbDecodeGserialized(b, p + lead, buf.n, s, err);
	free(p);
	TBufFree(&buf);
	return st;
}

/* Decode g as GSERIALIZED with options o (DecodeGserAt, 4 bytes off). */
static PbStatus
DecodeGser(PbBatch *b, const TGeom *g, const TGserOpt *o, uint32_t *s, PbError *err)
{
	return DecodeGserAt(b, g, o, 0, s, err);
}

/*
 * A staircase ring of m steps, scale s, from (x0, y0): (x0, y0), (x0 + ms,
 * y0), then up and left step by step to (x0, y0 + ms); its area is
 * s^2 m (m + 1) / 2.  Written into xy (2 (2m + 2) doubles); its point count.
 */
static int
Staircase(double *xy, int m, double s, double x0, double y0)
{
	int			n = 0;

	xy[n++] = x0;
	xy[n++] = y0;
	for (int i = 0; i < m; i++)
	{
		xy[n++] = x0 + (m - i) * s;
		xy[n++] = y0 + i * s;
		xy[n++] = x0 + (m - i) * s;
		xy[n++] = y0 + (i + 1) * s;
	}
	xy[n++] = x0;
	xy[n++] = y0 + m * s;
	return n / 2;
}

/*
 * The int path over rings of every length (the vectorized converter's
 * body and tail), aligned and not, near +-2^30 and with the 128-bit area:
 * each shape is the EWKB decoder's, of the int kind with the staircase's
 * area; one coordinate made fractional, past 2^30 or NaN, anywhere in the
 * ring, sends it to double storage or to the non-finite error.
 */
void
test_gser_int_path_layouts(void)
{
	static const double origins[][3] = {	/* x0, y0, scale */
		{0, 0, 1}, {-1073741824, -1073741824, 1}, {1073741824 - 80, 5, 1},
		{-1073741824, -1073741824, 16777216},
	};
	const TGserOpt opt = {2, 1, 0, 0};	/* version 2, a box, no extended flags, SRID 0 */
	double		xy[2 * 84];
	PbBatch		b;
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t o = 0; o < sizeof(origins) / sizeof(origins[0]); o++)
		for (int m = 1; m <= 40; m++)
		{
			int			n = Staircase(xy, m, origins[o][2], origins[o][0], origins[o][1]);
			long double area = (long double) origins[o][2] * origins[o][2] * m * (m + 1) / 2;

			if (origins[o][0] + m * origins[o][2] > 1073741824.0)
				continue;
			for (int bad = -1; bad < 3 * (m == 7 || m == 40); bad++)
				for (int at = 0; at < (bad < 0 ? 1 : n); at++)
					for (int aligned = 0; aligned < 2; aligned++)
					{
						double		v[2 * 84];
						TGeom	   *g;
						uint32_t	e = 0,
									s = 0;
						PbError		err;
						PbStatus	st;

						memcpy(v, xy, sizeof(double) * 2 * (size_t) n);
						if (bad >= 0)	/* a fractional x, an x past 2^30, a NaN y */
							v[2 * at + (bad == 2)] = bad == 0 ? v[2 * at] + 0.5
								: bad == 1 ? 1073741825.0 : NAN;
						g = TgPolygonOf(v, n);
						pb_test_context("origin %zu, %d steps, bad %d at %d, aligned %d",
										o, m, bad, at, aligned);
						st = DecodeGserAt(&b, g, &opt, aligned ? 4 : 0, &s, &err);
						if (bad == 2)
						{
							CHECK_INT(st, PB_ERR_NONFINITE);
							TgFree(g);
							continue;
						}
						CHECK_INT(st, PB_OK);
						CHECK_INT(DecodeTg(&b, g, 0, &e, &err), PB_OK);
						if (!SameShape(&b, e, &b, s, 1, why, sizeof(why)))
							pb_check_fail(__FILE__, __LINE__, "differs from EWKB: %s", why);
						CHECK_INT(b.shapes[s].kind, bad < 0 ? PB_SHAPE_INT : PB_SHAPE_DOUBLE);
						if (bad < 0)
							CHECK_DBL_EQ(b.shapes[s].area, (double) area);
						TgFree(g);
					}
		}
	PbBatchFree(&b);
}

/* Every header variant decodes to the EWKB shape (rings, kind, area, box, type, SRID). */
void
test_gser_matches_ewkb(void)
{
	static const TGserOpt opts[] = {
		{2, 0, 0, 4326}, {2, 1, 0, 4326}, {2, 0, 1, 4326}, {2, 1, 1, 4326},
		{1, 0, 0, 4326}, {1, 1, 0, 4326},
	};
	PbBatch		b;
	char		why[200];

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(gser_wkts) / sizeof(gser_wkts[0]); i++)
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
		{
			TGeom	   *g = TgParse(gser_wkts[i]);
			uint32_t	e = 0,
						s = 0;
			PbError		err;
			PbStatus	st;

			g->srid = 4326;
			pb_test_context("%s v%d bbox=%d ext=%d", gser_wkts[i], opts[k].version,
							opts[k].bbox, opts[k].extended);
			CHECK_INT(DecodeTg(&b, g, 0, &e, &err), PB_OK);
			st = DecodeGser(&b, g, &opts[k], &s, &err);
			CHECK_INT(st, PB_OK);
			if (st != PB_OK)
				pb_check_fail(__FILE__, __LINE__, "message: %s", err.message);
			else if (!SameShape(&b, e, &b, s, 1, why, sizeof(why)))
				pb_check_fail(__FILE__, __LINE__, "differs from EWKB: %s", why);
			TgFree(g);
		}
	PbBatchFree(&b);
}

/* Z, M and ZM GSERIALIZED (v1 and v2, with box) decode to the 2-D shape. */
void
test_gser_zm_dims(void)
{
	static const char *const v[] = {
		"POLYGON Z((0 0 1,6 0 2,6 4 3,0 4 4,0 0 1),(1 1 0,1 2 0,2 2 0,2 1 0,1 1 0))",
		"POLYGON M((0 0 1,6 0 2,6 4 3,0 4 4,0 0 1),(1 1 0,1 2 0,2 2 0,2 1 0,1 1 0))",
		"POLYGON ZM((0 0 1 5,6 0 2 5,6 4 3 5,0 4 4 5,0 0 1 5),(1 1 0 0,1 2 0 0,2 2 0 0,2 1 0 0,1 1 0 0))",
		"MULTIPOLYGON ZM(((0 0 1 5,6 0 2 5,6 4 3 5,0 4 4 5,0 0 1 5),(1 1 0 0,1 2 0 0,2 2 0 0,2 1 0 0,1 1 0 0)))",
	};
	PbBatch		b;
	char		why[200];
	uint32_t	base;

	PbBatchInit(&b, &PbMallocAllocator);
	base = DecodeWkt(&b, "POLYGON((0 0,6 0,6 4,0 4,0 0),(1 1,1 2,2 2,2 1,1 1))", 0);
	for (int ver = 1; ver <= 2; ver++)
		for (int bbox = 0; bbox < 2; bbox++)
			for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			{
				TGeom	   *g = TgParse(v[i]);
				TGserOpt	o = {ver, bbox, ver == 2 && bbox, 0};
				uint32_t	s = 0;
				PbError		err;

				pb_test_context("%s v%d bbox=%d", v[i], ver, bbox);
				CHECK_INT(DecodeGser(&b, g, &o, &s, &err), PB_OK);
				if (!SameShape(&b, base, &b, s, 0, why, sizeof(why)))
					pb_check_fail(__FILE__, __LINE__, "differs from 2-D: %s", why);
				CHECK_DBL_EQ(b.shapes[s].area, 23.0);
				TgFree(g);
			}
	PbBatchFree(&b);
}

/* The SRID is 21 bits, sign-extended (negative and large values), high bits of byte 0 ignored. */
void
test_gser_srid_21_bits(void)
{
	static const int32_t srids[] = {0, 1, 4326, 999999, 1048575, -1, -2, -1048576, -999};
	TGeom	   *g = TgParse("POLYGON((0 0,2 0,2 2,0 2,0 0))");
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (int ver = 1; ver <= 2; ver++)
		for (size_t i = 0; i < sizeof(srids) / sizeof(srids[0]); i++)
		{
			TGserOpt	o = {ver, 0, 0, srids[i]};
			TBuf		buf = {0};
			uint32_t	s = 0;
			PbError		err;

			TgWriteGser(g, &o, &buf);
			pb_test_context("srid %d v%d", (int) srids[i], ver);
			CHECK_INT(PbDecodeGserialized(&b, buf.p, buf.n, &s, &err), PB_OK);
			CHECK_INT(b.shapes[s].srid, srids[i]);
			/* the three bits above the 21 are not part of the SRID */
			buf.p[0] |= 0xe0;
			CHECK_INT(PbDecodeGserialized(&b, buf.p, buf.n, &s, &err), PB_OK);
			CHECK_INT(b.shapes[s].srid, srids[i]);
			TBufFree(&buf);
		}
	TgFree(g);
	PbBatchFree(&b);
}

/* Reserved and unknown version bits, short headers, unknown body types and trailing bytes are PB_ERR_VERSION. */
void
test_gser_bad_header(void)
{
	TGeom	   *g = TgParse("POLYGON((0 0,2 0,2 2,0 2,0 0))");
	TGserOpt	o2 = {2, 0, 0, 4326},
				o1 = {1, 0, 0, 4326};
	TBuf		v2 = {0},
				v1 = {0};
	PbBatch		b;
	uint32_t	s = 0;
	PbError		err;

	PbBatchInit(&b, &PbMallocAllocator);
	TgWriteGser(g, &o2, &v2);
	TgWriteGser(g, &o1, &v1);
	/* v2 with reserved bit 0x20, with 0x80 (future versions) */
	v2.p[3] |= 0x20;
	CHECK_INT(PbDecodeGserialized(&b, v2.p, v2.n, &s, &err), PB_ERR_VERSION);
	v2.p[3] ^= 0x20 | 0x80;
	CHECK_INT(PbDecodeGserialized(&b, v2.p, v2.n, &s, &err), PB_ERR_VERSION);
	v2.p[3] ^= 0x80;
	CHECK_INT(PbDecodeGserialized(&b, v2.p, v2.n, &s, &err), PB_OK);
	/* a v1 header with the 0x80 bit: a version we do not know */
	v1.p[3] |= 0x80;
	CHECK_INT(PbDecodeGserialized(&b, v1.p, v1.n, &s, &err), PB_ERR_VERSION);
	v1.p[3] &= 0x7f;
	/* v1's READONLY (0x10) and SOLID (0x20) bits are harmless */
	v1.p[3] |= 0x30;
	CHECK_INT(PbDecodeGserialized(&b, v1.p, v1.n, &s, &err), PB_OK);
	CHECK_DBL_EQ(b.shapes[s].area, 4.0);
	/* short header */
	CHECK_INT(PbDecodeGserialized(&b, v2.p, 7, &s, &err), PB_ERR_VERSION);
	CHECK_INT(err.code, PB_ERR_VERSION);
	CHECK(err.message[0] != '\0');
	/* unknown body type */
	{
		uint32_t	t = 99;

		memcpy(v2.p + 4, &t, 4);
		CHECK_INT(PbDecodeGserialized(&b, v2.p, v2.n, &s, &err), PB_ERR_VERSION);
		t = PB_POLYGONTYPE;
		memcpy(v2.p + 4, &t, 4);
	}
	/* trailing bytes */
	{
		uint8_t    *p = malloc(v2.n + 8);

		memcpy(p, v2.p, v2.n);
		memset(p + v2.n, 0, 8);
		CHECK_INT(PbDecodeGserialized(&b, p, v2.n + 8, &s, &err), PB_ERR_VERSION);
		free(p);
	}
	CHECK_INT(b.nshapes, 2);
	TBufFree(&v2);
	TBufFree(&v1);
	TgFree(g);
	PbBatchFree(&b);
}

/* A NaN or infinite coordinate (x, y, or Z) anywhere is PB_ERR_NONFINITE with its message; the batch is untouched. */
void
test_gser_nonfinite(void)
{
	static const char *const v[] = {
		"POLYGON((0 0,nan 0,1 1,0 0))",
		"POLYGON((0 0,10 0,10 10,0 0),(1 1,2 1,2 -inf,1 1))",
		"MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),((5 5,6 5,6 nan,5 5)))",
		"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 0)),LINESTRING(0 0,inf 1))",
		"GEOMETRYCOLLECTION(POINT(nan 1),POLYGON((0 0,1 0,1 1,0 0)))",
		"TRIANGLE((0 0,1 0,inf 1,0 0))",
		"POLYGON Z((0 0 1,1 0 nan,1 1 1,0 0 1))",
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	DecodeWkt(&b, "POLYGON((0 0,1 0,1 1,0 1,0 0))", 0);
	for (int ver = 1; ver <= 2; ver++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		{
			TGeom	   *g = TgParse(v[i]);
			TGserOpt	o = {ver, 0, 0, 0};
			uint32_t	s = 777,
						n0 = b.nshapes,
						r0 = b.nrings,
						i0 = b.nipts,
						d0 = b.ndpts;
			PbError		err;

			pb_test_context("%s v%d", v[i], ver);
			CHECK_INT(DecodeGser(&b, g, &o, &s, &err), PB_ERR_NONFINITE);
			CHECK_STR_HAS(err.message, "non-finite");
			CHECK_INT(s, 777);
			CHECK_INT(b.nshapes, n0);
			CHECK_INT(b.nrings, r0);
			CHECK_INT(b.nipts, i0);
			CHECK_INT(b.ndpts, d0);
			TgFree(g);
		}
	PbBatchFree(&b);
}

/* Curved types, in or out of collections, are PB_ERR_UNSUPPORTED; geography (geodetic flag) too. */
void
test_gser_curves_and_geography(void)
{
	static const char *const v[] = {
		"CIRCULARSTRING(0 0,1 1,2 0)",
		"COMPOUNDCURVE(CIRCULARSTRING(0 0,1 1,2 0),(2 0,0 0))",
		"CURVEPOLYGON(CIRCULARSTRING(0 0,2 0,0 0))",
		"MULTICURVE((0 0,1 1))",
		"MULTISURFACE(((0 0,2 0,2 2,0 0)))",
		"POLYHEDRALSURFACE(((0 0,2 0,2 2,0 0)))",
		"TIN(((0 0,2 0,2 2,0 0)))",
		"GEOMETRYCOLLECTION(POLYGON((0 0,1 0,1 1,0 0)),CURVEPOLYGON((0 0,2 0,2 2,0 0)))",
	};
	PbBatch		b;

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
	{
		TGeom	   *g = TgParse(v[i]);
		TGserOpt	o = {2, 0, 0, 0};
		uint32_t	s;
		PbError		err;

		pb_test_context("%s", v[i]);
		CHECK_INT(DecodeGser(&b, g, &o, &s, &err), PB_ERR_UNSUPPORTED);
		CHECK_STR_HAS(err.message, "not supported");
		CHECK_INT(b.nshapes, 0);
		TgFree(g);
	}
	{
		TGeom	   *g = TgParse("POLYGON((0 0,2 0,2 2,0 2,0 0))");
		TGserOpt	o = {2, 0, 0, 4326};
		TBuf		buf = {0};
		uint32_t	s;
		PbError		err;

		TgWriteGser(g, &o, &buf);
		buf.p[3] |= 0x08;
		CHECK_INT(PbDecodeGserialized(&b, buf.p, buf.n, &s, &err), PB_ERR_UNSUPPORTED);
		CHECK_STR_HAS(err.message, "geography");
		TBufFree(&buf);
		TgFree(g);
	}
	PbBatchFree(&b);
}

/* Every strict prefix fails (never a crash, batch untouched); random byte changes never crash. */
void
test_gser_truncated_and_fuzzed(void)
{
	static const TGserOpt opts[] = {{2, 1, 1, 4326}, {1, 1, 0, 3857}, {2, 0, 0, -5}};
	Rng			rng = {99};
	PbBatch		b;
	int			nok = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t i = 0; i < sizeof(gser_wkts) / sizeof(gser_wkts[0]); i++)
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
		{
			TGeom	   *g = TgParse(gser_wkts[i]);
			TBuf		buf = {0};

			TgWriteGser(g, &opts[k], &buf);
			for (size_t len = 0; len < buf.n; len++)
			{
				uint8_t    *p = malloc(len ? len : 1);
				uint32_t	n0 = b.nshapes,
							r0 = b.nrings,
							s;
				PbError		err;
				PbStatus	st;

				memcpy(p, buf.p, len);
				pb_test_context("%s opt %zu len %zu", gser_wkts[i], k, len);
				st = PbDecodeGserialized(&b, p, len, &s, &err);
				CHECK(st == PB_ERR_FORMAT || st == PB_ERR_VERSION);
				CHECK_INT(err.code, st);
				CHECK_INT(b.nshapes, n0);
				CHECK_INT(b.nrings, r0);
				free(p);
			}
			for (int iter = 0; iter < 300; iter++)
			{
				uint8_t    *p = malloc(buf.n);
				uint32_t	n0 = b.nshapes,
							s;
				PbError		err;
				PbStatus	st;

				memcpy(p, buf.p, buf.n);
				for (int f = (int) RngRange(&rng, 1, 3); f > 0; f--)
					p[RngRange(&rng, 0, (int64_t) buf.n - 1)] ^= (uint8_t) (1u << RngRange(&rng, 0, 7));
				pb_test_context("%s opt %zu iter %d", gser_wkts[i], k, iter);
				st = PbDecodeGserialized(&b, p, buf.n, &s, &err);
				CHECK(st == PB_OK || st == PB_ERR_FORMAT || st == PB_ERR_VERSION ||
					  st == PB_ERR_UNSUPPORTED || st == PB_ERR_NONFINITE);
				if (st == PB_OK)
				{
					nok++;
					CHECK_INT(b.nshapes, n0 + 1);
					CHECK(b.shapes[s].ring_first + b.shapes[s].nrings <= b.nrings);
				}
				else
					CHECK_INT(b.nshapes, n0);
				free(p);
			}
			PbBatchReset(&b);
			TBufFree(&buf);
			TgFree(g);
		}
	CHECK(nok > 0);
	PbBatchFree(&b);
}

/* Stop PbDecodeValues at once (a cancel). */
static int
StopNow(void *arg)
{
	(void) arg;
	return 1;
}

/*
 * Values decoded on threads, a slice per job: the slices' batches, one
 * after the other, hold exactly the shapes of a sequential decode; a
 * slice stops at a bad value with its status (the values before it
 * decoded, the other slices whole); a poll that stops is reported.
 */
void
test_gser_values_on_threads(void)
{
	enum
	{
		NVALUES = 700, PER_SLICE = 64
	};
	const uint8_t *data[NVALUES];
	size_t		len[NVALUES];
	TBuf		bufs[NVALUES];
	PbValueSlice slices[(NVALUES + PER_SLICE - 1) / PER_SLICE];
	uint32_t	nslices = (NVALUES + PER_SLICE - 1) / PER_SLICE,
				at = 0;
	PbBatch		want;
	PbRun run = {4, 0, NULL, NULL};
	const uint8_t bad[] = {0, 0, 0, 0, 0, 0, 0, 0};

	PbBatchInit(&want, &PbMallocAllocator);
	for (int i = 0; i < NVALUES; i++)
	{
		TGeom	   *g = TgParse(gser_wkts[i % 4]);
		TGserOpt	o = {1 + i % 2, i % 3 == 0, 0, 0};
		uint32_t	s;
		PbError		err;

		memset(&bufs[i], 0, sizeof(TBuf));
		TgWriteGser(g, &o, &bufs[i]);
		data[i] = bufs[i].p;
		len[i] = bufs[i].n;
		CHECK_INT(PbDecodeGserialized(&want, data[i], len[i], &s, &err), PB_OK);
		TgFree(g);
	}
	for (uint32_t k = 0; k < nslices; k++)
	{
		slices[k].first = k * PER_SLICE;
		slices[k].n = k * PER_SLICE + PER_SLICE <= NVALUES ? PER_SLICE : NVALUES - k * PER_SLICE;
	}
	CHECK_INT(PbDecodeValues(data, len, slices, nslices, &run), PB_OK);
	for (uint32_t k = 0; k < nslices; k++)
	{
		CHECK_INT(slices[k].status, PB_OK);
		CHECK_INT(slices[k].batch.nshapes, slices[k].n);
		for (uint32_t i = 0; i < slices[k].batch.nshapes; i++, at++)
		{
			char		why[200];

			if (!SameShape(&slices[k].batch, i, &want, at, 1, why, sizeof(why)))
			{
				pb_check_fail(__FILE__, __LINE__, "value %u: %s", at, why);
				break;
			}
		}
	}
	CHECK_INT(at, NVALUES);
	PbValueSlicesFree(slices, nslices);

	/* a bad value 10 into the third slice */
	data[2 * PER_SLICE + 10] = bad;
	len[2 * PER_SLICE + 10] = sizeof(bad);
	CHECK_INT(PbDecodeValues(data, len, slices, nslices, &run), PB_OK);
	CHECK(slices[2].status != PB_OK);
	CHECK_INT(slices[2].batch.nshapes, 10);
	CHECK_INT(slices[1].status, PB_OK);
	CHECK_INT(slices[3].batch.nshapes, PER_SLICE);
	PbValueSlicesFree(slices, nslices);

	/* stopped: reported; a slice is decoded whole (a worker took it first) or not at all */
	run.poll = StopNow;
	CHECK_INT(PbDecodeValues(data, len, slices, nslices, &run), PB_ERR_STOPPED);
	for (uint32_t k = 0; k < nslices; k++)
		if (k != 2)
			CHECK(slices[k].batch.nshapes == 0 || slices[k].batch.nshapes == slices[k].n);
	PbValueSlicesFree(slices, nslices);
	for (int i = 0; i < NVALUES; i++)
		TBufFree(&bufs[i]);
	PbBatchFree(&want);
}
