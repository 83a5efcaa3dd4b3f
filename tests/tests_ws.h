/*
 * tests_ws.h: the tests of tests/test_watershed.c (the CPU watershed
 * against the reference automaton and hand-worked results),
 * tests/test_ws_poll.c (its polls), tests/test_ws_large.c (whole tiles
 * with wide plateaus), tests/test_tile_sweep.c (the schedule of the
 * tiles and of devices' blocks) and tests/test_ws_hybrid.c (the CPU
 * threads with model devices), in order.
 */
#ifndef PB_TESTS_WS_H
#define PB_TESTS_WS_H

#define PB_WS_TESTS(X) \
	X(test_ws_known_markerless) \
	X(test_ws_known_markers) \
	X(test_ws_cpu_matches_ref_random) \
	X(test_ws_serpentine) \
	X(test_ws_basins_are_minima) \
	X(test_ws_minima_across_bands) \
	X(test_ws_scratch_allocator) \
	X(test_ws_stopped) \
	X(test_ws_badarg) \
	X(test_ws_least_neighbours) \
	X(test_ws_nodata_bands) \
	X(test_ws_minima_poll) \
	X(test_ws_large_plateaus) \
	X(test_tile_sweep_fixed_point) \
	X(test_tile_sweep_order) \
	X(test_tile_sweep_stop_and_badarg) \
	X(test_tile_sweep_blocks) \
	X(test_tile_sweep_block_choice) \
	X(test_ws_hybrid_matches_cpu) \
	X(test_ws_hybrid_failures)

#endif
