-- pb_match_stats with a key: each key (a slide) matched on its own, the
-- figures from the sums over keys of the metrics' parts.  Against the
-- unkeyed pb_match_stats per key (one key: every field bit-identical;
-- several: the counts are the sums), through partial states per key in
-- their text form and a combine aggregate (what Citus runs), with NULLs,
-- every error and bad states.
SET extra_float_digits = 3;
-- pbgen's objects overlap within a set: pb_match_stats warns of that, here
-- once a query; the WARNING is checked on its own below
SET client_min_messages = error;
CREATE TABLE cells (slide int, in_a boolean, id bigint, geom geometry);
CREATE TEMP TABLE load (id bigint, geom geometry);
\copy load FROM PROGRAM './bench/pbgen --polygons 1200 --seed 8 --set a'
INSERT INTO cells SELECT 1 + id % 4, true, id, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 1200 --seed 8 --set b'
INSERT INTO cells SELECT 1 + id % 4, false, id, geom FROM load;
-- slide 4 gets smoothed general polygons too (not rectilinear)
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 300 --seed 3 --style smooth --set a'
INSERT INTO cells SELECT 4, true, id + 10000, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 300 --seed 3 --style smooth --set b'
INSERT INTO cells SELECT 4, false, id + 10000, geom FROM load;
-- slide 5: 20_match_stats' slide worked by hand (a2 split in two halves)
INSERT INTO cells VALUES
  (5, true, 1, ST_MakeEnvelope(0, 0, 10, 10)), (5, false, 1, ST_MakeEnvelope(1, 0, 10, 10)),
  (5, true, 2, ST_MakeEnvelope(20, 0, 30, 10)), (5, false, 2, ST_MakeEnvelope(20, 0, 25, 10)),
  (5, false, 3, ST_MakeEnvelope(25, 0, 30, 10)), (5, true, 3, ST_MakeEnvelope(40, 0, 44, 4));
-- rows that take no part: NULL slide (key), NULL geometry
INSERT INTO cells VALUES (NULL, true, 1, ST_MakeEnvelope(0, 0, 10, 10)),
  (NULL, false, 1, ST_MakeEnvelope(0, 0, 10, 10)), (3, true, 99, NULL), (3, false, 99, NULL);

-- one key: every field bit-identical to pb_match_stats over the same rows,
-- per slide and with one constant key over all of them, at two thresholds
SELECT slide, pb_match_stats(geom, in_a, 0.5) = pb_match_stats(geom, in_a, 0.5, slide) AS same_05,
       pb_match_stats(geom, in_a, 0.3) = pb_match_stats(geom, in_a, 0.3, slide) AS same_03
FROM cells WHERE slide IS NOT NULL GROUP BY slide ORDER BY slide;
SELECT (pb_match_stats(geom, in_a, 0.5, 7)).* FROM cells WHERE slide IS NOT NULL
EXCEPT SELECT (pb_match_stats(geom, in_a, 0.5)).* FROM cells WHERE slide IS NOT NULL;
SELECT (pb_match_stats(geom, in_a, 0.5)).* FROM cells WHERE slide IS NOT NULL
EXCEPT SELECT (pb_match_stats(geom, in_a, 0.5, 7)).* FROM cells WHERE slide IS NOT NULL;
SELECT (pb_match_stats(geom, in_a, 0.5, slide)).* FROM cells WHERE slide = 5;

-- several keys: the counts are the sums of the per-slide counts, and the
-- ratios come from summed parts (pq from the summed matched IoUs), not
-- from means of the per-slide figures
CREATE TEMP TABLE per_slide AS
SELECT slide, (pb_match_stats(geom, in_a, 0.5)).* FROM cells WHERE slide IS NOT NULL GROUP BY slide;
SELECT sum(n_true) AS n_true, sum(n_pred) AS n_pred, sum(tp) AS tp, sum(fp) AS fp, sum(fn) AS fn,
       round((sum(mean_matched_score * tp) / (sum(tp) + sum(fp) / 2.0 + sum(fn) / 2.0))::numeric, 12) AS pq,
       round((2.0 * sum(tp) / (2 * sum(tp) + sum(fp) + sum(fn)))::numeric, 12) AS f1
FROM per_slide;
SELECT n_true, n_pred, tp, fp, fn, round(panoptic_quality::numeric, 12) AS pq, round(f1::numeric, 12) AS f1
FROM (SELECT (pb_match_stats(geom, in_a, 0.5, slide)).* FROM cells) s;
-- NULL keys and NULL geometries take no part
SELECT (SELECT pb_match_stats(geom, in_a, 0.5, slide) FROM cells) =
       (SELECT pb_match_stats(geom, in_a, 0.5, slide) FROM cells WHERE slide IS NOT NULL AND geom IS NOT NULL)
       AS nulls_skipped;

-- what Citus runs: the transition function alone per shard, the state out
-- as text, in again, the combine function on the coordinator, the final
CREATE AGGREGATE partial_match(geometry, boolean, float8, bigint) (
	SFUNC = pb_match_keyed_transfn, STYPE = pb_match_state);
CREATE AGGREGATE combine_match(pb_match_state) (
	SFUNC = pb_match_keyed_combinefn, STYPE = pb_match_state, FINALFUNC = pb_match_keyed_finalfn);
