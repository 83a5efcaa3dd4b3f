/*
 * fuzz_raster_wkb.c: the harness of the raster WKB reader (raster_wkb.c):
 * PbRasterParseHeader, then every band through PbRasterGetBand,
 * PbRasterBandValues and, for the types pixelbox computes in,
 * PbRasterReadBand; such a band written back with PbRasterWriteHeader and
 * PbRasterWriteBand must read back the same.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../src/core/raster/pb_raster.h"

/* Write one in-db band of a compute type as a raster of its own and read it back. */
static void
RoundTrip(const PbRasterHeader *h, const PbRasterBand *band, int64_t npix,
		  const void *pixels, size_t pixsize)
{
	int			types[1] = {band->wkb_type};
	size_t		size = PbRasterWkbSize(h, 1, types);
	uint8_t    *wkb = malloc(size);
	uint8_t    *end;
	void	   *back = malloc(npix ? (size_t) npix * pixsize : 1);
	PbRasterHeader h2;
	PbRasterBand band2;
	PbError		err;

	end = PbRasterWriteHeader(wkb, h, 1);
	end = PbRasterWriteBand(end, band->wkb_type, band->has_nodata, band->nodata, pixels, npix);
	FUZZ_CHECK((size_t) (end - wkb) == size, "wrote %zu bytes, PbRasterWkbSize said %zu",
			   (size_t) (end - wkb), size);
	FUZZ_CHECK(PbRasterParseHeader(wkb, size, &h2, &err), "written raster rejected: %s", err.message);
	FUZZ_CHECK(memcmp(&h2.scale_x, &h->scale_x, 6 * sizeof(double)) == 0 &&
			   h2.srid == h->srid && h2.width == h->width && h2.height == h->height &&
			   h2.nbands == 1, "written raster has another header");
	FUZZ_CHECK(PbRasterGetBand(wkb, size, 1, &band2, &err), "written band rejected: %s", err.message);
	FUZZ_CHECK(band2.wkb_type == band->wkb_type && band2.has_nodata == band->has_nodata &&
			   (band2.nodata == band->nodata || (isnan(band2.nodata) && isnan(band->nodata))),
			   "written band has another type or nodata");
	PbRasterReadBand(&band2, npix, back, NULL);
	FUZZ_CHECK(memcmp(back, pixels, (size_t) npix * pixsize) == 0, "written pixels read back otherwise");
	free(back);
	free(wkb);
}

/* Check one band that PbRasterParseHeader accepted. */
static void
CheckBand(const uint8_t *data, size_t size, const PbRasterHeader *h, int b)
{
	PbRasterBand band;
	PbError		err;
	int64_t		npix = (int64_t) h->width * h->height;
	int			bytes;
	PbPixType	type;

	FUZZ_CHECK(PbRasterGetBand(data, size, b, &band, &err),
			   "band %d of an accepted raster rejected: %s", b, err.message);
	bytes = PbWkbPixBytes(band.wkb_type);
	FUZZ_CHECK(bytes > 0, "band %d of unknown type %d accepted", b, band.wkb_type);
	FUZZ_CHECK(band.offline == (band.pixels == NULL), "band %d: offline %d, pixels %p",
			   b, band.offline, (const void *) band.pixels);
	if (band.offline)
		return;
	FUZZ_CHECK(band.pixels > data && (size_t) (band.pixels - data) + (size_t) npix * bytes <= size,
			   "band %d's pixels are outside the value", b);
	{
		double	   *values = malloc(npix ? (size_t) npix * sizeof(double) : 1);
		double		max = band.wkb_type == PB_WKB_1BB ? 1 : band.wkb_type == PB_WKB_2BUI ? 3 :
			band.wkb_type == PB_WKB_4BUI ? 15 : INFINITY;

		PbRasterBandValues(&band, 0, npix, values);
		for (int64_t i = 0; i < npix; i++)
			FUZZ_CHECK(!(values[i] > max), "band %d pixel %lld is %g, beyond its type %s",
					   b, (long long) i, values[i], PbWkbPixName(band.wkb_type));
		free(values);
	}
	if (PbRasterComputeType(band.wkb_type, &type))
	{
		size_t		pixsize = PbPixSize(type);
		void	   *pixels = malloc(npix ? (size_t) npix * pixsize : 1);
		uint8_t    *is_nodata = malloc(npix ? (size_t) npix : 1);
		int64_t		count = PbRasterReadBand(&band, npix, pixels, is_nodata),
					flagged = 0;

		for (int64_t i = 0; i < npix; i++)
			flagged += is_nodata[i] != 0;
		FUZZ_CHECK(count == flagged, "band %d: %lld nodata pixels counted, %lld flagged",
				   b, (long long) count, (long long) flagged);
		RoundTrip(h, &band, npix, pixels, pixsize);
		free(is_nodata);
		free(pixels);
	}
}

/* One input: a raster WKB. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	PbRasterHeader h;
	PbRasterBand band;
	PbError		err;

	if (!PbRasterParseHeader(data, size, &h, &err))
	{
		FUZZ_CHECK(err.code != PB_OK && err.message[0] != '\0', "rejected without a message");
		FUZZ_CHECK(!PbRasterGetBand(data, size, 1, &band, &err),
				   "band 1 of a rejected raster accepted");
		return 0;
	}
	FUZZ_CHECK(h.width >= 0 && h.height >= 0 && h.nbands >= 0, "negative size");
	for (int b = 1; b <= h.nbands; b++)
		CheckBand(data, size, &h, b);
	FUZZ_CHECK(!PbRasterGetBand(data, size, h.nbands + 1, &band, &err),
			   "band %d of %d accepted", h.nbands + 1, h.nbands);
	return 0;
}
