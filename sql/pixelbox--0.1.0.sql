-- pixelbox 0.1.0: exact intersection areas and cross-comparison aggregates.
-- While this script runs, search_path is the extension's schema followed by
-- PostGIS's, so "geometry" below is PostGIS's type wherever it lives.
\echo Use "CREATE EXTENSION pixelbox CASCADE" to load this file. \quit

-- One pair ---------------------------------------------------------------

CREATE FUNCTION pb_intersection_area(a geometry, b geometry) RETURNS float8
	AS 'MODULE_PATHNAME', 'pb_intersection_area'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_intersection_area(geometry, geometry) IS
	'Exact area of the intersection of a and b: the same value as ST_Area(ST_Intersection(a, b)), computed without building the intersection.';

CREATE FUNCTION pb_union_area(a geometry, b geometry) RETURNS float8
	AS 'MODULE_PATHNAME', 'pb_union_area'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_union_area(geometry, geometry) IS
	'Area of the union of a and b, as ST_Area(a) + ST_Area(b) - pb_intersection_area(a, b).';

CREATE FUNCTION pb_jaccard(a geometry, b geometry) RETURNS float8
	AS 'MODULE_PATHNAME', 'pb_jaccard'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_jaccard(geometry, geometry) IS
	'Jaccard ratio |a ∩ b| / |a ∪ b| of one pair; NULL when the union has no area.';

-- Aggregates over pairs ------------------------------------------------------

CREATE TYPE pb_comparison AS (
	pairs bigint,				-- pairs aggregated (rows with no NULL geometry)
	pairs_intersecting bigint,	-- pairs whose intersection area is > 0
	jaccard_mean float8,		-- J': mean of |p∩q|/|p∪q| over intersecting pairs
	jaccard_total float8,		-- sum |p∩q| / sum |p∪q| over intersecting pairs
	dice_mean float8,			-- mean of 2|p∩q|/(|p|+|q|) over intersecting pairs
	intersection_area float8,	-- sum |p∩q|
	union_area float8			-- sum |p∪q| over intersecting pairs
);
COMMENT ON TYPE pb_comparison IS
	'Result of pb_cross_compare: pair counts, mean and total Jaccard, mean Dice, summed intersection and union areas.';

-- The transition state of jaccard_gpu and pb_cross_compare: expanded while
-- the aggregate runs; its flat form (and, in hex, its text, which Citus ships
-- from the workers to the coordinator) is only the exact totals.
CREATE TYPE pb_comparison_state;

CREATE FUNCTION pb_comparison_state_in(cstring) RETURNS pb_comparison_state
	AS 'MODULE_PATHNAME', 'pb_comparison_state_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_comparison_state_in(cstring) IS
	'Input function of pb_comparison_state: hex of its bytes, checked.';

CREATE FUNCTION pb_comparison_state_out(pb_comparison_state) RETURNS cstring
	AS 'MODULE_PATHNAME', 'pb_agg_state_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_comparison_state_out(pb_comparison_state) IS
	'Output function of pb_comparison_state: hex of the exact totals (pending pairs computed first).';

CREATE TYPE pb_comparison_state (
	INPUT = pb_comparison_state_in,
	OUTPUT = pb_comparison_state_out,
	INTERNALLENGTH = VARIABLE
);
COMMENT ON TYPE pb_comparison_state IS
	'Partial state of jaccard_gpu and pb_cross_compare: exact totals of the pairs aggregated, which combine bit-identically (parallel workers, Citus workers).';

CREATE FUNCTION pb_compare_transfn(pb_comparison_state, geometry, geometry) RETURNS pb_comparison_state
	AS 'MODULE_PATHNAME', 'pb_compare_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_transfn(pb_comparison_state, geometry, geometry) IS
	'Transition function of jaccard_gpu and pb_cross_compare: batches one pair.';

CREATE FUNCTION pb_compare_combinefn(pb_comparison_state, pb_comparison_state) RETURNS pb_comparison_state
	AS 'MODULE_PATHNAME', 'pb_compare_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_combinefn(pb_comparison_state, pb_comparison_state) IS
	'Combine function of jaccard_gpu and pb_cross_compare: adds exact totals.';

CREATE FUNCTION pb_jaccard_finalfn(pb_comparison_state) RETURNS float8
	AS 'MODULE_PATHNAME', 'pb_jaccard_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_jaccard_finalfn(pb_comparison_state) IS
	'Final function of jaccard_gpu: J'', NULL when no pair intersects.';

CREATE FUNCTION pb_cross_compare_finalfn(pb_comparison_state) RETURNS pb_comparison
	AS 'MODULE_PATHNAME', 'pb_cross_compare_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_cross_compare_finalfn(pb_comparison_state) IS
	'Final function of pb_cross_compare.';

