-- jaccard_gpu and pb_cross_compare against the PostGIS Fig. 1(b) query on a
-- small synthetic grid (rectilinear and diagonal polygons), plus NULL and
-- empty input, GROUP BY, window use, batching and the device setting.
CREATE TEMP TABLE ga AS
SELECT i * 100 + j AS id, (i + j) % 2 AS grp,
       ST_MakeEnvelope(i * 10, j * 10, i * 10 + 6, j * 10 + 6) AS geom
FROM generate_series(0, 19) i, generate_series(0, 19) j;
CREATE TEMP TABLE gb AS
SELECT i * 100 + j AS id, (i + j) % 2 AS grp,
       CASE WHEN (i + j) % 5 = 0  -- touches its neighbour's edge: && but no area
            THEN ST_MakeEnvelope(i * 10 + 6, j * 10, i * 10 + 9, j * 10 + 6)
            WHEN (i * j) % 7 = 3
            THEN ST_GeomFromText(format('POLYGON((%s %s,%s %s,%s %s,%s %s))',
                 i * 10 + 1, j * 10 + 1, i * 10 + 8, j * 10 + 2, i * 10 + 4, j * 10 + 7.5, i * 10 + 1, j * 10 + 1))
            ELSE ST_MakeEnvelope(i * 10 + i % 3, j * 10 + j % 2, i * 10 + 5 + i % 4, j * 10 + 7) END AS geom
FROM generate_series(0, 19) i, generate_series(0, 19) j
WHERE (i + 2 * j) % 11 <> 5;

-- the Fig. 1(b) query and its pieces, by PostGIS
CREATE TEMP VIEW postgis_pairs AS
SELECT p.grp, ST_Area(ST_Intersection(p.geom, q.geom)) AS i,
       ST_Area(p.geom) AS ap, ST_Area(q.geom) AS aq
FROM ga p, gb q WHERE p.geom && q.geom;
CREATE TEMP VIEW postgis_result AS
SELECT count(*) AS pairs, count(*) FILTER (WHERE i > 0) AS pairs_intersecting,
       avg(i / (ap + aq - i)) FILTER (WHERE i > 0) AS jaccard_mean,
       sum(i) FILTER (WHERE i > 0) / sum(ap + aq - i) FILTER (WHERE i > 0) AS jaccard_total,
       avg(2 * i / (ap + aq)) FILTER (WHERE i > 0) AS dice_mean,
       sum(i) AS intersection_area, sum(ap + aq - i) FILTER (WHERE i > 0) AS union_area
FROM postgis_pairs;

SELECT (SELECT jaccard_gpu(p.geom, q.geom) FROM ga p, gb q WHERE p.geom && q.geom) AS jaccard_gpu,
       abs((SELECT jaccard_gpu(p.geom, q.geom) FROM ga p, gb q WHERE p.geom && q.geom)
           - (SELECT jaccard_mean FROM postgis_result)) < 1e-12 AS same_as_postgis;

SELECT c.pairs = r.pairs AS pairs, c.pairs_intersecting = r.pairs_intersecting AS intersecting,
       abs(c.jaccard_mean - r.jaccard_mean) < 1e-12 AS jaccard_mean,
       abs(c.jaccard_total - r.jaccard_total) < 1e-12 AS jaccard_total,
       abs(c.dice_mean - r.dice_mean) < 1e-12 AS dice_mean,
       abs(c.intersection_area - r.intersection_area) < 1e-9 AS intersection_area,
       abs(c.union_area - r.union_area) < 1e-9 AS union_area, c.pairs, c.pairs_intersecting
FROM (SELECT (pb_cross_compare(p.geom, q.geom)).* FROM ga p, gb q WHERE p.geom && q.geom) c,
     postgis_result r;

-- GROUP BY: one result per group, each equal to PostGIS's
SELECT g.grp, g.n, abs(g.j - r.j) < 1e-12 AS same_as_postgis
FROM (SELECT p.grp, count(*) AS n, jaccard_gpu(p.geom, q.geom) AS j
      FROM ga p, gb q WHERE p.geom && q.geom GROUP BY p.grp) g
JOIN (SELECT grp, avg(i / (ap + aq - i)) AS j FROM postgis_pairs WHERE i > 0 GROUP BY grp) r USING (grp)
ORDER BY g.grp;