CREATE TEMP TABLE shipped AS
SELECT slide, partial_match(geom, in_a, 0.5, slide)::text AS state FROM cells GROUP BY slide;
SELECT count(*) AS states, max(length(state)) <= 1000 AS small FROM shipped;
SELECT (SELECT pb_match_stats(geom, in_a, 0.5, slide) FROM cells) =
       combine_match(state::pb_match_state) AS combined_same
FROM shipped;
SELECT (combine_match(state::pb_match_state)).* FROM shipped
EXCEPT SELECT (pb_match_stats(geom, in_a, 0.5, slide)).* FROM cells;
-- one key's partial is the unkeyed answer, bit for bit
SELECT s.slide, combine_match(state::pb_match_state) = p.r AS one_key_same
FROM shipped s JOIN (SELECT slide, pb_match_stats(geom, in_a, 0.5) AS r FROM cells GROUP BY slide) p
     ON p.slide = s.slide
GROUP BY s.slide, p.r ORDER BY s.slide;
-- several keys in one partial (two shards)
SELECT (SELECT pb_match_stats(geom, in_a, 0.5, slide) FROM cells) =
       combine_match(state::pb_match_state) AS two_shards_same
FROM (SELECT partial_match(geom, in_a, 0.5, slide)::text AS state FROM cells GROUP BY slide % 2) t;
-- a state's text is a checked value: the same text in, the same text out
SELECT bool_and(state::pb_match_state::text = state) AS text_roundtrips FROM shipped;
-- no rows: a NULL state, zeros and a NULL threshold, as pb_match_stats
SELECT partial_match(geom, in_a, 0.5, slide) IS NULL AS no_rows FROM cells WHERE false;
SELECT (combine_match(s)).* FROM (VALUES (NULL::pb_match_state)) t(s);
SELECT pb_match_stats(geom, in_a, 0.5, slide) = pb_match_stats(geom, in_a, 0.5) AS empty_same
FROM cells WHERE false;
-- only NULL geometries or keys: zeros at the threshold
SELECT (pb_match_stats(geom, in_a, 0.4, slide)).* FROM cells WHERE slide IS NULL OR geom IS NULL;

-- a key in two partials: its polygons were never matched across them
SELECT combine_match(state::pb_match_state)
FROM (SELECT partial_match(geom, in_a, 0.5, slide)::text AS state
      FROM (SELECT *, row_number() OVER () % 2 AS half FROM cells) s GROUP BY half) t;
-- partials at different thresholds
SELECT combine_match(state::pb_match_state)
FROM (SELECT partial_match(geom, in_a, 0.3 + 0.1 * (slide % 2), slide)::text AS state
      FROM cells WHERE slide IS NOT NULL GROUP BY slide % 2) t;
-- the threshold, checked as pb_match_stats checks it
SELECT pb_match_stats(geom, in_a, 1.5, slide) FROM cells;
SELECT pb_match_stats(geom, in_a, NULL, slide) FROM cells;
SELECT pb_match_stats(geom, in_a, 0.3 + 0.1 * (slide % 2), slide) FROM cells WHERE slide IS NOT NULL;

-- objects of a set that overlap one another: one WARNING over all keys
-- (slides 6 and 7 are alike: the unkeyed form would pair them too)
RESET client_min_messages;
INSERT INTO cells SELECT s, v.in_a, v.id, v.geom
FROM generate_series(6, 7) s,
     (VALUES (true, 1, ST_MakeEnvelope(0, 0, 10, 10)), (true, 2, ST_MakeEnvelope(5, 0, 15, 10)),
             (false, 1, ST_MakeEnvelope(0, 0, 15, 10))) v(in_a, id, geom);
SELECT n_true, n_pred, tp, round(aji::numeric, 12) AS aji, round(dice_pixel::numeric, 12) AS dice
FROM (SELECT (pb_match_stats(geom, in_a, 0.5, slide)).* FROM cells WHERE slide >= 6) s;

-- PostgreSQL never splits the keyed form over parallel workers
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT pb_match_stats(geom, in_a, 0.5, slide) FROM cells;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- bad states are refused, never trusted
SELECT '01'::pb_match_state;
SELECT ''::pb_match_state;
SELECT left(state, length(state) - 2)::pb_match_state FROM shipped ORDER BY slide LIMIT 1;
SELECT (state || '00')::pb_match_state FROM shipped ORDER BY slide LIMIT 1;
SELECT ('02' || substr(state, 3))::pb_match_state FROM shipped ORDER BY slide LIMIT 1;
-- no threshold, yet objects and keys
SELECT ('0100' || '0000000000000000' || substr(state, 21))::pb_match_state
FROM shipped ORDER BY slide LIMIT 1;
-- a threshold above 1 (the double 2.0)
SELECT ('0101' || '0000000000000040' || substr(state, 21))::pb_match_state
FROM shipped ORDER BY slide LIMIT 1;
-- tp (bytes 26-33) above n_true
SELECT (left(state, 52) || 'ffffff7f00000000' || substr(state, 69))::pb_match_state
FROM shipped ORDER BY slide LIMIT 1;
-- a state of another type is not one of this
SELECT state::pb_set_comparison_state FROM shipped ORDER BY slide LIMIT 1;
-- the support functions outside an aggregate
SELECT pb_match_keyed_combinefn(NULL, NULL);

DROP AGGREGATE partial_match(geometry, boolean, float8, bigint);
DROP AGGREGATE combine_match(pb_match_state);
DROP TABLE cells;
