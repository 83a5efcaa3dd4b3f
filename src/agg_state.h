/*
 * agg_state.h: the expanded transition states of the aggregates that split
 * into partials (jaccard_gpu and pb_cross_compare, the keyed
 * pb_compare_sets and pb_match_stats).
 *
 * Each such state is a PostgreSQL expanded object in its own memory
 * context under the aggregate's, so the aggregate updates it in place,
 * row after row, and PostgreSQL never copies it.  Its flat form (what a
 * parallel worker sends its leader and, as text, a Citus worker the
 * coordinator) holds only exact totals.  A kind of state says how to make,
 * flatten, read and add states; the argument handling, the flat form and
 * the combine function are written once here.
 */
#ifndef PB_AGG_STATE_H
#define PB_AGG_STATE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "core/geom/pb_geom.h"

typedef struct PbAggStateKind PbAggStateKind;

/* The head of every such state. */
typedef struct PbAggStateHeader
{
	ExpandedObjectHeader eoh;	/* first: the expanded object */
	const PbAggStateKind *kind;
	uint8	   *flat;			/* the flat form's bytes, once asked for */
	Size		flat_len;
} PbAggStateHeader;

/* What a kind of state does. */
struct PbAggStateKind
{
	const char *name;			/* its memory context's identifier */
	Size		size;			/* of the state, PbAggStateHeader first */
	/* set up an empty state (fcinfo: the aggregate's call) */
	void		(*init) (PbAggStateHeader *s, FunctionCallInfo fcinfo);
	/* finish what is pending; the flat form's bytes, in s's context */
	uint8	   *(*flatten) (PbAggStateHeader *s, Size *len);
	/* read a flat form's bytes into an empty state (raises if bad) */
	void		(*read) (PbAggStateHeader *s, const uint8 *flat, Size len);
	/* finish both, add from's totals to into (raises when they cannot) */
	void		(*add) (PbAggStateHeader *into, PbAggStateHeader *from);
};

extern PbAggStateHeader *PbAggStateNew(FunctionCallInfo fcinfo, MemoryContext aggcxt,
									   const PbAggStateKind *kind);
extern PbAggStateHeader *PbAggStateArg(FunctionCallInfo fcinfo, int argno,
									   const PbAggStateKind *kind, const char *fn);
extern PbAggStateHeader *PbAggStateTransition(FunctionCallInfo fcinfo, const PbAggStateKind *kind,
											  const char *fn, MemoryContext *aggcxt);
extern Datum PbAggStateCombine(FunctionCallInfo fcinfo, const PbAggStateKind *kind,
							   const char *fn);
extern void PbAddKeyRanges(PbKeyRange **into, uint32 *n, const PbKeyRange *add, uint32 nadd,
						   MemoryContext cxt, const char *caller, const char *what);

/* The read-write datum of a state, what its functions return. */
#define PbAggStateDatum(s) EOHPGetRWDatum(&(s)->eoh)

#endif							/* PB_AGG_STATE_H */
