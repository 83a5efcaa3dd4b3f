-- A large geometry met in many rows (a merged blob against the nuclei it
-- covers, on either side of a nested-loop join) is decoded once per batch
-- (geom_memo.c): out-of-line values known by their TOAST pointer,
-- compressed inline ones by their bytes.  The answers stay PostGIS's and
-- bit-identical whatever the join order, batch size or device.
CREATE FUNCTION stairs(x0 int, y0 int, n int, s int) RETURNS geometry
LANGUAGE sql IMMUTABLE AS $$
  SELECT ST_GeomFromText(format('POLYGON((%s %s,%s,%s %s,%s %s))', x0, y0,
    string_agg(format('%s %s,%s %s', x0 + (i + 1) * s, y0 + i * s, x0 + (i + 1) * s, y0 + (i + 1) * s), ',' ORDER BY i),
    x0, y0 + n * s, x0, y0))
  FROM generate_series(0, n - 1) i $$;
-- blobs out of line (EXTERNAL storage, 6 kB each), two of them equal
CREATE TABLE blobs_ext (id int, geom geometry);
ALTER TABLE blobs_ext ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO blobs_ext SELECT k, stairs(k * 300, (k % 3) * 40, 200, 1) FROM generate_series(0, 5) k;
INSERT INTO blobs_ext SELECT 100, geom FROM blobs_ext WHERE id = 2;
-- blobs compressed inline (the default storage), and small plain ones
CREATE TABLE blobs_cmp (id int, geom geometry);
INSERT INTO blobs_cmp SELECT 1000 + k, stairs(k * 150 + 7, 5, 60, 2) FROM generate_series(0, 11) k;
INSERT INTO blobs_cmp SELECT 1100 + k, ST_MakeEnvelope(k * 90, 0, k * 90 + 50, 30) FROM generate_series(0, 19) k;
CREATE TABLE nuclei AS
SELECT i * 1000 + j AS id, ST_MakeEnvelope(i * 9, j * 9, i * 9 + 6 + i % 3, j * 9 + 5 + j % 2) AS geom
FROM generate_series(0, 200) i, generate_series(0, 30) j;
CREATE INDEX ON nuclei USING gist (geom);
CREATE INDEX ON blobs_ext USING gist (geom);
CREATE INDEX ON blobs_cmp USING gist (geom);
ANALYZE nuclei;
ANALYZE blobs_ext;
ANALYZE blobs_cmp;
-- how the blobs are stored: out of line (uncompressed, over the ~2 kB a
-- row may hold inline), compressed inline, plain
SELECT 'ext' AS t, count(*) AS n,
       bool_and(pg_column_compression(geom) IS NULL AND pg_column_size(geom) > 2100) AS out_of_line
FROM blobs_ext
UNION ALL
SELECT 'cmp', count(*), bool_and(pg_column_size(geom) < 2000) FROM blobs_cmp WHERE pg_column_compression(geom) IS NOT NULL
UNION ALL
SELECT 'plain', count(*), NULL FROM blobs_cmp WHERE pg_column_compression(geom) IS NULL;

CREATE TEMP VIEW blobs AS SELECT id, geom FROM blobs_ext UNION ALL SELECT id, geom FROM blobs_cmp;
CREATE TEMP TABLE postgis AS
SELECT AVG(ratio) AS j FROM (SELECT i / (ap + aq - i) AS ratio FROM (
  SELECT ST_Area(ST_Intersection(p.geom, q.geom)) AS i, ST_Area(p.geom) AS ap, ST_Area(q.geom) AS aq
  FROM nuclei p, blobs q WHERE p.geom && q.geom) t WHERE i > 0) u;
