/*
 * label_tiff.c: a label image from a TIFF file with libtiff (see
 * label_file.h).
 *
 * libtiff reads through our own procedures over the descriptor (pread,
 * no memory mapping: a file truncated while mapped would raise SIGBUS),
 * and its messages go to handlers of this handle only (the first error is
 * kept for the message), never to its process-wide handlers, which other
 * libraries in the process (GDAL) set for themselves.  Strips of 8, 16
 * and 32 bits are decoded straight into the image; tiles and 1-bit rows
 * through one tile or strip buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tiffio.h>

#include "label_file.h"

/* The most one libtiff allocation may take (a compressed strip or tile). */
#define TIFF_MAX_ALLOC ((tmsize_t) 1 << 30)

/* The descriptor libtiff reads through, and the first error it reported. */
typedef struct TiffSource
{
	int			fd;
	uint64_t	pos,
				size;
	PbError    *err;
	int			failed;
} TiffSource;

/* libtiff read procedure: pread from the current position. */
static tmsize_t
TiffRead(thandle_t h, void *buf, tmsize_t size)
{
	TiffSource *s = (TiffSource *) h;
	tmsize_t	done = 0;

	while (done < size)
	{
		ssize_t		got = pread(s->fd, (char *) buf + done, (size_t) (size - done),
								(off_t) (s->pos + (uint64_t) done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		done += got;
	}
	s->pos += (uint64_t) done;
	return done;
}

/* libtiff write procedure: this handle only reads. */
static tmsize_t
TiffWrite(thandle_t h, void *buf, tmsize_t size)
{
	(void) h;
	(void) buf;
	(void) size;
	return -1;
}

/* libtiff seek procedure. */
static toff_t
TiffSeek(thandle_t h, toff_t off, int whence)
{
	TiffSource *s = (TiffSource *) h;

	if (whence == SEEK_SET)
		s->pos = off;
	else if (whence == SEEK_CUR)
		s->pos += off;
	else
		s->pos = s->size + off;
	return s->pos;
}

/* libtiff close procedure: the descriptor is the caller's. */
static int
TiffClose(thandle_t h)
{
	(void) h;
	return 0;
}

/* libtiff size procedure. */
static toff_t
TiffSize(thandle_t h)
{
	return ((TiffSource *) h)->size;
}

/* libtiff map procedure: no mapping. */
static int
TiffMap(thandle_t h, void **base, toff_t *size)
{
	(void) h;
	(void) base;
	(void) size;
	return 0;
}

/* libtiff unmap procedure: nothing was mapped. */
static void
TiffUnmap(thandle_t h, void *base, toff_t size)
{
	(void) h;
	(void) base;
	(void) size;
}

/* Keep libtiff's first error of this handle as the message. */
static int
TiffError(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
			__attribute__((format(printf, 4, 0)));

static int
TiffError(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
	TiffSource *s = user;

	(void) tif;
	(void) module;
	if (!s->failed)
	{
		char		msg[sizeof(s->err->message) - 8];

		vsnprintf(msg, sizeof(msg), fmt, ap);
		PbFail(s->err, PB_ERR_FORMAT, "TIFF: %s", msg);
		s->failed = 1;
	}
	return 1;
}

/* Drop libtiff's warnings (unknown tags and the like). */
static int
TiffWarning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
			__attribute__((format(printf, 4, 0)));

static int
TiffWarning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
	(void) tif;
	(void) user;
	(void) module;
	(void) fmt;
	(void) ap;
	return 1;
}

/* Check a TIFF holds one band of unsigned 1, 8, 16 or 32-bit labels; *bytes a pixel. */
static PbStatus
CheckSamples(TIFF *tif, int *bytes, PbError *err)
{
	uint16_t	spp = 1,
				bps = 1,
				fmt = SAMPLEFORMAT_UINT,
				photo = PHOTOMETRIC_MINISBLACK;

	TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
	TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
	TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &fmt);
	TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photo);
	if (photo == PHOTOMETRIC_PALETTE)
		return PbFail(err, PB_ERR_UNSUPPORTED,
						   "not a label image: a palette (color-mapped) image");
	if (spp != 1)
		return PbFail(err, PB_ERR_UNSUPPORTED,
						   "not a label image: %u samples a pixel (%s); label images have one band",
						   spp, photo == PHOTOMETRIC_RGB ? "RGB" : "several bands");
	if (fmt == SAMPLEFORMAT_IEEEFP)
		return PbFail(err, PB_ERR_UNSUPPORTED,
						   "not a label image: %u-bit floating-point samples; labels are unsigned integers",
						   bps);
	if (fmt == SAMPLEFORMAT_INT)
		return PbFail(err, PB_ERR_UNSUPPORTED,
						   "not a label image: %u-bit signed samples; labels are unsigned integers",
						   bps);
	if (fmt != SAMPLEFORMAT_UINT)
		return PbFail(err, PB_ERR_UNSUPPORTED,
						   "not a label image: samples of TIFF sample format %u", fmt);
	if (bps != 1 && bps != 8 && bps != 16 && bps != 32)
		return PbFail(err, PB_ERR_UNSUPPORTED,
						   "not a label image: %u-bit samples; labels have 1, 8, 16 or 32 bits",
						   bps);
	*bytes = bps == 32 ? 4 : bps == 16 ? 2 : 1;
	return PB_OK;
}

