/*
 * match_sets.h: two polygon sets paired by the SCCG pipeline and matched
 * by the core (core/geom/match.h), shared by the instance-metric functions
 * (match_stats.c, match_keyed.c, tile_agreement.c).
 */
#ifndef PB_MATCH_SETS_H
#define PB_MATCH_SETS_H

#include "core/geom/match_codec.h"
#include "core/geom/pb_geom.h"
#include "pixelbox.h"

/* The two sets as the core sees them: objects numbered within their set. */
typedef struct PbMatchSets
{
	const PbBatch *batch;
	uint32	   *shape_of[2];	/* [true 0 / pred 1][object]: its batch shape */
	double	   *area[2];
	uint32		n[2];
	const int64 *ids;			/* read from tables: per batch shape */
	const bool *id_null;
	/* the pairs as the pipeline gives them, then renumbered */
	PbMatchPair *pairs;
	size_t		npairs,
				cap;
	PbMatchInput in;			/* what PbMatch was given (PbMatchSetPair) */
} PbMatchSets;

/* The IoU threshold argument, checked: in [0, 1]. */
extern double PbCheckIoUThreshold(double threshold, const char *caller);

/*
 * Pair the sets of s, number each set's objects into ms, and compute the
 * metrics into st (and objs, when given) at threshold, with the WARNING
 * of PbWarnOvercovered; PbMatchSetParts computes their parts, unwarned.
 */
extern void PbMatchSetPair(SetsState *s, PbMatchSets *ms, double threshold, PbMatchStats *st,
						   PbMatchObjects *objs, const char *caller);
extern void PbMatchSetParts(SetsState *s, PbMatchSets *ms, double threshold,
							PbMatchParts *parts, PbMatchObjects *objs, const char *caller);
extern void PbWarnOvercovered(const PbMatchStats *st, const char *caller);

/* match_stats.c: the pb_match_stats_result row of st (threshold NULL without one). */
extern Datum PbMatchStatsDatum(FunctionCallInfo fcinfo, const PbMatchStats *st,
							   bool has_threshold);

/*
 * match_state.c: pb_match_state, the partial state of the keyed
 * pb_match_stats: its threshold (none before a row), the parts summed
 * over the keys it matched, and those keys as sorted ranges.
 */
typedef struct PbMatchTotals
{
	bool		has_threshold;
	double		threshold;
	PbMatchParts parts;
	PbKeyRange *ranges;
	uint32		nranges;
} PbMatchTotals;
extern Size PbMatchStateFlatSize(uint32 nranges);
extern Size PbMatchStateFlatten(const PbMatchTotals *t, uint8 *out);
extern void PbMatchStateRead(const uint8 *in, Size len, PbMatchTotals *t, MemoryContext cxt);

/*
 * Read the tables of arguments 0-5 (table_a, id_a, geom_a, table_b, ...)
 * in memory context cxt and match them: ms, st and objs (its arrays
 * allocated in cxt) filled as PbMatchSetPair does.
 */
extern void PbMatchTables(FunctionCallInfo fcinfo, MemoryContext cxt, double threshold,
						  const char *caller, PbMatchSets *ms, PbMatchStats *st,
						  PbMatchObjects *objs);

#endif							/* PB_MATCH_SETS_H */
