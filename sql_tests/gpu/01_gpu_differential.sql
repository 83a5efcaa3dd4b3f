-- The GPU schedule (make installcheck-gpu; needs a CUDA device): the same
-- queries with pixelbox.device = cpu and = gpu agree exactly, on more than
-- a million generated pairs; the GPU really did the work (pb_device_info);
-- general polygons mixed in go to the CPU; parallel plans, GROUP BY,
-- small batches (more pipelining) and a cancel during GPU work.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE;
RESET client_min_messages;
CREATE TABLE big_a (id bigint, geom geometry);
CREATE TABLE big_b (id bigint, geom geometry);
\copy big_a FROM PROGRAM './bench/pbgen --polygons 520000 --seed 3 --set a'
\copy big_b FROM PROGRAM './bench/pbgen --polygons 520000 --seed 3 --set b'
-- a few thousand general polygons (diagonal edges) among them
INSERT INTO big_b SELECT id + 10000000, ST_Translate(geom, 0.25, 0) FROM big_b WHERE id % 200 = 0;
CREATE INDEX ON big_b USING gist (geom);
ANALYZE big_a;
ANALYZE big_b;
SET max_parallel_workers_per_gather = 0;

SET pixelbox.device = cpu;
CREATE TEMP TABLE on_cpu AS
SELECT pb_cross_compare(p.geom, q.geom) AS c FROM big_a p, big_b q WHERE p.geom && q.geom;
SELECT (c).pairs >= 1000000 AS over_a_million_pairs FROM on_cpu;
CREATE TEMP VIEW same_as_cpu AS
SELECT x.c IS NOT DISTINCT FROM on_cpu.c AS identical
FROM (SELECT pb_cross_compare(p.geom, q.geom) AS c FROM big_a p, big_b q WHERE p.geom && q.geom) x, on_cpu;

SET pixelbox.device = gpu;
SELECT 'gpu' AS device, identical FROM same_as_cpu;
-- the GPU computed (nearly) all of them: the general polygons went to the CPU
SELECT gpu_batches > 0 AS used_gpu, gpu_pairs > 900000 AS most_pairs_on_gpu, cpu_fallbacks
FROM pb_device_info();
SET pixelbox.batch_memory = 256;
SELECT 'gpu, 256kB batches' AS device, identical FROM same_as_cpu;
RESET pixelbox.batch_memory;
SET pixelbox.gpu_method = pixelbox;
SELECT 'gpu, PixelBox kernel' AS device, identical FROM same_as_cpu;
RESET pixelbox.gpu_method;
SET pixelbox.device = auto;
SELECT 'auto' AS device, identical FROM same_as_cpu;
-- a tight GPU memory budget: smaller batches, same answer
SET pixelbox.gpu_memory = 16;
SELECT 'gpu_memory 16MB' AS device, identical FROM same_as_cpu;
RESET pixelbox.gpu_memory;
-- failures injected on a real GPU fall back with one WARNING, same answer
SET pixelbox.gpu_fault = run;
SELECT 'fault while running' AS device, identical FROM same_as_cpu;
RESET pixelbox.gpu_fault;

-- parallel plan: the leader uses the GPU, workers the CPU; same answer
SET max_parallel_workers_per_gather = 4;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT 'parallel, gpu' AS device, identical FROM same_as_cpu;
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;

-- GROUP BY: many states, one GPU (a busy GPU sends a batch to the CPU)
CREATE TEMP TABLE grouped_cpu AS
SELECT p.id % 7 AS g, pb_cross_compare(p.geom, q.geom) AS c
FROM big_a p, big_b q WHERE p.geom && q.geom GROUP BY 1
WITH NO DATA;
SET pixelbox.device = cpu;
INSERT INTO grouped_cpu SELECT p.id % 7, pb_cross_compare(p.geom, q.geom)
FROM big_a p, big_b q WHERE p.geom && q.geom GROUP BY 1;
SET pixelbox.device = gpu;
SELECT count(*) AS groups, bool_and(x.c IS NOT DISTINCT FROM g.c) AS identical
FROM (SELECT p.id % 7 AS g, pb_cross_compare(p.geom, q.geom) AS c
      FROM big_a p, big_b q WHERE p.geom && q.geom GROUP BY 1) x JOIN grouped_cpu g USING (g);

