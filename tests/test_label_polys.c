/*
 * test_label_polys.c: PbTraceLabels (src/core/formats/label_polys.h), a
 * whole label image to one geometry per label, on threads: every label's
 * outline checked by the oracle (label_oracle.h), labels and pixel counts
 * exact (uint32 labels above 2^24 too), the same bytes on any number of
 * threads, the geotransform, refusals and a stop.
 */
#include <stdlib.h>
#include <string.h>

#include "../src/core/formats/label_polys.h"
#include "harness.h"
#include "label_oracle.h"

/* Random labels: painted rectangles over a background, some noise. */
static uint32_t *
RandomLabels(Rng *rng, uint32_t w, uint32_t h, const uint32_t *palette, int npal)
{
	uint32_t   *lab = calloc((size_t) w * h, sizeof(uint32_t));
	int			nrect = (int) RngRange(rng, 1, 30);

	for (int k = 0; k < nrect; k++)
	{
		uint32_t	x0 = (uint32_t) RngRange(rng, 0, w - 1),
					y0 = (uint32_t) RngRange(rng, 0, h - 1),
					x1 = (uint32_t) RngRange(rng, x0, w - 1),
					y1 = (uint32_t) RngRange(rng, y0, h - 1),
					v = palette[RngRange(rng, 0, npal - 1)];

		for (uint32_t r = y0; r <= y1; r++)
			for (uint32_t c = x0; c <= x1; c++)
				lab[(size_t) r * w + c] = v;
	}
	for (int k = (int) RngRange(rng, 0, (int64_t) (w * h / 4)); k > 0; k--)
		lab[RngRange(rng, 0, (int64_t) w * h - 1)] = palette[RngRange(rng, 0, npal - 1)];
	return lab;
}

/* The labels as an image of the given bytes (values must fit). */
static void *
Narrow(const uint32_t *lab, size_t n, int bytes)
{
	void	   *d = malloc(n * (size_t) bytes);

	for (size_t i = 0; i < n; i++)
	{
		if (bytes == 1)
			((uint8_t *) d)[i] = (uint8_t) lab[i];
		else if (bytes == 2)
			((uint16_t *) d)[i] = (uint16_t) lab[i];
		else
			((uint32_t *) d)[i] = lab[i];
	}
	return d;
}

/* qsort comparator: uint32. */
static int
CmpU32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

/* Trace lab as an image of bytes on threads, check every label; return the shapes. */
static void
CheckImage(const uint32_t *lab, uint32_t w, uint32_t h, int bytes, int threads,
		   PbLabelShapes *out)
{
	void	   *data = Narrow(lab, (size_t) w * h, bytes);
	PbLabelImage im = {data, w, h, bytes};
	double		gt[6] = {0, 1, 0, 0, 0, 1};
	PbRun		run = {threads, 0, NULL, NULL};
	PbError		err;
	size_t		expect = 0;
	uint32_t   *sorted = malloc(sizeof(uint32_t) * w * h);

	CHECK_INT(PbTraceLabels(&im, gt, 0, &run, out, &err), PB_OK);
	/* every distinct nonzero label once, in order */
	for (size_t i = 0; i < out->n; i++)
	{
		const PbLabelShape *s = &out->shapes[i];

		if (i > 0)
			CHECK(s->label > out->shapes[i - 1].label);
		CHECK(s->label != 0);
		CHECK_INT(s->pixels, CountLabel(lab, w, h, s->label));
		CheckLabelOutline(s->ewkb, s->len, lab, w, h, s->label, 0, 0);
	}
	/* the distinct nonzero labels, counted apart */
	memcpy(sorted, lab, sizeof(uint32_t) * w * h);
	qsort(sorted, (size_t) w * h, sizeof(uint32_t), CmpU32);
	for (size_t i = 0; i < (size_t) w * h; i++)
		expect += sorted[i] != 0 && (i == 0 || sorted[i] != sorted[i - 1]);
	CHECK_INT(out->n, expect);
	free(sorted);
	free(data);
}