-- the same with small batches (each pair four times, the mean unchanged):
-- the groups' states take turns on the backend's CPU thread (one batch on
-- it at a time), each still PostGIS's
SET pixelbox.batch_memory = 64;
SELECT g.grp, g.n, abs(g.j - r.j) < 1e-12 AS same_as_postgis
FROM (SELECT p.grp, count(*) AS n, jaccard_gpu(p.geom, q.geom) AS j
      FROM ga p, gb q, generate_series(1, 4) k WHERE p.geom && q.geom GROUP BY p.grp) g
JOIN (SELECT grp, avg(i / (ap + aq - i)) AS j FROM postgis_pairs WHERE i > 0 GROUP BY grp) r USING (grp)
ORDER BY g.grp;
RESET pixelbox.batch_memory;

-- NULLs are skipped like avg skips them; no rows or no intersecting pair: NULL J'
SELECT jaccard_gpu(a, b) AS all_null, (pb_cross_compare(a, b)).pairs AS pairs
FROM (VALUES (NULL::geometry, 'POINT(0 0)'::geometry), ('POINT(0 0)', NULL)) t(a, b);
SELECT jaccard_gpu(a, b) AS one_null_skipped
FROM (VALUES ('POLYGON((0 0,2 0,2 2,0 2,0 0))'::geometry, 'POLYGON((1 0,3 0,3 2,1 2,1 0))'::geometry),
             (NULL, 'POLYGON((0 0,1 0,1 1,0 0))')) t(a, b);
SELECT jaccard_gpu(geom, geom) AS no_rows, (pb_cross_compare(geom, geom)).* FROM ga WHERE false;
SELECT jaccard_gpu(a, b) AS disjoint_only, (pb_cross_compare(a, b)).*
FROM (VALUES ('POLYGON((0 0,1 0,1 1,0 1,0 0))'::geometry, 'POLYGON((1 0,2 0,2 1,1 1,1 0))'::geometry)) t(a, b);

-- as a running window aggregate, each frame gets its own exact answer
SELECT id, round(jaccard_gpu(a, b) OVER (ORDER BY id)::numeric, 12) AS running
FROM (VALUES (1, 'POLYGON((0 0,2 0,2 2,0 2,0 0))'::geometry, 'POLYGON((1 0,3 0,3 2,1 2,1 0))'::geometry),
             (2, 'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((0 0,4 0,4 4,0 4,0 0))'),
             (3, 'POLYGON((0 0,1 0,1 1,0 1,0 0))', 'POLYGON((5 5,6 5,6 6,5 6,5 5))'),
             (4, 'POLYGON((0 0,3 0,3 3,0 3,0 0))', 'POLYGON((1 1,2 1,2 2,1 2,1 1))')) t(id, a, b);

-- tiny batches (many flushes) and every engine give bit-identical results
CREATE TEMP TABLE reference AS
SELECT (pb_cross_compare(p.geom, q.geom)).* FROM ga p, gb q WHERE p.geom && q.geom;
CREATE TEMP VIEW same_as_reference AS
SELECT c IS NOT DISTINCT FROM r AS identical
FROM (SELECT (pb_cross_compare(p.geom, q.geom)).* FROM ga p, gb q WHERE p.geom && q.geom) c, reference r;
SET pixelbox.batch_memory = 64;
SELECT 'batch_memory 64kB' AS variant, identical FROM same_as_reference;
-- batches computed in the backend alone, not on its CPU thread
SET pixelbox.cpu_threads = 1;
SELECT 'batch_memory 64kB, no CPU thread' AS variant, identical FROM same_as_reference;
RESET pixelbox.cpu_threads;
RESET pixelbox.batch_memory;
SET pixelbox.cpu_method = pixelbox;
SELECT 'PixelBox-CPU' AS variant, identical FROM same_as_reference;
SET pixelbox.cpu_method = general;
SELECT 'general engine' AS variant, identical FROM same_as_reference;
RESET pixelbox.cpu_method;
SET pixelbox.force_ewkb = on;
SELECT 'EWKB decoding' AS variant, identical FROM same_as_reference;
RESET pixelbox.force_ewkb;

SET pixelbox.device = 'tpu';
SET pixelbox.cpu_method = 'fastest';
SET pixelbox.gpu_method = 'pixel';
SET pixelbox.batch_memory = 10;
SET pixelbox.no_such_setting = 1;
