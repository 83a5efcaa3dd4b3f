/*
 * fuzz_text_line.c: the harness of the polygon text parser's in-memory
 * entry point, PbParseTextLine (WKT lines, "id x1 y1 ..." lists, blank and
 * comment lines).  The input is split at '\n'; every line, copied to a
 * buffer of its exact length (so a read past its end is caught), is
 * parsed into one batch, then again with a "\n" after it, which must not
 * change the outcome.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Parse one line of len bytes at text into b and check the outcome. */
static PbStatus
ParseChecked(PbBatch *b, const char *text, size_t len, int64_t *id,
			 int *has_id, uint32_t *shape)
{
	char	   *line = malloc(len ? len : 1);
	FuzzBatchMark mark = FuzzMark(b);
	PbTextLineKind kind;
	PbError		err;
	PbStatus	st;

	memcpy(line, text, len);
	st = PbParseTextLine(b, line, len, &kind, id, has_id, shape, &err);
	free(line);
	if (st == PB_OK && kind == PB_LINE_SKIP)
	{
		FuzzBatchMark now = FuzzMark(b);

		FUZZ_CHECK(memcmp(&now, &mark, sizeof(now)) == 0 && *shape == UINT32_MAX,
				   "a skipped line changed the batch or gave shape %u", *shape);
		return st;
	}
	FUZZ_CHECK(st == PB_OK || *shape == UINT32_MAX, "failed line gave shape %u", *shape);
	FuzzCheckDecoded(b, &mark, st, *shape, &err);
	return st;
}

/* One input: text, one line per '\n'. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	PbBatch		b;
	const char *text = (const char *) data;
	size_t		start = 0;

	PbBatchInit(&b, &PbMallocAllocator);
	FuzzPrefillBatch(&b);
	while (start < size)
	{
		const char *nl = memchr(text + start, '\n', size - start);
		size_t		len = nl ? (size_t) (nl - text) - start : size - start;
		char	   *withnl = malloc(len + 1);
		int64_t		id,
					id2;
		int			has_id,
					has_id2;
		uint32_t	shape,
					shape2;
		PbStatus	st,
					st2;

		st = ParseChecked(&b, text + start, len, &id, &has_id, &shape);
		memcpy(withnl, text + start, len);
		withnl[len] = '\n';
		st2 = ParseChecked(&b, withnl, len + 1, &id2, &has_id2, &shape2);
		free(withnl);
		FUZZ_CHECK(st == st2 && id == id2 && has_id == has_id2 &&
				   (shape == UINT32_MAX) == (shape2 == UINT32_MAX),
				   "a final newline changed the outcome: status %d/%d id %lld/%lld",
				   (int) st, (int) st2, (long long) id, (long long) id2);
		FUZZ_CHECK(shape == UINT32_MAX || FuzzSameShape(&b, shape, &b, shape2),
				   "a final newline changed the shape");
		start += len + 1;
	}
	PbBatchFree(&b);
	return 0;
}
