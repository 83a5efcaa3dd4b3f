/*
 * match_keyed.c: pb_match_stats(geom, in_a, iou_threshold, key), the
 * instance metrics where only polygons of the same key are paired and
 * matched (each key an independent matching: a slide, say), with the
 * figures computed from the sums over keys of their additive parts
 * (core/geom/match.h's PbMatchParts): counts, the matched IoUs, AJI's and
 * AJI+'s intersections and unions, |A∩B|, |A| and |B|.  With one key it is
 * pb_match_stats over the same rows, bit for bit.
 *
 * Rows are decoded into their key's set pair (set_compare.c's SetsState,
 * one per key, found through a hash table, so many small keys cost each
 * their own rows only).  When the state is flattened or finished, each key
 * is paired by the SCCG pipeline and matched, in key order, its parts
 * added, and its memory freed.  Rows with a NULL geometry, set or key take
 * no part (the threshold is still checked).
 *
 * The state is a pb_match_state, an expanded object.  Flattened (Citus
 * ships it from each worker to the coordinator as text) it holds the
 * threshold, the summed parts and the ranges of keys matched; the combine
 * function adds two states with the same threshold and no key in common,
 * and raises otherwise, since a key split between two partials was never
 * matched whole.  So partials are exact when the key is the tables'
 * distribution column, and the aggregate never pulls polygons to a Citus
 * coordinator.  PostgreSQL's parallel workers would split a key's rows,
 * so the aggregate is PARALLEL RESTRICTED.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "agg_state.h"
#include "match_sets.h"

#define STATS "pb_match_stats"

/* One key: its polygons, in their own memory. */
typedef struct KeyEntry
{
	int64		key;
	MemoryContext cxt;
	SetsState  *sets;
} KeyEntry;

/* Transition state, an expanded object. */
typedef struct KeyedMatch
{
	PbAggStateHeader head;		/* first: the expanded pb_match_state */
	MemoryContext cxt;			/* the live keys' memory, under the object's */
	HTAB	   *keys;			/* the live keys; NULL: none */
	KeyEntry   *open;			/* the key of the last row */
	PbMatchTotals done;			/* threshold, the matched keys' parts and ranges */
} KeyedMatch;

static void FinishKeys(KeyedMatch *s);
static void AddTotals(PbMatchTotals *into, const PbMatchTotals *t, MemoryContext cxt);

/* Set up an empty state: no keys, no threshold yet. */
static void
StateInit(PbAggStateHeader *head, FunctionCallInfo fcinfo)
{
	PbMatchPartsInit(&((KeyedMatch *) head)->done.parts);
}

/* The flat form: the live keys matched, the threshold, parts and keys. */
static uint8 *
StateFlatten(PbAggStateHeader *head, Size *len)
{
	KeyedMatch *s = (KeyedMatch *) head;
	uint8	   *flat;

	FinishKeys(s);
	flat = MemoryContextAlloc(head->eoh.eoh_context, PbMatchStateFlatSize(s->done.nranges));
	*len = PbMatchStateFlatten(&s->done, flat);
	return flat;
}

/* Read a flat state's threshold, parts and keys into an empty state. */
static void
StateRead(PbAggStateHeader *head, const uint8 *flat, Size len)
{
	PbMatchStateRead(flat, len, &((KeyedMatch *) head)->done, head->eoh.eoh_context);
}

/* Match both states' keys and add from's parts to into's. */
static void
StateAdd(PbAggStateHeader *into, PbAggStateHeader *from)
{
	FinishKeys((KeyedMatch *) into);
	FinishKeys((KeyedMatch *) from);
	AddTotals(&((KeyedMatch *) into)->done, &((KeyedMatch *) from)->done, into->eoh.eoh_context);
}

static const PbAggStateKind KeyedKind = {
	"pixelbox keyed match state", sizeof(KeyedMatch),
	StateInit, StateFlatten, StateRead, StateAdd
};

/*
 * Give t the threshold (every row's, and every partial's, must be the
 * same: pb_match_stats' error otherwise).
 */
static void
SetThreshold(PbMatchTotals *t, double threshold)
{
	if (t->has_threshold && t->threshold != threshold)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the IoU threshold must be the same in every row of a group (%g and %g)",
						STATS, t->threshold, threshold)));
	t->threshold = threshold;
	t->has_threshold = true;
}

