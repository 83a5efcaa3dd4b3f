-- Where two segmentations disagree: pb_tile_agreement (the matching per
-- tile), pb_disagreements and pb_disagreement_geojson (the misses as
-- objects QuPath shows), on a case worked by hand, against pb_match_stats
-- and PostGIS on a generated slide, and every error.  The real-image
-- checks (against numpy, the export read back by GDAL's ogrinfo and by
-- pb_read_geojson) are in tests/metrics/check_disagreement.py.
SET client_min_messages = warning;
CREATE TABLE ref (id int, geom geometry);
CREATE TABLE pred (id bigint, geom geometry);
-- worked by hand, tiles of 64 (image coordinates):
--   r1 [0,10]x[0,10] ~ p10 [0,10]x[0,9]:   IoU 0.9 (tile 0,0)
--   r2 [20,30]x[0,10] ~ p11 [20,26]x[0,10]: IoU 0.6 (tile 0,0): low_iou below 0.7
--   r3 [100,110]x[100,110] alone: fn (tile 1,1)
--   p12 [200,210]x[0,10] alone: fp (tile 3,0)
--   p13 [60,70]x[0,10] (centre 65: tile 1,0) matches r4 [58,68]x[0,10]
--       (centre 63: tile 0,0), IoU 8/12: counted in r4's tile
--   r5 EMPTY: fn without a place (tile NULL); r6 NULL: no part at all
INSERT INTO ref VALUES (1, ST_MakeEnvelope(0, 0, 10, 10)), (2, ST_MakeEnvelope(20, 0, 30, 10)),
  (3, ST_MakeEnvelope(100, 100, 110, 110)), (4, ST_MakeEnvelope(58, 0, 68, 10)),
  (5, 'POLYGON EMPTY'), (6, NULL);
INSERT INTO pred VALUES (10, ST_MakeEnvelope(0, 0, 10, 9)), (11, ST_MakeEnvelope(20, 0, 26, 10)),
  (12, ST_MakeEnvelope(200, 0, 210, 10)), (13, ST_MakeEnvelope(60, 0, 70, 10));
-- tile (0,0): r1, r2, r4 matched: tp 3, n_pred 3; f1 1; pq = (0.9 + 0.6 + 2/3) / 3;
-- J' over its pairs (r1-p10, r2-p11, r4-p13) the same mean; tile (3,0): fp;
-- tile (1,1): fn; NULL tile: r5 (fn)
SELECT tile_x, tile_y, ST_AsText(tile) AS tile, n_true, n_pred, tp, fp, fn, f1,
       round(pq::numeric, 12) AS pq, round(jaccard::numeric, 12) AS jaccard, pairs
FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 64);
SELECT round(((0.9 + 0.6 + 8.0 / 12) / 3)::numeric, 12) AS expected_pq;
-- the rows add up to pb_match_stats; at 0.65 r2-p11 no longer matches
SELECT sum(n_true) AS n_true, sum(n_pred) AS n_pred, sum(tp) AS tp, sum(fp) AS fp, sum(fn) AS fn
FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 64, 0.65);
SELECT (s).n_true, (s).n_pred, (s).tp, (s).fp, (s).fn
FROM (SELECT pb_match_stats(geom, in_a, 0.65) AS s
      FROM (SELECT geom, true AS in_a FROM ref UNION ALL SELECT geom, false FROM pred) t) m;
-- a grid offset from the origin: negative tile numbers, a tile of 0.5
SELECT tile_x, tile_y, ST_AsText(tile) AS tile, n_true, n_pred
FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 1e9)
UNION ALL
SELECT tile_x, tile_y, NULL, n_true, n_pred
FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 0.5) WHERE tile_x < 2;
-- the tile square keeps the SRID
CREATE TABLE ref_srid AS SELECT id, ST_SetSRID(geom, 3857) AS geom FROM ref;
CREATE TABLE pred_srid AS SELECT id, ST_SetSRID(geom, 3857) AS geom FROM pred;
SELECT DISTINCT ST_SRID(tile) FROM pb_tile_agreement('ref_srid', 'id', 'geom', 'pred_srid', 'id', 'geom', 64)
WHERE tile IS NOT NULL;
-- empty tables: no rows
CREATE TABLE nothing (id int, geom geometry);
SELECT count(*) FROM pb_tile_agreement('nothing', 'id', 'geom', 'nothing', 'id', 'geom', 10);

-- a generated slide: 40 x 40 nuclei on a 12-px grid, the prediction shifted,
-- some dropped, some added; tiles of 50 px.  Every row against plain SQL:
-- counts and F1/PQ from pb_match_objects with the tiles assigned here, J'
-- from PostGIS's intersections (ST_Intersection over the && join).
SELECT setseed(0.22);
CREATE TABLE gen_a AS
  SELECT i * 40 + j AS id, ST_MakeEnvelope(i * 12 + 1, j * 12 + 1, i * 12 + 10, j * 12 + 10) AS geom
  FROM generate_series(0, 39) i, generate_series(0, 39) j WHERE random() < 0.95;
