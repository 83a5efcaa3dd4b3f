-- pb_match_stats and pb_match_objects: the instance metrics papers report
-- (stardist.matching's figures, AJI, AJI+, pixel Dice), on cases worked by
-- hand, against PostGIS where plain SQL can say the answer, under GROUP BY
-- and in parallel plans, with NULLs and every error.  The metrics against
-- an independent numpy implementation on real segmentations are in
-- tests/metrics/check_metrics.py.
CREATE TABLE cells (slide int, cls int, in_a boolean, id bigint, geom geometry);

-- slide 1, worked by hand (all areas exact):
--   a1 [0,10]x[0,10] (100)  b1 [1,10]x[0,10] (90):  IoU 90/100 = 0.9
--   a2 [20,30]x[0,10] (100) b2 [20,25]x[0,10] (50): IoU 50/100 = 0.5
--                           b3 [25,30]x[0,10] (50): IoU 0.5 (a2 split in half)
--   a3 [40,44]x[0,4] (16) overlaps nothing
INSERT INTO cells VALUES
  (1, 0, true, 1, ST_MakeEnvelope(0, 0, 10, 10)), (1, 0, false, 1, ST_MakeEnvelope(1, 0, 10, 10)),
  (1, 0, true, 2, ST_MakeEnvelope(20, 0, 30, 10)), (1, 0, false, 2, ST_MakeEnvelope(20, 0, 25, 10)),
  (1, 0, false, 3, ST_MakeEnvelope(25, 0, 30, 10)), (1, 0, true, 3, ST_MakeEnvelope(40, 0, 44, 4));
-- at 0.5 (the default): a1-b1 and one half of a2 match (IoU >= 0.5), not both
-- halves: tp 2, fp 1, fn 1; precision = recall = 2/3, accuracy = 2/4,
-- f1 = 4/6; matched IoUs 0.9 + 0.5 = 1.4: mean_matched 0.7, mean_true 1.4/3,
-- pq = 1.4 / (2 + 1/2 + 1/2) = 0.4667 = sq 0.7 * dq 2/3.
-- AJI: a1 -> b1 (C 90, U 100), a2 -> b2 or b3 (50, 100), a3 alone (U 16), the
-- other half unused (U 50): 140/266 = 0.5263; AJI+ the same pairs.
-- dice_pixel: 2 (90 + 50 + 50) / (216 + 190) = 380/406 = 0.9360
SELECT (pb_match_stats(geom, in_a)).* FROM cells WHERE slide = 1;
-- at 0.51 only a1-b1: tp 1, fp 2, fn 2, precision = recall = f1 = 1/3,
-- accuracy 1/5, mean_matched 0.9, mean_true 0.3, pq 0.9/3 = 0.3
SELECT (pb_match_stats(geom, in_a, 0.51)).* FROM cells WHERE slide = 1;

-- slide 2, below 0.5, where taking the largest IoU first is wrong:
--   c0 [0,10]x[0,10] (100), c1 [10,20]x[0,10] (100)
--   d0 [4,14]x[0,10] (100): c0 60 (IoU 60/140 = 3/7), c1 40 (IoU 40/160 = 1/4)
--   d1 [0,4]x[0,10] (40):   c0 40 (IoU 40/100 = 0.4)
-- at 0.2 greedy takes c0-d0 and leaves c1 unmatched (tp 1); stardist's
-- assignment takes c0-d1 + c1-d0: tp 2, f1 1, mean_matched (0.4 + 0.25)/2 = 0.325.
-- at 0.3 c1-d0 is no candidate: tp 1, the larger IoU c0-d0 (3/7), pq (3/7)/2.
-- AJI: c0 -> d0 (60, 140), c1 -> d0 (40, 160), d1 unused (40): 100/340 = 0.2941.
-- AJI+ (total IoU 0.65 > 3/7): c0-d1, c1-d0: 80/260 = 0.3077.
-- dice_pixel: 2 (60 + 40 + 40) / (200 + 140) = 0.8235
INSERT INTO cells VALUES
  (2, 0, true, 1, ST_MakeEnvelope(0, 0, 10, 10)), (2, 0, true, 2, ST_MakeEnvelope(10, 0, 20, 10)),
  (2, 0, false, 1, ST_MakeEnvelope(4, 0, 14, 10)), (2, 0, false, 2, ST_MakeEnvelope(0, 0, 4, 10));
SELECT t AS threshold, tp, fp, fn, f1, mean_matched_score, panoptic_quality, aji, aji_plus, dice_pixel
FROM unnest(ARRAY[0.2, 0.3, 0.5]) t,
     LATERAL (SELECT (pb_match_stats(geom, in_a, t)).* FROM cells WHERE slide = 2) s ORDER BY t;
-- the extremes: 0 matches any overlap (stardist's >= 0 would pair even
-- disjoint objects), 1 only IoU exactly 1
SELECT t AS threshold, tp, fp, fn FROM unnest(ARRAY[0, 1]) t,
     LATERAL (SELECT (pb_match_stats(geom, in_a, t)).* FROM cells WHERE slide = 2) s ORDER BY t;
SELECT (pb_match_stats(g, a, 1)).tp AS identical_match_at_1
FROM (VALUES ('POLYGON((0 0,3 0,3 3,0 3,0 0))'::geometry, true),
             ('POLYGON((3 0,3 3,0 3,0 0,3 0))', false)) v(g, a);

-- per object: the same matching, tie-broken by id (b2 before b3)
CREATE TABLE s1_a AS SELECT id, geom FROM cells WHERE slide = 1 AND in_a;
CREATE TABLE s1_b AS SELECT id AS nid, geom AS outline FROM cells WHERE slide = 1 AND NOT in_a;
SELECT * FROM pb_match_objects('s1_a', 'id', 'geom', 's1_b', 'nid', 'outline') ORDER BY in_a DESC, id;
SELECT * FROM pb_match_objects('s1_a', 'id', 'geom', 's1_b', 'nid', 'outline', 0.51) ORDER BY in_a DESC, id;
-- with b3's id below b2's, b3 is the match
UPDATE s1_b SET nid = 0 WHERE nid = 3;
SELECT * FROM pb_match_objects('s1_a', 'id', 'geom', 's1_b', 'nid', 'outline') WHERE NOT in_a ORDER BY id;

-- slide 3: a grid of 2,500 nuclei-like cells, set b derived from set a by
-- cell: missed (fn), split in two, shifted by (2, 1) or (1, 0), rotated
-- (general polygons), the same, plus a small stray object in some cells (fp); each
-- set's objects disjoint, as in a label image.  Class = (i + j) % 3.
INSERT INTO cells
SELECT 3, (i + j) % 3, true, i * 100 + j,
       ST_MakeEnvelope(12 * i + 1, 12 * j + 1, 12 * i + 6 + (i * 7 + j * 3) % 4, 12 * j + 6 + (i * 5 + j * 11) % 4)
FROM generate_series(0, 49) i, generate_series(0, 49) j;
INSERT INTO cells
SELECT 3, cls, false, id * 10 + part, g FROM (
  SELECT (i + j) % 3 AS cls, i * 100 + j AS id, k, x0, y0, x1, y1 FROM (
    SELECT i, j, (i * 3 + j * 5) % 7 AS k, 12 * i + 1 AS x0, 12 * j + 1 AS y0,
           12 * i + 6 + (i * 7 + j * 3) % 4 AS x1, 12 * j + 6 + (i * 5 + j * 11) % 4 AS y1
    FROM generate_series(0, 49) i, generate_series(0, 49) j) c) c,
  LATERAL (VALUES
    (1, CASE k WHEN 0 THEN NULL
               WHEN 1 THEN ST_MakeEnvelope(x0, y0, (x0 + x1) / 2.0, y1)
               WHEN 2 THEN ST_MakeEnvelope(x0 + 2, y0 + 1, x1 + 2, y1 + 1)
               WHEN 3 THEN ST_Rotate(ST_MakeEnvelope(x0, y0, x1, y1), 0.2, (x0 + x1) / 2.0, (y0 + y1) / 2.0)
               WHEN 6 THEN ST_MakeEnvelope(x0, y0, x1, y1)
               ELSE ST_MakeEnvelope(x0 + 1, y0, x1 + 1, y1) END),
    (2, CASE k WHEN 1 THEN ST_MakeEnvelope((x0 + x1) / 2.0, y0, x1, y1) END),
    (3, CASE WHEN k IN (2, 5) THEN ST_MakeEnvelope(x0 + 10.5 - 1, y0 + 10.5 - 1, x0 + 11.5 - 1, y0 + 11.5 - 1) END)
  ) p(part, g)
WHERE g IS NOT NULL;
SELECT in_a, count(*) FROM cells WHERE slide = 3 GROUP BY in_a ORDER BY in_a;
-- PostGIS's pairs of positive area, with their IoUs
CREATE TEMP TABLE postgis_pairs AS
SELECT a.id AS ida, b.id AS idb, i / (ST_Area(a.geom) + ST_Area(b.geom) - i) AS iou FROM (
  SELECT a.id, b.id AS bid, ST_Area(ST_Intersection(a.geom, b.geom)) AS i
  FROM cells a JOIN cells b ON a.geom && b.geom
  WHERE a.slide = 3 AND b.slide = 3 AND a.in_a AND NOT b.in_a) x
JOIN cells a ON a.slide = 3 AND a.in_a AND a.id = x.id
JOIN cells b ON b.slide = 3 AND NOT b.in_a AND b.id = x.bid
WHERE i > 0;
CREATE TEMP TABLE grid AS
SELECT t, (pb_match_stats(geom, in_a, t)).* FROM cells, unnest(ARRAY[0.1, 0.3, 0.5, 0.7, 0.9]) t
WHERE slide = 3 GROUP BY t;
-- above 0.5 every pair with IoU >= t is a match (an object cannot have two):
-- the counts PostGIS's pairs give; pixel Dice from PostGIS's unions
SELECT t, tp, fp, fn,
       tp = (SELECT count(*) FROM postgis_pairs WHERE iou >= t) AS tp_as_postgis,
       abs(mean_matched_score - (SELECT avg(iou) FROM postgis_pairs WHERE iou >= t)) < 1e-12 AS score_as_postgis,
       abs(dice_pixel - d.dice) < 1e-12 AS dice_as_postgis
FROM grid, (SELECT 2 * ST_Area(ST_Intersection(ua, ub)) / (ST_Area(ua) + ST_Area(ub)) AS dice FROM
            (SELECT ST_Union(geom) FILTER (WHERE in_a) AS ua, ST_Union(geom) FILTER (WHERE NOT in_a) AS ub
             FROM cells WHERE slide = 3) u) d
WHERE t > 0.5 ORDER BY t;
-- all thresholds: counts add up, and the matching loosens as t falls
SELECT t, tp, fp, fn, n_true, n_pred, round(f1::numeric, 6) AS f1, round(panoptic_quality::numeric, 6) AS pq,
       round(aji::numeric, 6) AS aji, round(aji_plus::numeric, 6) AS aji_plus,
       tp + fn = n_true AND tp + fp = n_pred AS counts_add_up,
       abs(panoptic_quality - sq * dq) < 1e-15 AS pq_is_sq_dq
FROM grid ORDER BY t;
-- pb_match_objects agrees with the aggregate at every threshold
CREATE TABLE s3_a AS SELECT id, geom FROM cells WHERE slide = 3 AND in_a;
CREATE TABLE s3_b AS SELECT id, geom FROM cells WHERE slide = 3 AND NOT in_a;
SELECT g.t, o.tp = g.tp AND o.fp = g.fp AND o.fn = g.fn AS objects_as_stats,
       abs(o.sum_iou - g.mean_matched_score * g.tp) < 1e-9 AS same_ious
FROM grid g, LATERAL (SELECT count(*) FILTER (WHERE status = 'tp' AND in_a) AS tp,
                             count(*) FILTER (WHERE status = 'fp') AS fp,
                             count(*) FILTER (WHERE status = 'fn') AS fn,
                             sum(iou) FILTER (WHERE status = 'tp' AND in_a) AS sum_iou
                      FROM pb_match_objects('s3_a', 'id', 'geom', 's3_b', 'id', 'geom', g.t)) o
ORDER BY g.t;
-- every tp row names its partner, which names it back with the same IoU
SELECT count(*) AS unreciprocated
FROM pb_match_objects('s3_a', 'id', 'geom', 's3_b', 'id', 'geom', 0.3) x
LEFT JOIN pb_match_objects('s3_a', 'id', 'geom', 's3_b', 'id', 'geom', 0.3) y
  ON y.in_a <> x.in_a AND y.id = x.match_id AND y.match_id = x.id AND y.iou = x.iou
WHERE x.status = 'tp' AND y.id IS NULL;

-- GROUP BY: per slide, and per class (mPQ = the mean of the classes' PQ)
SELECT slide, n_true, n_pred, tp, round(panoptic_quality::numeric, 6) AS pq
FROM (SELECT slide, (pb_match_stats(geom, in_a)).* FROM cells GROUP BY slide) s ORDER BY slide;
-- (no object overlaps another cell, so the classes split the 1785 matches)
SELECT round(avg(panoptic_quality)::numeric, 6) AS mpq, count(*) AS classes,
       bool_and(n_true > 0) AS every_class_has_objects, sum(tp) AS tp_over_classes
FROM (SELECT cls, (pb_match_stats(geom, in_a)).* FROM cells WHERE slide = 3 GROUP BY cls) s;

-- parallel workers decode, the leader matches: identical to the serial plan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET pixelbox.batch_memory = 64;
EXPLAIN (COSTS OFF) SELECT pb_match_stats(geom, in_a, 0.3) FROM cells WHERE slide = 3;
SELECT x.r IS NOT DISTINCT FROM (SELECT ROW(n_true, n_pred, tp, fp, fn, precision, recall, accuracy, f1,
         mean_true_score, mean_matched_score, panoptic_quality, sq, dq, aji, aji_plus, dice_pixel,
         threshold)::pb_match_stats_result FROM grid WHERE t = 0.3) AS parallel_identical
FROM (SELECT pb_match_stats(geom, in_a, 0.3) AS r FROM cells WHERE slide = 3) x;
SET parallel_leader_participation = off;
SELECT x.t, x.r IS NOT DISTINCT FROM (SELECT ROW(n_true, n_pred, tp, fp, fn, precision, recall, accuracy, f1,
         mean_true_score, mean_matched_score, panoptic_quality, sq, dq, aji, aji_plus, dice_pixel,
         threshold)::pb_match_stats_result FROM grid g WHERE g.t = x.t) AS workers_only_identical
FROM (SELECT t, pb_match_stats(geom, in_a, t) AS r FROM cells, unnest(ARRAY[0.1, 0.9]) t
      WHERE slide = 3 GROUP BY t) x ORDER BY x.t;
SELECT tasks > 0 AS workers_packed FROM pb_pipeline_report() WHERE stage = 'merge';
RESET ALL;

-- NULL geometries and NULL sets take no part; every other row is an
-- object, one with no polygonal part (empty, a point) of area 0, matching nothing
SELECT n_true, n_pred, tp, fp, fn, dice_pixel
FROM (SELECT (pb_match_stats(g, a)).* FROM (VALUES
  (NULL::geometry, true), ('POLYGON((0 0,2 0,2 2,0 2,0 0))', NULL),
  ('POLYGON((0 0,2 0,2 2,0 2,0 0))', true), ('POLYGON((0 0,2 0,2 2,0 2,0 0))', false),
  ('POLYGON EMPTY', true), ('POINT(5 5)', false)) v(g, a)) s;
-- no rows: zeros, and no threshold
SELECT (pb_match_stats(geom, in_a, 0.7)).* FROM cells WHERE false;
-- only one set: all false negatives (or positives), ratios 0
SELECT n_true, n_pred, tp, fn, precision, recall, f1, panoptic_quality, aji, aji_plus, dice_pixel
FROM (SELECT (pb_match_stats(geom, in_a)).* FROM cells WHERE slide = 3 AND in_a) s;
SELECT n_true, n_pred, tp, fp, f1, aji FROM (SELECT (pb_match_stats(geom, in_a)).* FROM cells WHERE slide = 3 AND NOT in_a) s;

-- within-set overlap breaks the sums of areas: a WARNING says so
SELECT tp, dice_pixel FROM (SELECT (pb_match_stats(g, a)).* FROM (VALUES
  ('POLYGON((0 0,4 0,4 4,0 4,0 0))'::geometry, true),
  ('POLYGON((0 0,3 0,3 4,0 4,0 0))', false), ('POLYGON((1 0,4 0,4 4,1 4,1 0))', false)) v(g, a)) s;

-- errors: thresholds outside [0, 1], NULL, or differing in a group; mixed
-- SRIDs; pb_match_objects' threshold and columns
SELECT (pb_match_stats(geom, in_a, -0.1)).tp FROM cells WHERE slide = 1;
SELECT (pb_match_stats(geom, in_a, 1.5)).tp FROM cells WHERE slide = 1;
SELECT (pb_match_stats(geom, in_a, 'NaN')).tp FROM cells WHERE slide = 1;
SELECT (pb_match_stats(geom, in_a, NULL)).tp FROM cells WHERE slide = 1;
SELECT (pb_match_stats(geom, in_a, CASE WHEN id = 2 THEN 0.6 ELSE 0.5 END)).tp FROM cells WHERE slide = 1;
SELECT (pb_match_stats(g, a)).tp FROM (VALUES ('SRID=4326;POLYGON((0 0,2 0,2 2,0 2,0 0))'::geometry, true),
                                             ('POLYGON((1 1,3 1,3 3,1 3,1 1))', false)) v(g, a);
SELECT * FROM pb_match_objects('s1_a', 'id', 'geom', 's1_b', 'nid', 'outline', 2);
SELECT * FROM pb_match_objects('s1_a', 'id', 'geom', 's1_b', 'nid', 'outline', 'NaN');
SELECT * FROM pb_match_objects('s1_a', 'id', 'no_such_column', 's1_b', 'nid', 'outline');
SELECT * FROM pb_match_objects('s1_a', 'id', 'id', 's1_b', 'nid', 'outline');
DROP TABLE cells, s1_a, s1_b, s3_a, s3_b;
