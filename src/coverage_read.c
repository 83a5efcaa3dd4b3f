/*
 * coverage_read.c: reading a coverage function's tiles query (see
 * coverage_glue.h) through SPI, one slide at a time, and assembling each
 * of its raster columns into one image of the slide.
 *
 * The query runs once to find its columns, once for the distinct slide
 * keys (only the slide column is computed), then once per slide with
 * "WHERE slide = $1" (an index on the slide column serves it).  A slide's
 * tiles are held as WKB until its grid is known, then copied into the
 * slide's images tile by tile, each WKB freed once read: at most about
 * twice the slide's pixels are in memory.  Errors name the slide and the
 * tile (by its upper-left corner, which ST_UpperLeftX/Y give).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "coverage_glue.h"
#include "toast_par.h"

#define FETCH_ROWS 64
/* Stored bytes fetched between two decompressions on the threads. */
#define DECOMPRESS_BYTES ((size_t) 256 << 20)

/* The query text without trailing blanks and semicolons. */
static char *
TrimQuery(text *query, const char *caller)
{
	char	   *sql = text_to_cstring(query);
	size_t		n = strlen(sql);

	while (n > 0 && (isspace((unsigned char) sql[n - 1]) || sql[n - 1] == ';'))
		sql[--n] = '\0';
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the tiles query is empty", caller)));
	return sql;
}

/* A type's name and the name of its schema. */
static void
TypeNames(Oid type, char **nsp, char **name)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
	Form_pg_type t;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for type %u", type);
	t = (Form_pg_type) GETSTRUCT(tup);
	*nsp = get_namespace_name(t->typnamespace);
	*name = pstrdup(NameStr(t->typname));
	ReleaseSysCache(tup);
}

/* The 1-based number of the column called name, 0 when there is none. */
static int
FindColumn(TupleDesc td, const char *name, const char *caller)
{
	int			found = 0;

	for (int i = 0; i < td->natts; i++)
		if (!TupleDescAttr(td, i)->attisdropped &&
			strcmp(NameStr(TupleDescAttr(td, i)->attname), name) == 0)
		{
			if (found)
				ereport(ERROR,
						(errcode(ERRCODE_AMBIGUOUS_COLUMN),
						 errmsg("%s: the tiles query has two columns named %s", caller, name)));
			found = i + 1;
		}
	return found;
}

/*
 * Append the expression that gives column col of q as raster WKB: the
 * column itself when it is bytea, ST_AsWKB of it (from the raster type's
 * schema) when it is a raster.
 */
static void
AppendWkbColumn(StringInfo buf, Oid type, const char *col, const char *caller)
{
	char	   *nsp,
			   *name;

	if (type == BYTEAOID)
	{
		appendStringInfo(buf, "q.%s", quote_identifier(col));
		return;
	}
	TypeNames(type, &nsp, &name);
	if (strcmp(name, "raster") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: column %s of the tiles query is %s, not a raster (or raster WKB, bytea)",
						caller, col, format_type_be(type))));
	appendStringInfo(buf, "%s.st_aswkb(q.%s)", quote_identifier(nsp), quote_identifier(col));
}

