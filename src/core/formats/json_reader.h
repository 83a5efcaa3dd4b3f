/*
 * json_reader.h: the records of a GeoJSON or HoVer-Net JSON file, in file
 * order, block by block: the splitter (json_split.h) cuts the file into
 * records on the calling thread, then the records of a block (a few MiB)
 * are parsed on run->threads threads, each on its own by json-c (depth
 * limited to PB_JSON_MAX_DEPTH) and made into a record
 * (json_geojson.h, json_hovernet.h).
 *
 * The first error in file order stops the reading: a record's error
 * names it ("feature 12 (byte 3456): ..."; a nucleus by its id where it
 * is known), one between records its byte; err_line is the line.  Worker
 * threads call only json-c and the core, on malloc'd memory; the caller's
 * allocator (mem) holds the reader's own buffers, and poll (in run) is
 * asked before every read and between records, on the calling thread.
 */
#ifndef PB_JSON_READER_H
#define PB_JSON_READER_H

#include "json_record.h"
#include "json_split.h"

/* A block holds records of at most this many bytes in all (or one bigger one). */
#define PB_JSON_BLOCK_BYTES ((size_t) 4 << 20)
/* ... and at most this many records. */
#define PB_JSON_BLOCK_RECORDS 8192

typedef struct PbJsonItem PbJsonItem;

/* A file being read. */
typedef struct PbJsonReader
{
	PbJsonSplit split;
	PbJsonOptions opt;
	PbRun		run;
	const PbAllocator *mem;
	char	   *bytes;			/* the block's records, each NUL-terminated */
	size_t		nbytes,
				cap_bytes;
	PbJsonItem *items;
	PbJsonRecord *records;
	uint32_t	nitems;
	int			ended;			/* the splitter reached the end, or an error */
	PbStatus	split_status;	/* its error, given after the block's records */
	PbError		split_err;
	int64_t		err_line;		/* the line of the error returned (1-based) */
} PbJsonReader;

/*
 * Start reading the open descriptor fd (not closed by the reader) for the
 * records want asks for.  Fails like PbJsonSplitBegin.
 */
extern PbStatus PbJsonReaderBegin(PbJsonReader *r, int fd, PbJsonLayout want,
								  const PbJsonOptions *opt, const PbAllocator *mem,
								  const PbRun *run, PbError *err);

/*
 * The next block: *records[0 .. *n), valid until the next call; *n is 0
 * after the last.  Errors: PB_ERR_FORMAT (err_line set; io_errno of the
 * splitter set for a failed read), PB_ERR_NOMEM (a worker ran out of
 * memory), PB_ERR_STOPPED (poll said stop).
 */
extern PbStatus PbJsonReaderNext(PbJsonReader *r, PbJsonRecord **records,
								 uint32_t *n, PbError *err);

/* Which records the file holds (known after the first block). */
extern PbJsonLayout PbJsonReaderLayout(const PbJsonReader *r);

/* Free everything the reader holds (not the descriptor). */
extern void PbJsonReaderEnd(PbJsonReader *r);

#endif							/* PB_JSON_READER_H */
