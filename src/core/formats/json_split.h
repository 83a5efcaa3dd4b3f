/*
 * json_split.h: a JSON file of many records (a GeoJSON FeatureCollection,
 * a bare array of features, HoVer-Net's "nuc" object) split into its
 * records without building a tree of the whole file.
 *
 * The file is read in chunks of PB_JSON_CHUNK bytes, poll asked before
 * every read, through the descriptor checks of the text reader (regular
 * files only; text_reader.h).  A byte-level scanner follows strings,
 * escapes and nesting (at most PB_JSON_MAX_DEPTH levels, brackets matched)
 * and hands out each record's bytes: a feature of the "features" array (or
 * of the top-level array), or a member "id": {...} of the "nuc" object.
 * The records are parsed later, one by one (json_reader.h).  The other
 * members of the top-level object ("type", "mag", "crs", ...) are parsed
 * here with json-c, so a file is valid JSON throughout; a top-level "type"
 * must be "FeatureCollection" for GeoJSON.  The buffer holds one record
 * (at most max_element bytes) plus a chunk.
 */
#ifndef PB_JSON_SPLIT_H
#define PB_JSON_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"

/* Bytes read at a time (the splitter polls between reads). */
#define PB_JSON_CHUNK ((size_t) 65536)

/* The largest record the readers take (64 MiB: ~3 million vertices). */
#define PB_JSON_MAX_ELEMENT ((size_t) 64 << 20)

/* The deepest nesting of arrays and objects in a file. */
#define PB_JSON_MAX_DEPTH 64

/* Which records a file holds (asked for, and found). */
typedef enum PbJsonLayout
{
	PB_JSON_ANY = 0,			/* asked: whichever the file holds */
	PB_JSON_FEATURES,			/* GeoJSON: the features */
	PB_JSON_NUCLEI				/* HoVer-Net: the members of "nuc" */
} PbJsonLayout;

/* One record of the file. */
typedef struct PbJsonElement
{
	const char *data;			/* its bytes (NULL at the end of the file) */
	size_t		len;			/* a feature: the value; a nucleus: "id": value */
	int64_t		number;			/* 1-based, in file order */
	int64_t		offset;			/* of its first byte in the file */
	int64_t		line;			/* of its first byte (1-based) */
} PbJsonElement;

/* A file being split. */
typedef struct PbJsonSplit
{
	int			fd;
	size_t		max_element;
	const PbAllocator *mem;
	PbPollFn	poll;			/* asked before every read; may be NULL */
	void	   *poll_arg;
	PbJsonLayout want,			/* asked for */
				layout;			/* found (PB_JSON_ANY: not yet) */
	char	   *buf;
	size_t		cap,
				start,			/* first byte still needed */
				pos,			/* next byte to scan */
				fill,			/* bytes in buf */
				counted;		/* newlines counted before this byte */
	int64_t		base;			/* file offset of buf[0] */
	int64_t		line;			/* line of buf[counted] */
	int			eof,
				state,
				key,			/* the top-level member being read */
				top_is_array,
				type_seen;		/* a top-level "type" was read */
	char		type_name[24];	/* its value (cut) */
	int64_t		elements;		/* records handed out */
	/* the value being scanned */
	int			depth,
				in_string,
				escape,
				scalar;
	uint64_t	arrays;			/* bit d: nesting level d + 1 is an array */
	size_t		vstart,			/* its first byte */
				estart;			/* first byte of the record being read */
	/* where an error is */
	int64_t		err_offset,
				err_line;
	int			io_errno;		/* nonzero: fstat or read failed with it */
} PbJsonSplit;

/*
 * Start splitting the open descriptor fd (not closed by the splitter) for
 * the records want asks for.  Fails like PbFileBegin (not a regular file,
 * fstat failed); the splitter then holds nothing.
 */
extern PbStatus PbJsonSplitBegin(PbJsonSplit *s, int fd, PbJsonLayout want,
								 size_t max_element, const PbAllocator *mem,
								 PbPollFn poll, void *poll_arg, PbError *err);

/*
 * The next record (*e, its bytes valid until the next call), or e->data
 * NULL after the last one.  Errors: PB_ERR_FORMAT for bytes that are not
 * the JSON of such a file (err_offset and err_line say where; the message
 * says what), a record over max_element bytes or nesting over
 * PB_JSON_MAX_DEPTH, or a failed read (io_errno set); PB_ERR_STOPPED when
 * poll said stop.
 */
extern PbStatus PbJsonSplitNext(PbJsonSplit *s, PbJsonElement *e, PbError *err);

/* Newlines in data[0 .. len): lines an error inside a record lies below its first. */
extern int64_t PbJsonCountLines(const char *data, size_t len);

/* Release the buffer (not the descriptor). */
extern void PbJsonSplitEnd(PbJsonSplit *s);

#endif							/* PB_JSON_SPLIT_H */