/* The columns of the tiles query: which roles and whether a slide key. */
static TupleDesc
QueryColumns(const char *sql, const char *caller)
{
	char	   *probe = psprintf("SELECT * FROM (%s) AS q LIMIT 0", sql);

	if (SPI_execute(probe, true, 0) != SPI_OK_SELECT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the tiles query must be a SELECT that returns the tiles", caller)));
	return SPI_tuptable->tupdesc;
}

/* Read the distinct slide keys (in order) into call, in the caller's context. */
static void
ReadSlides(PbCoverageCall *call, const char *sql, Oid key_type, MemoryContext cxt)
{
	char	   *keys = psprintf("SELECT DISTINCT q.slide FROM (%s) AS q ORDER BY 1", sql);
	int16		typlen;
	bool		typbyval;
	Oid			out_fn;
	bool		is_varlena;
	MemoryContext old;

	if (SPI_execute(keys, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "%s: could not read the slide keys", call->caller);
	get_typlenbyval(key_type, &typlen, &typbyval);
	getTypeOutputInfo(key_type, &out_fn, &is_varlena);
	old = MemoryContextSwitchTo(cxt);
	call->nslides = (int64) SPI_processed;
	call->slide_keys = palloc0(sizeof(Datum) * Max(call->nslides, 1));
	call->slide_null = palloc0(sizeof(bool) * Max(call->nslides, 1));
	call->slide_text = palloc0(sizeof(char *) * Max(call->nslides, 1));
	for (int64 k = 0; k < call->nslides; k++)
	{
		Datum		d = SPI_getbinval(SPI_tuptable->vals[k], SPI_tuptable->tupdesc, 1,
									  &call->slide_null[k]);

		if (call->slide_null[k])
			continue;
		call->slide_keys[k] = datumCopy(d, typbyval, typlen);
		call->slide_text[k] = OidOutputFunctionCall(out_fn, d);
	}
	MemoryContextSwitchTo(old);
	SPI_freetuptable(SPI_tuptable);
}

/*
 * When the function returns rasters (not WKB), find ST_RastFromWKB in the
 * raster type's schema to make them.
 */
static void
OutputType(PbCoverageCall *call, TupleDesc out)
{
	Oid			type = TupleDescAttr(out, out->natts - 1)->atttypid;
	Oid			argtypes[1] = {BYTEAOID};
	char	   *nsp,
			   *name;
	Oid			fn;

	call->out_raster = type != BYTEAOID;
	if (!call->out_raster)
		return;
	TypeNames(type, &nsp, &name);
	fn = LookupFuncName(list_make2(makeString(nsp), makeString("st_rastfromwkb")), 1,
						argtypes, false);
	fmgr_info_cxt(fn, &call->to_raster, CurrentMemoryContext);
}

/*
 * Start a coverage function's call: connect to SPI, check the tiles
 * query's columns against the roles (band[r] of role r is read), read the
 * slide keys, prepare the per-slide query and set up the output rows.
 */
void
PbCoverageBegin(PbCoverageCall *call, FunctionCallInfo fcinfo, const char *caller,
				text *query, int nroles, const PbCoverageRole *roles, const int *bands)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *sql = TrimQuery(query, caller);
	TupleDesc	td;
	StringInfoData tiles;
	int			slide_col;
	Oid			key_type = InvalidOid;

	memset(call, 0, sizeof(*call));
	call->caller = caller;
	call->fcinfo = fcinfo;
	call->nroles = nroles;
	call->roles = roles;
	InitMaterializedSRF(fcinfo, 0);
	OutputType(call, ((ReturnSetInfo *) fcinfo->resultinfo)->setDesc);
	PbRasterReportBegin(caller);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "%s: SPI_connect failed", caller);
	td = QueryColumns(sql, caller);
	initStringInfo(&tiles);
	appendStringInfoString(&tiles, "SELECT ");
	for (int r = 0; r < nroles; r++)
	{
		int			col = FindColumn(td, roles[r].column, caller);

		call->band[r] = bands[r];
		call->present[r] = col > 0;
		if (col == 0 && roles[r].required)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("%s: the tiles query has no column %s", caller, roles[r].column),
					 errhint("The query returns one row per tile: the raster column(s) by name and, for many slides, their key as a column named slide.")));
		if (col == 0)
			continue;
		appendStringInfoString(&tiles, r > 0 ? ", " : "");
		AppendWkbColumn(&tiles, TupleDescAttr(td, col - 1)->atttypid, roles[r].column, caller);
	}
	slide_col = FindColumn(td, "slide", caller);
	call->has_slide = slide_col > 0;
	if (call->has_slide)
		key_type = TupleDescAttr(td, slide_col - 1)->atttypid;
	SPI_freetuptable(SPI_tuptable);
	appendStringInfo(&tiles, " FROM (%s) AS q", sql);
	if (call->has_slide)
	{
		ReadSlides(call, sql, key_type, cxt);
		call->null_plan = SPI_prepare(psprintf("%s WHERE q.slide IS NULL", tiles.data), 0, NULL);
		appendStringInfoString(&tiles, " WHERE q.slide = $1");
	}
	else
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		call->nslides = 1;
		call->slide_keys = palloc0(sizeof(Datum));
		call->slide_null = palloc0(sizeof(bool));
		call->slide_text = palloc0(sizeof(char *));
		MemoryContextSwitchTo(old);
	}
	call->tiles_plan = SPI_prepare(tiles.data, call->has_slide ? 1 : 0, &key_type);
	if (call->tiles_plan == NULL || (call->has_slide && call->null_plan == NULL))
		elog(ERROR, "%s: could not prepare the tiles query: %s", caller,
			 SPI_result_code_string(SPI_result));
	call->slide_cxt = AllocSetContextCreate(cxt, "pixelbox coverage slide",
											ALLOCSET_DEFAULT_SIZES);
}

/* "slide <key>: " for messages, or "" when the query has no slide column. */
static const char *
SlideLabel(const PbCoverageCall *call, int64 k)
{
	if (!call->has_slide)
		return "";
	if (call->slide_null[k])
		return "slide NULL: ";
	return psprintf("slide %s: ", call->slide_text[k]);
}