CREATE AGGREGATE jaccard_gpu(geometry, geometry) (
	SFUNC = pb_compare_transfn,
	STYPE = pb_comparison_state,
	FINALFUNC = pb_jaccard_finalfn,
	COMBINEFUNC = pb_compare_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE jaccard_gpu(geometry, geometry) IS
	'J'': mean of |p∩q|/|p∪q| over the pairs whose intersection area is > 0 (NULL when none), the number of the paper''s Fig. 1(b) query; uses a GPU when pixelbox.device allows and one is usable.';

CREATE AGGREGATE pb_cross_compare(geometry, geometry) (
	SFUNC = pb_compare_transfn,
	STYPE = pb_comparison_state,
	FINALFUNC = pb_cross_compare_finalfn,
	COMBINEFUNC = pb_compare_combinefn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pb_cross_compare(geometry, geometry) IS
	'Cross-comparison of pairs: pairs, pairs_intersecting, jaccard_mean (J''), jaccard_total, dice_mean, intersection_area, union_area.';

-- The device ---------------------------------------------------------------

CREATE FUNCTION pb_device_info(OUT device text, OUT gpu_batches bigint, OUT gpu_pairs bigint,
							   OUT cpu_fallbacks bigint)
	AS 'MODULE_PATHNAME', 'pb_device_info'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_device_info() IS
	'This backend''s GPU (or why none is used), the batches and pairs it computed, and how many GPU failures fell back to the CPU.';

CREATE FUNCTION pb_gpu_warm() RETURNS integer
	AS 'MODULE_PATHNAME', 'pb_gpu_warm'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_gpu_warm() IS
	'Opens now the GPUs this backend''s raster work would use (the first; with pixelbox.device = hybrid every GPU of pixelbox.gpus), so that the session''s first call does not wait for them; returns how many are open (0 with device cpu or no GPU).';

-- Two sets in one scan -------------------------------------------------------

-- Figures of the pairs, not of a matching: for the metrics papers report
-- (F1, PQ, AJI, pixel Dice) use pb_match_stats (doc/metrics.md).
CREATE TYPE pb_set_comparison AS (
	pairs bigint,				-- MBR-intersecting (a, b) pairs, as PostGIS's && finds them
	pairs_intersecting bigint,	-- pairs whose intersection area is > 0
	jaccard_mean float8,		-- J': the mean IoU over intersecting pairs, every pair counted
								-- (a nucleus overlapping three others counts three times)
	jaccard_total float8,		-- sum |p∩q| / sum |p∪q| over intersecting pairs: not AJI
								-- (no one-to-one pairing, unpaired areas left out)
	dice_mean float8,			-- mean of 2|p∩q|/(|p|+|q|) over intersecting pairs: not
								-- pixel Dice (pb_match_stats' dice_pixel)
	intersection_area float8,	-- sum |p∩q|
	union_area float8,			-- sum |p∪q| over intersecting pairs
	polygons_a bigint,			-- rows of set a
	polygons_b bigint,			-- rows of set b
	missed_a bigint,			-- polygons of set a that intersect nothing (area > 0) in b:
								-- not the false negatives at any IoU threshold
	missed_b bigint				-- polygons of set b that intersect nothing in a: not the
								-- false positives
);
COMMENT ON TYPE pb_set_comparison IS
	'Result of pb_compare_sets: the pb_comparison figures plus the polygons of each set and those that intersect nothing in the other.';

CREATE FUNCTION pb_compare_sets_transfn(internal, geometry, boolean) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_compare_sets_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_sets_transfn(internal, geometry, boolean) IS
	'Transition function of pb_compare_sets: decodes one polygon of set a (true) or b (false).';

CREATE FUNCTION pb_compare_sets_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_compare_sets_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_sets_combinefn(internal, internal) IS
	'Combine function of pb_compare_sets: merges the decoded polygons.';

CREATE FUNCTION pb_compare_sets_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'pb_compare_sets_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_sets_serialfn(internal) IS
	'Serialization function of pb_compare_sets.';

CREATE FUNCTION pb_compare_sets_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_compare_sets_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_sets_deserialfn(bytea, internal) IS
	'Deserialization function of pb_compare_sets.';

CREATE FUNCTION pb_compare_sets_finalfn(internal) RETURNS pb_set_comparison
	AS 'MODULE_PATHNAME', 'pb_compare_sets_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_sets_finalfn(internal) IS
	'Final function of pb_compare_sets: the SCCG pipeline over grid tiles of the two sets (R-tree filter, exact areas on CPU threads and the GPU), totals.';

CREATE AGGREGATE pb_compare_sets(geometry, boolean) (
	SFUNC = pb_compare_sets_transfn,
	STYPE = internal,
	FINALFUNC = pb_compare_sets_finalfn,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = pb_compare_sets_combinefn,
	SERIALFUNC = pb_compare_sets_serialfn,
	DESERIALFUNC = pb_compare_sets_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pb_compare_sets(geometry, boolean) IS
	'Cross-comparison of two polygon sets in one scan (second argument: true for set a, false for set b), without a join: the SCCG pipeline (grid tiles, packed Hilbert R-trees, exact areas on CPU threads and the GPU, task migration). Same numbers as the Fig. 1(b) query, plus missed polygons per set.';

-- The transition state of pb_compare_sets with a key: expanded while the
-- aggregate runs; its flat form (in hex, its text) is the finished tiles'
-- exact totals, polygon counts and the ranges of keys compared.
CREATE TYPE pb_set_comparison_state;

CREATE FUNCTION pb_set_comparison_state_in(cstring) RETURNS pb_set_comparison_state
	AS 'MODULE_PATHNAME', 'pb_set_comparison_state_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_set_comparison_state_in(cstring) IS
	'Input function of pb_set_comparison_state: hex of its bytes, checked.';

CREATE FUNCTION pb_set_comparison_state_out(pb_set_comparison_state) RETURNS cstring
	AS 'MODULE_PATHNAME', 'pb_agg_state_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_set_comparison_state_out(pb_set_comparison_state) IS
	'Output function of pb_set_comparison_state: hex of the totals, counts and keys (tiles finished first).';

CREATE TYPE pb_set_comparison_state (
	INPUT = pb_set_comparison_state_in,
	OUTPUT = pb_set_comparison_state_out,
	INTERNALLENGTH = VARIABLE
);
COMMENT ON TYPE pb_set_comparison_state IS
	'Partial state of pb_compare_sets(geometry, boolean, bigint): exact totals, polygon counts and the keys compared; two combine when they share no key.';

CREATE FUNCTION pb_compare_tiles_transfn(pb_set_comparison_state, geometry, boolean, bigint)
	RETURNS pb_set_comparison_state
	AS 'MODULE_PATHNAME', 'pb_compare_tiles_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_tiles_transfn(pb_set_comparison_state, geometry, boolean, bigint) IS
	'Transition function of pb_compare_sets with a tile key: decodes one polygon into its tile; a change of tile sends the finished tile to the pipeline.';

CREATE FUNCTION pb_compare_tiles_combinefn(pb_set_comparison_state, pb_set_comparison_state)
	RETURNS pb_set_comparison_state
	AS 'MODULE_PATHNAME', 'pb_compare_tiles_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_tiles_combinefn(pb_set_comparison_state, pb_set_comparison_state) IS
	'Combine function of pb_compare_sets with a key: adds the totals of states that compared different keys; an error when a key is in both.';

CREATE FUNCTION pb_compare_tiles_finalfn(pb_set_comparison_state) RETURNS pb_set_comparison
	AS 'MODULE_PATHNAME', 'pb_compare_tiles_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_compare_tiles_finalfn(pb_set_comparison_state) IS
	'Final function of pb_compare_sets with a tile key: sends the last tile, waits for the pipeline, totals.';

-- PARALLEL RESTRICTED: PostgreSQL's parallel workers would split the rows
-- of a key; Citus's partials, one per shard, keep them whole when the key
-- is the distribution column.
CREATE AGGREGATE pb_compare_sets(geometry, boolean, bigint) (
	SFUNC = pb_compare_tiles_transfn,
	STYPE = pb_set_comparison_state,
	FINALFUNC = pb_compare_tiles_finalfn,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = pb_compare_tiles_combinefn,
	PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE pb_compare_sets(geometry, boolean, bigint) IS
	'pb_compare_sets with a tile key (third argument): only polygons of the same tile are compared (the Fig. 1(b) query with a.tile = b.tile); each tile goes to the pipeline as soon as the rows move on to another tile, so rows ordered by tile stream through it during the scan.';

CREATE FUNCTION pb_pipeline_report(OUT stage text, OUT device text, OUT tasks bigint,
								   OUT pairs bigint, OUT migrated bigint, OUT busy_s float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_pipeline_report'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_pipeline_report() IS
	'The last pipeline run of this backend (pb_compare_sets, pb_compare_tables, pb_compare_files): per stage (handoff, merge, tile, filter, aggregate) and device the tasks (handoff: parallel workers'' packed chunks, by device shared_memory or tuple_queue; merge: those chunks unpacked), the pairs found (filter) or computed (aggregate), the tasks moved there by migration, and busy seconds summed over threads; the balance row counts the tasks that filter threads finding the GPU congested left to it, because at the rates measured in the run it would finish them sooner than they could; the upload row''s tasks is 1 when the GPU held the run''s polygons (copied once, not with every batch), its busy_s the seconds of that copy; the total row gives the wall time.';

CREATE FUNCTION pb_compare_tables(table_a regclass, column_a name, table_b regclass, column_b name)
	RETURNS pb_set_comparison
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path FROM CURRENT
	AS $$
DECLARE
	result pb_set_comparison;
BEGIN
	EXECUTE format('SELECT (pb_compare_sets(g, in_a)).* FROM (SELECT %I AS g, true AS in_a FROM %s '
				   'UNION ALL SELECT %I, false FROM %s) t', column_a, table_a, column_b, table_b)
		INTO result;
	RETURN result;
END
$$;
COMMENT ON FUNCTION pb_compare_tables(regclass, name, regclass, name) IS
	'pb_compare_sets over the geometry column column_a of table_a (set a) and column_b of table_b (set b).';

CREATE FUNCTION pb_compare_tables(table_a regclass, column_a name, table_b regclass, column_b name,
								  key_column name)
	RETURNS pb_set_comparison
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path FROM CURRENT
	AS $$
DECLARE
	result pb_set_comparison;
BEGIN
	IF table_a IS NULL OR column_a IS NULL OR table_b IS NULL OR column_b IS NULL OR key_column IS NULL THEN
		RAISE EXCEPTION 'pb_compare_tables: the tables and their columns must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	-- the aggregate once, in a subquery: (pb_compare_sets(...)).* would make
	-- Citus ship its state once per field
	EXECUTE format('SELECT (s).* FROM (SELECT pb_compare_sets(g, in_a, k) AS s FROM '
				   '(SELECT %I AS k, %I AS g, true AS in_a FROM %s '
				   'UNION ALL SELECT %I, %I, false FROM %s) t) x',
				   key_column, column_a, table_a, key_column, column_b, table_b)
		INTO result;
	RETURN result;
END
$$;
COMMENT ON FUNCTION pb_compare_tables(regclass, name, regclass, name, name) IS
	'pb_compare_sets(geom, in_a, key) over column_a of table_a (set a) and column_b of table_b (set b), keyed by key_column of both (an integer column, e.g. the slide): only polygons of the same key are compared. On Citus tables distributed by key_column it runs as partials on the workers.';

CREATE FUNCTION pb_intersecting_pairs(table_a regclass, id_column_a name, geom_column_a name,
									  table_b regclass, id_column_b name, geom_column_b name)
	RETURNS TABLE (id_a bigint, id_b bigint, area_a float8, area_b float8, area_intersection float8)
	AS 'MODULE_PATHNAME', 'pb_intersecting_pairs'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED
	SET search_path FROM CURRENT;
COMMENT ON FUNCTION pb_intersecting_pairs(regclass, name, name, regclass, name, name) IS
	'One row per pair of polygons of table_a and table_b whose intersection area is > 0: their ids, the area of each (ST_Area), and the exact intersection area; the pairs are found and computed by the SCCG pipeline (no join), in no particular order.';

-- Instance metrics -------------------------------------------------------------
-- stardist.matching's figures, HoVer-Net's AJI, AJI+ and pixel Dice, from the
-- exact areas of the pairs the pipeline finds (doc/metrics.md).

CREATE TYPE pb_match_stats_result AS (
	n_true bigint,				-- objects of set a, the reference (non-NULL geometries)
	n_pred bigint,				-- objects of set b, the prediction
	tp bigint,					-- matched pairs: one-to-one, IoU >= threshold
	fp bigint,					-- n_pred - tp
	fn bigint,					-- n_true - tp
	precision float8,			-- tp / (tp + fp)
	recall float8,				-- tp / (tp + fn)
	accuracy float8,			-- tp / (tp + fp + fn)
	f1 float8,					-- 2 tp / (2 tp + fp + fn)
	mean_true_score float8,		-- sum of matched IoUs / n_true
	mean_matched_score float8,	-- sum of matched IoUs / tp
	panoptic_quality float8,	-- sum of matched IoUs / (tp + fp/2 + fn/2)
	sq float8,					-- segmentation quality: mean_matched_score
	dq float8,					-- detection quality: tp / (tp + fp/2 + fn/2); pq = sq * dq
	aji float8,					-- aggregated Jaccard index (Kumar et al.; HoVer-Net's get_fast_aji)
	aji_plus float8,			-- AJI over a one-to-one matching of maximum IoU (HoVer-Net)
	dice_pixel float8,			-- 2|A∩B| / (|A| + |B|) of the unions A, B of the sets
	threshold float8			-- the IoU threshold of the matching
);
COMMENT ON TYPE pb_match_stats_result IS
	'Result of pb_match_stats: stardist.matching''s figures (every division by 0 gives 0), HoVer-Net''s sq, dq, AJI, AJI+ and pixel Dice.';

CREATE FUNCTION pb_match_stats_transfn(internal, geometry, boolean, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_match_stats_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_stats_transfn(internal, geometry, boolean, float8) IS
	'Transition function of pb_match_stats: decodes one polygon of set a (true) or b (false) and checks the IoU threshold.';

CREATE FUNCTION pb_match_stats_default_transfn(internal, geometry, boolean) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_match_stats_default_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_stats_default_transfn(internal, geometry, boolean) IS
	'Transition function of pb_match_stats at the default IoU threshold 0.5.';

CREATE FUNCTION pb_match_stats_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_match_stats_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_stats_combinefn(internal, internal) IS
	'Combine function of pb_match_stats: merges the decoded polygons (thresholds must agree).';

CREATE FUNCTION pb_match_stats_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'pb_match_stats_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_stats_serialfn(internal) IS
	'Serialization function of pb_match_stats.';

CREATE FUNCTION pb_match_stats_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_match_stats_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_stats_deserialfn(bytea, internal) IS
	'Deserialization function of pb_match_stats.';

CREATE FUNCTION pb_match_stats_finalfn(internal) RETURNS pb_match_stats_result
	AS 'MODULE_PATHNAME', 'pb_match_stats_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_stats_finalfn(internal) IS
	'Final function of pb_match_stats: every overlapping pair from the SCCG pipeline with its exact area, then the matchings and the metrics.';

CREATE AGGREGATE pb_match_stats(geometry, boolean, float8) (
	SFUNC = pb_match_stats_transfn,
	STYPE = internal,
	FINALFUNC = pb_match_stats_finalfn,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = pb_match_stats_combinefn,
	SERIALFUNC = pb_match_stats_serialfn,
	DESERIALFUNC = pb_match_stats_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pb_match_stats(geometry, boolean, float8) IS
	'Instance metrics of two polygon sets in one scan (second argument: true for set a, the reference; false for set b, the prediction; third: the IoU threshold in [0, 1], the same in every row): stardist.matching''s tp, fp, fn, precision, recall, accuracy, f1, mean scores and panoptic quality (sq, dq), AJI, AJI+ and pixel Dice. NULL geometries take no part.';

CREATE AGGREGATE pb_match_stats(geometry, boolean) (
	SFUNC = pb_match_stats_default_transfn,
	STYPE = internal,
	FINALFUNC = pb_match_stats_finalfn,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = pb_match_stats_combinefn,
	SERIALFUNC = pb_match_stats_serialfn,
	DESERIALFUNC = pb_match_stats_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pb_match_stats(geometry, boolean) IS
	'pb_match_stats at the IoU threshold 0.5.';

-- The transition state of pb_match_stats with a key: expanded while the
-- aggregate runs; its flat form (in hex, its text) is the threshold, the
-- metrics' additive parts (counts and exact sums) summed over the keys
-- matched, and the ranges of those keys.
CREATE TYPE pb_match_state;

CREATE FUNCTION pb_match_state_in(cstring) RETURNS pb_match_state
	AS 'MODULE_PATHNAME', 'pb_match_state_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_state_in(cstring) IS
	'Input function of pb_match_state: hex of its bytes, checked.';

CREATE FUNCTION pb_match_state_out(pb_match_state) RETURNS cstring
	AS 'MODULE_PATHNAME', 'pb_agg_state_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_state_out(pb_match_state) IS
	'Output function of pb_match_state: hex of the threshold, parts and keys (keys left are matched first).';

CREATE TYPE pb_match_state (
	INPUT = pb_match_state_in,
	OUTPUT = pb_match_state_out,
	INTERNALLENGTH = VARIABLE
);
COMMENT ON TYPE pb_match_state IS
	'Partial state of pb_match_stats(geometry, boolean, float8, bigint): the IoU threshold, the metrics'' counts and exact sums over the keys matched, and those keys; two combine when they share no key and have the same threshold.';

CREATE FUNCTION pb_match_keyed_transfn(pb_match_state, geometry, boolean, float8, bigint)
	RETURNS pb_match_state
	AS 'MODULE_PATHNAME', 'pb_match_keyed_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_keyed_transfn(pb_match_state, geometry, boolean, float8, bigint) IS
	'Transition function of pb_match_stats with a key: checks the IoU threshold and decodes one polygon into its key''s sets.';

CREATE FUNCTION pb_match_keyed_combinefn(pb_match_state, pb_match_state) RETURNS pb_match_state
	AS 'MODULE_PATHNAME', 'pb_match_keyed_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_keyed_combinefn(pb_match_state, pb_match_state) IS
	'Combine function of pb_match_stats with a key: adds the parts of states that matched different keys at the same threshold; an error otherwise.';

CREATE FUNCTION pb_match_keyed_finalfn(pb_match_state) RETURNS pb_match_stats_result
	AS 'MODULE_PATHNAME', 'pb_match_keyed_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_match_keyed_finalfn(pb_match_state) IS
	'Final function of pb_match_stats with a key: matches the keys left, then the metrics from the parts summed over keys.';

-- PARALLEL RESTRICTED: PostgreSQL's parallel workers would split the rows
-- of a key; Citus's partials, one per shard, keep them whole when the key
-- is the distribution column.
CREATE AGGREGATE pb_match_stats(geometry, boolean, float8, bigint) (
	SFUNC = pb_match_keyed_transfn,
	STYPE = pb_match_state,
	FINALFUNC = pb_match_keyed_finalfn,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = pb_match_keyed_combinefn,
	PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE pb_match_stats(geometry, boolean, float8, bigint) IS
	'pb_match_stats with a key (fourth argument, a slide say): only polygons of the same key are paired and matched, each key on its own, and the figures come from the sums over keys of their parts (n_true, n_pred, tp, matched IoUs, AJI''s and AJI+''s intersections and unions, pixel Dice''s areas), so AJI over keys is their summed intersections over their summed unions (doc/metrics.md). With one key, the same as pb_match_stats over the rows. Rows with a NULL geometry or key take no part. Pushed down to Citus workers as partials when the key is the distribution column.';

CREATE FUNCTION pb_match_objects(table_a regclass, id_column_a name, geom_column_a name,
								 table_b regclass, id_column_b name, geom_column_b name,
								 iou_threshold float8 DEFAULT 0.5)
	RETURNS TABLE (in_a boolean, id bigint, match_id bigint, iou float8, status text)
	AS 'MODULE_PATHNAME', 'pb_match_objects'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED
	SET search_path FROM CURRENT;
COMMENT ON FUNCTION pb_match_objects(regclass, name, name, regclass, name, name, float8) IS
	'The matching of pb_match_stats per object, one row for each polygon of table_a (the reference) and table_b: status tp with the id of its partner and their IoU, or fn (table_a) / fp (table_b) with match_id NULL and its largest IoU with any polygon of the other table (0 when none overlaps it). Rows of table_a come first.';

-- Where two segmentations disagree ---------------------------------------------
-- The matching of pb_match_objects per tile of the slide, and its misses as
-- objects QuPath can show (doc/disagreement.md).

CREATE FUNCTION pb_tile_agreement(table_a regclass, id_column_a name, geom_column_a name,
								  table_b regclass, id_column_b name, geom_column_b name,
								  tile_size float8, iou_threshold float8 DEFAULT 0.5)
	RETURNS TABLE (tile_x integer, tile_y integer, tile geometry,
				   n_true bigint, n_pred bigint, tp bigint, fp bigint, fn bigint,
				   f1 float8, pq float8, jaccard float8, pairs bigint)
	AS 'MODULE_PATHNAME', 'pb_tile_agreement'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED
	SET search_path FROM CURRENT;
COMMENT ON FUNCTION pb_tile_agreement(regclass, name, name, regclass, name, name, float8, float8) IS
	'pb_match_objects'' matching of table_a (the reference) and table_b, counted per tile of a grid of tile_size squares anchored at (0, 0): each object in the tile of its bounding box''s centre, a matched prediction and every overlapping pair in their reference object''s tile, so the rows add up to pb_match_stats. One row per tile holding an object, in tile order (y, then x): the tile''s numbers and square, n_true, n_pred (tp + fp), tp, fp, fn, f1, pq, jaccard (J'', the mean IoU of its overlapping pairs; NULL without one) and pairs. EMPTY geometries make a row of NULL tile.';

-- The ids of table's geometries, checked: none NULL, none twice.
CREATE FUNCTION pb_check_object_ids(caller text, tab regclass, id_column name, geom_column name)
	RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path FROM CURRENT
	AS $$
DECLARE
	bad bigint;
	found_bad boolean;
BEGIN
	IF tab IS NULL OR id_column IS NULL OR geom_column IS NULL THEN
		RAISE EXCEPTION '%: the tables and their columns must not be NULL', caller
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	EXECUTE format('SELECT true, id FROM (SELECT %I::bigint AS id FROM %s WHERE %I IS NOT NULL) t '
				   'GROUP BY id HAVING count(*) > 1 OR id IS NULL ORDER BY id NULLS FIRST LIMIT 1',
				   id_column, tab, geom_column)
		INTO found_bad, bad;
	IF found_bad AND bad IS NULL THEN
		RAISE EXCEPTION '%: column % of % has NULL ids', caller, quote_ident(id_column), tab
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Every polygon must have an id of its own to be found again.';
	ELSIF found_bad THEN
		RAISE EXCEPTION '%: id % appears more than once in column % of %', caller, bad,
			quote_ident(id_column), tab
			USING ERRCODE = 'unique_violation',
				  HINT = 'Every polygon must have an id of its own to be found again.';
	END IF;
END
$$;
COMMENT ON FUNCTION pb_check_object_ids(text, regclass, name, name) IS
	'Raises an error naming caller when a table or column is NULL or the ids of the non-NULL geometries of a table are NULL or not unique (pb_disagreements).';

CREATE FUNCTION pb_disagreements(table_a regclass, id_column_a name, geom_column_a name,
								 table_b regclass, id_column_b name, geom_column_b name,
								 iou_threshold float8 DEFAULT 0.5, low_iou float8 DEFAULT 0.7)
	RETURNS TABLE (in_a boolean, id bigint, match_id bigint, iou float8, status text, geom geometry)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path FROM CURRENT
	AS $$
BEGIN
	IF iou_threshold IS NULL OR NOT (iou_threshold >= 0 AND iou_threshold <= 1) THEN
		RAISE EXCEPTION 'pb_disagreements: iou_threshold must be between 0 and 1, not %', coalesce(iou_threshold::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF low_iou IS NULL OR NOT (low_iou >= 0 AND low_iou <= 1) THEN
		RAISE EXCEPTION 'pb_disagreements: low_iou must be between 0 and 1, not %', coalesce(low_iou::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	PERFORM pb_check_object_ids('pb_disagreements', table_a, id_column_a, geom_column_a);
	PERFORM pb_check_object_ids('pb_disagreements', table_b, id_column_b, geom_column_b);
	RETURN QUERY EXECUTE format(
		'SELECT o.in_a, o.id, o.match_id, o.iou, '
		'       CASE o.status WHEN ''tp'' THEN ''low_iou'' ELSE o.status END, g.geom '
		'FROM pb_match_objects($1, $2, $3, $4, $5, $6, $7) o '
		'JOIN (SELECT true AS in_a, a.%I::bigint AS id, a.%I::geometry AS geom FROM %s a '
		'      UNION ALL SELECT false, b.%I::bigint, b.%I::geometry FROM %s b) g '
		'  ON g.in_a = o.in_a AND g.id = o.id AND g.geom IS NOT NULL '
		'WHERE o.status <> ''tp'' OR o.iou < $8 '
		'ORDER BY o.in_a DESC, o.id',
		id_column_a, geom_column_a, table_a, id_column_b, geom_column_b, table_b)
		USING table_a, id_column_a, geom_column_a, table_b, id_column_b, geom_column_b,
			  iou_threshold, low_iou;
END
$$;
COMMENT ON FUNCTION pb_disagreements(regclass, name, name, regclass, name, name, float8, float8) IS
	'The objects where table_a (the reference) and table_b disagree, with their geometries: fn (a reference object no prediction matches), fp (a prediction matching none), and low_iou (both objects of a matched pair whose IoU is below low_iou), with pb_match_objects'' match_id and iou (for fn and fp the largest IoU with any object of the other table). Reference rows first, by id. Ids must be unique and not NULL.';

CREATE FUNCTION pb_disagreement_geojson(table_a regclass, id_column_a name, geom_column_a name,
										table_b regclass, id_column_b name, geom_column_b name,
										iou_threshold float8 DEFAULT 0.5, low_iou float8 DEFAULT 0.7,
										object_type text DEFAULT 'detection')
	RETURNS json
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path FROM CURRENT
	AS $$
DECLARE
	result json;
BEGIN
	IF object_type IS NULL OR object_type NOT IN ('detection', 'annotation') THEN
		RAISE EXCEPTION 'pb_disagreement_geojson: object_type must be ''detection'' or ''annotation'', not %',
			coalesce(quote_literal(object_type), 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT json_build_object('type', 'FeatureCollection', 'features',
			   coalesce(json_agg(json_build_object(
				   'type', 'Feature',
				   'id', md5(format('pixelbox %s %s', d.in_a, d.id))::uuid,
				   'geometry', ST_AsGeoJSON(d.geom, 15, 0)::json,
				   'properties', json_build_object(
					   'objectType', object_type,
					   'name', format('%s %s', CASE WHEN d.in_a THEN table_a ELSE table_b END, d.id),
					   'classification', json_build_object(
						   'name', c.name,
						   'color', c.color),
					   'measurements', json_strip_nulls(json_build_object(
						   'IoU', d.iou,
						   'Object id', d.id,
						   'Matched id', d.match_id,
						   'In reference', CASE WHEN d.in_a THEN 1 ELSE 0 END))))
				   ORDER BY NOT d.in_a, d.id), '[]'::json))
		INTO result
		FROM pb_disagreements(table_a, id_column_a, geom_column_a, table_b, id_column_b,
							  geom_column_b, iou_threshold, low_iou) d
		JOIN (VALUES ('fn', 'FN', json_build_array(230, 40, 40)),
					 ('fp', 'FP', json_build_array(40, 120, 230)),
					 ('low_iou', 'Low IoU', json_build_array(240, 170, 20))) c(status, name, color)
		  ON c.status = d.status
		WHERE NOT ST_IsEmpty(d.geom);
	RETURN result;
END
$$;
COMMENT ON FUNCTION pb_disagreement_geojson(regclass, name, name, regclass, name, name, float8, float8, text) IS
	'pb_disagreements as a GeoJSON FeatureCollection QuPath imports (File > Import objects, or drag and drop): each object a detection (or annotation) classified FN, FP or Low IoU, with its IoU, id, matched id and set (In reference: 1 for table_a) as measurements and its table and id as name; EMPTY geometries, which have nothing to show, are left out. Coordinates as stored (QuPath: image pixels, y down), up to 15 decimals.';

-- Heat maps -----------------------------------------------------------------------
-- One value per tile (pb_tile_agreement's f1, pq, jaccard ...) drawn as a
-- PNG heat map (doc/heatmap.md).

CREATE FUNCTION pb_heatmap_png_transfn(internal, integer, integer, float8) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_heatmap_png_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_heatmap_png_transfn(internal, integer, integer, float8) IS
	'Transition function of pb_heatmap_png: checks and keeps one tile, 8 pixels a side.';

CREATE FUNCTION pb_heatmap_png_cell_transfn(internal, integer, integer, float8, integer) RETURNS internal
	AS 'MODULE_PATHNAME', 'pb_heatmap_png_cell_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_heatmap_png_cell_transfn(internal, integer, integer, float8, integer) IS
	'Transition function of pb_heatmap_png with cell_pixels: checks and keeps one tile.';

CREATE FUNCTION pb_heatmap_png_finalfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'pb_heatmap_png_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_heatmap_png_finalfn(internal) IS
	'Final function of pb_heatmap_png: draws the tiles and encodes the PNG (NULL without rows).';

CREATE AGGREGATE pb_heatmap_png(tile_x integer, tile_y integer, value float8) (
	SFUNC = pb_heatmap_png_transfn,
	STYPE = internal,
	FINALFUNC = pb_heatmap_png_finalfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pb_heatmap_png(integer, integer, float8) IS
	'A PNG heat map (RGBA, 8 bits) of one value per tile, each tile a square of 8 x 8 pixels: columns tile_x from its smallest to its largest, rows tile_y likewise with the smallest at the top (y down, as the slide image). Colour: matplotlib''s viridis at value in [0, 1] (index rint(value * 255)); a NULL value mid grey; a tile without a row transparent; rows whose tile_x or tile_y is NULL skipped. Each tile once; NULL without rows.';

CREATE AGGREGATE pb_heatmap_png(tile_x integer, tile_y integer, value float8, cell_pixels integer) (
	SFUNC = pb_heatmap_png_cell_transfn,
	STYPE = internal,
	FINALFUNC = pb_heatmap_png_finalfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pb_heatmap_png(integer, integer, float8, integer) IS
	'pb_heatmap_png with each tile a square of cell_pixels (1 to 256, the same in every row) pixels a side; at most 16384 pixels on a side and 2^28 bytes of RGBA.';

-- Polygon text files -----------------------------------------------------------

CREATE FUNCTION pb_read_polygons(path text, OUT line_number bigint, OUT id bigint, OUT geom geometry)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_read_polygons'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_read_polygons(text) IS
	'The polygons of a text file on the server, one per line: WKT (POLYGON, MULTIPOLYGON) optionally preceded by an id, or "id x1 y1 x2 y2 ..." (one ring); blank and # lines skipped. Superusers and pg_read_server_files only.';

CREATE FUNCTION pb_compare_files(files_a text[], files_b text[]) RETURNS pb_set_comparison
	AS 'MODULE_PATHNAME', 'pb_compare_files'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_compare_files(text[], text[]) IS
	'pb_compare_sets over two lists of polygon files on the server (a directory stands for all its files), without loading them: polygon text, *.geojson (QuPath GeoJSON, its geometry) and *.json (GeoJSON, or HoVer-Net with pixel-edge polygons). Superusers and pg_read_server_files only.';

-- GeoJSON and HoVer-Net JSON files ----------------------------------------------

CREATE FUNCTION pb_read_geojson(path text, geometry_member text DEFAULT 'geometry',
		OUT feature bigint, OUT id text, OUT object_type text, OUT classification text,
		OUT measurements jsonb, OUT geom geometry)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_read_geojson'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_read_geojson(text, text) IS
	'The features of a GeoJSON file on the server as QuPath writes it (a FeatureCollection or a bare array of features), one row each: its number in the file, id, properties.objectType, classification name, measurements (one object) and its Polygon or MultiPolygon (SRID 0, image coordinates) from geometry_member ''geometry'' or ''nucleusGeometry'' (NULL where a feature has none). Superusers and pg_read_server_files only.';

CREATE FUNCTION pb_read_hovernet(path text, contour text DEFAULT 'pixel_edges',
		OUT nucleus text, OUT type int, OUT type_prob float8, OUT geom geometry)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_read_hovernet'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_read_hovernet(text, text) IS
	'The nuclei of a HoVer-Net JSON file on the server ("nuc": {id: {contour, type, type_prob, ...}}), one row each: its id, type, type_prob and polygon (SRID 0): with contour ''pixel_edges'' the pixels HoVer-Net fills from the contour (centres inside or on it) outlined along pixel edges, as QuPath and label images are; with ''as_written'' the contour through pixel centres, unchanged. Superusers and pg_read_server_files only.';

-- Label images -------------------------------------------------------------------
-- StarDist / Cellpose label images (one band of unsigned labels, 0 the
-- background) to one polygon per label, along pixel edges, exactly.

CREATE FUNCTION pb_read_labels(path text, OUT label bigint, OUT pixels bigint, OUT geom geometry)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_read_labels'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_read_labels(text) IS
	'One row per label of a TIFF (8, 16, 32 or 1-bit, strips or tiles, BigTIFF, compressed) or PNG (1-16-bit gray) label image on the server, in label order: its pixel count and its outline along pixel edges (POLYGON with holes, MULTIPOLYGON when in several 4-connected parts) in image coordinates (x = column, y = row, y down; SRID 0). Superusers and pg_read_server_files only.';

CREATE FUNCTION pb_labels_to_polygons(rast bytea, band int DEFAULT 1, space text DEFAULT 'pixel',
									  OUT label bigint, OUT pixels bigint, OUT geom geometry)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_labels_to_polygons_wkb'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_labels_to_polygons(bytea, int, text) IS
	'One row per nonzero label of one band (8BUI, 16BUI, 32BUI, 1BB, 2BUI, 4BUI; nodata is background) of a raster WKB, in label order: its pixel count and its outline along pixel edges. space pixel: image coordinates (column, row, y down; SRID 0) whatever the georeference; world: through the raster''s georeference and SRID, as ST_DumpAsPolygons and ST_Union give them.';

-- Raster operations on raster WKB (ST_AsWKB(raster) / ST_RastFromWKB) ------------
-- The raster-typed forms are in the pixelbox_raster extension; these work
-- without postgis_raster.

CREATE FUNCTION pb_reconstruct(marker bytea, mask bytea, connectivity int DEFAULT 8,
							   method text DEFAULT 'dilation', band int DEFAULT 1)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'pb_reconstruct_wkb'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_reconstruct(bytea, bytea, int, text, int) IS
	'Gray-scale morphological reconstruction of marker under mask (method dilation) or above it (erosion), 4- or 8-connected, on one band of two aligned raster WKBs (1BB, 8BUI, 16BUI, 32BF). A marker crossing the mask is clipped to it; nodata and NaN mask pixels are walls. Returns a raster WKB on the same grid.';

CREATE FUNCTION pb_fill_holes(image bytea, connectivity int DEFAULT 4, band int DEFAULT 1)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'pb_fill_holes_wkb'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pb_fill_holes(bytea, int, int) IS
	'Fill the holes of one band of a raster WKB: every dark region not reached from the image border (by a flood of the given connectivity) is raised to its surroundings (reconstruction by erosion from the border).';

CREATE FUNCTION pb_distance_transform(mask bytea, band int DEFAULT 1,
									  spacing float8[] DEFAULT NULL,
									  with_index boolean DEFAULT false)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'pb_distance_transform_wkb'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_distance_transform(bytea, int, float8[], boolean) IS
	'Exact Euclidean distance of every nonzero pixel of one band of a raster WKB to the nearest zero or nodata pixel, as a 32BF raster WKB on the same grid (spacing: {row step, column step}, default {1,1}); with_index adds the column and row (1-based) of that nearest pixel as bands 2 and 3.';

CREATE FUNCTION pb_watershed(image bytea, markers bytea DEFAULT NULL,
							 connectivity int DEFAULT 8, mask bytea DEFAULT NULL,
							 watershed_line boolean DEFAULT false, band int DEFAULT 1,
							 label_type text DEFAULT '32BUI')
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'pb_watershed_wkb'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION pb_watershed(bytea, bytea, int, bytea, boolean, int, text) IS
	'Watershed of one band of a raster WKB (1BB, 8BUI, 16BUI, 32BF heights), 4- or 8-connected, deterministic: marker-less (every regional minimum a basin, numbered 1, 2, ... in row-major order) when markers is NULL, else flooded from the nonzero labels of an integer markers raster (pixels no marker reaches get 0). Pixels outside the optional mask (zero, nodata, NaN), nodata and NaN image pixels get 0; watershed_line sets the pixels where basins meet to 0. Returns a raster WKB of label_type (32BUI, 16BUI or 8BUI) with nodata 0 on the image''s grid.';

-- Coverage functions: the raster operations over a tiles query (one row per
-- tile; columns found by name, raster WKB here, rasters in pixelbox_raster),
-- each slide as one image; one output row per input tile.
CREATE FUNCTION pb_coverage_reconstruct_wkb(tiles text, connectivity int DEFAULT 8,
											method text DEFAULT 'dilation', band int DEFAULT 1)
	RETURNS TABLE (slide text, tile_x int, tile_y int, rast bytea)
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'pb_coverage_reconstruct';
COMMENT ON FUNCTION pb_coverage_reconstruct_wkb(text, int, text, int) IS
	'pb_reconstruct over whole slides stored as tiles: tiles is a query returning one row per tile with columns marker and mask (raster WKB) and optionally slide (the slide key); each slide''s tiles must form one grid, missing tiles are nodata. One row per tile: slide (as text), tile_x and tile_y (the tile''s cell) and the result on the tile''s grid, equal to pb_reconstruct on the slide''s mosaic.';

CREATE FUNCTION pb_coverage_fill_holes_wkb(tiles text, connectivity int DEFAULT 4,
										   band int DEFAULT 1)
	RETURNS TABLE (slide text, tile_x int, tile_y int, rast bytea)
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'pb_coverage_fill_holes';
COMMENT ON FUNCTION pb_coverage_fill_holes_wkb(text, int, int) IS
	'pb_fill_holes over whole slides stored as tiles (column rast, optional slide): holes are those of the whole slide. One row per tile: slide, tile_x, tile_y and the result on the tile''s grid.';

CREATE FUNCTION pb_coverage_distance_transform_wkb(tiles text, band int DEFAULT 1,
												   spacing float8[] DEFAULT NULL,
												   with_index boolean DEFAULT false)
	RETURNS TABLE (slide text, tile_x int, tile_y int, rast bytea)
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'pb_coverage_distance_transform';
COMMENT ON FUNCTION pb_coverage_distance_transform_wkb(text, int, float8[], boolean) IS
	'pb_distance_transform over whole slides stored as tiles (column rast, optional slide): distances cross tile borders. with_index gives the column and row of the nearest background pixel in the slide''s grid (1-based from the upper-left corner of the upper-left tile''s cell). One row per tile.';

CREATE FUNCTION pb_coverage_watershed_wkb(tiles text, connectivity int DEFAULT 8,
										  watershed_line boolean DEFAULT false,
										  band int DEFAULT 1, label_type text DEFAULT '32BUI')
	RETURNS TABLE (slide text, tile_x int, tile_y int, rast bytea)
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'pb_coverage_watershed';
COMMENT ON FUNCTION pb_coverage_watershed_wkb(text, int, boolean, int, text) IS
	'pb_watershed over whole slides stored as tiles: column rast (heights), optional markers and mask, optional slide. Basins cross tile borders; marker-less basins are numbered per slide in row-major order of the slide. One row per tile: slide, tile_x, tile_y and the labels on the tile''s grid.';

CREATE FUNCTION pb_raster_report(OUT operation text, OUT stage text, OUT device text,
								 OUT seconds float8, OUT tiles bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_raster_report'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_raster_report() IS
	'Where the time of this backend''s last raster call went (pb_reconstruct, pb_fill_holes, pb_distance_transform, pb_watershed, the coverage functions (each stage summed over the slides), and the raster-typed functions of pixelbox_raster that call them): stages detoast (the arguments'' values, decompressed), fetch (coverage functions: the tiles query run and its values decompressed), read (raster WKB parsed, pixels converted, nodata found), prepare (walls, clipping, the foreground), compute (device cpu or gpu; on the GPU its kernels and copies as rows gpu kernels (tiles: the tiles the image was cut into, 1 when whole) and gpu copies), finish (nodata restored, labels narrowed, index bands), write (the result raster WKB) and total; with pixelbox.device = hybrid a reconstruction''s compute stage has device hybrid, and rows busy per device (seconds summed over its threads, tiles: the regions it ran) and cells (tiles: the cells of the image); a row mapped counts (tiles) the images put in temporary files past pixelbox.host_memory. Not what follows the call (the executor, TOAST compression of a stored result). No rows before the first call, nor after one that failed.';

-- Progress ---------------------------------------------------------------------
-- A long comparison's progress seen from another session (doc/progress.md);
-- needs pixelbox in shared_preload_libraries.

CREATE FUNCTION pb_progress(OUT pid int, OUT operation text, OUT phase text, OUT done bigint,
							OUT total bigint, OUT pairs bigint, OUT elapsed_s float8,
							OUT eta_s float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pb_progress'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION pb_progress() IS
	'One row per backend running a pixelbox comparison (pb_compare_sets, pb_compare_tables, pb_compare_files, pb_intersecting_pairs, pb_match_stats, pb_match_objects (and pb_disagreements through it), pb_tile_agreement): its pid, the SQL function (operation), the phase (scan: rows read by the aggregate; parse: files parsed; unpack: parallel workers'' chunks unpacked; compare: the pipeline''s tiles), steps done of total (NULL: not known yet), pairs computed, seconds since it began, and seconds left at the phase''s pace so far (NULL: not known). Other roles'' rows only for members of pg_read_all_stats. Needs pixelbox in shared_preload_libraries.';

CREATE VIEW pb_progress AS SELECT * FROM pb_progress();
COMMENT ON VIEW pb_progress IS
	'The comparisons running now, one row per backend (pb_progress()).';
GRANT SELECT ON pb_progress TO PUBLIC;