/* Copy n pixels of a decoded row (packed bits when bits is 1) into dst. */
static void
CopyRow(uint8_t *dst, const uint8_t *src, uint32_t n, int bits, int bytes)
{
	if (bits == 1)
	{
		for (uint32_t i = 0; i < n; i++)
			dst[i] = (src[i >> 3] >> (7 - (i & 7))) & 1;
	}
	else
		memcpy(dst, src, (size_t) n * (size_t) bytes);
}

/* Read a tiled image tile by tile, polling between tiles. */
static PbStatus
ReadTiles(TIFF *tif, TiffSource *src, PbLabelImage *im, int bits, PbPollFn poll,
		  void *poll_arg, PbError *err)
{
	uint32_t	tw = 0,
				th = 0;
	tmsize_t	tsize = TIFFTileSize(tif);
	tmsize_t	trow = TIFFTileRowSize(tif);
	uint8_t    *buf;
	PbStatus	st = PB_OK;

	TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
	TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
	if (tw == 0 || th == 0 || tsize <= 0 || trow <= 0)
		return src->failed ? PB_ERR_FORMAT
			: PbFail(err, PB_ERR_FORMAT, "TIFF: bad tile size %u x %u", tw, th);
	buf = malloc((size_t) tsize);
	if (buf == NULL)
		return PbFail(err, PB_ERR_NOMEM, "out of memory for a TIFF tile");
	for (uint32_t y = 0; y < im->height && st == PB_OK; y += th)
		for (uint32_t x = 0; x < im->width && st == PB_OK; x += tw)
		{
			uint32_t	rows = im->height - y < th ? im->height - y : th,
						cols = im->width - x < tw ? im->width - x : tw;

			if (poll != NULL && poll(poll_arg))
				st = PbFail(err, PB_ERR_STOPPED, "stopped");
			else if (TIFFReadTile(tif, buf, x, y, 0, 0) < 0)
				st = src->failed ? PB_ERR_FORMAT
					: PbFail(err, PB_ERR_FORMAT, "TIFF: tile at (%u, %u) could not be read", x, y);
			else
				for (uint32_t r = 0; r < rows; r++)
					CopyRow((uint8_t *) im->data + ((size_t) (y + r) * im->width + x) * im->bytes,
							buf + (size_t) r * (size_t) trow, cols, bits, im->bytes);
		}
	free(buf);
	return st;
}

