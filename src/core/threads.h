/*
 * threads.h: run one function on several threads, signals blocked in the
 * new ones, for the core's parallel loops (no PostgreSQL calls inside).
 */
#ifndef PB_THREADS_H
#define PB_THREADS_H

/*
 * Call fn(arg, i) for i = 1 .. nthreads - 1 on new threads (every signal
 * blocked, so the caller's signal handlers only ever run in the caller's
 * thread) and fn(arg, 0) on the caller's thread, then wait for all.
 * Threads that cannot be started are run on the caller's thread after its
 * own share, so every index is always run exactly once.
 */
extern void PbThreadsRun(int nthreads, void (*fn) (void *arg, int index), void *arg);

#endif							/* PB_THREADS_H */
