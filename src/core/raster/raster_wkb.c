/*
 * raster_wkb.c: PostGIS raster WKB in and out (see raster_wkb.h for the
 * layout).  Reading accepts both byte orders and checks every length
 * before touching the bytes; writing always produces NDR (little-endian,
 * what ST_AsWKB gives on the machines we run on).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "raster_wkb.h"

#define PB_RASTER_HEADER_BYTES 61	/* 1 + 2 + 2 + 6 * 8 + 4 + 2 + 2 */

/* Bytes one pixel of a WKB pixel type takes in WKB (0: unknown type). */
int
PbWkbPixBytes(int wkb_type)
{
	switch (wkb_type)
	{
		case PB_WKB_1BB:
		case PB_WKB_2BUI:
		case PB_WKB_4BUI:
		case PB_WKB_8BSI:
		case PB_WKB_8BUI:
			return 1;
		case PB_WKB_16BSI:
		case PB_WKB_16BUI:
			return 2;
		case PB_WKB_32BSI:
		case PB_WKB_32BUI:
		case PB_WKB_32BF:
			return 4;
		case PB_WKB_64BF:
			return 8;
	}
	return 0;
}

/* The PostGIS name of a WKB pixel type, for messages. */
const char *
PbWkbPixName(int wkb_type)
{
	static const char *const names[] = {"1BB", "2BUI", "4BUI", "8BSI", "8BUI",
	"16BSI", "16BUI", "32BSI", "32BUI", "unknown", "32BF", "64BF"};

	return wkb_type >= 0 && wkb_type < 12 ? names[wkb_type] : "unknown";
}

/* Fill err and return false. */
static bool
Fail(PbError *err, PbStatus code, const char *msg)
{
	err->code = code;
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return false;
}

/* Read n bytes at p into dst, reversing them when swap is set. */
static void
ReadBytes(void *dst, const uint8_t *p, int n, bool swap)
{
	uint8_t    *d = dst;

	for (int i = 0; i < n; i++)
		d[i] = swap ? p[n - 1 - i] : p[i];
}

/* Is this machine little-endian (NDR)? */
static bool
HostIsNdr(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *) &one == 1;
}

/* An unsigned integer of n bytes (2, 4 or 8) at p, its bytes reversed when swap is set. */
static inline uint64_t
LoadUint(const uint8_t *p, int n, bool swap)
{
	uint16_t	u16;
	uint32_t	u32;
	uint64_t	u64;

	switch (n)
	{
		case 2:
			memcpy(&u16, p, 2);
			return swap ? __builtin_bswap16(u16) : u16;
		case 4:
			memcpy(&u32, p, 4);
			return swap ? __builtin_bswap32(u32) : u32;
		default:
			memcpy(&u64, p, 8);
			return swap ? __builtin_bswap64(u64) : u64;
	}
}

/*
 * n values of a known WKB pixel type at p, as doubles (exact for every
 * type but 64BF, which is a double already); one loop per type, since
 * this runs over every pixel of a band.
 */
static void
WkbValues(const uint8_t *p, int wkb_type, bool swap, int64_t n, double *out)
{
	switch (wkb_type)
	{
		case PB_WKB_8BSI:
			for (int64_t i = 0; i < n; i++)
				out[i] = (int8_t) p[i];
			break;
		case PB_WKB_16BSI:
			for (int64_t i = 0; i < n; i++)
				out[i] = (int16_t) LoadUint(p + 2 * i, 2, swap);
			break;
		case PB_WKB_16BUI:
			for (int64_t i = 0; i < n; i++)
				out[i] = (uint16_t) LoadUint(p + 2 * i, 2, swap);
			break;
		case PB_WKB_32BSI:
			for (int64_t i = 0; i < n; i++)
				out[i] = (int32_t) LoadUint(p + 4 * i, 4, swap);
			break;
		case PB_WKB_32BUI:
			for (int64_t i = 0; i < n; i++)
				out[i] = (uint32_t) LoadUint(p + 4 * i, 4, swap);
			break;
		case PB_WKB_32BF:
			for (int64_t i = 0; i < n; i++)
			{
				uint32_t	u = (uint32_t) LoadUint(p + 4 * i, 4, swap);
				float		f;

				memcpy(&f, &u, 4);
				out[i] = f;
			}
			break;
		case PB_WKB_64BF:
			for (int64_t i = 0; i < n; i++)
			{
				uint64_t	u = LoadUint(p + 8 * i, 8, swap);

				memcpy(&out[i], &u, 8);
			}
			break;
		default:				/* 1BB, 2BUI, 4BUI, 8BUI: one byte */
			for (int64_t i = 0; i < n; i++)
				out[i] = p[i];
			break;
	}
}

