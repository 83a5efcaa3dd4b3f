/*
 * label_png.c: a label image from a PNG file with libpng (see
 * label_file.h): grayscale of 1, 2, 4, 8 bits (labels in one byte) or 16
 * bits (two), interlaced or not.
 *
 * libpng reports errors by longjmp to the jump buffer of its read struct:
 * its message is kept, and everything this reader allocated is reached
 * through the PngSource, so it is freed after the jump.  Bytes come from
 * the descriptor in chunks, the poll asked before each one and between
 * rows.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

#include "label_file.h"

/* Bytes read from the file at a time. */
#define PNG_CHUNK 65536

/* The most memory libpng may take for one ancillary chunk. */
#define PNG_MAX_CHUNK_ALLOC 8000000

/* The file libpng reads from, its buffer, and how the read ended. */
typedef struct PngSource
{
	int			fd;
	PbPollFn	poll;
	void	   *poll_arg;
	uint8_t		buf[PNG_CHUNK];
	size_t		fill,
				at;
	PbError    *err;
	PbStatus	status;			/* set before a png_error of ours */
	uint8_t    *pixels;			/* the image being filled */
} PngSource;

/* libpng error function: keep its message (unless ours), leave by longjmp. */
static void
PngError(png_structp png, png_const_charp msg)
{
	PngSource  *s = png_get_error_ptr(png);

	if (s->status == PB_OK)
	{
		s->status = PB_ERR_FORMAT;
		PbFail(s->err, PB_ERR_FORMAT, "PNG: %s", msg);
	}
	png_longjmp(png, 1);
}

/* libpng warning function: warnings are dropped. */
static void
PngWarning(png_structp png, png_const_charp msg)
{
	(void) png;
	(void) msg;
}

/* libpng read function: from the buffer, refilled a chunk at a time. */
static void
PngRead(png_structp png, png_bytep out, size_t len)
{
	PngSource  *s = png_get_io_ptr(png);

	while (len > 0)
	{
		size_t		n;

		if (s->at == s->fill)
		{
			ssize_t		got;

			if (s->poll != NULL && s->poll(s->poll_arg))
			{
				s->status = PbFail(s->err, PB_ERR_STOPPED, "stopped");
				png_error(png, "stopped");
			}
			do
				got = read(s->fd, s->buf, PNG_CHUNK);
			while (got < 0 && errno == EINTR);
			if (got <= 0)
			{
				s->status = PbFail(s->err, PB_ERR_FORMAT, got < 0
										? "PNG: read failed" : "PNG: the file ends early (truncated?)");
				png_error(png, "read");
			}
			s->fill = (size_t) got;
			s->at = 0;
		}
		n = s->fill - s->at < len ? s->fill - s->at : len;
		memcpy(out, s->buf + s->at, n);
		s->at += n;
		out += n;
		len -= n;
	}
}

/* Check the header says one gray band of labels; *bytes a pixel. */
static PbStatus
CheckHeader(png_structp png, png_infop info, PngSource *s, uint64_t max_pixels, int *bytes)
{
	int			type = png_get_color_type(png, info),
				depth = png_get_bit_depth(png, info);

	if (type == PNG_COLOR_TYPE_PALETTE)
		return PbFail(s->err, PB_ERR_UNSUPPORTED,
						   "not a label image: a palette (color-mapped) PNG");
	if (type == PNG_COLOR_TYPE_RGB || type == PNG_COLOR_TYPE_RGB_ALPHA)
		return PbFail(s->err, PB_ERR_UNSUPPORTED,
						   "not a label image: an RGB%s PNG; label images are grayscale",
						   type == PNG_COLOR_TYPE_RGB_ALPHA ? "A" : "");
	if (type == PNG_COLOR_TYPE_GRAY_ALPHA)
		return PbFail(s->err, PB_ERR_UNSUPPORTED,
						   "not a label image: a grayscale PNG with alpha; label images have one band");
	*bytes = depth == 16 ? 2 : 1;
	return PbLabelCheckSize(png_get_image_width(png, info), png_get_image_height(png, info),
							max_pixels, s->err);
}

/* Read the rows (every pass of an interlaced image), polling between rows. */
static PbStatus
ReadRows(png_structp png, PngSource *s, PbLabelImage *im, int passes)
{
	size_t		row_bytes = (size_t) im->width * im->bytes;

	for (int p = 0; p < passes; p++)
		for (uint32_t r = 0; r < im->height; r++)
		{
			if ((r & 63) == 0 && s->poll != NULL && s->poll(s->poll_arg))
				return PbFail(s->err, PB_ERR_STOPPED, "stopped");
			png_read_row(png, s->pixels + (size_t) r * row_bytes, NULL);
		}
	return PB_OK;
}

/* Read the PNG from the start of fd. */
PbStatus
PbReadLabelPng(int fd, uint64_t max_pixels, PbPollFn poll, void *poll_arg,
			   PbLabelImage *im, PbError *err)
{
	PngSource  *s;
	png_structp png;
	png_infop	info = NULL;
	PbStatus	st = PB_OK;

	memset(im, 0, sizeof(*im));
	if (lseek(fd, 0, SEEK_SET) != 0)
		return PbFail(err, PB_ERR_FORMAT, "PNG: could not seek to the start");
	s = calloc(1, sizeof(PngSource));
	if (s == NULL)
		return PbFail(err, PB_ERR_NOMEM, "out of memory opening a PNG");
	s->fd = fd;
	s->poll = poll;
	s->poll_arg = poll_arg;
	s->err = err;
	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, PngError, PngWarning);
	if (png != NULL)
		info = png_create_info_struct(png);
	if (png == NULL || info == NULL)
	{
		png_destroy_read_struct(png ? &png : NULL, NULL, NULL);
		free(s);
		return PbFail(err, PB_ERR_NOMEM, "out of memory opening a PNG");
	}
	if (setjmp(png_jmpbuf(png)) != 0)
		st = s->status != PB_OK ? s->status : PB_ERR_FORMAT;
	else
	{
		png_set_read_fn(png, s, PngRead);
		png_set_user_limits(png, PB_TRACE_MAX_SIDE, PB_TRACE_MAX_SIDE);
		png_set_chunk_malloc_max(png, PNG_MAX_CHUNK_ALLOC);
		png_read_info(png, info);
		st = CheckHeader(png, info, s, max_pixels, &im->bytes);
		if (st == PB_OK)
		{
			im->width = png_get_image_width(png, info);
			im->height = png_get_image_height(png, info);
			/* 1, 2, 4 bits: a byte a pixel, values kept; 16 bits: host order */
			png_set_packing(png);
			if (im->bytes == 2)
			{
				const uint16_t one = 1;

				if (*(const uint8_t *) &one == 1)
					png_set_swap(png);
			}
			s->pixels = malloc((size_t) im->width * im->height * (size_t) im->bytes);
			if (s->pixels == NULL)
				st = PbFail(err, PB_ERR_NOMEM, "out of memory for a %u x %u image",
								 im->width, im->height);
		}
		if (st == PB_OK)
		{
			int			passes = png_set_interlace_handling(png);

			png_read_update_info(png, info);
			st = ReadRows(png, s, im, passes);
		}
		/* to the end: a file cut after its pixels is damaged too */
		if (st == PB_OK)
			png_read_end(png, NULL);
	}
	png_destroy_read_struct(&png, &info, NULL);
	if (st == PB_OK)
		im->data = s->pixels;
	else
	{
		free(s->pixels);
		memset(im, 0, sizeof(*im));
	}
	free(s);
	return st;
}
