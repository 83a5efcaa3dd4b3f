/*
 * pb_vector.h: how the core marks a hot loop written to vectorize, or to
 * count bits.
 *
 * PostgreSQL builds extensions at -O2, where GCC vectorizes only loops
 * whose vector code needs no scalar tail; a loop over a row or a ring has
 * one.  PB_VECTOR_CLONES turns the vectorizer on (dynamic cost model) for
 * one function and, on x86-64 with GCC, builds it for AVX-512, AVX2 and
 * the baseline (SSE2), the loader picking the best the CPU has
 * (target_clones); elsewhere the function is built once, for the target.
 * Such a function must have no branch on its data in the loop.
 */
#ifndef PB_BASE_VECTOR_H
#define PB_BASE_VECTOR_H

/*
 * PB_POPCOUNT_CLONES is for a function that counts bits
 * (__builtin_popcountll): x86-64's baseline has no popcount instruction,
 * so GCC calls a libgcc routine there; it builds the function also for
 * CPUs that have one.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PB_VECTOR_CLONES \
	__attribute__((target_clones("avx512f", "avx2", "default"), \
				   optimize("tree-vectorize", "vect-cost-model=dynamic")))
#define PB_POPCOUNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define PB_VECTOR_CLONES
#define PB_POPCOUNT_CLONES
#endif

#endif							/* PB_BASE_VECTOR_H */
