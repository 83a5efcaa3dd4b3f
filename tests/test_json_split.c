/*
 * test_json_split.c: the splitter of JSON files (json_split.h): the
 * records of a FeatureCollection, of a bare array and of HoVer-Net's "nuc"
 * object, wherever the reads' chunk borders fall (strings holding
 * brackets, escaped quotes and backslashes, nesting); every error at its
 * byte and line with its message; the poll asked before every read and
 * obeyed; files that are not regular refused.
 */
#define _DEFAULT_SOURCE			/* mkdtemp */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/core/formats/json_split.h"
#include "testutil.h"

/* The records of the documents below, in order. */
static const char *const records[] = {
	"{\"type\": \"Feature\", \"s\": \"]}[{\\\"\\\\\", \"a\": [[1, 2], [3, [4]]]}",
	"{}",
	"{\"k\": \"\\\\\\\"}\\\\\", \"n\": {\"m\": [{\"x\": \"\\u005d\"}]}}",
	"\"a string ]\"",
	"-12.5e3",
	"[\n1,\n2\n]"
};
#define NREC ((int) (sizeof(records) / sizeof(records[0])))

/* The bytes of a document: before, the records joined with ",\n ", after. */
static char *
Document(const char *before, const char *after, size_t *offsets)
{
	size_t		cap = 4096,
				len = 0;
	char	   *doc = malloc(cap);

	len += (size_t) sprintf(doc, "%s", before);
	for (int i = 0; i < NREC; i++)
	{
		if (i > 0)
			len += (size_t) sprintf(doc + len, ",\n ");
		offsets[i] = len;
		len += (size_t) sprintf(doc + len, "%s", records[i]);
	}
	sprintf(doc + len, "%s", after);
	return doc;
}

/* Open path and start a splitter on it; returns the fd. */
static int
OpenSplit(const char *path, PbJsonLayout want, size_t max_element, PbPollFn poll,
		  void *arg, PbJsonSplit *s, PbStatus *st, PbError *err)
{
	int			fd = open(path, O_RDONLY | O_NONBLOCK);

	CHECK(fd >= 0);
	*st = PbJsonSplitBegin(s, fd, want, max_element, &PbMallocAllocator, poll, arg, err);
	return fd;
}

/* Split a file of pad spaces and doc; check every record and the end. */
static void
CheckSplit(const char *dir, const char *doc, size_t pad, PbJsonLayout want,
		   PbJsonLayout found, const size_t *offsets, int nucleus_keys)
{
	size_t		dlen = strlen(doc);
	char	   *bytes = malloc(pad + dlen);
	char	   *path;
	PbJsonSplit s;
	PbJsonElement e;
	PbError		err;
	PbStatus	st;
	int			fd;

	memset(bytes, ' ', pad);
	memcpy(bytes + pad, doc, dlen);
	path = TestWriteFile(dir, "split.json", bytes, pad + dlen);
	fd = OpenSplit(path, want, PB_JSON_MAX_ELEMENT, NULL, NULL, &s, &st, &err);
	CHECK_INT(st, PB_OK);
	for (int i = 0; i < NREC && st == PB_OK; i++)
	{
		char		key[32];
		size_t		klen = 0;

		if (nucleus_keys)
			klen = (size_t) sprintf(key, "\"n%d\" : ", i);
		st = PbJsonSplitNext(&s, &e, &err);
		CHECK_INT(st, PB_OK);
		if (st != PB_OK || e.data == NULL)
		{
			pb_check_fail(__FILE__, __LINE__, "record %d missing: %s", i, err.message);
			break;
		}
		CHECK_INT(e.number, i + 1);
		CHECK_INT(e.offset, (int64_t) (pad + offsets[i] - klen));
		CHECK_INT(e.line, 1 + PbJsonCountLines(doc, offsets[i]));
		CHECK(e.len == strlen(records[i]) + klen &&
			  memcmp(e.data + klen, records[i], strlen(records[i])) == 0 &&
			  memcmp(e.data, key, klen) == 0);
	}
	st = PbJsonSplitNext(&s, &e, &err);
	CHECK_INT(st, PB_OK);
	CHECK(e.data == NULL);
	CHECK_INT(s.layout, found);
	PbJsonSplitEnd(&s);
	close(fd);
	unlink(path);
	free(path);
	free(bytes);
}

/*
 * Every record wherever a chunk border falls: the document is moved over
 * the first border byte by byte (spaces before it).
 */
