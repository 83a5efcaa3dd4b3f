/*
 * tests_edt.h: the tests of tests/test_edt.c, tests/test_edt_spacing.c and
 * tests/test_edt_hybrid.c,
 * in the order they run.
 */
#ifndef PB_TESTS_EDT_H
#define PB_TESTS_EDT_H

#define PB_EDT_TESTS(X) \
	X(test_edt_random_vs_brute) \
	X(test_edt_line_shapes) \
	X(test_edt_sparse_large) \
	X(test_edt_largest_side) \
	X(test_edt_all_background) \
	X(test_edt_all_foreground) \
	X(test_edt_corner_pixel) \
	X(test_edt_power_of_two_spacing) \
	X(test_edt_threads_agree) \
	X(test_edt_poll_stop) \
	X(test_edt_badarg) \
	X(test_edt_extreme_spacing) \
	X(test_edt_huge_step_row) \
	X(test_edt_hybrid_random) \
	X(test_edt_hybrid_device_fails) \
	X(test_edt_hybrid_slow_device) \
	X(test_edt_hybrid_stop_and_badarg)

#endif
