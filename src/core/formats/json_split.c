/*
 * json_split.c: a JSON file split into its records, read in chunks (see
 * json_split.h).
 *
 * The grammar around the records is a small state machine; each value
 * (a member name, a skipped member, a record) is found by a resumable
 * scan that stops at the end of the buffer and goes on after the next
 * read, so no byte is scanned twice however the chunks fall.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "../geom/text_reader.h"
#include "json_split.h"

/* Where the splitter is in the file's grammar. */
enum
{
	S_TOP,						/* before the top-level value */
	S_KEY_FIRST,				/* in the top object: a member or '}' */
	S_KEY,						/* after ',': a member */
	S_KEY_SCAN,					/* in a member name */
	S_COLON,					/* before ':' */
	S_VALUE,					/* before a member's value */
	S_VALUE_SCAN,				/* in a member's value (not the records) */
	S_AFTER_MEMBER,				/* ',' or '}' */
	S_ELEM_FIRST,				/* in the records' container: a record or its end */
	S_ELEM,						/* after ',': a record */
	S_NKEY_SCAN,				/* in a nucleus id */
	S_NCOLON,					/* before its ':' */
	S_NVALUE,					/* before its value */
	S_ELEM_SCAN,				/* in a record */
	S_AFTER_ELEM,				/* ',' or the container's end */
	S_AFTER_TOP					/* after the top-level value: nothing more */
};

/* The top-level members that matter. */
enum
{
	K_OTHER,
	K_FEATURES,
	K_NUC,
	K_TYPE
};

/* Count newlines in data[0 .. len). */
int64_t
PbJsonCountLines(const char *data, size_t len)
{
	int64_t		n = 0;
	const char *end = data + len;

	while ((data = memchr(data, '\n', (size_t) (end - data))) != NULL)
	{
		n++;
		data++;
	}
	return n;
}

/* Count the lines up to buf[at] (never back). */
static void
CountTo(PbJsonSplit *s, size_t at)
{
	if (at > s->counted)
	{
		s->line += PbJsonCountLines(s->buf + s->counted, at - s->counted);
		s->counted = at;
	}
}