/* Append one fetched row's raster values (copied into cxt) to s. */
static void
KeepRow(const PbCoverageCall *call, PbCoverageSlide *s, HeapTuple row, TupleDesc td,
		int64 *cap, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	int			col = 0;

	if (s->n == *cap)
	{
		*cap = Max(16, *cap * 2);
		for (int r = 0; r < call->nroles; r++)
			s->wkb[r] = s->wkb[r] ? repalloc_huge(s->wkb[r], sizeof(bytea *) * *cap) :
				palloc_extended(sizeof(bytea *) * *cap, MCXT_ALLOC_HUGE);
	}
	for (int r = 0; r < call->nroles; r++)
	{
		bool		isnull;
		Datum		d;

		if (!call->present[r])
			continue;
		d = SPI_getbinval(row, td, ++col, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: %sa tile's %s is NULL", call->caller,
							SlideLabel(call, s->index), call->roles[r].column),
					 errdetail("Row %lld of the slide's tiles.", (long long) s->n + 1)));
		s->wkb[r][s->n] = PbFetchValue(d);
	}
	s->n++;
	MemoryContextSwitchTo(old);
}

/* Decompress the values of s's tiles from tile first on, on the threads. */
static void
DecompressFetched(const PbCoverageCall *call, PbCoverageSlide *s, int64 first)
{
	MemoryContext old = MemoryContextSwitchTo(call->slide_cxt);

	for (int r = 0; r < call->nroles; r++)
		if (call->present[r])
			PbDecompressValues(s->wkb[r] + first, s->n - first, call->caller);
	MemoryContextSwitchTo(old);
}

/*
 * Fetch slide k's rows into s (its WKB in the slide context); the values
 * stored compressed are decompressed on the threads, every
 * DECOMPRESS_BYTES of them, so that the compressed copies never pile up.
 */
static void
FetchTiles(PbCoverageCall *call, int64 k, PbCoverageSlide *s)
{
	Datum		key[1] = {call->slide_keys[k]};
	SPIPlanPtr	plan = call->slide_null[k] ? call->null_plan : call->tiles_plan;
	Portal		portal = SPI_cursor_open(NULL, plan, call->slide_null[k] ? NULL : key, NULL, true);
	int64		cap = 0,
				plain = 0;		/* tiles before this one are decompressed */
	size_t		pending = 0;	/* fetched bytes since */

	for (;;)
	{
		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			KeepRow(call, s, SPI_tuptable->vals[i], SPI_tuptable->tupdesc, &cap,
					call->slide_cxt);
			for (int r = 0; r < call->nroles; r++)
				if (call->present[r])
					pending += VARSIZE_ANY(s->wkb[r][s->n - 1]);
		}
		SPI_freetuptable(SPI_tuptable);
		if (pending >= DECOMPRESS_BYTES)
		{
			DecompressFetched(call, s, plain);
			plain = s->n;
			pending = 0;
		}
		CHECK_FOR_INTERRUPTS();
	}
	SPI_freetuptable(SPI_tuptable);
	SPI_cursor_close(portal);
	DecompressFetched(call, s, plain);
}

/* "the tile with upper-left corner (x, y)" of tile t, for messages. */
static char *
TileName(const PbCoverageSlide *s, int64 t)
{
	return psprintf("the tile with upper-left corner (%.15g, %.15g)",
					s->tiles[t].h.ul_x, s->tiles[t].h.ul_y);
}

/* The tile being read, for the error context. */
typedef struct TileAt
{
	const PbCoverageCall *call;
	const PbCoverageSlide *s;
	int64		t;
} TileAt;

/* Error context: which slide's tile was being read. */
static void
TileContext(void *arg)
{
	TileAt	   *at = (TileAt *) arg;

	errcontext("%sreading row %lld of the slide's tiles", SlideLabel(at->call, at->s->index),
			   (long long) at->t + 1);
}

/* Push the error context of tile reading (pop with error_context_stack = cb.previous). */
static void
PushTileContext(ErrorContextCallback *cb, TileAt *at)
{
	cb->callback = TileContext;
	cb->arg = at;
	cb->previous = error_context_stack;
	error_context_stack = cb;
}

/* Error out with the core's refusal of slide k's grid, naming the tiles. */
static void
RefuseGrid(const PbCoverageCall *call, const PbCoverageSlide *s, const PbCoverageError *e)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s%s: %s", call->caller, SlideLabel(call, s->index),
					e->tile >= 0 ? TileName(s, e->tile) : "the tiles", e->err.message),
			 e->other >= 0 ? errdetail("The other tile's upper-left corner is (%.15g, %.15g).",
									   s->tiles[e->other].h.ul_x,
									   s->tiles[e->other].h.ul_y) : 0,
			 errhint("A slide's tiles must form one grid, as ST_Tile or raster2pgsql -t make them.")));
}

