/*
 * test_coverage.c: tiles forming one grid (src/core/raster/coverage.h):
 * where shuffled tiles of a cut-up image land, with partial edge tiles, a
 * missing tile, tiles above and left of the first one and a skewed
 * georeference; an image cut into tiles, put back and taken out again is
 * the same image; every refusal names its tile(s) and says why.
 */
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
				tile[12],
				back[12];

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
	/* cut the image into the tiles, put them into cov, take them out again */
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 10; x++)
			image[y][x] = (uint8_t) (y * 10 + x);
	memset(cov, 0xff, sizeof(cov));
	for (int i = 0; i < 6; i++)
	{
		for (int y = 0; y < t[i].h.height; y++)
			for (int x = 0; x < t[i].h.width; x++)
				tile[y * t[i].h.width + x] = image[p[i].y + y][p[i].x + x];
		PbCoveragePut(&g, &p[i], t[i].h.width, t[i].h.height, 1, tile, cov);
	}
	CHECK(memcmp(cov, image, sizeof(image)) == 0);
	for (int i = 0; i < 6; i++)
	{
		PbCoverageGet(&g, &p[i], t[i].h.width, t[i].h.height, 1, cov, back);
		for (int y = 0; y < t[i].h.height; y++)
			for (int x = 0; x < t[i].h.width; x++)
				CHECK_INT(back[y * t[i].h.width + x], image[p[i].y + y][p[i].x + x]);
	}
}

/*
 * The first tile is not the upper-left one and a cell has no tile: the
 * coverage starts at the smallest cell, its corner moved there; 32-bit
 * pixels go in and out at their place.
 */
void
test_coverage_grid_missing_and_before_first(void)
{
	PbCoverageTile t[3] = {0};
	PbCoveragePlace p[3];
	PbCoverageGrid g;
	float		cov[12 * 6],
				px[8],
				back[8];

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
	memset(cov, 0, sizeof(cov));
	for (int i = 0; i < 8; i++)
		px[i] = 1.5f * i;
	PbCoveragePut(&g, &p[2], 4, 2, sizeof(float), px, cov);
	CHECK(cov[4 * 12 + 8] == 0.0f && cov[5 * 12 + 11] == 1.5f * 7);
	CHECK(cov[4 * 12 + 7] == 0.0f);
	PbCoverageGet(&g, &p[2], 4, 2, sizeof(float), cov, back);
	CHECK(memcmp(back, px, sizeof(px)) == 0);
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
