/*
 * pb_base.h: the base of pixelbox's pure-C core, on which every other part
 * of src/core stands and which depends on nothing but libc and pthreads.
 *
 *  - one status enum and one error struct (code and message) for every
 *    core function that can fail;
 *  - the allocator the caller injects (PostgreSQL hands in palloc, tools
 *    and worker threads malloc);
 *  - the poll callback through which long work asks whether to stop;
 *  - how to run work on threads (PbRun) and a parallel loop over items;
 *  - out-of-memory recovery points for worker threads.
 *
 * No PostgreSQL and no CUDA here: the glue (src/) and the kernels.
 * host drivers (cuda/) both include it.
 */
#ifndef PB_BASE_H
#define PB_BASE_H

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Status codes returned by core functions. */
typedef enum PbStatus
{
	PB_OK = 0,
	PB_ERR_FORMAT,				/* malformed or truncated input */
	PB_ERR_VERSION,				/* serialization version we do not read */
	PB_ERR_UNSUPPORTED,			/* valid input of a kind we do not handle */
	PB_ERR_NONFINITE,			/* NaN, infinite or out-of-range coordinate */
	PB_ERR_STOPPED,				/* poll asked to stop */
	PB_ERR_NOMEM,				/* scratch memory could not be had */
	PB_ERR_BADARG				/* sizes, types or options invalid */
} PbStatus;

/* Error detail filled in by core functions that can fail. */
typedef struct PbError
{
	PbStatus	code;
	char		message[200];
} PbError;

/* Record code and a printf-style message in err; return code. */
extern PbStatus PbFail(PbError *err, PbStatus code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/*
 * Allocator and interrupt hooks injected by the caller.  alloc and resize
 * never return NULL: they raise (PostgreSQL) or abort (tools) instead.
 */
typedef struct PbAllocator
{
	void	   *(*alloc) (void *ctx, size_t size);
	void	   *(*resize) (void *ctx, void *ptr, size_t size);
	void		(*release) (void *ctx, void *ptr);
	/* called between long stretches of work; may longjmp (NULL: never) */
	void		(*check_interrupts) (void *ctx);
	void	   *ctx;
} PbAllocator;

/*
 * The allocator built on malloc/realloc/free (tools, tests, the pipeline's
 * threads); when malloc fails it calls PbOutOfMemory.
 */
extern PbAllocator PbMallocAllocator;

/* Asked between chunks of work, on the calling thread only: nonzero stops. */
typedef int (*PbPollFn) (void *arg);

/* How to run an operation on the CPU. */
typedef struct PbRun
{
	int			threads;		/* worker threads, >= 1 (the caller is one) */
	int			tile;			/* tile side for tiled runs; 0 = default */
	PbPollFn	poll;			/* may be NULL */
	void	   *poll_arg;
} PbRun;

/*
 * Start a thread with every signal blocked, so that signal handlers
 * (PostgreSQL's) only ever run on the calling thread; pthread_create's
 * result (par_for.c).
 */
int			PbThreadStart(pthread_t *tid, void *(*fn) (void *), void *arg);

/* Seconds since an arbitrary start, on a monotonic clock (clock.c). */
double		PbMonotonicSeconds(void);

/*
 * Run fn(arg, i) for every i in [0, n) on run->threads threads (the caller
 * included; threads that cannot be started leave their items to the
 * others), the caller polling between its items.  Returns PB_ERR_STOPPED
 * when poll asked to stop (some items then never ran), PB_OK otherwise.
 */
typedef void (*PbParItemFn) (void *arg, int64_t i);
PbStatus	PbParallelFor(const PbRun *run, int64_t n, PbParItemFn fn, void *arg);

/*
 * Running out of memory inside worker threads without taking the process
 * down.  The core's allocators (PbMallocAllocator, the pipeline's pool)
 * call PbOutOfMemory when malloc fails.  A thread that set a recovery
 * point (pb_oom_recover, a jmp_buf of its own, with no lock held at any
 * allocation after it) is sent back there (setjmp returns 1) and ends its
 * work cleanly; a thread without one aborts, as tools and tests expect.
 * The pipeline's threads also jump there (with 2) to leave a stopped run.  In a PostgreSQL
 * backend an abort would restart the whole server, so every thread the
 * pipeline starts, and the backend's own calls into it, set one.
 */
extern __thread jmp_buf *pb_oom_recover;

/* malloc failed: jump to this thread's recovery point, or abort. */
extern void PbOutOfMemory(void) __attribute__((noreturn));

/*
 * Run body(arg) under a recovery point of its own (the previous one
 * restored after): true when it returned, false when it ran out of memory.
 */
extern bool PbRunRecoverable(void (*body) (void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif							/* PB_BASE_H */
