/*
 * copy_rows.c: COPY text rows, buffered (see copy_rows.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_rows.h"

#define FLUSH_BYTES ((size_t) 1 << 20)	/* hand rows to the sink in ~1 MiB */

/* Start an empty buffer writing to sink. */
void
PbCopyInit(PbCopyRows *r, PbLoadSink sink, void *sink_arg)
{
	memset(r, 0, sizeof(*r));
	r->sink = sink;
	r->sink_arg = sink_arg;
}

/* Make room for n more bytes (exit on no memory: a command-line tool). */
static char *
Room(PbCopyRows *r, size_t n)
{
	if (r->len + n > r->cap)
	{
		size_t		cap = r->cap ? r->cap : FLUSH_BYTES + 4096;

		while (cap < r->len + n)
			cap *= 2;
		if ((r->buf = realloc(r->buf, cap)) == NULL)
		{
			fputs("pb_load: out of memory\n", stderr);
			exit(1);
		}
		r->cap = cap;
	}
	return r->buf + r->len;
}

/* Start the next field: a tab after the first. */
static void
NextField(PbCopyRows *r)
{
	if (r->fields++ > 0)
		*Room(r, 1) = '\t', r->len++;
}

/* A text field, escaped as COPY wants it. */
void
PbCopyText(PbCopyRows *r, const char *s, size_t len)
{
	NextField(r);
	for (size_t i = 0; i < len; i++)
	{
		char		c = s[i],
				   *p = Room(r, 2);

		switch (c)
		{
			case '\\':
			case '\t':
			case '\n':
			case '\r':
				p[0] = '\\';
				p[1] = c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
				r->len += 2;
				break;
			default:
				p[0] = c;
				r->len++;
		}
	}
}

/* An integer field. */
void
PbCopyInt(PbCopyRows *r, int64_t v)
{
	char		s[32];

	PbCopyText(r, s, (size_t) snprintf(s, sizeof(s), "%lld", (long long) v));
}

/* A float8 field, printed so that it reads back bit for bit. */
void
PbCopyFloat(PbCopyRows *r, double v)
{
	char		s[40];

	PbCopyText(r, s, (size_t) snprintf(s, sizeof(s), "%.17g", v));
}

/* A NULL field. */
void
PbCopyNull(PbCopyRows *r)
{
	NextField(r);
	memcpy(Room(r, 2), "\\N", 2);
	r->len += 2;
}

/* Bytes as hex (a geometry as hex EWKB, which PostGIS's input reads). */
void
PbCopyHex(PbCopyRows *r, const uint8_t *data, size_t len)
{
	static const char digits[] = "0123456789ABCDEF";
	char	   *p;

	NextField(r);
	p = Room(r, 2 * len);
	for (size_t i = 0; i < len; i++)
	{
		p[2 * i] = digits[data[i] >> 4];
		p[2 * i + 1] = digits[data[i] & 15];
	}
	r->len += 2 * len;
}

/* End the row; hand the buffer to the sink when it is big enough. */
int
PbCopyEndRow(PbCopyRows *r)
{
	*Room(r, 1) = '\n';
	r->len++;
	r->fields = 0;
	r->row_start = r->len;
	if (r->len < FLUSH_BYTES)
		return 0;
	return PbCopyFinish(r) ? -1 : 0;
}

/* Hand every whole row to the sink (keeping the buffer for more). */
int
PbCopyFinish(PbCopyRows *r)
{
	int			rc = r->row_start > 0 ? r->sink(r->sink_arg, r->buf, r->row_start) : 0;

	memmove(r->buf, r->buf + r->row_start, r->len - r->row_start);
	r->len -= r->row_start;
	r->row_start = 0;
	return rc;
}

/* Free the buffer. */
void
PbCopyFree(PbCopyRows *r)
{
	free(r->buf);
	r->buf = NULL;
	r->len = r->cap = r->row_start = 0;
}
