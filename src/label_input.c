/*
 * label_input.c: label images (StarDist, Cellpose) to one polygon per
 * label, by the pixel-edge tracer of src/core/formats (label_polys.h):
 *
 *  - pb_read_labels(path): a TIFF or PNG label image on the server (as for
 *    COPY FROM a file: superusers and pg_read_server_files only);
 *  - pb_labels_to_polygons(raster WKB, band, space): a label raster already
 *    in PostGIS (pixelbox_raster has the raster-typed form), in image
 *    coordinates (space 'pixel': column, row, y down, whatever the
 *    georeference) or through the raster's geotransform and SRID
 *    ('world', as ST_DumpAsPolygons gives them).
 *
 * Rows (label, pixels, geom) come in label order; the geometry is a
 * POLYGON for a label of one 4-connected part, else a MULTIPOLYGON.
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>

#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "core/formats/label_file.h"
#include "raster_glue.h"

/* The SQL error code for a label image the reader refused. */
static int
ImageErrcode(PbStatus st)
{
	switch (st)
	{
		case PB_ERR_UNSUPPORTED:
			return ERRCODE_FEATURE_NOT_SUPPORTED;
		case PB_ERR_BADARG:
			return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
		case PB_ERR_NOMEM:
			return ERRCODE_OUT_OF_MEMORY;
		default:
			return ERRCODE_DATA_CORRUPTED;
	}
}

/* Put one row per label: (label, pixels, geometry from its EWKB). */
static void
EmitShapes(FunctionCallInfo fcinfo, const PbLabelShapes *shapes, const char *caller)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			geom_recv,
				geom_ioparam;
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "label rows",
												 ALLOCSET_DEFAULT_SIZES);

	getTypeBinaryInputInfo(TupleDescAttr(rsinfo->setDesc, 2)->atttypid, &geom_recv,
						   &geom_ioparam);
	for (size_t i = 0; i < shapes->n; i++)
	{
		const PbLabelShape *s = &shapes->shapes[i];
		MemoryContext old = MemoryContextSwitchTo(rowcxt);
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int64GetDatum((int64) s->label);
		values[1] = Int64GetDatum(s->pixels);
		values[2] = PbGeometryFromEwkb(geom_recv, geom_ioparam, s->ewkb, s->len, caller);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	MemoryContextDelete(rowcxt);
}

/*
 * Trace im through gt (SRID srid) on pixelbox.cpu_threads threads and put
 * its rows; the traced shapes are malloc'd, freed even on error.
 */
static void
TraceAndEmit(FunctionCallInfo fcinfo, const PbLabelImage *im, const double gt[6],
			 int32 srid, const char *caller)
{
	PbLabelShapes shapes;
	PbRun		run = PbCpuRun();
	PbError		err;
	PbStatus	st = PbTraceLabels(im, gt, srid, &run, &shapes, &err);

	if (st == PB_ERR_STOPPED)
	{
		CHECK_FOR_INTERRUPTS();
		elog(ERROR, "%s: tracing stopped without a cancel", caller);
	}
	if (st != PB_OK)
		ereport(ERROR,
				(errcode(ImageErrcode(st)),
				 errmsg("%s: %s", caller, err.message)));
	PG_TRY();
	{
		EmitShapes(fcinfo, &shapes, caller);
	}
	PG_FINALLY();
	{
		PbLabelShapesFree(&shapes);
	}
	PG_END_TRY();
}

PG_FUNCTION_INFO_V1(pb_read_labels);
/*
 * Rows (label, pixels, geom) of a TIFF or PNG label image on the server,
 * in image coordinates (pixel (c, r) = [c, c + 1] x [r, r + 1], y down).
 */
Datum
pb_read_labels(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_read_labels";
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const double gt[6] = {0, 1, 0, 0, 0, 1};
	PbLabelImage im;
	PbError		err;
	PbStatus	st;
	int			io_errno;
	int			fd;

	CheckFileAccess(caller);
	InitMaterializedSRF(fcinfo, 0);
	/* O_NONBLOCK: a FIFO must not block the open; the reader refuses it */
	fd = OpenTransientFile(path, O_RDONLY | O_NONBLOCK | PG_BINARY);
	if (fd < 0)
		ReportFileError(caller, path, false, errno != 0 ? errno : EIO, PB_OK, 0, NULL);
	st = PbReadLabelFile(fd, PB_LABEL_MAX_PIXELS, PbInterruptArrived, NULL, &im, &io_errno,
						 &err);
	CloseTransientFile(fd);
	if (st == PB_ERR_STOPPED)
	{
		CHECK_FOR_INTERRUPTS();
		elog(ERROR, "%s: reading stopped without a cancel", caller);
	}
	if (io_errno != 0 || (st == PB_ERR_UNSUPPORTED && strncmp(err.message, "not a regular", 13) == 0))
		ReportFileError(caller, path, true, io_errno, st, 0, &err);
	if (st != PB_OK)
		ereport(ERROR,
				(errcode(ImageErrcode(st)),
				 errmsg("%s: %s: %s", caller, path, err.message)));
	PG_TRY();
	{
		TraceAndEmit(fcinfo, &im, gt, 0, caller);
	}
	PG_FINALLY();
	{
		free((void *) im.data);
	}
	PG_END_TRY();
	return (Datum) 0;
}

