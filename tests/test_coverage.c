/*
 * test_coverage.c: tiles forming one grid (src/core/raster/coverage.h):
 * where shuffled tiles of a cut-up image land, with partial edge tiles, a
 * missing tile, tiles above and left of the first one and a skewed
 * georeference; an image cut into tiles, read into the coverage and
 * written out again as tiles is the same image (coverage_par.c), markers
 * and walls too; every refusal names its tile(s) and says why.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/coverage.h"
#include "harness.h"

/* The base georeference of these tests: 0.5-unit pixels, y down. */
static const PbRasterHeader base = {0.5, -0.5, 100.0, 50.0, 0.0, 0.0, 4326, 0, 0, 1};

/* A w x h tile of georeference g whose upper-left pixel is (c, r) of g's grid. */
static PbCoverageTile
TileAt(const PbRasterHeader *g, int64_t c, int64_t r, int32_t w, int32_t h)
{
	PbCoverageTile t;

	t.h = *g;
	t.h.ul_x = g->ul_x + c * g->scale_x + r * g->skew_x;
	t.h.ul_y = g->ul_y + c * g->skew_y + r * g->scale_y;
	t.h.width = w;
	t.h.height = h;
	t.wkb_type = PB_WKB_8BUI;
	return t;
}

/* Build the grid of n tiles; PB_OK expected. */
static void
BuildOk(const PbCoverageTile *t, int64_t n, PbCoverageGrid *g, PbCoveragePlace *p)
{
	PbCoverageError err;

	CHECK_INT(PbCoverageGridBuild(t, n, &PbMallocAllocator, g, p, &err), PB_OK);
}

static void CheckWritten(const PbCoverageGrid *g, const PbCoverageTile *t,
						 const PbCoveragePlace *p, int64_t n, const int64_t *which,
						 const void *cov, int wkb_type, const void *px, size_t px_stride);

/* A 10x5 image in 4x3 tiles (3 x 2 cells, partial right and bottom), shuffled. */
void
test_coverage_grid_places_tiles(void)
{
	/* cells (column, row) in the order listed */
	static const int cells[6][2] = {{2, 1}, {0, 0}, {1, 1}, {2, 0}, {0, 1}, {1, 0}};
	PbCoverageTile t[6];
	PbCoveragePlace p[6];
	PbCoverageGrid g;
	uint8_t		image[5][10],
				cov[5][10],
				nodata[5][10],
				px[6][12];
	PbRasterBand bands[6];
	int64_t		which[6],
				count;
	PbRun		run = {2, 0, NULL, NULL};

	for (int i = 0; i < 6; i++)
	{
		int			c = cells[i][0],
					r = cells[i][1];

		t[i] = TileAt(&base, c * 4, r * 3, c == 2 ? 2 : 4, r == 1 ? 2 : 3);
	}
	BuildOk(t, 6, &g, p);
	CHECK_INT(g.width, 10);
	CHECK_INT(g.height, 5);
	CHECK_INT(g.cell_w, 4);
	CHECK_INT(g.cell_h, 3);
	CHECK_INT(g.cells_x, 3);
	CHECK_INT(g.cells_y, 2);
	CHECK_INT(g.wkb_type, PB_WKB_8BUI);
	CHECK_DBL_EQ(g.georef.ul_x, 100.0);
	CHECK_DBL_EQ(g.georef.ul_y, 50.0);
	CHECK_INT(g.georef.width, 10);
	CHECK_INT(g.georef.height, 5);
	CHECK_INT(g.georef.srid, 4326);
	for (int i = 0; i < 6; i++)
	{
		pb_test_context("tile %d", i);
		CHECK_INT(p[i].cell_x, cells[i][0]);
		CHECK_INT(p[i].cell_y, cells[i][1]);
		CHECK_INT(p[i].x, cells[i][0] * 4);
		CHECK_INT(p[i].y, cells[i][1] * 3);
	}
	pb_test_context("%s", "");
	/* cut the image into the tiles, read them into cov, write them out again */
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 10; x++)
			image[y][x] = (uint8_t) (y * 10 + x);
	memset(cov, 0xff, sizeof(cov));
	memset(nodata, 0xff, sizeof(nodata));
	for (int i = 0; i < 6; i++)
	{
		for (int y = 0; y < t[i].h.height; y++)
			for (int x = 0; x < t[i].h.width; x++)
				px[i][y * t[i].h.width + x] = image[p[i].y + y][p[i].x + x];
		bands[i] = (PbRasterBand) {.wkb_type = PB_WKB_8BUI, .pixels = px[i]};
		which[i] = i;
	}
	CHECK_INT(PbCoverageReadTiles(&run, &g, t, p, bands, 6, 1, cov, &nodata[0][0], &count), PB_OK);
	CHECK(memcmp(cov, image, sizeof(image)) == 0);
	CHECK_INT(count, 0);
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 10; x++)
			CHECK_INT(nodata[y][x], 0);
	CheckWritten(&g, t, p, 6, which, &cov[0][0], PB_WKB_8BUI, px, 12);
}

