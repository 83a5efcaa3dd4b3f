/*
 * test_heatmap.c: heat maps of per-tile values (src/core/formats/heatmap.h)
 * and RGBA to PNG (png_write.h): where tiles land (offsets from the
 * smallest tile numbers, y down), grey and transparent tiles, the colour
 * quantisation against matplotlib's viridis written here from
 * matplotlib.cm.viridis (independent of the table in the core), every
 * refusal with its message, the cancel; PNGs decoded with libpng's own
 * reader and compared pixel for pixel, every allocation given back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "../src/core/formats/heatmap.h"
#include "../src/core/formats/png_write.h"
#include "harness.h"

/* RGBA of pixel (c, r) of im. */
static const uint8_t *
Pixel(const PbHeatImage *im, uint32_t c, uint32_t r)
{
	return im->rgba + ((size_t) r * im->width + c) * 4;
}

/* Check pixel (c, r) of im is (r0, g0, b0, a0). */
static void
CheckPixel(const PbHeatImage *im, uint32_t c, uint32_t r, int r0, int g0, int b0, int a0)
{
	const uint8_t *p = Pixel(im, c, r);

	pb_test_context("pixel (%u, %u)", c, r);
	CHECK_INT(p[0], r0);
	CHECK_INT(p[1], g0);
	CHECK_INT(p[2], b0);
	CHECK_INT(p[3], a0);
	pb_test_context("%s", "");
}

/* Add a tile that must be taken. */
static void
AddOk(PbHeatMap *m, int32_t x, int32_t y, int has_value, double v, int cell)
{
	PbError		err;
	PbStatus	st = PbHeatAdd(m, x, y, has_value, v, cell, &err);

	if (st != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "tile (%d, %d) refused: %s", x, y, err.message);
}

/* Render m, which must succeed. */
static void
RenderOk(PbHeatMap *m, PbHeatImage *im)
{
	PbError		err;

	if (PbHeatRender(m, NULL, NULL, im, &err) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "render failed: %s", err.message);
}

/*
 * Tiles x -3..0, y 5..7 at cell 2: column x + 3, row y - 5, y down; the
 * corners of each cell and its neighbours' edges.
 */
void
test_heatmap_placement(void)
{
	PbHeatMap	m;
	PbHeatImage im;

	PbHeatInit(&m, &PbMallocAllocator);
	AddOk(&m, 0, 7, 1, 1.0, 2);	/* bottom right: yellow */
	AddOk(&m, -3, 5, 1, 0.0, 2);	/* top left: purple */
	AddOk(&m, -1, 5, 1, 0.5, 2);
	RenderOk(&m, &im);
	CHECK_INT(im.width, 8);
	CHECK_INT(im.height, 6);
	if (im.rgba != NULL && im.width == 8 && im.height == 6)
	{
		/* (-3, 5): pixels (0..1, 0..1) */
		CheckPixel(&im, 0, 0, 68, 1, 84, 255);
		CheckPixel(&im, 1, 1, 68, 1, 84, 255);
		CheckPixel(&im, 2, 0, 0, 0, 0, 0);
		CheckPixel(&im, 0, 2, 0, 0, 0, 0);
		/* (-1, 5): pixels (4..5, 0..1), index rint(127.5) = 128 */
		CheckPixel(&im, 4, 0, 33, 145, 140, 255);
		CheckPixel(&im, 5, 1, 33, 145, 140, 255);
		CheckPixel(&im, 3, 1, 0, 0, 0, 0);
		CheckPixel(&im, 6, 0, 0, 0, 0, 0);
		/* (0, 7): pixels (6..7, 4..5) */
		CheckPixel(&im, 6, 4, 253, 231, 37, 255);
		CheckPixel(&im, 7, 5, 253, 231, 37, 255);
		CheckPixel(&im, 7, 3, 0, 0, 0, 0);
	}
	free(im.rgba);
	PbHeatFree(&m);

	/* one tile at the extremes of int32, one pixel */
	PbHeatInit(&m, &PbMallocAllocator);
	AddOk(&m, INT32_MIN, INT32_MAX, 1, 0.25, 1);
	RenderOk(&m, &im);
	CHECK_INT(im.width, 1);
	CHECK_INT(im.height, 1);
	if (im.rgba != NULL)
		CheckPixel(&im, 0, 0, 59, 82, 139, 255);	/* index 64 */
	free(im.rgba);
	PbHeatFree(&m);
}

