/*
 * oom.c: out-of-memory recovery points of worker threads (see pb_base.h).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "pb_base.h"

__thread jmp_buf *pb_oom_recover = NULL;

/* Jump to this thread's recovery point, or abort where it has none. */
void
PbOutOfMemory(void)
{
	if (pb_oom_recover != NULL)
		longjmp(*pb_oom_recover, 1);
	abort();
}

/*
 * Run body(arg) under a recovery point of its own, the thread's previous
 * one restored after (see pb_base.h): true when body returned, false when
 * it was sent back (out of memory).  The body's state is reached through
 * arg, so it is current when the caller cleans up after false.
 */
bool
PbRunRecoverable(void (*body) (void *arg), void *arg)
{
	jmp_buf		recover;
	jmp_buf    *outer = pb_oom_recover;

	if (setjmp(recover) != 0)
	{
		pb_oom_recover = outer;
		return false;
	}
	pb_oom_recover = &recover;
	body(arg);
	pb_oom_recover = outer;
	return true;
}
