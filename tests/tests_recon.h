/*
 * tests_recon.h: the tests of tests/test_recon.c, tests/test_recon_window.c and
 * tests/test_recon_hybrid.c,
 * in the order they run.
 */
#ifndef PB_TESTS_RECON_H
#define PB_TESTS_RECON_H

#define PB_RECON_TESTS(X) \
	X(test_recon_clip) \
	X(test_recon_random_small) \
	X(test_recon_special_images) \
	X(test_recon_spiral_maze) \
	X(test_recon_fill_holes) \
	X(test_recon_float_inf) \
	X(test_recon_tiles_match_seq) \
	X(test_recon_badarg) \
	X(test_recon_stopped) \
	X(test_recon_nodata) \
	X(test_ring_order) \
	X(test_recon_window_cpu) \
	X(test_recon_hybrid_random) \
	X(test_recon_hybrid_maze) \
	X(test_recon_hybrid_device_fails) \
	X(test_recon_hybrid_stop_and_badarg)

#endif