CREATE TABLE gen_b AS
  SELECT id, ST_Translate(geom, floor(random() * 5) - 2, floor(random() * 5) - 2) AS geom
  FROM gen_a WHERE random() < 0.9
  UNION ALL
  SELECT 100000 + k, ST_MakeEnvelope(x, y, x + 7, y + 7)
  FROM (SELECT k, floor(random() * 470) AS x, floor(random() * 470) AS y FROM generate_series(1, 60) k) r;
CREATE TEMP TABLE objs AS
  SELECT o.*, floor(ST_X(ST_Centroid(ST_Envelope(g.geom))) / 50)::int AS tx,
         floor(ST_Y(ST_Centroid(ST_Envelope(g.geom))) / 50)::int AS ty
  FROM pb_match_objects('gen_a', 'id', 'geom', 'gen_b', 'id', 'geom') o
  JOIN (SELECT true AS in_a, id, geom FROM gen_a UNION ALL SELECT false, id, geom FROM gen_b) g
    ON g.in_a = o.in_a AND g.id = o.id;
CREATE TEMP TABLE truth AS
  WITH counted AS (
    SELECT tx, ty, count(*) AS n_true, count(*) FILTER (WHERE status = 'tp') AS tp,
           count(*) FILTER (WHERE status = 'fn') AS fn, 0 AS fp,
           coalesce(sum(iou) FILTER (WHERE status = 'tp'), 0) AS matched
    FROM objs WHERE in_a GROUP BY tx, ty
    UNION ALL
    SELECT tx, ty, 0, 0, 0, count(*), 0 FROM objs WHERE NOT in_a AND status = 'fp' GROUP BY tx, ty),
  pairs AS (
    SELECT floor(ST_X(ST_Centroid(ST_Envelope(a.geom))) / 50)::int AS tx,
           floor(ST_Y(ST_Centroid(ST_Envelope(a.geom))) / 50)::int AS ty,
           ST_Area(ST_Intersection(a.geom, b.geom)) AS i, ST_Area(a.geom) AS aa, ST_Area(b.geom) AS ab
    FROM gen_a a JOIN gen_b b ON a.geom && b.geom)
  SELECT c.tx, c.ty, sum(n_true) AS n_true, sum(tp) + sum(fp) AS n_pred, sum(tp) AS tp, sum(fp) AS fp,
         sum(fn) AS fn, 2.0 * sum(tp) / (2 * sum(tp) + sum(fp) + sum(fn)) AS f1,
         sum(matched) / (sum(tp) + sum(fp) / 2.0 + sum(fn) / 2.0) AS pq,
         (SELECT avg(i / (aa + ab - i)) FROM pairs p WHERE p.tx = c.tx AND p.ty = c.ty AND i > 0) AS jaccard,
         (SELECT count(*) FROM pairs p WHERE p.tx = c.tx AND p.ty = c.ty AND i > 0) AS pairs
  FROM counted c GROUP BY c.tx, c.ty;
SELECT count(*) AS tiles, sum(t.tp) AS tp, sum(t.fp) AS fp, sum(t.fn) AS fn,
       count(*) FILTER (WHERE (r.n_true, r.n_pred, r.tp, r.fp, r.fn, r.pairs)
                              IS DISTINCT FROM (t.n_true, t.n_pred, t.tp, t.fp, t.fn, t.pairs)) AS counts_differ,
       count(*) FILTER (WHERE abs(r.f1 - t.f1) > 1e-12 OR abs(r.pq - t.pq) > 1e-12
                              OR (r.jaccard IS NULL) <> (t.jaccard IS NULL)
                              OR abs(r.jaccard - t.jaccard) > 1e-12) AS figures_differ,
       bool_and(ST_Equals(r.tile, ST_MakeEnvelope(t.tx * 50, t.ty * 50, t.tx * 50 + 50, t.ty * 50 + 50)))
         AS squares_right
FROM truth t FULL JOIN pb_tile_agreement('gen_a', 'id', 'geom', 'gen_b', 'id', 'geom', 50) r
  ON r.tile_x = t.tx AND r.tile_y = t.ty;
-- and to pb_match_stats
SELECT (SELECT row(sum(tp), sum(fp), sum(fn))
        FROM pb_tile_agreement('gen_a', 'id', 'geom', 'gen_b', 'id', 'geom', 50))
     = (SELECT row((s).tp::numeric, (s).fp::numeric, (s).fn::numeric)
        FROM (SELECT pb_match_stats(geom, in_a) AS s
              FROM (SELECT geom, true AS in_a FROM gen_a UNION ALL SELECT geom, false FROM gen_b) t) m)
       AS adds_up;