/*
 * Write tiles which[0 .. n) of the coverage image cov (wkb_type pixels) as
 * raster WKB and check each one: its tile's header, and px[which[k]] as
 * pixels (rows of px_stride bytes a tile).
 */
static void
CheckWritten(const PbCoverageGrid *g, const PbCoverageTile *t, const PbCoveragePlace *p,
			 int64_t n, const int64_t *which, const void *cov, int wkb_type, const void *px,
			 size_t px_stride)
{
	PbRun		run = {2, 0, NULL, NULL};
	PbCoverageBands bands = {.nbands = 1, .types = {wkb_type}, .pixels = {cov}};
	uint8_t    *out[8];
	size_t		size[8];

	for (int64_t k = 0; k < n; k++)
	{
		size[k] = PbRasterWkbSize(&t[which[k]].h, 1, &wkb_type);
		out[k] = malloc(size[k]);
	}
	CHECK_INT(PbCoverageWriteTiles(&run, g, t, p, &bands, which, n, out), PB_OK);
	for (int64_t k = 0; k < n; k++)
	{
		const PbRasterHeader *want = &t[which[k]].h;
		PbRasterHeader h;
		PbRasterBand b;
		PbError		err;
		int			bytes = PbWkbPixBytes(wkb_type);

		CHECK(PbRasterParseHeader(out[k], size[k], &h, &err));
		CHECK(PbRasterGetBand(out[k], size[k], 1, &b, &err));
		CHECK_DBL_EQ(h.ul_x, want->ul_x);
		CHECK_DBL_EQ(h.ul_y, want->ul_y);
		CHECK_INT(h.width, want->width);
		CHECK_INT(h.height, want->height);
		CHECK_INT(b.wkb_type, wkb_type);
		CHECK(memcmp(b.pixels, (const uint8_t *) px + which[k] * px_stride,
					 (size_t) want->width * want->height * bytes) == 0);
		free(out[k]);
	}
}

/*
 * The first tile is not the upper-left one and a cell has no tile: the
 * coverage starts at the smallest cell, its corner moved there; 32-bit
 * pixels go in and out at their place, nodata values and NaN flagged.
 */
