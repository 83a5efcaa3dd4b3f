-- JSON files read by the server: pb_read_geojson (QuPath GeoJSON) and
-- pb_read_hovernet (HoVer-Net), against PostGIS's own reading of the same
-- features (ST_GeomFromGeoJSON over jsonb); pb_compare_files over them;
-- every error names the file, line, feature (or nucleus) and byte; only
-- roles allowed to read server files may use them.
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -rf /tmp/pb_regress_json && mkdir -p /tmp/pb_regress_json/dir';
-- write lines to a file byte for byte (csv with a quote and a delimiter no line has)
CREATE FUNCTION write_lines(path text, lines text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY (SELECT l FROM unnest(%L::text[]) WITH ORDINALITY u(l, n) ORDER BY n) TO %L (FORMAT csv, QUOTE %L, DELIMITER %L)',
                 lines, path, E'\x01', E'\x02');
END $$;

-- QuPath's cells: a geometry (a polygon with a hole, a multipolygon) and a
-- nucleusGeometry (at the feature level, or in properties), an annotation
-- without one, a null geometry; ids as strings and numbers; classification
-- as an object and as QuPath 0.2's string; measurements as an object and
-- as the old array of {name, value}
SELECT write_lines('/tmp/pb_regress_json/cells.geojson', ARRAY[
  '{"type": "FeatureCollection", "features": [',
  '{"type": "Feature", "id": "c1", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]]]},',
  ' "nucleusGeometry": {"type": "Polygon", "coordinates": [[[5,5],[8,5],[8,8],[5,8],[5,5]]]},',
  ' "properties": {"objectType": "cell", "classification": {"name": "Tumor", "color": [200, 0, 0]}, "measurements": {"Nucleus: Area": 9, "Cell: Area": 96.5}}},',
  '{"type": "Feature", "id": 2, "geometry": {"type": "MultiPolygon", "coordinates": [[[[20,0],[24,0],[24,3],[20,3],[20,0]]],[[[30,0],[31.5,0],[31.5,2],[30,0]]]]},',
  ' "properties": {"objectType": "cell", "classification": "Stroma", "nucleusGeometry": {"type": "Polygon", "coordinates": [[[21,1],[23,1],[23,2],[21,2],[21,1]]]},',
  '  "measurements": [{"name": "Nucleus: Area", "value": 2}, {"name": "Cell: Area", "value": 13.5}]}},',
  '{"type": "Feature", "id": "a1", "geometry": {"type": "Polygon", "coordinates": [[[0,20],[40,20],[40,60],[0,60],[0,20]]]}, "properties": {"objectType": "annotation"}},',
  '{"type": "Feature", "geometry": null, "properties": {}}',
  ']}']);
SELECT feature, id, object_type, classification, measurements, ST_AsText(geom) FROM pb_read_geojson('/tmp/pb_regress_json/cells.geojson');
SELECT feature, id, ST_AsText(geom) AS nucleus FROM pb_read_geojson('/tmp/pb_regress_json/cells.geojson', 'nucleusGeometry');
-- the geometries are PostGIS's own reading of the same features (SRID 0 here)
SELECT r.feature, ST_Equals(r.geom, ST_SetSRID(ST_GeomFromGeoJSON(f.value->'geometry'), 0)) AS same,
       ST_Area(r.geom) = ST_Area(ST_GeomFromGeoJSON(f.value->'geometry')) AS same_area, ST_SRID(r.geom)
FROM pb_read_geojson('/tmp/pb_regress_json/cells.geojson') r
JOIN jsonb_array_elements(pg_read_file('/tmp/pb_regress_json/cells.geojson')::jsonb->'features') WITH ORDINALITY f(value, n)
  ON f.n = r.feature
WHERE f.value->'geometry' <> 'null' ORDER BY r.feature;

-- a bare array of features, as QuPath also writes; NaN and infinite
-- measurements (QuPath before 0.5 wrote them bare) become QuPath's strings
SELECT write_lines('/tmp/pb_regress_json/bare.json', ARRAY[
  '[{"type": "Feature", "id": 7, "geometry": {"type": "Polygon", "coordinates": [[[0,0],[2,0],[2,2],[0,0]]]},',
  '  "properties": {"measurements": {"a": NaN, "b": Infinity, "c": -Infinity, "d": 1.5e3}}}]']);
SELECT feature, id, measurements, ST_AsText(geom) FROM pb_read_geojson('/tmp/pb_regress_json/bare.json');

-- HoVer-Net: contours through pixel centres.  A 4 x 3 block of pixels
-- (contour around its outer centres), a plus sign (diagonal steps), an
-- L; 'pixel_edges' are the pixels outlined on their edges, 'as_written'
-- the contour itself, closed
SELECT write_lines('/tmp/pb_regress_json/hovernet.json', ARRAY[
  '{"mag": 40, "nuc": {',
  '"1": {"bbox": [[10, 20], [13, 24]], "centroid": [21.5, 11], "contour": [[20, 10], [23, 10], [23, 12], [20, 12]], "type_prob": 0.9, "type": 1},',
  '"2": {"bbox": [[0, 0], [3, 3]], "centroid": [1, 1], "contour": [[1, 0], [2, 1], [1, 2], [0, 1]], "type_prob": 0.5, "type": 2},',
  '"3": {"contour": [[5, 5], [5, 8], [7, 8], [7, 7], [6, 7], [6, 5]], "type_prob": null, "type": null}',
  '}}']);
