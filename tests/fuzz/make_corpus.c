/*
 * make_corpus.c: write the seed inputs of the fuzz harnesses into
 * DIR/<harness>/ (make fuzz-corpus; the output is committed):
 *
 *   ewkb, gserialized  polygons, multipolygons, collections, empties,
 *                      Z/M/ZM, SRIDs, curves, large and fractional
 *                      coordinates; EWKB in both byte orders and ISO
 *                      codes, GSERIALIZED v1 and v2 with and without box
 *                      and extended flags (tests/wkt.c's writers)
 *   raster_wkb         every pixel type in both byte orders, nodata and
 *                      all-nodata flags, an out-of-db band, several bands,
 *                      an empty raster
 *   text_line          files of WKT lines, id + coordinate lists, blank
 *                      and comment lines, odd numbers
 *   text_file          the same files behind fuzz_text_file.c's control
 *                      bytes, files with NUL bytes, two of about 70 KB
 *   pair_area          inputs of each mode of fuzz_pair_area.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness.h"
#include "../wkt.h"

static const char *const geometries[] = {
	"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))",
	"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5),(6 6,6 6.5,7 6.5,7 6,6 6)))",
	"POLYGON((0 0,4 1,3 5,-1 2,0 0))",
	"GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,5 5),POLYGON((0 0,2 0,2 2,0 2,0 0)),"
	"GEOMETRYCOLLECTION(MULTIPOINT(1 1,2 2),TRIANGLE((0 0,4 0,0 3,0 0))))",
	"TRIANGLE((0 0,4 0,0 3,0 0))",
	"POLYGON EMPTY", "POINT EMPTY", "MULTIPOLYGON EMPTY", "GEOMETRYCOLLECTION EMPTY",
	"MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),EMPTY)",
	"POLYGON Z ((0 0 1,8 0 2,8 8 3,0 8 4,0 0 1))",
	"POLYGON M ((0 0 1,8 0 2,8 8 3,0 0 1))",
	"POLYGON ZM ((0 0 1 5,8 0 2 6,8 8 3 7,0 8 4 8,0 0 1 5))",
	"SRID=4326;POLYGON((0 0,2 0,2 2,0 2,0 0))",
	"MULTIPOLYGON(((-1073741824 -5,1073741824 -5,1073741824 5,-1073741824 5,-1073741824 -5)))",
	"POLYGON((1e12 1e12,1000000000001 1e12,1000000000001 1000000000001.5,1e12 1e12))",
	"POLYGON((0.5 0.25,10.5 0.25,10.5 3.75,0.5 3.75,0.5 0.25))",
	"POLYGON((0 0,10 0,10 10,0 0),(0 0,10 0,10 10,0 0))",
	"MULTIPOLYGON(((0 0,4 0,4 4,0 4,0 0)),((2 2,6 2,6 6,2 6,2 2)))",
	"POLYGON((0 0,4 0,4 4,2 4,2 2,3 2,3 3,1 3,1 4,0 4,0 0))",
	"LINESTRING(0 0,1 1,2 0)", "MULTIPOINT(0 0,1 1)", "POINT(3 4)",
	"MULTILINESTRING((0 0,1 1),(2 2,3 3))",
	"CURVEPOLYGON(CIRCULARSTRING(0 0,4 0,4 4,0 4,0 0))",
	"TIN(((0 0,1 0,0 1,0 0)))",
	"POLYHEDRALSURFACE(((0 0,1 0,1 1,0 0)))",
};

/* Write bytes to dir/name. */
static void
WriteSeed(const char *dir, const char *name, const void *data, size_t n)
{
	char		path[1024];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, n, f) != n || fclose(f) != 0)
	{
		fprintf(stderr, "make_corpus: cannot write %s\n", path);
		exit(1);
	}
}

/* Make dir/sub and return its path (static storage, one at a time). */
static const char *
SubDir(const char *dir, const char *sub)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	return path;
}

