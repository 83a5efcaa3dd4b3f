/*
 * fuzz_text_file.c: the harness of the polygon file reader (text_reader.h,
 * behind pb_read_polygons and pb_compare_files).  The input is written to
 * a temporary regular file and read with PbTextReadPolygon, then checked
 * against the file's lines split and parsed one by one from memory
 * (PbParseTextLineEwkb):
 *
 *   - every polygon is the shape its line gives alone, with its line
 *     number and id, and the same EWKB bytes, which PbDecodeEwkb turns
 *     back into the same shape;
 *   - a bad line stops the file with the line's own error and number; a
 *     NUL byte names the line and column of the first NUL; a line over
 *     max_line bytes is refused at its number;
 *   - the end comes after the last line, after exactly one read per chunk
 *     and one that finds the end, with the buffer within a line plus a
 *     chunk;
 *   - read again with a poll that says stop before read k + 1, the reader
 *     gives what it gave before up to that read, then PB_ERR_STOPPED: a
 *     stop is never a shorter silent success.
 *
 * Input: byte 0 chooses (bits 0-2) k, (bits 3-4) a comment put before
 * the text to move it across the reader's 64 KiB chunk borders (0: none;
 * 1 and 2: a comment line of 64 KiB or 128 KiB - byte 1 bytes, newline
 * included; 3: the same 128 KiB without the newline, so the text's first
 * line ends a comment that spans three reads and grows the buffer), (bits
 * 5-6) max_line (0, 1: PB_TEXT_MAX_LINE; 2: byte 1; 3: a chunk - 128 +
 * (byte 1 & 127), near the comment's length), (bit 7) reading without
 * EWKB, as pb_compare_files does; the rest is the text.  A comment, not
 * spaces before a polygon, so the parser does not walk 64 KiB per input.
 */
#define _DEFAULT_SOURCE			/* mkstemp */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define STOP_AFTER(c) ((c) & 7)
#define PAD_MODE(c) (((c) >> 3) & 3)
#define LIMIT_MODE(c) (((c) >> 5) & 3)
#define NO_EWKB(c) ((c) >> 7)

/* What one PbTextReadPolygon call gave. */
typedef struct Event
{
	PbStatus	st;
	int64_t		line,
				id;
	int			has_id;
	uint32_t	shape;
	int			polls;			/* polls asked so far */
	size_t		wkb_at,			/* its EWKB in the run's wkb bytes */
				wkb_len;
	char		message[sizeof(((PbError *) 0)->message)];
} Event;

/* A file read to its end, its first error or a stop. */
typedef struct ReadRun
{
	PbBatch		batch;
	Event	   *ev;
	size_t		nev,
				cap_ev;
	uint8_t    *wkb;
	size_t		wkb_len,
				cap_wkb;
} ReadRun;

/* A poll that says stop from call stop_after + 1 on. */
typedef struct StopPoll
{
	int			calls,
				stop_after;
} StopPoll;

/* Count the call; nonzero once stop_after calls have been let through. */
static int
StopAfter(void *arg)
{
	StopPoll   *p = arg;

	return p->calls++ >= p->stop_after;
}

/*
 * The file's bytes: the padding byte 0 asks for, then the text, in a
 * buffer kept from input to input (a fresh 128 KiB one each time would
 * cost more than the reading).
 */
static char *
FileBytes(uint8_t c, uint8_t j, const uint8_t *text, size_t n, size_t *len)
{
	static char *buf;
	static size_t cap;
	size_t		pad = PAD_MODE(c) == 0 ? 0 :
		PAD_MODE(c) == 1 ? PB_TEXT_CHUNK - j : 2 * PB_TEXT_CHUNK - j;

	if (cap < pad + n + 1)
	{
		cap = pad + n + 1;
		buf = realloc(buf, cap);
	}
	memset(buf, ' ', pad);
	if (pad > 0)
		buf[0] = '#';
	if (PAD_MODE(c) == 1 || PAD_MODE(c) == 2)
		buf[pad - 1] = '\n';
	if (n > 0)
		memcpy(buf + pad, text, n);
	*len = pad + n;
	return buf;
}

/* The max_line byte 0 asks for. */
static size_t
MaxLine(uint8_t c, uint8_t j)
{
	if (LIMIT_MODE(c) == 2)
		return j;
	if (LIMIT_MODE(c) == 3)
		return PB_TEXT_CHUNK - 128 + (j & 127);
	return PB_TEXT_MAX_LINE;
}

