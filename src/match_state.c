/*
 * match_state.c: pb_match_state, the transition type of the keyed
 * pb_match_stats (match_keyed.c), which splits into partial aggregates
 * one per Citus shard.
 *
 * The flat form is a version byte, whether a threshold was given and
 * that threshold, the metrics' parts summed over the keys matched
 * (core/geom/match_codec.h), and those keys as sorted ranges
 * (state_codec.h).  Its text, which Citus ships from a worker to the
 * coordinator, is the flat bytes in hex, as for the comparison states
 * (state_types.c).  Reading either checks every byte.
 */
#include "postgres.h"

#include "fmgr.h"

#include "match_sets.h"

#define MATCH_STATE_VERSION 1	/* first byte of a flat pb_match_state */
#define HEAD_BYTES 10			/* version, has_threshold, threshold */

/* Bytes of a flat pb_match_state with nranges key ranges. */
Size
PbMatchStateFlatSize(uint32 nranges)
{
	return HEAD_BYTES + PB_MATCH_PARTS_CODE_MAX + 4 + 16 * (Size) nranges;
}

/* Write t as a flat pb_match_state's bytes; their count. */
Size
PbMatchStateFlatten(const PbMatchTotals *t, uint8 *out)
{
	uint64		bits = 0;
	Size		k = HEAD_BYTES;

	if (t->has_threshold)
		memcpy(&bits, &t->threshold, sizeof(bits));
	out[0] = MATCH_STATE_VERSION;
	out[1] = t->has_threshold ? 1 : 0;
	PbPutI64(out + 2, (int64) bits);
	k += PbMatchPartsEncode(&t->parts, out + k);
	return k + PbKeyRangesEncode(t->ranges, t->nranges, out + k);
}

/*
 * Read a flat pb_match_state's len bytes into t, its key ranges allocated
 * in cxt (raises if bad: a threshold in [0, 1], or none and then no
 * keys; possible parts; objects only with keys).
 */
void
PbMatchStateRead(const uint8 *in, Size len, PbMatchTotals *t, MemoryContext cxt)
{
	uint64		bits;
	Size		k;

	if (len < HEAD_BYTES || in[0] != MATCH_STATE_VERSION || in[1] > 1)
		PbBadState("pb_match_state");
	t->has_threshold = in[1] == 1;
	bits = (uint64) PbGetI64(in + 2);
	memcpy(&t->threshold, &bits, sizeof(bits));
	if (t->has_threshold ? !(t->threshold >= 0.0 && t->threshold <= 1.0) : bits != 0)
		PbBadState("pb_match_state");
	k = PbMatchPartsDecode(in + HEAD_BYTES, len - HEAD_BYTES, &t->parts);
	if (k == 0)
		PbBadState("pb_match_state");
	k += HEAD_BYTES;
	PbReadKeyRanges(in + k, len - k, cxt, &t->ranges, &t->nranges, "pb_match_state");
	if ((!t->has_threshold && t->nranges > 0) ||
		(t->nranges == 0 && (t->parts.n_true > 0 || t->parts.n_pred > 0)))
		PbBadState("pb_match_state");
}

PG_FUNCTION_INFO_V1(pb_match_state_in);
/* pb_match_state from its text: hex of the flat bytes, checked. */
Datum
pb_match_state_in(PG_FUNCTION_ARGS)
{
	bytea	   *v = PbStateFromHex(PG_GETARG_CSTRING(0), "pb_match_state");
	PbMatchTotals t;

	PbMatchStateRead((const uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, &t, CurrentMemoryContext);
	pfree(t.ranges);
	PG_RETURN_BYTEA_P(v);
}
