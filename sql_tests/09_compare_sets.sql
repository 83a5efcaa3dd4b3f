-- pb_compare_sets: two polygon sets in one scan, no join, against PostGIS's
-- Fig. 1(b) query over the same data (pairs found by &&, J', Dice, areas)
-- and the "missed" polygons (intersecting nothing in the other set).
CREATE TABLE nuclei (slide int, algorithm text, id bigint, geom geometry);
CREATE TEMP TABLE load (id bigint, geom geometry);
\copy load FROM PROGRAM './bench/pbgen --polygons 1500 --seed 21 --set a'
INSERT INTO nuclei SELECT 1, 'A', id, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 1500 --seed 21 --set b'
INSERT INTO nuclei SELECT 1, 'B', id, geom FROM load;
TRUNCATE load;
-- slide 2: smoothed general polygons, and duplicates in set B
\copy load FROM PROGRAM './bench/pbgen --polygons 800 --seed 5 --style smooth --set a'
INSERT INTO nuclei SELECT 2, 'A', id, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 800 --seed 5 --style smooth --set b'
INSERT INTO nuclei SELECT 2, 'B', id, geom FROM load;
INSERT INTO nuclei SELECT 2, 'B', id + 100000, geom FROM nuclei WHERE slide = 2 AND algorithm = 'B' AND id % 50 = 0;
-- slide 3: only set A (set B empty)
INSERT INTO nuclei SELECT 3, 'A', id, geom FROM nuclei WHERE slide = 1 AND algorithm = 'A' AND id <= 100;

-- PostGIS's answer, per slide
CREATE TEMP TABLE postgis_pairs AS
SELECT p.slide, p.id AS ida, q.id AS idb, ST_Area(ST_Intersection(p.geom, q.geom)) AS i,
       ST_Area(p.geom) AS ap, ST_Area(q.geom) AS aq
FROM nuclei p JOIN nuclei q ON p.slide = q.slide AND p.geom && q.geom
WHERE p.algorithm = 'A' AND q.algorithm = 'B';
CREATE TEMP TABLE postgis AS
SELECT s.slide,
       (SELECT count(*) FROM postgis_pairs x WHERE x.slide = s.slide) AS pairs,
       (SELECT count(*) FROM postgis_pairs x WHERE x.slide = s.slide AND i > 0) AS pairs_intersecting,
       (SELECT avg(i / (ap + aq - i)) FROM postgis_pairs x WHERE x.slide = s.slide AND i > 0) AS jaccard_mean,
       (SELECT sum(i) FROM postgis_pairs x WHERE x.slide = s.slide) AS intersection_area,
       (SELECT count(*) FROM nuclei n WHERE n.slide = s.slide AND algorithm = 'A' AND NOT EXISTS
          (SELECT 1 FROM postgis_pairs x WHERE x.slide = s.slide AND x.ida = n.id AND i > 0)) AS missed_a,
       (SELECT count(*) FROM nuclei n WHERE n.slide = s.slide AND algorithm = 'B' AND NOT EXISTS
          (SELECT 1 FROM postgis_pairs x WHERE x.slide = s.slide AND x.idb = n.id AND i > 0)) AS missed_b
FROM (SELECT DISTINCT slide FROM nuclei) s;

CREATE TEMP TABLE sets AS
SELECT slide, (pb_compare_sets(geom, algorithm = 'A')).*
FROM nuclei WHERE algorithm IN ('A', 'B') GROUP BY slide;
SELECT s.slide, s.pairs, s.pairs = p.pairs AS pairs_as_postgis,
       s.pairs_intersecting = p.pairs_intersecting AS intersecting_as_postgis,
       (s.jaccard_mean IS NULL AND p.jaccard_mean IS NULL) OR abs(s.jaccard_mean - p.jaccard_mean) < 1e-12 AS jaccard_as_postgis,
       abs(s.intersection_area - coalesce(p.intersection_area, 0)) <= 1e-9 * greatest(1, p.intersection_area) AS area_as_postgis,
       s.polygons_a, s.polygons_b, s.missed_a, s.missed_b,
       s.missed_a = p.missed_a AND s.missed_b = p.missed_b AS missed_as_postgis
FROM sets s JOIN postgis p USING (slide) ORDER BY slide;

-- the same figures as pb_cross_compare over the join
SELECT s.pairs = c.pairs AND s.pairs_intersecting = c.pairs_intersecting AND s.jaccard_mean = c.jaccard_mean
       AND s.jaccard_total = c.jaccard_total AND s.dice_mean = c.dice_mean
       AND s.intersection_area = c.intersection_area AND s.union_area = c.union_area AS same_as_cross_compare
FROM sets s, (SELECT (pb_cross_compare(p.geom, q.geom)).* FROM nuclei p JOIN nuclei q
              ON p.slide = q.slide AND p.geom && q.geom
              WHERE p.slide = 1 AND p.algorithm = 'A' AND q.algorithm = 'B') c
WHERE s.slide = 1;

-- one CPU thread or several: identical
SET pixelbox.cpu_threads = 1;
SELECT (pb_compare_sets(geom, algorithm = 'A')).jaccard_mean = (SELECT jaccard_mean FROM sets WHERE slide = 2) AS one_thread_identical
FROM nuclei WHERE slide = 2;
SET pixelbox.cpu_threads = 5;
SELECT (pb_compare_sets(geom, algorithm = 'A')).jaccard_mean = (SELECT jaccard_mean FROM sets WHERE slide = 2) AS five_threads_identical
FROM nuclei WHERE slide = 2;
RESET pixelbox.cpu_threads;

-- NULLs are skipped; no rows gives zeros
SELECT (pb_compare_sets(g, a)).* FROM (VALUES (NULL::geometry, true), ('POLYGON((0 0,1 0,1 1,0 1,0 0))', NULL)) t(g, a);
SELECT (pb_compare_sets(geom, true)).pairs FROM nuclei WHERE false;
-- empty and non-polygonal rows count as polygons of their set, never paired
SELECT (pb_compare_sets(g, a)).* FROM (VALUES ('POLYGON EMPTY'::geometry, true), ('POINT(0 0)', false),
                                            ('POLYGON((0 0,2 0,2 2,0 2,0 0))', true),
                                            ('POLYGON((1 1,3 1,3 3,1 3,1 1))', false)) t(g, a);
-- mixed SRIDs: PostGIS's error
SELECT (pb_compare_sets(g, a)).pairs FROM (VALUES ('SRID=4326;POLYGON((0 0,2 0,2 2,0 2,0 0))'::geometry, true),
                                               ('POLYGON((1 1,3 1,3 3,1 3,1 1))', false)) t(g, a);

-- a tile key with every row switching tile (two tiles, sets alternating in
-- twos): the answer of the rows ordered by tile and PostGIS's pairs on the
-- tile, with a few tasks per tile (at most 2 + log2 of its rows), not one
-- per switch, each holding a copy of its tile (memory went with the square
-- of the rows: 2.5 GB for 8000)
CREATE TEMP TABLE interleaved AS
SELECT i, (i / 2) % 2 = 0 AS in_a, (i % 2)::bigint AS tile,
       ST_MakeEnvelope(i % 100, i / 100, i % 100 + 2.5, i / 100 + 1.5) AS g
FROM generate_series(1, 2000) i;
CREATE TEMP TABLE interleaved_sets AS
SELECT pb_compare_sets(g, in_a, tile) AS r FROM (SELECT * FROM interleaved ORDER BY i) t;
SELECT tasks <= 2 * (2 + ceil(log(2, 1000))) AS few_tasks_per_tile FROM pb_pipeline_report() WHERE stage = 'tile';
SELECT (r).pairs, (r).pairs = (SELECT count(*) FROM interleaved p JOIN interleaved q
                                ON p.tile = q.tile AND p.g && q.g WHERE p.in_a AND NOT q.in_a) AS pairs_as_postgis,
       r = (SELECT pb_compare_sets(g, in_a, tile) FROM (SELECT * FROM interleaved ORDER BY tile, i) t) AS as_ordered_by_tile
FROM interleaved_sets;

-- parallel workers decode, the leader pairs: identical results
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT pb_compare_sets(geom, algorithm = 'A') FROM nuclei WHERE slide = 1;
SELECT x.c IS NOT DISTINCT FROM (SELECT ROW(pairs, pairs_intersecting, jaccard_mean, jaccard_total, dice_mean,
         intersection_area, union_area, polygons_a, polygons_b, missed_a, missed_b)::pb_set_comparison
         FROM sets WHERE slide = 1) AS parallel_identical
FROM (SELECT pb_compare_sets(geom, algorithm = 'A') AS c FROM nuclei WHERE slide = 1) x;
-- every row through the workers, which pack their polygons for the leader:
-- general polygons, duplicates and an empty set B come through identical
SET parallel_leader_participation = off;
SELECT slide, x.c IS NOT DISTINCT FROM (SELECT ROW(pairs, pairs_intersecting, jaccard_mean, jaccard_total, dice_mean,
         intersection_area, union_area, polygons_a, polygons_b, missed_a, missed_b)::pb_set_comparison
         FROM sets s WHERE s.slide = x.slide) AS parallel_identical
FROM (SELECT slide, pb_compare_sets(geom, algorithm = 'A') AS c FROM nuclei GROUP BY slide) x ORDER BY slide;
SELECT tasks > 0 AS workers_packed FROM pb_pipeline_report() WHERE stage = 'merge';
-- the workers' packed polygons through the query's shared memory, or in
-- the partial states through the tuple queue: identical either way
SET pixelbox.parallel_handoff = shared_memory;
SELECT slide, x.c IS NOT DISTINCT FROM (SELECT ROW(pairs, pairs_intersecting, jaccard_mean, jaccard_total, dice_mean,
         intersection_area, union_area, polygons_a, polygons_b, missed_a, missed_b)::pb_set_comparison
         FROM sets s WHERE s.slide = x.slide) AS shared_memory_identical
FROM (SELECT slide, pb_compare_sets(geom, algorithm = 'A') AS c FROM nuclei GROUP BY slide) x ORDER BY slide;
SELECT device, tasks > 0 AS states FROM pb_pipeline_report() WHERE stage = 'handoff' ORDER BY device;
SET pixelbox.parallel_handoff = tuple_queue;
SELECT slide, x.c IS NOT DISTINCT FROM (SELECT ROW(pairs, pairs_intersecting, jaccard_mean, jaccard_total, dice_mean,
         intersection_area, union_area, polygons_a, polygons_b, missed_a, missed_b)::pb_set_comparison
         FROM sets s WHERE s.slide = x.slide) AS tuple_queue_identical
FROM (SELECT slide, pb_compare_sets(geom, algorithm = 'A') AS c FROM nuclei GROUP BY slide) x ORDER BY slide;
SELECT device, tasks > 0 AS states FROM pb_pipeline_report() WHERE stage = 'handoff' ORDER BY device;
RESET ALL;
-- the CPU fallback after an injected GPU failure gives the same answer
SET pixelbox.gpu_fault = run;
SELECT (pb_compare_sets(geom, algorithm = 'A')).jaccard_mean = (SELECT jaccard_mean FROM sets WHERE slide = 1) AS fallback_identical
FROM nuclei WHERE slide = 1;
RESET ALL;

-- the convenience forms: two tables directly, and the per-pair rows
CREATE TABLE seg_a AS SELECT id, geom FROM nuclei WHERE slide = 1 AND algorithm = 'A';
CREATE TABLE seg_b AS SELECT id AS nid, geom AS outline FROM nuclei WHERE slide = 1 AND algorithm = 'B';
SELECT t IS NOT DISTINCT FROM (SELECT ROW(pairs, pairs_intersecting, jaccard_mean, jaccard_total, dice_mean,
         intersection_area, union_area, polygons_a, polygons_b, missed_a, missed_b)::pb_set_comparison
         FROM sets WHERE slide = 1) AS tables_as_sets
FROM pb_compare_tables('seg_a', 'geom', 'seg_b', 'outline') t;
SELECT count(*) AS rows, count(*) = (SELECT pairs_intersecting FROM sets WHERE slide = 1) AS one_per_intersecting_pair,
       sum(area_intersection) = (SELECT intersection_area FROM sets WHERE slide = 1) AS areas_sum_up,
       bool_and(x.area_a = ST_Area(a.geom) AND x.area_b = ST_Area(b.outline)) AS polygon_areas,
       count(*) = (SELECT count(*) FROM postgis_pairs WHERE slide = 1 AND i > 0) AS same_pairs_as_postgis
FROM pb_intersecting_pairs('seg_a', 'id', 'geom', 'seg_b', 'nid', 'outline') x
JOIN seg_a a ON a.id = x.id_a JOIN seg_b b ON b.nid = x.id_b;
SELECT count(*) AS not_in_postgis FROM pb_intersecting_pairs('seg_a', 'id', 'geom', 'seg_b', 'nid', 'outline') x
WHERE NOT EXISTS (SELECT 1 FROM postgis_pairs p WHERE p.slide = 1 AND p.ida = x.id_a AND p.idb = x.id_b AND p.i = x.area_intersection);
SELECT * FROM pb_compare_tables('seg_a', 'no_such_column', 'seg_b', 'outline');
-- the per-pair rows of slide 2 (general polygons, duplicates in B): PostGIS's pairs
-- of positive area, each once, with its areas (to 1e-9: general polygons)
CREATE TABLE gen_a AS SELECT id, geom FROM nuclei WHERE slide = 2 AND algorithm = 'A';
CREATE TABLE gen_b AS SELECT id, geom FROM nuclei WHERE slide = 2 AND algorithm = 'B';
CREATE TEMP TABLE gen_pairs AS SELECT * FROM pb_intersecting_pairs('gen_a', 'id', 'geom', 'gen_b', 'id', 'geom');
SELECT count(*) = (SELECT count(*) FROM postgis_pairs WHERE slide = 2 AND i > 0) AS general_count,
       count(DISTINCT (id_a, id_b)) = count(*) AS each_once,
       (SELECT count(*) FROM gen_pairs x JOIN postgis_pairs p ON p.slide = 2 AND p.ida = x.id_a AND p.idb = x.id_b
        WHERE p.i > 0 AND abs(x.area_intersection - p.i) <= 1e-9 * p.ap
          AND abs(x.area_a - p.ap) <= 1e-9 * p.ap AND abs(x.area_b - p.aq) <= 1e-9 * p.aq) = count(*) AS general_areas
FROM gen_pairs;
-- the same through the backend's sequential decoder (EWKB from the send function)
SET pixelbox.force_ewkb = on;
SELECT count(*) = (SELECT count(*) FROM gen_pairs) AS sequential_count,
       count(*) FILTER (WHERE (x.*) NOT IN (SELECT g FROM gen_pairs g)) AS rows_not_identical
FROM pb_intersecting_pairs('gen_a', 'id', 'geom', 'gen_b', 'id', 'geom') x;
RESET pixelbox.force_ewkb;
-- one table empty: no rows; NULL ids come out NULL, NULL polygons take no part
CREATE TABLE empty_b (id bigint, geom geometry);
SELECT count(*) AS rows_against_empty FROM pb_intersecting_pairs('gen_a', 'id', 'geom', 'empty_b', 'id', 'geom');
CREATE TABLE nullish (id bigint, geom geometry);
INSERT INTO nullish VALUES (NULL, 'POLYGON((0 0,10 0,10 10,0 10,0 0))'), (7, NULL),
  (8, 'POLYGON((5 5,15 5,15 15,5 15,5 5))'), (9, 'POLYGON((20 20,21 20,21 21,20 21,20 20))');
SELECT * FROM pb_intersecting_pairs('nullish', 'id', 'geom', 'nullish', 'id', 'geom')
ORDER BY id_a NULLS FIRST, id_b NULLS FIRST;
-- bad input: a missing column, a column that is not a geometry, mixed SRIDs, no privilege
SELECT * FROM pb_intersecting_pairs('seg_a', 'id', 'no_such_column', 'seg_b', 'nid', 'outline');
SELECT * FROM pb_intersecting_pairs('seg_a', 'id', 'id', 'seg_b', 'nid', 'outline');
CREATE TABLE srid_b AS SELECT id, ST_SetSRID(geom, 4326) AS geom FROM gen_b;
SELECT * FROM pb_intersecting_pairs('gen_a', 'id', 'geom', 'srid_b', 'id', 'geom');
CREATE ROLE pb_regress_no_select;
SET ROLE pb_regress_no_select;
SELECT * FROM pb_intersecting_pairs('gen_a', 'id', 'geom', 'gen_b', 'id', 'geom');
RESET ROLE;
DROP ROLE pb_regress_no_select;
-- a statement timeout mid-run (filter slowed to 5 ms a one-polygon tile, and no
-- migration, so that no GPU takes the filtering over), then a whole run
SET pixelbox.pipeline_throttle = filter;
SET pixelbox.migration = off;
SET pixelbox.tile_shapes = 1;
SET pixelbox.cpu_threads = 2;
SET statement_timeout = '300ms';
SELECT count(*) FROM pb_intersecting_pairs('seg_a', 'id', 'geom', 'seg_b', 'nid', 'outline');
RESET statement_timeout;
RESET pixelbox.pipeline_throttle;
RESET pixelbox.migration;
RESET pixelbox.tile_shapes;
RESET pixelbox.cpu_threads;
SELECT count(*) = (SELECT pairs_intersecting FROM sets WHERE slide = 1) AS after_timeout_whole
FROM pb_intersecting_pairs('seg_a', 'id', 'geom', 'seg_b', 'nid', 'outline');
-- guard rails: two sets whose extents do not meet give a WARNING; when set b
-- mirrored in y would meet set a (a label image through ST_FromGDALRaster,
-- scale (1, -1)), the hint says so; otherwise it asks to check the spaces
SELECT (c).pairs, (c).polygons_a, (c).polygons_b FROM (
  SELECT pb_compare_sets(g, in_a) AS c FROM (VALUES
    ('POLYGON((10 10, 20 10, 20 30, 10 30, 10 10))'::geometry, true),
    ('POLYGON((10 -10, 20 -10, 20 -30, 10 -30, 10 -10))'::geometry, false)) t(g, in_a)) x;
SELECT (c).pairs FROM (
  SELECT pb_compare_sets(g, in_a) AS c FROM (VALUES
    ('POLYGON((10 10, 20 10, 20 30, 10 30, 10 10))'::geometry, true),
    ('POLYGON((100 10, 120 10, 120 30, 100 30, 100 10))'::geometry, false)) t(g, in_a)) x;
-- no warning when they meet (even at a corner), or when a set is empty
SELECT (c).pairs FROM (
  SELECT pb_compare_sets(g, in_a) AS c FROM (VALUES
    ('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'::geometry, true),
    ('POLYGON((1 1, 2 1, 2 2, 1 2, 1 1))'::geometry, false)) t(g, in_a)) x;
SELECT (c).polygons_a FROM (
  SELECT pb_compare_sets(g, true) AS c FROM (VALUES
    ('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'::geometry)) t(g)) x;
DROP TABLE nuclei, seg_a, seg_b, gen_a, gen_b, empty_b, nullish, srid_b;