/* Append an empty event to the run. */
static Event *
NewEvent(ReadRun *run)
{
	if (run->nev == run->cap_ev)
	{
		run->cap_ev = run->cap_ev ? 2 * run->cap_ev : 16;
		run->ev = realloc(run->ev, run->cap_ev * sizeof(Event));
	}
	memset(&run->ev[run->nev], 0, sizeof(Event));
	return &run->ev[run->nev++];
}

/* Keep a polygon's EWKB in the run. */
static void
KeepWkb(ReadRun *run, Event *e, const PbEwkb *wkb)
{
	if (run->cap_wkb - run->wkb_len < wkb->len)
	{
		run->cap_wkb = 2 * (run->wkb_len + wkb->len);
		run->wkb = realloc(run->wkb, run->cap_wkb);
	}
	memcpy(run->wkb + run->wkb_len, wkb->data, wkb->len);
	e->wkb_at = run->wkb_len;
	e->wkb_len = wkb->len;
	run->wkb_len += wkb->len;
}

/*
 * Read the file at fd from its start, as the file readers do, recording
 * every call's outcome; each outcome is checked as a decode's (a failed
 * call leaves the batch as it was, a polygon is a well-formed new shape).
 */
static void
ReadAll(int fd, size_t max_line, int stop_after, int use_wkb, ReadRun *run)
{
	StopPoll	poll = {0, stop_after};
	PbTextReader rd;
	PbTextPolygon out;
	PbError		err;
	PbEwkb		wkb;
	PbStatus	st;
	int			flags = fcntl(fd, F_GETFL);

	memset(run, 0, sizeof(*run));
	FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0 && flags != -1 &&
			   fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0,
			   "cannot rewind the temporary file");
	PbBatchInit(&run->batch, &PbMallocAllocator);
	FuzzPrefillBatch(&run->batch);
	PbEwkbInit(&wkb, &PbMallocAllocator);
	st = PbTextReaderBegin(&rd, fd, max_line, &PbMallocAllocator, StopAfter,
						   &poll, &err);
	FUZZ_CHECK(st == PB_OK, "a regular file refused: %s", err.message);
	do
	{
		FuzzBatchMark mark = FuzzMark(&run->batch);
		Event	   *e = NewEvent(run);

		st = PbTextReadPolygon(&rd, &run->batch, use_wkb ? &wkb : NULL, &out, &err);
		FUZZ_CHECK(rd.io_errno == 0, "read failed: errno %d", rd.io_errno);
		FUZZ_CHECK(st == PB_OK || out.shape == UINT32_MAX,
				   "error %d with shape %u", (int) st, out.shape);
		FUZZ_CHECK(out.line == rd.line, "line %lld, reader at %lld",
				   (long long) out.line, (long long) rd.line);
		if (st == PB_OK && out.shape == UINT32_MAX)
		{
			FuzzBatchMark now = FuzzMark(&run->batch);

			FUZZ_CHECK(memcmp(&now, &mark, sizeof(now)) == 0,
					   "the end of the file changed the batch");
		}
		else
			FuzzCheckDecoded(&run->batch, &mark, st, out.shape, &err);
		e->st = st;
		e->line = out.line;
		e->id = out.id;
		e->has_id = out.has_id;
		e->shape = out.shape;
		e->polls = poll.calls;
		memcpy(e->message, err.message, sizeof(e->message));
		if (st == PB_OK && out.shape != UINT32_MAX && use_wkb)
			KeepWkb(run, e, &wkb);
	} while (st == PB_OK && out.shape != UINT32_MAX);
	FUZZ_CHECK(rd.cap <= 2 * PB_TEXT_CHUNK || rd.cap <= max_line + PB_TEXT_CHUNK,
			   "buffer of %zu bytes for lines of at most %zu", rd.cap, max_line);
	PbTextReaderEnd(&rd);
	PbEwkbFree(&wkb);
}

/* Whether events a of run ra and b of rb kept the same EWKB (none for both is the same). */
static int
SameWkb(const ReadRun *ra, const Event *a, const ReadRun *rb, const Event *b)
{
	return a->wkb_len == b->wkb_len &&
		(a->wkb_len == 0 ||
		 memcmp(ra->wkb + a->wkb_at, rb->wkb + b->wkb_at, a->wkb_len) == 0);
}

/* Free what a run holds. */
static void
FreeRun(ReadRun *run)
{
	PbBatchFree(&run->batch);
	free(run->ev);
	free(run->wkb);
}