/* EWKB and GSERIALIZED seeds of every geometry. */
static void
GeometrySeeds(const char *dir)
{
	static const TWkbOpt wkb_opts[] = {
		{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 4326}, {1, 0, 1, 3857},
	};
	static const TGserOpt gser_opts[] = {
		{2, 0, 0, 4326}, {2, 1, 0, 0}, {2, 1, 1, 4326}, {1, 0, 0, 0}, {1, 1, 0, 32633},
	};
	char		name[64];

	for (size_t g = 0; g < sizeof(geometries) / sizeof(geometries[0]); g++)
	{
		TGeom	   *geom = TgParse(geometries[g]);
		const char *sub = SubDir(dir, "ewkb");

		for (size_t k = 0; k < sizeof(wkb_opts) / sizeof(wkb_opts[0]); k++)
		{
			TBuf		buf = {0};

			TgWriteWkb(geom, &wkb_opts[k], &buf);
			snprintf(name, sizeof(name), "g%02zu-%zu.wkb", g, k);
			WriteSeed(sub, name, buf.p, buf.n);
			TBufFree(&buf);
		}
		sub = SubDir(dir, "gserialized");
		for (size_t k = 0; k < sizeof(gser_opts) / sizeof(gser_opts[0]); k++)
		{
			TBuf		buf = {0};

			TgWriteGser(geom, &gser_opts[k], &buf);
			snprintf(name, sizeof(name), "g%02zu-%zu.gser", g, k);
			WriteSeed(sub, name, buf.p, buf.n);
			TBufFree(&buf);
		}
		TgFree(geom);
	}
}

/* Bytes being written, in one byte order. */
typedef struct Out
{
	uint8_t		buf[4096];
	size_t		n;
	int			xdr;
} Out;

/* Append the n bytes of v (a native value) in the output's byte order. */
static void
Emit(Out *o, const void *v, int n)
{
	const uint8_t *p = v;
	const uint16_t one = 1;
	int			little = *(const uint8_t *) &one == 1;

	for (int i = 0; i < n; i++)
		o->buf[o->n++] = p[(little == !o->xdr) ? i : n - 1 - i];
}

/* A raster WKB header: byte order, version 0, bands, georeference, SRID, size. */
static void
RasterHeader(Out *o, int nbands, int width, int height)
{
	uint16_t	u16 = 0;
	double		geo[6] = {0.5, -0.5, 100, 200, 0, 0};
	int32_t		srid = 4326;

	o->n = 0;
	o->buf[o->n++] = o->xdr ? 0 : 1;
	Emit(o, &u16, 2);
	u16 = (uint16_t) nbands;
	Emit(o, &u16, 2);
	for (int i = 0; i < 6; i++)
		Emit(o, &geo[i], 8);
	Emit(o, &srid, 4);
	u16 = (uint16_t) width;
	Emit(o, &u16, 2);
	u16 = (uint16_t) height;
	Emit(o, &u16, 2);
}

/* One value v of a WKB pixel type in the output's byte order. */
static void
RasterValue(Out *o, int type, double v)
{
	switch (type)
	{
		case 5:
			{
				int16_t		x = (int16_t) v;

				Emit(o, &x, 2);
				break;
			}
		case 6:
			{
				uint16_t	x = (uint16_t) v;

				Emit(o, &x, 2);
				break;
			}
		case 7:
			{
				int32_t		x = (int32_t) v;

				Emit(o, &x, 4);
				break;
			}
		case 8:
			{
				uint32_t	x = (uint32_t) v;

				Emit(o, &x, 4);
				break;
			}
		case 10:
			{
				float		x = (float) v;

				Emit(o, &x, 4);
				break;
			}
		case 11:
			Emit(o, &v, 8);
			break;
		case 3:
			{
				int8_t		x = (int8_t) v;

				Emit(o, &x, 1);
				break;
			}
		default:
			{
				uint8_t		x = (uint8_t) v;

				Emit(o, &x, 1);
				break;
			}
	}
}

