-- The SCCG pipeline behind pb_compare_sets: any tiling, tile keys streamed
-- in any row order, migration forced or off, stages not pipelined, a GPU
-- failing mid-run, cancels and errors mid-stream: always PostGIS's answer.
CREATE TABLE cells (slide int, algorithm text, id bigint, geom geometry, tile bigint);
CREATE TEMP TABLE load (id bigint, geom geometry);
\copy load FROM PROGRAM './bench/pbgen --polygons 1200 --seed 8 --set a'
INSERT INTO cells SELECT 1, 'A', id, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 1200 --seed 8 --set b'
INSERT INTO cells SELECT 1, 'B', id, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 500 --seed 3 --style smooth --set a'
INSERT INTO cells SELECT 2, 'A', id, geom FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 500 --seed 3 --style smooth --set b'
INSERT INTO cells SELECT 2, 'B', id, geom FROM load;
-- duplicates, and the tile of each polygon: a 200 x 200 grid by its lower-left corner
INSERT INTO cells SELECT slide, 'B', id + 100000, geom FROM cells WHERE algorithm = 'A' AND id % 40 = 0;
UPDATE cells SET tile = floor(ST_XMin(geom) / 200)::bigint * 1000 + floor(ST_YMin(geom) / 200)::bigint;
SELECT slide, count(DISTINCT tile) > 4 AS several_tiles FROM cells GROUP BY slide ORDER BY slide;

-- PostGIS: all pairs, and the pairs within a tile
CREATE TEMP TABLE pp AS
SELECT p.slide, p.id AS ida, q.id AS idb, p.tile = q.tile AS same_tile,
       ST_Area(ST_Intersection(p.geom, q.geom)) AS i, ST_Area(p.geom) AS ap, ST_Area(q.geom) AS aq
FROM cells p JOIN cells q ON p.slide = q.slide AND p.geom && q.geom
WHERE p.algorithm = 'A' AND q.algorithm = 'B';
CREATE TEMP VIEW truth AS
SELECT s.slide, t.tiled,
       (SELECT count(*) FROM pp x WHERE x.slide = s.slide AND (x.same_tile OR NOT t.tiled)) AS pairs,
       (SELECT count(*) FROM pp x WHERE x.slide = s.slide AND (x.same_tile OR NOT t.tiled) AND i > 0) AS pairs_intersecting,
       (SELECT avg(i / (ap + aq - i)) FROM pp x WHERE x.slide = s.slide AND (x.same_tile OR NOT t.tiled) AND i > 0) AS jaccard_mean,
       (SELECT count(*) FROM cells n WHERE n.slide = s.slide AND algorithm = 'A' AND NOT EXISTS
          (SELECT 1 FROM pp x WHERE x.slide = s.slide AND x.ida = n.id AND (x.same_tile OR NOT t.tiled) AND i > 0)) AS missed_a,
       (SELECT count(*) FROM cells n WHERE n.slide = s.slide AND algorithm = 'B' AND NOT EXISTS
          (SELECT 1 FROM pp x WHERE x.slide = s.slide AND x.idb = n.id AND (x.same_tile OR NOT t.tiled) AND i > 0)) AS missed_b
FROM (SELECT DISTINCT slide FROM cells) s, (VALUES (false), (true)) t(tiled);
SELECT slide, tiled, pairs > 0 AS has_pairs FROM truth ORDER BY 1, 2;

-- whole sets: the reference run, and PostGIS's answer
CREATE TEMP TABLE ref AS
SELECT slide, pb_compare_sets(geom, algorithm = 'A') AS r FROM cells GROUP BY slide;
CREATE FUNCTION as_truth(c pb_set_comparison, t truth) RETURNS boolean LANGUAGE sql AS $$
  SELECT c.pairs = t.pairs AND c.pairs_intersecting = t.pairs_intersecting
     AND ((c.jaccard_mean IS NULL AND t.jaccard_mean IS NULL) OR abs(c.jaccard_mean - t.jaccard_mean) < 1e-12)
     AND c.missed_a = t.missed_a AND c.missed_b = t.missed_b $$;