/* The entry of key, made (with its own small context) when new. */
static KeyEntry *
KeyOf(KeyedMatch *s, int64 key)
{
	KeyEntry   *e;
	bool		found;

	if (s->open != NULL && s->open->key == key)
		return s->open;
	if (s->keys == NULL)
	{
		HASHCTL		ctl;

		s->cxt = AllocSetContextCreate(s->head.eoh.eoh_context, "pixelbox keyed match keys",
									   ALLOCSET_DEFAULT_SIZES);
		ctl.keysize = sizeof(int64);
		ctl.entrysize = sizeof(KeyEntry);
		ctl.hcxt = s->cxt;
		s->keys = hash_create("pb_match_stats keys", 64, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	e = hash_search(s->keys, &key, HASH_ENTER, &found);
	if (!found)
	{
		e->key = key;
		e->cxt = AllocSetContextCreate(s->cxt, "pixelbox keyed match key", ALLOCSET_SMALL_SIZES);
		e->sets = PbSetsCreate(e->cxt);
	}
	s->open = e;
	return e;
}

PG_FUNCTION_INFO_V1(pb_match_keyed_transfn);
/*
 * Check the threshold (argument 3) and decode one row into its key's sets
 * (geometry 1, set 2, key 4); NULL geometry, set or key skips the row.
 */
Datum
pb_match_keyed_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	KeyedMatch *s;
	KeyEntry   *e;
	uint32		shape;

	s = (KeyedMatch *) PbAggStateTransition(fcinfo, &KeyedKind, "pb_match_keyed_transfn", &aggcxt);
	PbProgressRow(STATS, aggcxt);
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: iou_threshold must not be NULL", STATS)));
	SetThreshold(&s->done, PbCheckIoUThreshold(PG_GETARG_FLOAT8(3), STATS));
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(4))
		PG_RETURN_DATUM(PbAggStateDatum(&s->head));
	e = KeyOf(s, PG_GETARG_INT64(4));
	shape = PbDecodeGeometryArg(fcinfo, 1, PbSetsBatch(e->sets), STATS);
	PbSetsAdd(e->sets, shape, PG_GETARG_BOOL(2), STATS);
	PG_RETURN_DATUM(PbAggStateDatum(&s->head));
}

/*
 * Add the totals t (another state's, or the live keys') to into, whose
 * key ranges are reallocated in cxt; raises when the thresholds differ or
 * a key is in both.
 */
static void
AddTotals(PbMatchTotals *into, const PbMatchTotals *t, MemoryContext cxt)
{
	if (t->has_threshold)
		SetThreshold(into, t->threshold);
	PbAddKeyRanges(&into->ranges, &into->nranges, t->ranges, t->nranges, cxt, STATS, "matched");
	PbMatchPartsAdd(&into->parts, &t->parts);
}

/*
 * Match the live keys, in key order, each in its own memory (freed after):
 * their parts and key ranges go to s->done.
 */
static void
FinishKeys(KeyedMatch *s)
{
	PbMatchTotals live;
	HASH_SEQ_STATUS seq;
	KeyEntry   *e;
	int64	   *keys;
	uint32		nkeys = 0;

	if (s->keys == NULL)
		return;
	memset(&live, 0, sizeof(live));
	PbMatchPartsInit(&live.parts);
	keys = MemoryContextAllocHuge(s->cxt, sizeof(int64) * (hash_get_num_entries(s->keys) + 1));
	hash_seq_init(&seq, s->keys);
	while ((e = hash_seq_search(&seq)) != NULL)
		keys[nkeys++] = e->key;
	live.ranges = MemoryContextAllocHuge(s->cxt, sizeof(PbKeyRange) * (nkeys + 1));
	live.nranges = PbKeyRangesOf((int64_t *) keys, nkeys, live.ranges);	/* sorts keys */
	for (uint32 i = 0; i < nkeys; i++)
	{
		PbMatchSets ms;
		PbMatchParts parts;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		e = hash_search(s->keys, &keys[i], HASH_FIND, NULL);
		old = MemoryContextSwitchTo(e->cxt);
		memset(&ms, 0, sizeof(ms));
		PbMatchSetParts(e->sets, &ms, s->done.threshold, &parts, NULL, STATS);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(e->cxt);
		PbMatchPartsAdd(&live.parts, &parts);
	}
	AddTotals(&s->done, &live, s->head.eoh.eoh_context);
	MemoryContextDelete(s->cxt);
	s->cxt = NULL;
	s->keys = NULL;
	s->open = NULL;
}

PG_FUNCTION_INFO_V1(pb_match_keyed_combinefn);
/*
 * Add the second state's parts to the first (Citus workers' states on the
 * coordinator); raises when their thresholds differ or both matched a key.
 */
Datum
pb_match_keyed_combinefn(PG_FUNCTION_ARGS)
{
	return PbAggStateCombine(fcinfo, &KeyedKind, "pb_match_keyed_combinefn");
}

PG_FUNCTION_INFO_V1(pb_match_keyed_finalfn);
/*
 * Match the keys left and return the metrics of the summed parts (one
 * WARNING for objects over-covered in any key); no rows give zeros with a
 * NULL threshold.
 */
Datum
pb_match_keyed_finalfn(PG_FUNCTION_ARGS)
{
	KeyedMatch *s = (KeyedMatch *) PbAggStateArg(fcinfo, 0, &KeyedKind, "pb_match_keyed_finalfn");
	PbMatchStats st;

	memset(&st, 0, sizeof(st));
	if (s == NULL)
		PG_RETURN_DATUM(PbMatchStatsDatum(fcinfo, &st, false));
	FinishKeys(s);
	PbMatchStatsOf(&s->done.parts, s->done.threshold, &st);
	PbWarnOvercovered(&st, STATS);
	PG_RETURN_DATUM(PbMatchStatsDatum(fcinfo, &st, s->done.has_threshold));
}