/* Read a stripped image strip by strip, polling between strips. */
static PbStatus
ReadStrips(TIFF *tif, TiffSource *src, PbLabelImage *im, int bits, PbPollFn poll,
		   void *poll_arg, PbError *err)
{
	uint32_t	rps = im->height;
	tmsize_t	scan = TIFFScanlineSize(tif);
	uint8_t    *buf = NULL;
	size_t		row_bytes = (size_t) im->width * im->bytes;
	PbStatus	st = PB_OK;

	TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
	if (rps == 0 || rps > im->height)
		rps = im->height;
	if (scan <= 0 || (bits != 1 && (size_t) scan != row_bytes))
		return src->failed ? PB_ERR_FORMAT
			: PbFail(err, PB_ERR_FORMAT, "TIFF: bad scanline size");
	if (bits == 1 && (buf = malloc((size_t) scan * rps)) == NULL)
		return PbFail(err, PB_ERR_NOMEM, "out of memory for a TIFF strip");
	for (uint32_t y = 0, s = 0; y < im->height && st == PB_OK; y += rps, s++)
	{
		uint32_t	rows = im->height - y < rps ? im->height - y : rps;
		tmsize_t	want = (tmsize_t) scan * rows;
		uint8_t    *dst = (uint8_t *) im->data + (size_t) y * row_bytes;

		if (poll != NULL && poll(poll_arg))
			st = PbFail(err, PB_ERR_STOPPED, "stopped");
		else if (TIFFReadEncodedStrip(tif, s, bits == 1 ? buf : dst, want) != want)
			st = src->failed ? PB_ERR_FORMAT
				: PbFail(err, PB_ERR_FORMAT, "TIFF: strip %u (rows %u to %u) is short",
							  s, y, y + rows - 1);
		else if (bits == 1)
			for (uint32_t r = 0; r < rows; r++)
				CopyRow(dst + (size_t) r * row_bytes, buf + (size_t) r * (size_t) scan,
						im->width, 1, 1);
	}
	free(buf);
	return st;
}

/* Open the TIFF, check it holds one band of unsigned labels, read it. */
PbStatus
PbReadLabelTiff(int fd, uint64_t max_pixels, PbPollFn poll, void *poll_arg,
				PbLabelImage *im, PbError *err)
{
	TiffSource	src = {fd, 0, 0, err, 0};
	TIFFOpenOptions *opts;
	TIFF	   *tif;
	struct stat st;
	uint32_t	w = 0,
				h = 0;
	uint16_t	bps = 1;
	PbStatus	res;

	memset(im, 0, sizeof(*im));
	if (fstat(fd, &st) != 0)
		return PbFail(err, PB_ERR_FORMAT, "fstat failed");
	src.size = (uint64_t) st.st_size;
	opts = TIFFOpenOptionsAlloc();
	if (opts == NULL)
		return PbFail(err, PB_ERR_NOMEM, "out of memory opening a TIFF");
	TIFFOpenOptionsSetMaxSingleMemAlloc(opts, TIFF_MAX_ALLOC);
	/* libtiff's handler type has no format attribute (gcc would suggest one) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsuggest-attribute=format"
#endif
	TIFFOpenOptionsSetErrorHandlerExtR(opts, TiffError, &src);
	TIFFOpenOptionsSetWarningHandlerExtR(opts, TiffWarning, &src);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
	tif = TIFFClientOpenExt("label image", "rm", (thandle_t) &src, TiffRead, TiffWrite,
							TiffSeek, TiffClose, TiffSize, TiffMap, TiffUnmap, opts);
	TIFFOpenOptionsFree(opts);
	if (tif == NULL)
		return src.failed ? PB_ERR_FORMAT
			: PbFail(err, PB_ERR_FORMAT, "TIFF: could not be opened");
	TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
	TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
	TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
	res = CheckSamples(tif, &im->bytes, err);
	if (res == PB_OK && !TIFFLastDirectory(tif))
		res = PbFail(err, PB_ERR_UNSUPPORTED,
						  "not a label image: the TIFF holds more than one image (pages of a stack?)");
	if (res == PB_OK)
		res = PbLabelCheckSize(w, h, max_pixels, err);
	if (res == PB_OK)
	{
		im->width = w;
		im->height = h;
		im->data = malloc((size_t) w * h * (size_t) im->bytes);
		if (im->data == NULL)
			res = PbFail(err, PB_ERR_NOMEM, "out of memory for a %u x %u image", w, h);
	}
	if (res == PB_OK)
		res = TIFFIsTiled(tif)
			? ReadTiles(tif, &src, im, bps, poll, poll_arg, err)
			: ReadStrips(tif, &src, im, bps, poll, poll_arg, err);
	TIFFClose(tif);
	if (res != PB_OK)
	{
		free((void *) im->data);
		memset(im, 0, sizeof(*im));
	}
	return res;
}
