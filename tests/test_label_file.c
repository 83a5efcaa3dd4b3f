/*
 * test_label_file.c: label images read from TIFF and PNG files
 * (src/core/formats/label_file.h), written here with libtiff and libpng in
 * every layout the readers take (8, 16, 32 and 1 bits; strips, tiles,
 * BigTIFF, compressed; interlaced PNG, 1 to 16-bit gray), read back pixel
 * for pixel and traced; and every refusal with its message.
 */
#define _DEFAULT_SOURCE			/* mkdtemp */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>
#include <tiffio.h>

#include "../src/core/formats/label_file.h"
#include "harness.h"
#include "label_oracle.h"
#include "testutil.h"

/* How a test TIFF is written. */
typedef struct TiffSpec
{
	int			bits;
	int			tiled;
	int			big;
	int			compression;
	int			spp;
	int			format;
	int			photometric;
	int			pages;
	int			rows_per_strip;
} TiffSpec;

/* Write labels (w x h) as a TIFF of the given layout. */
static void
WriteTiff(const char *path, const uint32_t *lab, uint32_t w, uint32_t h, const TiffSpec *t)
{
	TIFF	   *tif = TIFFOpen(path, t->big ? "w8" : "w");
	int			bytes = t->bits == 32 ? 4 : t->bits == 16 ? 2 : 1;

	for (int page = 0; page < (t->pages ? t->pages : 1); page++)
	{
		TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
		TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
		TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, t->bits);
		TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, t->spp ? t->spp : 1);
		TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, t->format ? t->format : SAMPLEFORMAT_UINT);
		TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, t->photometric ? t->photometric : PHOTOMETRIC_MINISBLACK);
		TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
		TIFFSetField(tif, TIFFTAG_COMPRESSION, t->compression ? t->compression : COMPRESSION_NONE);
		if (t->photometric == PHOTOMETRIC_PALETTE)
		{
			static uint16_t map[256];

			TIFFSetField(tif, TIFFTAG_COLORMAP, map, map, map);
		}
		if (t->tiled)
		{
			uint32_t	tw = 16,
						th = 32;
			int			spp = t->spp ? t->spp : 1;
			size_t		tsize = (size_t) TIFFTileSize(tif);
			uint8_t    *tile;

			TIFFSetField(tif, TIFFTAG_TILEWIDTH, tw);
			TIFFSetField(tif, TIFFTAG_TILELENGTH, th);
			tsize = (size_t) TIFFTileSize(tif);
			tile = calloc(tsize, 1);
			for (uint32_t y = 0; y < h; y += th)
				for (uint32_t x = 0; x < w; x += tw)
				{
					memset(tile, 0, tsize);
					for (uint32_t r = 0; r < th && y + r < h; r++)
						for (uint32_t c = 0; c < tw && x + c < w; c++)
						{
							uint32_t	v = lab[(size_t) (y + r) * w + x + c];
							size_t		i = ((size_t) r * tw + c) * spp;

							if (t->bits == 1)
							{
								size_t		rowb = (tw + 7) / 8;

								if (v)
									tile[r * rowb + c / 8] |= (uint8_t) (0x80 >> (c % 8));
							}
							else if (bytes == 1)
								tile[i] = (uint8_t) v;
							else if (bytes == 2)
								((uint16_t *) tile)[i] = (uint16_t) v;
							else
								((uint32_t *) tile)[i] = v;
						}
					TIFFWriteTile(tif, tile, x, y, 0, 0);
				}
			free(tile);
		}
		else
		{
			int			spp = t->spp ? t->spp : 1;
			size_t		sl;
			uint8_t    *row;

			TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, t->rows_per_strip ? t->rows_per_strip : 7);
			sl = (size_t) TIFFScanlineSize(tif);
			row = calloc(sl, 1);
			for (uint32_t r = 0; r < h; r++)
			{
				memset(row, 0, sl);
				for (uint32_t c = 0; c < w; c++)
				{
					uint32_t	v = lab[(size_t) r * w + c];
					size_t		i = (size_t) c * spp;

					if (t->bits == 1)
					{
						if (v)
							row[c / 8] |= (uint8_t) (0x80 >> (c % 8));
					}
					else if (t->bits < 8)
						continue;	/* other sub-byte depths: zeros */
					else if (bytes == 1)
						row[i] = (uint8_t) v;
					else if (bytes == 2)
						((uint16_t *) row)[i] = (uint16_t) v;
					else
						((uint32_t *) row)[i] = v;
				}
				TIFFWriteScanline(tif, row, r, 0);
			}
			free(row);
		}
		TIFFWriteDirectory(tif);
	}
	TIFFClose(tif);
}

