/*
 * text_reader.c: polygon text files read in bounded chunks, with polls
 * between reads (see text_reader.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse_text.h"
#include "text_reader.h"

/* What a file that is not a regular one is, for the message. */
static const char *
FileKind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown kind";
}

/* Check fd is a regular file and make its reads blocking. */
PbStatus
PbFileBegin(int fd, int *io_errno, PbError *err)
{
	struct stat st;
	int			flags;

	err->code = PB_OK;
	err->message[0] = '\0';
	if (fstat(fd, &st) != 0)
	{
		*io_errno = errno ? errno : EIO;
		return PbFail(err, PB_ERR_FORMAT, "fstat failed");
	}
	if (!S_ISREG(st.st_mode))
		return PbFail(err, PB_ERR_UNSUPPORTED, "not a regular file (%s)",
						  FileKind(st.st_mode));
	flags = fcntl(fd, F_GETFL);
	if (flags != -1 && (flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return PB_OK;
}

/* Poll, then read up to n bytes (retrying an interrupted read). */
PbStatus
PbFileRead(int fd, void *buf, size_t n, PbPollFn poll, void *poll_arg,
		   size_t *got, int *io_errno, PbError *err)
{
	ssize_t		r;

	*got = 0;
	if (poll != NULL && poll(poll_arg))
		return PbFail(err, PB_ERR_STOPPED, "stopped");
	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
	{
		*io_errno = errno ? errno : EIO;
		return PbFail(err, PB_ERR_FORMAT, "read failed");
	}
	*got = (size_t) r;
	return PB_OK;
}

/* Check fd (PbFileBegin) and set up the buffer. */
PbStatus
PbTextReaderBegin(PbTextReader *r, int fd, size_t max_line,
				  const PbAllocator *mem, PbPollFn poll, void *poll_arg,
				  PbError *err)
{
	PbStatus	st;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	st = PbFileBegin(fd, &r->io_errno, err);
	if (st != PB_OK)
		return st;
	r->max_line = max_line;
	r->mem = mem;
	r->poll = poll;
	r->poll_arg = poll_arg;
	r->cap = 2 * PB_TEXT_CHUNK;
	r->buf = mem->alloc(mem->ctx, r->cap);
	return PB_OK;
}

/*
 * Poll, then read one more chunk after the bytes of the line being read
 * (moved to the front, the buffer grown when the line needs it).
 */
static PbStatus
Refill(PbTextReader *r, PbError *err)
{
	size_t		got;
	PbStatus	st;

	if (r->poll != NULL && r->poll(r->poll_arg))
		return PbFail(err, PB_ERR_STOPPED, "stopped");
	if (r->start > 0)
	{
		memmove(r->buf, r->buf + r->start, r->fill - r->start);
		r->fill -= r->start;
		r->scan -= r->start;
		r->start = 0;
	}
	if (r->cap - r->fill < PB_TEXT_CHUNK)
	{
		/* fill <= max_line here, so cap stays within max_line + a chunk */
		size_t		cap = 2 * r->cap;

		if (cap > r->max_line + PB_TEXT_CHUNK)
			cap = r->max_line + PB_TEXT_CHUNK;
		if (cap < r->fill + PB_TEXT_CHUNK)
			cap = r->fill + PB_TEXT_CHUNK;
		r->buf = r->mem->resize(r->mem->ctx, r->buf, cap);
		r->cap = cap;
	}
	st = PbFileRead(r->fd, r->buf + r->fill, PB_TEXT_CHUNK, NULL, NULL, &got,
					&r->io_errno, err);
	if (st != PB_OK)
		return st;
	if (got == 0)
		r->eof = 1;
	r->fill += got;
	return PB_OK;
}

/* The next line: up to a newline, or the rest of the file at its end. */
PbStatus
PbTextReaderLine(PbTextReader *r, const char **line, size_t *len,
				 PbError *err)
{
	*line = NULL;
	*len = 0;
	err->code = PB_OK;
	err->message[0] = '\0';
	for (;;)
	{
		char	   *nl = memchr(r->buf + r->scan, '\n', r->fill - r->scan);
		size_t		stop = nl != NULL ? (size_t) (nl - r->buf) : r->fill;
		char	   *nul = memchr(r->buf + r->scan, '\0', stop - r->scan);

		if (nul != NULL)
		{
			r->line++;
			return PbFail(err, PB_ERR_FORMAT,
							  "unexpected byte 0x00 (NUL) at column %zu",
							  (size_t) (nul - (r->buf + r->start)) + 1);
		}
		if (stop - r->start > r->max_line)
		{
			r->line++;
			return PbFail(err, PB_ERR_FORMAT,
							  "line longer than %zu bytes, the most a line may hold",
							  r->max_line);
		}
		if (nl != NULL || (r->eof && r->fill > r->start))
		{
			stop += (nl != NULL);
			*line = r->buf + r->start;
			*len = stop - r->start;
			r->start = r->scan = stop;
			r->line++;
			return PB_OK;
		}
		r->scan = r->fill;
		if (r->eof)
			return PB_OK;
		if (Refill(r, err) != PB_OK)
			return err->code;
	}
}

/* Lines until one holds a polygon, the end of the file or an error. */
PbStatus
PbTextReadPolygon(PbTextReader *r, PbBatch *b, PbEwkb *wkb,
				  PbTextPolygon *out, PbError *err)
{
	out->shape = UINT32_MAX;
	out->id = 0;
	out->has_id = 0;
	for (;;)
	{
		const char *line;
		size_t		len;
		PbTextLineKind kind;
		PbStatus	st = PbTextReaderLine(r, &line, &len, err);

		out->line = r->line;
		if (st != PB_OK || line == NULL)
			return st;
		st = PbParseTextLineEwkb(b, line, len, &kind, &out->id, &out->has_id,
								 &out->shape, wkb, err);
		if (st != PB_OK || kind == PB_LINE_POLYGON)
			return st;
	}
}

/* Free the buffer. */
void
PbTextReaderEnd(PbTextReader *r)
{
	if (r->buf != NULL)
		r->mem->release(r->mem->ctx, r->buf);
	r->buf = NULL;
}
