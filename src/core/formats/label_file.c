/*
 * label_file.c: a label image file, its format told by its first bytes
 * (see label_file.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../geom/text_reader.h"
#include "label_file.h"

/* Whether the path ends in .tif, .tiff or .png (any case). */
int
PbLabelFileName(const char *path)
{
	size_t		n = strlen(path);

	return (n >= 4 && (strcasecmp(path + n - 4, ".tif") == 0 ||
					   strcasecmp(path + n - 4, ".png") == 0)) ||
		(n >= 5 && strcasecmp(path + n - 5, ".tiff") == 0);
}

/* Refuse sizes the tracer or memory cannot take. */
PbStatus
PbLabelCheckSize(uint64_t width, uint64_t height, uint64_t max_pixels, PbError *err)
{
	if (max_pixels > PB_LABEL_MAX_PIXELS)
		max_pixels = PB_LABEL_MAX_PIXELS;
	if (width == 0 || height == 0 || width > PB_TRACE_MAX_SIDE ||
		height > PB_TRACE_MAX_SIDE || width * height > max_pixels)
		return PbFail(err, PB_ERR_BADARG,
						   "image of %llu x %llu pixels is too large or empty (at most %llu pixels)",
						   (unsigned long long) width, (unsigned long long) height,
						   (unsigned long long) max_pixels);
	return PB_OK;
}

/* Check the file, read its first bytes, hand it to its format's reader. */
PbStatus
PbReadLabelFile(int fd, uint64_t max_pixels, PbPollFn poll, void *poll_arg,
				PbLabelImage *im, int *io_errno, PbError *err)
{
	uint8_t		magic[8];
	ssize_t		got;
	PbStatus	st;

	memset(im, 0, sizeof(*im));
	*io_errno = 0;
	err->code = PB_OK;
	err->message[0] = '\0';
	if ((st = PbFileBegin(fd, io_errno, err)) != PB_OK)
		return st;				/* not a regular file, or fstat failed */
	do
		got = pread(fd, magic, sizeof(magic), 0);
	while (got < 0 && errno == EINTR);
	if (got < 0)
	{
		*io_errno = errno ? errno : EIO;
		return PbFail(err, PB_ERR_FORMAT, "read failed");
	}
	if (got >= 4 && (memcmp(magic, "II*\0", 4) == 0 || memcmp(magic, "MM\0*", 4) == 0 ||
					 memcmp(magic, "II+\0", 4) == 0 || memcmp(magic, "MM\0+", 4) == 0))
		return PbReadLabelTiff(fd, max_pixels, poll, poll_arg, im, err);
	if (got == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0)
		return PbReadLabelPng(fd, max_pixels, poll, poll_arg, im, err);
	return PbFail(err, PB_ERR_UNSUPPORTED, "not a TIFF or PNG image");
}
