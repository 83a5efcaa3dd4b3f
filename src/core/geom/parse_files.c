/*
 * parse_files.c: polygon text files parsed on threads (see parse_files.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../base/pb_base.h"
#include "parse_files.h"
#include "text_reader.h"

/* The files of one PbParseFiles call and its poll. */
typedef struct FilesJob
{
	PbFileParse *files;
	const PbRun *run;
} FilesJob;

/* Read the open file fd into fp's batch, stopping at a bad line. */
static void
ParseOpen(PbFileParse *fp, PbTextReader *rd, int fd, const PbRun *run)
{
	PbTextPolygon poly;

	fp->status = PbTextReaderBegin(rd, fd, PB_TEXT_MAX_LINE, &PbMallocAllocator,
								   run ? run->poll : NULL, run ? run->poll_arg : NULL,
								   &fp->err);
	while (fp->status == PB_OK)
	{
		fp->status = PbTextReadPolygon(rd, &fp->batch, NULL, &poly, &fp->err);
		if (poly.shape == UINT32_MAX)
			break;
	}
	fp->line = rd->line;
	fp->io_errno = rd->io_errno;
}

/* One file's parse, for PbRunRecoverable: what the cleanup needs. */
typedef struct FileParse
{
	FilesJob   *job;
	PbFileParse *fp;
	PbTextReader rd;
	int			fd;
} FileParse;

/* Open file fp and parse it, through its own parser or the text reader. */
static void
ParseOneBody(void *arg)
{
	FileParse  *f = arg;
	PbFileParse *fp = f->fp;

	f->fd = open(fp->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0)
		fp->io_errno = errno ? errno : EIO;
	else
	{
		fp->opened = 1;
		if (fp->parse != NULL)
			fp->parse(fp, f->fd, f->job->run);
		else
			ParseOpen(fp, &f->rd, f->fd, f->job->run);
		PbTextReaderEnd(&f->rd);
		close(f->fd);
		f->fd = -1;
	}
}

/*
 * Parallel loop body: parse file i, noting an I/O error or running out of
 * memory (then the reader and the file are closed here).
 */
static void
ParseOne(void *arg, int64_t i)
{
	FileParse	f;

	memset(&f, 0, sizeof(f));
	f.job = arg;
	f.fp = &f.job->files[i];
	f.fd = -1;
	PbBatchInit(&f.fp->batch, &PbMallocAllocator);
	f.fp->status = PB_OK;
	if (!PbRunRecoverable(ParseOneBody, &f))
	{
		PbTextReaderEnd(&f.rd);
		if (f.fd >= 0)
			close(f.fd);
		f.fp->out_of_memory = 1;
	}
	__atomic_store_n(&f.fp->done, 1, __ATOMIC_RELEASE);
}

/* Parse every file on threads; stopped when the loop or any reader was. */
PbStatus
PbParseFiles(PbFileParse *files, uint32_t n, const PbRun *run)
{
	FilesJob	job = {files, run};
	PbStatus	st;

	for (uint32_t i = 0; i < n; i++)
	{
		memset(&files[i].batch, 0, sizeof(PbBatch));
		files[i].opened = 0;
		files[i].io_errno = 0;
		files[i].out_of_memory = 0;
		files[i].status = PB_OK;
		files[i].line = 0;
		files[i].done = 0;
	}
	st = PbParallelFor(run, n, ParseOne, &job);
	for (uint32_t i = 0; i < n && st == PB_OK; i++)
		if (files[i].status == PB_ERR_STOPPED)
			st = PB_ERR_STOPPED;
	return st;
}

/* Free the batches PbParseFiles filled. */
void
PbParseFilesFree(PbFileParse *files, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (files[i].batch.mem != NULL)
			PbBatchFree(&files[i].batch);
}
