/*
 * test_parse_files.c: PbParseFiles (files parsed on threads) gives, file by
 * file, exactly what parsing the lines one after the other gives: the same
 * shapes, the same first bad line and message, and open errors with errno;
 * it refuses what the chunked reader refuses, and a stop reaches every
 * thread inside its file.
 */
#define _DEFAULT_SOURCE			/* mkdtemp, mkfifo, strdup */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/core/geom/pb_geom.h"
#include "testutil.h"

#define NFILES 9

/* Random lines of both formats, with comments, blanks and CRLF endings. */
static char *
RandomLines(Rng *r, int n)
{
	size_t		cap = (size_t) n * 200 + 64,
				len = 0;
	char	   *t = malloc(cap);

	t[0] = '\0';
	for (int i = 0; i < n; i++)
	{
		int64_t		x = RngRange(r, -5000, 5000),
					y = RngRange(r, -5000, 5000),
					w = RngRange(r, 1, 40),
					h = RngRange(r, 1, 40);
		const char *eol = RngRange(r, 0, 3) == 0 ? "\r\n" : "\n";

		switch (RngRange(r, 0, 4))
		{
			case 0:
				len += (size_t) snprintf(t + len, cap - len, "%d POLYGON((%lld %lld,%lld %lld,%lld %lld,%lld %lld,%lld %lld))%s",
										 i, (long long) x, (long long) y, (long long) (x + w), (long long) y,
										 (long long) (x + w), (long long) (y + h), (long long) x, (long long) (y + h),
										 (long long) x, (long long) y, eol);
				break;
			case 1:
				len += (size_t) snprintf(t + len, cap - len, "%d %lld %lld %lld %lld %lld.5 %lld%s", i,
										 (long long) x, (long long) y, (long long) (x + w), (long long) y,
										 (long long) x, (long long) (y + h), eol);
				break;
			case 2:
				len += (size_t) snprintf(t + len, cap - len, "# comment %d%s", i, eol);
				break;
			case 3:
				len += (size_t) snprintf(t + len, cap - len, "   %s", eol);
				break;
			default:
				len += (size_t) snprintf(t + len, cap - len, "SRID=4326;MULTIPOLYGON(((%lld %lld,%lld %lld,%lld %lld,%lld %lld)),EMPTY)%s",
										 (long long) x, (long long) y, (long long) (x + w), (long long) y,
										 (long long) (x + w), (long long) (y + h), (long long) x, (long long) y, eol);
		}
	}
	return t;
}

/* What a sequential reader gets from text: the shapes up to the first bad line. */
static void
Sequential(const char *text, PbFileParse *want)
{
	size_t		len = strlen(text),
				at = 0;

	PbBatchInit(&want->batch, &PbMallocAllocator);
	want->status = PB_OK;
	want->line = 0;
	while (at < len && want->status == PB_OK)
	{
		const char *nl = strchr(text + at, '\n');
		size_t		end = nl ? (size_t) (nl - text) + 1 : len;
		PbTextLineKind kind;
		int64_t		id;
		int			has_id;
		uint32_t	shape;

		want->line++;
		want->status = PbParseTextLine(&want->batch, text + at, end - at, &kind, &id, &has_id,
									   &shape, &want->err);
		at = end;
	}
}

