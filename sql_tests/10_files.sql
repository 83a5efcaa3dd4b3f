-- Polygon text files read by the server: pb_read_polygons and
-- pb_compare_files, against the same polygons loaded into a table;
-- format errors name the file and line; only roles allowed to read server
-- files may use them.
CREATE TABLE fa (id bigint, geom geometry);
CREATE TABLE fb (id bigint, geom geometry);
\copy fa FROM PROGRAM './bench/pbgen --polygons 1200 --seed 9 --set a'
\copy fb FROM PROGRAM './bench/pbgen --polygons 1200 --seed 9 --set b'
COPY (SELECT 1) TO PROGRAM 'rm -rf /tmp/pb_regress_files && mkdir -p /tmp/pb_regress_files/a /tmp/pb_regress_files/b';
-- set a: WKT with ids, as four tile files in a directory, with a comment and a blank line
COPY (SELECT '# tile 0: no nuclei' UNION ALL SELECT '') TO '/tmp/pb_regress_files/a/tile0.txt';
COPY (SELECT id || ' ' || ST_AsText(geom) FROM fa WHERE id % 4 = 1) TO '/tmp/pb_regress_files/a/tile1.txt';
COPY (SELECT id || ' ' || ST_AsText(geom) FROM fa WHERE id % 4 = 2) TO '/tmp/pb_regress_files/a/tile2.txt';
COPY (SELECT id || ' ' || ST_AsText(geom) FROM fa WHERE id % 4 IN (0, 3)) TO '/tmp/pb_regress_files/a/tile3.txt';
-- set b: plain coordinate lists "id x1 y1 x2 y2 ..." (polygons without holes only)
COPY (SELECT id || ' ' || string_agg(ST_X(p.geom) || ' ' || ST_Y(p.geom), ' ' ORDER BY p.path)
      FROM fb, ST_DumpPoints(ST_ExteriorRing(fb.geom)) p WHERE ST_NumInteriorRings(fb.geom) = 0 GROUP BY id)
  TO '/tmp/pb_regress_files/b/all.txt';
DELETE FROM fb WHERE ST_NumInteriorRings(geom) > 0;

-- the rows of the files are the polygons of the tables
SELECT count(*) AS rows, bool_and(ST_Equals(r.geom, fa.geom) AND ST_AsBinary(r.geom) = ST_AsBinary(fa.geom)) AS same_geometries
FROM pb_read_polygons('/tmp/pb_regress_files/a/tile1.txt') r JOIN fa USING (id);
SELECT count(*) AS rows, bool_and(ST_Equals(r.geom, fb.geom)) AS same_geometries, min(line_number) AS first_line
FROM pb_read_polygons('/tmp/pb_regress_files/b/all.txt') r JOIN fb USING (id);
SELECT * FROM pb_read_polygons('/tmp/pb_regress_files/a/tile0.txt');

-- comparing the files equals comparing the tables
SELECT f IS NOT DISTINCT FROM t AS files_as_tables, (f).pairs, (f).polygons_a, (f).polygons_b
FROM pb_compare_files(ARRAY['/tmp/pb_regress_files/a'], ARRAY['/tmp/pb_regress_files/b/all.txt']) f,
     pb_compare_tables('fa', 'geom', 'fb', 'geom') t;
-- a list of files works like their directory
SELECT pb_compare_files(ARRAY['/tmp/pb_regress_files/a/tile1.txt', '/tmp/pb_regress_files/a/tile2.txt',
                              '/tmp/pb_regress_files/a/tile3.txt'], ARRAY['/tmp/pb_regress_files/b'])
       IS NOT DISTINCT FROM pb_compare_files(ARRAY['/tmp/pb_regress_files/a'], ARRAY['/tmp/pb_regress_files/b']) AS list_as_directory;

-- errors: the file, the line and what is wrong there
COPY (SELECT '1 POLYGON((0 0,1 0,1 1,0 1,0 0))' UNION ALL SELECT '2 POLYGON((0 0,1 0,1 1,0 0)'
      ORDER BY 1) TO '/tmp/pb_regress_files/bad1.txt';
SELECT count(*) FROM pb_read_polygons('/tmp/pb_regress_files/bad1.txt');
COPY (SELECT '7 0 0 4 0 4') TO '/tmp/pb_regress_files/bad2.txt';
SELECT pb_compare_files(ARRAY['/tmp/pb_regress_files/bad2.txt'], ARRAY['/tmp/pb_regress_files/b']);
COPY (SELECT 'LINESTRING(0 0,1 1)') TO '/tmp/pb_regress_files/bad3.txt';
SELECT count(*) FROM pb_read_polygons('/tmp/pb_regress_files/bad3.txt');
COPY (SELECT '3 0 0 nan 0 1 1') TO '/tmp/pb_regress_files/bad4.txt';
SELECT count(*) FROM pb_read_polygons('/tmp/pb_regress_files/bad4.txt');
SELECT count(*) FROM pb_read_polygons('/tmp/pb_regress_files/no_such_file.txt');
SELECT pb_compare_files(ARRAY['/tmp/pb_regress_files/a'], ARRAY['/tmp/pb_regress_files/no_such_dir/x.txt']);

-- only superusers and pg_read_server_files may read server files
CREATE ROLE pb_regress_reader;
GRANT SELECT ON fa, fb TO pb_regress_reader;
SET ROLE pb_regress_reader;
SELECT count(*) FROM pb_read_polygons('/tmp/pb_regress_files/a/tile1.txt');
SELECT pb_compare_files(ARRAY['/tmp/pb_regress_files/a'], ARRAY['/tmp/pb_regress_files/b']);
RESET ROLE;
GRANT pg_read_server_files TO pb_regress_reader;
SET ROLE pb_regress_reader;
SELECT count(*) AS rows_with_the_role FROM pb_read_polygons('/tmp/pb_regress_files/a/tile1.txt');
RESET ROLE;
DROP OWNED BY pb_regress_reader;
DROP ROLE pb_regress_reader;
-- a 200,000-digit number: the out-of-range error (it once read freed memory and
-- crashed the server)
COPY (SELECT '1 0 0 1 0 1 ' || repeat('1', 200000)) TO '/tmp/pb_regress_files/long_number.txt';
SELECT count(*) FROM pb_read_polygons('/tmp/pb_regress_files/long_number.txt');
COPY (SELECT 1) TO PROGRAM 'rm -rf /tmp/pb_regress_files';
DROP TABLE fa, fb;