/* A value of a known WKB pixel type at p, as a double. */
static double
ReadValue(const uint8_t *p, int wkb_type, bool swap)
{
	double		v;

	WkbValues(p, wkb_type, swap, 1, &v);
	return v;
}

/*
 * The largest value a pixel of a sub-byte type may hold (1BB 1, 2BUI 3,
 * 4BUI 15), or 0 for the types whose every byte pattern is a value.
 */
static unsigned
SubBytePixMax(int wkb_type)
{
	switch (wkb_type)
	{
		case PB_WKB_1BB:
			return 1;
		case PB_WKB_2BUI:
			return 3;
		case PB_WKB_4BUI:
			return 15;
	}
	return 0;
}

/*
 * Check that the npix one-byte pixels of band b (a sub-byte type) fit its
 * type, as PostGIS's rt_band_from_wkb does: a 1BB pixel of 108 is not a
 * bit, and computing on it would give answers PostGIS never could.
 */
static bool
CheckSubBytePixels(const uint8_t *pixels, uint64_t npix, int wkb_type, int b, PbError *err)
{
	unsigned	max = SubBytePixMax(wkb_type);
	char		msg[160];

	for (uint64_t i = 0; i < npix; i++)
		if (pixels[i] > max)
		{
			snprintf(msg, sizeof(msg), "raster WKB band %d has invalid value %u for a pixel of type %s",
					 b, pixels[i], PbWkbPixName(wkb_type));
			return Fail(err, PB_ERR_FORMAT, msg);
		}
	return true;
}

/*
 * Walk the bands after the header, checking their lengths; with want > 0,
 * stop at band want and describe it in out.
 */
static bool
WalkBands(const uint8_t *wkb, size_t len, const PbRasterHeader *h, int want,
		  PbRasterBand *out, PbError *err)
{
	bool		swap = (wkb[0] == 1) != HostIsNdr();
	size_t		pos = PB_RASTER_HEADER_BYTES;
	uint64_t	npix = (uint64_t) h->width * (uint64_t) h->height;
	char		msg[160];

	for (int b = 1; b <= h->nbands; b++)
	{
		PbRasterBand band;
		uint8_t		flags;
		int			bytes;

		if (pos >= len)
			return Fail(err, PB_ERR_FORMAT, "raster WKB is truncated in a band header");
		flags = wkb[pos++];
		memset(&band, 0, sizeof(band));
		band.wkb_type = flags & 0x0F;
		band.offline = (flags & 0x80) != 0;
		band.has_nodata = (flags & 0x40) != 0;
		band.all_nodata = (flags & 0x20) != 0;
		band.swap = swap;
		bytes = PbWkbPixBytes(band.wkb_type);
		if (bytes == 0)
		{
			snprintf(msg, sizeof(msg), "raster WKB band %d has unknown pixel type code %d",
					 b, band.wkb_type);
			return Fail(err, PB_ERR_FORMAT, msg);
		}
		if (len - pos < (size_t) bytes)
			return Fail(err, PB_ERR_FORMAT, "raster WKB is truncated in a nodata value");
		band.nodata = ReadValue(wkb + pos, band.wkb_type, swap);
		pos += bytes;
		if (band.offline)
		{
			const uint8_t *nul;

			if (pos >= len ||
				(nul = memchr(wkb + pos + 1, 0, len - pos - 1)) == NULL)
				return Fail(err, PB_ERR_FORMAT, "raster WKB is truncated in an out-of-db band path");
			pos = (size_t) (nul - wkb) + 1;
		}
		else
		{
			if ((uint64_t) (len - pos) / (uint64_t) bytes < npix)
				return Fail(err, PB_ERR_FORMAT, "raster WKB is truncated in the pixels of a band");
			band.pixels = wkb + pos;
			/* values are checked once, by the whole walk (PbRasterParseHeader) */
			if (want == 0 && SubBytePixMax(band.wkb_type) != 0 &&
				!CheckSubBytePixels(band.pixels, npix, band.wkb_type, b, err))
				return false;
			pos += npix * bytes;
		}
		if (b == want)
		{
			*out = band;
			return true;
		}
	}
	if (want > 0)
		return Fail(err, PB_ERR_FORMAT, "raster WKB band number out of range");
	if (pos != len)
		return Fail(err, PB_ERR_FORMAT, "raster WKB has bytes after its last band");
	return true;
}

