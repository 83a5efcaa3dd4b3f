-- Precision on ill-conditioned pairs, Jaccard never above 1, extreme
-- coordinates, collections, and one decoder behaviour whether pixelbox
-- reads GSERIALIZED or EWKB (pixelbox.force_ewkb): issue 20, items 7 and 11.

-- The thin triangle (0 0, 1 0, X 1.5): its area is 0.75 at every X
-- (base 1, height 1.5).  Its intersection with itself must be 0.75 within
-- 1e-12 (it was 0.75000006 at 1e9 and 7.5e-18 at 1e17), its Jaccard
-- index with itself 1 (it was 1.00000017, and NULL at 1e16); at 1e20 the
-- double-double fallback itself runs short of digits by an ulp.
CREATE TEMP TABLE thin AS
SELECT x, format('POLYGON((0 0,1 0,%s 1.5,0 0))', x)::geometry AS g
FROM unnest(ARRAY['1e9', '1e12', '1e16', '1e17', '1e20']) AS x;
SELECT x, ST_Area(g) AS st_area,
       abs(pb_intersection_area(g, g) - 0.75) <= 0.75e-12 AS self_exact,
       pb_jaccard(g, g) AS jaccard, pb_union_area(g, g) AS union_area
FROM thin;
-- GEOS's answer for comparison (its own rounding, not the truth, at the larger X)
SELECT x, round(ST_Area(ST_Intersection(g, g))::numeric, 12) AS postgis FROM thin WHERE x IN ('1e9', '1e12');

-- The part of the triangle left of x = X/2 has the closed form
-- 0.75/X + 1.5 (3X²/8 - X + 1/2) / (X (X - 1)); pixelbox within 1e-12 of it.
SELECT x, abs(pb_intersection_area(g, ST_MakeEnvelope(0, -1, x::float8 / 2, 2))
              - (0.75 / x::numeric + 1.5 * (3 * x::numeric ^ 2 / 8 - x::numeric + 0.5)
                 / (x::numeric * (x::numeric - 1)))::float8) <= 1e-12 AS clipped_exact
FROM thin;

-- A thin sliver at an angle and far from the origin: its self-intersection
-- and its intersection with a box around it equal its ST_Area
-- (the shoelace, here well conditioned) within 1e-10.
CREATE TEMP TABLE sliver AS
SELECT i, ST_Rotate(ST_Translate(ST_GeomFromText(format('POLYGON((0 0,0 1e-4,%s 5e-5,0 0))', 10 ^ (6 + i))),
                                 1e6, -2e6), i * 0.7) AS g
FROM generate_series(0, 5) AS i;
SELECT i, abs(pb_intersection_area(g, g) / ST_Area(g) - 1) <= 1e-10 AS self_ok,
       abs(pb_intersection_area(g, ST_Expand(ST_Envelope(g), 1)) / ST_Area(g) - 1) <= 1e-10 AS boxed_ok,
       pb_jaccard(g, g) AS jaccard
FROM sliver ORDER BY i;

-- Jaccard and the aggregates never exceed 1, whatever the rounding: the
-- intersection a ratio uses is capped by the smaller ST_Area.
SELECT max(pb_jaccard(g, g)) AS max_pair, (SELECT jaccard_gpu(g, g) FROM thin) AS agg_thin,
       (SELECT jaccard_gpu(g, g) FROM sliver) AS agg_sliver
FROM (SELECT g FROM thin UNION ALL SELECT g FROM sliver) t;
-- a hole outside its shell (invalid): ST_Area 96, even-odd area 104; the
-- intersection stays the even-odd measure, the ratio is capped at 1
SELECT pb_intersection_area(g, g) AS even_odd, ST_Area(g) AS st_area, pb_jaccard(g, g) AS jaccard
FROM (SELECT 'POLYGON((0 0,10 0,10 10,0 10,0 0),(20 0,22 0,22 2,20 2,20 0))'::geometry AS g) t;

-- Extreme coordinates: up to +-1e150 every area is finite and right, even
-- when the pair's box is 2e150 x 2e150 (products near 1e300); beyond, an
-- error says why; tiny coordinates give tiny areas, not NaN.
SELECT pb_intersection_area(a, a) = ST_Area(a) AS big_self,
       pb_intersection_area(ST_MakeEnvelope(-1e150, 0, 1e150, 1), ST_MakeEnvelope(0, -1e150, 2, 1e150)) AS wide_vs_tall,
       pb_jaccard(a, ST_MakeEnvelope(0, 0, 1e150, 1e150)) AS quarter
