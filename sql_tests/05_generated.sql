-- Every function against PostGIS on generated segmentations (bench/pbgen):
-- rectilinear nuclei with holes and touching neighbours, the same nuclei
-- as smoothed general polygons, scaled, moved beyond 2^31, as
-- multipolygons, identical, contained and touching pairs.
CREATE TABLE gen_a (id bigint, geom geometry);
CREATE TABLE gen_b (id bigint, geom geometry);
CREATE TABLE smooth_a (id bigint, geom geometry);
CREATE TABLE smooth_b (id bigint, geom geometry);
\copy gen_a FROM PROGRAM './bench/pbgen --polygons 2000 --seed 7 --set a'
\copy gen_b FROM PROGRAM './bench/pbgen --polygons 2000 --seed 7 --set b'
\copy smooth_a FROM PROGRAM './bench/pbgen --polygons 1000 --seed 11 --style smooth --set a'
\copy smooth_b FROM PROGRAM './bench/pbgen --polygons 1000 --seed 11 --style smooth --set b'
CREATE INDEX ON gen_b USING gist (geom);

-- the data: valid polygons, some with holes, some touching
SELECT count(*) AS polygons, bool_and(ST_IsValid(geom)) AS all_valid,
       count(*) FILTER (WHERE ST_NumInteriorRings(geom) > 0) > 0 AS some_holes
FROM gen_a;
SELECT count(*) > 0 AS some_touching FROM gen_a p, gen_a q
WHERE p.id < q.id AND p.geom && q.geom AND ST_Touches(p.geom, q.geom)
  AND ST_Dimension(ST_Intersection(p.geom, q.geom)) = 1;

-- a comparison of pb_* with PostGIS over a set of pairs: exact matches and
-- worst relative difference (of the intersection, union and Jaccard ratio)
CREATE FUNCTION compare_pairs(pairs_sql text)
RETURNS TABLE (pairs bigint, nonzero bigint, exact bigint, worst_rel_diff float8)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT count(*), count(*) FILTER (WHERE st_i > 0),
           count(*) FILTER (WHERE pb_i = st_i AND pb_u = st_u),
           max(greatest(abs(pb_i - st_i) / greatest(st_i, 1e-300) * (st_i > 0)::int,
                        abs(pb_u - st_u) / greatest(st_u, 1e-300),
                        coalesce(abs(pb_j - st_i / nullif(st_u, 0)), 0)))
    FROM (SELECT pb_intersection_area(a, b) AS pb_i, pb_union_area(a, b) AS pb_u, pb_jaccard(a, b) AS pb_j,
                 ST_Area(ST_Intersection(a, b)) AS st_i, ST_Area(ST_Union(a, b)) AS st_u
          FROM (%s) AS pairs(a, b)) t $q$, pairs_sql);
END $$;

