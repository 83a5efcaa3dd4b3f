-- pb_intersection_area, pb_union_area and pb_jaccard against PostGIS on
-- hand-made pairs: rectilinear integer (exact equality), holes,
-- multipolygons, touching, identical, contained, diagonal edges,
-- fractional and huge coordinates (within 1e-9 relative).
CREATE TEMP TABLE cases (name text, a geometry, b geometry);
INSERT INTO cases VALUES
 ('overlap squares',   'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((2 2,6 2,6 6,2 6,2 2))'),
 ('identical',         'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((0 0,4 0,4 4,0 4,0 0))'),
 ('contained',         'POLYGON((0 0,10 0,10 10,0 10,0 0))', 'POLYGON((2 2,5 2,5 5,2 5,2 2))'),
 ('touching edge',     'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((4 0,8 0,8 4,4 4,4 0))'),
 ('touching corner',   'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((4 4,8 4,8 8,4 8,4 4))'),
 ('disjoint',          'POLYGON((0 0,1 0,1 1,0 1,0 0))', 'POLYGON((5 5,6 5,6 6,5 6,5 5))'),
 ('mbr only',          'POLYGON((0 0,4 0,4 1,1 1,1 4,0 4,0 0))', 'POLYGON((2 2,4 2,4 4,2 4,2 2))'),
 ('L shapes',          'POLYGON((0 0,6 0,6 2,2 2,2 6,0 6,0 0))', 'POLYGON((1 1,7 1,7 7,5 7,5 3,1 3,1 1))'),
 ('hole',              'POLYGON((0 0,10 0,10 10,0 10,0 0),(3 3,7 3,7 7,3 7,3 3))', 'POLYGON((2 2,8 2,8 8,2 8,2 2))'),
 ('hole both',         'POLYGON((0 0,10 0,10 10,0 10,0 0),(3 3,7 3,7 7,3 7,3 3))', 'POLYGON((1 1,9 1,9 9,1 9,1 1),(4 4,8 4,8 8,4 8,4 4))'),
 ('multipolygon',      'MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 9,5 9,5 5)))', 'POLYGON((2 2,6 2,6 6,2 6,2 2))'),
 ('multi vs multi',    'MULTIPOLYGON(((0 0,3 0,3 3,0 3,0 0)),((5 5,9 5,9 9,5 9,5 5)))', 'MULTIPOLYGON(((1 1,6 1,6 2,1 2,1 1)),((4 6,8 6,8 8,4 8,4 6)))'),
 ('negative coords',   'POLYGON((-5 -5,1 -5,1 1,-5 1,-5 -5))', 'POLYGON((-2 -8,3 -8,3 -1,-2 -1,-2 -8))'),
 ('wide 200px',        'POLYGON((0 0,200 0,200 3,0 3,0 0))', 'POLYGON((1 1,150 1,150 2,199 2,199 9,1 9,1 1))'),
 ('near int limit',    'POLYGON((1073741800 0,1073741824 0,1073741824 7,1073741800 7,1073741800 0))', 'POLYGON((1073741810 2,1073741824 2,1073741824 9,1073741810 9,1073741810 2))'),
 ('beyond 2^31',       'POLYGON((3000000000 0,3000000010 0,3000000010 10,3000000000 10,3000000000 0))', 'POLYGON((3000000005 5,3000000015 5,3000000015 15,3000000005 15,3000000005 5))'),
 ('huge 1e12 offset',  'POLYGON((1000000000000 1000000000000,1000000000007.5 1000000000000,1000000000007.5 1000000000003,1000000000000 1000000000003,1000000000000 1000000000000))',
                       'POLYGON((1000000000001 1000000000001,1000000000009 1000000000002,1000000000004 1000000000008,1000000000001 1000000000001))'),
 ('diagonal',          'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((2 2,6 2.5,6 6,2 6,2 2))'),
 ('triangles',         'POLYGON((0 0,10 0,0 10,0 0))', 'POLYGON((0 0,10 10,10 0,0 0))'),
 ('half integer',      'POLYGON((0.5 0.5,4.5 0.5,4.5 4.5,0.5 4.5,0.5 0.5))', 'POLYGON((2 2,6 2,6 6,2 6,2 2))'),
 ('rotated squares',   'POLYGON((5 0,10 5,5 10,0 5,5 0))', 'POLYGON((0 0,8 0,8 8,0 8,0 0))'),
 ('star vs hole',      'POLYGON((0 -10,3 -3,10 0,3 3,0 10,-3 3,-10 0,-3 -3,0 -10))', 'POLYGON((-6 -6,6 -6,6 6,-6 6,-6 -6),(-1 -1,1 -1,1 1,-1 1,-1 -1))'),
 ('mixed int/double',  'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((1 1,3.25 1,3.25 3.75,1 3.75,1 1))'),
 ('tiny sliver',       'POLYGON((0 0,1 0,1 1,0 1,0 0))', 'POLYGON((0.999999 0,2 0,2 1,0.999999 1,0.999999 0))'),
 ('Z and M ignored',   'POLYGON ZM((0 0 5 1,4 0 5 1,4 4 5 1,0 4 5 1,0 0 5 1))', 'POLYGON M((2 2 9,6 2 9,6 6 9,2 6 9,2 2 9))'),
 ('triangle type',     'TRIANGLE((0 0,4 0,0 4,0 0))', 'POLYGON((0 0,2 0,2 2,0 2,0 0))'),
 ('XDR byte order',    ST_GeomFromWKB(ST_AsBinary('POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 1,2 2,1 2,1 1))'::geometry, 'XDR')),
                       ST_GeomFromWKB(ST_AsBinary('POLYGON((1 0,3 0,3 3,1 3,1 0))'::geometry, 'NDR'))),
 ('SRID kept',         'SRID=4326;POLYGON((0 0,4 0,4 4,0 4,0 0))', 'SRID=4326;POLYGON((2 2,6 2,6 6,2 6,2 2))');

