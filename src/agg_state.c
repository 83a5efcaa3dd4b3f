/*
 * agg_state.c: expanded aggregate states that split into partials
 * (agg_state.h says what and why).
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "agg_state.h"

/* The flat form's size: the kind finishes what is pending and writes it. */
static Size
FlatSize(ExpandedObjectHeader *eohptr)
{
	PbAggStateHeader *s = (PbAggStateHeader *) eohptr;

	if (s->flat)
		pfree(s->flat);
	s->flat = s->kind->flatten(s, &s->flat_len);
	return VARHDRSZ + s->flat_len;
}

/* Copy the flat form FlatSize made. */
static void
Flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	PbAggStateHeader *s = (PbAggStateHeader *) eohptr;

	Assert(allocated_size == VARHDRSZ + s->flat_len);
	memcpy(VARDATA(result), s->flat, s->flat_len);
	SET_VARSIZE(result, allocated_size);
}

static const ExpandedObjectMethods Methods = {FlatSize, Flatten};

/*
 * An empty state of kind: an expanded object in its own context under the
 * aggregate's (aggcxt), which PostgreSQL keeps as the transition value.
 */
PbAggStateHeader *
PbAggStateNew(FunctionCallInfo fcinfo, MemoryContext aggcxt, const PbAggStateKind *kind)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "pixelbox aggregate state",
											  ALLOCSET_DEFAULT_SIZES);
	PbAggStateHeader *s;

	MemoryContextSetIdentifier(cxt, kind->name);
	s = MemoryContextAllocZero(cxt, kind->size);

	EOH_init_header(&s->eoh, &Methods, cxt);
	s->kind = kind;
	kind->init(s, fcinfo);
	return s;
}

/*
 * State argument argno of an aggregate support function fn: the expanded
 * state itself, or a new one holding a flat state's totals; NULL for NULL.
 * The aggregate's context goes to *aggcxt.
 */
static PbAggStateHeader *
StateArgIn(FunctionCallInfo fcinfo, int argno, const PbAggStateKind *kind, const char *fn,
		   MemoryContext *aggcxt)
{
	PbAggStateHeader *s;
	struct varlena *v;

	if (!AggCheckCallContext(fcinfo, aggcxt))
		elog(ERROR, "%s called in non-aggregate context", fn);
	if (PG_ARGISNULL(argno))
		return NULL;
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(argno))))
		return (PbAggStateHeader *) DatumGetEOHP(PG_GETARG_DATUM(argno));
	s = PbAggStateNew(fcinfo, *aggcxt, kind);
	v = PG_DETOAST_DATUM(PG_GETARG_DATUM(argno));
	kind->read(s, (const uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ);
	return s;
}

/* State argument argno of support function fn (StateArgIn's). */
PbAggStateHeader *
PbAggStateArg(FunctionCallInfo fcinfo, int argno, const PbAggStateKind *kind, const char *fn)
{
	MemoryContext aggcxt;

	return StateArgIn(fcinfo, argno, kind, fn, &aggcxt);
}

/*
 * The state a transition function fn of kind updates: its first argument,
 * or a new state on the aggregate's first row; *aggcxt, when not NULL,
 * gets the aggregate's context.
 */
PbAggStateHeader *
PbAggStateTransition(FunctionCallInfo fcinfo, const PbAggStateKind *kind, const char *fn,
					 MemoryContext *aggcxt)
{
	MemoryContext cxt;
	PbAggStateHeader *s = StateArgIn(fcinfo, 0, kind, fn, &cxt);

	if (aggcxt)
		*aggcxt = cxt;
	return s ? s : PbAggStateNew(fcinfo, cxt, kind);
}

/*
 * The combine function fn of kind: add the second state's totals to the
 * first (parallel workers' states in the leader, Citus workers' on the
 * coordinator).  A state read here from a flat one is freed after.
 */
Datum
PbAggStateCombine(FunctionCallInfo fcinfo, const PbAggStateKind *kind, const char *fn)
{
	MemoryContext aggcxt;
	PbAggStateHeader *s1 = StateArgIn(fcinfo, 0, kind, fn, &aggcxt),
			   *s2 = StateArgIn(fcinfo, 1, kind, fn, &aggcxt);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PbAggStateDatum(s1));
	}
	if (s1 == NULL)
		s1 = PbAggStateNew(fcinfo, aggcxt, kind);
	kind->add(s1, s2);
	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(1))))
		DeleteExpandedObject(PbAggStateDatum(s2));
	PG_RETURN_DATUM(PbAggStateDatum(s1));
}

/*
 * Add the sorted key ranges add[0..nadd) to *into (*n of them), the result
 * allocated in cxt; raises, naming caller and what the key's polygons
 * needed ("compared", "matched"), when a key is in both: that key's
 * polygons were split over two partial aggregates.
 */
void
PbAddKeyRanges(PbKeyRange **into, uint32 *n, const PbKeyRange *add, uint32 nadd,
			   MemoryContext cxt, const char *caller, const char *what)
{
	PbKeyRange *ranges = MemoryContextAlloc(cxt, sizeof(PbKeyRange) * Max(1, *n + nadd));
	uint32		m = 0;
	int64_t		clash = 0;

	if (PbKeyRangesMerge(*into, *n, add, nadd, ranges, &m, &clash) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: key " INT64_FORMAT " occurs in more than one partial aggregate",
						caller, (int64) clash),
				 errdetail("Polygons of one key must meet in one partial aggregate to be %s; "
						   "here they were split (Citus shards not distributed by the key).", what),
				 errhint("Distribute both tables by the key column, co-located, or GROUP BY the distribution column.")));
	if (*into)
		pfree(*into);
	*into = ranges;
	*n = m;
}
