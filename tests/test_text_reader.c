/*
 * test_text_reader.c: the chunked reader behind both file readers
 * (text_reader.h): lines as splitting the bytes in memory gives them,
 * across chunk borders; NUL bytes, non-regular files and overlong lines
 * refused with their line and column; the poll asked between chunks and
 * obeyed; and the polygons of a file those of its lines one by one.
 */
#define _DEFAULT_SOURCE			/* mkdtemp, mkfifo */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/core/geom/pb_geom.h"
#include "testutil.h"

/* Open path as the file readers do and start a reader on it; returns the fd. */
static int
OpenReader(const char *path, size_t max_line, PbPollFn poll, void *arg,
		   PbTextReader *rd, PbStatus *st, PbError *err)
{
	int			fd = open(path, O_RDONLY | O_NONBLOCK);

	CHECK(fd >= 0);
	*st = PbTextReaderBegin(rd, fd, max_line, &PbMallocAllocator, poll, arg, err);
	return fd;
}

/* Finish a reader and close its file. */
static void
CloseReader(PbTextReader *rd, int fd)
{
	PbTextReaderEnd(rd);
	close(fd);
}

/* Lines of every length (some over a chunk), CR LF or LF, with or without a last newline. */
void
test_reader_lines_match_memory(void)
{
	char		dir[] = "/tmp/pb_text_reader_XXXXXX";
	Rng			r = {2718};

	CHECK(mkdtemp(dir) != NULL);
	for (int iter = 0; iter < 12; iter++)
	{
		size_t		cap = 1 << 20,
					len = 0,
					at = 0,
					max_seen = 0;
		char	   *text = malloc(cap + 1);
		char	   *path;
		PbTextReader rd;
		PbError		err;
		PbStatus	st;
		int			fd;
		int64_t		nlines = 0;

		pb_test_context("iter %d", iter);
		while (len < cap / 2)
		{
			size_t		n = RngRange(&r, 0, 3) == 0 ? (size_t) RngRange(&r, 60000, 200000)
				: (size_t) RngRange(&r, 0, 300);

			for (size_t i = 0; i < n; i++)
				text[len++] = (char) RngRange(&r, ' ', '~');
			if (RngRange(&r, 0, 2) == 0)
				text[len++] = '\r';
			text[len++] = '\n';
		}
		if (iter % 2)
			len--;				/* no last newline */
		path = TestWriteFile(dir, "lines.txt", text, len);
		fd = OpenReader(path, 250000, NULL, NULL, &rd, &st, &err);
		CHECK_INT(st, PB_OK);
		while (st == PB_OK)
		{
			const char *line;
			size_t		n;
			const char *nl;
			size_t		want;

			st = PbTextReaderLine(&rd, &line, &n, &err);
			CHECK_INT(st, PB_OK);
			if (st != PB_OK || line == NULL)
				break;
			nl = memchr(text + at, '\n', len - at);
			want = nl != NULL ? (size_t) (nl - text) + 1 - at : len - at;
			nlines++;
			if (n != want || memcmp(line, text + at, n) != 0)
			{
				pb_check_fail(__FILE__, __LINE__, "line %lld differs (%zu bytes, want %zu)",
							  (long long) nlines, n, want);
				break;
			}
			CHECK(rd.line == nlines);
			at += n;
			if (rd.cap > max_seen)
				max_seen = rd.cap;
		}
		CHECK(at == len);
		CHECK(max_seen <= 250000 + PB_TEXT_CHUNK);
		CloseReader(&rd, fd);
		unlink(path);
		free(path);
		free(text);
	}
	pb_test_context("%s", "");
	rmdir(dir);
}

/*
 * A NUL byte is an error at its line and column (issue 20: a comment with
 * a NUL hid the next line from a reader of C strings), however far into
 * the line or the file it is.
 */