SET max_parallel_workers_per_gather = 0;
-- blobs on the inner side (each comes back for every nucleus it meets),
-- then on the outer side (row after row)
CREATE TEMP VIEW blobs_inner AS
SELECT p.geom AS a, q.geom AS b FROM nuclei p, LATERAL (SELECT geom FROM blobs q WHERE q.geom && p.geom OFFSET 0) q;
CREATE TEMP VIEW blobs_outer AS
SELECT p.geom AS a, q.geom AS b FROM blobs q, LATERAL (SELECT geom FROM nuclei p WHERE p.geom && q.geom OFFSET 0) p;
EXPLAIN (COSTS OFF) SELECT jaccard_gpu(a, b) FROM blobs_inner;
EXPLAIN (COSTS OFF) SELECT jaccard_gpu(b, a) FROM blobs_outer;
CREATE TEMP TABLE inner_blobs AS SELECT pb_cross_compare(a, b) AS c FROM blobs_inner;
CREATE TEMP TABLE outer_blobs AS SELECT pb_cross_compare(b, a) AS c FROM blobs_outer;
SELECT (c).pairs, (c).pairs_intersecting, abs((c).jaccard_mean - (SELECT j FROM postgis)) < 1e-12 AS postgis_j
FROM inner_blobs;
SELECT (o.c).pairs = (i.c).pairs AS same_pairs, (o.c).jaccard_mean = (i.c).jaccard_mean AS same_j
FROM outer_blobs o, inner_blobs i;
-- many batch fills (the memo starts afresh with each), and the same blob
-- as both arguments: every variant bit-identical
CREATE TEMP VIEW same_as_inner AS
SELECT c IS NOT DISTINCT FROM (SELECT c FROM inner_blobs) AS identical
FROM (SELECT pb_cross_compare(a, b) AS c FROM blobs_inner) t;
SET pixelbox.batch_memory = 64;
SELECT 'batch_memory 64kB' AS variant, identical FROM same_as_inner;
RESET pixelbox.batch_memory;
SET pixelbox.device = cpu;
SELECT 'device cpu' AS variant, identical FROM same_as_inner;
RESET pixelbox.device;
SELECT (c).pairs, (c).jaccard_mean = 1 AS all_one
FROM (SELECT pb_cross_compare(a.geom, b.geom) AS c FROM blobs a, blobs b WHERE a.id = b.id) t;
-- a blob against itself and its equal twin (another row, another TOAST value)
SELECT (c).pairs, (c).pairs_intersecting, (c).jaccard_mean = 1 AS all_one
FROM (SELECT pb_cross_compare(a.geom, b.geom) AS c FROM blobs_ext a, blobs_ext b WHERE a.id IN (2, 100) AND b.id IN (2, 100)) t;
-- the two equal blobs in different rows: each pair counts once per row
SELECT count(*) AS pairs, round(jaccard_gpu(p.geom, q.geom)::numeric, 12) AS j
FROM nuclei p, blobs_ext q WHERE p.geom && q.geom AND q.id IN (2, 100);
SELECT count(*) AS pairs, round(jaccard_gpu(p.geom, q.geom)::numeric, 12) AS j
FROM nuclei p, blobs_ext q WHERE p.geom && q.geom AND q.id = 2;
-- plain inline values (boxes, all of one byte length) on the outer side:
-- each repeats for the inner rows it meets and reuses the last row's
-- shape; the next box, of the same length, is not taken for it; and a
-- batch fill ending between repeats starts afresh
CREATE TABLE nuclei_shifted AS SELECT id, ST_Translate(geom, 4, 3) AS geom FROM nuclei;
CREATE INDEX ON nuclei_shifted USING gist (geom);
ANALYZE nuclei_shifted;
SELECT count(DISTINCT pg_column_size(geom)) AS lengths, bool_and(pg_column_compression(geom) IS NULL) AS plain
FROM nuclei;
CREATE TEMP VIEW boxes_outer AS
SELECT p.geom AS a, q.geom AS b FROM nuclei p, LATERAL (SELECT geom FROM nuclei_shifted q WHERE q.geom && p.geom OFFSET 0) q;
EXPLAIN (COSTS OFF) SELECT jaccard_gpu(a, b) FROM boxes_outer;
CREATE TEMP TABLE boxes_postgis AS
SELECT count(*) AS pairs, AVG(i / (ap + aq - i)) FILTER (WHERE i > 0) AS j FROM (
  SELECT ST_Area(ST_Intersection(a, b)) AS i, ST_Area(a) AS ap, ST_Area(b) AS aq FROM boxes_outer) t;
SELECT pairs, pairs > (SELECT count(*) FROM nuclei) AS repeats FROM boxes_postgis;
CREATE TEMP VIEW boxes_check AS
SELECT (c).pairs = b.pairs AS same_pairs, abs((c).jaccard_mean - b.j) < 1e-12 AS postgis_j
FROM (SELECT pb_cross_compare(a, b) AS c FROM boxes_outer) t, boxes_postgis b;
SELECT 'default' AS variant, * FROM boxes_check;
SET pixelbox.batch_memory = 64;
SELECT 'batch_memory 64kB' AS variant, * FROM boxes_check;
SET pixelbox.device = cpu;
SELECT 'batch_memory 64kB, device cpu' AS variant, * FROM boxes_check;
RESET pixelbox.device;
RESET pixelbox.batch_memory;
