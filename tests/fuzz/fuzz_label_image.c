/*
 * fuzz_label_image.c: the harness of the label-image readers and tracer
 * (src/core/formats/label_file.h, label_polys.h, behind pb_read_labels and
 * pb_compare_files).  The input is written to a temporary regular file and
 * read as a TIFF or PNG label image (libtiff, libpng) with a limit of
 * 2^20 pixels:
 *
 *   - a refused file has a message and no pixels;
 *   - an accepted image has sides of at least 1 pixel within the limit
 *     and 1, 2 or 4 bytes a pixel; traced, its labels come in increasing
 *     order, each a nonzero value of the image, their pixel counts sum to
 *     the image's nonzero pixels, and each geometry decodes (PbDecodeEwkb)
 *     to a shape whose area is its pixel count.
 */
#define _DEFAULT_SOURCE			/* mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/formats/label_file.h"
#include "fuzz.h"

/* The most pixels an input may make the reader hold. */
#define FUZZ_MAX_PIXELS ((uint64_t) 1 << 20)

/* Pixel i of an image as a label. */
static uint32_t
Pixel(const PbLabelImage *im, size_t i)
{
	if (im->bytes == 1)
		return ((const uint8_t *) im->data)[i];
	if (im->bytes == 2)
		return ((const uint16_t *) im->data)[i];
	return ((const uint32_t *) im->data)[i];
}

/* Check the traced labels of an accepted image. */
static void
CheckTrace(const PbLabelImage *im)
{
	const double gt[6] = {0, 1, 0, 0, 0, 1};
	PbRun		run = {1, 0, NULL, NULL};
	PbLabelShapes shapes;
	PbError		err;
	PbBatch		b;
	int64_t		nonzero = 0,
				sum = 0;
	size_t		npix = (size_t) im->width * im->height;

	FUZZ_CHECK(PbTraceLabels(im, gt, 0, &run, &shapes, &err) == PB_OK,
			   "an accepted image was not traced: %s", err.message);
	for (size_t i = 0; i < npix; i++)
		nonzero += Pixel(im, i) != 0;
	PbBatchInit(&b, &PbMallocAllocator);
	for (size_t k = 0; k < shapes.n; k++)
	{
		const PbLabelShape *s = &shapes.shapes[k];
		uint32_t	shape;
		int			found = 0;

		FUZZ_CHECK(s->label != 0 && (k == 0 || s->label > shapes.shapes[k - 1].label),
				   "labels out of order at %zu", k);
		for (size_t i = 0; i < npix && !found; i++)
			found = Pixel(im, i) == s->label;
		FUZZ_CHECK(found, "label %u is not in the image", s->label);
		FUZZ_CHECK(PbDecodeEwkb(&b, s->ewkb, s->len, &shape, &err) == PB_OK,
				   "label %u: its EWKB does not decode: %s", s->label, err.message);
		FUZZ_CHECK(b.shapes[shape].area == (double) s->pixels,
				   "label %u: area %g, %lld pixels", s->label, b.shapes[shape].area,
				   (long long) s->pixels);
		sum += s->pixels;
		PbBatchReset(&b);
	}
	FUZZ_CHECK(sum == nonzero, "labels hold %lld pixels, the image %lld nonzero",
			   (long long) sum, (long long) nonzero);
	PbBatchFree(&b);
	PbLabelShapesFree(&shapes);
}

/* Read the input as a label image file; trace what is accepted. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int			fd = FuzzTempFile("pb_fuzz_label");
	int			io_errno;
	PbLabelImage im;
	PbError		err;
	PbStatus	st;

	FuzzWriteFile(fd, data, size);
	st = PbReadLabelFile(fd, FUZZ_MAX_PIXELS, NULL, NULL, &im, &io_errno, &err);
	if (st != PB_OK)
	{
		FUZZ_CHECK(err.message[0] != '\0', "refused (status %d) without a message", (int) st);
		FUZZ_CHECK(im.data == NULL, "refused, yet pixels held");
		return 0;
	}
	FUZZ_CHECK(im.width >= 1 && im.height >= 1 &&
			   (uint64_t) im.width * im.height <= FUZZ_MAX_PIXELS,
			   "accepted a %u x %u image", im.width, im.height);
	FUZZ_CHECK(im.bytes == 1 || im.bytes == 2 || im.bytes == 4, "%d bytes a pixel", im.bytes);
	CheckTrace(&im);
	free((void *) im.data);
	return 0;
}