/* Write labels (w x h) as a PNG of a color type and depth. */
static void
WritePng(const char *path, const uint32_t *lab, uint32_t w, uint32_t h, int depth,
		 int color, int interlace)
{
	FILE	   *f = fopen(path, "wb");
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop	info = png_create_info_struct(png);
	int			chans = color == PNG_COLOR_TYPE_RGB ? 3 : color == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 :
		color == PNG_COLOR_TYPE_RGB_ALPHA ? 4 : 1;
	uint8_t   **rows = malloc(sizeof(uint8_t *) * h);

	png_init_io(png, f);
	png_set_IHDR(png, info, w, h, depth, color,
				 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
				 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	if (color == PNG_COLOR_TYPE_PALETTE)
	{
		png_color pal[4] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}};

		png_set_PLTE(png, info, pal, 4);
	}
	png_write_info(png, info);
	if (depth < 8)
		png_set_packing(png);
	for (uint32_t r = 0; r < h; r++)
	{
		rows[r] = calloc((size_t) w * chans * 2 + 1, 1);
		for (uint32_t c = 0; c < w; c++)
			for (int k = 0; k < chans; k++)
			{
				uint32_t	v = lab[(size_t) r * w + c];

				if (depth == 16)
				{
					rows[r][2 * (c * chans + k)] = (uint8_t) (v >> 8);
					rows[r][2 * (c * chans + k) + 1] = (uint8_t) v;
				}
				else
					rows[r][c * chans + k] = (uint8_t) v;
			}
	}
	png_write_image(png, rows);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	fclose(f);
	for (uint32_t r = 0; r < h; r++)
		free(rows[r]);
	free(rows);
}

/* Read a file as a label image. */
static PbStatus
ReadFile(const char *path, PbLabelImage *im, PbError *err)
{
	int			fd = open(path, O_RDONLY | O_NONBLOCK);
	int			io = 0;
	PbStatus	st;

	if (fd < 0)
		return PB_ERR_FORMAT;
	st = PbReadLabelFile(fd, PB_LABEL_MAX_PIXELS, NULL, NULL, im, &io, err);
	close(fd);
	return st;
}

/* Check the image read holds labels, as bytes a pixel. */
static void
CheckPixels(const PbLabelImage *im, const uint32_t *lab, uint32_t w, uint32_t h, int bytes)
{
	CHECK_INT(im->width, w);
	CHECK_INT(im->height, h);
	CHECK_INT(im->bytes, bytes);
	if (im->data == NULL || im->width != w || im->height != h || im->bytes != bytes)
		return;
	for (size_t i = 0; i < (size_t) w * h; i++)
	{
		uint32_t	v = bytes == 1 ? ((const uint8_t *) im->data)[i]
			: bytes == 2 ? ((const uint16_t *) im->data)[i] : ((const uint32_t *) im->data)[i];

		if (v != lab[i])
		{
			pb_check_fail(__FILE__, __LINE__, "pixel %zu: %u != %u", i, v, lab[i]);
			return;
		}
	}
}

/* Labels for w x h: blobs of values below limit (0 included), and big ones when asked. */
static uint32_t *
Labels(uint32_t w, uint32_t h, uint32_t limit, Rng *rng)
{
	uint32_t   *lab = calloc((size_t) w * h, sizeof(uint32_t));

	for (int k = 0; k < 20; k++)
	{
		uint32_t	x = (uint32_t) RngRange(rng, 0, w - 1),
					y = (uint32_t) RngRange(rng, 0, h - 1),
					v = limit == 0 ? (uint32_t) RngNext(rng) : (uint32_t) RngRange(rng, 0, limit - 1);

		for (uint32_t r = y; r < h && r < y + 9; r++)
			for (uint32_t c = x; c < w && c < x + 13; c++)
				lab[(size_t) r * w + c] = v;
	}
	return lab;
}

