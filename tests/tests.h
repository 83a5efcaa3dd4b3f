/*
 * tests.h: the list of tests, in the order they run.
 */
#ifndef PB_TESTS_H
#define PB_TESTS_H

#define PB_TESTS(X) \
	/* test_decode.c */ \
	X(test_geom_type_names) \
	X(test_decode_ndr_xdr_identical) \
	X(test_decode_ewkb_zm_flags_ignored) \
	X(test_decode_iso_wkb_types) \
	X(test_decode_ewkb_srid) \
	X(test_decode_ewkb_nested_srid) \
	X(test_decode_polygon_holes) \
	X(test_decode_multipolygon) \
	X(test_decode_collection_keeps_polygons) \
	X(test_decode_triangle) \
	X(test_decode_empty) \
	X(test_decode_nonfinite) \
	X(test_decode_truncated_every_length) \
	X(test_decode_fuzzed_bytes) \
	X(test_decode_garbage) \
	X(test_decode_curves_unsupported) \
	X(test_decode_int_path_choice) \
	X(test_decode_switch_to_double_keeps_points) \
	X(test_decode_failure_leaves_batch) \
	X(test_decode_mixed_batch) \
	X(test_batch_reset_pairs_bytes) \
	/* test_decode_agree.c */ \
	X(test_decode_paths_agree) \
	/* test_parse_text.c */ \
	X(test_text_wkt_matches_ewkb) \
	X(test_text_wkt_spellings) \
	X(test_text_list_matches_ewkb) \
	X(test_text_ids) \
	X(test_text_whitespace_variants) \
	X(test_text_skip_lines) \
	X(test_text_errors) \
	X(test_text_numbers_match_strtod) \
	X(test_text_long_numbers) \
	X(test_text_locale_independent) \
	X(test_text_failure_leaves_batch) \
	X(test_text_random_shapes_match_ewkb) \
	X(test_text_fuzzed_lines) \
	X(test_text_pbgen_lines_speed) \
	/* test_text_ewkb.c */ \
	X(test_text_ewkb_matches_writer) \
	X(test_text_ewkb_after_error) \
	/* test_gserialized.c */ \
	X(test_gser_matches_ewkb) \
	X(test_gser_int_path_layouts) \
	X(test_gser_zm_dims) \
	X(test_gser_srid_21_bits) \
	X(test_gser_bad_header) \
	X(test_gser_nonfinite) \
	X(test_gser_curves_and_geography) \
	X(test_gser_truncated_and_fuzzed) \
	X(test_gser_values_on_threads) \
	/* test_areas.c */ \
	X(test_area_known_shapes) \
	X(test_area_traced_masks) \
	X(test_area_random_polygons) \
	/* test_engines.c */ \
	X(test_engine_masks_unit_grid) \
	X(test_engine_masks_wide_windows) \
	X(test_engine_special_cases) \
	X(test_engine_random_ortho_evenodd) \
	X(test_engine_invalid_rectilinear) \
	X(test_engine_near_int_limit) \
	X(test_engine_large_lattice_sweep) \
	X(test_engine_auto_threshold) \
	X(test_engine_double_rectilinear_exact) \
	X(test_engine_empty_and_disjoint) \
	X(test_engine_interrupt_hook) \
	/* test_edge_index.c */ \
	X(test_edge_index_blob_pairs) \
	X(test_edge_index_when_used) \
	X(test_edge_index_batch_refilled) \
	/* test_bitmap_solid.c */ \
	X(test_bitmap_solid_pairs) \
	X(test_bitmap_solid_when_kept) \
	/* test_area_thread.c */ \
	X(test_area_thread_batches) \
	X(test_area_thread_stop) \
	X(test_area_thread_out_of_memory) \
	/* test_general.c */ \
	X(test_general_convex_clip) \
	X(test_general_star_vs_convex) \
	X(test_general_grid_degenerate) \
	X(test_general_self_and_huge_box) \
	X(test_general_known_shapes) \
	X(test_general_invalid_diagonal) \
	/* test_long_pairs.c */ \
	X(test_long_combs_exact) \
	X(test_long_spiral_exact) \
	X(test_long_ring) \
	X(test_long_pairs_poll_stop) \
	/* test_precision.c */ \
	X(test_precision_thin_triangles) \
	X(test_precision_random_slivers) \
	X(test_precision_shallow_crossing) \
	X(test_precision_jaccard_capped) \
	X(test_precision_extreme_coordinates) \
	/* test_state_codec.c */ \
	X(test_state_codec_roundtrip) \
	X(test_state_codec_partials_merge) \
	X(test_state_codec_negative_and_zero) \
	X(test_state_codec_rejects) \
	X(test_key_ranges_build_and_merge) \
	X(test_key_ranges_clash) \
	X(test_key_ranges_codec) \
	/* test_accum.c */ \
	X(test_exact_small_known) \
	X(test_exact_negative) \
	X(test_exact_subnormal) \
	X(test_exact_extremes) \
	X(test_exact_vs_int128_truth) \
	X(test_exact_order_independent) \
	X(test_exact_normalize_trigger) \
	X(test_compare_known) \
	X(test_compare_none_intersect) \
	X(test_compare_merge_equals_sequential) \
	/* test_rtree.c */ \
	X(test_rtree_hilbert_curve) \
	X(test_rtree_hilbert_order) \
	X(test_rtree_search_brute) \
	X(test_rtree_search_deep_stacks) \
	X(test_rtree_join_brute) \
	X(test_rtree_extent_and_fanout_clamp) \
	X(test_rtree_deterministic_reentrant) \
	X(test_rtree_join_interrupts) \
	X(test_rtree_postgis_float) \
	X(test_rtree_join_200k)

