-- Single pairs with many vertices (issue 20, item 4): combs (teeth along
-- x or y, rectilinear or sheared) give PostGIS's area and the known one,
-- in well under a second where the engines were quadratic; pairs that
-- stay heavy (PixelBox-CPU forced, the general engine on a big sheared
-- comb against itself) end soon after statement_timeout.

-- a comb: bar [0, 2t - 1] x [0, 1] and t teeth [2i, 2i + 1] x [1, h], 4t
-- vertices; area 2t - 1 + t (h - 1)
CREATE FUNCTION comb(t int, h int) RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
  SELECT ST_MakePolygon(ST_MakeLine(pt ORDER BY k)) FROM (
    SELECT 0 AS k, ST_MakePoint(0, 0) AS pt
    UNION ALL SELECT 1, ST_MakePoint(2 * t - 1, 0)
    UNION ALL SELECT 2 + 4 * (t - 1 - i) + j, ST_MakePoint(x, y)
      FROM generate_series(t - 1, 0, -1) AS i,
           LATERAL (VALUES (0, 2 * i + 1, h), (1, 2 * i, h), (2, 2 * i, 1), (3, 2 * i - 1, 1)) AS v(j, x, y)
      WHERE i > 0 OR j < 2
    UNION ALL SELECT 4 * t + 2, ST_MakePoint(0, 0)) AS pts $$;
-- x += y / 2: diagonal edges, every area kept
CREATE FUNCTION shear(g geometry) RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
  SELECT ST_Affine(g, 1, 0.5, 0, 1, 0, 0) $$;

CREATE TABLE combs AS
  SELECT 'x' AS teeth, comb(5000, 100) AS c, ST_MakeEnvelope(-1, -1, 5000, 50) AS box
  UNION ALL
  SELECT 'y', ST_FlipCoordinates(comb(5000, 100)), ST_MakeEnvelope(-1, -1, 50, 5000);
SELECT teeth, ST_NPoints(c) AS points, ST_IsValid(c) AS valid, ST_Area(c) AS area,
       ST_Area(c) = 2 * 5000 - 1 + 5000 * 99 AS area_known FROM combs ORDER BY teeth;

-- against a box: the base's 5000 and 2500 teeth of 49
SELECT teeth, pb_intersection_area(c, box) AS pb,
       pb_intersection_area(c, box) = ST_Area(ST_Intersection(c, box)) AS same_as_postgis,
       pb_intersection_area(c, box) = 5000 + 2500 * 49 AS known,
       pb_intersection_area(c, c) = ST_Area(c) AS self
FROM combs ORDER BY teeth;
SELECT teeth, abs(jaccard_gpu(c, box) - 127500 / (max(ST_Area(c)) + max(ST_Area(box)) - 127500)) < 1e-15 AS jaccard
FROM combs GROUP BY teeth ORDER BY teeth;
SELECT teeth, (pb_compare_sets(g, is_a)).intersection_area = 127500 AS compare_sets
FROM (SELECT teeth, c AS g, true AS is_a FROM combs
      UNION ALL SELECT teeth, box, false FROM combs) s GROUP BY teeth ORDER BY teeth;
-- sheared: the general engine, to rounding
SELECT teeth, abs(pb_intersection_area(shear(c), shear(box)) - 127500) < 1e-6 AS known,
       abs(pb_intersection_area(shear(c), shear(box)) -
           ST_Area(ST_Intersection(shear(c), shear(box)))) < 1e-6 AS same_as_postgis,
       abs(pb_intersection_area(shear(c), shear(c)) - ST_Area(c)) < 1e-6 AS self
FROM combs ORDER BY teeth;

-- 256,000 vertices, teeth along y, against itself: was 17 s (slabs filled
-- by insertion), now a fraction of a second
CREATE TABLE long_comb AS SELECT ST_FlipCoordinates(comb(64000, 1000)) AS c;
SET statement_timeout = '5s';
SELECT pb_intersection_area(c, c) = 2 * 64000 - 1 + 64000 * 999 AS big_self,
       pb_intersection_area(c, ST_MakeEnvelope(-1, -1, 500, 64000)) = 64000 + 32000 * 499 AS big_box
FROM long_comb;

-- heavy on purpose: cancelled within 2 s of a 1 s timeout
RESET statement_timeout;
UPDATE long_comb SET c = shear(ST_FlipCoordinates(c));
SET statement_timeout = '1s';
CREATE FUNCTION cancelled_soon(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp();
BEGIN
  EXECUTE q;
  RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
  RETURN CASE WHEN clock_timestamp() - t0 < interval '2 s' THEN 'cancelled soon'
              ELSE 'cancelled late: ' || (clock_timestamp() - t0) END;
END $$;
SET pixelbox.cpu_method = 'pixelbox';
SELECT cancelled_soon('SELECT pb_intersection_area(c, box) FROM combs');
RESET pixelbox.cpu_method;
-- 256,000 vertices, sheared teeth along x against itself: some 15 s of work
SELECT cancelled_soon('SELECT pb_intersection_area(c, c) FROM long_comb');
-- and the message itself
SELECT pb_intersection_area(c, c) FROM long_comb;
-- jaccard_gpu in a serial plan: the first row's batch (the heavy pair)
-- is on the backend's CPU thread while the next rows wait for it
SET max_parallel_workers_per_gather = 0;
SET pixelbox.batch_memory = 64;
SELECT cancelled_soon('SELECT jaccard_gpu(c, c) FROM long_comb, generate_series(1, 3)');
SELECT jaccard_gpu(c, c) FROM long_comb, generate_series(1, 3);
RESET pixelbox.batch_memory;
RESET max_parallel_workers_per_gather;
RESET statement_timeout;
DROP TABLE combs, long_comb;
DROP FUNCTION comb(int, int), shear(geometry), cancelled_soon(text);