/* A tile without value is opaque grey, a tile without a row transparent. */
void
test_heatmap_grey_transparent(void)
{
	PbHeatMap	m;
	PbHeatImage im;

	PbHeatInit(&m, &PbMallocAllocator);
	AddOk(&m, 0, 0, 0, NAN, 3);
	AddOk(&m, 2, 1, 0, 0.0, 3);
	RenderOk(&m, &im);
	CHECK_INT(im.width, 9);
	CHECK_INT(im.height, 6);
	if (im.rgba != NULL && im.width == 9 && im.height == 6)
		for (uint32_t r = 0; r < 6; r++)
			for (uint32_t c = 0; c < 9; c++)
			{
				int			grey = (r < 3 && c < 3) || (r >= 3 && c >= 6);

				CheckPixel(&im, c, r, grey ? 128 : 0, grey ? 128 : 0, grey ? 128 : 0,
						   grey ? 255 : 0);
			}
	free(im.rgba);
	PbHeatFree(&m);
}

/* Values quantised as rint(value * 255): 0, 1, halves, just below halves. */
void
test_heatmap_quantisation(void)
{
	/* value, then matplotlib.cm.viridis(rint(value * 255)) * 255, rounded */
	static const struct
	{
		double		v;
		int			rgb[3];
	}			cases[] = {
		{0.0, {68, 1, 84}},
		{-0.0, {68, 1, 84}},
		{1.0, {253, 231, 37}},
		{0.5, {33, 145, 140}},	/* 127.5: to even, 128 */
		{127.49 / 255, {33, 144, 141}},	/* 127 */
		{0.75, {92, 200, 99}},	/* 191.25: 191 */
		{0.1, {72, 37, 118}},	/* 25.5: to even, 26 */
		{1e-300, {68, 1, 84}},
		{0.998, {251, 231, 35}},	/* 254.49: 254 */
		{2.5 / 255, {69, 4, 87}},	/* 2.5: to even, 2 */
		{0.5 / 255, {68, 1, 84}},	/* 0.5: to even, 0 */
	};
	PbHeatMap	m;
	PbHeatImage im;
	int			n = (int) (sizeof(cases) / sizeof(cases[0]));

	PbHeatInit(&m, &PbMallocAllocator);
	for (int i = 0; i < n; i++)
		AddOk(&m, i, 0, 1, cases[i].v, 1);
	RenderOk(&m, &im);
	CHECK_INT(im.width, n);
	for (int i = 0; i < n && im.rgba != NULL; i++)
	{
		pb_test_context("value %.17g", cases[i].v);
		CHECK_INT(Pixel(&im, i, 0)[0], cases[i].rgb[0]);
		CHECK_INT(Pixel(&im, i, 0)[1], cases[i].rgb[1]);
		CHECK_INT(Pixel(&im, i, 0)[2], cases[i].rgb[2]);
		CHECK_INT(Pixel(&im, i, 0)[3], 255);
	}
	free(im.rgba);
	PbHeatFree(&m);
}

/* Add a tile that must be refused with fault and a message containing msg. */
static void
CheckRefused(PbHeatMap *m, int32_t x, int32_t y, int has_value, double v, int cell,
			 PbHeatFault fault, const char *msg)
{
	PbError		err;
	size_t		n = m->n;
	PbStatus	st = PbHeatAdd(m, x, y, has_value, v, cell, &err);

	pb_test_context("tile (%d, %d) value %g cell %d", x, y, v, cell);
	CHECK_INT(st, PB_ERR_BADARG);
	CHECK_INT(m->fault, fault);
	if (st != PB_OK)
		CHECK_STR_HAS(err.message, msg);
	/* a refused tile is not kept, except the duplicate found when kept */
	if (fault != PB_HEAT_FAULT_DUPLICATE)
		CHECK_INT(m->n, n);
	pb_test_context("%s", "");
}

