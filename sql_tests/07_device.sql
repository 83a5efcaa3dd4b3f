-- pixelbox.device and the CPU fallback: every failure of the GPU path
-- (injected with pixelbox.gpu_fault, which works with or without a GPU)
-- gives one WARNING and the same answer, bit for bit.
CREATE TABLE dev_a AS
SELECT i * 100 + j AS id, ST_MakeEnvelope(i * 10, j * 10, i * 10 + 6 + i % 3, j * 10 + 6) AS geom
FROM generate_series(0, 59) i, generate_series(0, 59) j;
CREATE TABLE dev_b AS
SELECT i * 100 + j AS id,
       CASE WHEN (i + j) % 5 = 0
            THEN ST_GeomFromText(format('POLYGON((%s %s,%s %s,%s %s,%s %s))',
                 i * 10 + 1, j * 10 + 1, i * 10 + 8, j * 10 + 2, i * 10 + 4, j * 10 + 7.5, i * 10 + 1, j * 10 + 1))
            ELSE ST_MakeEnvelope(i * 10 + i % 4, j * 10 + j % 3, i * 10 + 5 + j % 4, j * 10 + 7) END AS geom
FROM generate_series(0, 59) i, generate_series(0, 59) j;
CREATE INDEX ON dev_b USING gist (geom);
ANALYZE dev_a;
ANALYZE dev_b;
SET max_parallel_workers_per_gather = 0;
-- small batches: the fallback is exercised over many batches
SET pixelbox.batch_memory = 64;
SET pixelbox.device = cpu;
CREATE TEMP TABLE on_cpu AS
SELECT pb_cross_compare(p.geom, q.geom) AS c FROM dev_a p, dev_b q WHERE p.geom && q.geom;
SELECT (c).pairs, (c).pairs_intersecting FROM on_cpu;
CREATE TEMP VIEW same_as_cpu AS
SELECT x.c IS NOT DISTINCT FROM on_cpu.c AS identical
FROM (SELECT pb_cross_compare(p.geom, q.geom) AS c FROM dev_a p, dev_b q WHERE p.geom && q.geom) x, on_cpu;

-- auto: a GPU when one is usable, the CPU otherwise; the same answer
SET pixelbox.device = auto;
SELECT 'auto' AS device, identical FROM same_as_cpu;
-- failures at each step of the GPU path: one WARNING per query, same answer
SET pixelbox.gpu_fault = open;
SELECT 'fault at open' AS fault, identical FROM same_as_cpu;
SET pixelbox.gpu_fault = submit;
SELECT 'fault at submit' AS fault, identical FROM same_as_cpu;
SET pixelbox.gpu_fault = run;
SELECT 'fault while running' AS fault, identical FROM same_as_cpu;
-- an injected failure also falls back when pixelbox.device = gpu
SET pixelbox.device = gpu;
SELECT 'gpu, fault while running' AS fault, identical FROM same_as_cpu;
-- two aggregates with different inputs in one query: one waits its turn on the CPU
SELECT jaccard_gpu(p.geom, q.geom) = (SELECT (c).jaccard_mean FROM on_cpu) AS first,
       (pb_cross_compare(q.geom, p.geom)).pairs AS second_pairs
FROM dev_a p, dev_b q WHERE p.geom && q.geom;
RESET pixelbox.gpu_fault;
RESET pixelbox.device;
-- pb_gpu_warm opens no GPU for the CPU, and warms as the work would fail:
-- one WARNING, none open (with or without a GPU)
SET pixelbox.device = cpu;
SELECT pb_gpu_warm() AS cpu_warms_nothing;
SET pixelbox.gpu_fault = open;
SELECT pb_gpu_warm() AS cpu_ignores_the_fault;
SET pixelbox.device = hybrid;
SELECT pb_gpu_warm() AS hybrid_failed_open;
SET pixelbox.device = gpu;
SELECT pb_gpu_warm() AS gpu_failed_open;
RESET pixelbox.gpu_fault;
RESET pixelbox.device;
-- pixelbox.device = cpu never reports a GPU problem
SET pixelbox.device = cpu;
SET pixelbox.gpu_fault = open;
SELECT 'cpu ignores the GPU' AS device, identical FROM same_as_cpu;
RESET ALL;
SET pixelbox.gpu_memory = 1;
SHOW pixelbox.gpu_memory;
SET pixelbox.gpus = 17;
SHOW pixelbox.gpus;
SET pixelbox.gpu_fault = 'sometimes';
RESET ALL;
DROP TABLE dev_a, dev_b CASCADE;
