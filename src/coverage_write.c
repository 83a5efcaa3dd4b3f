/*
 * coverage_write.c: a coverage function's output rows: one per input tile
 * of a slide, in row-major order of the tiles' cells, each the result
 * bands cut at the tile's place, with the tile's own georeference, as
 * raster WKB or (for the raster-typed functions) a raster.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "coverage_glue.h"

/* qsort order of tiles by cell (row, then column), through their places. */
static const PbCoveragePlace *sort_place;

/* Compare two tile numbers by the cell they sit in. */
static int
ByCell(const void *a, const void *b)
{
	const PbCoveragePlace *p = &sort_place[*(const int64 *) a],
			   *q = &sort_place[*(const int64 *) b];

	if (p->cell_y != q->cell_y)
		return p->cell_y < q->cell_y ? -1 : 1;
	return (p->cell_x > q->cell_x) - (p->cell_x < q->cell_x);
}

/* The tile numbers of s in row-major order of their cells. */
static int64 *
TileOrder(const PbCoverageSlide *s)
{
	int64	   *order = palloc_extended(sizeof(int64) * s->n, MCXT_ALLOC_HUGE);

	for (int64 t = 0; t < s->n; t++)
		order[t] = t;
	sort_place = s->place;
	qsort(order, s->n, sizeof(int64), ByCell);
	sort_place = NULL;
	return order;
}

/*
 * Write slide s's result bands (coverage images in bands->pixels) as one
 * row per tile: slide (text), tile_x, tile_y (the tile's cell, 0-based),
 * and the tile's raster.
 */
void
PbCoverageWrite(PbCoverageCall *call, const PbCoverageSlide *s, const PbCoverageBands *bands)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) call->fcinfo->resultinfo;
	MemoryContext old = MemoryContextSwitchTo(call->slide_cxt);
	int64	   *order = TileOrder(s);
	MemoryContext tile_cxt = AllocSetContextCreate(call->slide_cxt, "pixelbox coverage tile",
												   ALLOCSET_DEFAULT_SIZES);

	for (int64 k = 0; k < s->n; k++)
	{
		int64		t = order[k];
		const PbRasterHeader *h = &s->tiles[t].h;
		const void *pixels[3];
		bool		has_nodata[3];
		double		nodata[3];
		Datum		v[4];
		bool		nulls[4] = {call->slide_text[s->index] == NULL, false, false, false};
		bytea	   *wkb;

		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(tile_cxt);
		for (int b = 0; b < bands->nbands; b++)
		{
			size_t		size = (size_t) PbWkbPixBytes(bands->types[b]);
			void	   *tile = palloc_extended(size * h->width * h->height, MCXT_ALLOC_HUGE);

			PbCoverageGet(&s->grid, &s->place[t], h->width, h->height, size,
						  bands->pixels[b], tile);
			pixels[b] = tile;
			has_nodata[b] = bands->has_nodata[b];
			nodata[b] = bands->nodata[b];
		}
		if (bands->nodata_role >= 0)
		{
			has_nodata[0] = s->has_nodata[bands->nodata_role][t];
			nodata[0] = s->nodata[bands->nodata_role][t];
		}
		wkb = PbRasterResult(h, bands->nbands, bands->types, has_nodata, nodata, pixels,
							 call->caller);
		v[0] = nulls[0] ? (Datum) 0 : CStringGetTextDatum(call->slide_text[s->index]);
		v[1] = Int32GetDatum((int32) s->place[t].cell_x);
		v[2] = Int32GetDatum((int32) s->place[t].cell_y);
		v[3] = call->out_raster ? FunctionCall1(&call->to_raster, PointerGetDatum(wkb)) :
			PointerGetDatum(wkb);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
		MemoryContextReset(tile_cxt);
	}
	MemoryContextSwitchTo(old);
}