void
test_json_split_every_border(void)
{
	char		dir[] = "/tmp/pb_json_split_XXXXXX";
	size_t		offsets[NREC],
				boff[NREC],
				noff[NREC];
	char	   *fc = Document("{\"type\": \"FeatureCollection\", \"name\": \"x\\\"]\",\n \"features\": [",
							  "],\n\"crs\": {\"a\": [1, {\"b\": null}]}}\n", offsets);
	char	   *bare = Document("[", "]", boff);
	char		nuc[4096];
	size_t		nlen;

	CHECK(mkdtemp(dir) != NULL);
	/* HoVer-Net: "nuc": {"n0" : record, ...} */
	nlen = (size_t) sprintf(nuc, "{\"mag\": 40, \"nuc\": {");
	for (int i = 0; i < NREC; i++)
	{
		nlen += (size_t) sprintf(nuc + nlen, "%s\"n%d\" : ", i ? ",\n " : "", i);
		noff[i] = nlen;
		nlen += (size_t) sprintf(nuc + nlen, "%s", records[i]);
	}
	sprintf(nuc + nlen, "}}");
	for (size_t k = 0; k <= strlen(fc) + 1; k++)
	{
		size_t		pad = PB_JSON_CHUNK - k;

		pb_test_context("FeatureCollection, border at byte %zu", k);
		CheckSplit(dir, fc, pad, PB_JSON_FEATURES, PB_JSON_FEATURES, offsets, 0);
		if (k % 7 == 0)
			CheckSplit(dir, fc, pad, PB_JSON_ANY, PB_JSON_FEATURES, offsets, 0);
	}
	for (size_t k = 0; k <= strlen(bare) + 1; k++)
	{
		pb_test_context("bare array, border at byte %zu", k);
		CheckSplit(dir, bare, PB_JSON_CHUNK - k, PB_JSON_FEATURES, PB_JSON_FEATURES, boff, 0);
	}
	for (size_t k = 0; k <= strlen(nuc) + 1; k++)
	{
		pb_test_context("nuc, border at byte %zu", k);
		CheckSplit(dir, nuc, PB_JSON_CHUNK - k, k % 2 ? PB_JSON_NUCLEI : PB_JSON_ANY,
				   PB_JSON_NUCLEI, noff, 1);
	}
	pb_test_context("%s", "");
	free(fc);
	free(bare);
	rmdir(dir);
}

/* An error case: a document, what is asked, and where and what the error is. */
typedef struct SplitCase
{
	const char *doc;
	PbJsonLayout want;
	int			records;		/* records before the error */
	int64_t		offset,
				line;
	const char *message;
} SplitCase;

