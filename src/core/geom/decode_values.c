/*
 * decode_values.c: serialized geometries decoded on threads (see
 * decode_values.h).
 */
#include <setjmp.h>
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

/* Parallel loop body: decode slice i, stopping at its first failing value. */
static void
DecodeSlice(void *arg, int64_t i)
{
	const DecodeJob *job = (const DecodeJob *) arg;
	PbValueSlice *sl = &job->slices[i];
	jmp_buf		recover;
	jmp_buf    *outer = pb_oom_recover;

	PbBatchInit(&sl->batch, &PbMallocAllocator);
	if (setjmp(recover) != 0)
	{
		pb_oom_recover = outer;
		sl->out_of_memory = 1;
		return;
	}
	pb_oom_recover = &recover;
	for (uint32_t k = sl->first; k < sl->first + sl->n; k++)
	{
		uint32_t	shape;
		PbError		err;

		sl->status = PbDecodeGserialized(&sl->batch, job->data[k], job->len[k], &shape, &err);
		if (sl->status != PB_OK)
			break;
	}
	pb_oom_recover = outer;
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
