/*
 * test_batch.c: PbBatchAppend moves shapes between batches intact.
 */
#include "testutil.h"

/* Shapes appended in bulk equal the same shapes decoded in place. */
void
test_batch_append(void)
{
	static const char *const wkt[] = {
		"POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 1,2 2,1 2,1 1))",
		"POLYGON((0 0,3.5 0,3.5 2,0 2,0 0))",
		"POLYGON EMPTY",
		"MULTIPOLYGON(((10 10,12 10,12 12,10 12,10 10)),((20 20,21 20,21 21,20 21,20 20)))",
		"POLYGON((0 0,10 1,7 9,0 0))"
	};
	PbBatch		dst,
				src,
				ref;
	char		why[256];

	PbBatchInit(&dst, &PbMallocAllocator);
	PbBatchInit(&src, &PbMallocAllocator);
	PbBatchInit(&ref, &PbMallocAllocator);
	/* dst already holds shapes of both kinds, so every index must shift */
	DecodeWkt(&dst, wkt[0], 0);
	DecodeWkt(&dst, wkt[1], 0);
	DecodeWkt(&ref, wkt[0], 0);
	DecodeWkt(&ref, wkt[1], 0);
	for (int i = 0; i < 5; i++)
	{
		DecodeWkt(&src, wkt[i], 1);
		DecodeWkt(&ref, wkt[i], 0);
	}
	PbBatchAppend(&dst, &src);
	CHECK_INT(dst.nshapes, ref.nshapes);
	CHECK_INT(dst.nipts, ref.nipts);
	CHECK_INT(dst.ndpts, ref.ndpts);
	for (uint32_t i = 0; i < ref.nshapes; i++)
		if (!SameShape(&dst, i, &ref, i, 1, why, sizeof(why)))
			pb_check_fail(__FILE__, __LINE__, "shape %u: %s", i, why);
	PbBatchFree(&dst);
	PbBatchFree(&src);
	PbBatchFree(&ref);
}