/* test_batch.c, test_pack.c, test_pool.c, test_pipeline.c, test_parse_files.c, test_tiling.c
 * (appended to PB_TESTS below) */
#define PB_THREAD_TESTS(X) \
	X(test_batch_append) \
	/* test_pack.c */ \
	X(test_pack_round_trip) \
	X(test_pack_unpack_stops) \
	X(test_pack_compact) \
	X(test_pack_malformed) \
	/* test_pool.c */ \
	X(test_pool_sizes_and_resize) \
	X(test_pool_reuse_bounded) \
	X(test_pool_threads) \
	/* test_pipeline.c */ \
	X(test_pipeline_tiling) \
	X(test_pipeline_cpu_matches_brute) \
	X(test_pipeline_device_migration) \
	X(test_pipeline_device_holds_source) \
	X(test_pipeline_balance_by_rate) \
	X(test_pipeline_kept_pairs) \
	X(test_pipeline_reopened_tile) \
	X(test_pipeline_stop) \
	X(test_pipeline_stop_mid_pair) \
	X(test_pipeline_huge_shapes_on_cpu) \
	X(test_pipeline_device_shape_work) \
	X(test_pipeline_pool) \
	X(test_pipeline_out_of_memory) \
	/* test_parse_files.c */ \
	X(test_parse_files_threads) \
	X(test_parse_files_refusals) \
	X(test_parse_files_stop) \
	/* test_text_reader.c */ \
	X(test_reader_lines_match_memory) \
	X(test_reader_nul_byte) \
	X(test_reader_not_regular) \
	X(test_reader_poll) \
	X(test_reader_long_line) \
	X(test_reader_polygons_as_lines) \
	/* test_tiling.c */ \
	X(test_tiling_random_sets) \
	X(test_tiling_degenerate) \
	/* test_match.c */ \
	X(test_match_hand_worked) \
	X(test_match_exact_half) \
	X(test_match_greedy_is_wrong) \
	X(test_match_aji_ties) \
	X(test_match_empty_sets) \
	X(test_match_bad_input) \
	X(test_match_overcover) \
	X(test_match_brute_force) \
	X(test_match_dense_reference) \
	X(test_match_order_independent) \
	X(test_match_big_component) \
	X(test_match_shape_order) \
	/* test_match_codec.c */ \
	X(test_match_parts_add_over_keys) \
	X(test_match_parts_roundtrip) \
	X(test_match_parts_rejects) \
	/* test_oom.c */ \
	X(test_oom_recoverable) \
	/* test_raster_par.c */ \
	X(test_raster_par_read_write) \
	X(test_raster_par_markers_walls) \
	X(test_raster_par_foreground_marker) \
	X(test_raster_par_clip_zero) \
	/* test_match_tiles.c */ \
	X(test_match_tiles_hand_worked) \
	X(test_match_tiles_add_up) \
	X(test_match_tiles_poll) \
	/* test_json_split.c */ \
	X(test_json_split_every_border) \
	X(test_json_split_errors) \
	X(test_json_split_limits) \
	X(test_json_split_poll) \
	X(test_json_split_not_regular) \
	/* test_json_records.c */ \
	X(test_json_geojson_features) \
	X(test_json_records_threads) \
	X(test_json_geojson_errors) \
	X(test_json_hovernet_nuclei) \
	X(test_json_hovernet_errors) \
	X(test_contour_fill_truth) \
	X(test_contour_fill_zigzag) \
	X(test_json_numbers_fast_path) \
	/* test_pipeline.c: progress */ \
	X(test_pipeline_progress) \
	/* test_heatmap.c */ \
	X(test_heatmap_placement) \
	X(test_heatmap_grey_transparent) \
	X(test_heatmap_quantisation) \
	X(test_heatmap_errors) \
	X(test_heatmap_poll) \
	X(test_png_round_trip) \
	X(test_png_heatmap) \
	X(test_png_write_errors)

/* tests/test_gpu.c: only in pb_gpu_tests (make gpu-check), which needs a GPU */
#ifdef PB_TEST_GPU
#define PB_GPU_TESTS(X) \
	X(test_gpu_random_masks) \
	X(test_gpu_adversarial) \
	X(test_gpu_bitmap_tails) \
	X(test_gpu_budget_error) \
	X(test_gpu_parts_host_pairs) \
	X(test_gpu_filter_parts) \
	X(test_gpu_parts_borrowed_arrays) \
	X(test_gpu_held_source) \
	X(test_gpu_stage_while_running) \
	X(test_gpu_filter_reference_point) \
	X(test_gpu_filter_overflow) \
	X(test_gpu_parts_mixed)
#else
#define PB_GPU_TESTS(X)
#endif

/* the raster core and kernels: one list per test file */
#include "tests_raster.h"
#include "tests_recon.h"
#include "tests_edt.h"
#include "tests_raster_gpu.h"
#include "tests_ws.h"
#include "tests_ws_gpu.h"
#include "tests_labels.h"

#endif							/* PB_TESTS_H */
