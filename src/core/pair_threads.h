/*
 * pair_threads.h: intersection areas of many pairs on several CPU threads.
 */
#ifndef PB_PAIR_THREADS_H
#define PB_PAIR_THREADS_H

#include "pb_core.h"

/*
 * Compute areas[k] = area of pair idx[k] of batch b (pair k when idx is
 * NULL), k < n, on nthreads threads: the caller's and nthreads - 1 new
 * ones, taking chunks of pairs from a shared counter.  The new threads run
 * with every signal blocked, allocate with malloc and call nothing of the
 * caller's.  Only the caller's thread calls should_stop(ctx) between its
 * chunks; when it returns nonzero every thread stops at its next chunk and
 * the function returns 0 (areas incomplete).  Returns 1 when all is done.
 * Falls back to fewer threads (down to the caller's alone) if threads
 * cannot be started.
 */
extern int	PbComputeAreasThreaded(const PbBatch *b, const uint32_t *idx,
								   uint32_t n, double *areas, PbMethod method,
								   int nthreads, int (*should_stop) (void *ctx),
								   void *ctx);

#endif							/* PB_PAIR_THREADS_H */
