/*
 * json_reader.c: the records of a JSON file parsed block by block on
 * threads (see json_reader.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json_geojson.h"
#include "json_hovernet.h"
#include "json_reader.h"

/* One record of the block: where its bytes are and what parsing it gave. */
struct PbJsonItem
{
	size_t		at,
				len;			/* in bytes (a nucleus wrapped in braces) */
	int64_t		offset,			/* of its first byte in the file */
				line;
	PbStatus	status;
	PbError		err;
	size_t		err_at;			/* where the error is, in its own bytes */
	int			out_of_memory;
};

/* Start the splitter and the block's arrays. */
PbStatus
PbJsonReaderBegin(PbJsonReader *r, int fd, PbJsonLayout want,
				  const PbJsonOptions *opt, const PbAllocator *mem,
				  const PbRun *run, PbError *err)
{
	PbStatus	st;

	memset(r, 0, sizeof(*r));
	st = PbJsonSplitBegin(&r->split, fd, want, PB_JSON_MAX_ELEMENT, mem,
						  run->poll, run->poll_arg, err);
	if (st != PB_OK)
		return st;
	r->opt = *opt;
	r->run = *run;
	r->mem = mem;
	r->cap_bytes = PB_JSON_BLOCK_BYTES + 4096;
	r->bytes = mem->alloc(mem->ctx, r->cap_bytes);
	r->items = mem->alloc(mem->ctx, sizeof(PbJsonItem) * PB_JSON_BLOCK_RECORDS);
	r->records = mem->alloc(mem->ctx, sizeof(PbJsonRecord) * PB_JSON_BLOCK_RECORDS);
	return PB_OK;
}

/* Free the records of the last block. */
static void
FreeBlock(PbJsonReader *r)
{
	for (uint32_t i = 0; i < r->nitems; i++)
		PbJsonRecordFree(&r->records[i]);
	r->nitems = 0;
	r->nbytes = 0;
}

/* Copy a record's bytes into the block (a nucleus as the object {"id": ...}). */
static void
AddItem(PbJsonReader *r, const PbJsonElement *e)
{
	int			wrap = r->split.layout == PB_JSON_NUCLEI;
	size_t		need = e->len + 3;
	PbJsonItem *it = &r->items[r->nitems];
	char	   *p;

	if (r->cap_bytes - r->nbytes < need)
	{
		r->cap_bytes = r->nbytes + need + PB_JSON_BLOCK_BYTES;
		r->bytes = r->mem->resize(r->mem->ctx, r->bytes, r->cap_bytes);
	}
	p = r->bytes + r->nbytes;
	if (wrap)
		*p++ = '{';
	memcpy(p, e->data, e->len);
	p += e->len;
	if (wrap)
		*p++ = '}';
	*p++ = '\0';
	memset(it, 0, sizeof(*it));
	it->at = r->nbytes;
	it->len = e->len + (wrap ? 2 : 0);
	it->offset = e->offset;
	it->line = e->line;
	PbJsonRecordInit(&r->records[r->nitems]);
	r->records[r->nitems].number = e->number;
	r->records[r->nitems].line = e->line;
	r->nbytes = (size_t) (p - r->bytes);
	r->nitems++;
}

/*
 * Parse record i's JSON (its numeric arrays by PbNumSubstitute, the rest
 * by json-c) and make it into its record.
 */
static void
ParseRecord(PbJsonReader *r, PbJsonItem *it, PbJsonRecord *rec,
			struct json_tokener *tok, PbNumTree *nums)
{
	const char *data = r->bytes + it->at;
	char	   *copy = malloc(it->len + 1);
	json_object *obj;
	size_t		len,
				bad_at;

	if (copy == NULL)
		PbOutOfMemory();
	if (PbNumSubstitute(nums, data, it->len, copy, &len, &bad_at) != 0)
	{
		free(copy);
		it->status = PB_ERR_FORMAT;
		it->err_at = bad_at;
		snprintf(it->err.message, sizeof(it->err.message),
				 "not JSON: a control character (byte 0x%02x) in a string",
				 (unsigned char) data[bad_at]);
		return;
	}
	obj = json_tokener_parse_ex(tok, copy, (int) len);
	if (obj == NULL && json_tokener_get_error(tok) == json_tokener_continue)
		obj = json_tokener_parse_ex(tok, " ", 1);	/* end a number */
	free(copy);
	if (obj == NULL && json_tokener_get_error(tok) != json_tokener_success)
	{
		size_t		at = PbNumFileOffset(nums, json_tokener_get_parse_end(tok));

		it->status = PB_ERR_FORMAT;
		it->err_at = at < it->len ? at : it->len;
		snprintf(it->err.message, sizeof(it->err.message), "not JSON: %s",
				 json_tokener_error_desc(json_tokener_get_error(tok)));
		return;
	}
	if (r->split.layout == PB_JSON_FEATURES)
		it->status = PbGeoJsonFeature(obj, &r->opt, nums, rec, &it->err);
	else
	{
		json_object_object_foreach(obj, key, val)
			it->status = PbHoverNetNucleus(key, val, &r->opt, nums, rec, &it->err);
	}
	json_object_put(obj);
}

/* One record's parse, for PbRunRecoverable. */
typedef struct ItemParse
{
	PbJsonReader *r;
	int64_t		i;
} ItemParse;

