/*
 * parse_files.h: the parser stage on threads: whole polygon text files
 * (one per image tile, as segmentation tools write them) parsed
 * concurrently, each into a batch of its own.
 *
 * Threads read the files through the chunked reader (text_reader.h) and
 * call nothing but it and the line parser; the caller reports what they
 * found, in file order, so the first bad file of the list is the one
 * named, as a sequential reader would.
 */
#ifndef PB_PARSE_FILES_H
#define PB_PARSE_FILES_H

#include "batch.h"
#include "../base/pb_base.h"

struct PbFileParse;

/*
 * The parser of a file format (src/core/formats/file_formats.h picks one by
 * the file's name): reads the open regular file fd into fp's batch as the
 * text reader does, setting status, line, err, io_errno and out_of_memory
 * the same way, and polling run->poll between chunks.
 */
typedef void (*PbFileParseFn) (struct PbFileParse *fp, int fd, const PbRun *run);

/* One file to parse, and what came of it. */
typedef struct PbFileParse
{
	const char *path;			/* in */
	/* in: the parser of a file that is not polygon text (NULL: text) */
	PbFileParseFn parse;
	PbBatch		batch;			/* its polygons, up to a bad line (malloc) */
	int			opened;			/* nonzero: it was opened */
	int			io_errno;		/* nonzero: it could not be opened (or read) */
	int			out_of_memory;	/* nonzero: the thread ran out of memory */
	PbStatus	status;			/* of the first bad line, PB_OK if none */
	int64_t		line;			/* that line's number (1-based); 0: the file */
	PbError		err;			/* and what was wrong with it */
	int			done;			/* set (atomically) once its thread is through
								 * with it: for progress reports */
} PbFileParse;

/*
 * Parse files[0 .. n) on run->threads threads (the caller included), each
 * file into its own batch; run->poll may stop the work between files and
 * between the chunks of a file.  It is asked on every parsing thread, so
 * it must be safe to call on any thread (a read of a flag).  Returns
 * PB_ERR_STOPPED when stopped (some files then were not parsed, or only in
 * part), PB_OK otherwise; every file's outcome is in its PbFileParse.
 */
extern PbStatus PbParseFiles(PbFileParse *files, uint32_t n, const PbRun *run);

/* Free what PbParseFiles put in files[0 .. n). */
extern void PbParseFilesFree(PbFileParse *files, uint32_t n);

#endif							/* PB_PARSE_FILES_H */
