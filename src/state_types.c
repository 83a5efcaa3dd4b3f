/*
 * state_types.c: pb_comparison_state and pb_set_comparison_state, the
 * transition types of the comparison aggregates that split into partial
 * aggregates (parallel workers, Citus workers).
 *
 * The aggregates keep their states expanded (compare_agg.c,
 * tile_compare.c); the flat form is a version byte and the exact totals
 * (state_codec.h), plus, for the keyed pb_compare_sets, its polygon
 * counts and the keys it compared.  The text form, which Citus uses to
 * ship a worker's partial state to the coordinator, is the flat bytes in
 * hex.  Reading either checks every byte: a state is never trusted.  The
 * hex text and the error of a bad state serve pb_match_state too
 * (match_state.c).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "pixelbox.h"

#define STATE_VERSION 1			/* first byte of every flat state */

/* Raise the error of a malformed state of type what. */
void
PbBadState(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid %s", what),
			 errdetail("Partial states are read only by the pixelbox version that wrote them, "
					   "which must be the same on every node.")));
}

/* Write acc as a flat pb_comparison_state's bytes; their count. */
Size
PbComparisonStateFlatten(const PbCompareAcc *acc, uint8 *out)
{
	out[0] = STATE_VERSION;
	return 1 + PbCompareAccEncode(acc, out + 1);
}

/* Read a flat pb_comparison_state's len bytes into acc (raises if bad). */
void
PbComparisonStateRead(const uint8 *in, Size len, PbCompareAcc *acc)
{
	if (len < 1 || in[0] != STATE_VERSION ||
		PbCompareAccDecode(in + 1, len - 1, acc) != len - 1)
		PbBadState("pb_comparison_state");
}

/* Bytes of a flat pb_set_comparison_state with nranges key ranges. */
Size
PbSetStateFlatSize(uint32 nranges)
{
	return 1 + PB_ACC_CODE_MAX + 4 * 8 + 4 + 16 * (Size) nranges;
}

/* Write t as a flat pb_set_comparison_state's bytes; their count. */
Size
PbSetStateFlatten(const PbSetTotals *t, uint8 *out)
{
	Size		k = PbComparisonStateFlatten(&t->acc, out);

	for (int i = 0; i < 4; i++, k += 8)
		PbPutI64(out + k, t->counts[i]);
	return k + PbKeyRangesEncode(t->ranges, t->nranges, out + k);
}

/*
 * Read a flat pb_set_comparison_state's len bytes into t, its key ranges
 * allocated in cxt (raises if bad: counts must be possible, missed
 * polygons no more than polygons).
 */
void
PbSetStateRead(const uint8 *in, Size len, PbSetTotals *t, MemoryContext cxt)
{
	Size		k;

	if (len < 1 || in[0] != STATE_VERSION)
		PbBadState("pb_set_comparison_state");
	k = PbCompareAccDecode(in + 1, len - 1, &t->acc);
	if (k == 0 || len - 1 - k < 4 * 8)
		PbBadState("pb_set_comparison_state");
	k += 1;
	for (int i = 0; i < 4; i++, k += 8)
		t->counts[i] = PbGetI64(in + k);
	if (t->counts[0] < 0 || t->counts[1] < 0 || t->counts[2] < 0 || t->counts[3] < 0 ||
		t->counts[2] > t->counts[0] || t->counts[3] > t->counts[1])
		PbBadState("pb_set_comparison_state");
	PbReadKeyRanges(in + k, len - k, cxt, &t->ranges, &t->nranges, "pb_set_comparison_state");
}

/*
 * Read the key ranges that end a flat state of type what (exactly its
 * last len bytes) into *ranges, allocated in cxt, and their count into
 * *nranges; raises if bad.
 */
void
PbReadKeyRanges(const uint8 *in, Size len, MemoryContext cxt, PbKeyRange **ranges,
				uint32 *nranges, const char *what)
{
	uint32		n = 0;

	if (PbKeyRangesDecode(in, len, NULL, 0, &n) != len)
		PbBadState(what);
	*ranges = MemoryContextAlloc(cxt, sizeof(PbKeyRange) * Max(n, 1));
	if (PbKeyRangesDecode(in, len, *ranges, n, nranges) != len)
		PbBadState(what);
}

/* The flat bytes of text in hex (what the output functions write). */
bytea *
PbStateFromHex(const char *text, const char *what)
{
	size_t		len = strlen(text);
	bytea	   *v;

	if (len % 2 != 0)
		PbBadState(what);
	v = palloc(VARHDRSZ + len / 2);
	SET_VARSIZE(v, VARHDRSZ + hex_decode(text, len, VARDATA(v)));
	return v;
}

PG_FUNCTION_INFO_V1(pb_comparison_state_in);
/* pb_comparison_state from its text: hex of the flat bytes, checked. */
Datum
pb_comparison_state_in(PG_FUNCTION_ARGS)
{
	bytea	   *v = PbStateFromHex(PG_GETARG_CSTRING(0), "pb_comparison_state");
	PbCompareAcc acc;

	PbComparisonStateRead((const uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, &acc);
	PG_RETURN_BYTEA_P(v);
}


PG_FUNCTION_INFO_V1(pb_set_comparison_state_in);
/* pb_set_comparison_state from its text: hex of the flat bytes, checked. */
Datum
pb_set_comparison_state_in(PG_FUNCTION_ARGS)
{
	bytea	   *v = PbStateFromHex(PG_GETARG_CSTRING(0), "pb_set_comparison_state");
	PbSetTotals t;

	PbSetStateRead((const uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, &t, CurrentMemoryContext);
	pfree(t.ranges);
	PG_RETURN_BYTEA_P(v);
}

PG_FUNCTION_INFO_V1(pb_agg_state_out);
/*
 * The text of any of the partial state types (pb_comparison_state,
 * pb_set_comparison_state, pb_match_state): the hex of its flat bytes; an
 * expanded state is flattened first, which finishes its pending work.
 */
Datum
pb_agg_state_out(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	Size		len = VARSIZE_ANY_EXHDR(v);
	char	   *out = palloc(2 * len + 1);

	out[hex_encode(VARDATA_ANY(v), len, out)] = '\0';
	PG_RETURN_CSTRING(out);
}