SELECT slide, as_truth(r, t) AS as_postgis FROM ref JOIN truth t USING (slide) WHERE NOT tiled ORDER BY slide;

-- any tile size (down to one polygon a tile: every border cuts polygons): bit-identical
SET pixelbox.tile_shapes = 1;
SELECT slide, pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE ref.slide = c.slide) AS tiles_1
FROM cells c GROUP BY slide ORDER BY slide;
SET pixelbox.tile_shapes = 37;
SELECT slide, pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE ref.slide = c.slide) AS tiles_37
FROM cells c GROUP BY slide ORDER BY slide;
SET pixelbox.tile_shapes = 1000000;
SELECT slide, pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE ref.slide = c.slide) AS one_tile
FROM cells c GROUP BY slide ORDER BY slide;
RESET pixelbox.tile_shapes;

-- the report of the last run: stages, devices, and the total pairs (CPU only here)
SET pixelbox.cpu_threads = 3;
SET pixelbox.tile_shapes = 50;
SET pixelbox.device = cpu;
SELECT (pb_compare_sets(geom, algorithm = 'A')).pairs FROM cells WHERE slide = 1;
SELECT stage, device, tasks > 0 AS has_tasks, pairs, migrated >= 0 AS counted, busy_s >= 0 AS timed
FROM pb_pipeline_report() ORDER BY stage, device;
RESET pixelbox.device;

-- migration forced: the aggregator slowed, filter threads take its smallest tasks
SET pixelbox.pipeline_throttle = aggregate;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 1) AS migrated_identical
FROM cells WHERE slide = 1;
SELECT migrated > 0 AS tasks_migrated_to_cpu FROM pb_pipeline_report() WHERE stage = 'aggregate' AND device = 'cpu';
-- migration off: nothing moves, same answer
SET pixelbox.migration = off;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 1) AS unmigrated_identical
FROM cells WHERE slide = 1;
SELECT sum(migrated) AS migrated FROM pb_pipeline_report() WHERE stage <> 'total';
RESET pixelbox.migration;
RESET pixelbox.pipeline_throttle;
-- no pipelining (every tile filtered before any is aggregated), one thread or three
SET pixelbox.pipelined = off;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 1) AS staged_identical
FROM cells WHERE slide = 1;
SET pixelbox.cpu_threads = 1;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 2) AS staged_one_thread_identical
FROM cells WHERE slide = 2;
RESET pixelbox.pipelined;
-- repeated runs on the threads: always the same
SELECT count(DISTINCT c) AS distinct_answers FROM generate_series(1, 8) g,
  LATERAL (SELECT pb_compare_sets(geom, algorithm = 'A') AS c FROM cells WHERE slide = 1 AND g > 0) x;
RESET pixelbox.cpu_threads;
-- the GPU fails mid-run (injected, with or without a GPU): one WARNING, same answer
SET pixelbox.gpu_fault = submit;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 1) AS gpu_failed_identical
FROM cells WHERE slide = 1;
SET pixelbox.gpu_fault = run;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 1) AS gpu_failed_identical
FROM cells WHERE slide = 1;
SELECT tasks > 0 AS redone_on_cpu FROM pb_pipeline_report() WHERE stage = 'aggregate' AND device = 'cpu';
RESET pixelbox.gpu_fault;
-- the pipeline's threads run out of memory (injected): an error, not a crash;
-- both forms, then a whole run
SET pixelbox.pipeline_fault = memory;
SELECT (pb_compare_sets(geom, algorithm = 'A')).pairs FROM cells WHERE slide = 1;
SELECT (pb_compare_sets(geom, algorithm = 'A', tile)).pairs FROM (SELECT * FROM cells WHERE slide = 1 ORDER BY tile) c;
RESET pixelbox.pipeline_fault;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 1) AS after_oom_identical
FROM cells WHERE slide = 1;
RESET pixelbox.tile_shapes;

