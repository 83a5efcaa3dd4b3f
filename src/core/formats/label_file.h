/*
 * label_file.h: label images as segmentation tools write them (StarDist,
 * Cellpose: one band of uint8, uint16 or uint32 labels, 0 the background)
 * read from TIFF (libtiff: strips or tiles, BigTIFF, any compression
 * libtiff decodes; 1-bit masks as labels 0 and 1) and PNG (libpng:
 * grayscale of 1 to 16 bits).
 *
 * Readers take an open descriptor of a regular file (anything else could
 * block or never end) and ask poll between strips, tiles or rows.  Images
 * that are not label images (several bands, RGB, palette, alpha, signed
 * or floating-point samples, several pages) are refused with a message
 * saying what the image is.  The image is held once, width * height
 * pixels of 1, 2 or 4 bytes, within PB_LABEL_MAX_PIXELS.
 */
#ifndef PB_LABEL_FILE_H
#define PB_LABEL_FILE_H

#include "label_polys.h"

/* The image formats, as a file's first bytes tell. */
typedef enum PbLabelFormat
{
	PB_LABEL_NOT_IMAGE = 0,
	PB_LABEL_TIFF,
	PB_LABEL_PNG
} PbLabelFormat;

/* Whether a path names a label image by its ending (.tif, .tiff, .png, any case). */
extern int	PbLabelFileName(const char *path);

/*
 * Read the label image in fd (not closed) into *im, its pixels malloc'd
 * (free im->data); one of more than max_pixels pixels (at most
 * PB_LABEL_MAX_PIXELS) is refused before any is read.  Errors: PB_ERR_UNSUPPORTED for a file that is not a
 * regular file or not a label image, PB_ERR_FORMAT for a damaged one,
 * PB_ERR_BADARG for one too large, PB_ERR_NOMEM, PB_ERR_STOPPED; *io_errno
 * is set when fstat or a read failed.  err says what, without the name.
 */
extern PbStatus PbReadLabelFile(int fd, uint64_t max_pixels, PbPollFn poll,
								void *poll_arg, PbLabelImage *im, int *io_errno,
								PbError *err);

/* The readers of each format (fd positioned anywhere; regular file checked). */
extern PbStatus PbReadLabelTiff(int fd, uint64_t max_pixels, PbPollFn poll,
								void *poll_arg, PbLabelImage *im, PbError *err);
extern PbStatus PbReadLabelPng(int fd, uint64_t max_pixels, PbPollFn poll,
							   void *poll_arg, PbLabelImage *im, PbError *err);

/* Check an image's size: sides from 1 to PB_TRACE_MAX_SIDE, at most max_pixels pixels. */
extern PbStatus PbLabelCheckSize(uint64_t width, uint64_t height, uint64_t max_pixels,
								 PbError *err);

#endif							/* PB_LABEL_FILE_H */
