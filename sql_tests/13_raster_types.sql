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
ORDER BY 1::text;
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