/*
 * The labels of a raster band, pixels of nodata made background: unsigned
 * integer types only, copied into native order (palloc'd).
 */
static void
BandLabels(const PbRasterBand *rb, const PbRasterArg *arg, PbLabelImage *im,
		   const char *caller)
{
	size_t		npix = (size_t) arg->h.width * arg->h.height;
	uint8	   *d;

	switch (rb->wkb_type)
	{
		case PB_WKB_1BB:
		case PB_WKB_2BUI:
		case PB_WKB_4BUI:
		case PB_WKB_8BUI:
			im->bytes = 1;
			break;
		case PB_WKB_16BUI:
			im->bytes = 2;
			break;
		case PB_WKB_32BUI:
			im->bytes = 4;
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: band %d has pixel type %s, which does not hold labels",
							caller, arg->band, PbWkbPixName(rb->wkb_type)),
					 errhint("Labels are unsigned integers: 8BUI, 16BUI, 32BUI (or 1BB, 2BUI, 4BUI).")));
	}
	d = PbHugeAlloc(npix * im->bytes);
	memcpy(d, rb->pixels, npix * im->bytes);
	if (rb->swap && im->bytes == 2)
		for (size_t i = 0; i < npix; i++)
			((uint16 *) d)[i] = pg_bswap16(((uint16 *) d)[i]);
	if (rb->swap && im->bytes == 4)
		for (size_t i = 0; i < npix; i++)
			((uint32 *) d)[i] = pg_bswap32(((uint32 *) d)[i]);
	if (rb->all_nodata)
		memset(d, 0, npix * im->bytes);
	else if (rb->has_nodata && rb->nodata != 0 && rb->nodata >= 0 &&
			 rb->nodata <= 4294967295.0 && rb->nodata == floor(rb->nodata))
	{
		uint32		nd = (uint32) rb->nodata;

		for (size_t i = 0; i < npix; i++)
		{
			uint32		v = im->bytes == 1 ? d[i] : im->bytes == 2 ? ((uint16 *) d)[i]
				: ((uint32 *) d)[i];

			if (v == nd)
			{
				if (im->bytes == 1)
					d[i] = 0;
				else if (im->bytes == 2)
					((uint16 *) d)[i] = 0;
				else
					((uint32 *) d)[i] = 0;
			}
		}
	}
	im->data = d;
	im->width = (uint32) arg->h.width;
	im->height = (uint32) arg->h.height;
}

PG_FUNCTION_INFO_V1(pb_labels_to_polygons_wkb);
/*
 * Rows (label, pixels, geom) of one band of a label raster WKB: space
 * 'pixel' in image coordinates (SRID 0), 'world' through the raster's
 * geotransform and SRID.
 */
Datum
pb_labels_to_polygons_wkb(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_labels_to_polygons";
	bytea	   *wkb = PG_GETARG_BYTEA_PP(0);
	int32		band = PG_GETARG_INT32(1);
	char	   *space = text_to_cstring(PG_GETARG_TEXT_PP(2));
	bool		world;
	PbRasterArg arg;
	PbRasterBand rb;
	PbLabelImage im;
	double		gt[6] = {0, 1, 0, 0, 0, 1};

	if (strcmp(space, "pixel") == 0)
		world = false;
	else if (strcmp(space, "world") == 0)
		world = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: space must be 'pixel' or 'world', not '%s'", caller, space),
				 errhint("'pixel': column and row, y down (as QuPath and HoVer-Net); 'world': the raster's georeference and SRID.")));
	InitMaterializedSRF(fcinfo, 0);
	PbOpenRasterArg(wkb, band, "rast", caller, &arg, &rb);
	if (world)
	{
		const PbRasterHeader *h = &arg.h;

		if (h->scale_x * h->scale_y - h->skew_x * h->skew_y == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the raster's geotransform is degenerate (scale %g, %g, skew %g, %g)",
							caller, h->scale_x, h->scale_y, h->skew_x, h->skew_y)));
		gt[0] = h->ul_x;
		gt[1] = h->scale_x;
		gt[2] = h->skew_x;
		gt[3] = h->ul_y;
		gt[4] = h->skew_y;
		gt[5] = h->scale_y;
	}
	BandLabels(&rb, &arg, &im, caller);
	TraceAndEmit(fcinfo, &im, gt, world ? arg.h.srid : 0, caller);
	return (Datum) 0;
}
