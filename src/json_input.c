/*
 * json_input.c: the JSON files segmentation tools write, read by the
 * server: pb_read_geojson (QuPath's GeoJSON: a FeatureCollection or a bare
 * array of features) and pb_read_hovernet (HoVer-Net's "nuc" object), one
 * row per feature or nucleus.
 *
 * As pb_read_polygons: COPY's permission rule, regular files only, read in
 * chunks with a cancel seen between them, errors naming the file and line
 * (and the feature and byte).  The file is split into records and each
 * block of records parsed on pixelbox.cpu_threads threads by the core
 * (src/core/formats/json_reader.h); the geometries reach PostGIS as the
 * EWKB (SRID 0) the core wrote, through the geometry type's receive
 * function.
 */
#include "postgres.h"

#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "core/formats/json_reader.h"
#include "pixelbox.h"

/* The geometry column's receive function, for rows made from EWKB. */
typedef struct GeomRecv
{
	Oid			recv,
				ioparam;
	const char *caller;
} GeomRecv;

/* A text datum of UTF-8 s (the file's encoding), in the server's encoding. */
static Datum
Utf8Text(const char *s)
{
	return CStringGetTextDatum(pg_any_to_server(s, (int) strlen(s), PG_UTF8));
}

/* The geometry value of a record's EWKB. */
static Datum
GeomDatum(const GeomRecv *g, const PbJsonRecord *rec)
{
	return PbGeometryFromEwkb(g->recv, g->ioparam, rec->geom.data, rec->geom.len, g->caller);
}

/* Put one pb_read_geojson row. */
static void
EmitFeature(ReturnSetInfo *rsinfo, const GeomRecv *g, const PbJsonRecord *rec)
{
	Datum		values[6];
	bool		nulls[6] = {false, rec->id == NULL, rec->object_type == NULL,
	rec->classification == NULL, rec->measurements == NULL, !rec->has_geom};

	values[0] = Int64GetDatum(rec->number);
	values[1] = rec->id ? Utf8Text(rec->id) : (Datum) 0;
	values[2] = rec->object_type ? Utf8Text(rec->object_type) : (Datum) 0;
	values[3] = rec->classification ? Utf8Text(rec->classification) : (Datum) 0;
	values[4] = rec->measurements ?
		DirectFunctionCall1(jsonb_in, CStringGetDatum(pg_any_to_server(rec->measurements,
																	   (int) strlen(rec->measurements),
																	   PG_UTF8))) : (Datum) 0;
	values[5] = rec->has_geom ? GeomDatum(g, rec) : (Datum) 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* Put one pb_read_hovernet row. */
static void
EmitNucleus(ReturnSetInfo *rsinfo, const GeomRecv *g, const PbJsonRecord *rec)
{
	Datum		values[4];
	bool		nulls[4] = {false, !rec->has_type, !rec->has_type_prob, !rec->has_geom};

	values[0] = Utf8Text(rec->id);
	values[1] = Int32GetDatum(rec->type);
	values[2] = Float8GetDatum(rec->type_prob);
	values[3] = rec->has_geom ? GeomDatum(g, rec) : (Datum) 0;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Read the file at path for the records want asks for, putting each as a
 * row of the materialized result; the reader's memory is freed on the way
 * out, error or not.
 */
static void
ReadJsonRows(FunctionCallInfo fcinfo, const char *caller, const char *path,
			 PbJsonLayout want, const PbJsonOptions *opt, int geom_column)
{
	ReturnSetInfo *rsinfo;
	GeomRecv	g;
	PbAllocator mem;
	PbJsonReader rd;
	PbRun		run = PbCpuRun();
	PbError		err;
	PbStatus	st;
	MemoryContext rowcxt;
	int			fd;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	getTypeBinaryInputInfo(TupleDescAttr(rsinfo->setDesc, geom_column)->atttypid,
						   &g.recv, &g.ioparam);
	g.caller = caller;
	/* O_NONBLOCK: a FIFO must not block the open; the reader refuses it */
	fd = OpenTransientFile(path, O_RDONLY | O_NONBLOCK | PG_BINARY);
	if (fd < 0)
		ReportFileError(caller, path, false, errno != 0 ? errno : EIO, PB_OK, 0, NULL);
	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	st = PbJsonReaderBegin(&rd, fd, want, opt, &mem, &run, &err);
	if (st != PB_OK)
		ReportFileError(caller, path, true, rd.split.io_errno, st, 0, &err);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "pb_read_json row",
								   ALLOCSET_DEFAULT_SIZES);
	PG_TRY();
	{
		for (;;)
		{
			PbJsonRecord *recs;
			uint32		n;

			st = PbJsonReaderNext(&rd, &recs, &n, &err);
			if (st != PB_OK || n == 0)
				break;
			for (uint32 i = 0; i < n; i++)
			{
				MemoryContext old = MemoryContextSwitchTo(rowcxt);

				if (want == PB_JSON_NUCLEI)
					EmitNucleus(rsinfo, &g, &recs[i]);
				else
					EmitFeature(rsinfo, &g, &recs[i]);
				MemoryContextSwitchTo(old);
				MemoryContextReset(rowcxt);
			}
		}
		if (st == PB_ERR_STOPPED)
			RaiseStop(caller);
		if (st == PB_ERR_NOMEM)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("%s: %s, line %lld: %s", caller, path,
							(long long) rd.err_line, err.message)));
		if (st != PB_OK)
			ReportFileError(caller, path, true, rd.split.io_errno, st,
							  rd.err_line, &err);
	}
	PG_FINALLY();
	{
		PbJsonReaderEnd(&rd);
	}
	PG_END_TRY();
	MemoryContextDelete(rowcxt);
	CloseTransientFile(fd);
}

PG_FUNCTION_INFO_V1(pb_read_geojson);
/*
 * Rows (feature, id, object_type, classification, measurements, geom) of a
 * QuPath GeoJSON file on the server; geometry_member picks "geometry" or
 * the cells' "nucleusGeometry".
 */
Datum
pb_read_geojson(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_read_geojson";
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *member = text_to_cstring(PG_GETARG_TEXT_PP(1));
	PbJsonOptions opt = {0, 0};

	CheckFileAccess(caller);
	if (strcmp(member, "nucleusGeometry") == 0)
		opt.nucleus_geometry = 1;
	else if (strcmp(member, "geometry") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: geometry_member must be 'geometry' or 'nucleusGeometry', not '%s'",
						caller, member)));
	ReadJsonRows(fcinfo, caller, path, PB_JSON_FEATURES, &opt, 5);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(pb_read_hovernet);
/*
 * Rows (nucleus, type, type_prob, geom) of a HoVer-Net JSON file on the
 * server; contour picks the pixel-edge polygon of the contour's pixels
 * ('pixel_edges') or the contour through pixel centres ('as_written').
 */
Datum
pb_read_hovernet(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_read_hovernet";
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *contour = text_to_cstring(PG_GETARG_TEXT_PP(1));
	PbJsonOptions opt = {0, 0};

	CheckFileAccess(caller);
	if (strcmp(contour, "as_written") == 0)
		opt.contour_as_written = 1;
	else if (strcmp(contour, "pixel_edges") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: contour must be 'pixel_edges' or 'as_written', not '%s'",
						caller, contour)));
	ReadJsonRows(fcinfo, caller, path, PB_JSON_NUCLEI, &opt, 3);
	return (Datum) 0;
}
