/*
 * decode_values.h: serialized PostGIS geometries (GSERIALIZED bytes, as
 * a backend fetched them) decoded on threads, a slice of consecutive
 * values per thread job, each slice into a batch of its own.
 *
 * Threads call nothing but the decoder.  A slice stops at its first value
 * that fails (or that is in a format only PostGIS itself can read): the
 * caller then decodes those values its own way, in order, and reports the
 * first error as a sequential reader would.
 */
#ifndef PB_DECODE_VALUES_H
#define PB_DECODE_VALUES_H

#include "batch.h"
#include "../base/pb_base.h"

/* Values [first, first + n) of the caller's arrays, and what came of them. */
typedef struct PbValueSlice
{
	uint32_t	first,			/* in */
				n;
	PbBatch		batch;			/* their shapes, in order (malloc) */
	PbStatus	status;			/* PB_OK, or that of the value it stopped at */
	int			out_of_memory;	/* nonzero: the thread ran out of memory */
} PbValueSlice;

/*
 * Decode values data[i] (len[i] bytes each) of every slice on run->threads
 * threads (the caller included).  Returns PB_ERR_STOPPED when run->poll
 * stopped the work (some slices then were not decoded), PB_OK otherwise.
 */
extern PbStatus PbDecodeValues(const uint8_t *const *data, const size_t *len,
									 PbValueSlice *slices, uint32_t nslices,
									 const PbRun *run);

/* Free the batches of slices[0 .. n). */
extern void PbValueSlicesFree(PbValueSlice *slices, uint32_t n);

#endif							/* PB_DECODE_VALUES_H */
