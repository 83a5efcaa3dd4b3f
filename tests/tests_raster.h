/*
 * tests_raster.h: the tests of tests/test_raster.c (raster WKB) and
 * tests/test_coverage.c (tiles forming one grid), in order.
 */
#ifndef PB_TESTS_RASTER_H
#define PB_TESTS_RASTER_H

#define PB_RASTER_TESTS(X) \
	X(test_raster_wkb_postgis_8bui) \
	X(test_raster_wkb_xdr_and_rewrite) \
	X(test_raster_wkb_truncated) \
	X(test_raster_wkb_offline_and_types) \
	X(test_raster_wkb_sub_byte_values) \
	X(test_raster_wkb_nodata) \
	X(test_coverage_grid_places_tiles) \
	X(test_coverage_grid_missing_and_before_first) \
	X(test_coverage_grid_skewed) \
	X(test_coverage_markers_and_walls) \
	X(test_coverage_grid_refusals)

#endif
