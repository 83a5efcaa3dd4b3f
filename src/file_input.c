/*
 * file_input.c: polygon text files, the paper's parser stage, read by the
 * server: pb_read_polygons(path) as rows, and pb_compare_files(files_a,
 * files_b) comparing two lists of files (one per image tile, or
 * directories of them) without loading them into tables.
 *
 * Formats (src/core/parse_text.h): one polygon per line, WKT optionally
 * preceded by an id, or "id x1 y1 x2 y2 ..." (one ring); blank lines and
 * '#' comments are skipped.  As for COPY FROM a file, only superusers and
 * roles with the privileges of pg_read_server_files may read them.  A bad
 * line stops everything with an error naming the file, line and column.
 * pb_compare_files parses its files on threads (src/core/parse_files.h).
 */
#include "postgres.h"

#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "core/geom/pb_geom.h"
#include "pixelbox.h"

/* Called for every polygon of a file; shape is in the batch given to ReadFile. */
typedef void (*PolygonSink) (void *ctx, uint32 shape, int64 line, int64 id, bool has_id,
							 const char *text, size_t len);

/* Only roles allowed to read server files may (as for COPY FROM a file). */
static void
CheckFileAccess(const char *caller)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s: permission denied to read server files", caller),
				 errdetail("Only superusers and roles with privileges of the \"pg_read_server_files\" role may read server files.")));
}

/* The SQL error code for a parse failure. */
static int
ParseErrcode(PbStatus st)
{
	switch (st)
	{
		case PB_ERR_NONFINITE:
			return ERRCODE_INVALID_PARAMETER_VALUE;
		case PB_ERR_UNSUPPORTED:
			return ERRCODE_FEATURE_NOT_SUPPORTED;
		default:
			return ERRCODE_INVALID_TEXT_REPRESENTATION;
	}
}

/*
 * Parse every line of the file at path into batch b, calling sink for each
 * polygon; a bad line raises an error naming the file, line and column.
 */
static void
ReadFile(const char *path, PbBatch *b, PolygonSink sink, void *ctx, const char *caller)
{
	FILE	   *f = AllocateFile(path, PG_BINARY_R);
	StringInfoData line;
	int64		lineno = 0;

	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("%s: could not open file \"%s\" for reading: %m", caller, path)));
	initStringInfo(&line);
	for (;;)
	{
		char		chunk[8192];
		PbTextLineKind kind;
		int64_t		id;
		int			has_id;
		uint32_t	shape;
		PbError		err;
		PbStatus	st;

		resetStringInfo(&line);
		while (fgets(chunk, sizeof(chunk), f) != NULL)
		{
			appendStringInfoString(&line, chunk);
			if (line.len > 0 && line.data[line.len - 1] == '\n')
				break;
		}
		if (line.len == 0)
			break;
		lineno++;
		st = PbParseTextLine(b, line.data, line.len, &kind, &id, &has_id, &shape, &err);
		if (st != PB_OK)
			ereport(ERROR,
					(errcode(ParseErrcode(st)),
					 errmsg("%s: %s, line %lld: %s", caller, path, (long long) lineno, err.message)));
		if (kind == PB_LINE_POLYGON)
			sink(ctx, shape, lineno, id, has_id != 0, line.data, line.len);
		if ((lineno & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (ferror(f))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("%s: could not read file \"%s\": %m", caller, path)));
	FreeFile(f);
	pfree(line.data);
}

/* State of pb_read_polygons while it emits rows. */
typedef struct ReadRows
{
	ReturnSetInfo *rsinfo;
	PbBatch    *batch;
	Oid			geom_in;		/* the geometry type's input function */
	Oid			geom_ioparam;
	StringInfoData wkt;
} ReadRows;

/* The geometry of a parsed line as WKT: the line's own, or built from the ring. */
static const char *
LineAsWkt(ReadRows *r, uint32 shape, const char *text, size_t len)
{
	const PbBatch *b = r->batch;
	const PbShape *s = &b->shapes[shape];
	size_t		i = 0;

	/* skip an id: the WKT (if any) starts at the first letter */
	while (i < len && !isalpha((unsigned char) text[i]))
		i++;
	resetStringInfo(&r->wkt);
	if (i < len)
	{
		appendBinaryStringInfo(&r->wkt, text + i, (int) (len - i));
		return r->wkt.data;
	}
	/* a coordinate list: one ring */
	appendStringInfoString(&r->wkt, "POLYGON((");
	for (uint32 k = 0; k < b->rings[s->ring_first].npoints; k++)
	{
		size_t		p = (size_t) b->rings[s->ring_first].start + k;

		if (s->kind == PB_SHAPE_INT)
			appendStringInfo(&r->wkt, "%s%d %d", k ? "," : "", b->ipts[2 * p], b->ipts[2 * p + 1]);
		else
			appendStringInfo(&r->wkt, "%s%.17g %.17g", k ? "," : "", b->dpts[2 * p], b->dpts[2 * p + 1]);
	}
	appendStringInfoString(&r->wkt, "))");
	return r->wkt.data;
}

/* Emit one (line, id, geom) row. */
static void
EmitRow(void *ctx, uint32 shape, int64 line, int64 id, bool has_id, const char *text, size_t len)
{
	ReadRows   *r = (ReadRows *) ctx;
	Datum		values[3];
	bool		nulls[3] = {false, !has_id, false};

	values[0] = Int64GetDatum(line);
	values[1] = Int64GetDatum(id);
	values[2] = OidInputFunctionCall(r->geom_in, (char *) LineAsWkt(r, shape, text, len),
									 r->geom_ioparam, -1);
	tuplestore_putvalues(r->rsinfo->setResult, r->rsinfo->setDesc, values, nulls);
	PbBatchReset(r->batch);
}