void
test_reader_nul_byte(void)
{
	static const char issue[] = "1 POLYGON((0 0,10 0,10 10,0 10,0 0))\n# c\0\n3 0 0 4 0 4 4 0 4\n";
	char		dir[] = "/tmp/pb_text_reader_XXXXXX";
	char	   *path,
			   *zeros,
			   *late;
	PbTextReader rd;
	PbTextPolygon poly;
	PbBatch		b;
	PbError		err;
	PbStatus	st;
	int			fd;

	CHECK(mkdtemp(dir) != NULL);
	PbBatchInit(&b, &PbMallocAllocator);
	path = TestWriteFile(dir, "issue.txt", issue, sizeof(issue) - 1);
	fd = OpenReader(path, PB_TEXT_MAX_LINE, NULL, NULL, &rd, &st, &err);
	CHECK_INT(PbTextReadPolygon(&rd, &b, NULL, &poly, &err), PB_OK);
	CHECK(poly.shape == 0 && poly.line == 1 && poly.id == 1);
	CHECK_INT(PbTextReadPolygon(&rd, &b, NULL, &poly, &err), PB_ERR_FORMAT);
	CHECK(rd.line == 2);
	CHECK_STR_HAS(err.message, "unexpected byte 0x00 (NUL) at column 4");
	CHECK_INT(b.nshapes, 1);
	CloseReader(&rd, fd);
	unlink(path);
	free(path);

	/* a file of NULs: line 1, column 1, after one chunk */
	zeros = calloc(10 * PB_TEXT_CHUNK, 1);
	path = TestWriteFile(dir, "zeros.txt", zeros, 10 * PB_TEXT_CHUNK);
	fd = OpenReader(path, PB_TEXT_MAX_LINE, NULL, NULL, &rd, &st, &err);
	CHECK_INT(PbTextReadPolygon(&rd, &b, NULL, &poly, &err), PB_ERR_FORMAT);
	CHECK(rd.line == 1);
	CHECK_STR_HAS(err.message, "(NUL) at column 1");
	CHECK(rd.fill == PB_TEXT_CHUNK);
	CloseReader(&rd, fd);
	unlink(path);
	free(path);
	free(zeros);

	/* far into a long last line, past a chunk border, no newline */
	late = malloc(3 * PB_TEXT_CHUNK);
	memset(late, ' ', 3 * PB_TEXT_CHUNK);
	memcpy(late, "\n\n", 2);
	late[2 + PB_TEXT_CHUNK + 5] = '\0';
	path = TestWriteFile(dir, "late.txt", late, 3 * PB_TEXT_CHUNK);
	fd = OpenReader(path, PB_TEXT_MAX_LINE, NULL, NULL, &rd, &st, &err);
	CHECK_INT(PbTextReadPolygon(&rd, &b, NULL, &poly, &err), PB_ERR_FORMAT);
	CHECK(rd.line == 3);
	{
		char		want[64];

		snprintf(want, sizeof(want), "(NUL) at column %zu", PB_TEXT_CHUNK + 6);
		CHECK_STR_HAS(err.message, want);
	}
	CloseReader(&rd, fd);
	unlink(path);
	free(path);
	free(late);
	PbBatchFree(&b);
	rmdir(dir);
}

/* Check that path is refused as not a regular file, saying what it is. */
static void
CheckRefused(const char *path, const char *what)
{
	PbTextReader rd;
	PbError		err;
	PbStatus	st;
	int			fd;

	pb_test_context("%s", path);
	fd = OpenReader(path, PB_TEXT_MAX_LINE, NULL, NULL, &rd, &st, &err);
	CHECK_INT(st, PB_ERR_UNSUPPORTED);
	CHECK_STR_HAS(err.message, what);
	CHECK(rd.buf == NULL && rd.line == 0 && rd.io_errno == 0);
	CloseReader(&rd, fd);
	pb_test_context("%s", "");
}