/* Parse record i with a tokener of its own. */
static void
ParseItemBody(void *arg)
{
	ItemParse  *ip = arg;
	struct json_tokener *tok;
	PbNumTree	nums;

	memset(&nums, 0, sizeof(nums));
	tok = json_tokener_new_ex(PB_JSON_MAX_DEPTH);
	if (tok == NULL)
		PbOutOfMemory();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	ParseRecord(ip->r, &ip->r->items[ip->i], &ip->r->records[ip->i], tok, &nums);
	json_tokener_free(tok);
	PbNumFree(&nums);
}

/*
 * Parallel loop body: parse record i, noting running out of memory (its
 * record then is freed by the next block).
 */
static void
ParseItem(void *arg, int64_t i)
{
	ItemParse	ip = {arg, i};

	if (!PbRunRecoverable(ParseItemBody, &ip))
		((PbJsonReader *) arg)->items[i].out_of_memory = 1;
}

/* Set err's message to prefix and message, cut to its size. */
static void
Prefixed(PbError *err, const char *prefix, const char *message)
{
	size_t		cap = sizeof(err->message) - 1,
				a = strlen(prefix),
				b = strlen(message);
	char		buf[sizeof(err->message)];

	if (a > cap)
		a = cap;
	if (b > cap - a)
		b = cap - a;
	memcpy(buf, prefix, a);
	memcpy(buf + a, message, b);
	buf[a + b] = '\0';
	memcpy(err->message, buf, a + b + 1);
}

/* Set err to a record's error, naming the record; return its status. */
static PbStatus
RecordError(PbJsonReader *r, const PbJsonItem *it, const PbJsonRecord *rec,
			PbError *err)
{
	const char *data = r->bytes + it->at;
	int			wrapped = r->split.layout == PB_JSON_NUCLEI;
	size_t		at = it->err_at > 0 && wrapped ? it->err_at - 1 : it->err_at;
	char		name[96],
				prefix[160];

	if (r->split.layout == PB_JSON_NUCLEI && rec->id != NULL)
		snprintf(name, sizeof(name), "nucleus \"%.40s\"", rec->id);
	else
		snprintf(name, sizeof(name), "%s %lld",
				 wrapped ? "nucleus" : "feature", (long long) rec->number);
	r->err_line = it->line + PbJsonCountLines(data + wrapped, at);
	if (it->out_of_memory)
	{
		snprintf(err->message, sizeof(err->message), "out of memory parsing %s", name);
		err->code = PB_ERR_NOMEM;
		return PB_ERR_NOMEM;
	}
	snprintf(prefix, sizeof(prefix), "%s (byte %lld): ", name,
			 (long long) (it->offset + (int64_t) at) + 1);
	Prefixed(err, prefix, it->err.message);
	err->code = PB_ERR_FORMAT;
	return PB_ERR_FORMAT;
}

/* Split a block of records, parse them, give them or the first error. */
PbStatus
PbJsonReaderNext(PbJsonReader *r, PbJsonRecord **records, uint32_t *n,
				 PbError *err)
{
	PbStatus	st;

	*records = r->records;
	*n = 0;
	err->code = PB_OK;
	err->message[0] = '\0';
	FreeBlock(r);
	while (!r->ended && r->nitems < PB_JSON_BLOCK_RECORDS &&
		   r->nbytes < PB_JSON_BLOCK_BYTES)
	{
		PbJsonElement e;

		st = PbJsonSplitNext(&r->split, &e, &r->split_err);
		if (st == PB_ERR_STOPPED)
		{
			*err = r->split_err;
			return st;
		}
		if (st != PB_OK || e.data == NULL)
		{
			r->ended = 1;
			r->split_status = st;
			break;
		}
		AddItem(r, &e);
	}
	if (r->nitems > 0 &&
		PbParallelFor(&r->run, r->nitems, ParseItem, r) == PB_ERR_STOPPED)
	{
		snprintf(err->message, sizeof(err->message), "stopped");
		err->code = PB_ERR_STOPPED;
		return PB_ERR_STOPPED;
	}
	for (uint32_t i = 0; i < r->nitems; i++)
		if (r->items[i].status != PB_OK || r->items[i].out_of_memory)
			return RecordError(r, &r->items[i], &r->records[i], err);
	if (r->nitems == 0 && r->split_status != PB_OK)
	{
		*err = r->split_err;
		r->err_line = r->split.err_line;
		if (r->split_status == PB_ERR_FORMAT && r->split.io_errno == 0)
		{
			char		prefix[32];

			snprintf(prefix, sizeof(prefix), "byte %lld: ", (long long) r->split.err_offset + 1);
			Prefixed(err, prefix, r->split_err.message);
		}
		return r->split_status;
	}
	*n = r->nitems;
	return PB_OK;
}

/* The layout the splitter found. */
PbJsonLayout
PbJsonReaderLayout(const PbJsonReader *r)
{
	return r->split.layout;
}

/* Free the block and the splitter's buffer. */
void
PbJsonReaderEnd(PbJsonReader *r)
{
	if (r->bytes != NULL)
	{
		FreeBlock(r);
		r->mem->release(r->mem->ctx, r->bytes);
		r->mem->release(r->mem->ctx, r->items);
		r->mem->release(r->mem->ctx, r->records);
		r->bytes = NULL;
	}
	/* the splitter's buffer too, also when the block's never came */
	PbJsonSplitEnd(&r->split);
}

