-- Parallel workers share the work and give bit-identical results to the
-- serial plan (exact, order-independent sums; combine/serial/deserial).
CREATE TABLE par_a AS
SELECT i * 1000 + j AS id, ST_MakeEnvelope(i * 10, j * 10, i * 10 + 6 + i % 3, j * 10 + 6) AS geom
FROM generate_series(0, 89) i, generate_series(0, 89) j;
CREATE TABLE par_b AS
SELECT i * 1000 + j AS id,
       CASE WHEN (i + j) % 4 = 0
            THEN ST_GeomFromText(format('POLYGON((%s %s,%s %s,%s %s,%s %s))',
                 i * 10 + 1, j * 10 + 1, i * 10 + 8, j * 10 + 2, i * 10 + 4, j * 10 + 7.5, i * 10 + 1, j * 10 + 1))
            ELSE ST_MakeEnvelope(i * 10 + i % 4, j * 10 + j % 3, i * 10 + 5 + j % 4, j * 10 + 7) END AS geom
FROM generate_series(0, 89) i, generate_series(0, 89) j;
CREATE INDEX ON par_b USING gist (geom);
ANALYZE par_a;
ANALYZE par_b;

SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial AS
SELECT pb_cross_compare(p.geom, q.geom) AS c, jaccard_gpu(p.geom, q.geom) AS j
FROM par_a p, par_b q WHERE p.geom && q.geom;
SELECT (c).pairs, (c).pairs_intersecting FROM serial;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET pixelbox.batch_memory = 64;
-- the plan: partial aggregates in workers, combined by the leader
EXPLAIN (COSTS OFF)
SELECT jaccard_gpu(p.geom, q.geom) FROM par_a p, par_b q WHERE p.geom && q.geom;
CREATE FUNCTION workers_launched(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    IF line ~ 'Workers Launched|Aggregate' THEN RETURN NEXT trim(line); END IF;
  END LOOP;
END $$;
SELECT workers_launched('SELECT jaccard_gpu(p.geom, q.geom) FROM par_a p, par_b q WHERE p.geom && q.geom');
-- identical to the serial results, to the last bit
SELECT par.c IS NOT DISTINCT FROM s.c AS cross_compare_identical, par.j = s.j AS jaccard_identical
FROM (SELECT pb_cross_compare(p.geom, q.geom) AS c, jaccard_gpu(p.geom, q.geom) AS j
      FROM par_a p, par_b q WHERE p.geom && q.geom) par, serial s;
-- and to PostGIS's Fig. 1(b) query
SELECT abs(s.j - f.j) < 1e-12 AS same_as_postgis
FROM serial s, (SELECT avg(r) AS j FROM (
  SELECT i / (ap + aq - i) AS r FROM (
    SELECT ST_Area(ST_Intersection(p.geom, q.geom)) AS i, ST_Area(p.geom) AS ap, ST_Area(q.geom) AS aq
    FROM par_a p, par_b q WHERE p.geom && q.geom) t1 WHERE i > 0) t2) f;
RESET ALL;
DROP TABLE par_a, par_b;
DROP FUNCTION workers_launched(text);
