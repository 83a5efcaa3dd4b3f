/*
 * alloc.c: the allocator built on malloc, for tools, tests and the worker
 * threads of the core.
 */
#include <stdlib.h>

#include "pb_base.h"

/*
 * Allocate with malloc; on failure PbOutOfMemory (pb_base.h): back to the
 * thread's recovery point, or abort where there is none (tools, tests).
 */
static void *
MallocAlloc(void *ctx, size_t size)
{
	void	   *p = malloc(size ? size : 1);

	(void) ctx;
	if (p == NULL)
		PbOutOfMemory();
	return p;
}

/* Resize with realloc; on failure PbOutOfMemory. */
static void *
MallocResize(void *ctx, void *ptr, size_t size)
{
	void	   *p = realloc(ptr, size ? size : 1);

	(void) ctx;
	if (p == NULL)
		PbOutOfMemory();
	return p;
}

/* Free with free. */
static void
MallocRelease(void *ctx, void *ptr)
{
	(void) ctx;
	free(ptr);
}

PbAllocator PbMallocAllocator = {MallocAlloc, MallocResize, MallocRelease, NULL, NULL};
