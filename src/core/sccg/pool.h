/*
 * pool.h: a thread-safe pool of memory blocks behind a PbAllocator, so that
 * work repeated many times (the pipeline's tile tasks) reuses the pages of
 * the work done before instead of faulting in fresh ones.
 *
 * Blocks come in size classes two per octave (64, 96, 128, 192, ... bytes,
 * a header included); a released block goes on its class's free list, and
 * the next request of that class takes it back.  The pool caches at most as
 * many bytes as were ever live at once, beyond that released blocks go back
 * to malloc: what it holds stays under twice the peak of live bytes, however
 * long it runs.  One mutex guards the lists; when malloc fails the
 * allocator calls PbOutOfMemory (pb_base.h), and it never calls
 * check_interrupts.
 */
#ifndef PB_POOL_H
#define PB_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "../geom/batch.h"

typedef struct PbPool PbPool;

/* What a pool did, for reports and tests; bytes count whole blocks. */
typedef struct PbPoolStats
{
	uint64_t	allocs;			/* blocks handed out (resizes that moved too) */
	uint64_t	fresh;			/* of those, new from malloc: the rest reused */
	size_t		live;			/* bytes handed out, not yet released */
	size_t		cached;			/* bytes on the free lists */
	size_t		peak_live;		/* most live bytes at once */
	size_t		peak_held;		/* most live + cached bytes at once */
} PbPoolStats;

/* A new, empty pool, or NULL when out of memory. */
extern PbPool *PbPoolCreate(void);

/*
 * Free the pool with every block it holds: cached ones, and live ones too
 * (blocks a thread lost when it ran out of memory mid-task), which nobody
 * may touch afterwards.
 */
extern void PbPoolDestroy(PbPool *pool);

/* The allocator handing out the pool's blocks; lives as long as the pool. */
extern const PbAllocator *PbPoolAllocator(PbPool *pool);

extern void PbPoolGetStats(PbPool *pool, PbPoolStats *stats);

#endif							/* PB_POOL_H */