/* An in-db band of type with flags (0x40 nodata, 0x20 all nodata) of npix pixels. */
static void
RasterBand(Out *o, int type, int flags, int npix)
{
	int			max = type == 0 ? 1 : type == 1 ? 3 : type == 2 ? 15 : 100;

	o->buf[o->n++] = (uint8_t) (type | flags);
	RasterValue(o, type, type == 0 ? 0 : 1);
	for (int i = 0; i < npix; i++)
		RasterValue(o, type, i % (max + 1) - (type == 3 || type == 5 || type == 7 ? 1 : 0));
}

/* Raster WKB seeds: every type, both orders, flags, out-of-db, several bands. */
static void
RasterSeeds(const char *dir)
{
	static const int types[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11};
	const char *sub = SubDir(dir, "raster_wkb");
	char		name[64];
	Out			o;

	for (int xdr = 0; xdr < 2; xdr++)
	{
		o.xdr = xdr;
		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		{
			RasterHeader(&o, 1, 3, 2);
			RasterBand(&o, types[t], t % 2 ? 0x40 : 0, 6);
			snprintf(name, sizeof(name), "%s-type%02d.rwkb", xdr ? "xdr" : "ndr", types[t]);
			WriteSeed(sub, name, o.buf, o.n);
		}
		RasterHeader(&o, 3, 4, 3);
		RasterBand(&o, 4, 0x40, 12);
		RasterBand(&o, 10, 0x60, 12);
		RasterBand(&o, 6, 0, 12);
		WriteSeed(sub, xdr ? "xdr-three-bands.rwkb" : "ndr-three-bands.rwkb", o.buf, o.n);
		RasterHeader(&o, 2, 2, 2);
		RasterBand(&o, 4, 0, 4);
		o.buf[o.n++] = 0x80 | 0x40 | 4; /* out-of-db 8BUI band */
		RasterValue(&o, 4, 0);
		o.buf[o.n++] = 1;
		memcpy(o.buf + o.n, "/tmp/band.tif", 14);
		o.n += 14;
		WriteSeed(sub, xdr ? "xdr-outdb.rwkb" : "ndr-outdb.rwkb", o.buf, o.n);
		RasterHeader(&o, 0, 0, 0);
		WriteSeed(sub, xdr ? "xdr-empty.rwkb" : "ndr-empty.rwkb", o.buf, o.n);
	}
}

/* Text files of the line formats of parse_text.h. */
static const char *const text_files[] = {
	"1 POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))\n"
	"2 MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5)))\n",
	"SRID=4326;POLYGON((0.5 0.5,3.25 1,1 2.75,0.5 0.5))\n"
	"SRID = 3857 ; MULTIPOLYGON Z (((0 0 1,1 0 1,1 1 1,0 0 1)),EMPTY)\r\n",
	"POLYGONZM((0 0 1 2,4 0 1 2,4 4 1 2,0 0 1 2))\npolygon m ((0 0 1,4 0 1,0 4 1,0 0 1))\n",
	"-12 POLYGON EMPTY\n+3 MULTIPOLYGON EMPTY\n9\tPOLYGON\t(\t(0 0, 1 0, 1 1, 0 0)\t)\n",
	"7 0 0 4 0 4 4 0 4\n8, 0.5 0.5, 3 1, 1e1 2\n9 0,0,2,0,2,2,0,0\n",
	"# a comment\n\n   \t\n10 .5 -.5 1.5e-3 2E+1 3. 4\n",
	"11 POINT(1 2)\n12 LINESTRING(0 0,1 1)\n13 GEOMETRYCOLLECTION EMPTY\n",
	"14 POLYGON((0 0,1 0,1 1))\n15 POLYGON((0 0,1 0,1 1,0 1))\n16 1 2 3\n",
	"17 POLYGON((nan 0,1 0,1 1,nan 0))\n18 0 0 1e999 0 1 1\n19 inf 0 1 1 2 2\n",
	"20 0.1000000000000000055511151231257827021181583404541015625 0 1 0 1 1\n"
	"21 123456789012345678901234567890 0 1 0 1 1\n",
	"9223372036854775807 0 0 1 0 1 1\n-9223372036854775808 0 0 1 0 1 1\n"
	"9223372036854775808 0 0 1 0 1 1\n",
};

