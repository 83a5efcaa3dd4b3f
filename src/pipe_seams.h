/*
 * pipe_seams.h: the testing decorators of a pipeline run, in plain C (no
 * PostgreSQL), so that the glue's testing settings (test_seams.c) and the
 * C tests of the core disturb a run the same way, from outside the core:
 *  - a throttle: the CPU threads' filter and compute steps, and the
 *    device's batches, slowed down by so many microseconds per task (to
 *    force task migration);
 *  - a failing allocator around the tasks' memory (the pipeline's pool),
 *    failing from its n-th allocation on as when malloc returns NULL.
 * Both run on the pipeline's threads: they call only the core and libc.
 */
#ifndef PB_PIPE_SEAMS_H
#define PB_PIPE_SEAMS_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/sccg/pb_sccg.h"

/* A throttle around a run: its steps, and (agg_us > 0) its device. */
typedef struct PbPipeThrottle
{
	uint32_t	filter_us,
				agg_us;
	PbPipeSteps inner_steps;	/* the steps slowed down */
	PbPipeDevice inner;			/* the device slowed down */
	PbPipeDevice dev;			/* it, slowed down */
	uint32_t	staged,			/* tasks of the batch staged */
				started;		/* and of the one started */
} PbPipeThrottle;

/*
 * Slow the steps of c down by filter_us (filter) and agg_us (compute) a
 * task, and when agg_us > 0 its device (if any) by agg_us a task of each
 * batch.  th must outlive the run.
 */
extern void PbPipeThrottleInstall(PbPipeConfig *c, PbPipeThrottle *th, uint32_t filter_us,
							  uint32_t agg_us);

/* An allocator failing from the left-th allocation on. */
typedef struct PbPipeFailingMem
{
	PbAllocator mem;
	const PbAllocator *inner;
	atomic_long left;
} PbPipeFailingMem;

/*
 * Make c's tasks' allocations fail (to the thread's recovery point) from
 * the after-th on; f must outlive the run.
 */
extern void PbPipeFailingMemInstall(PbPipeConfig *c, PbPipeFailingMem *f, long after);

#endif							/* PB_PIPE_SEAMS_H */
