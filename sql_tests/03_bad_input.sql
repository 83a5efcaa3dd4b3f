-- What PostGIS users get for unusual and bad input.
CREATE TEMP TABLE sq AS SELECT 'POLYGON((0 0,4 0,4 4,0 4,0 0))'::geometry AS g;

-- NULL: the pair functions are STRICT
SELECT pb_intersection_area(NULL, g) IS NULL AS null_a, pb_union_area(g, NULL) IS NULL AS null_b,
       pb_jaccard(NULL, NULL) IS NULL AS null_both FROM sq;

-- EMPTY geometries have no area, like in PostGIS; a Jaccard ratio with an
-- empty union is undefined: NULL
SELECT e AS empty, pb_intersection_area(e::geometry, g) AS inter,
       ST_Area(ST_Intersection(e::geometry, g)) AS postgis,
       pb_union_area(e::geometry, g) AS union_area, pb_jaccard(e::geometry, e::geometry) AS jaccard
FROM sq, unnest(ARRAY['POLYGON EMPTY', 'MULTIPOLYGON EMPTY', 'GEOMETRYCOLLECTION EMPTY',
                      'POINT EMPTY', 'LINESTRING EMPTY']) AS e;

-- points and lines have no area: 0 as PostGIS gives
SELECT x AS geom, pb_intersection_area(x::geometry, g) AS inter,
       ST_Area(ST_Intersection(x::geometry, g)) AS postgis, pb_union_area(x::geometry, g) AS union_area
FROM sq, unnest(ARRAY['POINT(1 1)', 'MULTIPOINT((1 1),(2 2))', 'LINESTRING(0 0,4 4)',
                      'MULTILINESTRING((0 0,1 1),(2 2,3 3))']) AS x;

-- GEOMETRYCOLLECTION: its polygonal parts count, points and lines do not
SELECT pb_intersection_area(c, g) AS inter, ST_Area(ST_Intersection(c, g)) AS postgis
FROM sq, (SELECT 'GEOMETRYCOLLECTION(POINT(9 9),LINESTRING(0 0,9 9),POLYGON((1 1,2 1,2 2,1 2,1 1)),MULTIPOLYGON(((3 3,5 3,5 5,3 5,3 3))))'::geometry AS c) t;

-- mixed SRIDs: the error PostGIS raises, named after the function
SELECT ST_Area(ST_Intersection('SRID=4326;POINT(0 0)'::geometry, g)) FROM sq;
SELECT pb_intersection_area('SRID=4326;POLYGON((0 0,1 0,1 1,0 0))', g) FROM sq;
SELECT pb_union_area(g, 'SRID=3857;POLYGON((0 0,1 0,1 1,0 0))') FROM sq;
SELECT pb_jaccard('SRID=4326;POLYGON((0 0,1 0,1 1,0 0))', 'SRID=3857;POLYGON((0 0,1 0,1 1,0 0))');
SELECT jaccard_gpu(a, b) FROM (VALUES ('SRID=4326;POLYGON((0 0,1 0,1 1,0 0))'::geometry, 'POLYGON((0 0,1 0,1 1,0 0))'::geometry)) t(a, b);
SELECT pb_cross_compare(a, b) FROM (VALUES ('POLYGON((0 0,1 0,1 1,0 0))'::geometry, 'SRID=4326;POLYGON((0 0,1 0,1 1,0 0))'::geometry)) t(a, b);
-- the same SRID on both sides is fine
SELECT pb_intersection_area('SRID=4326;POLYGON((0 0,4 0,4 4,0 4,0 0))', 'SRID=4326;POLYGON((1 1,5 1,5 5,1 5,1 1))');

-- NaN and infinite coordinates: a clear error
SELECT pb_intersection_area(ST_MakeEnvelope(0, 0, 'NaN'::float8, 1), g) FROM sq;
SELECT pb_jaccard(g, ST_MakeEnvelope(0, 0, 1, 'Infinity'::float8)) FROM sq;
SELECT pb_union_area(ST_Collect(g, ST_MakePoint('-Infinity'::float8, 0)), g) FROM sq;
SELECT jaccard_gpu(g, ST_MakeEnvelope(0, 0, 'NaN'::float8, 1)) FROM sq;

-- curves and surfaces are not polygons: a clear error with a hint
SELECT pb_intersection_area('CURVEPOLYGON(CIRCULARSTRING(0 0,4 0,4 4,0 4,0 0))', g) FROM sq;
SELECT pb_intersection_area(g, 'MULTISURFACE(((0 0,1 0,1 1,0 0)))') FROM sq;
SELECT pb_intersection_area('POLYHEDRALSURFACE(((0 0 0,0 1 0,1 1 0,0 0 0)))', g) FROM sq;
SELECT pb_intersection_area('TIN(((0 0 0,0 1 0,1 1 0,0 0 0)))', g) FROM sq;
SELECT pb_intersection_area('COMPOUNDCURVE((0 0,1 1))', g) FROM sq;

-- Invalid polygons get the documented even-odd answer (a point is inside
-- when a ray from it crosses the rings an odd number of times), never a
-- crash; the polygon's own area stays ST_Area's.  PostGIS raises a
-- TopologyException for most of these in ST_Intersection.
CREATE TEMP TABLE invalid (name text, p geometry);
INSERT INTO invalid VALUES
 ('bow-tie',              'POLYGON((0 0,2 2,2 0,0 2,0 0))'),
 ('self-touching ring',   'POLYGON((0 0,1 0,1 1,2 1,2 2,1 2,1 1,0 1,0 0))'),
 ('inverted hole',        'POLYGON((0 0,4 0,4 4,2 4,2 3,3 3,3 1,1 1,1 3,2 3,2 4,0 4,0 0))'),
 ('overlapping parts',    'MULTIPOLYGON(((0 0,2 0,2 2,0 2,0 0)),((1 1,3 1,3 3,1 3,1 1)))'),
 ('hole outside shell',   'POLYGON((0 0,2 0,2 2,0 2,0 0),(3 3,4 3,4 4,3 4,3 3))'),
 ('rectilinear crossing', 'POLYGON((0 0,3 0,3 2,1 2,1 -1,2 -1,2 3,0 3,0 0))');
SELECT name, ST_IsValid(p) AS valid, ST_Area(p) AS st_area, pb_intersection_area(p, g) AS inter,
       pb_intersection_area(p, p) AS self_inter, pb_union_area(p, g) AS union_area
FROM invalid, sq ORDER BY name;
-- the answer does not depend on the engine
SET pixelbox.cpu_method = pixelbox;
SELECT name, pb_intersection_area(p, g) AS inter FROM invalid, sq ORDER BY name;
SET pixelbox.cpu_method = general;
SELECT name, pb_intersection_area(p, g) AS inter FROM invalid, sq ORDER BY name;
RESET pixelbox.cpu_method;
-- PostGIS agrees where GEOS accepts the input
SELECT name, ST_Area(ST_Intersection(p, g)) AS postgis FROM invalid, sq
WHERE name IN ('self-touching ring') ORDER BY name;