-- exact for the rectilinear integer cases, 1e-9 relative otherwise.
-- PostGIS is evaluated on copies moved to the origin (an exact translation
-- for these coordinates): at 1e12, GEOS's own rounding of intersection
-- vertices costs more than 1e-9 (shown below), pixelbox translates itself.
CREATE TEMP VIEW moved AS
SELECT name, a, b, ST_Translate(a, -ST_XMin(a), -ST_YMin(a)) AS ma,
       ST_Translate(b, -ST_XMin(a), -ST_YMin(a)) AS mb FROM cases;
CREATE TEMP VIEW checked AS
SELECT name, pb_intersection_area(a, b) AS pb_inter, ST_Area(ST_Intersection(ma, mb)) AS st_inter,
       pb_union_area(a, b) AS pb_union, ST_Area(ST_Union(ma, mb)) AS st_union,
       pb_jaccard(a, b) AS pb_j,
       ST_Area(ST_Intersection(ma, mb)) / NULLIF(ST_Area(ST_Union(ma, mb)), 0) AS st_j
FROM moved;
SELECT name, round(pb_inter::numeric, 6) AS inter,
       CASE WHEN pb_inter = st_inter THEN 'exact'
            WHEN abs(pb_inter - st_inter) <= 1e-9 * greatest(abs(st_inter), 1e-300) THEN 'within 1e-9'
            ELSE 'MISMATCH ' || st_inter END AS vs_postgis_inter,
       abs(pb_union - st_union) <= 1e-9 * greatest(abs(st_union), 1e-300) AS union_ok,
       (pb_j IS NULL AND st_j IS NULL) OR abs(pb_j - st_j) <= 1e-9 AS jaccard_ok
FROM checked ORDER BY name;

-- GEOS at 1e12 versus near the origin (the exact value is 4257/448)
SELECT round(ST_Area(ST_Intersection(a, b))::numeric, 9) AS geos_at_1e12,
       round(ST_Area(ST_Intersection(ma, mb))::numeric, 9) AS geos_at_origin,
       round(pb_intersection_area(a, b)::numeric, 9) AS pixelbox,
       round(4257/448.0, 9) AS exact
FROM moved WHERE name = 'huge 1e12 offset';

-- the portable decoding path (EWKB through the type's send function)
-- gives the same answers as reading PostGIS's storage format
CREATE TEMP TABLE direct AS SELECT name, pb_intersection_area(a, b) AS v FROM cases;
SET pixelbox.force_ewkb = on;
SELECT count(*) AS cases, count(*) FILTER (WHERE d.v = pb_intersection_area(c.a, c.b)) AS same_via_ewkb
FROM cases c JOIN direct d USING (name);
RESET pixelbox.force_ewkb;

-- every CPU engine gives identical results
CREATE TEMP VIEW same_as_direct AS
SELECT current_setting('pixelbox.cpu_method') AS method,
       count(*) FILTER (WHERE d.v = pb_intersection_area(c.a, c.b)) AS same, count(*) AS cases
FROM cases c JOIN direct d USING (name);
SET pixelbox.cpu_method = pixelbox;
SELECT * FROM same_as_direct;
SET pixelbox.cpu_method = bitmap;
SELECT * FROM same_as_direct;
SET pixelbox.cpu_method = sweep;
SELECT * FROM same_as_direct;
SET pixelbox.cpu_method = general;
SELECT * FROM same_as_direct;
RESET pixelbox.cpu_method;