/* A character device (/dev/zero), a FIFO and a directory are refused at once. */
void
test_reader_not_regular(void)
{
	char		dir[] = "/tmp/pb_text_reader_XXXXXX";
	char		fifo[64];

	CHECK(mkdtemp(dir) != NULL);
	CheckRefused("/dev/zero", "not a regular file (a character device)");
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	/* no writer: a blocking open or read would never return */
	CheckRefused(fifo, "not a regular file (a FIFO)");
	CheckRefused(dir, "not a regular file (a directory)");
	unlink(fifo);
	rmdir(dir);
}

/* A poll that counts its calls and says stop from call stop_at on (0: never). */
typedef struct CountPoll
{
	int			calls,
				stop_at;
} CountPoll;

static int
CountingPoll(void *arg)
{
	CountPoll  *p = arg;

	return ++p->calls >= p->stop_at && p->stop_at > 0;
}

/* The poll is asked before every read, and a stop ends the reading there. */
void
test_reader_poll(void)
{
	char		dir[] = "/tmp/pb_text_reader_XXXXXX";
	size_t		len = 10 * PB_TEXT_CHUNK;
	char	   *text = malloc(len);
	char	   *path;

	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < len; i += 16)
		memcpy(text + i, "# fifteen bytes\n", 16);
	path = TestWriteFile(dir, "comments.txt", text, len);
	for (int stop_at = 0; stop_at <= 4; stop_at++)
	{
		CountPoll	cp = {0, stop_at};
		PbTextReader rd;
		PbTextPolygon poly;
		PbBatch		b;
		PbError		err;
		PbStatus	st;
		int			fd = OpenReader(path, PB_TEXT_MAX_LINE, CountingPoll, &cp, &rd, &st, &err);

		pb_test_context("stop at poll %d", stop_at);
		PbBatchInit(&b, &PbMallocAllocator);
		st = PbTextReadPolygon(&rd, &b, NULL, &poly, &err);
		if (stop_at == 0)
		{
			/* ten chunks and the read that finds the end */
			CHECK_INT(st, PB_OK);
			CHECK(poly.shape == UINT32_MAX);
			CHECK_INT(cp.calls, 11);
			CHECK(rd.line == (int64_t) (len / 16));
		}
		else
		{
			CHECK_INT(st, PB_ERR_STOPPED);
			CHECK_INT(cp.calls, stop_at);
			CHECK(rd.fill <= (size_t) (stop_at - 1) * PB_TEXT_CHUNK);
			CHECK(rd.line == (int64_t) ((stop_at - 1) * PB_TEXT_CHUNK / 16));
		}
		PbBatchFree(&b);
		CloseReader(&rd, fd);
	}
	pb_test_context("%s", "");
	unlink(path);
	free(path);
	free(text);
	rmdir(dir);
}

/* A line longer than max_line is an error at its line, with memory bounded. */
void
test_reader_long_line(void)
{
	char		dir[] = "/tmp/pb_text_reader_XXXXXX";
	size_t		len = 1000 + 1 + 1001 + 1;
	char	   *text = malloc(4 << 20);
	char	   *path;
	const char *line;
	size_t		n;
	PbTextReader rd;
	PbError		err;
	PbStatus	st;
	int			fd;

	CHECK(mkdtemp(dir) != NULL);
	memset(text, 'x', 4 << 20);
	text[1000] = '\n';
	text[2002] = '\n';
	path = TestWriteFile(dir, "long.txt", text, len);
	fd = OpenReader(path, 1000, NULL, NULL, &rd, &st, &err);
	CHECK_INT(PbTextReaderLine(&rd, &line, &n, &err), PB_OK);
	CHECK(n == 1001);
	CHECK_INT(PbTextReaderLine(&rd, &line, &n, &err), PB_ERR_FORMAT);
	CHECK(rd.line == 2);
	CHECK_STR_HAS(err.message, "line longer than 1000 bytes");
	CloseReader(&rd, fd);
	unlink(path);
	free(path);

	/* 4 MB without a newline: refused after about max_line bytes */
	path = TestWriteFile(dir, "endless.txt", text + 3000, (4 << 20) - 3000);
	fd = OpenReader(path, 100000, NULL, NULL, &rd, &st, &err);
	CHECK_INT(PbTextReaderLine(&rd, &line, &n, &err), PB_ERR_FORMAT);
	CHECK(rd.line == 1);
	CHECK_STR_HAS(err.message, "line longer than 100000 bytes");
	CHECK(rd.cap <= 100000 + PB_TEXT_CHUNK && rd.fill <= 100000 + PB_TEXT_CHUNK);
	CloseReader(&rd, fd);
	unlink(path);
	free(path);
	free(text);
	rmdir(dir);
}

