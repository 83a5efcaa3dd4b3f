-- Partial states: jaccard_gpu, pb_cross_compare and the keyed
-- pb_compare_sets keep concrete state types, so that Citus (or anyone) can
-- run them per shard, ship the states as text and combine them.  Here the
-- shards are groups of one table: each group's state goes through its
-- text form, the combine function adds them, and the final function must
-- give the answer of the aggregate over all rows, bit for bit.
SET extra_float_digits = 3;
CREATE TABLE cells (slide int, algorithm text, id bigint, geom geometry);
CREATE TEMP TABLE load (id bigint, geom geometry);
\copy load FROM PROGRAM './bench/pbgen --polygons 1200 --seed 8 --set a'
INSERT INTO cells SELECT 1 + id % 4, 'A', id, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 1200 --seed 8 --set b'
INSERT INTO cells SELECT 1 + id % 4, 'B', id, geom FROM load;
-- slide 4 gets smoothed general polygons too (not rectilinear)
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 300 --seed 3 --style smooth --set a'
INSERT INTO cells SELECT 4, 'A', id + 10000, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 300 --seed 3 --style smooth --set b'
INSERT INTO cells SELECT 4, 'B', id + 10000, geom FROM load;

-- what Citus runs: the transition function alone on each shard, the state
-- out as text, in again, the combine function on the coordinator, the final
CREATE AGGREGATE partial_compare(geometry, geometry) (
	SFUNC = pb_compare_transfn, STYPE = pb_comparison_state);
CREATE AGGREGATE combine_jaccard(pb_comparison_state) (
	SFUNC = pb_compare_combinefn, STYPE = pb_comparison_state, FINALFUNC = pb_jaccard_finalfn);
CREATE AGGREGATE combine_compare(pb_comparison_state) (
	SFUNC = pb_compare_combinefn, STYPE = pb_comparison_state, FINALFUNC = pb_cross_compare_finalfn);
CREATE AGGREGATE partial_sets(geometry, boolean, bigint) (
	SFUNC = pb_compare_tiles_transfn, STYPE = pb_set_comparison_state);
CREATE AGGREGATE combine_sets(pb_set_comparison_state) (
	SFUNC = pb_compare_tiles_combinefn, STYPE = pb_set_comparison_state,
	FINALFUNC = pb_compare_tiles_finalfn);

CREATE TEMP TABLE joined AS
SELECT p.slide, p.geom AS a, q.geom AS b
FROM cells p JOIN cells q ON p.slide = q.slide AND p.geom && q.geom
WHERE p.algorithm = 'A' AND q.algorithm = 'B';

-- per-slide partial states, as text (a few hundred bytes each)
CREATE TEMP TABLE shipped AS
SELECT slide, partial_compare(a, b)::text AS state FROM joined GROUP BY slide;
SELECT count(*) AS states, max(length(state)) <= 800 AS small FROM shipped;

SELECT (SELECT jaccard_gpu(a, b) FROM joined) = combine_jaccard(state::pb_comparison_state) AS jaccard_same,
       (SELECT pb_cross_compare(a, b) FROM joined) = combine_compare(state::pb_comparison_state) AS compare_same
FROM shipped;
-- row by row too, every field (float8 equality is bitwise here)
SELECT (x).* FROM (SELECT combine_compare(state::pb_comparison_state) AS x FROM shipped) s
EXCEPT SELECT (pb_cross_compare(a, b)).* FROM joined;
-- a state's text is a checked value: the same text in, the same text out
SELECT bool_and(state::pb_comparison_state::text = state) AS text_roundtrips FROM shipped;
-- the state of no rows is NULL, and combines to the empty answer
SELECT partial_compare(a, b) IS NULL AS no_rows FROM joined WHERE false;
SELECT combine_compare(s) FROM (VALUES (NULL::pb_comparison_state)) t(s);
-- NULL pairs are skipped in the partials as in the aggregate
SELECT combine_compare(state::pb_comparison_state)
FROM (SELECT partial_compare(a, b)::text AS state
      FROM (VALUES (NULL::geometry, 'POLYGON((0 0,1 0,1 1,0 1,0 0))'::geometry),
                   ('POLYGON((0 0,2 0,2 2,0 2,0 0))', 'POLYGON((1 0,3 0,3 2,1 2,1 0))')) t(a, b)) s;

