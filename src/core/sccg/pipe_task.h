/*
 * pipe_task.h: the steps of one tile task of the pipeline (pipe_task.c),
 * each run by one thread at a time on its task.
 */
#ifndef PB_PIPE_TASK_H
#define PB_PIPE_TASK_H

#include "pipeline.h"

/*
 * Copy the task's shapes from its source into t->batch, allocated from mem
 * (as are the task's areas and filter temporaries after); the batch
 * borrows the source's rings and points, which must outlive the task.
 * Count t->int_rings and t->int_ipts; allocate t->hit with malloc.
 */
extern void PbTaskMaterialize(PbTask *t, const PbAllocator *mem);

/*
 * Find the task's pairs (boxes intersecting as PostGIS's &&, under the
 * task's window and old_a/old_b rules) into t->batch.pairs, the pairs of
 * two integer shapes first (t->nint of them), with temporaries from the
 * batch's allocator.  Returns the pair count.
 */
extern uint32_t PbTaskFilter(PbTask *t);

/* Compute pairs [from, to) of the task on this thread into acc. */
extern void PbTaskCompute(PbTask *t, uint32_t from, uint32_t to, PbScratch *sc,
						  PbMethod method, PbCompareAcc *acc);

/* Account one computed pair (a, b) of the task: totals, hit marks, kept pairs. */
extern void PbTaskAddResult(PbTask *t, uint32_t a, uint32_t b, double area,
							PbCompareAcc *acc);

/*
 * The task is accounted: free its batch and areas (both from the batch's
 * allocator), keep hit.  Safe to call again, and on a task never
 * materialized.
 */
extern void PbTaskDone(PbTask *t);

/* Free what the pipeline allocated in the task (PbTaskDone, hit and kept). */
extern void PbTaskRelease(PbTask *t);

#endif							/* PB_PIPE_TASK_H */
