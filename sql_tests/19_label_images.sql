-- Label images (StarDist / Cellpose) to one polygon per label:
-- pb_labels_to_polygons on label rasters in PostGIS (pixel and world
-- space) and pb_read_labels on TIFF and PNG files, against
-- ST_DumpAsPolygons + ST_Union; pb_compare_files on label images; every
-- error with its message; file reading for privileged roles only.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis_raster;
CREATE EXTENSION IF NOT EXISTS pixelbox_raster;
RESET client_min_messages;
SET postgis.gdal_enabled_drivers = 'GTiff PNG';
-- a 9 x 7 label raster as GDAL loads a plain TIFF (upper left (0, 0), scale (1, -1)):
-- touching labels, a ring (label 3) holding another label (4) in its hole, a label (5)
-- in two parts touching at a corner, a hole touching its shell at a corner (label 6),
-- labels above 2^24 and the largest uint32
CREATE TABLE lr AS
SELECT ST_SetValues(ST_AddBand(ST_MakeEmptyRaster(9, 7, 0, 0, 1, -1, 0, 0, 0), '32BUI'::text, 0, NULL),
					1, 1, 1, ARRAY[[1, 1, 2, 3, 3, 3, 3, 0, 5],
								   [1, 1, 2, 3, 0, 0, 3, 5, 0],
								   [0, 2, 2, 3, 0, 4, 3, 0, 0],
								   [6, 6, 6, 3, 0, 0, 3, 0, 16777217],
								   [6, 0, 6, 3, 3, 3, 3, 0, 16777217],
								   [6, 6, 0, 0, 0, 0, 0, 0, 0],
								   [4294967295, 0, 0, 0, 0, 0, 0, 0, 16777216]]::float8[][]) AS rast;
-- the truth: GDAL's polygons of each value, united, in pixel space (y flipped back);
-- GDAL polygonizes in float32, so labels above 2^24 come out rounded (two labels merged)
SELECT array_agg(DISTINCT val ORDER BY val) AS gdal_values_above_2_24
FROM lr, ST_DumpAsPolygons(rast) WHERE val >= 16777216;
CREATE TABLE truth AS
SELECT val::bigint AS label, ST_Union(geom) AS world, ST_Scale(ST_Union(geom), 1, -1) AS pixel
FROM lr, ST_DumpAsPolygons(rast) WHERE val <> 0 AND val < 16777216 GROUP BY val;
SELECT label, pixels, GeometryType(geom) AS type, ST_NumGeometries(geom) AS parts,
	   ST_NumInteriorRings(ST_GeometryN(geom, 1)) AS holes, ST_NPoints(geom) AS points,
	   ST_SRID(geom) AS srid, ST_IsValid(geom) AS valid, ST_Area(geom) = pixels AS area_is_pixels
FROM lr, pb_labels_to_polygons(rast) ORDER BY label;
-- pixel space: the truth with y down, whatever the raster's georeference
SELECT count(*) AS labels, bool_and(ST_Equals(p.geom, t.pixel)) AS equal_to_gdal
FROM lr, pb_labels_to_polygons(rast) p JOIN truth t USING (label);
SELECT ST_AsText(geom) AS label_5 FROM lr, pb_labels_to_polygons(rast) WHERE label = 5;
-- world space: the truth itself, with the raster's SRID
SELECT count(*) AS labels, bool_and(ST_Equals(p.geom, t.world)) AS equal_to_gdal
FROM lr, pb_labels_to_polygons(rast, space => 'world') p JOIN truth t USING (label);
-- a real georeference: 0.5 x 0.25 pixels at (100.5, 200.25), SRID 3857
CREATE TABLE geo AS SELECT ST_SetSRID(ST_SetGeoReference(rast, 100.5, 200.25, 0.5, -0.25, 0, 0), 3857) AS rast FROM lr;
SELECT count(*) AS labels, bool_and(ST_Equals(p.geom, d.geom)) AS equal_to_gdal,
	   bool_and(ST_SRID(p.geom) = 3857) AS srid_kept, bool_and(ST_Area(p.geom) = p.pixels * 0.125) AS areas