-- the keyed pb_compare_sets: partials per slide (the key), combined
CREATE TEMP TABLE sets AS
SELECT slide, geom AS g, algorithm = 'A' AS in_a FROM cells;
CREATE TEMP TABLE shipped_sets AS
SELECT slide, partial_sets(g, in_a, slide)::text AS state FROM sets GROUP BY slide;
SELECT max(length(state)) <= 1000 AS small FROM shipped_sets;
SELECT (SELECT pb_compare_sets(g, in_a, slide) FROM sets) =
       combine_sets(state::pb_set_comparison_state) AS keyed_same
FROM shipped_sets;
SELECT (combine_sets(state::pb_set_comparison_state)).* FROM shipped_sets
EXCEPT SELECT (pb_compare_sets(g, in_a, slide)).* FROM sets;
-- and equal to the per-slide answers of the unkeyed form, summed
SELECT sum((r).pairs) AS pairs, sum((r).missed_a) AS missed_a, sum((r).missed_b) AS missed_b
FROM (SELECT pb_compare_sets(g, in_a) AS r FROM sets GROUP BY slide) s;
SELECT (r).pairs, (r).missed_a, (r).missed_b
FROM (SELECT combine_sets(state::pb_set_comparison_state) AS r FROM shipped_sets) s;
-- several keys in one partial (two shards of two slides each)
SELECT (SELECT pb_compare_sets(g, in_a, slide) FROM sets) =
       combine_sets(state::pb_set_comparison_state) AS two_shards_same
FROM (SELECT partial_sets(g, in_a, slide)::text AS state FROM sets GROUP BY slide % 2) t;

-- pb_compare_tables with a key column: the keyed aggregate over both tables
CREATE TABLE cells_a AS SELECT slide, geom FROM cells WHERE algorithm = 'A';
CREATE TABLE cells_b AS SELECT slide, geom AS outline FROM cells WHERE algorithm = 'B';
SELECT t = (SELECT pb_compare_sets(g, in_a, slide) FROM sets) AS keyed_tables_same
FROM pb_compare_tables('cells_a', 'geom', 'cells_b', 'outline', 'slide') t;
SELECT * FROM pb_compare_tables('cells_a', 'geom', 'cells_b', 'outline', 'no_such_key');
SELECT * FROM pb_compare_tables('cells_a', 'geom', 'cells_b', 'outline', NULL);
SELECT * FROM pb_compare_tables('cells_a', 'geom', NULL, 'outline', 'slide');
DROP TABLE cells_a, cells_b;

-- a key in two partials: its polygons were never compared across them
SELECT combine_sets(state::pb_set_comparison_state)
FROM (SELECT partial_sets(g, in_a, slide)::text AS state
      FROM (SELECT *, row_number() OVER () % 2 AS half FROM sets) s GROUP BY half) t;

-- PostgreSQL never splits the keyed form over parallel workers (a key's
-- rows would be split); jaccard_gpu still runs as parallel partials
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT pb_compare_sets(g, in_a, slide) FROM sets;
CREATE TABLE joined_plain AS SELECT * FROM joined;
ANALYZE joined_plain;
EXPLAIN (COSTS OFF) SELECT jaccard_gpu(a, b) FROM joined_plain;
SELECT jaccard_gpu(a, b) = (SELECT combine_jaccard(state::pb_comparison_state) FROM shipped) AS parallel_same
FROM joined_plain;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- bad states are refused, never trusted
SELECT 'zz'::pb_comparison_state;
SELECT '0'::pb_comparison_state;
SELECT ''::pb_comparison_state;
SELECT '02'::pb_comparison_state;
SELECT left(state, length(state) - 2)::pb_comparison_state FROM shipped ORDER BY slide LIMIT 1;
SELECT (state || '00')::pb_comparison_state FROM shipped ORDER BY slide LIMIT 1;
SELECT '01'::pb_set_comparison_state;
SELECT left(state, length(state) - 2)::pb_set_comparison_state FROM shipped_sets ORDER BY slide LIMIT 1;
-- a state of one type is not one of the other
SELECT state::pb_set_comparison_state FROM shipped ORDER BY slide LIMIT 1;
-- the support functions outside an aggregate
SELECT pb_compare_combinefn(NULL, NULL);
SELECT pb_compare_tiles_combinefn(NULL, NULL);

DROP TABLE joined_plain;
DROP AGGREGATE partial_compare(geometry, geometry);
DROP AGGREGATE combine_jaccard(pb_comparison_state);
DROP AGGREGATE combine_compare(pb_comparison_state);
DROP AGGREGATE partial_sets(geometry, boolean, bigint);
DROP AGGREGATE combine_sets(pb_set_comparison_state);
DROP TABLE cells;
