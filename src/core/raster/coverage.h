/*
 * coverage.h: a coverage, one image stored as many raster tiles (the way
 * raster2pgsql -t WxH or ST_Tile store a whole slide, a row per tile), pure C.
 *
 * PbCoverageGridBuild checks that the tiles form one grid and places them:
 *   - one georeference: the same scale, skew and SRID for every tile (within
 *     FLT_EPSILON, as PostGIS's ST_SameAlignment);
 *   - pixel-aligned: each tile's upper-left corner falls on a pixel corner
 *     of the first tile's grid (within 1e-6 pixel);
 *   - tile-aligned: the tiles sit on one grid of cells of the largest tile's
 *     size, each in its own cell, so a tile's neighbours are the cells
 *     around it; smaller tiles (the right and bottom edges of a slide, or
 *     anywhere) leave the rest of their cell uncovered;
 *   - one pixel type for the band the operation reads.
 * Pixels that no tile covers are nodata.  The coverage's pixel (0, 0) is
 * the upper-left corner of the tiles' cells (the smallest cell column and
 * row met), so its width and height are the cells' extent, clipped to the
 * tiles at the right and bottom.
 *
 * Errors name the tile by its index in the caller's array (and the other
 * tile of a clash), so that the caller can say which row it was.
 */
#ifndef PB_COVERAGE_H
#define PB_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"
#include "raster_wkb.h"

/* One tile as read: its header and the pixel type of the band used. */
typedef struct PbCoverageTile
{
	PbRasterHeader h;
	int			wkb_type;		/* PbWkbPixType of the band */
} PbCoverageTile;

/* Where a tile goes: its cell and its upper-left pixel in the coverage. */
typedef struct PbCoveragePlace
{
	int64_t		cell_x,
				cell_y;			/* 0-based, from the upper-left cell */
	int64_t		x,
				y;				/* pixels, = cell * cell size */
} PbCoveragePlace;

/* The grid the tiles form. */
typedef struct PbCoverageGrid
{
	PbRasterHeader georef;		/* the coverage as one raster: scale, skew,
								 * SRID, upper-left corner, width and height
								 * (width/height 0 when they pass INT32) */
	int64_t		width,
				height;			/* pixels */
	int32_t		cell_w,
				cell_h;			/* the grid's cell: the largest tile */
	int64_t		cells_x,
				cells_y;		/* cells across and down */
	int			wkb_type;
} PbCoverageGrid;

/* Why a grid was refused: which tile (and, for a clash, which other one). */
typedef struct PbCoverageError
{
	PbError		err;
	int64_t		tile;			/* -1: none in particular */
	int64_t		other;			/* -1: none */
} PbCoverageError;

/*
 * Check that tiles[0 .. n) form one grid and fill grid and place[0 .. n)
 * (mem: scratch for finding two tiles in one cell, given back).  PB_BADARG
 * with the tile(s) named when they do not; n must be at least 1.
 */
PbStatus	PbCoverageGridBuild(const PbCoverageTile *tiles, int64_t n, const PbAllocator *mem,
								PbCoverageGrid *grid, PbCoveragePlace *place,
								PbCoverageError *err);

/*
 * The passes that move tiles into and out of a coverage image, on run's
 * threads in parallel over the tiles, each tile row by row straight into
 * (or out of) the coverage's rows (coverage_par.c).  bands[t] is tile t's
 * band as PbRasterGetBand located it.  PB_ERR_STOPPED when run's poll
 * asked to stop (the coverage is then partly written).
 */

/*
 * Decode every tile's band (PbRasterReadBand's conversion to the compute
 * type, pix_bytes a pixel) into cov, and its nodata flags into nodata
 * unless it is NULL; *nodata_count gets the number of nodata pixels.
 * Pixels outside the tiles are not touched.
 */
PbStatus	PbCoverageReadTiles(const PbRun *run, const PbCoverageGrid *grid,
								const PbCoverageTile *tiles, const PbCoveragePlace *place,
								const PbRasterBand *bands, int64_t n, size_t pix_bytes,
								void *cov, uint8_t *nodata, int64_t *nodata_count);

/*
 * Every tile's markers (PbWsMarkerLabels: 0 for no marker and nodata) into
 * labels.  The first negative label, in tile order then pixel order, is
 * reported as *bad_tile, *bad_pixel (its index in the tile) and *bad_value;
 * *bad_tile is -1 when there is none.
 */
PbStatus	PbCoverageReadMarkers(const PbRun *run, const PbCoverageGrid *grid,
								  const PbCoverageTile *tiles, const PbCoveragePlace *place,
								  const PbRasterBand *bands, int64_t n, uint32_t *labels,
								  int64_t *bad_tile, int64_t *bad_pixel, double *bad_value);

/* Mark in wall the pixels outside every tile's mask (PbWsMaskWalls). */
PbStatus	PbCoverageReadWalls(const PbRun *run, const PbCoverageGrid *grid,
								const PbCoverageTile *tiles, const PbCoveragePlace *place,
								const PbRasterBand *bands, int64_t n, uint8_t *wall);

/* The result bands of a coverage, to be cut into tiles. */
typedef struct PbCoverageBands
{
	int			nbands;			/* 1 to 3 */
	int			types[3];		/* WKB pixel types */
	bool		has_nodata[3];
	double		nodata[3];
	const bool *tile_has_nodata;	/* when not NULL: band 1's, per tile */
	const double *tile_nodata;
	const void *pixels[3];		/* coverage images, grid width x height */
} PbCoverageBands;

/*
 * Write tiles which[0 .. n) as raster WKB: out[k] (PbRasterWkbSize bytes,
 * the caller's) gets tile which[k]'s header with the bands cut from the
 * coverage images at its place.
 */
PbStatus	PbCoverageWriteTiles(const PbRun *run, const PbCoverageGrid *grid,
								 const PbCoverageTile *tiles, const PbCoveragePlace *place,
								 const PbCoverageBands *bands, const int64_t *which, int64_t n,
								 uint8_t *const *out);

#endif							/* PB_COVERAGE_H */
