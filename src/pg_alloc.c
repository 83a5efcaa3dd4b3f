/*
 * pg_alloc.c: the core's allocator and interrupt hooks on top of palloc
 * and CHECK_FOR_INTERRUPTS, so core memory dies with its memory context
 * and long computations can be cancelled.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "pixelbox.h"

/* Allocate in the allocator's memory context (raises on failure). */
static void *
PgAlloc(void *ctx, size_t size)
{
	return MemoryContextAllocHuge((MemoryContext) ctx, size ? size : 1);
}

/* Resize a chunk allocated by PgAlloc. */
static void *
PgResize(void *ctx, void *ptr, size_t size)
{
	(void) ctx;
	return repalloc_huge(ptr, size ? size : 1);
}

/* Free a chunk allocated by PgAlloc. */
static void
PgRelease(void *ctx, void *ptr)
{
	(void) ctx;
	pfree(ptr);
}

/* Let a cancel or statement_timeout interrupt long core work. */
static void
PgCheckInterrupts(void *ctx)
{
	(void) ctx;
	CHECK_FOR_INTERRUPTS();
}

/* Fill mem with hooks allocating in cxt. */
void
PbPgAllocatorInit(PbAllocator *mem, MemoryContext cxt)
{
	mem->alloc = PgAlloc;
	mem->resize = PgResize;
	mem->release = PgRelease;
	mem->check_interrupts = PgCheckInterrupts;
	mem->ctx = cxt;
}