/* The column a NUL error names, or 0 when the message is not one. */
static size_t
NulColumn(const char *message)
{
	const char *at = strstr(message, "(NUL) at column ");
	size_t		col = 0;

	if (at != NULL)
		sscanf(at + strlen("(NUL) at column "), "%zu", &col);
	return col;
}

/*
 * Whether line number lineno (body: its bytes before the newline) is one
 * the reader refuses before parsing; if so, check e is that refusal.  The
 * first NUL within max_line + 1 bytes is always seen before the length; a
 * later one may be, depending on where the reads stop.
 */
static int
CheckRefusedLine(const Event *e, int64_t lineno, const char *body, size_t blen,
				 size_t max_line)
{
	const char *nul = memchr(body, '\0', blen);
	size_t		nulcol = nul != NULL ? (size_t) (nul - body) + 1 : 0;
	size_t		col = NulColumn(e->message);
	int			too_long = strstr(e->message, "longer than") != NULL;

	if (nul == NULL && blen <= max_line)
		return 0;
	FUZZ_CHECK(e->st == PB_ERR_FORMAT && e->line == lineno,
			   "line %lld (%zu bytes, NUL at %zu, max %zu) not refused: status %d at line %lld: %s",
			   (long long) lineno, blen, nulcol, max_line, (int) e->st,
			   (long long) e->line, e->message);
	if (nul != NULL && nulcol <= max_line + 1)
		FUZZ_CHECK(col == nulcol, "NUL at column %zu of line %lld, error says: %s",
				   nulcol, (long long) lineno, e->message);
	else if (nul != NULL)
		FUZZ_CHECK(col == nulcol || too_long,
				   "NUL at column %zu of a line of %zu bytes (max %zu), error says: %s",
				   nulcol, blen, max_line, e->message);
	else
		FUZZ_CHECK(too_long, "line of %zu bytes (max %zu), error says: %s",
				   blen, max_line, e->message);
	return 1;
}

/*
 * Check a run to the end (no stop) against the file's lines parsed one by
 * one from memory, each in a buffer of its exact size.
 */
static void
CheckAgainstLines(const ReadRun *run, const char *file, size_t len,
				  size_t max_line, int use_wkb)
{
	PbBatch		ref,
				dec;
	PbEwkb		wkb;
	size_t		at = 0,
				ev = 0;
	int64_t		lineno = 0;
	int			done = 0;

	PbBatchInit(&ref, &PbMallocAllocator);
	PbBatchInit(&dec, &PbMallocAllocator);
	PbEwkbInit(&wkb, &PbMallocAllocator);
	while (at < len)
	{
		const char *nl = memchr(file + at, '\n', len - at);
		size_t		blen = nl != NULL ? (size_t) (nl - file) - at : len - at;
		size_t		llen = blen + (nl != NULL);
		const Event *e = &run->ev[ev];
		char	   *copy;
		PbTextLineKind kind;
		PbError		err;
		int64_t		id;
		int			has_id;
		uint32_t	shape,
					dshape;
		PbStatus	st;

		lineno++;
		FUZZ_CHECK(ev < run->nev, "the reader stopped before line %lld", (long long) lineno);
		if (CheckRefusedLine(e, lineno, file + at, blen, max_line))
		{
			done = 1;
			break;
		}
		copy = malloc(llen ? llen : 1);
		memcpy(copy, file + at, llen);
		st = PbParseTextLineEwkb(&ref, copy, llen, &kind, &id, &has_id, &shape,
								 &wkb, &err);
		free(copy);
		at += llen;
		if (st != PB_OK)
		{
			FUZZ_CHECK(e->st == st && e->line == lineno && strcmp(e->message, err.message) == 0 &&
					   e->id == id && e->has_id == has_id,
					   "line %lld alone: status %d id %lld (%s); from the file: status %d id %lld at line %lld (%s)",
					   (long long) lineno, (int) st, (long long) id, err.message,
					   (int) e->st, (long long) e->id, (long long) e->line, e->message);
			done = 1;
			break;
		}
		if (kind == PB_LINE_SKIP)
			continue;
		FUZZ_CHECK(e->st == PB_OK && e->shape != UINT32_MAX && e->line == lineno &&
				   e->id == id && e->has_id == has_id,
				   "line %lld alone: a polygon of id %lld; from the file: status %d shape %u id %lld at line %lld (%s)",
				   (long long) lineno, (long long) id, (int) e->st, e->shape,
				   (long long) e->id, (long long) e->line, e->message);
		FUZZ_CHECK(FuzzSameShape(&run->batch, e->shape, &ref, shape),
				   "line %lld: the file's shape is not the line's", (long long) lineno);
		FUZZ_CHECK(!use_wkb || (e->wkb_len == wkb.len &&
								memcmp(run->wkb + e->wkb_at, wkb.data, wkb.len) == 0),
				   "line %lld: the file's EWKB (%zu bytes) is not the line's (%zu)",
				   (long long) lineno, e->wkb_len, wkb.len);
		st = PbDecodeEwkb(&dec, wkb.data, wkb.len, &dshape, &err);
		FUZZ_CHECK(st == PB_OK, "line %lld: its EWKB does not decode: %s",
				   (long long) lineno, err.message);
		FUZZ_CHECK(FuzzSameShape(&ref, shape, &dec, dshape),
				   "line %lld: its EWKB decodes to another shape", (long long) lineno);
		ev++;
	}
	FUZZ_CHECK(ev + 1 == run->nev, "the reader gave %zu outcomes, the lines %zu",
			   run->nev, ev + 1);
	if (!done)
	{
		const Event *e = &run->ev[ev];
		int			reads = (int) ((len + PB_TEXT_CHUNK - 1) / PB_TEXT_CHUNK) + 1;

		FUZZ_CHECK(e->st == PB_OK && e->shape == UINT32_MAX && e->line == lineno,
				   "after %lld lines: status %d shape %u at line %lld (%s)",
				   (long long) lineno, (int) e->st, e->shape, (long long) e->line,
				   e->message);
		FUZZ_CHECK(e->polls == reads, "%zu bytes read with %d polls, not %d",
				   len, e->polls, reads);
	}
	PbEwkbFree(&wkb);
	PbBatchFree(&ref);
	PbBatchFree(&dec);
}

