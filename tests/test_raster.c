/*
 * test_raster.c: raster WKB reading and writing against values PostGIS
 * 3.3 produced (ST_AsWKB of rasters built with ST_MakeEmptyRaster /
 * ST_AddBand / ST_SetValue), the same values in XDR order, every
 * truncation, and write-read round trips of each pixel type.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "harness.h"

/* ST_AsWKB(ST_SetValue(ST_AddBand(ST_MakeEmptyRaster(3,2,10.5,20.5,1,-1,0,0,4326),'8BUI',7,0),2,1,9)) */
static const char *const postgis_8bui =
	"0100000100000000000000f03f000000000000f0bf000000000000254000000000008034"
	"4000000000000000000000000000000000e6100000030002004400070907070707";

/* ST_AsWKB(ST_AddBand(ST_MakeEmptyRaster(2,1,0,0,1),'16BUI',300,NULL)) */
static const char *const postgis_16bui =
	"0100000100000000000000f03f000000000000f0bf000000000000000000000000000000"
	"000000000000000000000000000000000000000000020001000600002c012c01";

/* Decode a hex string into a malloc'd buffer. */
static uint8_t *
FromHex(const char *hex, size_t *len)
{
	size_t		n = strlen(hex) / 2;
	uint8_t    *out = malloc(n);

	for (size_t i = 0; i < n; i++)
	{
		unsigned	v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t) v;
	}
	*len = n;
	return out;
}