/* Record a format error at buf[at]; return PB_ERR_FORMAT. */
static PbStatus
SplitFail(PbJsonSplit *s, size_t at, PbError *err, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

static PbStatus
SplitFail(PbJsonSplit *s, size_t at, PbError *err, const char *fmt,...)
{
	va_list		ap;

	CountTo(s, at);
	s->err_offset = s->base + (int64_t) at;
	s->err_line = s->line;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	err->code = PB_ERR_FORMAT;
	return PB_ERR_FORMAT;
}

/* What the files asked for are called, for messages. */
static const char *
WantName(PbJsonLayout want)
{
	switch (want)
	{
		case PB_JSON_FEATURES:
			return "a GeoJSON FeatureCollection or an array of features";
		case PB_JSON_NUCLEI:
			return "a HoVer-Net file (an object with a \"nuc\" object)";
		default:
			return "a GeoJSON FeatureCollection, an array of features or a HoVer-Net file";
	}
}

/* A byte for a message: itself when printable, else its code. */
static const char *
ByteName(unsigned char c, char *out, size_t len)
{
	if (c > ' ' && c < 127)
		snprintf(out, len, "'%c'", c);
	else
		snprintf(out, len, "byte 0x%02x", c);
	return out;
}

/* Check fd and set up the buffer. */
PbStatus
PbJsonSplitBegin(PbJsonSplit *s, int fd, PbJsonLayout want, size_t max_element,
				 const PbAllocator *mem, PbPollFn poll, void *poll_arg,
				 PbError *err)
{
	PbStatus	st;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	st = PbFileBegin(fd, &s->io_errno, err);
	if (st != PB_OK)
		return st;
	s->want = want;
	s->max_element = max_element;
	s->mem = mem;
	s->poll = poll;
	s->poll_arg = poll_arg;
	s->line = 1;
	s->state = S_TOP;
	s->cap = 2 * PB_JSON_CHUNK;
	s->buf = mem->alloc(mem->ctx, s->cap);
	return PB_OK;
}

/*
 * Drop the bytes before start (their lines counted), grow the buffer when
 * the value being read needs it, then poll and read one more chunk.
 */
static PbStatus
Refill(PbJsonSplit *s, PbError *err)
{
	size_t		got;
	PbStatus	st;

	if (s->fill - s->start > s->max_element)
		return SplitFail(s, s->start, err,
						 "a value of more than %zu bytes, the most a record may hold",
						 s->max_element);
	CountTo(s, s->start);
	if (s->start > 0)
	{
		memmove(s->buf, s->buf + s->start, s->fill - s->start);
		s->fill -= s->start;
		s->pos -= s->start;
		s->vstart -= s->vstart >= s->start ? s->start : s->vstart;
		s->estart -= s->estart >= s->start ? s->start : s->estart;
		s->counted -= s->start;
		s->base += (int64_t) s->start;
		s->start = 0;
	}
	if (s->cap - s->fill < PB_JSON_CHUNK)
	{
		size_t		cap = 2 * s->cap;

		if (cap > s->max_element + 2 * PB_JSON_CHUNK)
			cap = s->max_element + 2 * PB_JSON_CHUNK;
		if (cap < s->fill + PB_JSON_CHUNK)
			cap = s->fill + PB_JSON_CHUNK;
		s->buf = s->mem->resize(s->mem->ctx, s->buf, cap);
		s->cap = cap;
	}
	st = PbFileRead(s->fd, s->buf + s->fill, PB_JSON_CHUNK, s->poll, s->poll_arg,
					&got, &s->io_errno, err);
	if (st == PB_ERR_FORMAT)
		return SplitFail(s, s->fill, err, "read failed");
	if (st != PB_OK)
		return st;
	if (got == 0)
		s->eof = 1;
	s->fill += got;
	return PB_OK;
}

/*
 * Skip whitespace.  Returns the next byte, or -1 when the buffer ends
 * first.  Unless keep, nothing before it is needed any more.
 */
static int
SkipSpace(PbJsonSplit *s, int keep)
{
	while (s->pos < s->fill)
	{
		unsigned char c = (unsigned char) s->buf[s->pos];

		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			break;
		s->pos++;
	}
	if (!keep)
		s->start = s->pos;
	return s->pos < s->fill ? (unsigned char) s->buf[s->pos] : -1;
}

/* Start scanning the value at pos. */
static void
BeginValue(PbJsonSplit *s)
{
	s->vstart = s->pos;
	s->depth = 0;
	s->in_string = 0;
	s->escape = 0;
	s->scalar = 0;
	s->arrays = 0;
}

/* The bytes that matter to the scanner inside a container. */
static const uint8_t structural[256] = {
	['"'] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1
};

/* Whether c ends a number, true, false or null. */
static inline int
ScalarEnd(unsigned char c)
{
	return c == ',' || c == ']' || c == '}' || c == ':' || c == ' ' ||
		c == '\n' || c == '\r' || c == '\t' || c == '"' || c == '[' || c == '{';
}

/*
 * Scan on through the value begun by BeginValue: 1 at its end (pos just
 * after it), 0 when the buffer ends first (call again after a read), -1
 * for unbalanced brackets or nesting too deep (err set).  At the end of
 * the file a number, true, false or null ends with it.
 */
static int
ScanValue(PbJsonSplit *s, int outer_depth, PbError *err)
{
	const unsigned char *b = (const unsigned char *) s->buf;
	size_t		p = s->pos,
				n = s->fill;

	for (;;)
	{
		if (s->scalar)
		{
			while (p < n && !ScalarEnd(b[p]))
				p++;
			s->pos = p;
			if (p < n || s->eof)
			{
				s->scalar = 0;
				return 1;
			}
			return 0;
		}
		if (s->in_string)
		{
			if (s->escape && p < n)
			{
				s->escape = 0;
				p++;
			}
			while (p < n && b[p] != '"')
			{
				/* an escape takes the next byte, maybe after the next read */
				if (b[p] == '\\' && ++p == n)
				{
					s->escape = 1;
					break;
				}
				p++;
			}
			if (p >= n)
			{
				s->pos = n;
				return 0;
			}
			p++;
			s->in_string = 0;
			if (s->depth == 0)
			{
				s->pos = p;
				return 1;
			}
		}
		while (p < n)
		{
			unsigned char c = b[p];

			/* inside a container most bytes are none of "[]{} */
			if (s->depth > 0 && !structural[c])
			{
				p++;
				continue;
			}
			if (c == '"')
			{
				s->in_string = 1;
				p++;
				break;
			}
			if (c == '[' || c == '{')
			{
				if (outer_depth + s->depth >= PB_JSON_MAX_DEPTH)
					return SplitFail(s, p, err, "nesting deeper than %d levels",
									 PB_JSON_MAX_DEPTH), -1;
				if (c == '[')
					s->arrays |= (uint64_t) 1 << s->depth;
				else
					s->arrays &= ~((uint64_t) 1 << s->depth);
				s->depth++;
				p++;
				continue;
			}
			if (c == ']' || c == '}')
			{
				int			is_array;

				if (s->depth == 0)
					return SplitFail(s, p, err, "expected a value, found '%c'", c), -1;
				is_array = (s->arrays >> (s->depth - 1)) & 1;
				if (is_array != (c == ']'))
					return SplitFail(s, p, err, "'%c' closes %s", c,
									 is_array ? "an array" : "an object"), -1;
				s->depth--;
				p++;
				if (s->depth == 0)
				{
					s->pos = p;
					return 1;
				}
				continue;
			}
			if (s->depth == 0)
			{
				if (c == ',' || c == ':')
					return SplitFail(s, p, err, "expected a value, found '%c'", c), -1;
				s->scalar = 1;
				break;
			}
			p++;
		}
		if (p >= n && !s->in_string && !s->scalar)
		{
			s->pos = p;
			return 0;
		}
	}
}

/*
 * Parse a skipped top-level member's value with json-c (it must be JSON
 * too) and note the value of "type".
 */
static PbStatus
CheckMember(PbJsonSplit *s, PbError *err)
{
	struct json_tokener *tok = json_tokener_new_ex(PB_JSON_MAX_DEPTH);
	const char *v = s->buf + s->vstart;
	size_t		len = s->pos - s->vstart;
	json_object *obj;
	PbStatus	st = PB_OK;

	if (tok == NULL)
	{
		snprintf(err->message, sizeof(err->message), "out of memory for the JSON parser");
		err->code = PB_ERR_NOMEM;
		return PB_ERR_NOMEM;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, v, (int) len);
	if (obj == NULL && json_tokener_get_error(tok) == json_tokener_continue)
		obj = json_tokener_parse_ex(tok, " ", 1);	/* end a number */
	if (obj == NULL && json_tokener_get_error(tok) != json_tokener_success)
	{
		size_t		at = json_tokener_get_parse_end(tok);

		st = SplitFail(s, s->vstart + (at < len ? at : len), err, "not JSON: %s",
					   json_tokener_error_desc(json_tokener_get_error(tok)));
	}
	else if (s->key == K_TYPE)
	{
		s->type_seen = 1;
		snprintf(s->type_name, sizeof(s->type_name), "%s",
				 json_object_is_type(obj, json_type_string) ?
				 json_object_get_string(obj) : "(not a string)");
	}
	json_object_put(obj);
	json_tokener_free(tok);
	return st;
}

/* Which top-level member the name just scanned is. */
static int
KeyKind(const PbJsonSplit *s)
{
	const char *k = s->buf + s->vstart;
	size_t		len = s->pos - s->vstart;

	if (len == 10 && memcmp(k, "\"features\"", 10) == 0)
		return K_FEATURES;
	if (len == 5 && memcmp(k, "\"nuc\"", 5) == 0)
		return K_NUC;
	if (len == 6 && memcmp(k, "\"type\"", 6) == 0)
		return K_TYPE;
	return K_OTHER;
}

/*
 * The top-level object ended at buf[at]: it must have held the records,
 * and a GeoJSON one must not say it is something else.
 */
static PbStatus
CheckTopEnd(PbJsonSplit *s, size_t at, PbError *err)
{
	if (s->layout == PB_JSON_ANY)
	{
		if (s->want != PB_JSON_NUCLEI && s->type_seen &&
			strcmp(s->type_name, "FeatureCollection") != 0)
			return SplitFail(s, at, err,
							 "a GeoJSON %s, not a FeatureCollection: pixelbox reads %s",
							 s->type_name, WantName(s->want));
		return SplitFail(s, at, err, "%s, not %s",
						 s->want == PB_JSON_FEATURES ? "no \"features\" array" :
						 s->want == PB_JSON_NUCLEI ? "no \"nuc\" object" :
						 "neither a \"features\" array nor a \"nuc\" object",
						 WantName(s->want));
	}
	if (s->layout == PB_JSON_FEATURES && s->type_seen &&
		strcmp(s->type_name, "FeatureCollection") != 0)
		return SplitFail(s, at, err,
						 "the top-level \"type\" is \"%s\", not \"FeatureCollection\"",
						 s->type_name);
	return PB_OK;
}

/* The name of the records, for messages. */
static const char *
ElemName(const PbJsonSplit *s)
{
	return s->layout == PB_JSON_NUCLEI ? "nucleus" : "feature";
}

/* The next record, or the end (see json_split.h). */
PbStatus
PbJsonSplitNext(PbJsonSplit *s, PbJsonElement *e, PbError *err)
{
	char		what[16];
	int			c,
				r;

	memset(e, 0, sizeof(*e));
	err->code = PB_OK;
	err->message[0] = '\0';
	for (;;)
	{
		PbStatus	st;

		switch (s->state)
		{
			case S_TOP:
				c = SkipSpace(s, 0);
				if (c == '[')
				{
					if (s->want == PB_JSON_NUCLEI)
						return SplitFail(s, s->pos, err, "a JSON array, not %s",
										 WantName(s->want));
					s->layout = PB_JSON_FEATURES;
					s->top_is_array = 1;
					s->pos++;
					s->state = S_ELEM_FIRST;
					continue;
				}
				if (c == '{')
				{
					s->pos++;
					s->state = S_KEY_FIRST;
					continue;
				}
				if (c >= 0)
					return SplitFail(s, s->pos, err, "%s, not %s",
									 ByteName((unsigned char) c, what, sizeof(what)),
									 WantName(s->want));
				if (s->eof)
					return SplitFail(s, s->pos, err, "an empty file, not %s",
									 WantName(s->want));
				break;
			case S_KEY_FIRST:
			case S_KEY:
				c = SkipSpace(s, 0);
				if (c == '}' && s->state == S_KEY_FIRST)
				{
					if ((st = CheckTopEnd(s, s->pos, err)) != PB_OK)
						return st;
					s->pos++;
					s->state = S_AFTER_TOP;
					continue;
				}
				if (c == '"')
				{
					BeginValue(s);
					s->state = S_KEY_SCAN;
					continue;
				}
				if (c >= 0)
					return SplitFail(s, s->pos, err,
									 "expected a member name in the top-level object, found %s",
									 ByteName((unsigned char) c, what, sizeof(what)));
				break;
			case S_KEY_SCAN:
				s->start = s->vstart;
				if ((r = ScanValue(s, 1, err)) < 0)
					return PB_ERR_FORMAT;
				if (r == 0)
					break;
				s->key = KeyKind(s);
				s->state = S_COLON;
				continue;
			case S_COLON:
				c = SkipSpace(s, 0);
				if (c == ':')
				{
					s->pos++;
					s->state = S_VALUE;
					continue;
				}
				if (c >= 0)
					return SplitFail(s, s->pos, err,
									 "expected ':' after a member name, found %s",
									 ByteName((unsigned char) c, what, sizeof(what)));
				break;
			case S_VALUE:
				c = SkipSpace(s, 0);
				if (c < 0)
					break;
				if (s->layout == PB_JSON_ANY &&
					((s->key == K_FEATURES && s->want != PB_JSON_NUCLEI) ||
					 (s->key == K_NUC && s->want != PB_JSON_FEATURES)))
				{
					int			features = s->key == K_FEATURES;

					if (c != (features ? '[' : '{'))
						return SplitFail(s, s->pos, err, "\"%s\" is not %s",
										 features ? "features" : "nuc",
										 features ? "an array" : "an object");
					s->layout = features ? PB_JSON_FEATURES : PB_JSON_NUCLEI;
					s->pos++;
					s->state = S_ELEM_FIRST;
					continue;
				}
				BeginValue(s);
				s->state = S_VALUE_SCAN;
				continue;
			case S_VALUE_SCAN:
				s->start = s->vstart;
				if ((r = ScanValue(s, 1, err)) < 0)
					return PB_ERR_FORMAT;
				if (r == 0)
					break;
				if ((st = CheckMember(s, err)) != PB_OK)
					return st;
				s->state = S_AFTER_MEMBER;
				continue;
			case S_AFTER_MEMBER:
				c = SkipSpace(s, 0);
				if (c == ',')
				{
					s->pos++;
					s->state = S_KEY;
					continue;
				}
				if (c == '}')
				{
					if ((st = CheckTopEnd(s, s->pos, err)) != PB_OK)
						return st;
					s->pos++;
					s->state = S_AFTER_TOP;
					continue;
				}
				if (c >= 0)
					return SplitFail(s, s->pos, err,
									 "expected ',' or '}' after a member of the top-level object, found %s",
									 ByteName((unsigned char) c, what, sizeof(what)));
				break;
			case S_ELEM_FIRST:
			case S_ELEM:
				c = SkipSpace(s, 0);
				if (c < 0)
					break;
				if (c == (s->layout == PB_JSON_NUCLEI ? '}' : ']'))
				{
					if (s->state == S_ELEM)
						return SplitFail(s, s->pos, err, "'%c' after ',' (a trailing comma)", c);
					s->pos++;
					s->state = s->top_is_array ? S_AFTER_TOP : S_AFTER_MEMBER;
					continue;
				}
				s->estart = s->pos;
				BeginValue(s);
				if (s->layout == PB_JSON_NUCLEI)
				{
					if (c != '"')
						return SplitFail(s, s->pos, err,
										 "expected a nucleus id (a string) in \"nuc\", found %s",
										 ByteName((unsigned char) c, what, sizeof(what)));
					s->state = S_NKEY_SCAN;
				}
				else
					s->state = S_ELEM_SCAN;
				continue;
			case S_NKEY_SCAN:
				s->start = s->estart;
				if ((r = ScanValue(s, 2, err)) < 0)
					return PB_ERR_FORMAT;
				if (r == 0)
					break;
				s->state = S_NCOLON;
				continue;
			case S_NCOLON:
				c = SkipSpace(s, 1);
				if (c == ':')
				{
					s->pos++;
					s->state = S_NVALUE;
					continue;
				}
				if (c >= 0)
					return SplitFail(s, s->pos, err,
									 "expected ':' after a nucleus id, found %s",
									 ByteName((unsigned char) c, what, sizeof(what)));
				break;
			case S_NVALUE:
				c = SkipSpace(s, 1);
				if (c < 0)
					break;
				BeginValue(s);
				s->state = S_ELEM_SCAN;
				continue;
			case S_ELEM_SCAN:
				s->start = s->estart;
				if ((r = ScanValue(s, s->top_is_array ? 1 : 2, err)) < 0)
					return PB_ERR_FORMAT;
				if (r == 0)
					break;
				CountTo(s, s->estart);
				e->data = s->buf + s->estart;
				e->len = s->pos - s->estart;
				e->number = ++s->elements;
				e->offset = s->base + (int64_t) s->estart;
				e->line = s->line;
				s->state = S_AFTER_ELEM;
				return PB_OK;
			case S_AFTER_ELEM:
				c = SkipSpace(s, 0);
				if (c == ',')
				{
					s->pos++;
					s->state = S_ELEM;
					continue;
				}
				if (c == (s->layout == PB_JSON_NUCLEI ? '}' : ']'))
				{
					s->pos++;
					s->state = s->top_is_array ? S_AFTER_TOP : S_AFTER_MEMBER;
					continue;
				}
				if (c >= 0)
					return SplitFail(s, s->pos, err, "expected ',' or '%c' after %s %lld, found %s",
									 s->layout == PB_JSON_NUCLEI ? '}' : ']', ElemName(s),
									 (long long) s->elements,
									 ByteName((unsigned char) c, what, sizeof(what)));
				break;
			case S_AFTER_TOP:
				c = SkipSpace(s, 0);
				if (c >= 0)
					return SplitFail(s, s->pos, err,
									 "%s after the end of the JSON value",
									 ByteName((unsigned char) c, what, sizeof(what)));
				if (s->eof)
					return PB_OK;
				break;
		}
		/* the buffer ended inside the state: read on */
		if (s->eof)
			return SplitFail(s, s->fill, err, "the file ends inside %s",
							 s->state == S_ELEM_SCAN || s->state == S_NKEY_SCAN ||
							 s->state == S_NCOLON || s->state == S_NVALUE ?
							 (s->layout == PB_JSON_NUCLEI ? "a nucleus" : "a feature") :
							 "the JSON value");
		if ((st = Refill(s, err)) != PB_OK)
			return st;
	}
}

/* Free the buffer. */
void
PbJsonSplitEnd(PbJsonSplit *s)
{
	if (s->buf != NULL)
		s->mem->release(s->mem->ctx, s->buf);
	s->buf = NULL;
}
