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
 * the aggregate: a Citus custom scan under it, or a scan of Citus
 * intermediate results, means rows pulled from workers.  Grouped by the distribution column, the whole aggregate runs
 * on the workers instead and never meets the guard.
 *
 * The functions that read whole tables (pb_intersecting_pairs,
 * pb_match_objects and those built on them) refuse a Citus distributed
 * table for the same reason: their query would pull it whole.
 */
#include "postgres.h"

#include "catalog/pg_namespace_d.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"

#include "pixelbox.h"

bool		pb_allow_coordinator_pull = false;

/*
 * Whether a function scan reads Citus intermediate results: rows a
 * subquery Citus could not push down (a UNION ALL without the
 * distribution column) already copied from the workers.
 */
static bool
ReadsIntermediateResults(const FunctionScan *fs)
{
	ListCell   *lc;

	foreach(lc, fs->functions)
	{
		Node	   *expr = ((RangeTblFunction *) lfirst(lc))->funcexpr;
		char	   *name;

		if (expr == NULL || !IsA(expr, FuncExpr))
			continue;
		name = get_func_name(((FuncExpr *) expr)->funcid);
		if (name && strncmp(name, "read_intermediate_result", 24) == 0)
			return true;
	}
	return false;
}

/*
 * Whether the plan under ps reads rows pulled from Citus workers: through
 * a Citus custom scan, or from Citus intermediate results (a
 * planstate_tree_walker walker; context unused).
 */
static bool
ReadsFromCitus(PlanState *ps, void *context)
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
	if (IsA(ps, FunctionScanState) && ReadsIntermediateResults((const FunctionScan *) ps->plan))
		return true;
	return planstate_tree_walker(ps, ReadsFromCitus, context);
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
		!ReadsFromCitus(outerPlanState((AggState *) fcinfo->context), NULL))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s over Citus distributed tables would pull every polygon to the Citus coordinator",
					caller),
			 errdetail("Its polygons must all meet in one backend, so it cannot be split into partial aggregates on the workers."),
			 strcmp(caller, "pb_compare_sets") == 0 ?
			 errhint("GROUP BY the distribution column (the whole aggregate then runs on the workers), "
					 "or use pb_compare_sets(geom, in_a, key) with the distribution column as key; "
					 "SET pixelbox.allow_coordinator_pull = on to pull anyway.") :
			 errhint("GROUP BY the distribution column (the whole aggregate then runs on the workers); "
					 "SET pixelbox.allow_coordinator_pull = on to pull anyway.")));
}

/*
 * Whether relid is a Citus table split over workers (hash, range or append
 * distributed; reference and local tables are whole on this node).
 */
static bool
IsDistributed(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1] = {ObjectIdGetDatum(relid)};
	bool		distributed;

	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return false;			/* no Citus in this database */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_dist_partition "
							  "WHERE logicalrelid = $1 AND partmethod IN ('h', 'r', 'a')",
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading pg_dist_partition failed");
	distributed = SPI_processed > 0;
	SPI_finish();
	return distributed;
}

/*
 * Raise when relid, a table the caller would read whole, is a Citus
 * distributed table, unless pixelbox.allow_coordinator_pull is on.
 */
void
PbRejectDistributedTable(Oid relid, const char *caller)
{
	if (pb_allow_coordinator_pull || !IsDistributed(relid))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s would pull every polygon of Citus distributed table %s to the coordinator",
					caller, get_rel_name(relid)),
			 errdetail("It reads whole tables into one backend."),
			 errhint("Run it on one distribution value's rows (a view or table of one slide), "
					 "use the aggregates grouped by the distribution column, "
					 "or SET pixelbox.allow_coordinator_pull = on to pull anyway.")));
}