/* Files parsed on 1 to 4 threads equal the sequential reading, file by file. */
void
test_parse_files_threads(void)
{
	char		dir[] = "/tmp/pb_parse_files_XXXXXX";
	Rng			r = {31337};
	char	   *texts[NFILES];
	char	   *paths[NFILES];
	char		why[256];

	CHECK(mkdtemp(dir) != NULL);
	for (int i = 0; i < NFILES; i++)
	{
		char		name[32];

		snprintf(name, sizeof(name), "tile_%02d.txt", i);
		texts[i] = RandomLines(&r, i == 0 ? 0 : 40 * i);
		if (i == 4)
		{
			/* a bad line in the middle: the file stops there */
			char	   *bad = malloc(strlen(texts[i]) + 64);

			sprintf(bad, "1 POLYGON((0 0,1 0,1 1,0 0))\n2 3 4 5\n%s", texts[i]);
			free(texts[i]);
			texts[i] = bad;
		}
		if (i == 6)
			texts[i][strlen(texts[i]) > 0 ? strlen(texts[i]) - 1 : 0] = '\0';	/* no final newline */
		paths[i] = i == 7 ? NULL : TestWriteFile(dir, name, texts[i], strlen(texts[i]));
		if (i == 7)
		{
			paths[i] = malloc(strlen(dir) + 16);
			sprintf(paths[i], "%s/missing.txt", dir);
		}
	}
	for (int threads = 1; threads <= 4; threads++)
	{
		PbFileParse files[NFILES];
		PbRun run = {threads, 0, NULL, NULL};

		pb_test_context("%d threads", threads);
		memset(files, 0, sizeof(files));
		for (int i = 0; i < NFILES; i++)
			files[i].path = paths[i];
		CHECK_INT(PbParseFiles(files, NFILES, &run), PB_OK);
		for (int i = 0; i < NFILES; i++)
		{
			PbFileParse want;

			if (i == 7)
			{
				CHECK_INT(files[i].io_errno, ENOENT);
				CHECK_INT(files[i].batch.nshapes, 0);
				continue;
			}
			Sequential(texts[i], &want);
			CHECK_INT(files[i].io_errno, 0);
			CHECK_INT(files[i].out_of_memory, 0);
			CHECK_INT(files[i].status, want.status);
			CHECK_INT(files[i].line, want.line);
			if (want.status != PB_OK)
				CHECK(strcmp(files[i].err.message, want.err.message) == 0);
			CHECK_INT(files[i].batch.nshapes, want.batch.nshapes);
			for (uint32_t k = 0; k < want.batch.nshapes && k < files[i].batch.nshapes; k++)
				if (!SameShape(&files[i].batch, k, &want.batch, k, 1, why, sizeof(why)))
					pb_check_fail(__FILE__, __LINE__, "file %d shape %u: %s", i, k, why);
			PbBatchFree(&want.batch);
		}
		CHECK_INT(files[4].status, PB_ERR_FORMAT);
		CHECK_INT(files[4].line, 2);
		PbParseFilesFree(files, NFILES);
	}
	for (int i = 0; i < NFILES; i++)
	{
		if (i != 7)
			unlink(paths[i]);
		free(paths[i]);
		free(texts[i]);
	}
	rmdir(dir);
}

/*
 * What the threads refuse, file by file and as the sequential reader
 * does: a NUL byte (at its line), /dev/zero, a FIFO and a directory (not
 * regular files, at once), a file that cannot be opened.
 */
