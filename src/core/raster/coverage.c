/*
 * coverage.c: checking that raster tiles form one grid and placing them
 * (coverage.h); coverage_par.c moves their pixels.
 */
#include "coverage.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Offsets beyond this many pixels are refused (exact in a double). */
#define MAX_OFFSET 4503599627370496.0	/* 2^52 */
/* How far from a pixel corner a tile's corner may be, in pixels. */
#define ALIGN_TOL 1e-6

/* Record a refusal naming tile (and other, or -1), printf-style. */
static PbStatus
__attribute__((format(printf, 4, 5)))
Refuse(PbCoverageError *err, int64_t tile, int64_t other, const char *fmt,...)
{
	va_list		ap;

	err->tile = tile;
	err->other = other;
	err->err.code = PB_ERR_BADARG;
	va_start(ap, fmt);
	vsnprintf(err->err.message, sizeof(err->err.message), fmt, ap);
	va_end(ap);
	return PB_ERR_BADARG;
}

/* Whether two georeference terms agree as PostGIS's FLT_EQ has it. */
static int
SameTerm(double a, double b)
{
	return fabs(a - b) <= FLT_EPSILON;
}

/* Floor division of a by b > 0. */
static int64_t
FloorDiv(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Check tile i's georeference, SRID and pixel type against tile 0's. */
static PbStatus
CheckLikeFirst(const PbCoverageTile *tiles, int64_t i, PbCoverageError *err)
{
	const PbRasterHeader *r = &tiles[0].h,
			   *h = &tiles[i].h;
	static const char *const names[] = {"scale x", "scale y", "skew x", "skew y"};
	const double mine[] = {h->scale_x, h->scale_y, h->skew_x, h->skew_y};
	const double first[] = {r->scale_x, r->scale_y, r->skew_x, r->skew_y};

	if (h->width < 1 || h->height < 1)
		return Refuse(err, i, -1, "the tile is empty (%dx%d pixels)", h->width, h->height);
	if (h->srid != r->srid)
		return Refuse(err, i, 0, "the tile's SRID %d differs from the first tile's %d",
					  h->srid, r->srid);
	for (int k = 0; k < 4; k++)
		if (!SameTerm(mine[k], first[k]))
			return Refuse(err, i, 0, "the tile's %s %.17g differs from the first tile's %.17g",
						  names[k], mine[k], first[k]);
	if (tiles[i].wkb_type != tiles[0].wkb_type)
		return Refuse(err, i, 0, "the tile's pixel type %s differs from the first tile's %s",
					  PbWkbPixName(tiles[i].wkb_type), PbWkbPixName(tiles[0].wkb_type));
	return PB_OK;
}

/*
 * Tile i's upper-left pixel in tile 0's pixel grid (solving the affine
 * georeference), refused when it is not on a pixel corner.
 */
static PbStatus
PixelOffset(const PbCoverageTile *tiles, int64_t i, double det, int64_t *x, int64_t *y,
			PbCoverageError *err)
{
	const PbRasterHeader *r = &tiles[0].h;
	double		dx = tiles[i].h.ul_x - r->ul_x,
				dy = tiles[i].h.ul_y - r->ul_y;
	double		c = (dx * r->scale_y - dy * r->skew_x) / det,
				w = (r->scale_x * dy - r->skew_y * dx) / det;

	if (!isfinite(c) || !isfinite(w) || fabs(c) > MAX_OFFSET || fabs(w) > MAX_OFFSET)
		return Refuse(err, i, 0, "the tile's upper-left corner is too far from the first tile's (%g, %g pixels)",
					  c, w);
	if (fabs(c - rint(c)) > ALIGN_TOL || fabs(w - rint(w)) > ALIGN_TOL)
		return Refuse(err, i, 0, "the tile is not aligned with the first tile's pixels: its upper-left corner is at column %.6f, row %.6f of their grid",
					  c + 0.0, w + 0.0);	/* + 0.0: no "-0.000000" */
	*x = (int64_t) rint(c);
	*y = (int64_t) rint(w);
	return PB_OK;
}

/* A tile's cell, for sorting. */
typedef struct CellOf
{
	int64_t		cell_y,
				cell_x,
				tile;
} CellOf;

/* qsort order of cells: row, column, then tile index. */
static int
ByCell(const void *a, const void *b)
{
	const CellOf *p = a,
			   *q = b;

	if (p->cell_y != q->cell_y)
		return p->cell_y < q->cell_y ? -1 : 1;
	if (p->cell_x != q->cell_x)
		return p->cell_x < q->cell_x ? -1 : 1;
	return (p->tile > q->tile) - (p->tile < q->tile);
}

/* Refuse two tiles in one cell (the earlier-listed one is named as other). */
static PbStatus
CheckOneTilePerCell(int64_t n, const PbAllocator *mem, const PbCoveragePlace *place,
					PbCoverageError *err)
{
	CellOf	   *cells = mem->alloc(mem->ctx, sizeof(CellOf) * n);
	PbStatus	st = PB_OK;

	for (int64_t i = 0; i < n; i++)
		cells[i] = (CellOf) {place[i].cell_y, place[i].cell_x, i};
	qsort(cells, n, sizeof(CellOf), ByCell);
	for (int64_t k = 1; k < n && st == PB_OK; k++)
		if (cells[k].cell_x == cells[k - 1].cell_x && cells[k].cell_y == cells[k - 1].cell_y)
			st = Refuse(err, cells[k].tile, cells[k - 1].tile,
						"the tile is in the same place as another (upper-left pixel at column %lld, row %lld of the coverage): tiles must not overlap",
						(long long) place[cells[k].tile].x, (long long) place[cells[k].tile].y);
	mem->release(mem->ctx, cells);
	return st;
}

/* Check the tiles and place them (coverage.h). */
PbStatus
PbCoverageGridBuild(const PbCoverageTile *tiles, int64_t n, const PbAllocator *mem,
					PbCoverageGrid *grid, PbCoveragePlace *place, PbCoverageError *err)
{
	const PbRasterHeader *r;
	double		det;
	int64_t		min_cx = INT64_MAX,
				min_cy = INT64_MAX,
				right = 0,
				bottom = 0;
	PbStatus	st;

	err->tile = err->other = -1;
	if (n < 1)
		return Refuse(err, -1, -1, "a coverage needs at least one tile");
	r = &tiles[0].h;
	det = r->scale_x * r->scale_y - r->skew_x * r->skew_y;
	if (!isfinite(det) || fabs(det) < DBL_MIN)
		return Refuse(err, 0, -1, "the tile's georeference is degenerate (scale %g, %g and skew %g, %g make pixels of no area)",
					  r->scale_x, r->scale_y, r->skew_x, r->skew_y);
	memset(grid, 0, sizeof(*grid));
	for (int64_t i = 0; i < n; i++)
	{
		if ((st = CheckLikeFirst(tiles, i, err)) != PB_OK ||
			(st = PixelOffset(tiles, i, det, &place[i].x, &place[i].y, err)) != PB_OK)
			return st;
		grid->cell_w = tiles[i].h.width > grid->cell_w ? tiles[i].h.width : grid->cell_w;
		grid->cell_h = tiles[i].h.height > grid->cell_h ? tiles[i].h.height : grid->cell_h;
	}
	for (int64_t i = 0; i < n; i++)
	{
		if (place[i].x % grid->cell_w != 0 || place[i].y % grid->cell_h != 0)
			return Refuse(err, i, 0, "the tile is not on the tile grid: its upper-left pixel is at column %lld, row %lld of the first tile's grid, not a multiple of the largest tile's %dx%d",
						  (long long) place[i].x, (long long) place[i].y, grid->cell_w, grid->cell_h);
		place[i].cell_x = FloorDiv(place[i].x, grid->cell_w);
		place[i].cell_y = FloorDiv(place[i].y, grid->cell_h);
		min_cx = place[i].cell_x < min_cx ? place[i].cell_x : min_cx;
		min_cy = place[i].cell_y < min_cy ? place[i].cell_y : min_cy;
	}
	for (int64_t i = 0; i < n; i++)
	{
		place[i].cell_x -= min_cx;
		place[i].cell_y -= min_cy;
		place[i].x = place[i].cell_x * grid->cell_w;
		place[i].y = place[i].cell_y * grid->cell_h;
		right = place[i].x + tiles[i].h.width > right ? place[i].x + tiles[i].h.width : right;
		bottom = place[i].y + tiles[i].h.height > bottom ? place[i].y + tiles[i].h.height : bottom;
		grid->cells_x = place[i].cell_x + 1 > grid->cells_x ? place[i].cell_x + 1 : grid->cells_x;
		grid->cells_y = place[i].cell_y + 1 > grid->cells_y ? place[i].cell_y + 1 : grid->cells_y;
	}
	if ((st = CheckOneTilePerCell(n, mem, place, err)) != PB_OK)
		return st;
	grid->width = right;
	grid->height = bottom;
	grid->wkb_type = tiles[0].wkb_type;
	grid->georef = *r;
	grid->georef.nbands = 1;
	{
		/* the coverage's upper-left corner: tile 0's, moved by its offset */
		double		ox = (double) (min_cx * grid->cell_w),
					oy = (double) (min_cy * grid->cell_h);

		grid->georef.ul_x = r->ul_x + ox * r->scale_x + oy * r->skew_x;
		grid->georef.ul_y = r->ul_y + ox * r->skew_y + oy * r->scale_y;
	}
	grid->georef.width = right <= INT32_MAX ? (int32_t) right : 0;
	grid->georef.height = bottom <= INT32_MAX ? (int32_t) bottom : 0;
	return PB_OK;
}
