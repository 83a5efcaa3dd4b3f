/*
 * file_input.c: polygon text files, the paper's parser stage, read by the
 * server: pb_read_polygons(path) as rows, and pb_compare_files(files_a,
 * files_b) comparing two lists of files (one per image tile, or
 * directories of them) without loading them into tables.
 *
 * Formats (src/core/geom/parse_text.h): one polygon per line, WKT
 * optionally preceded by an id, or "id x1 y1 x2 y2 ..." (one ring); blank
 * lines and '#' comments are skipped.  As for COPY FROM a file, only
 * superusers and roles with the privileges of pg_read_server_files may
 * read them.  Both functions read through one chunked reader
 * (src/core/geom/text_reader.h: regular files only, no NUL bytes, a cancel
 * seen between chunks) and one line parser, so they take and refuse the
 * same files with the same messages; a bad line stops everything with an
 * error naming the file, line and column.  pb_compare_files parses its
 * files on threads (src/core/geom/parse_files.h).
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
#include "utils/memutils.h"

#include "core/formats/file_formats.h"
#include "core/geom/pb_geom.h"
#include "pixelbox.h"

/* Only roles allowed to read server files may (as for COPY FROM a file). */
void
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
 * Raise the error of a file that could not be opened (opened false), read
 * (io_errno) or taken (line 0: not a regular file), or of its bad line:
 * one wording for both readers.
 */
void
ReportFileError(const char *caller, const char *path, bool opened, int io_errno,
				PbStatus st, int64 line, const PbError *err)
{
	if (io_errno != 0)
	{
		errno = io_errno;
		if (!opened)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("%s: could not open file \"%s\" for reading: %m", caller, path)));
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("%s: could not read file \"%s\": %m", caller, path)));
	}
	if (line == 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: could not read file \"%s\": %s", caller, path, err->message)));
	ereport(ERROR,
			(errcode(ParseErrcode(st)),
			 errmsg("%s: %s, line %lld: %s", caller, path, (long long) line, err->message)));
}

/* A reader stopped by PbInterruptArrived: raise the cancel that stopped it. */
void
RaiseStop(const char *caller)
{
	CHECK_FOR_INTERRUPTS();
	elog(ERROR, "%s: reading stopped without a cancel", caller);
}