-- rectilinear integer nuclei: every pair exactly equal to PostGIS
SELECT 'rectilinear' AS data, * FROM compare_pairs('SELECT p.geom, q.geom FROM gen_a p, gen_b q WHERE p.geom && q.geom');
-- pairs involving polygons with holes
SELECT 'with holes' AS data, * FROM compare_pairs('SELECT p.geom, q.geom FROM gen_a p, gen_b q WHERE p.geom && q.geom
  AND (ST_NumInteriorRings(p.geom) > 0 OR ST_NumInteriorRings(q.geom) > 0)');
-- touching neighbours of one segmentation: zero area, exactly
SELECT 'touching' AS data, * FROM compare_pairs('SELECT p.geom, q.geom FROM gen_a p, gen_a q WHERE p.id < q.id AND p.geom && q.geom');
-- identical and contained
SELECT 'identical' AS data, * FROM compare_pairs('SELECT geom, geom FROM gen_a');
SELECT 'contained in envelope' AS data, * FROM compare_pairs('SELECT geom, ST_Envelope(geom) FROM gen_a');
-- the paper's scale factors: coordinates x5
SELECT 'scaled x5' AS data, * FROM compare_pairs('SELECT ST_Scale(p.geom, 5, 5), ST_Scale(q.geom, 5, 5) FROM gen_a p, gen_b q WHERE p.geom && q.geom AND p.id % 4 = 0');
-- moved beyond 2^31 (the general engine) and to negative coordinates
SELECT 'beyond 2^31' AS data, * FROM compare_pairs('SELECT ST_Translate(p.geom, 3e9, 3e9), ST_Translate(q.geom, 3e9, 3e9) FROM gen_a p, gen_b q WHERE p.geom && q.geom AND p.id % 4 = 1');
SELECT 'negative' AS data, * FROM compare_pairs('SELECT ST_Translate(p.geom, -1e6, -5e5), ST_Translate(q.geom, -1e6, -5e5) FROM gen_a p, gen_b q WHERE p.geom && q.geom AND p.id % 4 = 2');
-- multipolygons: the nuclei of each 40x40 px cell of one corner of the
-- slide (valid ones: parts that do not touch)
CREATE TEMP TABLE multi_a AS
SELECT ST_Multi(ST_Collect(geom)) AS geom FROM gen_a
WHERE ST_XMin(geom) < 400 AND ST_YMin(geom) < 400
GROUP BY floor(ST_XMin(geom) / 40), floor(ST_YMin(geom) / 40);
DELETE FROM multi_a WHERE NOT (ST_IsValidDetail(multi_a.geom)).valid;
SELECT 'multipolygons' AS data, * FROM compare_pairs('SELECT p.geom, q.geom FROM multi_a p, gen_b q WHERE p.geom && q.geom');
-- smoothed general polygons (diagonal edges, quarter coordinates): 1e-9
SELECT count(*) AS smooth_polygons, bool_and(ST_IsValid(geom)) AS all_valid,
       bool_and(ST_NPoints(geom) > 4) AS not_boxes FROM smooth_a;
SELECT 'smooth' AS data, pairs, nonzero, worst_rel_diff <= 1e-9 AS within_1e9
FROM compare_pairs('SELECT p.geom, q.geom FROM smooth_a p, smooth_b q WHERE p.geom && q.geom');
SELECT 'smooth vs rect' AS data, pairs, nonzero, worst_rel_diff <= 1e-9 AS within_1e9
FROM compare_pairs('SELECT p.geom, q.geom FROM smooth_a p, gen_b q WHERE p.geom && q.geom');

-- the aggregates equal PostGIS's Fig. 1(b) query on both data sets
SELECT data, abs(pixelbox - postgis) < 1e-12 AS same_as_postgis FROM (
  SELECT 'rectilinear' AS data,
         (SELECT jaccard_gpu(p.geom, q.geom) FROM gen_a p, gen_b q WHERE p.geom && q.geom) AS pixelbox,
         (SELECT avg(i / (ap + aq - i)) FROM (SELECT ST_Area(ST_Intersection(p.geom, q.geom)) AS i,
            ST_Area(p.geom) AS ap, ST_Area(q.geom) AS aq FROM gen_a p, gen_b q WHERE p.geom && q.geom) t
          WHERE i > 0) AS postgis
  UNION ALL
  SELECT 'smooth',
         (SELECT jaccard_gpu(p.geom, q.geom) FROM smooth_a p, smooth_b q WHERE p.geom && q.geom),
         (SELECT avg(i / (ap + aq - i)) FROM (SELECT ST_Area(ST_Intersection(p.geom, q.geom)) AS i,
            ST_Area(p.geom) AS ap, ST_Area(q.geom) AS aq FROM smooth_a p, smooth_b q WHERE p.geom && q.geom) t
          WHERE i > 0)) r ORDER BY data;
DROP FUNCTION compare_pairs(text);
DROP TABLE gen_a, gen_b, smooth_a, smooth_b;