/* Random images of each label width, the outlines exact. */
void
test_label_polys_random_images(void)
{
	Rng			rng = {7};
	const uint32_t small[] = {1, 2, 3, 7, 200, 255};
	const uint32_t mid[] = {1, 256, 4097, 65535, 9, 300};
	const uint32_t big[] = {1, 16777217, 16777216, 4294967295u, 33554433, 16777218};

	for (int t = 0; t < 120; t++)
	{
		int			bytes = t % 3 == 0 ? 1 : t % 3 == 1 ? 2 : 4;
		const uint32_t *pal = bytes == 1 ? small : bytes == 2 ? mid : big;
		uint32_t	w = (uint32_t) RngRange(&rng, 1, 48),
					h = (uint32_t) RngRange(&rng, 1, 48);
		uint32_t   *lab = RandomLabels(&rng, w, h, pal, 6);
		PbLabelShapes out;

		pb_test_context("image %d (%u x %u, %d bytes)", t, w, h, bytes);
		CheckImage(lab, w, h, bytes, 1 + t % 3, &out);
		PbLabelShapesFree(&out);
		free(lab);
		if (pb_test_failures() > 0)
			break;
	}
}

/* One thread or four: the same labels, the same bytes. */
void
test_label_polys_threads_agree(void)
{
	Rng			rng = {11};
	uint32_t	w = 300,
				h = 200;
	uint32_t	pal[40];
	uint32_t   *lab;
	PbLabelShapes one,
				four;

	for (int i = 0; i < 40; i++)
		pal[i] = (uint32_t) (i * 104729u + 1);
	lab = RandomLabels(&rng, w, h, pal, 40);
	CheckImage(lab, w, h, 4, 1, &one);
	CheckImage(lab, w, h, 4, 4, &four);
	CHECK_INT(one.n, four.n);
	for (size_t i = 0; i < one.n && i < four.n; i++)
	{
		CHECK_INT(one.shapes[i].label, four.shapes[i].label);
		CHECK(one.shapes[i].len == four.shapes[i].len &&
			  memcmp(one.shapes[i].ewkb, four.shapes[i].ewkb, one.shapes[i].len) == 0);
	}
	PbLabelShapesFree(&one);
	PbLabelShapesFree(&four);
	free(lab);
}

/* A geotransform and SRID: a pixel lands where GDAL puts it. */
void
test_label_polys_geotransform(void)
{
	uint16_t	lab[2] = {0, 5};
	PbLabelImage im = {lab, 2, 1, 2};
	double		gt[6] = {100, 0.5, 0, 200, 0, -0.25};
	PbLabelShapes out;
	PbError		err;
	uint32_t	type,
				srid;
	double		p[10];

	CHECK_INT(PbTraceLabels(&im, gt, 4326, NULL, &out, &err), PB_OK);
	CHECK_INT(out.n, 1);
	if (out.n == 1)
	{
		const uint8_t *b = out.shapes[0].ewkb;

		CHECK_INT(out.shapes[0].label, 5);
		CHECK_INT(out.shapes[0].pixels, 1);
		memcpy(&type, b + 1, 4);
		memcpy(&srid, b + 5, 4);
		CHECK_INT(type, 0x20000003);
		CHECK_INT(srid, 4326);
		CHECK_INT(out.shapes[0].len, 9 + 4 + 4 + 80);
		memcpy(p, b + 17, 80);
		/* pixel (1, 0): x from 100.5 to 101, y from 200 to 199.75 */
		for (int i = 0; i < 5; i++)
		{
			CHECK(p[2 * i] == 100.5 || p[2 * i] == 101);
			CHECK(p[2 * i + 1] == 200 || p[2 * i + 1] == 199.75);
		}
	}
	PbLabelShapesFree(&out);
}