/* Reverse n bytes in place. */
static void
Reverse(uint8_t *p, int n)
{
	for (int i = 0; i < n / 2; i++)
	{
		uint8_t		t = p[i];

		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

/* The XDR form of an NDR raster WKB of one band of pixel size bytes. */
static uint8_t *
ToXdr(const uint8_t *ndr, size_t len, int bytes, int64_t npix)
{
	uint8_t    *x = malloc(len);
	size_t		pos = 61 + 1;

	memcpy(x, ndr, len);
	x[0] = 0;
	Reverse(x + 1, 2);
	Reverse(x + 3, 2);
	for (int i = 0; i < 6; i++)
		Reverse(x + 5 + 8 * i, 8);
	Reverse(x + 53, 4);
	Reverse(x + 57, 2);
	Reverse(x + 59, 2);
	for (int64_t i = 0; i <= npix; i++, pos += bytes)
		Reverse(x + pos, bytes);
	return x;
}

/* PostGIS's 8BUI raster: header, georeference, band, nodata, pixels. */
void
test_raster_wkb_postgis_8bui(void)
{
	size_t		len;
	uint8_t    *wkb = FromHex(postgis_8bui, &len);
	PbRasterHeader h;
	PbRasterBand band;
	PbError		err;
	uint8_t		px[6],
				nd[6];
	PbPixType	type;

	CHECK(PbRasterParseHeader(wkb, len, &h, &err));
	CHECK_INT(h.width, 3);
	CHECK_INT(h.height, 2);
	CHECK_INT(h.nbands, 1);
	CHECK_INT(h.srid, 4326);
	CHECK(h.scale_x == 1 && h.scale_y == -1 && h.ul_x == 10.5 && h.ul_y == 20.5);
	CHECK(h.skew_x == 0 && h.skew_y == 0);
	CHECK(PbRasterGetBand(wkb, len, 1, &band, &err));
	CHECK_INT(band.wkb_type, PB_WKB_8BUI);
	CHECK(band.has_nodata && !band.offline && !band.all_nodata);
	CHECK(band.nodata == 0);
	CHECK(PbRasterComputeType(band.wkb_type, &type) && type == PB_PIX_8BUI);
	CHECK_INT(PbRasterReadBand(&band, 6, px, nd), 0);
	CHECK_INT(px[0], 7);
	CHECK_INT(px[1], 9);
	CHECK_INT(px[5], 7);
	CHECK(!PbRasterGetBand(wkb, len, 2, &band, &err));
	free(wkb);
}

/* The same rasters in XDR order read the same; writing gives PostGIS's bytes. */
void
test_raster_wkb_xdr_and_rewrite(void)
{
	const char *const hexes[] = {postgis_8bui, postgis_16bui};
	const int	bytes[] = {1, 2};

	for (int k = 0; k < 2; k++)
	{
		size_t		len;
		uint8_t    *ndr = FromHex(hexes[k], &len);
		PbRasterHeader h,
					hx;
		PbRasterBand b,
					bx;
		PbError		err;
		int64_t		npix;
		uint8_t    *xdr,
				   *out;
		uint16_t	px[8],
					pxx[8];

		CHECK(PbRasterParseHeader(ndr, len, &h, &err));
		npix = (int64_t) h.width * h.height;
		xdr = ToXdr(ndr, len, bytes[k], npix);
		CHECK(PbRasterParseHeader(xdr, len, &hx, &err));
		CHECK(memcmp(&h, &hx, sizeof(h)) == 0);
		CHECK(PbRasterGetBand(ndr, len, 1, &b, &err));
		CHECK(PbRasterGetBand(xdr, len, 1, &bx, &err));
		CHECK(b.nodata == bx.nodata && b.wkb_type == bx.wkb_type);
		PbRasterReadBand(&b, npix, px, NULL);
		PbRasterReadBand(&bx, npix, pxx, NULL);
		CHECK(memcmp(px, pxx, npix * bytes[k]) == 0);
		if (k == 1)
			CHECK_INT(px[0], 300);

		CHECK_INT(PbRasterWkbSize(&h, 1, &b.wkb_type), len);
		out = malloc(len);
		CHECK(PbRasterWriteBand(PbRasterWriteHeader(out, &h, 1), b.wkb_type,
								b.has_nodata, b.nodata, px, npix) == out + len);
		CHECK(memcmp(out, ndr, len) == 0);
		free(out);
		free(xdr);
		free(ndr);
	}
}

/* Every truncation and a trailing byte are errors, never reads past the end. */
void
test_raster_wkb_truncated(void)
{
	size_t		len;
	uint8_t    *wkb = FromHex(postgis_16bui, &len);
	PbRasterHeader h;
	PbError		err;

	for (size_t n = 0; n < len; n++)
	{
		uint8_t    *cut = malloc(n ? n : 1);

		memcpy(cut, wkb, n);
		if (PbRasterParseHeader(cut, n, &h, &err))
			pb_check_fail(__FILE__, __LINE__, "prefix of %zu bytes accepted", n);
		free(cut);
	}
	{
		uint8_t    *longer = calloc(len + 1, 1);

		memcpy(longer, wkb, len);
		CHECK(!PbRasterParseHeader(longer, len + 1, &h, &err));
		CHECK(strstr(err.message, "after its last band") != NULL);
		free(longer);
	}
	wkb[1] = 1;					/* version 1 */
	CHECK(!PbRasterParseHeader(wkb, len, &h, &err));
	CHECK_INT(err.code, PB_ERR_VERSION);
	wkb[1] = 0;
	wkb[61] = 0x09;				/* pixel type code 9 does not exist */
	CHECK(!PbRasterParseHeader(wkb, len, &h, &err));
	CHECK(strstr(err.message, "unknown pixel type") != NULL);
	free(wkb);
}

/* Out-of-db bands are described, not read; types pixelbox cannot compute are refused. */
void
test_raster_wkb_offline_and_types(void)
{
	PbRasterHeader h = {1, -1, 0, 0, 0, 0, 0, 2, 2, 1};
	uint8_t		buf[128],
			   *p = PbRasterWriteHeader(buf, &h, 1);
	PbRasterBand b;
	PbError		err;
	PbPixType	t;

	*p++ = 0x80 | PB_WKB_8BUI;
	*p++ = 0;					/* nodata */
	*p++ = 1;					/* band number in the file */
	memcpy(p, "/tmp/x.tif", 11);
	p += 11;
	CHECK(PbRasterParseHeader(buf, p - buf, &h, &err));
	CHECK(PbRasterGetBand(buf, p - buf, 1, &b, &err));
	CHECK(b.offline && b.pixels == NULL);
	CHECK(!PbRasterParseHeader(buf, p - buf - 1, &h, &err));	/* no NUL */
	CHECK(!PbRasterComputeType(PB_WKB_32BSI, &t));
	CHECK(!PbRasterComputeType(PB_WKB_64BF, &t));
	CHECK(strcmp(PbWkbPixName(PB_WKB_16BSI), "16BSI") == 0);
	CHECK(strcmp(PbWkbPixName(9), "unknown") == 0);
}

/*
 * Sub-byte pixel types hold what fits their bits, as PostGIS requires: a
 * 1BB pixel of 108 (or a 2BUI of 4, a 4BUI of 16) is refused by value.
 */
void
test_raster_wkb_sub_byte_values(void)
{
	static const struct
	{
		int			type;
		uint8_t		max;
		const char *msg;
	}			cases[] = {
		{PB_WKB_1BB, 1, "band 1 has invalid value 108 for a pixel of type 1BB"},
		{PB_WKB_2BUI, 3, "band 1 has invalid value 108 for a pixel of type 2BUI"},
		{PB_WKB_4BUI, 15, "band 1 has invalid value 108 for a pixel of type 4BUI"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		PbRasterHeader h = {1, -1, 0, 0, 0, 0, 0, 2, 2, 1};
		uint8_t		buf[128],
				   *p = PbRasterWriteHeader(buf, &h, 1),
				   *pixels;
		PbRasterBand b;
		PbError		err;

		pb_test_context("type %s", PbWkbPixName(cases[i].type));
		*p++ = (uint8_t) cases[i].type;
		*p++ = 0;				/* nodata */
		pixels = p;
		p[0] = 0;
		p[1] = cases[i].max;
		p[2] = 0;
		p[3] = cases[i].max;
		p += 4;
		CHECK(PbRasterParseHeader(buf, p - buf, &h, &err));
		CHECK(PbRasterGetBand(buf, p - buf, 1, &b, &err));
		pixels[3] = cases[i].max + 1;
		CHECK(!PbRasterParseHeader(buf, p - buf, &h, &err));
		CHECK_INT(err.code, PB_ERR_FORMAT);
		pixels[3] = 108;
		CHECK(!PbRasterParseHeader(buf, p - buf, &h, &err));
		CHECK_STR_HAS(err.message, cases[i].msg);
	}
	pb_test_context("%s", "");
}

/* Floats: NaN and the nodata value are nodata; the all-nodata flag marks every pixel. */
void
test_raster_wkb_nodata(void)
{
	PbRasterHeader h = {1, -1, 0, 0, 0, 0, 3857, 4, 1, 2};
	float		px[4] = {1.5f, NAN, -7.0f, INFINITY},
				back[4];
	uint8_t		buf[256],
				nd[4],
			   *p = PbRasterWriteHeader(buf, &h, 2);
	PbRasterBand b;
	PbError		err;
	int			types[2] = {PB_WKB_32BF, PB_WKB_32BF};

	p = PbRasterWriteBand(p, PB_WKB_32BF, true, -7.0, px, 4);
	p = PbRasterWriteBand(p, PB_WKB_32BF, false, 0, NULL, 4);
	CHECK_INT(p - buf, PbRasterWkbSize(&h, 2, types));
	CHECK(PbRasterGetBand(buf, p - buf, 1, &b, &err));
	CHECK_INT(PbRasterReadBand(&b, 4, back, nd), 2);
	CHECK(nd[0] == 0 && nd[1] == 1 && nd[2] == 1 && nd[3] == 0);
	CHECK(back[0] == 1.5f && isinf(back[3]));
	CHECK(PbRasterGetBand(buf, p - buf, 2, &b, &err));
	CHECK_INT(PbRasterReadBand(&b, 4, back, nd), 0);
	CHECK(back[0] == 0 && back[3] == 0);
	buf[61] |= 0x20;			/* band 1: every pixel nodata */
	CHECK(PbRasterGetBand(buf, p - buf, 1, &b, &err));
	CHECK_INT(PbRasterReadBand(&b, 4, back, nd), 4);
}