/* Seeds of fuzz_text_line.c: the text files. */
static void
TextSeeds(const char *dir)
{
	const char *sub = SubDir(dir, "text_line");
	char		name[64];

	for (size_t i = 0; i < sizeof(text_files) / sizeof(text_files[0]); i++)
	{
		snprintf(name, sizeof(name), "lines%02zu.txt", i);
		WriteSeed(sub, name, text_files[i], strlen(text_files[i]));
	}
}

/* Write a fuzz_text_file.c input: control byte c, parameter j, then n bytes of text. */
static void
TextFileSeed(const char *sub, const char *name, uint8_t c, uint8_t j,
			 const char *text, size_t n)
{
	char	   *buf = malloc(n + 2);

	buf[0] = (char) c;
	buf[1] = (char) j;
	memcpy(buf + 2, text, n);
	WriteSeed(sub, name, buf, n + 2);
	free(buf);
}

/*
 * A file of about 70 KB: polygon lines (one in five a WKT) in its first
 * 2 KB and its last 8 KB, around a comment line (cheap to parse, so the
 * seed's mutants run fast), the lines after it crossing the 64 KiB border
 * of the reader's chunks without a padding.  malloc'd; *n gets its length.
 */
static char *
LongTextFile(size_t *n)
{
	size_t		cap = 70 * 1024,
				len = 0;
	char	   *buf = malloc(cap + 256);

	for (int i = 1; len < cap; i++)
	{
		int			x = (i * 37) % 1000,
					y = (i * 91) % 1000;

		if (len > 2048 && len < 62 * 1024)
		{
			buf[len] = '#';
			memset(buf + len + 1, '-', 62 * 1024 - len - 2);
			buf[62 * 1024 - 1] = '\n';
			len = 62 * 1024;
		}
		else if (i % 5 == 0)
			len += (size_t) sprintf(buf + len,
									"%d POLYGON((%d %d,%d %d,%d.5 %d,%d %d))\n",
									i, x, y, x + 3, y, x + 2, y + 4, x, y);
		else
			len += (size_t) sprintf(buf + len, "%d %d %d %d %d %d %d %d %d\n",
									i, x, y, x + 5, y, x + 5, y + 5, x, y + 5);
	}
	*n = len;
	return buf;
}

/*
 * Seeds of fuzz_text_file.c: every text file under each control byte
 * (padded across the chunk borders, small and near-chunk max_line, with
 * and without EWKB, stops after 0 to 7 reads), files with NUL bytes, and
 * two files of about 70 KB crossing a chunk border unpadded.
 */