/*
 * Check every tile's headers: the first role's give the grid; the others
 * must be aligned with it, row by row (and of its pixel type when the role
 * says so).  Each role's nodata value is kept per tile.
 */
static void
PlaceTiles(const PbCoverageCall *call, PbCoverageSlide *s)
{
	PbCoverageError e;
	PbAllocator mem;
	int64		area = 0;
	TileAt		at = {call, s, 0};
	ErrorContextCallback cb;

	s->tiles = palloc_extended(sizeof(PbCoverageTile) * s->n, MCXT_ALLOC_HUGE);
	s->place = palloc_extended(sizeof(PbCoveragePlace) * s->n, MCXT_ALLOC_HUGE);
	for (int r = 0; r < call->nroles; r++)
	{
		s->has_nodata[r] = palloc0(sizeof(bool) * s->n);
		s->nodata[r] = palloc0(sizeof(double) * s->n);
		s->band[r] = palloc_extended(sizeof(PbRasterBand) * s->n, MCXT_ALLOC_HUGE);
	}
	PushTileContext(&cb, &at);
	for (int64 t = 0; t < s->n; t++)
	{
		PbRasterArg first;

		at.t = t;
		for (int r = 0; r < call->nroles; r++)
		{
			PbRasterArg arg;
			PbRasterBand rb;

			if (!call->present[r])
				continue;
			PbOpenRasterArg(s->wkb[r][t], call->band[r], call->roles[r].column, call->caller,
							&arg, &rb);
			s->has_nodata[r][t] = arg.has_nodata;
			s->nodata[r][t] = arg.nodata;
			s->band[r][t] = rb;
			if (r == 0)
			{
				first = arg;
				s->tiles[t].h = arg.h;
				s->tiles[t].wkb_type = arg.wkb_type;
				area += (int64) arg.h.width * arg.h.height;
			}
			else if (call->roles[r].same_type)
				PbCheckSameGrid(&first, &arg, call->caller);
			else
				PbCheckAligned(&first, &arg, call->caller);
		}
	}
	error_context_stack = cb.previous;
	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	if (PbCoverageGridBuild(s->tiles, s->n, &mem, &s->grid, s->place, &e) != PB_OK)
		RefuseGrid(call, s, &e);
	if (s->grid.width > PG_INT32_MAX || s->grid.height > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: %sthe tiles span %lld x %lld pixels, more than %d a side",
						call->caller, SlideLabel(call, s->index), (long long) s->grid.width,
						(long long) s->grid.height, PG_INT32_MAX)));
	s->gaps = area < s->grid.width * s->grid.height;
}

/*
 * Read slide k's tiles and place them on their grid (in the slide
 * context, which PbCoverageSlideDone resets); false when the slide has no
 * tiles (any more).
 */
bool
PbCoverageReadSlide(PbCoverageCall *call, int64 k, PbCoverageSlide *s)
{
	MemoryContext old = MemoryContextSwitchTo(call->slide_cxt);

	memset(s, 0, sizeof(*s));
	s->index = k;
	FetchTiles(call, k, s);
	PbRasterReportStage("fetch", NULL);
	if (s->n > 0)
		PlaceTiles(call, s);
	MemoryContextSwitchTo(old);
	return s->n > 0;
}

/*
 * Refuse slide s when its grid is larger than the operation takes: more
 * than max_side pixels a side, or more than max_pixels in all (0: no
 * such limit), before any of its images is allocated.
 */
void
PbCoverageCheckSize(const PbCoverageCall *call, const PbCoverageSlide *s, int64 max_side,
					int64 max_pixels, const char *operation)
{
	if ((max_side > 0 && (s->grid.width > max_side || s->grid.height > max_side)) ||
		(max_pixels > 0 && s->grid.width * s->grid.height > max_pixels))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: %sthe tiles span %lld x %lld pixels, more than the %s takes",
						call->caller, SlideLabel(call, s->index), (long long) s->grid.width,
						(long long) s->grid.height, operation),
				 max_side > 0 ?
				 errdetail("The %s takes at most %lld pixels a side.", operation, (long long) max_side) :
				 errdetail("The %s takes at most %lld pixels.", operation, (long long) max_pixels)));
}