/* Every TIFF layout read back exactly, and traced. */
void
test_label_file_tiff_layouts(void)
{
	char		dir[] = "/tmp/pb_label_file_XXXXXX";
	Rng			rng = {99};
	const TiffSpec specs[] = {
		{8, 0, 0, 0, 0, 0, 0, 0, 0},
		{16, 0, 0, 0, 0, 0, 0, 0, 1},
		{32, 0, 0, 0, 0, 0, 0, 0, 0},
		{32, 0, 1, 0, 0, 0, 0, 0, 0},
		{16, 1, 0, 0, 0, 0, 0, 0, 0},
		{32, 1, 1, COMPRESSION_ADOBE_DEFLATE, 0, 0, 0, 0, 0},
		{16, 0, 0, COMPRESSION_LZW, 0, 0, 0, 0, 0},
		{8, 0, 0, COMPRESSION_PACKBITS, 0, 0, 0, 0, 1000},
		{1, 0, 0, 0, 0, 0, 0, 0, 0},
		{1, 1, 0, COMPRESSION_LZW, 0, 0, 0, 0, 0},
		{32, 0, 0, 0, 0, 0, PHOTOMETRIC_MINISWHITE, 0, 0},
	};

	CHECK(mkdtemp(dir) != NULL);
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++)
	{
		const TiffSpec *t = &specs[k];
		uint32_t	w = 37 + (uint32_t) k,
					h = 45;
		uint32_t	limit = t->bits == 1 ? 2 : t->bits == 8 ? 256 : t->bits == 16 ? 65536 : 0;
		uint32_t   *lab = Labels(w, h, limit, &rng);
		char		path[128];
		PbLabelImage im;
		PbError		err;
		PbLabelShapes shapes;
		double		gt[6] = {0, 1, 0, 0, 0, 1};

		pb_test_context("TIFF layout %zu (%d bits, tiled %d, big %d)", k, t->bits, t->tiled, t->big);
		snprintf(path, sizeof(path), "%s/l%zu.tif", dir, k);
		WriteTiff(path, lab, w, h, t);
		CHECK_INT(ReadFile(path, &im, &err), PB_OK);
		CheckPixels(&im, lab, w, h, t->bits == 32 ? 4 : t->bits == 16 ? 2 : 1);
		if (im.data != NULL && PbTraceLabels(&im, gt, 0, NULL, &shapes, &err) == PB_OK)
		{
			for (size_t i = 0; i < shapes.n; i++)
				CheckLabelOutline(shapes.shapes[i].ewkb, shapes.shapes[i].len, lab, w, h,
								  shapes.shapes[i].label, 0, 0);
			PbLabelShapesFree(&shapes);
		}
		free((void *) im.data);
		unlink(path);
		free(lab);
	}
	rmdir(dir);
}

/* Every PNG depth read back exactly, interlaced or not. */
void
test_label_file_png_depths(void)
{
	char		dir[] = "/tmp/pb_label_file_XXXXXX";
	Rng			rng = {5};
	const int	depths[] = {1, 2, 4, 8, 16, 8, 16};

	CHECK(mkdtemp(dir) != NULL);
	for (size_t k = 0; k < sizeof(depths) / sizeof(depths[0]); k++)
	{
		uint32_t	w = 30 + (uint32_t) k,
					h = 21;
		uint32_t   *lab = Labels(w, h, 1u << depths[k], &rng);
		char		path[128];
		PbLabelImage im;
		PbError		err;

		pb_test_context("PNG %d bits, interlaced %d", depths[k], k >= 5);
		snprintf(path, sizeof(path), "%s/l%zu.png", dir, k);
		WritePng(path, lab, w, h, depths[k], PNG_COLOR_TYPE_GRAY, k >= 5);
		CHECK_INT(ReadFile(path, &im, &err), PB_OK);
		CheckPixels(&im, lab, w, h, depths[k] == 16 ? 2 : 1);
		free((void *) im.data);
		unlink(path);
		free(lab);
	}
	rmdir(dir);
}

/* Expect path to be refused with st and a message holding msg. */
static void
ExpectRefused(const char *path, PbStatus st, const char *msg)
{
	PbLabelImage im;
	PbError		err;

	pb_test_context("%s", path);
	CHECK_INT(ReadFile(path, &im, &err), st);
	CHECK_STR_HAS(err.message, msg);
	CHECK(im.data == NULL);
}