-- a cancel (statement_timeout) during GPU work returns promptly
SET statement_timeout = '300ms';
SELECT jaccard_gpu(p.geom, q.geom) FROM big_a p, big_b q WHERE p.geom && q.geom;
RESET statement_timeout;
-- and the GPU works afterwards
SELECT 'after cancel' AS device, identical FROM same_as_cpu;
RESET ALL;

-- the pipeline (pb_compare_sets) with the GPU: the CPU's answer; the GPU
-- aggregates; migration forced either way, or off, changes nothing
CREATE TEMP VIEW both_sets AS
SELECT geom AS g, true AS a, id / 4000 AS k FROM big_a UNION ALL SELECT geom, false, id / 4000 FROM big_b;
SET max_parallel_workers_per_gather = 0;
SET pixelbox.device = cpu;
CREATE TEMP TABLE sets_cpu AS
SELECT (SELECT pb_compare_sets(g, a) FROM both_sets) AS r,
       (SELECT pb_compare_sets(g, a, k) FROM both_sets) AS tiled;
SET pixelbox.device = gpu;
CREATE TEMP VIEW sets_same AS
SELECT pb_compare_sets(g, a) = (SELECT r FROM sets_cpu) AS identical FROM both_sets;
SELECT 'pipeline' AS run, identical FROM sets_same;
SET pixelbox.gpu_method = pixelbox;
SELECT 'pipeline, PixelBox kernel' AS run, identical FROM sets_same;
RESET pixelbox.gpu_method;
SELECT device, tasks > 0 AS worked FROM pb_pipeline_report() WHERE stage = 'aggregate' AND device = 'gpu';
-- the polygons crossed to the GPU once, held there for the run
SELECT tasks AS source_held, busy_s > 0 AS timed FROM pb_pipeline_report() WHERE stage = 'upload';
SELECT 'tile key' AS run, pb_compare_sets(g, a, k) = (SELECT tiled FROM sets_cpu) AS identical FROM both_sets;
SET pixelbox.pipeline_throttle = filter;
SELECT 'filter slowed' AS run, identical FROM sets_same;
SELECT migrated > 0 AS gpu_took_filter_work FROM pb_pipeline_report() WHERE stage = 'filter' AND device = 'gpu';
SET pixelbox.pipeline_throttle = aggregate;
SELECT 'aggregator slowed' AS run, identical FROM sets_same;
SELECT migrated > 0 AS cpu_took_gpu_tasks FROM pb_pipeline_report() WHERE stage = 'aggregate' AND device = 'cpu';
SET pixelbox.migration = off;
SELECT 'migration off' AS run, identical FROM sets_same;
SELECT sum(migrated) AS migrated FROM pb_pipeline_report() WHERE stage <> 'total';
RESET pixelbox.migration;
RESET pixelbox.pipeline_throttle;
SET pixelbox.pipelined = off;
SELECT 'not pipelined' AS run, identical FROM sets_same;
RESET pixelbox.pipelined;
-- a cancel during a GPU pipeline run, then a whole run
SET pixelbox.pipeline_throttle = filter;
SET pixelbox.tile_shapes = 64;
SET statement_timeout = '300ms';
SELECT (pb_compare_sets(g, a)).pairs FROM both_sets;
RESET statement_timeout;
RESET pixelbox.pipeline_throttle;
RESET pixelbox.tile_shapes;
SELECT 'after cancel' AS run, identical FROM sets_same;
RESET ALL;
DROP TABLE big_a, big_b CASCADE;
