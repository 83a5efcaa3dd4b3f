-- Data, workload and reference answers of the load and fault tests
-- (tests/load/run): two pbgen segmentations, a tiled copy, a polygon file,
-- and rasters derived from the segmentation; pb_load_queries holds one SQL
-- query per aggregate and raster function, pb_load_reference its answer as
-- one session computes it.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE;
CREATE EXTENSION IF NOT EXISTS pixelbox_raster CASCADE;

CREATE TABLE seg (id bigint, geom geometry, in_a boolean, tile bigint);
CREATE TEMP TABLE load (id bigint, geom geometry);
\copy load FROM PROGRAM './bench/pbgen --polygons 1500 --seed 21 --set a'
INSERT INTO seg SELECT id, geom, true FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 1500 --seed 21 --set b'
INSERT INTO seg SELECT id, geom, false FROM load;
TRUNCATE load;
\copy load FROM PROGRAM './bench/pbgen --polygons 300 --seed 5 --style smooth --set a'
INSERT INTO seg SELECT id + 1000000, geom, true FROM load;
UPDATE seg SET tile = floor(ST_XMin(geom) / 256)::bigint * 1000 + floor(ST_YMin(geom) / 256)::bigint;
CREATE TABLE seg_a AS SELECT id, geom FROM seg WHERE in_a;
CREATE TABLE seg_b AS SELECT id, geom FROM seg WHERE NOT in_a;
CREATE INDEX ON seg_a USING gist (geom);
CREATE INDEX ON seg_b USING gist (geom);
ANALYZE seg, seg_a, seg_b;

-- rasters: the set-a mask burnt into 8BUI, a marker for reconstruction,
-- the mask's distance transform as watershed heights
CREATE TABLE img AS
SELECT ST_AsRaster(ST_Collect(geom), 384, 384, '8BUI', 200, 0) AS mask FROM seg_a;
ALTER TABLE img ADD COLUMN marker raster, ADD COLUMN heights raster;
UPDATE img SET marker = ST_MapAlgebra(mask, 1, '8BUI', 'CASE WHEN [rast.x] % 97 = 0 THEN [rast.val] ELSE 0 END');
UPDATE img SET heights = ST_MapAlgebra(pb_distance_transform(mask), 1, '32BF', '-[rast.val]');

CREATE TABLE pb_load_queries (k int PRIMARY KEY, name text, sql text);
INSERT INTO pb_load_queries (k, name, sql) VALUES
 (1, 'jaccard_gpu', $q$SELECT jaccard_gpu(p.geom, q.geom)::text FROM seg_a p JOIN seg_b q ON p.geom && q.geom$q$),
 (2, 'pb_cross_compare', $q$SELECT pb_cross_compare(p.geom, q.geom)::text FROM seg_a p JOIN seg_b q ON p.geom && q.geom$q$),
 (3, 'pb_compare_sets', $q$SELECT pb_compare_sets(geom, in_a)::text FROM seg$q$),
 (4, 'pb_compare_sets tiled', $q$SELECT pb_compare_sets(geom, in_a, tile ORDER BY tile)::text FROM seg$q$),
 (5, 'pb_compare_tables', $q$SELECT pb_compare_tables('seg_a', 'geom', 'seg_b', 'geom')::text$q$),
 (6, 'pb_intersecting_pairs', $q$SELECT count(*) || ' ' || sum(area_intersection) FROM pb_intersecting_pairs('seg_a', 'id', 'geom', 'seg_b', 'id', 'geom')$q$),
 (7, 'pair functions', $q$SELECT sum(pb_intersection_area(p.geom, q.geom)) || ' ' || sum(pb_union_area(p.geom, q.geom)) || ' ' || sum(pb_jaccard(p.geom, q.geom)) FROM seg_a p JOIN seg_b q ON p.geom && q.geom$q$),
 (8, 'pb_read_polygons', $q$SELECT count(*) || ' ' || sum(ST_Area(geom)) FROM pb_read_polygons(:'polyfile')$q$),
 (9, 'pb_compare_files', $q$SELECT pb_compare_files(ARRAY[:'polyfile'], ARRAY[:'polyfile'])::text$q$),
 (10, 'pb_reconstruct', $q$SELECT md5(ST_AsWKB(pb_reconstruct(marker, mask))) FROM img$q$),
 (11, 'pb_fill_holes', $q$SELECT md5(ST_AsWKB(pb_fill_holes(mask))) FROM img$q$),
 (12, 'pb_distance_transform', $q$SELECT md5(ST_AsWKB(pb_distance_transform(mask, 1, NULL, true))) FROM img$q$),
 (13, 'pb_watershed', $q$SELECT md5(ST_AsWKB(pb_watershed(heights, NULL, 8, mask, true))) FROM img$q$),
 (14, 'pb_watershed markers', $q$SELECT md5(ST_AsWKB(pb_watershed(heights, marker, 4))) FROM img$q$);
UPDATE pb_load_queries SET sql = replace(sql, $$:'polyfile'$$, quote_literal(:'polyfile'));

-- Run workload query k and return its answer as text.
CREATE FUNCTION pb_load_run(k int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	answer text;
BEGIN
	EXECUTE (SELECT sql FROM pb_load_queries q WHERE q.k = pb_load_run.k) INTO answer;
	RETURN answer;
END
$$;

-- Run workload query k and raise an error unless it gives the reference answer.
CREATE FUNCTION pb_load_check(k int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	answer text := pb_load_run(k);
	expected text := (SELECT r.answer FROM pb_load_reference r WHERE r.k = pb_load_check.k);
BEGIN
	IF answer IS DISTINCT FROM expected THEN
		RAISE EXCEPTION 'query % (%) answered % instead of %', k,
			(SELECT name FROM pb_load_queries q WHERE q.k = pb_load_check.k), answer, expected;
	END IF;
END
$$;

CREATE TABLE pb_load_reference AS SELECT k, pb_load_run(k) AS answer FROM pb_load_queries;
SELECT k, name, answer IS NOT NULL AS answered FROM pb_load_reference JOIN pb_load_queries USING (k) ORDER BY k;