/* Every refusal of PbHeatAdd and PbHeatRender, with its message. */
void
test_heatmap_errors(void)
{
	PbHeatMap	m;
	PbHeatImage im;
	PbError		err;

	PbHeatInit(&m, &PbMallocAllocator);
	CheckRefused(&m, 1, 2, 1, NAN, 8, PB_HEAT_FAULT_VALUE,
				 "tile (1, 2): its value is NaN, not a number in [0, 1]");
	CheckRefused(&m, 1, 2, 1, -0.1, 8, PB_HEAT_FAULT_VALUE,
				 "tile (1, 2): its value -0.1 is outside [0, 1]");
	CheckRefused(&m, 1, 2, 1, 1.0000000000000002, 8, PB_HEAT_FAULT_VALUE,
				 "its value 1.0000000000000002 is outside [0, 1]");
	CheckRefused(&m, 1, 2, 1, INFINITY, 8, PB_HEAT_FAULT_VALUE,
				 "its value Infinity is outside [0, 1]");
	CheckRefused(&m, 1, 2, 1, -INFINITY, 8, PB_HEAT_FAULT_VALUE,
				 "its value -Infinity is outside [0, 1]");
	CheckRefused(&m, 1, 2, 1, 0.5, 0, PB_HEAT_FAULT_CELL,
				 "tile (1, 2): cell_pixels must be between 1 and 256, not 0");
	CheckRefused(&m, 1, 2, 1, 0.5, 257, PB_HEAT_FAULT_CELL,
				 "cell_pixels must be between 1 and 256, not 257");
	/* nothing taken so far: render refuses an empty map */
	CHECK_INT(PbHeatRender(&m, NULL, NULL, &im, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "at least one tile");
	CHECK(im.rgba == NULL);

	AddOk(&m, 0, 0, 1, 0.5, 8);
	CheckRefused(&m, 1, 0, 1, 0.5, 4, PB_HEAT_FAULT_CELL,
				 "tile (1, 0): cell_pixels must be the same in every row: 8, then 4");
	/* 2048 tiles of 8: 16384 wide, allowed; one more is not */
	AddOk(&m, 2047, 0, 1, 0.5, 8);
	CheckRefused(&m, 2048, 0, 1, 0.5, 8, PB_HEAT_FAULT_SIZE,
				 "the heat map would be at least 16392 x 8 pixels (tiles x 0 to 2048, y 0 to 0, cell_pixels 8)");
	CheckRefused(&m, 0, -2048, 1, 0.5, 8, PB_HEAT_FAULT_SIZE,
				 "at least 16384 x 16392 pixels (tiles x 0 to 2047, y -2048 to 0");
	/* within the sides, past 2^28 bytes: 16384 x 4104 */
	CheckRefused(&m, 0, 512, 1, 0.5, 8, PB_HEAT_FAULT_SIZE,
				 "16384 x 4104 pixels");
	CheckRefused(&m, INT32_MIN, INT32_MIN, 1, 0.5, 8, PB_HEAT_FAULT_SIZE,
				 "at least 17179885568 x 17179869192 pixels (tiles x -2147483648 to 2047, y -2147483648 to 0, cell_pixels 8): too large");
	/* 16384 x 4096 x 4 = 2^28 exactly: allowed */
	AddOk(&m, 0, 511, 0, 0.0, 8);
	/* a tile given twice, found when drawn */
	AddOk(&m, 2047, 0, 1, 0.25, 8);
	CHECK_INT(PbHeatRender(&m, NULL, NULL, &im, &err), PB_ERR_BADARG);
	CHECK_INT(m.fault, PB_HEAT_FAULT_DUPLICATE);
	CHECK_STR_HAS(err.message, "tile (2047, 0) appears twice: each tile may have one value");
	CHECK(im.rgba == NULL);
	PbHeatFree(&m);

	/* the longest message there is fits */
	PbHeatInit(&m, &PbMallocAllocator);
	AddOk(&m, INT32_MAX, INT32_MAX, 1, 0.5, 256);
	CheckRefused(&m, INT32_MIN, INT32_MIN, 1, 0.5, 256, PB_HEAT_FAULT_SIZE,
				 "the heat map would be at least 1099511627776 x 1099511627776 pixels (tiles x -2147483648 to 2147483647, y -2147483648 to 2147483647, cell_pixels 256): too large");
	PbHeatFree(&m);

	/* more tiles than places: the duplicate is found as it comes */
	PbHeatInit(&m, &PbMallocAllocator);
	AddOk(&m, -5, 3, 1, 0.5, 1);
	AddOk(&m, -4, 3, 0, 0.0, 1);
	CheckRefused(&m, -4, 3, 1, 0.75, 1, PB_HEAT_FAULT_DUPLICATE,
				 "tile (-4, 3) appears twice");
	PbHeatFree(&m);
}

/* Poll that says stop from its n-th call on (*arg counts down). */
static int
StopAfter(void *arg)
{
	int		   *left = arg;

	return --*left < 0;
}

/* A cancel stops the drawing of a large map, also while its image is cleared; nothing is kept. */
void
test_heatmap_poll(void)
{
	PbHeatMap	m;
	PbHeatImage im;
	PbError		err;
	int			left = 2;

	PbHeatInit(&m, &PbMallocAllocator);
	for (int y = 0; y < 64; y++)
		for (int x = 0; x < 64; x++)
			AddOk(&m, x, y, 1, (x + y) / 126.0, 128);
	CHECK_INT(PbHeatRender(&m, StopAfter, &left, &im, &err), PB_ERR_STOPPED);
	CHECK(im.rgba == NULL);
	CHECK(left < 0);
	PbHeatFree(&m);

	/* two tiles far apart: little to paint, a large image to clear (64 MB) */
	PbHeatInit(&m, &PbMallocAllocator);
	AddOk(&m, 0, 0, 1, 0.5, 64);
	AddOk(&m, 127, 31, 1, 0.5, 64);
	left = 1;
	CHECK_INT(PbHeatRender(&m, StopAfter, &left, &im, &err), PB_ERR_STOPPED);
	CHECK(im.rgba == NULL);
	PbHeatFree(&m);
}

/* An allocator on malloc that counts the blocks it has out. */
typedef struct Counted
{
	long		live;
	long		total;
} Counted;

/* Allocate, counting. */
static void *
CountedAlloc(void *ctx, size_t size)
{
	Counted    *c = ctx;
	void	   *p = malloc(size ? size : 1);

	if (p == NULL)
		abort();
	c->live++;
	c->total++;
	return p;
}

/* Resize (the block stays out). */
static void *
CountedResize(void *ctx, void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	(void) ctx;
	if (p == NULL)
		abort();
	return p;
}

/* Free, counting. */
static void
CountedRelease(void *ctx, void *ptr)
{
	Counted    *c = ctx;

	c->live--;
	free(ptr);
}

/* The pixels libpng's reader makes of png (RGBA 8-bit), or NULL. */
static uint8_t *
DecodePng(const uint8_t *png, size_t len, uint32_t *w, uint32_t *h)
{
	png_image	image;
	uint8_t    *pixels;

	memset(&image, 0, sizeof(image));
	image.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_memory(&image, png, len))
		return NULL;
	image.format = PNG_FORMAT_RGBA;
	pixels = malloc(PNG_IMAGE_SIZE(image));
	if (!png_image_finish_read(&image, NULL, pixels, 0, NULL))
	{
		free(pixels);
		return NULL;
	}
	*w = image.width;
	*h = image.height;
	return pixels;
}