/* Every error of the splitter, at its byte and line. */
void
test_json_split_errors(void)
{
	static const SplitCase cases[] = {
		{"", PB_JSON_FEATURES, 0, 0, 1, "an empty file, not a GeoJSON FeatureCollection or an array of features"},
		{"  \n 42", PB_JSON_FEATURES, 0, 4, 2, "'4', not a GeoJSON FeatureCollection or an array of features"},
		{"[1]", PB_JSON_NUCLEI, 0, 0, 1, "a JSON array, not a HoVer-Net file (an object with a \"nuc\" object)"},
		{"{\"type\": \"FeatureCollection\"}", PB_JSON_FEATURES, 0, 28, 1, "no \"features\" array, not a GeoJSON FeatureCollection"},
		{"{\"type\": \"Feature\", \"geometry\": null}", PB_JSON_FEATURES, 0, 36, 1, "a GeoJSON Feature, not a FeatureCollection"},
		{"{\"mag\": 40}", PB_JSON_NUCLEI, 0, 10, 1, "no \"nuc\" object, not a HoVer-Net file"},
		{"{\"a\": 1}", PB_JSON_ANY, 0, 7, 1, "neither a \"features\" array nor a \"nuc\" object"},
		{"{\"type\": \"Feat\", \"features\": []}", PB_JSON_FEATURES, 0, 31, 1, "the top-level \"type\" is \"Feat\", not \"FeatureCollection\""},
		{"{\"features\": {}}", PB_JSON_FEATURES, 0, 13, 1, "\"features\" is not an array"},
		{"{\"nuc\": []}", PB_JSON_NUCLEI, 0, 8, 1, "\"nuc\" is not an object"},
		{"{\"nuc\": {5: {}}}", PB_JSON_NUCLEI, 0, 9, 1, "expected a nucleus id (a string) in \"nuc\", found '5'"},
		{"{\"nuc\": {\"5\" {}}}", PB_JSON_NUCLEI, 0, 13, 1, "expected ':' after a nucleus id, found '{'"},
		{"{\"mag\": 4x, \"nuc\": {}}", PB_JSON_NUCLEI, 0, 9, 1, "not JSON: "},
		{"{\"mag\" 4}", PB_JSON_NUCLEI, 0, 7, 1, "expected ':' after a member name, found '4'"},
		{"{\"mag\": 4 \"nuc\": {}}", PB_JSON_NUCLEI, 0, 10, 1, "expected ',' or '}' after a member of the top-level object, found '\"'"},
		{"{4: 1}", PB_JSON_NUCLEI, 0, 1, 1, "expected a member name in the top-level object, found '4'"},
		{"[{\"a\": 1}", PB_JSON_FEATURES, 1, 9, 1, "the file ends inside the JSON value"},
		{"[{\"a\": \"x]}]", PB_JSON_FEATURES, 0, 12, 1, "the file ends inside a feature"},
		{"[{\"a\": 1}]\n x", PB_JSON_FEATURES, 1, 12, 2, "'x' after the end of the JSON value"},
		{"[{\"a\": 1},]", PB_JSON_FEATURES, 1, 10, 1, "']' after ',' (a trailing comma)"},
		{"[{\"a\": 1} {\"b\": 2}]", PB_JSON_FEATURES, 1, 10, 1, "expected ',' or ']' after feature 1, found '{'"},
		{"[{\"a\": [1}]", PB_JSON_FEATURES, 0, 9, 1, "'}' closes an array"},
		{"[{\"a\": {1]}]", PB_JSON_FEATURES, 0, 9, 1, "']' closes an object"},
		{"[,]", PB_JSON_FEATURES, 0, 1, 1, "expected a value, found ','"},
		{"[\n\n{\"a\": \"\x01\"}, 3]\0", PB_JSON_FEATURES, 2, 0, 0, NULL},
	};
	char		dir[] = "/tmp/pb_json_split_XXXXXX";

	CHECK(mkdtemp(dir) != NULL);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		const SplitCase *t = &cases[c];
		char	   *path = TestWriteFile(dir, "bad.json", t->doc, strlen(t->doc));
		PbJsonSplit s;
		PbJsonElement e;
		PbError		err;
		PbStatus	st;
		int			fd = OpenSplit(path, t->want, PB_JSON_MAX_ELEMENT, NULL, NULL, &s, &st, &err);
		int			n = 0;

		pb_test_context("case %zu: %s", c, t->doc);
		while (st == PB_OK)
		{
			st = PbJsonSplitNext(&s, &e, &err);
			if (st != PB_OK || e.data == NULL)
				break;
			n++;
		}
		CHECK_INT(n, t->records);
		if (t->message == NULL)
			CHECK_INT(st, PB_OK);
		else
		{
			CHECK_INT(st, PB_ERR_FORMAT);
			CHECK_STR_HAS(err.message, t->message);
			CHECK_INT(s.err_offset, t->offset);
			CHECK_INT(s.err_line, t->line);
		}
		PbJsonSplitEnd(&s);
		close(fd);
		unlink(path);
		free(path);
	}
	pb_test_context("%s", "");
	rmdir(dir);
}