/* Parse and check a raster WKB's header and the lengths of its bands. */
bool
PbRasterParseHeader(const uint8_t *wkb, size_t len, PbRasterHeader *h, PbError *err)
{
	bool		swap;
	uint16_t	u16;
	double		geo[6];

	if (len < PB_RASTER_HEADER_BYTES)
		return Fail(err, PB_ERR_FORMAT, "raster WKB is truncated: shorter than its header");
	if (wkb[0] > 1)
		return Fail(err, PB_ERR_FORMAT, "raster WKB has an invalid byte order flag");
	swap = (wkb[0] == 1) != HostIsNdr();
	ReadBytes(&u16, wkb + 1, 2, swap);
	if (u16 != 0)
	{
		char		msg[120];

		snprintf(msg, sizeof(msg), "raster WKB version %u is not supported (only version 0)", u16);
		return Fail(err, PB_ERR_VERSION, msg);
	}
	ReadBytes(&u16, wkb + 3, 2, swap);
	h->nbands = u16;
	for (int i = 0; i < 6; i++)
		ReadBytes(&geo[i], wkb + 5 + 8 * i, 8, swap);
	h->scale_x = geo[0];
	h->scale_y = geo[1];
	h->ul_x = geo[2];
	h->ul_y = geo[3];
	h->skew_x = geo[4];
	h->skew_y = geo[5];
	ReadBytes(&h->srid, wkb + 53, 4, swap);
	ReadBytes(&u16, wkb + 57, 2, swap);
	h->width = u16;
	ReadBytes(&u16, wkb + 59, 2, swap);
	h->height = u16;
	return WalkBands(wkb, len, h, 0, NULL, err);
}

/* Locate band number band (1-based) of an already checked raster WKB. */
bool
PbRasterGetBand(const uint8_t *wkb, size_t len, int band, PbRasterBand *out,
				PbError *err)
{
	PbRasterHeader h;

	if (!PbRasterParseHeader(wkb, len, &h, err))
		return false;
	if (band < 1 || band > h.nbands)
		return Fail(err, PB_ERR_FORMAT, "raster WKB band number out of range");
	return WalkBands(wkb, len, &h, band, out, err);
}

/* The compute type for a WKB pixel type, if pixelbox handles it. */
bool
PbRasterComputeType(int wkb_type, PbPixType *type)
{
	switch (wkb_type)
	{
		case PB_WKB_1BB:
			*type = PB_PIX_1BB;
			return true;
		case PB_WKB_8BUI:
			*type = PB_PIX_8BUI;
			return true;
		case PB_WKB_16BUI:
			*type = PB_PIX_16BUI;
			return true;
		case PB_WKB_32BF:
			*type = PB_PIX_32BF;
			return true;
	}
	return false;
}

/*
 * Copy a band's pixels into native-order compute-type values and mark its
 * nodata pixels; returns how many there are.
 */
int64_t
PbRasterReadBand(const PbRasterBand *band, int64_t npixels, void *out, uint8_t *is_nodata)
{
	int			bytes = PbWkbPixBytes(band->wkb_type);
	int64_t		nodata_count = 0;

	if (band->swap && bytes > 1)
	{
		uint8_t    *o = out;

		for (int64_t i = 0; i < npixels; i++)
			ReadBytes(o + i * bytes, band->pixels + i * bytes, bytes, true);
	}
	else
		memcpy(out, band->pixels, (size_t) npixels * bytes);
	if (band->wkb_type == PB_WKB_32BF)
	{
		float	   *f = out;

		/* -0 reads as 0: the GPU orders floats as integers and cannot keep it */
		for (int64_t i = 0; i < npixels; i++)
			if (f[i] == 0.0f)
				f[i] = 0.0f;
	}
	if (is_nodata == NULL)
		return 0;
	if (band->all_nodata)
	{
		memset(is_nodata, 1, (size_t) npixels);
		return npixels;
	}
	if (band->wkb_type == PB_WKB_32BF)
	{
		const float *f = out;
		float		nd = (float) band->nodata;

		for (int64_t i = 0; i < npixels; i++)
		{
			is_nodata[i] = isnan(f[i]) || (band->has_nodata && f[i] == nd);
			nodata_count += is_nodata[i];
		}
	}
	else if (band->has_nodata && bytes == 2)
	{
		const uint16_t *u = out;

		for (int64_t i = 0; i < npixels; i++)
		{
			is_nodata[i] = u[i] == band->nodata;
			nodata_count += is_nodata[i];
		}
	}
	else if (band->has_nodata)
	{
		const uint8_t *u = out;

		for (int64_t i = 0; i < npixels; i++)
		{
			is_nodata[i] = u[i] == band->nodata;
			nodata_count += is_nodata[i];
		}
	}
	else
		memset(is_nodata, 0, (size_t) npixels);
	return nodata_count;
}

