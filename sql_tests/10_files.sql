-- Polygon text files read by the server: pb_read_polygons and
-- pb_compare_files, against the same polygons loaded into a table;
-- format errors name the file and line; both take and refuse the same
-- files with the same messages; only roles allowed to read server files
-- may use them.
CREATE TABLE fa (id bigint, geom geometry);
CREATE TABLE fb (id bigint, geom geometry);
\copy fa FROM PROGRAM './bench/pbgen --polygons 1200 --seed 9 --set a'
\copy fb FROM PROGRAM './bench/pbgen --polygons 1200 --seed 9 --set b'
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -rf /tmp/pb_regress_files && mkdir -p /tmp/pb_regress_files/a /tmp/pb_regress_files/b';
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

-- One reader behind both functions (issue 20).  Numbers in every spelling
-- (1e1, +0, a ring closed by -00, .5, 5.), Z, M, SRID and EMPTY parts: the
-- rows are PostGIS's geometries of the same polygons written plainly, and
-- pb_compare_files reads the same polygons
CREATE TABLE spelled (line int, text text, plain text);
INSERT INTO spelled VALUES
  (1, '1 POLYGON((0 0,1e1 0,1E+1 10,+0 10,-00 -00))', 'POLYGON((0 0,10 0,10 10,0 10,0 0))'),
  (2, '2 .5 0 5. 0 5 1e-1', 'POLYGON((0.5 0,5 0,5 0.1,0.5 0))'),
  (3, '3 0 0 4 0 4 4 -00 4 -0 -0', 'POLYGON((0 0,4 0,4 4,-0 4,0 0))'),
  (4, 'SRID=4;MULTIPOLYGON Z (EMPTY,((0 0 1,1e0 0 1,1 1 1,-0 -0 1)))', 'SRID=4;MULTIPOLYGON Z (EMPTY,((0 0 1,1 0 1,1 1 1,0 0 1)))'),
  (5, '5 polygonm((0 0 7,2 0 7,2 2 7,0 0 7),(1 0.5 7,1.5 0.5 7,1.5 1 7,1 0.5 7))', 'POLYGON M ((0 0 7,2 0 7,2 2 7,0 0 7),(1 0.5 7,1.5 0.5 7,1.5 1 7,1 0.5 7))'),
  (6, '6 POLYGON((0 0 1 2,1 0 1 2,1 1 1 2,0 0 1 2))', 'POLYGON ZM ((0 0 1 2,1 0 1 2,1 1 1 2,0 0 1 2))'),
  (7, 'MULTIPOLYGON EMPTY', 'MULTIPOLYGON EMPTY');
COPY (SELECT text FROM spelled ORDER BY line) TO '/tmp/pb_regress_files/spelled.txt';
SELECT line, r.id, ST_AsEWKB(r.geom) = ST_AsEWKB(plain::geometry) AS postgis_geometry, ST_Area(r.geom)
FROM pb_read_polygons('/tmp/pb_regress_files/spelled.txt') r JOIN spelled s ON s.line = r.line_number ORDER BY line;
-- the same polygons, the same areas through both readers (without the SRID 4
-- line), and PostGIS's sum of intersection areas
COPY (SELECT text FROM spelled WHERE line <> 4 ORDER BY line) TO '/tmp/pb_regress_files/spelled0.txt';
CREATE TABLE spelled_rows AS SELECT * FROM pb_read_polygons('/tmp/pb_regress_files/spelled0.txt');
SELECT (f).polygons_a, f IS NOT DISTINCT FROM t AS same_as_rows,
       abs((f).intersection_area - (SELECT sum(ST_Area(ST_Intersection(p.geom, q.geom)))
                                    FROM spelled_rows p, spelled_rows q WHERE p.geom && q.geom)) < 1e-9 AS postgis_area
FROM pb_compare_files(ARRAY['/tmp/pb_regress_files/spelled0.txt'], ARRAY['/tmp/pb_regress_files/spelled0.txt']) f,
     (SELECT pb_compare_sets(geom, a) AS t FROM spelled_rows, (VALUES (true), (false)) v(a)) s;
-- CR LF line ends and no newline at the end
COPY (SELECT 1 WHERE false) TO PROGRAM 'printf ''1 0 0 2 0 2 2\r\n\r\nPOLYGON((0 0,3 0,3 3,0 0))\r\n3 0 0 1 0 1 1'' > /tmp/pb_regress_files/crlf.txt';
SELECT line_number, id, ST_AsText(geom) FROM pb_read_polygons('/tmp/pb_regress_files/crlf.txt');
SELECT (pb_compare_files(ARRAY['/tmp/pb_regress_files/crlf.txt'], ARRAY['/tmp/pb_regress_files/crlf.txt'])).polygons_a;

-- Files that are refused: the same message from both functions.  A NUL byte
-- in a comment once hid the next line from pb_read_polygons (issue 20)
COPY (SELECT 1 WHERE false) TO PROGRAM 'printf ''1 POLYGON((0 0,10 0,10 10,0 10,0 0))\n# c\0\n3 0 0 4 0 4 4 0 4\n'' > /tmp/pb_regress_files/nul.txt';
COPY (SELECT 1 WHERE false) TO PROGRAM 'mkfifo /tmp/pb_regress_files/fifo';
COPY (SELECT '3 0 0 4 0 4 4 0') TO '/tmp/pb_regress_files/odd.txt';
COPY (SELECT '1 POLYGON((0 0,1 0,1 1,0 0))' UNION ALL SELECT '2 POLYGON((0 0,1 0,1 1,0 0)') TO '/tmp/pb_regress_files/open.txt';
CREATE FUNCTION read_error(path text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM count(*) FROM pb_read_polygons(path);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || regexp_replace(SQLERRM, '^pb_read_polygons: ', '');
END $$;
CREATE FUNCTION compare_error(path text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pb_compare_files(ARRAY[path], ARRAY['/tmp/pb_regress_files/b']);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || regexp_replace(SQLERRM, '^pb_compare_files: ', '');
END $$;
-- /dev/zero and a FIFO without a writer are refused at once: statement_timeout
-- would end a reader that waits or reads forever with another message
SET statement_timeout = '5s';
SELECT f AS file, read_error(f), read_error(f) = compare_error(f) AS same_in_pb_compare_files
FROM unnest(ARRAY['/tmp/pb_regress_files/nul.txt', '/dev/zero', '/tmp/pb_regress_files/fifo',
                  '/tmp/pb_regress_files/odd.txt', '/tmp/pb_regress_files/open.txt',
                  '/tmp/pb_regress_files/bad3.txt', '/tmp/pb_regress_files/bad4.txt',
                  '/tmp/pb_regress_files/long_number.txt', '/tmp/pb_regress_files/no_such_file.txt']) f;
SELECT read_error('/tmp/pb_regress_files');
RESET statement_timeout;
SELECT count(*) FROM pb_read_polygons('/dev/zero');
SELECT pb_compare_files(ARRAY['/tmp/pb_regress_files/a'], ARRAY['/tmp/pb_regress_files/fifo']);
DROP FUNCTION read_error(text), compare_error(text);
DROP TABLE spelled, spelled_rows;
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -rf /tmp/pb_regress_files';
DROP TABLE fa, fb;
