/*
 * raster_io.c: raster WKB arguments and results of the raster functions.
 * Every check a user can trip (malformed WKB, missing band, out-of-db
 * band, unsupported pixel type, empty raster, rasters on different grids)
 * raises a clear error naming the function and the argument.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "utils/memutils.h"

#include "raster_glue.h"

/*
 * Locate band number band of a raster WKB argument, checking everything
 * but its pixel type: fills out's header, band, type and nodata, and rb.
 */
void
PbOpenRasterArg(bytea *wkb, int band, const char *what, const char *caller,
				PbRasterArg *out, PbRasterBand *rb)
{
	const uint8 *p = (const uint8 *) VARDATA_ANY(wkb);
	size_t		len = VARSIZE_ANY_EXHDR(wkb);
	PbError		err;

	memset(out, 0, sizeof(*out));
	out->what = what;
	if (!PbRasterParseHeader(p, len, &out->h, &err))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("%s: %s is not a valid raster WKB: %s", caller, what, err.message),
				 errhint("Pass rasters as ST_AsWKB(raster).")));
	if (out->h.width == 0 || out->h.height == 0 || out->h.nbands == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s is an empty raster (%dx%d pixels, %d bands)",
						caller, what, out->h.width, out->h.height, out->h.nbands)));
	if (band < 1 || band > out->h.nbands)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s has no band %d (it has %d)", caller, what, band,
						out->h.nbands)));
	if (!PbRasterGetBand(p, len, band, rb, &err))
		elog(ERROR, "%s: band %d of %s: %s", caller, band, what, err.message);
	if (rb->offline)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: band %d of %s is out-of-db", caller, band, what),
				 errhint("Load the raster in-db (raster2pgsql without -R).")));
	out->band = band;
	out->wkb_type = rb->wkb_type;
	out->has_nodata = rb->has_nodata;
	out->nodata = rb->nodata;
}

/*
 * Read the pixels of the band PbOpenRasterArg located (rb) into out,
 * checking its pixel type, on pixelbox.cpu_threads threads; a cancel that
 * came during this pass is seen at its end.
 */
void
PbLoadRasterArg(const PbRasterBand *rb, const char *caller, PbRasterArg *out)
{
	PbPixType	type;
	int64		npix;
	uint8	   *nd;
	PbRun		run = PbCpuRun();

	if (!PbRasterComputeType(rb->wkb_type, &type))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: band %d of %s has pixel type %s, which is not supported",
						caller, out->band, out->what, PbWkbPixName(rb->wkb_type)),
				 errhint("Supported pixel types: 1BB, 8BUI, 16BUI, 32BF.")));
	out->img.width = out->h.width;
	out->img.height = out->h.height;
	out->img.type = type;
	npix = (int64) out->h.width * out->h.height;
	out->img.data = PbHugeAlloc((size_t) npix * PbPixSize(type));
	if (!PbRasterBandMayHaveNodata(rb))
		PbRasterReadBandPar(&run, rb, npix, out->img.data, NULL);
	else
	{
		nd = PbHugeAlloc((size_t) npix);
		if (PbRasterReadBandPar(&run, rb, npix, out->img.data, nd) > 0)
			out->is_nodata = nd;
		else
			PbHugeFree(nd);
	}
	CHECK_FOR_INTERRUPTS();
}

/* Read band number band of a raster WKB argument, checking everything. */
void
PbReadRasterArg(bytea *wkb, int band, const char *what, const char *caller,
				PbRasterArg *out)
{
	PbRasterBand rb;

	PbOpenRasterArg(wkb, band, what, caller, out, &rb);
	PbLoadRasterArg(&rb, caller, out);
}

/* Rasters combined pixel by pixel must share size, georeference and SRID. */
void
PbCheckAligned(const PbRasterArg *a, const PbRasterArg *b, const char *caller)
{
	const PbRasterHeader *x = &a->h,
			   *y = &b->h;

	if (x->width != y->width || x->height != y->height)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s and %s differ in size (%dx%d and %dx%d)", caller,
						a->what, b->what, x->width, x->height, y->width, y->height)));
	if (x->srid != y->srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s and %s have different SRIDs (%d and %d)", caller,
						a->what, b->what, x->srid, y->srid)));
	if (x->scale_x != y->scale_x || x->scale_y != y->scale_y ||
		x->skew_x != y->skew_x || x->skew_y != y->skew_y ||
		x->ul_x != y->ul_x || x->ul_y != y->ul_y)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s and %s are not aligned", caller, a->what, b->what),
				 errdetail("Upper left (%g, %g) and (%g, %g), scale (%g, %g) and (%g, %g), skew (%g, %g) and (%g, %g).",
						   x->ul_x, x->ul_y, y->ul_x, y->ul_y, x->scale_x, x->scale_y,
						   y->scale_x, y->scale_y, x->skew_x, x->skew_y, y->skew_x, y->skew_y)));
}

/* Rasters combined value by value must also share their pixel type. */
void
PbCheckSameGrid(const PbRasterArg *a, const PbRasterArg *b, const char *caller)
{
	PbCheckAligned(a, b, caller);
	if (a->wkb_type != b->wkb_type)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s is %s but %s is %s", caller, a->what,
						PbWkbPixName(a->wkb_type), b->what, PbWkbPixName(b->wkb_type)),
				 errhint("Cast one band to the other's pixel type (ST_Reclass or ST_MapAlgebra).")));
}

/*
 * Error unless a raster WKB of h's size with the given bands fits in a
 * value (1 GB); the size is known from the input's header, so callers
 * check before any work.  Returns the size.
 */
size_t
PbCheckResultSize(const PbRasterHeader *h, int nbands, const int *wkb_types,
				  const char *caller)
{
	size_t		size = PbRasterWkbSize(h, nbands, wkb_types);

	if (size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the result raster would take %zu bytes, more than a value may hold (1 GB)",
						caller, size),
				 errhint("Cut the raster into tiles (ST_Tile).")));
	return size;
}

/*
 * A raster WKB bytea with h's georeference and the given bands, their
 * pixels copied on pixelbox.cpu_threads threads.
 */
bytea *
PbRasterResult(const PbRasterHeader *h, int nbands, const int *wkb_types,
			   const bool *has_nodata, const double *nodata,
			   const void *const *pixels, const char *caller)
{
	size_t		size = PbCheckResultSize(h, nbands, wkb_types, caller);
	int64		npix = (int64) h->width * h->height;
	bytea	   *out;
	uint8	   *p;
	PbRun		run = PbCpuRun();

	out = palloc(size + VARHDRSZ);
	PbAdviseHugePages(out, size + VARHDRSZ);
	SET_VARSIZE(out, size + VARHDRSZ);
	p = PbRasterWriteHeader((uint8 *) VARDATA(out), h, nbands);
	for (int b = 0; b < nbands; b++)
	{
		CHECK_FOR_INTERRUPTS();
		p = PbRasterWriteBandPar(&run, p, wkb_types[b], has_nodata[b], nodata[b], pixels[b],
								 npix);
	}
	Assert(p == (uint8 *) VARDATA(out) + size);
	return out;
}

/* Check a connectivity argument of a raster function: 4 or 8. */
int
PbConnectivityArg(int32 c, const char *caller)
{
	if (c != 4 && c != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: connectivity must be 4 or 8, not %d", caller, c)));
	return c;
}