/* Random RGBA (alpha too) encoded, decoded by libpng's reader: the same. */
void
test_png_round_trip(void)
{
	Counted		count = {0, 0};
	PbAllocator mem = {CountedAlloc, CountedResize, CountedRelease, NULL, &count};
	uint32_t	sizes[][2] = {{1, 1}, {37, 23}, {300, 211}};
	Rng			rng = {22};

	for (int k = 0; k < 3; k++)
	{
		uint32_t	w = sizes[k][0],
					h = sizes[k][1],
					dw = 0,
					dh = 0;
		size_t		n = (size_t) w * h * 4;
		uint8_t    *rgba = malloc(n),
				   *back;
		PbPngBytes	png;
		PbError		err;

		/* runs of one colour and noise, as heat maps and worse */
		for (size_t i = 0; i < n; i++)
			rgba[i] = (i / 4) % 7 < 3 ? (uint8_t) RngNext(&rng) : (uint8_t) (i % 4 * 60);
		pb_test_context("%u x %u", w, h);
		CHECK_INT(PbPngWriteRgba(rgba, w, h, 5, &mem, NULL, NULL, &png, &err), PB_OK);
		CHECK(count.total > 3);	/* libpng's structures came from mem */
		CHECK_INT(count.live, 1);	/* only the PNG */
		CHECK(png.len > 8 && memcmp(png.data + 5, "\x89PNG\r\n\x1a\n", 8) == 0);
		back = DecodePng(png.data + 5, png.len, &dw, &dh);
		CHECK(back != NULL);
		CHECK_INT(dw, w);
		CHECK_INT(dh, h);
		if (back != NULL && dw == w && dh == h)
			CHECK(memcmp(back, rgba, n) == 0);
		free(back);
		free(rgba);
		mem.release(mem.ctx, png.data);
		CHECK_INT(count.live, 0);
	}
}

