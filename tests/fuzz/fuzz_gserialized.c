/*
 * fuzz_gserialized.c: the harness of the GSERIALIZED decoder,
 * PbDecodeGserialized (PostGIS's on-disk geometry, v1 and v2, the bytes
 * after the varlena header), directly and through the threaded
 * PbDecodeValues, which must say the same.
 */
#include <string.h>

#include "fuzz.h"

/* One input: GSERIALIZED bytes. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	PbValueSlice slice;
	PbRun		run = {1, 0, NULL, NULL};
	const uint8_t *values[1] = {data};
	size_t		lens[1] = {size};
	PbBatch		b;
	PbError		err;
	uint32_t	shape = UINT32_MAX;
	PbStatus	st;

	FuzzDecoder(PbDecodeGserialized, data, size);

	PbBatchInit(&b, &PbMallocAllocator);
	st = PbDecodeGserialized(&b, data, size, &shape, &err);
	memset(&slice, 0, sizeof(slice));
	slice.first = 0;
	slice.n = 1;
	FUZZ_CHECK(PbDecodeValues(values, lens, &slice, 1, &run) == PB_OK, "PbDecodeValues stopped");
	FUZZ_CHECK(!slice.out_of_memory && slice.status == st,
			   "PbDecodeValues: status %d, PbDecodeGserialized: %d", (int) slice.status, (int) st);
	FUZZ_CHECK(st != PB_OK || (slice.batch.nshapes == 1 && FuzzSameShape(&b, shape, &slice.batch, 0)),
			   "PbDecodeValues and PbDecodeGserialized decoded different shapes");
	PbValueSlicesFree(&slice, 1);
	PbBatchFree(&b);
	return 0;
}
