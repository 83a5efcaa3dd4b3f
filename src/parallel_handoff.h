/*
 * parallel_handoff.h: a parallel worker's bytes handed to the leader through
 * the query's shared memory (its DSA area) instead of the tuple queue.
 */
#ifndef PARALLEL_HANDOFF_H
#define PARALLEL_HANDOFF_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/dsa.h"

/* pixelbox.parallel_handoff */
typedef enum PbHandoffSetting
{
	PB_HANDOFF_AUTO,			/* shared memory when there is room for it */
	PB_HANDOFF_SHARED,			/* always shared memory */
	PB_HANDOFF_QUEUE			/* always the tuple queue */
} PbHandoffSetting;

extern int	pb_parallel_handoff;

/* Where a worker put its bytes: what the serialized state carries. */
typedef struct PbHandoffRef
{
	uint32		segment;		/* the worker's parallel DSM segment handle */
	uint64		pointer;		/* dsa_pointer in that query's area */
	uint64		len;
} PbHandoffRef;

#define PB_HANDOFF_REF_BYTES (4 + 8 + 8)

extern void *PbHandoffAlloc(FunctionCallInfo fcinfo, size_t len, PbHandoffRef *ref);
extern uint8 *PbHandoffFind(FunctionCallInfo fcinfo, const PbHandoffRef *ref,
							dsa_area **area);

#endif