/* An empty image has no labels; bad sizes and widths are refused. */
void
test_label_polys_errors(void)
{
	uint8_t		zeros[4] = {0};
	PbLabelImage im = {zeros, 2, 2, 1};
	double		gt[6] = {0, 1, 0, 0, 0, 1};
	PbLabelShapes out;
	PbError		err;

	CHECK_INT(PbTraceLabels(&im, gt, 0, NULL, &out, &err), PB_OK);
	CHECK_INT(out.n, 0);
	PbLabelShapesFree(&out);
	im.width = 0;
	CHECK_INT(PbTraceLabels(&im, gt, 0, NULL, &out, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "image of 0 x 2 pixels");
	im.width = 65536;
	im.height = 65536;
	CHECK_INT(PbTraceLabels(&im, gt, 0, NULL, &out, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "at most 2147483648 pixels");
	im.width = 2;
	im.height = 2;
	im.bytes = 3;
	CHECK_INT(PbTraceLabels(&im, gt, 0, NULL, &out, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "labels of 3 bytes (1, 2 or 4)");
}

/* Stop at once when asked. */
static int
PollYes(void *arg)
{
	(void) arg;
	return 1;
}

/* A poll that says stop stops the trace, leaving nothing. */
void
test_label_polys_stop(void)
{
	uint32_t   *lab = calloc(512 * 512, sizeof(uint32_t));
	PbLabelImage im = {lab, 512, 512, 4};
	double		gt[6] = {0, 1, 0, 0, 0, 1};
	PbRun		run = {2, 0, PollYes, NULL};
	PbLabelShapes out;
	PbError		err;

	for (int i = 0; i < 512 * 512; i++)
		lab[i] = (uint32_t) (i % 7);
	CHECK_INT(PbTraceLabels(&im, gt, 0, &run, &out, &err), PB_ERR_STOPPED);
	CHECK_INT(out.n, 0);
	CHECK(out.shapes == NULL);
	free(lab);
}

/*
 * Outlines with corners at nearly every pixel have more corners than a
 * segmentation can: refused with a message, on one thread and on two,
 * before memory grows with them.  Three shapes of it: single-pixel
 * objects (a checkerboard of labels 1 and 2: many rings), single-pixel
 * holes in one object (many rings of one label), diagonal stripes joined
 * by the first column (one ring, checked while it is walked).  A
 * real-looking image of the same size is traced.
 */
void
test_label_polys_corner_budget(void)
{
	const uint32_t side = 4608;	/* 21M pixels: the floor's budget, 2^24 corners */
	uint8_t    *lab = malloc((size_t) side * side);
	PbLabelImage im = {lab, side, side, 1};
	double		gt[6] = {0, 1, 0, 0, 0, 1};
	PbRun		run = {2, 0, NULL, NULL};
	PbLabelShapes out;
	PbError		err;

	CHECK(PbLabelMaxPoints((uint64_t) 1 << 30) == (uint64_t) 1 << 28);
	CHECK(PbLabelMaxPoints((uint64_t) side * side) == (uint64_t) 1 << 24);
	for (int shape = 0; shape < 3; shape++)
	{
		for (size_t r = 0; r < side; r++)
			for (size_t c = 0; c < side; c++)
				lab[r * side + c] = (uint8_t) (shape == 0 ? 1 + (r + c) % 2 :
											   shape == 1 ? !(r % 2 == 1 && c % 2 == 1) :
											   (r + c) % 4 < 2 || c == 0);
		pb_test_context("shape %d", shape);
		CHECK_INT(PbTraceLabels(&im, gt, 0, shape == 1 ? &run : NULL, &out, &err), PB_ERR_BADARG);
		CHECK_STR_HAS(err.message, "the outlines of a 4608 x 4608 image's labels have more than 16777216 corners");
		CHECK(out.shapes == NULL);
	}
	pb_test_context("%s", "");
	/* squares of 16 x 16 pixels, four labels: traced */
	for (size_t r = 0; r < side; r++)
		for (size_t c = 0; c < side; c++)
			lab[r * side + c] = (uint8_t) (1 + (r / 16 % 2) * 2 + c / 16 % 2);
	CHECK_INT(PbTraceLabels(&im, gt, 0, &run, &out, &err), PB_OK);
	CHECK_INT(out.n, 4);
	PbLabelShapesFree(&out);
	free(lab);
}
