/*
 * citus_guard.c: the aggregates whose polygons must all meet in one
 * backend (pb_compare_sets without a key, pb_match_stats) refuse to run
 * on a Citus coordinator over rows pulled from the workers.
 *
 * Citus splits an aggregate into partials on the workers only when it has
 * a combine function over a concrete state type; these two cannot have
 * one (a polygon in one shard may overlap a polygon in another), so Citus
 * would silently copy every polygon of every shard to the coordinator and
 * compute there.  The guard looks, once per state, at the plan feeding
 * the aggregate: a Citus custom scan under it means rows pulled from
 * workers.  Grouped by the distribution column, the whole aggregate runs
 * on the workers instead and never meets the guard.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"

#include "pixelbox.h"

bool		pb_allow_coordinator_pull = false;

/* Whether the plan under ps reads rows through a Citus custom scan. */
static bool
ReadsFromCitus(PlanState *ps)
{
	if (ps == NULL)
		return false;
	check_stack_depth();
	if (IsA(ps, CustomScanState))
	{
		const CustomScan *cs = (const CustomScan *) ps->plan;

		if (cs->methods && strncmp(cs->methods->CustomName, "Citus", 5) == 0)
			return true;
	}
	if (IsA(ps, AppendState))
	{
		AppendState *as = (AppendState *) ps;

		for (int i = 0; i < as->as_nplans; i++)
			if (ReadsFromCitus(as->appendplans[i]))
				return true;
	}
	if (IsA(ps, MergeAppendState))
	{
		MergeAppendState *ms = (MergeAppendState *) ps;

		for (int i = 0; i < ms->ms_nplans; i++)
			if (ReadsFromCitus(ms->mergeplans[i]))
				return true;
	}
	if (IsA(ps, SubqueryScanState) &&
		ReadsFromCitus(((SubqueryScanState *) ps)->subplan))
		return true;
	return ReadsFromCitus(outerPlanState(ps)) || ReadsFromCitus(innerPlanState(ps));
}

/*
 * Raise when the calling aggregate (caller) runs over rows a Citus
 * coordinator pulls from its workers, unless
 * pixelbox.allow_coordinator_pull is on.
 */
void
PbRejectCoordinatorPull(FunctionCallInfo fcinfo, const char *caller)
{
	if (pb_allow_coordinator_pull || fcinfo->context == NULL ||
		!IsA(fcinfo->context, AggState) ||
		!ReadsFromCitus(outerPlanState((AggState *) fcinfo->context)))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s over Citus distributed tables would pull every polygon to the Citus coordinator",
					caller),
			 errdetail("Its polygons must all meet in one backend, so it cannot be split into partial aggregates on the workers."),
			 errhint("GROUP BY the distribution column (the whole aggregate then runs on the workers), "
					 "or use pb_compare_sets(geom, in_a, key) with the distribution column as key; "
					 "SET pixelbox.allow_coordinator_pull = on to pull anyway.")));
}