/* Images that are not label images, damaged ones, other files: refused, saying why. */
void
test_label_file_refusals(void)
{
	char		dir[] = "/tmp/pb_label_file_XXXXXX";
	char		path[160];
	uint32_t	lab[64] = {0, 1, 2, 3};
	TiffSpec	t;
	char	   *p;
	FILE	   *f;
	long		size;
	char	   *bytes;

	CHECK(mkdtemp(dir) != NULL);
	memset(&t, 0, sizeof(t));
#define TIFF_CASE(field, value, nbits, st, msg) \
	do { \
		memset(&t, 0, sizeof(t)); \
		t.bits = nbits; \
		t.field = value; \
		snprintf(path, sizeof(path), "%s/%s.tif", dir, #field); \
		WriteTiff(path, lab, 8, 8, &t); \
		ExpectRefused(path, st, msg); \
		unlink(path); \
	} while (0)
	TIFF_CASE(format, SAMPLEFORMAT_IEEEFP, 32, PB_ERR_UNSUPPORTED,
			  "not a label image: 32-bit floating-point samples; labels are unsigned integers");
	TIFF_CASE(format, SAMPLEFORMAT_INT, 16, PB_ERR_UNSUPPORTED,
			  "not a label image: 16-bit signed samples; labels are unsigned integers");
	TIFF_CASE(spp, 3, 8, PB_ERR_UNSUPPORTED,
			  "not a label image: 3 samples a pixel (several bands); label images have one band");
	TIFF_CASE(photometric, PHOTOMETRIC_PALETTE, 8, PB_ERR_UNSUPPORTED,
			  "not a label image: a palette (color-mapped) image");
	TIFF_CASE(pages, 2, 8, PB_ERR_UNSUPPORTED,
			  "not a label image: the TIFF holds more than one image (pages of a stack?)");
	TIFF_CASE(rows_per_strip, 1, 4, PB_ERR_UNSUPPORTED,
			  "not a label image: 4-bit samples; labels have 1, 8, 16 or 32 bits");
	/* an RGB TIFF */
	memset(&t, 0, sizeof(t));
	t.bits = 8;
	t.spp = 3;
	t.photometric = PHOTOMETRIC_RGB;
	snprintf(path, sizeof(path), "%s/rgb.tif", dir);
	WriteTiff(path, lab, 8, 8, &t);
	ExpectRefused(path, PB_ERR_UNSUPPORTED, "3 samples a pixel (RGB)");
	unlink(path);
	/* truncated: a big uncompressed strip cut short */
	memset(&t, 0, sizeof(t));
	t.bits = 32;
	t.rows_per_strip = 8;
	snprintf(path, sizeof(path), "%s/cut.tif", dir);
	WriteTiff(path, lab, 8, 8, &t);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	bytes = malloc((size_t) size);
	CHECK(fread(bytes, 1, (size_t) size, f) == (size_t) size);
	fclose(f);
	for (long cut = 1; cut < size; cut += 7)
	{
		PbLabelImage im;
		PbError		err;

		p = TestWriteFile(dir, "cut_part.tif", bytes, (size_t) cut);
		pb_test_context("TIFF cut at %ld of %ld", cut, size);
		if (ReadFile(p, &im, &err) == PB_OK)
			free((void *) im.data);
		else
			CHECK(err.message[0] != '\0');
		unlink(p);
		free(p);
	}
	free(bytes);
	unlink(path);
	/* PNGs: RGB, RGBA, gray with alpha, palette, truncated */
	snprintf(path, sizeof(path), "%s/rgb.png", dir);
	WritePng(path, lab, 8, 8, 8, PNG_COLOR_TYPE_RGB, 0);
	ExpectRefused(path, PB_ERR_UNSUPPORTED, "not a label image: an RGB PNG; label images are grayscale");
	WritePng(path, lab, 8, 8, 8, PNG_COLOR_TYPE_RGB_ALPHA, 0);
	ExpectRefused(path, PB_ERR_UNSUPPORTED, "not a label image: an RGBA PNG");
	WritePng(path, lab, 8, 8, 8, PNG_COLOR_TYPE_GRAY_ALPHA, 0);
	ExpectRefused(path, PB_ERR_UNSUPPORTED, "not a label image: a grayscale PNG with alpha");
	WritePng(path, lab, 8, 8, 8, PNG_COLOR_TYPE_PALETTE, 0);
	ExpectRefused(path, PB_ERR_UNSUPPORTED, "not a label image: a palette (color-mapped) PNG");
	WritePng(path, lab, 8, 8, 16, PNG_COLOR_TYPE_GRAY, 0);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	bytes = malloc((size_t) size);
	CHECK(fread(bytes, 1, (size_t) size, f) == (size_t) size);
	fclose(f);
	for (long cut = 8; cut < size; cut += 3)
	{
		pb_test_context("PNG cut at %ld of %ld", cut, size);
		p = TestWriteFile(dir, "cut.png", bytes, (size_t) cut);
		ExpectRefused(p, PB_ERR_FORMAT, "PNG: ");
		unlink(p);
		free(p);
	}
	/* a damaged byte in the data: a CRC or zlib error */
	bytes[size - 20] ^= 0x55;
	p = TestWriteFile(dir, "bad.png", bytes, (size_t) size);
	ExpectRefused(p, PB_ERR_FORMAT, "PNG: ");
	unlink(p);
	free(p);
	free(bytes);
	unlink(path);
	/* not an image, not a regular file */
	p = TestWriteFile(dir, "text.tif", "POLYGON((0 0,1 0,1 1,0 0))\n", 27);
	ExpectRefused(p, PB_ERR_UNSUPPORTED, "not a TIFF or PNG image");
	unlink(p);
	free(p);
	ExpectRefused(dir, PB_ERR_UNSUPPORTED, "not a regular file (a directory)");
	rmdir(dir);
}

/* The CRC-32 of PNG chunks (bitwise, for one small chunk). */
static uint32_t
Crc32(const uint8_t *p, size_t n)
{
	uint32_t	c = 0xffffffffu;

	for (size_t i = 0; i < n; i++)
	{
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* A PNG whose header claims a huge image is refused before any pixel is held. */
void
test_label_file_too_large(void)
{
	char		dir[] = "/tmp/pb_label_file_XXXXXX";
	uint32_t	lab[4] = {1, 2, 3, 4};
	char		path[160];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/big.png", dir);
	WritePng(path, lab, 2, 2, 8, PNG_COLOR_TYPE_GRAY, 0);
	{
		/* patch the IHDR's width and height to 60000 x 60000 (CRC fixed) */
		FILE	   *f = fopen(path, "r+b");
		uint8_t		ihdr[17];
		uint32_t	crc;

		fseek(f, 12, SEEK_SET);
		CHECK(fread(ihdr, 1, 17, f) == 17);
		ihdr[4] = 0;
		ihdr[5] = 0;
		ihdr[6] = 0xea;
		ihdr[7] = 0x60;
		memcpy(ihdr + 8, ihdr + 4, 4);
		crc = Crc32(ihdr, 17);
		fseek(f, 12, SEEK_SET);
		fwrite(ihdr, 1, 17, f);
		{
			uint8_t		c[4] = {(uint8_t) (crc >> 24), (uint8_t) (crc >> 16),
			(uint8_t) (crc >> 8), (uint8_t) crc};

			fwrite(c, 1, 4, f);
		}
		fclose(f);
	}
	ExpectRefused(path, PB_ERR_BADARG,
				  "image of 60000 x 60000 pixels is too large or empty (at most 2147483648 pixels)");
	/* a caller's own limit: 2 x 2 within 4 pixels, not within 3 */
	WritePng(path, lab, 2, 2, 8, PNG_COLOR_TYPE_GRAY, 0);
	{
		int			fd = open(path, O_RDONLY);
		int			io;
		PbLabelImage im;
		PbError		err;

		CHECK_INT(PbReadLabelFile(fd, 4, NULL, NULL, &im, &io, &err), PB_OK);
		free((void *) im.data);
		CHECK_INT(PbReadLabelFile(fd, 3, NULL, NULL, &im, &io, &err), PB_ERR_BADARG);
		CHECK_STR_HAS(err.message, "image of 2 x 2 pixels is too large or empty (at most 3 pixels)");
		close(fd);
	}
	unlink(path);
	rmdir(dir);
}