void
test_coverage_grid_missing_and_before_first(void)
{
	PbCoverageTile t[3] = {0};
	PbCoveragePlace p[3];
	PbCoverageGrid g;
	float		cov[12 * 6],
				px[3][8];
	uint8_t		nodata[12 * 6];
	PbRasterBand bands[3];
	int64_t		which[1],
				count;
	PbRun		run = {2, 0, NULL, NULL};

	t[0] = TileAt(&base, 0, 0, 4, 2);	/* cell (1, 1) */
	t[1] = TileAt(&base, -4, -2, 4, 2);	/* cell (0, 0) */
	t[2] = TileAt(&base, 4, 2, 4, 2);	/* cell (2, 2); (1, 0) and others empty */
	BuildOk(t, 3, &g, p);
	CHECK_INT(g.width, 12);
	CHECK_INT(g.height, 6);
	CHECK_INT(g.cells_x, 3);
	CHECK_INT(g.cells_y, 3);
	CHECK_INT(p[0].cell_x, 1);
	CHECK_INT(p[0].cell_y, 1);
	CHECK_INT(p[1].x, 0);
	CHECK_INT(p[1].y, 0);
	CHECK_INT(p[2].x, 8);
	CHECK_INT(p[2].y, 4);
	CHECK_DBL_EQ(g.georef.ul_x, 100.0 - 4 * 0.5);
	CHECK_DBL_EQ(g.georef.ul_y, 50.0 + 2 * 0.5);
	/* 32BF tiles read at their place; a nodata value and a NaN flag their pixels */
	memset(cov, 0, sizeof(cov));
	memset(nodata, 0, sizeof(nodata));
	for (int i = 0; i < 3; i++)
	{
		for (int k = 0; k < 8; k++)
			px[i][k] = 1.5f * k + 100 * i;
		bands[i] = (PbRasterBand) {.wkb_type = PB_WKB_32BF, .pixels = (const uint8_t *) px[i],
		.has_nodata = i == 2, .nodata = 1.5 * 3 + 200};
	}
	px[0][1] = NAN;
	CHECK_INT(PbCoverageReadTiles(&run, &g, t, p, bands, 3, sizeof(float), cov, nodata, &count),
			  PB_OK);
	CHECK_INT(count, 2);
	CHECK(cov[4 * 12 + 8] == 200.0f && cov[5 * 12 + 11] == 1.5f * 7 + 200);
	CHECK(cov[4 * 12 + 7] == 0.0f && nodata[4 * 12 + 7] == 0);
	CHECK(nodata[4 * 12 + 11] == 1);	/* tile 2's pixel 3: its nodata value */
	CHECK(nodata[2 * 12 + 5] == 1);	/* tile 0's pixel 1: NaN */
	which[0] = 2;
	CheckWritten(&g, t, p, 1, which, cov, PB_WKB_32BF, px, sizeof(px[0]));
}

/*
 * Markers and mask walls of tiles land at their place; the first negative
 * marker, in tile order, is reported with its tile and pixel.
 */
void
test_coverage_markers_and_walls(void)
{
	PbCoverageTile t[2];
	PbCoveragePlace p[2];
	PbCoverageGrid g;
	int8_t		m[2][6] = {{1, 0, 2, 0, 0, 3}, {0, 4, 0, 0, 0, 5}};
	uint8_t		k[2][6] = {{1, 1, 0, 1, 1, 1}, {1, 1, 1, 1, 0, 1}};
	PbRasterBand marks[2],
				mask[2];
	uint32_t	labels[12];
	uint8_t		wall[12];
	int64_t		bad_tile,
				bad_pixel;
	double		v;
	PbRun		run = {2, 0, NULL, NULL};

	t[0] = TileAt(&base, 3, 0, 3, 2);	/* cell (1, 0) */
	t[1] = TileAt(&base, 0, 0, 3, 2);	/* cell (0, 0) */
	BuildOk(t, 2, &g, p);
	for (int i = 0; i < 2; i++)
	{
		marks[i] = (PbRasterBand) {.wkb_type = PB_WKB_8BSI, .pixels = (const uint8_t *) m[i]};
		mask[i] = (PbRasterBand) {.wkb_type = PB_WKB_8BUI, .pixels = k[i]};
	}
	CHECK_INT(PbCoverageReadMarkers(&run, &g, t, p, marks, 2, labels, &bad_tile, &bad_pixel, &v),
			  PB_OK);
	CHECK_INT(bad_tile, -1);
	CHECK_INT(labels[3], 1);	/* tile 0's first pixel: column 3 of the coverage */
	CHECK_INT(labels[1], 4);
	CHECK_INT(labels[6 + 5], 3);
	memset(wall, 0, sizeof(wall));
	CHECK_INT(PbCoverageReadWalls(&run, &g, t, p, mask, 2, wall), PB_OK);
	CHECK_INT(wall[5], 1);		/* tile 0's pixel 2 */
	CHECK_INT(wall[6 + 1], 1);	/* tile 1's pixel 4 */
	CHECK_INT(wall[0] + wall[3] + wall[6 + 5], 0);
	m[1][2] = -7;
	m[0][4] = -2;
	CHECK_INT(PbCoverageReadMarkers(&run, &g, t, p, marks, 2, labels, &bad_tile, &bad_pixel, &v),
			  PB_OK);
	CHECK_INT(bad_tile, 0);
	CHECK_INT(bad_pixel, 4);
	CHECK_DBL_EQ(v, -2);
}

