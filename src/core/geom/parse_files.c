/*
 * parse_files.c: polygon text files parsed on threads (see parse_files.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/pb_base.h"
#include "parse_files.h"
#include "parse_text.h"

#define READ_CHUNK (1 << 20)	/* bytes read at a time */

/*
 * Read the whole file into a malloc'd buffer (*len bytes); NULL with
 * errno set when it cannot be opened or read.
 */
static char *
ReadWhole(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf = NULL;
	size_t		n = 0,
				cap = 0;
	int			saved;

	if (f == NULL)
		return NULL;
	for (;;)
	{
		size_t		got;

		if (cap - n < READ_CHUNK)
		{
			char	   *grown = realloc(buf, cap + READ_CHUNK + 1);

			if (grown == NULL)
			{
				free(buf);
				fclose(f);
				PbOutOfMemory();
			}
			buf = grown;
			cap += READ_CHUNK;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
	{
		saved = errno ? errno : EIO;
		free(buf);
		fclose(f);
		errno = saved;
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Parse the lines of text[0 .. len) into fp's batch, stopping at a bad one. */
static void
ParseLines(PbFileParse *fp, const char *text, size_t len)
{
	size_t		at = 0;

	while (at < len)
	{
		const char *nl = memchr(text + at, '\n', len - at);
		size_t		end = nl ? (size_t) (nl - text) + 1 : len;
		PbTextLineKind kind;
		int64_t		id;
		int			has_id;
		uint32_t	shape;

		fp->line++;
		fp->status = PbParseTextLine(&fp->batch, text + at, end - at, &kind, &id, &has_id,
									 &shape, &fp->err);
		if (fp->status != PB_OK)
			return;
		at = end;
	}
}

/* Parallel loop body: parse file i, noting an I/O error or running out of memory. */
static void
ParseOne(void *arg, int64_t i)
{
	PbFileParse *fp = &((PbFileParse *) arg)[i];
	jmp_buf		recover;
	jmp_buf    *outer = pb_oom_recover;
	char	   *volatile text = NULL;
	size_t		len = 0;

	PbBatchInit(&fp->batch, &PbMallocAllocator);
	fp->status = PB_OK;
	if (setjmp(recover) != 0)
	{
		pb_oom_recover = outer;
		free(text);
		fp->out_of_memory = 1;
		return;
	}
	pb_oom_recover = &recover;
	if ((text = ReadWhole(fp->path, &len)) == NULL)
		fp->io_errno = errno ? errno : EIO;
	else
		ParseLines(fp, text, len);
	free(text);
	pb_oom_recover = outer;
}

PbStatus
PbParseFiles(PbFileParse *files, uint32_t n, const PbRun *run)
{
	for (uint32_t i = 0; i < n; i++)
	{
		memset(&files[i].batch, 0, sizeof(PbBatch));
		files[i].io_errno = 0;
		files[i].out_of_memory = 0;
		files[i].status = PB_OK;
		files[i].line = 0;
	}
	return PbParallelFor(run, n, ParseOne, files);
}

void
PbParseFilesFree(PbFileParse *files, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (files[i].batch.mem != NULL)
			PbBatchFree(&files[i].batch);
}
