/*
 * match_sets.h: two polygon sets paired by the SCCG pipeline and matched
 * by the core (core/geom/match.h), shared by the instance-metric functions
 * (match_stats.c, tile_agreement.c).
 */
#ifndef PB_MATCH_SETS_H
#define PB_MATCH_SETS_H

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
 * metrics into st (and objs, when given) at threshold.
 */
extern void PbMatchSetPair(SetsState *s, PbMatchSets *ms, double threshold, PbMatchStats *st,
						   PbMatchObjects *objs, const char *caller);

/*
 * Read the tables of arguments 0-5 (table_a, id_a, geom_a, table_b, ...)
 * in memory context cxt and match them: ms, st and objs (its arrays
 * allocated in cxt) filled as PbMatchSetPair does.
 */
extern void PbMatchTables(FunctionCallInfo fcinfo, MemoryContext cxt, double threshold,
						  const char *caller, PbMatchSets *ms, PbMatchStats *st,
						  PbMatchObjects *objs);

#endif							/* PB_MATCH_SETS_H */
