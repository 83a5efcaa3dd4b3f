/*
 * coverage_write.c: a coverage function's output rows: one per input tile
 * of a slide, in row-major order of the tiles' cells, each the result
 * bands cut at the tile's place (PbCoverageWriteTiles, on threads), with
 * the tile's own georeference, as raster WKB or (for the raster-typed
 * functions) a raster.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "coverage_glue.h"
#include "toast_par.h"

/* Bytes of output tiles made at once before they go to the tuplestore. */
#define WRITE_BATCH_BYTES ((size_t) 256 << 20)

/* qsort_arg order of tile numbers by their cell (row, then column) in places. */
static int
ByCell(const void *a, const void *b, void *places)
{
	const PbCoveragePlace *p = &((const PbCoveragePlace *) places)[*(const int64 *) a],
			   *q = &((const PbCoveragePlace *) places)[*(const int64 *) b];

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
	qsort_arg(order, s->n, sizeof(int64), ByCell, s->place);
	return order;
}

/*
 * Write slide s's result bands (coverage images in bands->pixels) as one
 * row per tile: slide (text), tile_x, tile_y (the tile's cell, 0-based),
 * and the tile's raster.  The tiles' WKB are made on threads, a batch of
 * about WRITE_BATCH_BYTES at a time, compressed there too when stored
 * values are lz4 (PbCompressValues), then handed to the tuplestore in
 * order.
 */
void
PbCoverageWrite(PbCoverageCall *call, const PbCoverageSlide *s, const PbCoverageBands *bands)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) call->fcinfo->resultinfo;
	MemoryContext old = MemoryContextSwitchTo(call->slide_cxt);
	int64	   *order = TileOrder(s);
	MemoryContext batch_cxt = AllocSetContextCreate(call->slide_cxt, "pixelbox coverage tiles",
													ALLOCSET_DEFAULT_SIZES);
	bytea	  **wkb = palloc_extended(sizeof(bytea *) * s->n, MCXT_ALLOC_HUGE);
	uint8	  **data = palloc_extended(sizeof(uint8 *) * s->n, MCXT_ALLOC_HUGE);
	Datum	   *rasters = palloc_extended(sizeof(Datum) * s->n, MCXT_ALLOC_HUGE);
	PbRun		run = PbCpuRun();

	for (int64 first = 0; first < s->n;)
	{
		int64		n = 0;
		size_t		bytes = 0;

		MemoryContextSwitchTo(batch_cxt);
		while (first + n < s->n && (n == 0 || bytes < WRITE_BATCH_BYTES))
		{
			size_t		size = PbCheckResultSize(&s->tiles[order[first + n]].h, bands->nbands,
												 bands->types, call->caller);

			wkb[n] = palloc_extended(size + VARHDRSZ, MCXT_ALLOC_HUGE);
			SET_VARSIZE(wkb[n], size + VARHDRSZ);
			data[n] = (uint8 *) VARDATA(wkb[n]);
			bytes += size;
			n++;
		}
		if (PbCoverageWriteTiles(&run, &s->grid, s->tiles, s->place, bands, order + first, n,
								 data) != PB_OK)
		{
			CHECK_FOR_INTERRUPTS();
			elog(ERROR, "%s: writing the tiles failed", call->caller);
		}
		for (int64 k = 0; k < n; k++)
			rasters[k] = call->out_raster ? FunctionCall1(&call->to_raster, PointerGetDatum(wkb[k])) :
				PointerGetDatum(wkb[k]);
		PbCompressValues(rasters, n, call->caller);
		for (int64 k = 0; k < n; k++)
		{
			const PbCoveragePlace *at = &s->place[order[first + k]];
			Datum		v[4];
			bool		nulls[4] = {call->slide_text[s->index] == NULL, false, false, false};

			v[0] = nulls[0] ? (Datum) 0 : CStringGetTextDatum(call->slide_text[s->index]);
			v[1] = Int32GetDatum((int32) at->cell_x);
			v[2] = Int32GetDatum((int32) at->cell_y);
			v[3] = rasters[k];
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
		}
		MemoryContextReset(batch_cxt);
		CHECK_FOR_INTERRUPTS();
		first += n;
	}
	MemoryContextSwitchTo(old);
}
