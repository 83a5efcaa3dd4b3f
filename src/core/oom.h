/*
 * oom.h: running out of memory inside worker threads without taking the
 * process down.
 *
 * The core's allocators (PbMallocAllocator, the pipeline's pool) call
 * PbOutOfMemory when malloc fails.  A thread that set a recovery point
 * (pb_oom_recover, a jmp_buf of its own, with no lock held at any
 * allocation after it) is sent back there and ends its work cleanly; a
 * thread without one aborts, as tools and tests expect.  In a PostgreSQL
 * backend an abort would restart the whole server, so every thread the
 * pipeline starts, and the backend's own calls into it, set one.
 */
#ifndef PB_OOM_H
#define PB_OOM_H

#include <setjmp.h>

/* This thread's recovery point, or NULL. */
extern __thread jmp_buf *pb_oom_recover;

/* malloc failed: jump to this thread's recovery point, or abort. */
extern void PbOutOfMemory(void) __attribute__((noreturn));

/*
 * Testing: make the pool's next allocations fail after n more succeed
 * (0: never).  Process-wide; only the tests and the testing setting
 * pixelbox.pipeline_fault use it.
 */
extern void PbOomFailAfter(long n);

/* Whether the allocation being made now must fail (for the testing knob). */
extern int	PbOomInjected(void);

#endif							/* PB_OOM_H */
