/*
 * oom.c: out-of-memory recovery points of worker threads (see pb_base.h).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "pb_base.h"

__thread jmp_buf *pb_oom_recover = NULL;

/* Allocations left before an injected failure; 0: none injected. */
static atomic_long fail_countdown;

void
PbOutOfMemory(void)
{
	if (pb_oom_recover != NULL)
		longjmp(*pb_oom_recover, 1);
	abort();
}

void
PbOomFailAfter(long n)
{
	atomic_store(&fail_countdown, n);
}

int
PbOomInjected(void)
{
	long		left = atomic_load_explicit(&fail_countdown, memory_order_relaxed);

	if (left <= 0)
		return 0;
	/* the allocation that brings the count to 0 fails, and every one after */
	left = atomic_fetch_sub(&fail_countdown, 1) - 1;
	if (left <= 0)
	{
		atomic_store(&fail_countdown, 1);
		return 1;
	}
	return 0;
}
