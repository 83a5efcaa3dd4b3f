/*
 * clock.c: a monotonic clock in seconds, for the busy times the pipeline
 * and the hybrid reconstruction report.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */
#include <time.h>

#include "pb_base.h"

double
PbMonotonicSeconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