/*
 * Check a run whose poll said stop from call k + 1 on against the run
 * without a stop: the same outcomes while at most k reads were asked
 * for, then PB_ERR_STOPPED at the call that asked for one more.
 */
static void
CheckStopped(const ReadRun *stopped, const ReadRun *full, int k)
{
	for (size_t i = 0; i < full->nev; i++)
	{
		const Event *f = &full->ev[i];
		const Event *s = &stopped->ev[i];

		FUZZ_CHECK(i < stopped->nev, "stopped after %zu outcomes, without saying so", i);
		if (f->polls > k)
		{
			FUZZ_CHECK(s->st == PB_ERR_STOPPED && s->shape == UINT32_MAX &&
					   i + 1 == stopped->nev,
					   "outcome %zu needs read %d, beyond the %d allowed, but gave status %d shape %u (%s)",
					   i, f->polls, k, (int) s->st, s->shape, s->message);
			return;
		}
		FUZZ_CHECK(s->st == f->st && s->line == f->line && s->id == f->id &&
				   s->has_id == f->has_id && s->polls == f->polls &&
				   (s->shape == UINT32_MAX) == (f->shape == UINT32_MAX) &&
				   strcmp(s->message, f->message) == 0,
				   "outcome %zu with %d reads allowed: status %d line %lld; without a stop: status %d line %lld",
				   i, k, (int) s->st, (long long) s->line, (int) f->st, (long long) f->line);
		FUZZ_CHECK(s->shape == UINT32_MAX ||
				   (FuzzSameShape(&stopped->batch, s->shape, &full->batch, f->shape) &&
					SameWkb(stopped, s, full, f)),
				   "outcome %zu: another polygon when a stop was coming", i);
	}
	FUZZ_CHECK(stopped->nev == full->nev, "%zu outcomes with a stop, %zu without",
			   stopped->nev, full->nev);
}

/* One input: see the top of the file. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		c = size > 0 ? data[0] : 0;
	uint8_t		j = size > 1 ? data[1] : 0;
	size_t		skip = size < 2 ? size : 2,
				len;
	char	   *file = FileBytes(c, j, data + skip, size - skip, &len);
	size_t		max_line = MaxLine(c, j);
	int			fd = FuzzTempFile("pb_fuzz_text");
	ReadRun		full,
				stopped;

	FuzzWriteFile(fd, file, len);
	ReadAll(fd, max_line, INT_MAX, !NO_EWKB(c), &full);
	CheckAgainstLines(&full, file, len, max_line, !NO_EWKB(c));
	/* a stop after the last read would change nothing */
	if (STOP_AFTER(c) < full.ev[full.nev - 1].polls)
	{
		ReadAll(fd, max_line, STOP_AFTER(c), !NO_EWKB(c), &stopped);
		CheckStopped(&stopped, &full, STOP_AFTER(c));
		FreeRun(&stopped);
	}
	FreeRun(&full);
	return 0;
}