SELECT nucleus, type, type_prob, ST_AsText(geom), ST_Area(geom) FROM pb_read_hovernet('/tmp/pb_regress_json/hovernet.json');
SELECT nucleus, ST_AsText(geom), ST_Area(geom) FROM pb_read_hovernet('/tmp/pb_regress_json/hovernet.json', 'as_written');
-- as written is ST_MakePolygon of the contour (closed)
SELECT h.nucleus, ST_Equals(h.geom, ST_MakePolygon(ST_AddPoint(l.line, ST_StartPoint(l.line)))) AS same
FROM pb_read_hovernet('/tmp/pb_regress_json/hovernet.json', 'as_written') h
JOIN (SELECT n.key, ST_MakeLine(array_agg(ST_MakePoint((p.value->>0)::float8, (p.value->>1)::float8) ORDER BY p.ord)) AS line
      FROM jsonb_each(pg_read_file('/tmp/pb_regress_json/hovernet.json')::jsonb->'nuc') n,
           jsonb_array_elements(n.value->'contour') WITH ORDINALITY p(value, ord) GROUP BY n.key) l
  ON l.key = h.nucleus ORDER BY 1;

-- pb_compare_files: *.geojson and *.json (GeoJSON or HoVer-Net by content)
-- read as pb_read_geojson and pb_read_hovernet read them
COPY (SELECT 1 WHERE false) TO PROGRAM 'cp /tmp/pb_regress_json/hovernet.json /tmp/pb_regress_json/dir/h.json && cp /tmp/pb_regress_json/cells.geojson /tmp/pb_regress_json/dir/c.JSON';
CREATE TABLE json_rows AS
  SELECT geom, true AS a FROM pb_read_geojson('/tmp/pb_regress_json/cells.geojson') WHERE geom IS NOT NULL
  UNION ALL SELECT geom, false FROM pb_read_hovernet('/tmp/pb_regress_json/hovernet.json')
  UNION ALL SELECT geom, false FROM pb_read_geojson('/tmp/pb_regress_json/bare.json');
SELECT (f).polygons_a, (f).polygons_b, (f).pairs, f IS NOT DISTINCT FROM t AS same_as_rows
FROM pb_compare_files(ARRAY['/tmp/pb_regress_json/cells.geojson'],
                      ARRAY['/tmp/pb_regress_json/hovernet.json', '/tmp/pb_regress_json/bare.json']) f,
     (SELECT pb_compare_sets(geom, a) AS t FROM json_rows) s;
SELECT (pb_compare_files(ARRAY['/tmp/pb_regress_json/dir'], ARRAY['/tmp/pb_regress_json/dir'])).polygons_a AS directory_polygons;

-- NULL arguments: no rows (STRICT)
SELECT count(*) FROM pb_read_geojson(NULL);
SELECT count(*) FROM pb_read_hovernet('/tmp/pb_regress_json/hovernet.json', NULL);