/* A heat map through PNG: the decoded pixels are the drawn ones. */
void
test_png_heatmap(void)
{
	PbHeatMap	m;
	PbHeatImage im;
	PbPngBytes	png;
	PbError		err;
	uint32_t	w = 0,
				h = 0;
	uint8_t    *back;

	PbHeatInit(&m, &PbMallocAllocator);
	for (int y = -4; y < 26; y++)
		for (int x = 0; x < 40; x++)
			if ((x * 7 + y * 3) % 11 != 0)
				AddOk(&m, x, y, (x + y) % 13 != 0, (x + 4 + y) / 69.0, 8);
	RenderOk(&m, &im);
	CHECK_INT(PbPngWriteRgba(im.rgba, im.width, im.height, 0, &PbMallocAllocator, NULL,
							 NULL, &png, &err), PB_OK);
	back = DecodePng(png.data, png.len, &w, &h);
	CHECK(back != NULL);
	CHECK_INT(w, 320);
	CHECK_INT(h, 240);
	if (back != NULL && w == 320 && h == 240)
		CHECK(memcmp(back, im.rgba, (size_t) w * h * 4) == 0);
	free(back);
	free(png.data);
	free(im.rgba);
	PbHeatFree(&m);
}

/* The writer's refusals and its cancel: nothing left allocated. */
void
test_png_write_errors(void)
{
	Counted		count = {0, 0};
	PbAllocator mem = {CountedAlloc, CountedResize, CountedRelease, NULL, &count};
	uint8_t    *rgba = calloc((size_t) 4 * 1000 * 4, 1);
	PbPngBytes	png;
	PbError		err;
	int			left = 3;

	CHECK_INT(PbPngWriteRgba(rgba, 0, 5, 0, &mem, NULL, NULL, &png, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "an image of 0 x 5 pixels is empty");
	CHECK_INT(count.live, 0);
	/* past libpng's width limit (10^6): libpng's error, by longjmp */
	CHECK_INT(PbPngWriteRgba(rgba, 2000000, 1, 0, &mem, NULL, NULL, &png, &err),
			  PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "PNG: ");
	CHECK(png.data == NULL);
	CHECK_INT(count.live, 0);
	/* stopped between rows */
	CHECK_INT(PbPngWriteRgba(rgba, 4, 1000, 0, &mem, StopAfter, &left, &png, &err),
			  PB_ERR_STOPPED);
	CHECK(png.data == NULL);
	CHECK_INT(count.live, 0);
	free(rgba);
}