/* Nesting deeper than the limit, and a record over max_element bytes. */
void
test_json_split_limits(void)
{
	char		dir[] = "/tmp/pb_json_split_XXXXXX";
	size_t		big = 3 * PB_JSON_CHUNK;
	char	   *doc = malloc(big + 64);
	char	   *path;
	PbJsonSplit s;
	PbJsonElement e;
	PbError		err;
	PbStatus	st;
	int			fd;
	size_t		len = 0;

	CHECK(mkdtemp(dir) != NULL);
	/* [[[... 64 levels: the 65th bracket is refused at its byte */
	for (int i = 0; i < PB_JSON_MAX_DEPTH + 1; i++)
		doc[len++] = '[';
	path = TestWriteFile(dir, "deep.json", doc, len);
	fd = OpenSplit(path, PB_JSON_FEATURES, PB_JSON_MAX_ELEMENT, NULL, NULL, &s, &st, &err);
	st = PbJsonSplitNext(&s, &e, &err);
	CHECK_INT(st, PB_ERR_FORMAT);
	CHECK_STR_HAS(err.message, "nesting deeper than 64 levels");
	CHECK_INT(s.err_offset, PB_JSON_MAX_DEPTH);
	PbJsonSplitEnd(&s);
	close(fd);
	free(path);
	/* 64 levels in all are fine */
	len = 0;
	for (int i = 0; i < PB_JSON_MAX_DEPTH; i++)
		doc[len++] = '[';
	for (int i = 0; i < PB_JSON_MAX_DEPTH; i++)
		doc[len++] = ']';
	path = TestWriteFile(dir, "deep.json", doc, len);
	fd = OpenSplit(path, PB_JSON_FEATURES, PB_JSON_MAX_ELEMENT, NULL, NULL, &s, &st, &err);
	st = PbJsonSplitNext(&s, &e, &err);
	CHECK_INT(st, PB_OK);
	CHECK(e.data != NULL && e.len == 2 * PB_JSON_MAX_DEPTH - 2);
	PbJsonSplitEnd(&s);
	close(fd);
	free(path);
	/* a record of 3 chunks with max_element 1 chunk */
	len = (size_t) sprintf(doc, "[{}, \"");
	memset(doc + len, 'x', big);
	len += big;
	len += (size_t) sprintf(doc + len, "\"]");
	path = TestWriteFile(dir, "long.json", doc, len);
	fd = OpenSplit(path, PB_JSON_FEATURES, PB_JSON_CHUNK, NULL, NULL, &s, &st, &err);
	st = PbJsonSplitNext(&s, &e, &err);
	CHECK_INT(st, PB_OK);
	st = PbJsonSplitNext(&s, &e, &err);
	CHECK_INT(st, PB_ERR_FORMAT);
	CHECK_STR_HAS(err.message, "a value of more than 65536 bytes");
	CHECK_INT(s.err_offset, 5);
	CHECK(s.cap <= 3 * PB_JSON_CHUNK);
	PbJsonSplitEnd(&s);
	close(fd);
	unlink(path);
	free(path);
	unlink(strcat(strcpy(doc, dir), "/deep.json"));
	free(doc);
	rmdir(dir);
}

/* A poll that counts its calls and says stop from call stop_after + 1 on. */
typedef struct CountPoll
{
	int			calls,
				stop_after;
} CountPoll;

/* Count; nonzero once stop_after calls have passed. */
static int
CountAndStop(void *arg)
{
	CountPoll  *p = arg;

	return p->calls++ >= p->stop_after;
}

/* One poll per read (the last finds the end); a stop is an error, not an end. */
void
test_json_split_poll(void)
{
	char		dir[] = "/tmp/pb_json_split_XXXXXX";
	size_t		n = 5 * PB_JSON_CHUNK / 2;
	char	   *doc = malloc(n);
	char	   *path;

	CHECK(mkdtemp(dir) != NULL);
	memset(doc, ' ', n);
	doc[0] = '[';
	for (size_t i = 1; i + 8 < n; i += 1000)
		memcpy(doc + i, i > 1 ? ",{}" : " {}", 3);
	doc[n - 1] = ']';
	path = TestWriteFile(dir, "poll.json", doc, n);
	for (int stop = 0; stop <= 4; stop++)
	{
		CountPoll	poll = {0, stop};
		PbJsonSplit s;
		PbJsonElement e;
		PbError		err;
		PbStatus	st;
		int			fd = OpenSplit(path, PB_JSON_FEATURES, PB_JSON_MAX_ELEMENT, CountAndStop,
								   &poll, &s, &st, &err);

		pb_test_context("stop after %d reads", stop);
		do
			st = PbJsonSplitNext(&s, &e, &err);
		while (st == PB_OK && e.data != NULL);
		/* 3 chunks and one read that finds the end */
		CHECK_INT(st, stop < 4 ? PB_ERR_STOPPED : PB_OK);
		CHECK_INT(poll.calls, stop < 4 ? stop + 1 : 4);
		PbJsonSplitEnd(&s);
		close(fd);
	}
	pb_test_context("%s", "");
	unlink(path);
	free(path);
	free(doc);
	rmdir(dir);
}

/* A directory is refused at the start, saying what it is. */
void
test_json_split_not_regular(void)
{
	PbJsonSplit s;
	PbError		err;
	PbStatus	st;
	int			fd = OpenSplit("/tmp", PB_JSON_FEATURES, PB_JSON_MAX_ELEMENT, NULL, NULL,
							   &s, &st, &err);

	CHECK_INT(st, PB_ERR_UNSUPPORTED);
	CHECK_STR_HAS(err.message, "not a regular file (a directory)");
	CHECK(s.buf == NULL);
	close(fd);
}
