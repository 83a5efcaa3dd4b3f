/*
 * pair_functions.c: pb_intersection_area, pb_union_area and pb_jaccard,
 * the one-pair drop-ins for ST_Area(ST_Intersection(a, b)) and friends.
 */
#include "postgres.h"

#include "pixelbox.h"

/* Areas of one pair: |a|, |b| and |a ∩ b| (the even-odd measure). */
typedef struct PairAreas
{
	double		a,
				b,
				inter;
} PairAreas;

/* Decode both arguments, check SRIDs and compute the three areas. */
static PairAreas
ComputePair(FunctionCallInfo fcinfo, const char *caller)
{
	PbAllocator mem;
	PbBatch		batch;
	PbScratch	scratch;
	uint32_t	ia,
				ib;
	PairAreas	r;

	PbPgAllocatorInit(&mem, CurrentMemoryContext);
	PbBatchInit(&batch, &mem);
	PbScratchInit(&scratch, &mem);
	ia = PbDecodeGeometryArg(fcinfo, 0, &batch, caller);
	ib = PbDecodeGeometryArg(fcinfo, 1, &batch, caller);
	PbCheckSameSrid(&batch, ia, ib, caller);
	r.a = batch.shapes[ia].area;
	r.b = batch.shapes[ib].area;
	r.inter = PbIntersectionArea(&scratch, &batch, ia, ib, pb_cpu_method);
	PbScratchFree(&scratch);
	PbBatchFree(&batch);
	return r;
}

PG_FUNCTION_INFO_V1(pb_intersection_area);
/* Exact area of a ∩ b, as ST_Area(ST_Intersection(a, b)). */
Datum
pb_intersection_area(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(ComputePair(fcinfo, "pb_intersection_area").inter);
}

PG_FUNCTION_INFO_V1(pb_union_area);
/* Area of a ∪ b as |a| + |b| - |a ∩ b|, |a ∩ b| capped by PbPairIntersection. */
Datum
pb_union_area(PG_FUNCTION_ARGS)
{
	PairAreas	r = ComputePair(fcinfo, "pb_union_area");

	PG_RETURN_FLOAT8(r.a + r.b - PbPairIntersection(r.a, r.b, r.inter));
}

PG_FUNCTION_INFO_V1(pb_jaccard);
/* |a ∩ b| / |a ∪ b| (never above 1); NULL when the union has no area. */
Datum
pb_jaccard(PG_FUNCTION_ARGS)
{
	PairAreas	r = ComputePair(fcinfo, "pb_jaccard");
	double		inter = PbPairIntersection(r.a, r.b, r.inter),
				uni = r.a + r.b - inter;

	if (!(uni > 0.0))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(inter / uni);
}