FROM (SELECT ST_MakeEnvelope(-1e150, -1e150, 1e150, 1e150) AS a) t;
SELECT pb_intersection_area(g, g) AS tiny, ST_Area(g) AS st_area,
       pb_intersection_area(ST_MakeEnvelope(0, 0, 1e-300, 1e-300), ST_MakeEnvelope(0, 0, 1e-300, 1e-300)) AS underflow
FROM (SELECT ST_MakeEnvelope(0, 0, 1e-150, 3e-150) AS g) t;
SELECT pb_intersection_area('POLYGON((0 0,1 0,1 2e150,0 0))', 'POLYGON((0 0,1 0,1 1,0 0))');
SELECT pb_jaccard('POLYGON((0 0,1 0,1 1,0 0))', ST_MakeEnvelope(0, 0, 1e300, 1));
-- points and lines far away contribute nothing and are accepted, as in PostGIS
SELECT pb_intersection_area(c, c) AS inter, ST_Area(ST_Intersection(c, c)) AS postgis
FROM (SELECT 'GEOMETRYCOLLECTION(POINT(1e300 1),LINESTRING(0 0,-1e300 5),POLYGON((0 0,4 0,4 4,0 4,0 0)))'::geometry AS c) t;

-- Collections PostGIS accepts: their polygonal parts, nested or not,
-- points, lines and empty parts ignored; pixelbox equals PostGIS.
CREATE TEMP TABLE coll (name text, c geometry);
INSERT INTO coll VALUES
 ('polygons apart',   'GEOMETRYCOLLECTION(POLYGON((0 0,4 0,4 4,0 4,0 0)),POLYGON((6 0,9 0,9 3,6 3,6 0)))'),
 ('nested',           'GEOMETRYCOLLECTION(POINT(1 1),GEOMETRYCOLLECTION(LINESTRING(0 0,5 5),POLYGON((0 0,4 0,4 4,0 4,0 0))),GEOMETRYCOLLECTION EMPTY)'),
 ('multipolygon in',  'GEOMETRYCOLLECTION(MULTIPOLYGON(((0 0,2 0,2 2,0 2,0 0)),((3 0,5 0,5 2,3 2,3 0))),POLYGON((6 0,8 0,8 8,6 8,6 0)),POINT EMPTY)'),
 ('touching parts',   'GEOMETRYCOLLECTION(POLYGON((0 0,4 0,4 4,0 4,0 0)),POLYGON((4 0,8 0,8 4,4 4,4 0)))'),
 ('diagonal touch',   'GEOMETRYCOLLECTION(POLYGON((0 0,4 0,2 4,0 0)),POLYGON((4 0,6 4,2 4,4 0)))'),
 ('in a hole',        'GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,8 2,8 8,2 8,2 2)),POLYGON((3 3,7 3,7 7,3 7,3 3)))'),
 ('triangle',         'GEOMETRYCOLLECTION(TRIANGLE((0 0,6 0,0 6,0 0)),LINESTRING(0 0,1 1))');
SELECT name, pb_intersection_area(c, q) AS inter, ST_Area(ST_Intersection(c, q)) AS postgis,
       pb_intersection_area(c, c) AS self, ST_Area(c) AS st_area, pb_jaccard(c, c) AS jaccard
FROM coll, (SELECT 'POLYGON((1 1,7 1,7 5,1 5,1 1))'::geometry AS q) t ORDER BY name;
-- Overlapping polygons in a collection: ST_Area counts the overlap twice,
-- GEOS unions the parts (100 here) or raises a TopologyException (next),
-- so pixelbox refuses them with a clear error.
SELECT ST_Area(c) AS st_area, ST_Area(ST_Intersection(c, c)) AS postgis
FROM (SELECT 'GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((0 0,10 0,10 10,0 10,0 0)))'::geometry AS c) t;
SELECT pb_intersection_area('GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((0 0,10 0,10 10,0 10,0 0)))',
                            'POLYGON((0 0,10 0,10 10,0 10,0 0))');