PG_FUNCTION_INFO_V1(pb_read_polygons);
/* Rows (line number, id, geometry) of a polygon text file on the server. */
Datum
pb_read_polygons(PG_FUNCTION_ARGS)
{
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	PbAllocator mem;
	PbBatch		batch;
	ReadRows	r;

	CheckFileAccess("pb_read_polygons");
	InitMaterializedSRF(fcinfo, 0);
	r.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	r.batch = &batch;
	getTypeInputInfo(TupleDescAttr(r.rsinfo->setDesc, 2)->atttypid, &r.geom_in, &r.geom_ioparam);
	initStringInfo(&r.wkt);
	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	PbBatchInit(&batch, &mem);
	ReadFile(path, &batch, EmitRow, &r, "pb_read_polygons");
	PbBatchFree(&batch);
	return (Datum) 0;
}

/* The files of pb_compare_files, in order, with their sides. */
typedef struct FileList
{
	char	  **paths;
	bool	   *in_a;
	int			n,
				cap;
} FileList;

/* Add one file to the list. */
static void
AddFile(FileList *fl, char *path, bool in_a)
{
	if (fl->n == fl->cap)
	{
		fl->cap = Max(64, fl->cap * 2);
		fl->paths = fl->paths ? repalloc(fl->paths, sizeof(char *) * fl->cap)
			: palloc(sizeof(char *) * fl->cap);
		fl->in_a = fl->in_a ? repalloc(fl->in_a, sizeof(bool) * fl->cap)
			: palloc(sizeof(bool) * fl->cap);
	}
	fl->paths[fl->n] = path;
	fl->in_a[fl->n] = in_a;
	fl->n++;
}

/* qsort comparator: C strings. */
static int
CmpStrings(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* List a file, or every regular file of a directory in name order. */
static void
ListPath(FileList *fl, char *path, bool in_a)
{
	struct stat st;
	DIR		   *dir;
	struct dirent *de;
	int			first = fl->n;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
	{
		AddFile(fl, path, in_a);
		return;
	}
	dir = AllocateDir(path);
	while ((de = ReadDir(dir, path)) != NULL)
	{
		char	   *full = psprintf("%s/%s", path, de->d_name);

		if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
			AddFile(fl, full, in_a);
	}
	FreeDir(dir);
	if (fl->n - first > 1)
		qsort(fl->paths + first, fl->n - first, sizeof(char *), CmpStrings);
}

/* List every path of a text[] (files or directories) for one side. */
static void
ListPaths(FileList *fl, ArrayType *paths, bool in_a)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	deconstruct_array(paths, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			ListPath(fl, TextDatumGetCString(elems[i]), in_a);
}

/* Polled between files: has a cancel, a timeout or a termination arrived? */
static int
FilesInterrupted(void *arg)
{
	return QueryCancelPending || ProcDiePending;
}

/*
 * Move the parsed files into the set pair in list order, up to and with
 * the first bad file (its polygons before the bad line), then raise that
 * file's error: the SRID checks and the error come out as a sequential
 * reader would give them.
 */
static void
MergeFiles(SetsState *sets, const FileList *fl, PbFileParse *files)
{
	for (int i = 0; i < fl->n; i++)
	{
		PbFileParse *fp = &files[i];
		PbBatch    *b = PbSetsBatch(sets);
		uint32		base = b->nshapes;

		PbBatchAppend(b, &fp->batch);
		PbBatchFree(&fp->batch);
		for (uint32 k = base; k < b->nshapes; k++)
			PbSetsAdd(sets, k, fl->in_a[i], "pb_compare_files");
		if (fp->io_errno != 0)
		{
			errno = fp->io_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("pb_compare_files: could not open file \"%s\" for reading: %m", fp->path)));
		}
		if (fp->out_of_memory)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("pb_compare_files: out of memory parsing \"%s\"", fp->path)));
		if (fp->status != PB_OK)
			ereport(ERROR,
					(errcode(ParseErrcode(fp->status)),
					 errmsg("pb_compare_files: %s, line %lld: %s", fp->path, (long long) fp->line,
							fp->err.message)));
	}
}

PG_FUNCTION_INFO_V1(pb_compare_files);
/*
 * pb_compare_sets over two lists of polygon files (or directories of
 * them): the files are parsed on pixelbox.cpu_threads threads, each into
 * its own batch (the parser stage), then go to the pipeline.
 */
Datum
pb_compare_files(PG_FUNCTION_ARGS)
{
	FileList	fl = {0};
	PbFileParse *files;
	SetsState  *sets;
	PbRun run = {PbCpuThreads(), 0, FilesInterrupted, NULL};
	PbStatus st;

	CheckFileAccess("pb_compare_files");
	ListPaths(&fl, PG_GETARG_ARRAYTYPE_P(0), true);
	ListPaths(&fl, PG_GETARG_ARRAYTYPE_P(1), false);
	files = palloc0(sizeof(PbFileParse) * (fl.n + 1));
	for (int i = 0; i < fl.n; i++)
		files[i].path = fl.paths[i];
	sets = PbSetsCreate(CurrentMemoryContext);
	PG_TRY();
	{
		st = PbParseFiles(files, (uint32) fl.n, &run);
		if (st == PB_ERR_STOPPED)
		{
			CHECK_FOR_INTERRUPTS();
			elog(ERROR, "pb_compare_files: parsing stopped without a cancel");
		}
		MergeFiles(sets, &fl, files);
	}
	PG_FINALLY();
	{
		PbParseFilesFree(files, (uint32) fl.n);
	}
	PG_END_TRY();
	return PbSetsResult(sets, fcinfo, "pb_compare_files");
}
