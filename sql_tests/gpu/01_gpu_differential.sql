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
DROP TABLE big_a, big_b CASCADE;