static void
TextFileSeeds(const char *dir)
{
	/* (k) | (padding << 3) | (max_line << 5) | (no EWKB << 7) */
	static const uint8_t controls[] = {
		7, 1 | 1 << 3, 2 | 2 << 3, 0 | 3 << 3 | 1 << 7, 3 | 2 << 5, 1 | 1 << 3 | 3 << 5,
	};
	static const struct
	{
		const char *text;
		size_t		len;
	}			nul_files[] = {
#define NUL_FILE(s) {s, sizeof(s) - 1}
		NUL_FILE("1 0 0 1 0 1 1\n2 0 0 1\0 0 1 1\n3 0 0 1 0 1 1\n"),
		NUL_FILE("# comment\n\0\nPOLYGON((0 0,1 0,1 1,0 0))"),
		NUL_FILE("POLYGON((0 0,1 0,1 1,0 0))\n1 2 3 4 5 6\0"),
#undef NUL_FILE
	};
	const char *sub = SubDir(dir, "text_file");
	char		name[64];
	char	   *text;
	size_t		n;

	for (size_t i = 0; i < sizeof(text_files) / sizeof(text_files[0]); i++)
		for (size_t m = 0; m < sizeof(controls); m++)
		{
			n = strlen(text_files[i]);
			snprintf(name, sizeof(name), "file%02zu-%02x.bin", i, controls[m]);
			TextFileSeed(sub, name, controls[m], (uint8_t) (n / (m + 2)),
						 text_files[i], n);
		}
	for (size_t i = 0; i < sizeof(nul_files) / sizeof(nul_files[0]); i++)
	{
		snprintf(name, sizeof(name), "nul%zu.bin", i);
		TextFileSeed(sub, name, 7, 0, nul_files[i].text, nul_files[i].len);
		snprintf(name, sizeof(name), "nul%zu-padded.bin", i);
		TextFileSeed(sub, name, 2 | 2 << 3, 20, nul_files[i].text, nul_files[i].len);
	}
	text = LongTextFile(&n);
	TextFileSeed(sub, "long.bin", 2, 0, text, n);
	/* a NUL in the second chunk, before the end of the line that crosses the border */
	text[strchr(text + 65536, '\n') - text - 1] = '\0';
	TextFileSeed(sub, "long-nul.bin", 7, 0, text, n);
	free(text);
}

/* Inputs of fuzz_pair_area.c: random bytes after each mode byte, and EWKB pairs. */
static void
PairSeeds(const char *dir)
{
	static const char *const pairs[][2] = {
		{"POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))",
		"POLYGON((3 3,12 3,12 12,3 12,3 3))"},
		{"POLYGON((0 0,4 1,3 5,-1 2,0 0))", "POLYGON((0 0,4 0,4 4,0 4,0 0))"},
		{"MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 7,5 7,5 5)))",
		"POLYGON((1 1,6 1,6 6,1 6,1 1))"},
		{"POLYGON((0 0,2 0,2 2,0 2,0 0))", "POLYGON((2 0,4 0,4 2,2 2,2 0))"},
	};
	const char *sub = SubDir(dir, "pair_area");
	char		name[64];
	Rng			rng = {20};
	uint8_t		buf[4096];

	for (int mode = 0; mode < 2; mode++)
		for (int k = 0; k < 8; k++)
		{
			buf[0] = (uint8_t) mode;
			for (int i = 1; i < 160; i++)
				buf[i] = (uint8_t) RngNext(&rng);
			snprintf(name, sizeof(name), "mode%d-%d.bin", mode, k);
			WriteSeed(sub, name, buf, 160);
		}
	for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
	{
		TBuf		a = {0},
					b = {0};
		uint32_t	n1;

		WktToWkb(pairs[k][0], 0, &a);
		WktToWkb(pairs[k][1], 1, &b);
		n1 = (uint32_t) a.n;
		buf[0] = 2;
		buf[1] = 0;				/* both EWKB */
		for (int i = 0; i < 4; i++)
			buf[2 + i] = (uint8_t) (n1 >> (8 * i));	/* the harness's NextU32 */
		memcpy(buf + 6, a.p, a.n);
		memcpy(buf + 6 + a.n, b.p, b.n);
		snprintf(name, sizeof(name), "mode2-%zu.bin", k);
		WriteSeed(sub, name, buf, 6 + a.n + b.n);
		TBufFree(&a);
		TBufFree(&b);
	}
}

/* Write every harness's seeds under argv[1]. */
int
main(int argc, char **argv)
{
	if (argc != 2)
	{
		fprintf(stderr, "usage: make_corpus DIR\n");
		return 2;
	}
	GeometrySeeds(argv[1]);
	RasterSeeds(argv[1]);
	TextSeeds(argv[1]);
	TextFileSeeds(argv[1]);
	PairSeeds(argv[1]);
	return 0;
}
