/*
 * text_reader.h: a polygon text file read in bounded chunks, line by line,
 * behind both file readers (pb_read_polygons in a backend, pb_compare_files
 * on threads), so they accept and refuse the same bytes with the same
 * messages.
 *
 * The reader takes an open descriptor (opened with O_NONBLOCK, so a FIFO
 * does not block the open) and refuses anything but a regular file: a
 * FIFO, a device such as /dev/zero or a directory could block or never
 * end.  It reads PB_TEXT_CHUNK bytes at a time, asking poll before every
 * read, and holds one line (at most max_line bytes before its newline)
 * plus a chunk.  A NUL byte is an error naming its line and column: text
 * has none, and a reader of C strings would cut the line there.  A last
 * line without a newline is a line.  Each line goes to PbParseTextLine.
 */
#ifndef PB_TEXT_READER_H
#define PB_TEXT_READER_H

#include "batch.h"
#include "ewkb_write.h"

/* Bytes read at a time (the reader polls between reads). */
#define PB_TEXT_CHUNK ((size_t) 65536)

/* The longest line the file readers take (64 MiB: ~3 million vertices). */
#define PB_TEXT_MAX_LINE ((size_t) 64 << 20)

/* A file being read. */
typedef struct PbTextReader
{
	int			fd;
	size_t		max_line;
	const PbAllocator *mem;
	PbPollFn	poll;			/* asked before every read; may be NULL */
	void	   *poll_arg;
	char	   *buf;
	size_t		cap,
				start,			/* first byte of the next line */
				scan,			/* bytes before it hold no newline or NUL */
				fill;			/* bytes read */
	int			eof;
	int64_t		line;			/* lines returned, or the number of a bad line */
	int			io_errno;		/* nonzero: fstat or read failed with it */
} PbTextReader;

/* A polygon read from a file. */
typedef struct PbTextPolygon
{
	uint32_t	shape;			/* in the batch; UINT32_MAX at the end of the file */
	int64_t		line;			/* its line number (1-based) */
	int64_t		id;
	int			has_id;
} PbTextPolygon;

/*
 * The descriptor checks of every file reader (these lines and the JSON
 * files of src/core/formats): fd must be a regular file (else
 * PB_ERR_UNSUPPORTED, err saying what it is; *io_errno set when fstat
 * fails), and is made blocking.
 */
extern PbStatus PbFileBegin(int fd, int *io_errno, PbError *err);

/*
 * Ask poll (may be NULL; PB_ERR_STOPPED when it says stop), then read up
 * to n bytes of fd into buf: *got bytes, 0 at the end of the file; a
 * failed read is PB_ERR_FORMAT with *io_errno set.
 */
extern PbStatus PbFileRead(int fd, void *buf, size_t n, PbPollFn poll,
						   void *poll_arg, size_t *got, int *io_errno,
						   PbError *err);

/*
 * Start reading the open descriptor fd (not closed by the reader).  Fails
 * with PB_ERR_UNSUPPORTED when fd is not a regular file (err says what it
 * is), or with io_errno set when fstat fails; the reader then holds
 * nothing.
 */
extern PbStatus PbTextReaderBegin(PbTextReader *r, int fd, size_t max_line,
								  const PbAllocator *mem, PbPollFn poll,
								  void *poll_arg, PbError *err);

/*
 * The next line (*line, *len with its newline, valid until the next call),
 * or *line = NULL at the end of the file.  Errors: PB_ERR_FORMAT for a NUL
 * byte or a line over max_line bytes (r->line is its number), or for a
 * failed read (io_errno set); PB_ERR_STOPPED when poll said stop.
 */
extern PbStatus PbTextReaderLine(PbTextReader *r, const char **line,
								 size_t *len, PbError *err);

/*
 * The next polygon of the file, parsed into a new shape of b (and into
 * wkb as EWKB, when not NULL); out->shape is UINT32_MAX at the end of the
 * file.  A bad line stops with its error, r->line being its number.
 */
extern PbStatus PbTextReadPolygon(PbTextReader *r, PbBatch *b, PbEwkb *wkb,
								  PbTextPolygon *out, PbError *err);

/* Release the reader's buffer (not the descriptor). */
extern void PbTextReaderEnd(PbTextReader *r);

#endif							/* PB_TEXT_READER_H */
