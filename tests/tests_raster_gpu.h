/*
 * tests_raster_gpu.h: tests of the raster GPU kernels (tests/test_raster_gpu.c),
 * only in pb_gpu_tests (make gpu-check), which needs a CUDA device.
 */
#ifndef PB_TESTS_RASTER_GPU_H
#define PB_TESTS_RASTER_GPU_H

#ifdef PB_TEST_GPU
#define PB_RASTER_GPU_TESTS(X) \
	X(test_rgpu_recon_badarg) \
	X(test_rgpu_recon_random) \
	X(test_rgpu_recon_large) \
	X(test_rgpu_recon_spiral_maze) \
	X(test_rgpu_recon_fill_holes) \
	X(test_rgpu_recon_hmaxima) \
	X(test_rgpu_recon_tiles) \
	X(test_rgpu_recon_resident) \
	X(test_rgpu_recon_window) \
	X(test_rgpu_recon_hybrid_gpus) \
	X(test_rgpu_recon_queue_overflow) \
	X(test_rgpu_recon_poll) \
	X(test_rgpu_edt_poll_badarg) \
	X(test_rgpu_edt_special) \
	X(test_rgpu_edt_random) \
	X(test_rgpu_edt_strips_wide) \
	X(test_rgpu_edt_hybrid) \
	X(test_rgpu_timings)
#else
#define PB_RASTER_GPU_TESTS(X)
#endif

#endif