-- pb_disagreements: fn, fp and the low-IoU pair (both objects), with geometries
SELECT in_a, id, match_id, iou, status, ST_AsText(geom) AS geom
FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom');
-- low_iou 0.5: the pair of 0.6 is no longer low, 2/3 neither
SELECT in_a, id, status FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom', 0.5, 0.5);
-- iou_threshold 0.65: r2-p11 becomes fn + fp
SELECT in_a, id, status FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom', 0.65, 0.65);
-- on the generated slide: exactly pb_match_objects' misses and pairs below 0.7
SELECT (SELECT count(*) FROM pb_disagreements('gen_a', 'id', 'geom', 'gen_b', 'id', 'geom'))
     = (SELECT count(*) FROM objs WHERE status <> 'tp' OR iou < 0.7) AS same_objects;

-- pb_disagreement_geojson: a FeatureCollection of QuPath objects; EMPTY
-- geometries (nothing to show) left out
SELECT json_typeof(j) AS type, j->>'type' AS collection, json_array_length(j->'features') AS features
FROM pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom') j;
SELECT f->'properties'->>'name' AS name, f->'properties'->>'objectType' AS object_type,
       f->'properties'->'classification'->>'name' AS class,
       f->'properties'->'classification'->'color' AS color,
       f->'properties'->'measurements' AS measurements,
       ST_AsText(ST_GeomFromGeoJSON(f->'geometry')) AS geom,
       (f->>'id')::uuid IS NOT NULL AS has_uuid
FROM json_array_elements((SELECT pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom'))->'features') f;
-- annotations on request; ids are stable from run to run
SELECT DISTINCT f->'properties'->>'objectType' AS object_type
FROM json_array_elements((SELECT pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom',
                                                         object_type => 'annotation'))->'features') f;
SELECT pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom')::text
     = pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom')::text AS stable;
-- no disagreement: an empty collection
SELECT pb_disagreement_geojson('ref', 'id', 'geom', 'ref', 'id', 'geom') AS same_tables;
-- non-integer coordinates come back exactly (15 decimals)
CREATE TABLE fine (id int, geom geometry);
INSERT INTO fine VALUES (1, 'POLYGON((0.1 0.2,10.123456789012 0.2,10.123456789012 7.3333333333333,0.1 0.2))');
SELECT ST_Equals(ST_SetSRID(ST_GeomFromGeoJSON(j->'features'->0->'geometry'), 0), (SELECT geom FROM fine)) AS exact
FROM pb_disagreement_geojson('fine', 'id', 'geom', 'nothing', 'id', 'geom') j;

-- errors (their hints shown, PL/pgSQL's context not)
\set SHOW_CONTEXT never
SELECT * FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 0);
SELECT * FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', -5);
SELECT * FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 'NaN');
SELECT * FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 'Infinity');
SELECT * FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 1e-9);
SELECT * FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 64, 1.5);
-- (a NULL argument gives no rows, as for every STRICT function)
SELECT count(*) FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'id', 'geom', 64, NULL);
SELECT * FROM pb_tile_agreement('ref', 'id', 'geom', 'pred', 'nope', 'geom', 64);
SELECT * FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom', 0.5, -0.1);
SELECT * FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom', 0.5, 'NaN');
SELECT * FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom', 2, 0.7);
SELECT * FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom', NULL, 0.7);
SELECT pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom', 0.5, NULL);
INSERT INTO pred VALUES (NULL, ST_MakeEnvelope(300, 0, 310, 10));
SELECT * FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom');
DELETE FROM pred WHERE id IS NULL;
INSERT INTO ref VALUES (3, ST_MakeEnvelope(300, 0, 310, 10));
SELECT * FROM pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom');
-- a NULL geometry under a repeated id is no object: not an error
DELETE FROM ref WHERE id = 3 AND ST_XMin(geom) = 300;
INSERT INTO ref VALUES (3, NULL);
SELECT count(*) FROM pb_disagreements('ref', 'id', 'geom', 'pred', 'id', 'geom');
SELECT pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom', object_type => 'cell');
SELECT pb_disagreement_geojson('ref', 'id', 'geom', 'pred', 'id', 'geom', object_type => NULL);
SELECT * FROM pb_disagreements('ref', 'id', 'geom', 'no_such_table', 'id', 'geom');
SELECT * FROM pb_disagreements('ref', 'id', 'geom', 'pred', NULL, 'geom');
SELECT pb_disagreement_geojson(NULL, 'id', 'geom', 'pred', 'id', 'geom');
