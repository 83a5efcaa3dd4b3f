/*
 * oom.c: out-of-memory recovery points of worker threads (see pb_base.h).
 */
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