SELECT ST_Area(ST_Intersection('GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((5 0,15 0,15 10,5 10,5 0)))'::geometry,
                               'POLYGON((0 0,10 0,10 10,0 10,0 0))'::geometry));
SELECT pb_jaccard('GEOMETRYCOLLECTION(POLYGON((0 0,10 0,10 10,0 10,0 0)),POLYGON((5 0,15 0,15 10,5 10,5 0)))',
                  'POLYGON((0 0,10 0,10 10,0 10,0 0))');
SELECT jaccard_gpu(c, c) FROM (VALUES ('GEOMETRYCOLLECTION(POLYGON((0 0,4 0,4 4,0 4,0 0)),GEOMETRYCOLLECTION(MULTIPOLYGON(((3 3,5 3,5 5,3 5,3 3)))))'::geometry)) t(c);

-- One decoder behaviour: every case gives the same answer or the same
-- error whether pixelbox reads PostGIS's GSERIALIZED (default) or EWKB
-- through the send function (pixelbox.force_ewkb = on).  POINT(NaN NaN)
-- is an empty point on both (PostGIS's ST_Area and ST_Intersection ignore
-- it too); any other NaN is an error on both.
CREATE FUNCTION pg_temp.try_pair(a geometry, b geometry) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN pb_intersection_area(a, b)::text || ' / ' || coalesce(pb_jaccard(a, b)::text, 'null');
EXCEPTION WHEN others THEN
  RETURN 'ERROR: ' || SQLERRM;
END $$;
CREATE TEMP TABLE agree (id int, g geometry);
INSERT INTO agree VALUES
 (1, 'GEOMETRYCOLLECTION(POINT(NaN NaN),POLYGON((0 0,4 0,4 4,0 4,0 0)))'),
 (2, 'GEOMETRYCOLLECTION(MULTIPOINT((NaN NaN),(1 1)),POLYGON((0 0,4 0,4 4,0 4,0 0)))'),
 (3, 'POINT(NaN NaN)'),
 (4, 'GEOMETRYCOLLECTION(POINT(NaN 1),POLYGON((0 0,4 0,4 4,0 4,0 0)))'),
 (5, 'GEOMETRYCOLLECTION(LINESTRING(NaN NaN,1 1),POLYGON((0 0,4 0,4 4,0 4,0 0)))'),
 (6, 'GEOMETRYCOLLECTION Z(POINT Z(NaN NaN NaN),POLYGON Z((0 0 1,4 0 1,4 4 1,0 4 1,0 0 1)))'),
 (7, 'GEOMETRYCOLLECTION Z(POINT Z(NaN NaN 1),POLYGON Z((0 0 1,4 0 1,4 4 1,0 4 1,0 0 1)))'),
 (8, 'GEOMETRYCOLLECTION(POLYGON((0 0,4 0,4 4,0 4,0 0)),POLYGON((2 2,6 2,6 6,2 6,2 2)))'),
 (9, 'POLYGON((0 0,4 0,4 2e150,0 0))'),
 (10, 'POLYGON((0 0,1 0,1e9 1.5,0 0))');
CREATE TEMP TABLE agree_off AS SELECT id, pg_temp.try_pair(g, 'POLYGON((1 1,3 1,3 3,1 3,1 1))') AS r FROM agree;
SET pixelbox.force_ewkb = on;
CREATE TEMP TABLE agree_on AS SELECT id, pg_temp.try_pair(g, 'POLYGON((1 1,3 1,3 3,1 3,1 1))') AS r FROM agree;
RESET pixelbox.force_ewkb;
SELECT id, f.r AS gserialized, f.r = n.r AS same_with_ewkb
FROM agree_off f JOIN agree_on n USING (id) ORDER BY id;
-- PostGIS on the NaN cases: the NaN-NaN point is ignored, another NaN is an error
SELECT id, ST_Area(g) AS st_area, ST_Area(ST_Intersection(g, 'POLYGON((1 1,3 1,3 3,1 3,1 1))')) AS postgis
FROM agree WHERE id IN (1, 2, 6) ORDER BY id;
SELECT ST_Area(ST_Intersection(g, 'POLYGON((1 1,3 1,3 3,1 3,1 1))')) FROM agree WHERE id = 4;
