/*
 * parallel_handoff.c: a parallel worker's packed polygons reach the leader
 * through the query's DSA area (the shared memory parallel query already
 * has) instead of the tuple queue.
 *
 * The tuple queue moves a large partial state 64 kB at a time, a latch
 * round trip each, and the leader copies it twice; through the area the
 * worker writes its bytes once and sends only where they are.  The area
 * outlives the workers (its segments stay pinned until the Gather node
 * shuts down, after the aggregate has finished) and goes with the query on
 * error, so nothing can leak.  Where /dev/shm has less than 512 MB free
 * (a container's 64 MB), "auto" keeps the tuple queue: a full /dev/shm is
 * an error, a small one only slower.
 */
#include "postgres.h"

#include <sys/statvfs.h>

#include "access/parallel.h"
#include "executor/execParallel.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/dsm_impl.h"

#include "parallel_handoff.h"

int			pb_parallel_handoff = PB_HANDOFF_AUTO;

/*
 * Whether /dev/shm has room for len more bytes with 512 MB to spare
 * (posix shared memory lives there, and the area grows by ever larger
 * segments; other kinds do not run out the same way).
 */
static bool
RoomInDevShm(size_t len)
{
	struct statvfs fs;

	if (dynamic_shared_memory_type != DSM_IMPL_POSIX)
		return true;
	if (statvfs("/dev/shm", &fs) != 0)
		return false;
	return (double) fs.f_bavail * fs.f_frsize >= 512.0 * 1024 * 1024 + (double) len;
}

/*
 * In a parallel worker, len bytes of the query's shared memory for its
 * packed chunks, with *ref saying where they are; NULL when they should go
 * through the tuple queue instead (not a worker, the setting, or little
 * room in /dev/shm).
 */
void *
PbHandoffAlloc(FunctionCallInfo fcinfo, size_t len, PbHandoffRef *ref)
{
	AggState   *agg = (AggState *) fcinfo->context;
	dsa_area   *area;
	dsa_pointer dp;

	if (!IsParallelWorker() || pb_parallel_handoff == PB_HANDOFF_QUEUE ||
		agg == NULL || !IsA(agg, AggState) || MyBgworkerEntry == NULL)
		return NULL;
	area = agg->ss.ps.state->es_query_dsa;
	if (area == NULL ||
		(pb_parallel_handoff == PB_HANDOFF_AUTO && !RoomInDevShm(len)))
		return NULL;
	dp = dsa_allocate_extended(area, len, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
	if (!DsaPointerIsValid(dp))
		return NULL;
	ref->segment = DatumGetUInt32(MyBgworkerEntry->bgw_main_arg);
	ref->pointer = dp;
	ref->len = len;
	return dsa_get_address(area, dp);
}

/* What FindArea looks for, and what it found. */
typedef struct AreaSearch
{
	dsm_handle	segment;
	dsa_area   *area;
} AreaSearch;

/* Planstate walker: the DSA area of the Gather whose workers use segment. */
static bool
FindArea(PlanState *ps, AreaSearch *search)
{
	ParallelExecutorInfo *pei = NULL;

	if (ps == NULL)
		return false;
	if (IsA(ps, GatherState))
		pei = ((GatherState *) ps)->pei;
	else if (IsA(ps, GatherMergeState))
		pei = ((GatherMergeState *) ps)->pei;
	if (pei != NULL && pei->pcxt != NULL && pei->pcxt->seg != NULL &&
		dsm_segment_handle(pei->pcxt->seg) == search->segment)
	{
		search->area = pei->area;
		return true;
	}
	return planstate_tree_walker(ps, FindArea, search);
}

/*
 * In the leader, the address of the bytes a worker left in shared memory
 * (the aggregate's Gather below holds the area), with *area for freeing
 * them.  An internal error when the area is not found (the state did not
 * come from one of this query's workers: cannot happen).
 */
uint8 *
PbHandoffFind(FunctionCallInfo fcinfo, const PbHandoffRef *ref, dsa_area **area)
{
	AggState   *agg = (AggState *) fcinfo->context;
	AreaSearch	search = {ref->segment, NULL};

	if (agg == NULL || !IsA(agg, AggState) ||
		!FindArea(outerPlanState(agg), &search) || search.area == NULL ||
		!DsaPointerIsValid(ref->pointer))
		elog(ERROR, "pb_compare_sets: a parallel worker's polygons are in shared memory this query does not have");
	*area = search.area;
	return dsa_get_address(search.area, (dsa_pointer) ref->pointer);
}