/* Put one (line, id, geometry) row, the geometry from its EWKB. */
static void
EmitRow(ReturnSetInfo *rsinfo, Oid geom_recv, Oid geom_ioparam,
		const PbTextPolygon *poly, const PbEwkb *wkb)
{
	Datum		values[3];
	bool		nulls[3] = {false, !poly->has_id, false};

	values[0] = Int64GetDatum(poly->line);
	values[1] = Int64GetDatum(poly->id);
	values[2] = PbGeometryFromEwkb(geom_recv, geom_ioparam, wkb->data, wkb->len,
								   "pb_read_polygons");
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

PG_FUNCTION_INFO_V1(pb_read_polygons);
/*
 * Rows (line number, id, geometry) of a polygon text file on the server:
 * the chunked reader and the line parser of pb_compare_files, each
 * polygon handed to PostGIS as the EWKB the parser wrote.
 */
Datum
pb_read_polygons(PG_FUNCTION_ARGS)
{
	const char *caller = "pb_read_polygons";
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ReturnSetInfo *rsinfo;
	Oid			geom_recv,
				geom_ioparam;
	PbAllocator mem;
	PbBatch		batch;
	PbEwkb		wkb;
	PbTextReader rd;
	PbTextPolygon poly;
	PbError		err;
	PbStatus	st;
	MemoryContext rowcxt;
	int			fd;

	CheckFileAccess(caller);
	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	getTypeBinaryInputInfo(TupleDescAttr(rsinfo->setDesc, 2)->atttypid, &geom_recv, &geom_ioparam);
	/* O_NONBLOCK: a FIFO must not block the open; the reader refuses it */
	fd = OpenTransientFile(path, O_RDONLY | O_NONBLOCK | PG_BINARY);
	if (fd < 0)
		ReportFileError(caller, path, false, errno != 0 ? errno : EIO, PB_OK, 0, NULL);
	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	PbBatchInit(&batch, &mem);
	PbEwkbInit(&wkb, &mem);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "pb_read_polygons row",
								   ALLOCSET_DEFAULT_SIZES);
	st = PbTextReaderBegin(&rd, fd, PB_TEXT_MAX_LINE, &mem, PbInterruptArrived, NULL, &err);
	while (st == PB_OK)
	{
		MemoryContext old;

		st = PbTextReadPolygon(&rd, &batch, &wkb, &poly, &err);
		if (st != PB_OK || poly.shape == UINT32_MAX)
			break;
		old = MemoryContextSwitchTo(rowcxt);
		EmitRow(rsinfo, geom_recv, geom_ioparam, &poly, &wkb);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
		PbBatchReset(&batch);
	}
	if (st == PB_ERR_STOPPED)
		RaiseStop(caller);
	if (st != PB_OK)
		ReportFileError(caller, path, true, rd.io_errno, st, rd.line, &err);
	PbTextReaderEnd(&rd);
	PbEwkbFree(&wkb);
	PbBatchFree(&batch);
	MemoryContextDelete(rowcxt);
	CloseTransientFile(fd);
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

/* The files of a PbParseFiles call, watched for progress. */
typedef struct ParseWatch
{
	const PbFileParse *files;
	uint32		n;
} ParseWatch;

/*
 * The parse's poll, asked on every parsing thread: on the backend's own
 * thread, now and then, the files done into the progress slot; whether a
 * cancel came.  No NOTICE here: the backend's thread is parsing a file
 * itself (inside the thread pool's loop, a library's callbacks, a recovery
 * point), where an error raised while sending one would leave the workers
 * running on a dead frame.
 */
static int
ParsePoll(void *arg)
{
	const ParseWatch *w = arg;

	if (PbProgressDue())
	{
		int64		done = 0;

		for (uint32 i = 0; i < w->n; i++)
			done += __atomic_load_n(&w->files[i].done, __ATOMIC_ACQUIRE);
		PbProgressUpdate(done, w->n, 0);
	}
	return PbInterruptArrived(NULL);
}

/*
 * Move the parsed files into the set pair in list order, up to and with
 * the first bad file (its polygons before the bad line), then raise that
 * file's error: the SRID checks and the error come out as a sequential
 * reader would give them.  A cancel is taken between files.
 */
static void
MergeFiles(SetsState *sets, const FileList *fl, PbFileParse *files)
{
	PbBatch    *all = PbSetsBatch(sets);
	uint64		need[4] = {all->nshapes, all->nrings, all->nipts, all->ndpts};

	/* room for every file at once, so that no array is regrown and copied per file */
	for (int i = 0; i < fl->n; i++)
	{
		need[0] += files[i].batch.nshapes;
		need[1] += files[i].batch.nrings;
		need[2] += files[i].batch.nipts;
		need[3] += files[i].batch.ndpts;
	}
	if (Max(Max(need[0], need[1]), Max(need[2], need[3])) <= PG_UINT32_MAX)
		PbBatchReserve(all, (uint32) need[0], (uint32) need[1], (uint32) need[2],
					   (uint32) need[3]);
	for (int i = 0; i < fl->n; i++)
	{
		PbFileParse *fp = &files[i];
		PbBatch    *b = PbSetsBatch(sets);
		uint32		base = b->nshapes;

		CHECK_FOR_INTERRUPTS();	/* a file's copy is a long step: cancel between them */

		PbBatchAppend(b, &fp->batch);
		PbBatchFree(&fp->batch);
		for (uint32 k = base; k < b->nshapes; k++)
			PbSetsAdd(sets, k, fl->in_a[i], "pb_compare_files");
		if (fp->out_of_memory)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("pb_compare_files: out of memory parsing \"%s\"", fp->path)));
		if (fp->io_errno != 0 || fp->status != PB_OK)
			ReportFileError("pb_compare_files", fp->path, fp->opened != 0, fp->io_errno,
							fp->status, fp->line, &fp->err);
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
	PbRun		run = PbCpuRun();
	ParseWatch	watch;
	PbStatus st;

	CheckFileAccess("pb_compare_files");
	ListPaths(&fl, PG_GETARG_ARRAYTYPE_P(0), true);
	ListPaths(&fl, PG_GETARG_ARRAYTYPE_P(1), false);
	files = palloc0(sizeof(PbFileParse) * (fl.n + 1));
	for (int i = 0; i < fl.n; i++)
	{
		files[i].path = fl.paths[i];
		files[i].parse = PbFileParserFor(fl.paths[i]);
	}
	sets = PbSetsCreate(CurrentMemoryContext);
	watch.files = files;
	watch.n = (uint32) fl.n;
	run.poll = ParsePoll;
	run.poll_arg = &watch;
	PbProgressStart("pb_compare_files", CurrentMemoryContext);
	PbProgressEnter(PB_PHASE_PARSE, fl.n);
	PG_TRY();
	{
		st = PbParseFiles(files, (uint32) fl.n, &run);
		PbProgressUpdate(fl.n, fl.n, 0);
		if (st == PB_ERR_STOPPED)
			RaiseStop("pb_compare_files");
		MergeFiles(sets, &fl, files);
	}
	PG_FINALLY();
	{
		PbParseFilesFree(files, (uint32) fl.n);
	}
	PG_END_TRY();
	return PbSetsResult(sets, fcinfo, "pb_compare_files");
}
