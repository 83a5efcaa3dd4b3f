/*
 * harness.h: a tiny unit-test harness for the pixelbox core.
 *
 * Each test is a void function listed in tests.h.  CHECK macros record a
 * failure (file:line and the values) without stopping the test; the runner
 * counts a test as failed when any of its checks failed.
 */
#ifndef PB_TEST_HARNESS_H
#define PB_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>

/* Record a failed check of the current test (printf-style message). */
extern void pb_check_fail(const char *file, int line, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* Describe what the current test is doing, printed with its failures. */
extern void pb_test_context(const char *fmt,...)
			__attribute__((format(printf, 1, 2)));

/* Print a note to stderr when PB_TEST_VERBOSE is set (e.g. measured errors). */
extern void pb_test_note(const char *fmt,...)
			__attribute__((format(printf, 1, 2)));

/* Number of failed checks in the current test so far. */
extern long pb_test_failures(void);

#define CHECK(cond) \
	do { \
		if (!(cond)) \
			pb_check_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
	} while (0)

#define CHECK_INT(a, b) \
	do { \
		long long a_ = (long long) (a), b_ = (long long) (b); \
		if (a_ != b_) \
			pb_check_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", \
						  #a, #b, a_, b_); \
	} while (0)

/* Bit-for-bit equal doubles (NaN equals NaN; 0.0 equals -0.0). */
#define CHECK_DBL_EQ(a, b) \
	do { \
		double a_ = (a), b_ = (b); \
		if (!(a_ == b_ || (a_ != a_ && b_ != b_))) \
			pb_check_fail(__FILE__, __LINE__, "%s == %s: %.17g != %.17g", \
						  #a, #b, a_, b_); \
	} while (0)

/* |a - b| <= tol. */
#define CHECK_NEAR(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b), t_ = (tol); \
		if (!(fabs(a_ - b_) <= t_)) \
			pb_check_fail(__FILE__, __LINE__, "%s ~ %s: %.17g vs %.17g (diff %.3g > %.3g)", \
						  #a, #b, a_, b_, fabs(a_ - b_), t_); \
	} while (0)

#define CHECK_STR_HAS(s, sub) \
	do { \
		const char *s_ = (s), *u_ = (sub); \
		if (strstr(s_, u_) == NULL) \
			pb_check_fail(__FILE__, __LINE__, "%s contains \"%s\": \"%s\"", \
						  #s, u_, s_); \
	} while (0)

/* Deterministic random numbers (splitmix64), so failures reproduce. */
typedef struct Rng
{
	uint64_t	state;
} Rng;

static inline uint64_t
RngNext(Rng *r)
{
	uint64_t	z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int64_t
RngRange(Rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t) (RngNext(r) % (uint64_t) (hi - lo + 1));
}

/* Uniform double in [0, 1). */
static inline double
RngDouble(Rng *r)
{
	return (double) (RngNext(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif							/* PB_TEST_HARNESS_H */
