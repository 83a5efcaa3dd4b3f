/*
 * fuzz_geojson.c: the harness of the JSON file readers (json_reader.h,
 * behind pb_read_geojson, pb_read_hovernet and pb_compare_files).  The
 * input is written to a temporary regular file and read to its end or
 * its first error:
 *
 *   - every record with a geometry holds EWKB that PbDecodeEwkb takes,
 *     into a well-formed shape; numbers count up from 1 in file order;
 *   - an error has a message, and a line within the file's lines;
 *   - the same file read on 3 threads gives the same records (count,
 *     ids, EWKB bytes) and the same outcome: threads change no answer;
 *   - a stop asked before read k + 1 is PB_ERR_STOPPED, never a shorter
 *     silent success.
 *
 * Input: byte 0 chooses (bits 0-1) the layout asked (any, features,
 * nuclei), (bit 2) nucleusGeometry, (bit 3) HoVer-Net contours as
 * written, (bits 4-6) the read a stop comes before; the rest is the file.
 */
#define _DEFAULT_SOURCE			/* mkstemp */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/core/formats/json_reader.h"
#include "fuzz.h"

/* What reading the file gave. */
typedef struct Outcome
{
	PbStatus	st;
	int64_t		records,
				err_line;
	uint64_t	hash;			/* of the records' ids and EWKB */
	char		message[sizeof(((PbError *) 0)->message)];
} Outcome;

/* FNV-1a over bytes, continuing h. */
static uint64_t
Hash(uint64_t h, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/* A poll that says stop from call stop_after + 1 on. */
static int
StopAfter(void *arg)
{
	int		   *left = arg;

	return (*left)-- <= 0;
}

/* Read the file from its start with threads threads; check every record. */
static void
ReadAll(int fd, PbJsonLayout want, const PbJsonOptions *opt, int threads,
		int stop_after, Outcome *out)
{
	PbRun		run = {threads, 0, StopAfter, &stop_after};
	PbJsonReader rd;
	PbError		err;
	PbBatch		b;

	memset(out, 0, sizeof(*out));
	out->hash = 1469598103934665603ULL;
	FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0, "cannot rewind the temporary file");
	PbBatchInit(&b, &PbMallocAllocator);
	out->st = PbJsonReaderBegin(&rd, fd, want, opt, &PbMallocAllocator, &run, &err);
	FUZZ_CHECK(out->st == PB_OK, "a regular file refused: %s", err.message);
	for (;;)
	{
		PbJsonRecord *recs;
		uint32_t	n;

		out->st = PbJsonReaderNext(&rd, &recs, &n, &err);
		if (out->st != PB_OK || n == 0)
			break;
		for (uint32_t i = 0; i < n; i++)
		{
			FUZZ_CHECK(recs[i].number == out->records + 1, "record %lld numbered %lld",
					   (long long) out->records + 1, (long long) recs[i].number);
			out->records++;
			if (recs[i].id != NULL)
				out->hash = Hash(out->hash, recs[i].id, strlen(recs[i].id) + 1);
			if (recs[i].has_geom)
			{
				FuzzBatchMark mark = FuzzMark(&b);
				uint32_t	shape;
				PbStatus	st = PbDecodeEwkb(&b, recs[i].geom.data, recs[i].geom.len,
											  &shape, &err);

				FUZZ_CHECK(st == PB_OK, "record %lld: its EWKB does not decode: %s",
						   (long long) out->records, err.message);
				FuzzCheckDecoded(&b, &mark, st, shape, &err);
				out->hash = Hash(out->hash, recs[i].geom.data, recs[i].geom.len);
			}
		}
		PbBatchReset(&b);
	}
	if (out->st != PB_OK)
	{
		FUZZ_CHECK(err.message[0] != '\0', "error %d without a message", (int) out->st);
		FUZZ_CHECK(out->st == PB_ERR_STOPPED || rd.err_line >= 1, "error at line %lld: %s",
				   (long long) rd.err_line, err.message);
		out->err_line = rd.err_line;
		memcpy(out->message, err.message, sizeof(out->message));
	}
	PbJsonReaderEnd(&rd);
	PbBatchFree(&b);
}

/* One input: see the top of the file. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		c = size > 0 ? data[0] : 0;
	PbJsonLayout want = (PbJsonLayout) ((c & 3) % 3);
	PbJsonOptions opt = {(c >> 2) & 1, (c >> 3) & 1};
	int			fd = FuzzTempFile("pb_fuzz_json");
	size_t		len = size > 0 ? size - 1 : 0;
	Outcome		one,
				three,
				stopped;

	FuzzWriteFile(fd, data + 1, len);
	ReadAll(fd, want, &opt, 1, INT_MAX, &one);
	ReadAll(fd, want, &opt, 3, INT_MAX, &three);
	FUZZ_CHECK(one.st == three.st && one.records == three.records && one.hash == three.hash &&
			   one.err_line == three.err_line && strcmp(one.message, three.message) == 0,
			   "1 thread: status %d, %lld records (%s); 3 threads: status %d, %lld records (%s)",
			   (int) one.st, (long long) one.records, one.message, (int) three.st,
			   (long long) three.records, three.message);
	/* reads: one per chunk and one that finds the end */
	if ((int) ((c >> 4) & 7) < (int) (len / PB_JSON_CHUNK) + 1)
	{
		ReadAll(fd, want, &opt, 1, (c >> 4) & 7, &stopped);
		FUZZ_CHECK(stopped.st == PB_ERR_STOPPED || (stopped.st == one.st && one.st != PB_OK),
				   "a stop before read %d gave status %d, %lld records",
				   (c >> 4) & 7, (int) stopped.st, (long long) stopped.records);
	}
	return 0;
}
