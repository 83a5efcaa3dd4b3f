/*
 * test_main.c: runs every test of tests.h and prints "N passed, N failed".
 * Failure details go to stderr; the exit status is non-zero on failure.
 * A test name as argument runs only the tests whose names contain it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tests.h"

#define X(name) extern void name(void);
PB_TESTS(X)
PB_THREAD_TESTS(X)
PB_GPU_TESTS(X)
PB_RASTER_TESTS(X)
PB_RECON_TESTS(X)
PB_EDT_TESTS(X)
PB_RASTER_GPU_TESTS(X)
PB_WS_TESTS(X)
PB_WS_GPU_TESTS(X)
PB_LABEL_TESTS(X)
#undef X

static const struct
{
	const char *name;
	void		(*fn) (void);
}			tests[] = {
#define X(name) {#name, name},
	PB_TESTS(X)
	PB_THREAD_TESTS(X)
	PB_GPU_TESTS(X)
	PB_RASTER_TESTS(X)
	PB_RECON_TESTS(X)
	PB_EDT_TESTS(X)
	PB_RASTER_GPU_TESTS(X)
	PB_WS_TESTS(X)
	PB_WS_GPU_TESTS(X)
	PB_LABEL_TESTS(X)
#undef X
};

static const char *current_test;
static char current_context[256];
static long current_failures;

/* Record one failed check; print the first few of each test. */
void
pb_check_fail(const char *file, int line, const char *fmt,...)
{
	va_list		ap;

	if (++current_failures > 12)
		return;
	fprintf(stderr, "%s:%d: %s: ", file, line, current_test);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (current_context[0])
		fprintf(stderr, " [%s]", current_context);
	fputc('\n', stderr);
}

/* Set the context printed with later failures of the current test. */
void
pb_test_context(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(current_context, sizeof(current_context), fmt, ap);
	va_end(ap);
}

/* Print a note for the curious (PB_TEST_VERBOSE=1). */
void
pb_test_note(const char *fmt,...)
{
	va_list		ap;

	if (getenv("PB_TEST_VERBOSE") == NULL)
		return;
	fprintf(stderr, "note: %s: ", current_test);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

long
pb_test_failures(void)
{
	return current_failures;
}

int
main(int argc, char **argv)
{
	int			passed = 0,
				failed = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
	{
		if (argc > 1 && strstr(tests[i].name, argv[1]) == NULL)
			continue;
		current_test = tests[i].name;
		current_context[0] = '\0';
		current_failures = 0;
		tests[i].fn();
		if (current_failures > 0)
		{
			fprintf(stderr, "FAIL %s (%ld failed checks)\n", current_test,
					current_failures);
			failed++;
		}
		else
			passed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