FROM geo, pb_labels_to_polygons(rast, 1, 'world') p
JOIN (SELECT val::bigint AS label, ST_Union(geom) AS geom FROM geo, ST_DumpAsPolygons(rast)
	  WHERE val <> 0 AND val < 16777216 GROUP BY val) d USING (label);
SELECT bool_and(ST_Equals(p.geom, q.geom)) AS pixel_space_ignores_georeference
FROM geo, pb_labels_to_polygons(rast) p JOIN (SELECT * FROM lr, pb_labels_to_polygons(rast)) q USING (label);
-- the bytea form on ST_AsWKB is the same
SELECT bool_and(ST_Equals(p.geom, q.geom) AND p.pixels = q.pixels) AS wkb_form_agrees
FROM lr, pb_labels_to_polygons(ST_AsWKB(rast)) p JOIN (SELECT * FROM lr, pb_labels_to_polygons(rast)) q USING (label);
-- 8BUI and 16BUI bands; nodata pixels are background
CREATE TABLE small AS
SELECT ST_SetValues(ST_AddBand(ST_MakeEmptyRaster(9, 7, 0, 0, 1, -1, 0, 0, 0), '8BUI'::text, 0, NULL),
					1, 1, 1, (ST_DumpValues(ST_Reclass(rast, '[0-6]:[0-6], [16777216-16777216]:8, [16777217-16777217]:7, [4294967295-4294967295]:9', '32BUI'), 1))) AS r8
FROM lr;
SELECT array_agg(label ORDER BY label) AS labels_8bui, bool_and(ST_IsValid(geom)) AS valid
FROM small, pb_labels_to_polygons(r8);
SELECT array_agg(label ORDER BY label) AS labels_16bui
FROM small, pb_labels_to_polygons(ST_Reclass(r8, '0-255:0-255', '16BUI'));
SELECT array_agg(label ORDER BY label) AS labels_without_nodata_3
FROM small, pb_labels_to_polygons(ST_SetBandNoDataValue(r8, 3));

-- files: the raster written by GDAL as TIFF (plain, LZW) and PNG, read back
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -rf /tmp/pb_regress_labels && mkdir -p /tmp/pb_regress_labels/a /tmp/pb_regress_labels/b';
COPY (SELECT replace(encode(ST_AsTIFF(rast), 'base64'), E'\n', '') FROM lr)
	TO PROGRAM 'base64 -d > /tmp/pb_regress_labels/a/labels.tif';
COPY (SELECT replace(encode(ST_AsTIFF(r8, 'LZW'), 'base64'), E'\n', '') FROM small)
	TO PROGRAM 'base64 -d > /tmp/pb_regress_labels/b/labels8.TIFF';
COPY (SELECT replace(encode(ST_AsPNG(ST_Reclass(r8, '0-255:0-255', '16BUI')), 'base64'), E'\n', '') FROM small)
	TO PROGRAM 'base64 -d > /tmp/pb_regress_labels/labels16.png';
SELECT count(*) AS labels, bool_and(ST_Equals(f.geom, p.geom) AND f.pixels = p.pixels) AS tiff_equals_raster,
	   max(f.label) AS largest_label
