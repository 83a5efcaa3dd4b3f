\timing on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE;
CREATE FUNCTION comb(t int, h int) RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
  SELECT ST_MakePolygon(ST_MakeLine(pt ORDER BY k)) FROM (
    SELECT 0 AS k, ST_MakePoint(0, 0) AS pt
    UNION ALL SELECT 1, ST_MakePoint(2 * t - 1, 0)
    UNION ALL SELECT 2 + 4 * (t - 1 - i) + j, ST_MakePoint(x, y)
      FROM generate_series(t - 1, 0, -1) AS i,
           LATERAL (VALUES (0, 2 * i + 1, h), (1, 2 * i, h), (2, 2 * i, 1), (3, 2 * i - 1, 1)) AS v(j, x, y)
      WHERE i > 0 OR j < 2
    UNION ALL SELECT 4 * t + 2, ST_MakePoint(0, 0)) AS pts $$;
CREATE TABLE combs AS
  SELECT 'x' AS teeth, comb(5000, 100) AS c, ST_MakeEnvelope(-1, -1, 5000, 50) AS box
  UNION ALL
  SELECT 'y', ST_FlipCoordinates(comb(5000, 100)), ST_MakeEnvelope(-1, -1, 50, 5000);
SELECT teeth, pb_intersection_area(c, box) FROM combs;
SELECT teeth, ST_Area(ST_Intersection(c, box)) FROM combs;
SET pixelbox.device = 'gpu';
SELECT teeth, jaccard_gpu(c, box) FROM combs GROUP BY teeth;
SELECT teeth, (pb_compare_sets(g, is_a)).intersection_area FROM (SELECT teeth, c AS g, true AS is_a FROM combs UNION ALL SELECT teeth, box, false FROM combs) s GROUP BY teeth;
SET statement_timeout = '1s';
SELECT teeth, jaccard_gpu(c, c) FROM combs GROUP BY teeth;
RESET statement_timeout;
SET pixelbox.device = 'cpu';
SELECT teeth, jaccard_gpu(c, box) FROM combs GROUP BY teeth;
SELECT teeth, (pb_compare_sets(g, is_a)).intersection_area FROM (SELECT teeth, c AS g, true AS is_a FROM combs UNION ALL SELECT teeth, box, false FROM combs) s GROUP BY teeth;
SELECT teeth, jaccard_gpu(c, c) FROM combs GROUP BY teeth;
