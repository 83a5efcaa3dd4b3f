/*
 * coverage_par.c: moving tiles into and out of a coverage image on a run's
 * threads (coverage.h), one tile an item: each tile is read or written row
 * by row straight between its WKB band and the coverage's rows, with the
 * serial per-pixel functions of raster_wkb.h and nodata.h, so the bytes
 * are those of the single-value path.
 */
#include <stdatomic.h>
#include <string.h>

#include "coverage.h"
#include "nodata.h"

/* What every tile of one pass shares. */
typedef struct TilePass
{
	const PbCoverageGrid *grid;
	const PbCoverageTile *tiles;
	const PbCoveragePlace *place;
	const PbRasterBand *bands;
	size_t		pix_bytes;
	void	   *cov;
	uint8_t    *flags;			/* nodata or wall */
	uint32_t   *labels;
	atomic_int_fast64_t count;	/* nodata pixels */
	atomic_int_fast64_t first_bad;	/* tile * 2^32 + pixel of the first negative marker */
	const PbCoverageBands *out_bands;
	const int64_t *which;
	uint8_t    *const *out;
} TilePass;

/* Tile t's band from its row r on. */
static PbRasterBand
RowOf(const TilePass *p, int64_t t, int32_t r)
{
	PbRasterBand b = p->bands[t];

	b.pixels += (size_t) r * p->tiles[t].h.width * PbWkbPixBytes(b.wkb_type);
	return b;
}

/* Offset of tile t's row r in the coverage, in pixels. */
static int64_t
RowAt(const TilePass *p, int64_t t, int32_t r)
{
	return (p->place[t].y + r) * p->grid->width + p->place[t].x;
}

/* PbParItemFn: decode tile t into the coverage. */
static void
ReadTile(void *arg, int64_t t)
{
	TilePass   *p = arg;
	int32_t		w = p->tiles[t].h.width;
	int64_t		count = 0;

	for (int32_t r = 0; r < p->tiles[t].h.height; r++)
	{
		PbRasterBand b = RowOf(p, t, r);
		int64_t		at = RowAt(p, t, r);

		count += PbRasterReadBand(&b, w, (uint8_t *) p->cov + at * p->pix_bytes,
								  p->flags ? p->flags + at : NULL);
	}
	atomic_fetch_add(&p->count, count);
}

PbStatus
PbCoverageReadTiles(const PbRun *run, const PbCoverageGrid *grid, const PbCoverageTile *tiles,
					const PbCoveragePlace *place, const PbRasterBand *bands, int64_t n,
					size_t pix_bytes, void *cov, uint8_t *nodata, int64_t *nodata_count)
{
	TilePass	p = {.grid = grid, .tiles = tiles, .place = place, .bands = bands,
	.pix_bytes = pix_bytes, .cov = cov, .flags = nodata};
	PbStatus	st;

	atomic_init(&p.count, 0);
	st = PbParallelFor(run, n, ReadTile, &p);
	*nodata_count = (int64_t) atomic_load(&p.count);
	return st;
}

/* PbParItemFn: tile t's markers into the coverage's labels. */
static void
MarkerTile(void *arg, int64_t t)
{
	TilePass   *p = arg;
	int32_t		w = p->tiles[t].h.width;

	for (int32_t r = 0; r < p->tiles[t].h.height; r++)
	{
		PbRasterBand b = RowOf(p, t, r);
		double		v;
		int64_t		bad = PbWsMarkerLabels(&b, w, p->labels + RowAt(p, t, r), &v);

		if (bad >= 0)
		{
			int_fast64_t mine = (t << 32) + (int64_t) r * w + bad;
			int_fast64_t at = atomic_load(&p->first_bad);

			while (mine < at && !atomic_compare_exchange_weak(&p->first_bad, &at, mine))
				;
			return;
		}
	}
}

PbStatus
PbCoverageReadMarkers(const PbRun *run, const PbCoverageGrid *grid, const PbCoverageTile *tiles,
					  const PbCoveragePlace *place, const PbRasterBand *bands, int64_t n,
					  uint32_t *labels, int64_t *bad_tile, int64_t *bad_pixel, double *bad_value)
{
	TilePass	p = {.grid = grid, .tiles = tiles, .place = place, .bands = bands,
	.labels = labels};
	PbStatus	st;
	int64_t		bad;

	atomic_init(&p.first_bad, INT64_MAX);
	st = PbParallelFor(run, n, MarkerTile, &p);
	bad = (int64_t) atomic_load(&p.first_bad);
	*bad_tile = *bad_pixel = -1;
	if (st == PB_OK && bad != INT64_MAX)
	{
		*bad_tile = bad >> 32;
		*bad_pixel = bad & 0xFFFFFFFF;
		PbRasterBandValues(&bands[*bad_tile], *bad_pixel, 1, bad_value);
	}
	return st;
}

/* PbParItemFn: tile t's mask walls into the coverage's walls. */
static void
WallTile(void *arg, int64_t t)
{
	TilePass   *p = arg;

	for (int32_t r = 0; r < p->tiles[t].h.height; r++)
	{
		PbRasterBand b = RowOf(p, t, r);

		PbWsMaskWalls(&b, p->tiles[t].h.width, p->flags + RowAt(p, t, r));
	}
}

PbStatus
PbCoverageReadWalls(const PbRun *run, const PbCoverageGrid *grid, const PbCoverageTile *tiles,
					const PbCoveragePlace *place, const PbRasterBand *bands, int64_t n,
					uint8_t *wall)
{
	TilePass	p = {.grid = grid, .tiles = tiles, .place = place, .bands = bands,
	.flags = wall};

	return PbParallelFor(run, n, WallTile, &p);
}

/* PbParItemFn: the k-th tile to write, as raster WKB. */
static void
WriteTile(void *arg, int64_t k)
{
	TilePass   *p = arg;
	const PbCoverageBands *bands = p->out_bands;
	int64_t		t = p->which[k];
	const PbRasterHeader *h = &p->tiles[t].h;
	uint8_t    *o = PbRasterWriteHeader(p->out[k], h, bands->nbands);

	for (int b = 0; b < bands->nbands; b++)
	{
		bool		has_nodata = bands->has_nodata[b];
		double		nodata = bands->nodata[b];
		int			bytes = PbWkbPixBytes(bands->types[b]);

		if (b == 0 && bands->tile_has_nodata)
		{
			has_nodata = bands->tile_has_nodata[t];
			nodata = bands->tile_nodata[t];
		}
		o = PbRasterWriteBand(o, bands->types[b], has_nodata, nodata, NULL, 0);
		for (int32_t r = 0; r < h->height; r++)
			o = PbRasterWritePixels(o, bands->types[b],
									(const uint8_t *) bands->pixels[b] + RowAt(p, t, r) * bytes,
									h->width);
	}
}

PbStatus
PbCoverageWriteTiles(const PbRun *run, const PbCoverageGrid *grid, const PbCoverageTile *tiles,
					 const PbCoveragePlace *place, const PbCoverageBands *bands,
					 const int64_t *which, int64_t n, uint8_t *const *out)
{
	TilePass	p = {.grid = grid, .tiles = tiles, .place = place, .out_bands = bands,
	.which = which, .out = out};

	return PbParallelFor(run, n, WriteTile, &p);
}
