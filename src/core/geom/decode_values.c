/*
 * decode_values.c: serialized geometries decoded on threads (see
 * decode_values.h).
 */
#include <string.h>

#include "decode_values.h"
#include "../base/pb_base.h"

/* The job of one parallel loop: the values and the slices. */
typedef struct DecodeJob
{
	const uint8_t *const *data;
	const size_t *len;
	PbValueSlice *slices;
} DecodeJob;

/* One slice's decoding, for PbRunRecoverable. */
typedef struct SliceDecode
{
	const DecodeJob *job;
	PbValueSlice *sl;
} SliceDecode;

/* Decode the slice's values, stopping at the first failing one. */
static void
DecodeSliceBody(void *arg)
{
	SliceDecode *sd = arg;
	PbValueSlice *sl = sd->sl;

	for (uint32_t k = sl->first; k < sl->first + sl->n; k++)
	{
		uint32_t	shape;
		PbError		err;

		sl->status = PbDecodeGserialized(&sl->batch, sd->job->data[k], sd->job->len[k],
										 &shape, &err);
		if (sl->status != PB_OK)
			break;
	}
}

/* Parallel loop body: decode slice i, noting running out of memory. */
static void
DecodeSlice(void *arg, int64_t i)
{
	SliceDecode sd = {arg, &((const DecodeJob *) arg)->slices[i]};

	PbBatchInit(&sd.sl->batch, &PbMallocAllocator);
	if (!PbRunRecoverable(DecodeSliceBody, &sd))
		sd.sl->out_of_memory = 1;
}

PbStatus
PbDecodeValues(const uint8_t *const *data, const size_t *len, PbValueSlice *slices,
			   uint32_t nslices, const PbRun *run)
{
	DecodeJob	job = {data, len, slices};

	for (uint32_t i = 0; i < nslices; i++)
	{
		memset(&slices[i].batch, 0, sizeof(PbBatch));
		slices[i].status = PB_OK;
		slices[i].out_of_memory = 0;
	}
	return PbParallelFor(run, nslices, DecodeSlice, &job);
}

void
PbValueSlicesFree(PbValueSlice *slices, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (slices[i].batch.mem != NULL)
			PbBatchFree(&slices[i].batch);
}