-- a tile key: only polygons of the same tile are compared, as PostGIS with a.tile = b.tile
CREATE TEMP TABLE tiled AS
SELECT slide, pb_compare_sets(geom, algorithm = 'A', tile) AS r
FROM (SELECT * FROM cells ORDER BY slide, tile) c GROUP BY slide;
SELECT slide, as_truth(r, t) AS tiled_as_postgis, (r).polygons_a + (r).polygons_b = (SELECT count(*) FROM cells c WHERE c.slide = x.slide) AS all_rows
FROM tiled x JOIN truth t USING (slide) WHERE tiled ORDER BY slide;
-- rows in any order (tiles seen again are reopened): bit-identical
SELECT slide, pb_compare_sets(geom, algorithm = 'A', tile) = (SELECT r FROM tiled WHERE tiled.slide = c.slide) AS shuffled_identical
FROM (SELECT * FROM cells ORDER BY md5(id::text || algorithm)) c GROUP BY slide ORDER BY slide;
SELECT slide, pb_compare_sets(geom, algorithm = 'A', tile) = (SELECT r FROM tiled WHERE tiled.slide = c.slide) AS alternating_identical
FROM (SELECT * FROM cells ORDER BY algorithm, id) c GROUP BY slide ORDER BY slide;
-- several groups at once (one streams, the others run at their end)
SET enable_sort = off;
SELECT slide, pb_compare_sets(geom, algorithm = 'A', tile) = (SELECT r FROM tiled WHERE tiled.slide = c.slide) AS hashed_groups_identical
FROM cells c GROUP BY slide ORDER BY slide;
RESET enable_sort;
-- every polygon its own tile: no pairs, everything missed; one set only; NULL keys skipped
SELECT (r).pairs, (r).missed_a = (r).polygons_a AND (r).missed_b = (r).polygons_b AS all_missed
FROM (SELECT pb_compare_sets(geom, algorithm = 'A', id * 2 + (algorithm = 'A')::int) AS r FROM cells WHERE slide = 1) x;
SELECT (pb_compare_sets(geom, true, tile)).* FROM cells WHERE slide = 1 AND algorithm = 'A' AND id < 100;
SELECT (pb_compare_sets(g, true, k)).polygons_a FROM (VALUES ('POLYGON((0 0,1 0,1 1,0 0))'::geometry, NULL::bigint)) v(g, k);
SELECT (pb_compare_sets(geom, true, tile)).* FROM cells WHERE false;

-- an error mid-stream (mixed SRIDs after tiles went to the pipeline), then a clean run
SELECT (pb_compare_sets(g, a, t)).pairs FROM (
  SELECT geom AS g, algorithm = 'A' AS a, tile AS t, 0 AS o FROM cells WHERE slide = 1
  UNION ALL SELECT 'SRID=3857;POLYGON((0 0,1 0,1 1,0 0))', true, -1, 1 ORDER BY o, t) x;
SELECT pb_compare_sets(geom, algorithm = 'A', tile) = (SELECT r FROM tiled WHERE slide = 1) AS after_error_identical
FROM (SELECT * FROM cells WHERE slide = 1 ORDER BY tile) c;

-- a cancel (statement timeout) during a slowed run stops it; the next run is whole
SET pixelbox.pipeline_throttle = filter;
SET pixelbox.tile_shapes = 1;
SET pixelbox.cpu_threads = 2;
SET statement_timeout = '300ms';
SELECT (pb_compare_sets(geom, algorithm = 'A')).pairs FROM cells;
SELECT (pb_compare_sets(geom, algorithm = 'A', id % 500)).pairs FROM cells;
RESET statement_timeout;
RESET pixelbox.pipeline_throttle;
RESET pixelbox.tile_shapes;
RESET pixelbox.cpu_threads;
SELECT pb_compare_sets(geom, algorithm = 'A') = (SELECT r FROM ref WHERE slide = 1) AS after_cancel_identical
FROM cells WHERE slide = 1;
DROP FUNCTION as_truth(pb_set_comparison, truth);
DROP VIEW truth;
DROP TABLE cells;