FROM pb_read_labels('/tmp/pb_regress_labels/a/labels.tif') f
JOIN (SELECT * FROM lr, pb_labels_to_polygons(rast)) p USING (label);
SELECT count(*) AS labels, bool_and(ST_Equals(f.geom, p.geom)) AS lzw_tiff_equals_raster
FROM pb_read_labels('/tmp/pb_regress_labels/b/labels8.TIFF') f
JOIN (SELECT * FROM small, pb_labels_to_polygons(r8)) p USING (label);
SELECT count(*) AS labels, bool_and(ST_Equals(f.geom, p.geom)) AS png_equals_raster
FROM pb_read_labels('/tmp/pb_regress_labels/labels16.png') f
JOIN (SELECT * FROM small, pb_labels_to_polygons(r8)) p USING (label);
-- pb_compare_files takes label images: the same as comparing their polygons in tables
CREATE TABLE la AS SELECT label AS id, geom FROM pb_read_labels('/tmp/pb_regress_labels/a/labels.tif');
CREATE TABLE lb AS SELECT label AS id, geom FROM pb_read_labels('/tmp/pb_regress_labels/b/labels8.TIFF');
SELECT f IS NOT DISTINCT FROM t AS files_as_tables, (f).pairs, (f).polygons_a, (f).polygons_b
FROM pb_compare_files(ARRAY['/tmp/pb_regress_labels/a'], ARRAY['/tmp/pb_regress_labels/b']) f,
	 pb_compare_tables('la', 'geom', 'lb', 'geom') t;

-- errors: rasters
SELECT * FROM lr, pb_labels_to_polygons(rast, space => 'image');
SELECT * FROM lr, pb_labels_to_polygons(rast, 2);
SELECT * FROM lr, pb_labels_to_polygons(ST_Reclass(rast, '0-4294967295:0-10', '32BF'));
SELECT * FROM lr, pb_labels_to_polygons(ST_Reclass(rast, '0-4294967295:0-10', '16BSI'));
SELECT * FROM pb_labels_to_polygons('\x0001'::bytea);
SELECT * FROM pb_labels_to_polygons(ST_MakeEmptyRaster(3, 3, 0, 0, 1, -1, 0, 0, 0));
SELECT * FROM lr, pb_labels_to_polygons(ST_SetGeoReference(rast, 0, 0, 1, 0, 0, 0), space => 'world');
-- errors: files that are not label images, damaged, missing, not regular
COPY (SELECT replace(encode(ST_AsPNG(ST_AddBand(ST_AddBand(r8, '8BUI'::text, 0, NULL), '8BUI'::text, 0, NULL)), 'base64'), E'\n', '') FROM small)
	TO PROGRAM 'base64 -d > /tmp/pb_regress_labels/rgb.png';
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/rgb.png');
COPY (SELECT replace(encode(ST_AsTIFF(ST_Reclass(rast, '0-4294967295:0-10', '32BF')), 'base64'), E'\n', '') FROM lr)
	TO PROGRAM 'base64 -d > /tmp/pb_regress_labels/float.tif';
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/float.tif');
COPY (SELECT replace(encode(ST_AsTIFF(ST_Reclass(rast, '0-4294967295:0-10', '16BSI')), 'base64'), E'\n', '') FROM lr)
	TO PROGRAM 'base64 -d > /tmp/pb_regress_labels/signed.tif';
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/signed.tif');
COPY (SELECT replace(encode(ST_AsPNG(r8), 'base64'), E'\n', '') FROM small)
	TO PROGRAM 'base64 -d | head -c 60 > /tmp/pb_regress_labels/cut.png';
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/cut.png');
COPY (SELECT 'POLYGON((0 0,1 0,1 1,0 0))') TO '/tmp/pb_regress_labels/text.tif';
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/text.tif');
SELECT pb_compare_files(ARRAY['/tmp/pb_regress_labels/text.tif'], ARRAY['/tmp/pb_regress_labels/b']);
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/no_such_file.png');
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/a');

-- only superusers and pg_read_server_files may read server files; rasters are anyone's
CREATE ROLE pb_regress_labeller;
GRANT SELECT ON lr TO pb_regress_labeller;
SET ROLE pb_regress_labeller;
SELECT count(*) FROM pb_read_labels('/tmp/pb_regress_labels/a/labels.tif');
SELECT count(*) AS labels_from_raster FROM lr, pb_labels_to_polygons(rast);
RESET ROLE;
DROP OWNED BY pb_regress_labeller;
DROP ROLE pb_regress_labeller;
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -rf /tmp/pb_regress_labels';
DROP TABLE lr, truth, geo, small, la, lb;
