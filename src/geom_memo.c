/*
 * geom_memo.c: decode a large geometry that an aggregate meets in many
 * rows once per batch.
 *
 * In a nested-loop join a merged blob of a thousand vertices meets a
 * hundred nuclei, so its value comes back in a hundred rows, often not
 * one after the other (the blob on the inner side).  Detoasting and
 * decoding it for each of them was most of what jaccard_gpu cost over the
 * join itself.  A memo per argument maps the values decoded into the
 * batch being filled to their shapes, and a pair whose value is there
 * reuses the shape.  Only values that are costly to get at are memoized:
 * one stored out of line is known by its TOAST pointer (same relation,
 * same value id: its bytes are not even fetched), a compressed inline one
 * by its compressed bytes (a hash of their first bytes and length, a hit
 * checked byte for byte against a copy, so nothing is decompressed).
 * Plain inline values (under ~2 KB, a hundred vertices) decode faster
 * than they would hash: only the last one is kept, a copy of its bytes,
 * and a row carrying the same bytes (the outer side of a nested loop
 * repeats its value for each inner row) reuses its shape; other values
 * differ from it within their first bytes (size, box).  The memo belongs
 * to one fill of one batch (serial): a batch computed and emptied starts
 * a new serial, and the memo starts empty.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "common/hashfn.h"
#include "utils/memutils.h"

#include "pixelbox.h"

/* Bytes of a compressed value hashed for its identity. */
#define MEMO_HASH_BYTES 64

/* One memoized value: its identity, and its shape in the batch. */
typedef struct MemoEntry
{
	uint64		id;				/* TOAST pointer, or hash of compressed bytes */
	uint32		len;			/* 0: TOAST pointer; else bytes at arena + at */
	uint32		at;
	uint32		shape;
	char		status;			/* simplehash's */
} MemoEntry;

#define SH_PREFIX memo
#define SH_ELEMENT_TYPE MemoEntry
#define SH_KEY_TYPE uint64
#define SH_KEY id
#define SH_HASH_KEY(tb, key) murmurhash32((uint32) ((key) ^ ((key) >> 32)))
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* Start the memo of fill serial: empty. */
static void
MemoStart(PbGeomMemo *memo, uint64 serial, MemoryContext cxt)
{
	if (memo->map == NULL)
		memo->map = memo_create(cxt, 256, NULL);
	else
		memo_reset(memo->map);
	memo->arena_len = 0;
	memo->serial = serial;
}

/* Copy the len bytes of v into the arena; their offset. */
static uint32
ArenaKeep(PbGeomMemo *memo, const void *v, Size len, MemoryContext cxt)
{
	uint32		at = (uint32) memo->arena_len;

	if (memo->arena_len + len > memo->arena_cap)
	{
		Size		cap = Max(memo->arena_cap * 2, memo->arena_len + len + 65536);

		memo->arena = memo->arena ? repalloc_huge(memo->arena, cap)
			: MemoryContextAllocHuge(cxt, cap);
		memo->arena_cap = cap;
	}
	memcpy(memo->arena + at, v, len);
	memo->arena_len += len;
	return at;
}

/*
 * Shape index in batch of plain inline value v, argument argno of fcinfo:
 * the last such value's shape when v has the same bytes and that shape is
 * in this fill (serial), else a new shape, whose bytes are kept in its
 * stead.
 */
static uint32
DecodeInline(FunctionCallInfo fcinfo, int argno, const struct varlena *v, PbBatch *batch,
			 uint64 serial, PbGeomMemo *memo, MemoryContext cxt, const char *caller)
{
	Size		len = VARSIZE_ANY(v);
	uint32		shape;

	if (memo->last_serial == serial && memo->last_len == len && memcmp(memo->last, v, len) == 0)
		return memo->last_shape;
	shape = PbDecodeGeometryArg(fcinfo, argno, batch, caller);
	if (len > memo->last_cap)
	{
		if (memo->last)
			pfree(memo->last);
		memo->last_cap = Max(len, 4096);
		memo->last = MemoryContextAlloc(cxt, memo->last_cap);
	}
	memcpy(memo->last, v, len);
	memo->last_len = len;
	memo->last_shape = shape;
	memo->last_serial = serial;
	return shape;
}

/*
 * Shape index in batch of geometry argument argno of fcinfo: a memoized
 * value's shape when it was decoded into this fill (serial) of the batch,
 * else a new shape (PbDecodeGeometryArg), memoized when the value is
 * stored out of line or compressed, kept as the last one when it is plain
 * inline.
 */
uint32
PbDecodeGeometryArgMemo(FunctionCallInfo fcinfo, int argno, PbBatch *batch, uint64 serial,
						PbGeomMemo *memo, MemoryContext cxt, const char *caller)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	uint64		id;
	uint32		len = 0;
	MemoEntry  *e;
	bool		found;
	uint32		shape;

	if (VARATT_IS_EXTERNAL_ONDISK(v))
	{
		struct varatt_external ext;

		VARATT_EXTERNAL_GET_POINTER(ext, v);
		id = ((uint64) ext.va_toastrelid << 32) | ext.va_valueid;
	}
	else if (VARATT_IS_COMPRESSED(v) && VARSIZE(v) < PG_UINT32_MAX / 2)
	{
		/* the first bytes (header, the box's) tell values apart; a hit is checked in full */
		len = VARSIZE(v);
		id = hash_bytes_extended((const unsigned char *) v, (int) Min(len, MEMO_HASH_BYTES), len);
	}
	else if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
		return DecodeInline(fcinfo, argno, v, batch, serial, memo, cxt, caller);
	else
		return PbDecodeGeometryArg(fcinfo, argno, batch, caller);
	if (memo->serial != serial)
		MemoStart(memo, serial, cxt);
	e = memo_lookup(memo->map, id);
	if (e != NULL)
	{
		if (e->len == len && (len == 0 || memcmp(memo->arena + e->at, v, len) == 0))
			return e->shape;
		/* a hash shared with another value: decode, keep the first */
		return PbDecodeGeometryArg(fcinfo, argno, batch, caller);
	}
	shape = PbDecodeGeometryArg(fcinfo, argno, batch, caller);
	e = memo_insert(memo->map, id, &found);
	e->len = len;
	e->at = len ? ArenaKeep(memo, v, len, cxt) : 0;
	e->shape = shape;
	return shape;
}