void
test_parse_files_refusals(void)
{
	static const char nul[] = "1 POLYGON((0 0,10 0,10 10,0 10,0 0))\n# c\0\n3 0 0 4 0 4 4 0 4\n";
	char		dir[] = "/tmp/pb_parse_files_XXXXXX";
	char	   *paths[5];
	PbFileParse files[5];
	PbRun		run = {3, 0, NULL, NULL};
	FILE	   *f;

	CHECK(mkdtemp(dir) != NULL);
	paths[0] = malloc(strlen(dir) + 16);
	sprintf(paths[0], "%s/nul.txt", dir);
	f = fopen(paths[0], "wb");
	CHECK(f != NULL && fwrite(nul, 1, sizeof(nul) - 1, f) == sizeof(nul) - 1);
	fclose(f);
	paths[1] = strdup("/dev/zero");
	paths[2] = malloc(strlen(dir) + 16);
	sprintf(paths[2], "%s/fifo", dir);
	CHECK(mkfifo(paths[2], 0600) == 0);
	paths[3] = strdup(dir);
	paths[4] = malloc(strlen(dir) + 16);
	sprintf(paths[4], "%s/missing", dir);
	memset(files, 0, sizeof(files));
	for (int i = 0; i < 5; i++)
		files[i].path = paths[i];
	CHECK_INT(PbParseFiles(files, 5, &run), PB_OK);
	CHECK_INT(files[0].status, PB_ERR_FORMAT);
	CHECK(files[0].line == 2 && files[0].opened && files[0].io_errno == 0);
	CHECK_STR_HAS(files[0].err.message, "unexpected byte 0x00 (NUL) at column 4");
	CHECK_INT(files[0].batch.nshapes, 1);
	for (int i = 1; i <= 3; i++)
	{
		CHECK_INT(files[i].status, PB_ERR_UNSUPPORTED);
		CHECK(files[i].line == 0 && files[i].opened && files[i].io_errno == 0);
		CHECK_INT(files[i].batch.nshapes, 0);
	}
	CHECK_STR_HAS(files[1].err.message, "not a regular file (a character device)");
	CHECK_STR_HAS(files[2].err.message, "not a regular file (a FIFO)");
	CHECK_STR_HAS(files[3].err.message, "not a regular file (a directory)");
	CHECK(!files[4].opened && files[4].io_errno == ENOENT);
	PbParseFilesFree(files, 5);
	unlink(paths[0]);
	unlink(paths[2]);
	for (int i = 0; i < 5; i++)
		free(paths[i]);
	rmdir(dir);
}

/* A poll asked on every thread: stops after a number of calls. */
typedef struct StopPoll
{
	atomic_int	calls;
	int			stop_at;
} StopPoll;

static int
StopAfter(void *arg)
{
	StopPoll   *p = arg;

	return atomic_fetch_add(&p->calls, 1) + 1 >= p->stop_at;
}

/*
 * A stop reaches the threads inside their files, between chunks: a file
 * asks the poll at most once more, and the files end stopped, not read.
 */
void
test_parse_files_stop(void)
{
	char		dir[] = "/tmp/pb_parse_files_XXXXXX";
	size_t		len = 64 * PB_TEXT_CHUNK;
	char	   *text = malloc(len);
	char	   *paths[4];

	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < len; i += 16)
		memcpy(text + i, "# fifteen bytes\n", 16);
	for (int i = 0; i < 4; i++)
	{
		char		name[16];

		snprintf(name, sizeof(name), "big%d.txt", i);
		FILE	   *f;

		paths[i] = TestWriteFile(dir, name, "", 0);
		f = fopen(paths[i], "wb");
		CHECK(f != NULL && fwrite(text, 1, len, f) == len);
		fclose(f);
	}
	for (int threads = 1; threads <= 4; threads++)
	{
		StopPoll	sp;
		PbRun		run = {threads, 0, StopAfter, &sp};
		PbFileParse files[4];
		int			stopped = 0;

		pb_test_context("%d threads", threads);
		atomic_init(&sp.calls, 0);
		sp.stop_at = 20;
		memset(files, 0, sizeof(files));
		for (int i = 0; i < 4; i++)
			files[i].path = paths[i];
		CHECK_INT(PbParseFiles(files, 4, &run), PB_ERR_STOPPED);
		for (int i = 0; i < 4; i++)
			stopped += files[i].status == PB_ERR_STOPPED;
		CHECK(stopped >= 1);
		/*
		 * the 20th call stops; then each file asks once more at most (and
		 * reads nothing more), and the caller's loop once per file it takes
		 */
		CHECK(atomic_load(&sp.calls) <= 20 + 4 + 4);
		PbParseFilesFree(files, 4);
	}
	pb_test_context("%s", "");
	for (int i = 0; i < 4; i++)
	{
		unlink(paths[i]);
		free(paths[i]);
	}
	free(text);
	rmdir(dir);
}
