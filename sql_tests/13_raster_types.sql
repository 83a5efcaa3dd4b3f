-- pixelbox_raster: the raster-typed functions on PostGIS rasters, found
-- through the postgis_raster and pixelbox extensions' schemas.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis_raster;
CREATE EXTENSION pixelbox_raster;
RESET client_min_messages;
SELECT p.oid::regprocedure AS function, obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented,
	   provolatile, proparallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pixelbox_raster'
ORDER BY p.oid::regprocedure::text;
-- a 6 x 4 mask (upper left (100, 200), 0.5 x 0.5 pixels, SRID 3857) and a marker
CREATE TABLE rt AS
SELECT ST_SetValues(ST_AddBand(ST_MakeEmptyRaster(6, 4, 100, 200, 0.5, -0.5, 0, 0, 3857), '8BUI'::text, 0, NULL),
					1, 1, 1, ARRAY[[9, 9, 0, 4, 4, 4],
								   [9, 0, 0, 4, 0, 4],
								   [9, 9, 0, 4, 4, 4],
								   [0, 0, 0, 0, 0, 0]]::float8[][]) AS mask,
	   ST_SetValues(ST_AddBand(ST_MakeEmptyRaster(6, 4, 100, 200, 0.5, -0.5, 0, 0, 3857), '8BUI'::text, 0, NULL),
					1, 1, 1, ARRAY[[5, 0, 0, 0, 0, 0],
								   [0, 0, 0, 0, 0, 0],
								   [0, 0, 0, 0, 0, 2],
								   [0, 0, 0, 0, 0, 0]]::float8[][]) AS marker;
SELECT (ST_DumpValues(pb_reconstruct(marker, mask), 1)) AS reconstructed FROM rt;
SELECT (ST_DumpValues(pb_fill_holes(mask), 1)) AS filled FROM rt;
SELECT (ST_DumpValues(pb_distance_transform(mask), 1)) AS distance FROM rt;
SELECT ST_NumBands(r) AS bands, (ST_DumpValues(r, 2)) AS nearest_col, (ST_DumpValues(r, 3)) AS nearest_row
FROM (SELECT pb_distance_transform(mask, with_index => true) AS r FROM rt) s;
-- georeference, size and SRID are kept; the distance band is 32BF
SELECT ST_GeoReference(r) = ST_GeoReference(mask) AS same_georeference, ST_SRID(r) AS srid,
	   ST_Width(r) AS width, ST_Height(r) AS height, ST_BandPixelType(r) AS pixel_type
FROM (SELECT pb_distance_transform(mask) AS r, mask FROM rt) s;
SELECT ST_SameAlignment(pb_reconstruct(marker, mask), mask) AS aligned FROM rt;
-- errors name the raster argument
SELECT pb_reconstruct(ST_SetScale(marker, 1), mask) FROM rt;
SELECT pb_reconstruct(marker, mask, band => 3) FROM rt;
SELECT pb_distance_transform(ST_AddBand(ST_MakeEmptyRaster(2, 2, 0, 0, 1), '32BSI'::text, 1, NULL)) FROM rt;
SELECT pb_fill_holes(ST_MakeEmptyRaster(0, 0, 0, 0, 1));
-- watershed: two valleys meeting at a ridge between columns 3 and 4
CREATE TABLE ws_rt AS
SELECT ST_SetValues(ST_AddBand(ST_MakeEmptyRaster(6, 4, 100, 200, 0.5, -0.5, 0, 0, 3857), '8BUI'::text, 0, NULL),
					1, 1, 1, ARRAY[[1, 2, 3, 3, 2, 1],
								   [2, 3, 4, 4, 3, 2],
								   [3, 4, 5, 5, 4, 3],
								   [4, 5, 6, 6, 5, 4]]::float8[][]) AS image,
	   ST_SetValues(ST_AddBand(ST_MakeEmptyRaster(6, 4, 100, 200, 0.5, -0.5, 0, 0, 3857), '16BUI'::text, 0, NULL),
					1, 1, 1, ARRAY[[5, 0, 0, 0, 0, 2],
								   [0, 0, 0, 0, 0, 0],
								   [0, 0, 0, 0, 0, 0],
								   [0, 0, 0, 0, 0, 0]]::float8[][]) AS markers;
SELECT (ST_DumpValues(pb_watershed(image), 1)) AS basins FROM ws_rt;
-- marker-controlled, with lines: line pixels are nodata (NULL here)
SELECT (ST_DumpValues(pb_watershed(image, markers, watershed_line => true), 1)) AS lines FROM ws_rt;
-- outside the mask: 0, i.e. nodata
SELECT (ST_DumpValues(pb_watershed(image, mask => ST_SetValue(image, 1, 1, 0::float8)), 1)) AS masked
FROM ws_rt;
-- georeference, size and SRID are kept; 32BUI labels with nodata 0 by default
SELECT ST_GeoReference(r) = ST_GeoReference(image) AS same_georeference, ST_SRID(r) AS srid,
	   ST_Width(r) AS width, ST_Height(r) AS height, ST_BandPixelType(r) AS pixel_type,
	   ST_BandNoDataValue(r) AS nodata, ST_BandPixelType(pb_watershed(image, label_type => '16BUI')) AS narrow
FROM (SELECT pb_watershed(image) AS r, image FROM ws_rt) s;
-- the basins as polygons: nodata (unlabelled, line) pixels are left out
SELECT val, ST_AsText(geom) FROM (SELECT (ST_DumpAsPolygons(pb_watershed(image, markers, watershed_line => true))).* FROM ws_rt) s
ORDER BY val;
SELECT pb_watershed(NULL::raster) IS NULL AS null_in_null_out;
-- errors through the raster path
SELECT pb_watershed(image, ST_SetScale(markers, 1)) FROM ws_rt;
SELECT pb_watershed(image, mask => ST_SetSRID(image, 4326)) FROM ws_rt;
SELECT pb_watershed(image, ST_AddBand(ST_MakeEmptyRaster(6, 4, 100, 200, 0.5, -0.5, 0, 0, 3857), '32BF'::text, 1, NULL)) FROM ws_rt;
SELECT pb_watershed(ST_AddBand(ST_MakeEmptyRaster(2, 2, 0, 0, 1), '32BSI'::text, 1, NULL));
SELECT pb_watershed(image, band => 2) FROM ws_rt;