/* A skewed (rotated) georeference: offsets come from solving the affine map. */
void
test_coverage_grid_skewed(void)
{
	PbRasterHeader sk = base;
	PbCoverageTile t[4];
	PbCoveragePlace p[4];
	PbCoverageGrid g;

	sk.skew_x = 0.125;
	sk.skew_y = -0.25;
	t[0] = TileAt(&sk, 5, 5, 5, 5);
	t[1] = TileAt(&sk, 0, 0, 5, 5);
	t[2] = TileAt(&sk, 10, 0, 3, 5);
	t[3] = TileAt(&sk, 0, 5, 5, 1);
	BuildOk(t, 4, &g, p);
	CHECK_INT(g.width, 13);
	CHECK_INT(g.height, 10);
	CHECK_INT(p[0].x, 5);
	CHECK_INT(p[0].y, 5);
	CHECK_INT(p[2].x, 10);
	CHECK_INT(p[2].y, 0);
	CHECK_INT(p[3].x, 0);
	CHECK_INT(p[3].y, 5);
	CHECK_DBL_EQ(g.georef.ul_x, base.ul_x);
	CHECK_DBL_EQ(g.georef.ul_y, base.ul_y);
}

/* Expect tiles t[0 .. n) refused, naming tile and other, the message holding want. */
static void
Refused(const PbCoverageTile *t, int64_t n, int64_t tile, int64_t other, const char *want)
{
	PbCoveragePlace p[4];
	PbCoverageGrid g;
	PbCoverageError err;

	pb_test_context("%s", want);
	CHECK_INT(PbCoverageGridBuild(t, n, &PbMallocAllocator, &g, p, &err), PB_ERR_BADARG);
	CHECK_INT(err.err.code, PB_ERR_BADARG);
	CHECK_INT(err.tile, tile);
	CHECK_INT(err.other, other);
	pb_test_context("%s; got: %s", want, err.err.message);
	CHECK(strstr(err.err.message, want) != NULL);
	pb_test_context("%s", "");
}

/* Every refusal, with the tile it names and its message. */
void
test_coverage_grid_refusals(void)
{
	PbRasterHeader flat = base;
	PbCoverageTile t[3] = {0};

	Refused(t, 0, -1, -1, "at least one tile");
	t[0] = TileAt(&base, 0, 0, 4, 4);
	t[1] = TileAt(&base, 4, 0, 0, 4);
	Refused(t, 2, 1, -1, "the tile is empty (0x4 pixels)");
	t[1] = TileAt(&base, 4, 0, 4, 4);
	t[1].h.srid = 3857;
	Refused(t, 2, 1, 0, "SRID 3857 differs from the first tile's 4326");
	t[1] = TileAt(&base, 4, 0, 4, 4);
	t[1].h.scale_x = 0.5001;
	Refused(t, 2, 1, 0, "scale x 0.50009999999999999 differs");
	t[1] = TileAt(&base, 4, 0, 4, 4);
	t[1].h.skew_y = 0.01;
	Refused(t, 2, 1, 0, "skew y");
	t[1] = TileAt(&base, 4, 0, 4, 4);
	t[1].wkb_type = PB_WKB_32BF;
	Refused(t, 2, 1, 0, "pixel type 32BF differs from the first tile's 8BUI");
	t[1] = TileAt(&base, 4, 0, 4, 4);
	t[1].h.ul_x += 0.25;		/* half a pixel */
	Refused(t, 2, 1, 0, "not aligned with the first tile's pixels: its upper-left corner is at column 4.500000, row 0.000000");
	t[1] = TileAt(&base, 2, 0, 4, 4);
	Refused(t, 2, 1, 0, "not on the tile grid: its upper-left pixel is at column 2, row 0 of the first tile's grid, not a multiple of the largest tile's 4x4");
	t[1] = TileAt(&base, 4, 4, 4, 4);
	t[2] = TileAt(&base, 4, 4, 2, 2);	/* the same cell: overlaps t[1] */
	Refused(t, 3, 2, 1, "in the same place as another (upper-left pixel at column 4, row 4 of the coverage)");
	t[1] = TileAt(&base, 1e17, 0, 4, 4);
	Refused(t, 2, 1, 0, "too far");
	flat.scale_y = 0.0;
	t[0] = TileAt(&flat, 0, 0, 4, 4);
	Refused(t, 1, 0, -1, "degenerate");
}
