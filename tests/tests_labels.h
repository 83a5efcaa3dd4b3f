/*
 * tests_labels.h: the tests of the label-image tracer and readers
 * (tests/test_label_*.c), in order.
 */
#ifndef PB_TESTS_LABELS_H
#define PB_TESTS_LABELS_H

#define PB_LABEL_TESTS(X) \
	/* test_label_trace.c */ \
	X(test_label_trace_single_pixels) \
	X(test_label_trace_collinear_merged) \
	X(test_label_trace_checkerboard) \
	X(test_label_trace_holes) \
	X(test_label_trace_nested) \
	X(test_label_trace_random_masks) \
	X(test_label_trace_mask_errors) \
	/* test_label_polys.c */ \
	X(test_label_polys_random_images) \
	X(test_label_polys_threads_agree) \
	X(test_label_polys_geotransform) \
	X(test_label_polys_errors) \
	X(test_label_polys_stop) \
	X(test_label_polys_corner_budget) \
	/* test_label_file.c */ \
	X(test_label_file_tiff_layouts) \
	X(test_label_file_png_depths) \
	X(test_label_file_refusals) \
	X(test_label_file_too_large)

#endif
