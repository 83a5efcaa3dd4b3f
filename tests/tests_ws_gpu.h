/*
 * tests_ws_gpu.h: tests of the GPU watershed (tests/test_ws_gpu.c), only
 * in pb_gpu_tests (make gpu-check), which needs a CUDA device.
 */
#ifndef PB_TESTS_WS_GPU_H
#define PB_TESTS_WS_GPU_H

#ifdef PB_TEST_GPU
#define PB_WS_GPU_TESTS(X) \
	X(test_wsgpu_badarg) \
	X(test_wsgpu_special) \
	X(test_wsgpu_small) \
	X(test_wsgpu_large) \
	X(test_wsgpu_tiles) \
	X(test_wsgpu_staging) \
	X(test_wsgpu_multi) \
	X(test_wsgpu_bands) \
	X(test_wsgpu_hybrid) \
	X(test_wsgpu_sync) \
	X(test_wsgpu_repeat) \
	X(test_wsgpu_poll) \
	X(test_wsgpu_timings)
#else
#define PB_WS_GPU_TESTS(X)
#endif

#endif