-- Errors: the file, the line, the record and its byte, and what is wrong
CREATE FUNCTION json_error(fn text, path text, opt text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF opt IS NULL THEN
    EXECUTE format('SELECT count(*) FROM %I(%L)', fn, path);
  ELSE
    EXECUTE format('SELECT count(*) FROM %I(%L, %L)', fn, path, opt);
  END IF;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ' ' || SQLERRM;
END $$;
CREATE TABLE bad_files (name text, lines text[]);
INSERT INTO bad_files VALUES
  ('not_json', ARRAY['[{"type": "Feature", "geometry": nul}]']),
  ('empty', ARRAY[]::text[]),
  ('scalar', ARRAY['42']),
  ('feature', ARRAY['{"type": "Feature", "geometry": null}']),
  ('no_features', ARRAY['{"type": "FeatureCollection"}']),
  ('given_hovernet', ARRAY['{"mag": 40, "nuc": {}}']),
  ('truncated', ARRAY['{"type": "FeatureCollection", "features": [', '{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0]']),
  ('trailing', ARRAY['[{"type": "Feature", "geometry": null}] x']),
  ('unbalanced', ARRAY['[{"type": "Feature", "geometry": [1}]']),
  ('deep', ARRAY['[' || repeat('[', 70) || repeat(']', 70) || ']']),
  ('no_geometry', ARRAY['[{"type": "Feature", "properties": {}}]']),
  ('linestring', ARRAY['[{"type": "Feature", "geometry": null},', '{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0,0],[1,1]]}}]']),
  ('short_ring', ARRAY['[{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[0,0]]]}}]']),
  ('open_ring', ARRAY['[{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1]]]}}]']),
  ('nan', ARRAY['[{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,NaN],[0,0]]]}}]']),
  ('huge', ARRAY['[{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1e999,0],[1,1],[0,0]]]}}]']),
  ('string_coordinate', ARRAY['[{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,"0"],[1,1],[0,0]]]}}]']),
  ('one_number', ARRAY['[{"type": "Feature", "geometry": {"type": "MultiPolygon", "coordinates": [[[[0,0],[1],[1,1],[0,0]]]]}}]']),
  ('bad_measurements', ARRAY['[{"type": "Feature", "geometry": null, "properties": {"measurements": [{"value": 1}]}}]']),
  ('hovernet_short', ARRAY['{"nuc": {"1": {"contour": [[0,0],[1,1]]}}}']),
  ('hovernet_float', ARRAY['{"nuc": {"1": {"contour": [[0,0],[1.5,1],[0,1]]}}}']),
  ('hovernet_type', ARRAY['{"nuc": {"1": {"contour": [[0,0],[1,1],[0,1]], "type": "epithelial"}}}']),
  ('hovernet_no_contour', ARRAY['{"nuc": {"1": {"type": 1}}}']),
  ('hovernet_not_object', ARRAY['{"nuc": []}']),
  ('hovernet_given_geojson', ARRAY['{"type": "FeatureCollection", "features": []}']);
SELECT write_lines('/tmp/pb_regress_json/' || name || '.json', lines) FROM bad_files;
SELECT name, json_error(CASE WHEN name LIKE 'hovernet%' THEN 'pb_read_hovernet' ELSE 'pb_read_geojson' END,
                        '/tmp/pb_regress_json/' || name || '.json') AS error
FROM bad_files ORDER BY name;
-- pb_compare_files gives the same errors
SELECT regexp_replace(json_error('pb_compare_files', '{/tmp/pb_regress_json/open_ring.json}', '{/tmp/pb_regress_json/cells.geojson}'), '\{.*\}', '') AS compare_error;
-- a feature the reader takes but the comparison cannot (a coordinate
-- beyond +-1e150): the error names its line, not the file's first
SELECT write_lines('/tmp/pb_regress_json/far.geojson', ARRAY[
  '{"type": "FeatureCollection", "features": [',
  '{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}},',
  '{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1e200,0],[1,1],[0,0]]]}}',
  ']}']);
SELECT json_error('pb_compare_files', '{/tmp/pb_regress_json/far.geojson}', '{}') AS compare_error;
-- a *.geojson must be GeoJSON; a *.json may be either
COPY (SELECT 1 WHERE false) TO PROGRAM 'cp /tmp/pb_regress_json/hovernet_short.json /tmp/pb_regress_json/nuclei.geojson';
SELECT json_error('pb_compare_files', '{/tmp/pb_regress_json/nuclei.geojson}', '{}') AS compare_error;
SELECT json_error('pb_compare_files', '{/tmp/pb_regress_json/hovernet_short.json}', '{}') AS compare_error;
SELECT json_error('pb_compare_files', '{/tmp/pb_regress_json/scalar.json}', '{}') AS compare_error;
-- files that are not there, not regular, and bad options
SELECT json_error('pb_read_geojson', '/tmp/pb_regress_json/no_such.geojson');
SELECT json_error('pb_read_geojson', '/tmp/pb_regress_json/dir');
SELECT json_error('pb_read_hovernet', '/dev/zero');
SELECT json_error('pb_read_geojson', '/tmp/pb_regress_json/cells.geojson', 'nucleus');
SELECT json_error('pb_read_hovernet', '/tmp/pb_regress_json/hovernet.json', 'centres');

-- a cancel (here statement_timeout) stops a long read
SELECT write_lines('/tmp/pb_regress_json/big.geojson',
  ARRAY['{"type": "FeatureCollection", "features": ['] ||
  ARRAY(SELECT format('{"type": "Feature", "id": %s, "geometry": {"type": "Polygon", "coordinates": [[[%s,0],[%s,0],[%s,1],[%s,0]]]}},', i, i, i + 1, i + 1, i)
        FROM generate_series(1, 300000) i) ||
  ARRAY['{"type": "Feature", "geometry": null}]}']);
SET statement_timeout = '50ms';
SELECT count(*) FROM pb_read_geojson('/tmp/pb_regress_json/big.geojson');
RESET statement_timeout;
SELECT count(*), sum(ST_Area(geom)) FROM pb_read_geojson('/tmp/pb_regress_json/big.geojson');

-- only superusers and pg_read_server_files may read server files
CREATE ROLE pb_regress_json_reader;
SET ROLE pb_regress_json_reader;
SELECT count(*) FROM pb_read_geojson('/tmp/pb_regress_json/cells.geojson');
SELECT count(*) FROM pb_read_hovernet('/tmp/pb_regress_json/hovernet.json');
RESET ROLE;
GRANT pg_read_server_files TO pb_regress_json_reader;
SET ROLE pb_regress_json_reader;
SELECT count(*) AS rows_with_the_role FROM pb_read_geojson('/tmp/pb_regress_json/cells.geojson');
RESET ROLE;
DROP ROLE pb_regress_json_reader;
DROP TABLE json_rows, bad_files;
DROP FUNCTION json_error(text, text, text);
DROP FUNCTION write_lines(text, text[]);