/* Free role's WKB values, read into the slide's images. */
static void
FreeRole(PbCoverageSlide *s, int role)
{
	for (int64 t = 0; t < s->n; t++)
		pfree(s->wkb[role][t]);
	pfree(s->wkb[role]);
	s->wkb[role] = NULL;
}

/*
 * Assemble role's band over the slide into img (the compute type of its
 * pixel type) and nodata (per pixel, 1 = nodata; NULL when no pixel is):
 * pixels no tile covers are nodata, value 0.  The tiles are decoded on
 * threads, and their WKB freed.
 */
void
PbCoverageLoadImage(const PbCoverageCall *call, PbCoverageSlide *s, int role,
					PbImage *img, uint8 **nodata)
{
	MemoryContext old = MemoryContextSwitchTo(call->slide_cxt);
	int64		npix = s->grid.width * s->grid.height;
	int64		count;
	size_t		bytes;
	PbRun		run = PbCpuRun();

	if (!PbRasterComputeType(s->grid.wkb_type, &img->type))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: %sband %d of %s has pixel type %s, which is not supported",
						call->caller, SlideLabel(call, s->index), call->band[role],
						call->roles[role].column, PbWkbPixName(s->grid.wkb_type)),
				 errhint("Supported pixel types: 1BB, 8BUI, 16BUI, 32BF.")));
	bytes = PbPixSize(img->type);
	img->width = (int32) s->grid.width;
	img->height = (int32) s->grid.height;
	img->data = PbHugeAlloc((size_t) npix * bytes);
	*nodata = PbHugeAlloc((size_t) npix);
	if (s->gaps)
	{
		PbZeroPar(&run, img->data, (size_t) npix * bytes);
		memset(*nodata, 1, (size_t) npix);
	}
	PbCheckPass(PbCoverageReadTiles(&run, &s->grid, s->tiles, s->place, s->band[role], s->n,
									bytes, img->data, *nodata, &count),
				call->caller, "reading the tiles");
	if (!s->gaps && count == 0)
	{
		PbHugeFree(*nodata);
		*nodata = NULL;
	}
	FreeRole(s, role);
	MemoryContextSwitchTo(old);
}

/*
 * Assemble role's markers (band 1, integer labels) over the slide: 0 for
 * no marker, for nodata and where no tile is.
 */
uint32 *
PbCoverageLoadMarkers(const PbCoverageCall *call, PbCoverageSlide *s, int role)
{
	MemoryContext old = MemoryContextSwitchTo(call->slide_cxt);
	int64		npix = s->grid.width * s->grid.height;
	uint32	   *labels = PbHugeAlloc(sizeof(uint32) * (size_t) npix);
	int64		bad_tile,
				bad_pixel;
	double		v;
	PbRun		run = PbCpuRun();

	for (int64 t = 0; t < s->n; t++)
		PbCheckMarkerType(&s->band[role][t],
						  psprintf("markers of %s%s", TileName(s, t),
								   !call->has_slide ? "" :
								   call->slide_null[s->index] ? " of slide NULL" :
								   psprintf(" of slide %s", call->slide_text[s->index])),
						  call->caller);
	if (s->gaps)
		PbZeroPar(&run, labels, sizeof(uint32) * (size_t) npix);
	PbCheckPass(PbCoverageReadMarkers(&run, &s->grid, s->tiles, s->place, s->band[role], s->n,
									  labels, &bad_tile, &bad_pixel, &v),
				call->caller, "reading the tiles");
	if (bad_tile >= 0)
		PbRefuseNegativeMarker(v, bad_pixel, s->tiles[bad_tile].h.width,
							   SlideLabel(call, s->index),
							   psprintf(" of %s", TileName(s, bad_tile)), call->caller);
	FreeRole(s, role);
	MemoryContextSwitchTo(old);
	return labels;
}

/*
 * Mark in wall (grid width x height) the pixels outside role's mask (band
 * 1, any type): zero, nodata or NaN.
 */
void
PbCoverageLoadWalls(const PbCoverageCall *call, PbCoverageSlide *s, int role, uint8 *wall)
{
	PbRun		run = PbCpuRun();

	PbCheckPass(PbCoverageReadWalls(&run, &s->grid, s->tiles, s->place, s->band[role], s->n,
									wall),
				call->caller, "reading the tiles");
	FreeRole(s, role);
}

/* A slide is written: free everything it held. */
void
PbCoverageSlideDone(PbCoverageCall *call)
{
	MemoryContextReset(call->slide_cxt);
}

/* The call's rows are all written: close SPI and end the raster report. */
void
PbCoverageEnd(PbCoverageCall *call)
{
	MemoryContextDelete(call->slide_cxt);
	SPI_finish();
	PbRasterReportEnd();
}