/*
 * The polygons of a file (numbers in every spelling, comments, blanks, CR
 * LF, no last newline) are those its lines give one by one, with their
 * line numbers; a bad line stops at its number.
 */
void
test_reader_polygons_as_lines(void)
{
	static const char *const lines[] = {
		"# numbers as people write them\n",
		"1 POLYGON((0 0,1e1 0,1E+1 10,+0 10,-00 -00))\n",
		"\n",
		"2 .5 0 5. 0 5 1e-1\r\n",
		"   \t\r\n",
		"MULTIPOLYGON(((0 0,3 0,3 3,0 0)),EMPTY)\n",
		"3 POLYGON Z ((0 0 1,1 0 1,1 1 1,-0 0 1))\n",
		"4 0 0 4 0 4 4 0 4",
	};
	char		dir[] = "/tmp/pb_text_reader_XXXXXX";
	char		text[1024] = "";
	char	   *path;

	CHECK(mkdtemp(dir) != NULL);
	for (int bad = 0; bad <= 1; bad++)
	{
		PbTextReader rd;
		PbTextPolygon poly;
		PbBatch		b,
					want;
		PbError		err;
		PbStatus	st;
		int			fd,
					got = 0;
		char		why[200];

		text[0] = '\0';
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
			strcat(text, bad && i == 4 ? "5 1 2 3\n" : lines[i]);
		path = TestWriteFile(dir, "polygons.txt", text, strlen(text));
		PbBatchInit(&b, &PbMallocAllocator);
		PbBatchInit(&want, &PbMallocAllocator);
		fd = OpenReader(path, PB_TEXT_MAX_LINE, NULL, NULL, &rd, &st, &err);
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		{
			const char *l = bad && i == 4 ? "5 1 2 3\n" : lines[i];
			PbTextLineKind kind;
			int64_t		id;
			int			has_id;
			uint32_t	shape;
			PbError		lerr;
			PbStatus	lst = PbParseTextLine(&want, l, strlen(l), &kind, &id, &has_id, &shape, &lerr);

			if (lst == PB_OK && kind == PB_LINE_SKIP)
				continue;
			st = PbTextReadPolygon(&rd, &b, NULL, &poly, &err);
			CHECK_INT(st, lst);
			CHECK(rd.line == (int64_t) i + 1);
			if (lst != PB_OK)
			{
				CHECK(strcmp(err.message, lerr.message) == 0);
				break;
			}
			CHECK(poly.line == (int64_t) i + 1 && poly.id == id && poly.has_id == has_id);
			if (!SameShape(&b, poly.shape, &want, shape, 1, why, sizeof(why)))
				pb_check_fail(__FILE__, __LINE__, "line %zu: %s", i + 1, why);
			got++;
		}
		if (!bad)
		{
			CHECK_INT(PbTextReadPolygon(&rd, &b, NULL, &poly, &err), PB_OK);
			CHECK(poly.shape == UINT32_MAX);
			CHECK_INT(got, 5);
		}
		else
			CHECK_INT(got, 2);
		CloseReader(&rd, fd);
		PbBatchFree(&b);
		PbBatchFree(&want);
		unlink(path);
		free(path);
	}
	rmdir(dir);
}