/* Pixels [start, start + n) of an in-db band, as doubles. */
void
PbRasterBandValues(const PbRasterBand *band, int64_t start, int64_t n, double *out)
{
	WkbValues(band->pixels + start * PbWkbPixBytes(band->wkb_type), band->wkb_type,
			  band->swap, n, out);
}

/* Whether PbRasterReadBand can find nodata pixels in band. */
bool
PbRasterBandMayHaveNodata(const PbRasterBand *band)
{
	/* only a nodata value, the all-nodata flag or floats (NaN) make nodata pixels */
	return band->has_nodata || band->all_nodata || band->wkb_type == PB_WKB_32BF;
}

/* Bytes of a raster WKB with the given bands. */
size_t
PbRasterWkbSize(const PbRasterHeader *h, int nbands, const int *wkb_types)
{
	size_t		size = PB_RASTER_HEADER_BYTES;
	size_t		npix = (size_t) h->width * (size_t) h->height;

	for (int b = 0; b < nbands; b++)
		size += 1 + (size_t) PbWkbPixBytes(wkb_types[b]) * (1 + npix);
	return size;
}

/* Write n bytes of src at out in little-endian order. */
static uint8_t *
WriteNdr(uint8_t *out, const void *src, int n)
{
	ReadBytes(out, src, n, !HostIsNdr());
	return out + n;
}

/* Write the NDR header of a raster with nbands bands. */
uint8_t *
PbRasterWriteHeader(uint8_t *out, const PbRasterHeader *h, int nbands)
{
	uint16_t	u16 = 0;
	double		geo[6] = {h->scale_x, h->scale_y, h->ul_x, h->ul_y, h->skew_x, h->skew_y};

	*out++ = 1;
	out = WriteNdr(out, &u16, 2);
	u16 = (uint16_t) nbands;
	out = WriteNdr(out, &u16, 2);
	for (int i = 0; i < 6; i++)
		out = WriteNdr(out, &geo[i], 8);
	out = WriteNdr(out, &h->srid, 4);
	u16 = (uint16_t) h->width;
	out = WriteNdr(out, &u16, 2);
	u16 = (uint16_t) h->height;
	return WriteNdr(out, &u16, 2);
}

/* Write one in-db band of wkb_type from native-order pixels. */
uint8_t *
PbRasterWriteBand(uint8_t *out, int wkb_type, bool has_nodata, double nodata,
				  const void *pixels, int64_t npixels)
{
	int			bytes = PbWkbPixBytes(wkb_type);
	union
	{
		uint8_t		u8;
		uint16_t	u16;
		int32_t		i32;
		uint32_t	u32;
		float		f32;
	}			v;

	*out++ = (uint8_t) (wkb_type | (has_nodata ? 0x40 : 0));
	switch (wkb_type)
	{
		case PB_WKB_16BUI:
			v.u16 = (uint16_t) nodata;
			break;
		case PB_WKB_32BSI:
			v.i32 = (int32_t) nodata;
			break;
		case PB_WKB_32BUI:
			v.u32 = (uint32_t) nodata;
			break;
		case PB_WKB_32BF:
			v.f32 = (float) nodata;
			break;
		default:
			v.u8 = (uint8_t) nodata;
			break;
	}
	out = WriteNdr(out, &v, bytes);
	return PbRasterWritePixels(out, wkb_type, pixels, npixels);
}

/* npixels pixels of wkb_type from native-order values (NULL: zeros) at out. */
uint8_t *
PbRasterWritePixels(uint8_t *out, int wkb_type, const void *pixels, int64_t npixels)
{
	int			bytes = PbWkbPixBytes(wkb_type);

	if (pixels == NULL)
		memset(out, 0, (size_t) npixels * bytes);
	else if (HostIsNdr() || bytes == 1)
		memcpy(out, pixels, (size_t) npixels * bytes);
	else
		for (int64_t i = 0; i < npixels; i++)
			WriteNdr(out + i * bytes, (const uint8_t *) pixels + i * bytes, bytes);
	return out + (size_t) npixels * bytes;
}
