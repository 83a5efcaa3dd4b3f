-- Coverage functions: raster operations over whole slides stored as tiles.
-- Each slide's answer must equal the single-value function on the slide's
-- mosaic, cut to the tiles (compared as WKB with ST_Tile of that answer).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis_raster;
CREATE EXTENSION IF NOT EXISTS pixelbox_raster;
RESET client_min_messages;
SELECT p.oid::regprocedure AS function, obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented,
	   provolatile, proisstrict, proretset
FROM pg_proc p WHERE proname LIKE 'pb_coverage%' ORDER BY p.oid::regprocedure::text;

-- a serpentine maze, 40 x 33 (not a multiple of the 7 x 5 tiles): corridors
-- whose heights fall along the path, walls (0) with one gap a wall row,
-- alternating sides; the marker is the top corridor's start
CREATE TABLE maze AS
SELECT ST_SetValues(ST_AddBand(ST_MakeEmptyRaster(40, 33, 1000, 2000, 2, -2, 0, 0, 32615), '8BUI'::text, 0, 255),
	   1, 1, 1, (SELECT array_agg(r ORDER BY y) FROM (
		   SELECT y, array_agg(CASE WHEN y % 4 = 1 AND x <> (CASE WHEN y % 8 = 1 THEN 39 ELSE 0 END) THEN 0
									ELSE 250 - (x * 7 + y * 3) % 200 END ORDER BY x) AS r
		   FROM generate_series(0, 32) y, generate_series(0, 39) x GROUP BY y) rows)::float8[][]) AS mask,
	   ST_SetValue(ST_AddBand(ST_MakeEmptyRaster(40, 33, 1000, 2000, 2, -2, 0, 0, 32615), '8BUI'::text, 0, 255),
				   1, 1, 1, 250) AS marker;
CREATE TABLE maze_tiles AS
SELECT row_number() OVER () AS id, m AS marker, k AS mask
FROM maze, LATERAL (SELECT row_number() OVER () AS n, t AS m FROM ST_Tile(marker, 7, 5) t) a
	 JOIN LATERAL (SELECT row_number() OVER () AS n, t AS k FROM ST_Tile(mask, 7, 5) t) b USING (n);
SELECT count(*) AS tiles, count(*) FILTER (WHERE ST_Width(mask) < 7 OR ST_Height(mask) < 5) AS partial
FROM maze_tiles;
-- the flood runs the whole serpentine, through every tile many times
CREATE TABLE maze_out AS
SELECT * FROM pb_coverage_reconstruct('SELECT marker, mask FROM maze_tiles ORDER BY random()');
SELECT count(*) AS rows, count(DISTINCT (tile_x, tile_y)) AS cells, min(tile_x), max(tile_x),
	   min(tile_y), max(tile_y), bool_and(slide IS NULL) AS no_slide FROM maze_out;
SELECT count(*) AS equal_to_untiled
FROM maze_out o JOIN (SELECT t FROM maze, ST_Tile(pb_reconstruct(marker, mask), 7, 5) t) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);
-- the flood reached the last corridor (bottom row): not 0, not the mask's top
SELECT (ST_DumpValues(rast, 1))[5][1:3] AS last_corridor_start
FROM maze_out WHERE tile_x = 0 AND tile_y = 6;
-- erosion, 4-connected, and the georeference and SRID of each tile kept
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_reconstruct('SELECT mask AS marker, marker AS mask FROM maze_tiles', 4, 'erosion') o
JOIN (SELECT t FROM maze, ST_Tile(pb_reconstruct(mask, marker, 4, 'erosion'), 7, 5) t) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);
SELECT bool_and(ST_SRID(o.rast) = 32615 AND ST_SameAlignment(o.rast, m.mask)
				AND ST_UpperLeftX(o.rast) = ST_UpperLeftX(m.mask)
				AND ST_UpperLeftY(o.rast) = ST_UpperLeftY(m.mask)) AS georeferenced
FROM maze_out o JOIN maze_tiles m
  ON o.tile_x = (ST_UpperLeftX(m.mask) - 1000) / 14 AND o.tile_y = (2000 - ST_UpperLeftY(m.mask)) / 10;

-- fill holes, the distance transform (with spacing and index) and the
-- watershed (marker-less, with lines) of the maze as one image
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_fill_holes('SELECT mask AS rast FROM maze_tiles') o
JOIN (SELECT t FROM maze, ST_Tile(pb_fill_holes(mask), 7, 5) t) u ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_distance_transform('SELECT mask AS rast FROM maze_tiles', 1, '{2, 0.5}', true) o
JOIN (SELECT t FROM maze, ST_Tile(pb_distance_transform(mask, 1, '{2, 0.5}', true), 7, 5) t) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_watershed('SELECT mask AS rast FROM maze_tiles', 4, true) o
JOIN (SELECT t FROM maze, ST_Tile(pb_watershed(mask, NULL, 4, NULL, true), 7, 5) t) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);
-- marker-controlled, with a mask column, 16-bit labels
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_watershed('SELECT mask AS rast, marker AS markers, mask FROM maze_tiles', 8, false, 1, '16BUI') o
JOIN (SELECT t FROM maze, ST_Tile(pb_watershed(mask, marker, 8, mask, false, 1, '16BUI'), 7, 5) t) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);

-- many slides in one query (integer keys, one NULL), each on its own grid;
-- slide 2 misses an interior tile: its pixels are nodata (walls), as in
-- the mosaic ST_Union makes of the remaining tiles
CREATE TABLE slides AS
SELECT 1 AS slide, mask AS rast, marker FROM maze_tiles
UNION ALL
SELECT 2, ST_SetUpperLeft(mask, ST_UpperLeftX(mask) + 5000, ST_UpperLeftY(mask)),
	   ST_SetUpperLeft(marker, ST_UpperLeftX(marker) + 5000, ST_UpperLeftY(marker))
FROM maze_tiles WHERE NOT (ST_UpperLeftX(mask) = 1014 AND ST_UpperLeftY(mask) = 1990)
UNION ALL
SELECT NULL, ST_SetScale(mask, 1, -1), ST_SetScale(marker, 1, -1) FROM maze_tiles;
CREATE TABLE slide_out AS
SELECT * FROM pb_coverage_watershed('SELECT slide, rast FROM slides');
SELECT slide, count(*) AS tiles, max((ST_SummaryStats(rast)).max) AS top_label
FROM slide_out GROUP BY slide ORDER BY slide;
CREATE TABLE slide_mosaic AS
SELECT slide, ST_Union(rast) AS rast FROM slides WHERE slide IS NOT NULL GROUP BY slide;
SELECT m.slide, count(*) AS equal_to_untiled
FROM slide_mosaic m, ST_Tile(pb_watershed(m.rast), 7, 5) t
JOIN slide_out o ON ST_AsBinary(o.rast) = ST_AsBinary(t)
GROUP BY m.slide ORDER BY 1;
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_reconstruct('SELECT slide, marker, rast AS mask FROM slides WHERE slide = 2') o
JOIN (SELECT t FROM slide_mosaic m, LATERAL (SELECT ST_Union(marker) AS k FROM slides WHERE slide = 2) k,
	  ST_Tile(pb_reconstruct(k.k, m.rast), 7, 5) t WHERE m.slide = 2) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);

-- raster WKB in and out (pixelbox alone), a text slide key, the report
SELECT slide, count(*) AS tiles, bool_and(rast = ST_AsWKB(r.t)) AS equal_to_raster_form
FROM pb_coverage_fill_holes_wkb('SELECT ''a'' AS slide, ST_AsWKB(mask) AS rast FROM maze_tiles') w
JOIN (SELECT t FROM pb_coverage_fill_holes('SELECT mask AS rast FROM maze_tiles') f(s, x, y, t)) r(t)
  ON ST_UpperLeftX(r.t) = ST_UpperLeftX(ST_RastFromWKB(w.rast))
 AND ST_UpperLeftY(r.t) = ST_UpperLeftY(ST_RastFromWKB(w.rast))
GROUP BY slide;
SELECT count(*) FROM pb_coverage_distance_transform('SELECT slide, rast FROM slides');
SELECT string_agg(stage, ', ') AS stages FROM pb_raster_report() WHERE stage NOT LIKE 'gpu %';
-- no tiles, no rows; a NULL option, no rows
SELECT count(*) FROM pb_coverage_fill_holes('SELECT rast FROM slides WHERE false');
SELECT count(*) FROM pb_coverage_distance_transform('SELECT rast FROM slides', NULL);

-- bad input: every refusal names the slide and the tile
SELECT * FROM pb_coverage_fill_holes('SELECT 1 AS x');
SELECT * FROM pb_coverage_fill_holes('SELECT 1 AS rast');
SELECT * FROM pb_coverage_fill_holes('SELECT rast, rast FROM slides');
SELECT * FROM pb_coverage_fill_holes('  ; ');
SELECT * FROM pb_coverage_fill_holes('DELETE FROM slides');
SELECT * FROM pb_coverage_reconstruct('SELECT rast AS marker FROM slides');
-- a tile of another scale, SRID, pixel type
SELECT * FROM pb_coverage_fill_holes(
  'SELECT slide, CASE WHEN ST_UpperLeftX(rast) = 1028 AND ST_UpperLeftY(rast) = 1990 THEN ST_SetScale(rast, 2.5, -2) ELSE rast END AS rast
   FROM slides WHERE slide = 1 ORDER BY ST_UpperLeftX(rast), ST_UpperLeftY(rast)');
SELECT * FROM pb_coverage_fill_holes(
  'SELECT slide, CASE WHEN ST_UpperLeftX(rast) = 1028 AND ST_UpperLeftY(rast) = 1990 THEN ST_SetSRID(rast, 4326) ELSE rast END AS rast
   FROM slides WHERE slide = 1 ORDER BY ST_UpperLeftX(rast), ST_UpperLeftY(rast)');
SELECT * FROM pb_coverage_fill_holes(
  'SELECT slide, CASE WHEN ST_UpperLeftX(rast) = 1028 AND ST_UpperLeftY(rast) = 1990 THEN ST_Reclass(rast, 1, ''0-255:0-255'', ''16BUI'') ELSE rast END AS rast
   FROM slides WHERE slide = 1 ORDER BY ST_UpperLeftX(rast), ST_UpperLeftY(rast)');
-- a tile moved by one pixel (off the tile grid), half a pixel (off the pixel grid)
SELECT * FROM pb_coverage_fill_holes(
  'SELECT CASE WHEN ST_UpperLeftX(rast) = 1028 AND ST_UpperLeftY(rast) = 1990 THEN ST_SetUpperLeft(rast, 1030, 1990) ELSE rast END AS rast
   FROM slides WHERE slide = 1 ORDER BY ST_UpperLeftX(rast), ST_UpperLeftY(rast)');
SELECT * FROM pb_coverage_fill_holes(
  'SELECT CASE WHEN ST_UpperLeftX(rast) = 1028 AND ST_UpperLeftY(rast) = 1990 THEN ST_SetUpperLeft(rast, 1029, 1990) ELSE rast END AS rast
   FROM slides WHERE slide = 1 ORDER BY ST_UpperLeftX(rast), ST_UpperLeftY(rast)');
-- a duplicate tile, and overlapping slides' tiles in one slide
SELECT * FROM pb_coverage_fill_holes(
  'SELECT rast FROM slides WHERE slide = 1 UNION ALL SELECT rast FROM slides WHERE slide = 1 AND ST_UpperLeftX(rast) = 1014 AND ST_UpperLeftY(rast) = 1990');
SELECT * FROM pb_coverage_fill_holes('SELECT rast FROM slides WHERE slide IS NOT NULL');
-- a missing band, an unsupported pixel type, a NULL tile, an empty tile
SELECT * FROM pb_coverage_fill_holes('SELECT slide, rast FROM slides WHERE slide = 1', 4, 2);
SELECT * FROM pb_coverage_distance_transform(
  'SELECT ST_Reclass(rast, 1, ''0-255:0-255'', ''32BSI'') AS rast FROM slides WHERE slide = 1');
SELECT * FROM pb_coverage_fill_holes('SELECT slide, NULL::raster AS rast FROM slides');
SELECT * FROM pb_coverage_fill_holes('SELECT ST_MakeEmptyRaster(2, 2, 0, 0, 1, 1, 0, 0) AS rast');
-- marker and mask of one row on different grids or pixel types
SELECT * FROM pb_coverage_reconstruct('SELECT marker, ST_SetUpperLeft(rast, 0, 0) AS mask FROM slides WHERE slide = 1');
SELECT * FROM pb_coverage_reconstruct(
  'SELECT ST_Reclass(marker, 1, ''0-255:0-255'', ''16BUI'') AS marker, rast AS mask FROM slides WHERE slide = 1');
-- watershed markers that are not labels, labels that do not fit
SELECT * FROM pb_coverage_watershed(
  'SELECT rast, ST_Reclass(marker, 1, ''0-255:0-255'', ''32BF'') AS markers FROM slides WHERE slide = 1');
SELECT * FROM pb_coverage_watershed(
  'SELECT rast, ST_MapAlgebra(marker, ''32BSI'', ''-[rast]'') AS markers FROM slides WHERE slide = 1');
SELECT count(*) FROM pb_coverage_watershed(
  'SELECT rast, ST_MapAlgebra(marker, ''16BUI'', ''[rast] * 2'') AS markers FROM slides WHERE slide = 1', 8, false, 1, '8BUI');
-- tiles too far apart for one image (3 billion pixels across)
SELECT * FROM pb_coverage_fill_holes(
  'SELECT ST_AddBand(ST_MakeEmptyRaster(1, 1, x, 0, 1, -1, 0, 0), ''8BUI''::text, 1, 0) AS rast
   FROM (VALUES (0), (3000000000)) v(x)');
-- slides larger than the distance transform (131072 a side) or the
-- watershed (2^32 pixels, with markers or without) take, refused before
-- any image is made; the largest side is taken
SELECT count(*) AS tiles, max(ST_Value(rast, 1, 1)) AS distance FROM pb_coverage_distance_transform(
  'SELECT ST_AddBand(ST_MakeEmptyRaster(1, 1, x, 0, 1, -1, 0, 0), ''8BUI''::text, 1, 0) AS rast
   FROM (VALUES (0), (131071)) v(x)');
SELECT * FROM pb_coverage_distance_transform(
  'SELECT ST_AddBand(ST_MakeEmptyRaster(1, 1, x, 0, 1, -1, 0, 0), ''8BUI''::text, 1, 0) AS rast
   FROM (VALUES (0), (131072)) v(x)');
SELECT * FROM pb_coverage_watershed(
  'SELECT 7 AS slide, ST_AddBand(ST_MakeEmptyRaster(1, 1, x, -y, 1, -1, 0, 0), ''8BUI''::text, 1, 0) AS rast
   FROM (VALUES (0, 0), (65535, 65536)) v(x, y)');
SELECT * FROM pb_coverage_watershed(
  'SELECT 8 AS slide, r AS rast, r AS markers
   FROM (SELECT ST_AddBand(ST_MakeEmptyRaster(1, 1, x, -y, 1, -1, 0, 0), ''32BUI''::text, 1, 0) AS r
         FROM (VALUES (0, 0), (65535, 65536)) v(x, y)) t');
-- options
SELECT * FROM pb_coverage_fill_holes('SELECT rast FROM slides', 6);
SELECT * FROM pb_coverage_reconstruct('SELECT marker, rast AS mask FROM slides', 8, 'opening');
SELECT * FROM pb_coverage_watershed('SELECT rast FROM slides', 8, false, 1, '64BUI');
SELECT * FROM pb_coverage_distance_transform('SELECT rast FROM slides', 1, '{1, 0}');

-- tiles stored every way TOAST stores them read alike (pixelbox fetches
-- them, then decompresses on its threads): out of line plain (EXTERNAL),
-- out of line pglz and lz4, in line lz4 (MAIN); half plateaus, half noise
SELECT setseed(0.25);
CREATE TABLE store_src AS
SELECT ST_AsBinary(t) AS rast FROM ST_Tile(ST_SetValues(
  ST_AddBand(ST_MakeEmptyRaster(512, 512, 0, 0, 1, -1, 0, 0, 0), '8BUI'::text, 0, 0), 1, 1, 1,
  (SELECT array_agg(r ORDER BY y) FROM (
     SELECT y, array_agg(CASE WHEN (x / 16 + y / 16) % 3 <> 0 THEN 200 ELSE floor(random() * 50) END
                         ORDER BY x)::float8[] AS r
     FROM generate_series(0, 511) y, generate_series(0, 511) x GROUP BY y) rows)),
  128, 128) t;
CREATE TABLE store_ext (rast bytea);
ALTER TABLE store_ext ALTER rast SET STORAGE EXTERNAL;
CREATE TABLE store_pglz (rast bytea COMPRESSION pglz);
CREATE TABLE store_lz4 (rast bytea COMPRESSION lz4);
CREATE TABLE store_main (rast bytea COMPRESSION lz4);
ALTER TABLE store_main ALTER rast SET STORAGE MAIN;
-- (|| makes each value anew, so each table compresses it its own way)
INSERT INTO store_ext SELECT rast || ''::bytea FROM store_src;
INSERT INTO store_pglz SELECT rast || ''::bytea FROM store_src;
INSERT INTO store_lz4 SELECT rast || ''::bytea FROM store_src;
INSERT INTO store_main SELECT rast || ''::bytea FROM store_src;
SELECT t, pg_column_compression(rast) AS compression, count(*),
       bool_and(pg_column_size(rast) < 8000) AS smaller_than_a_page
FROM (SELECT 'ext' AS t, rast FROM store_ext UNION ALL SELECT 'pglz', rast FROM store_pglz
      UNION ALL SELECT 'lz4', rast FROM store_lz4 UNION ALL SELECT 'main', rast FROM store_main) u
GROUP BY 1, 2 ORDER BY 1;
SELECT t, count(*) AS tiles, count(DISTINCT rast) AS distinct_tiles,
       md5(string_agg(md5(rast), '' ORDER BY tile_y, tile_x)) = first_value(md5(string_agg(md5(rast), '' ORDER BY tile_y, tile_x))) OVER () AS same_as_ext
FROM (SELECT 'a ext' AS t, * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM store_ext')
      UNION ALL SELECT 'b pglz', * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM store_pglz')
      UNION ALL SELECT 'c lz4', * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM store_lz4')
      UNION ALL SELECT 'd main', * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM store_main')) r
GROUP BY t ORDER BY t;
-- results stored with lz4 are compressed by pixelbox on its threads (as
-- WKB and as rasters), and equal those PostgreSQL compresses with pglz
SET default_toast_compression = pglz;
CREATE TABLE store_out_p AS SELECT * FROM pb_coverage_distance_transform_wkb('SELECT rast FROM store_ext');
CREATE TABLE store_rast_p AS SELECT * FROM pb_coverage_fill_holes('SELECT rast FROM store_ext');
SET default_toast_compression = lz4;
CREATE TABLE store_out_l AS SELECT * FROM pb_coverage_distance_transform_wkb('SELECT rast FROM store_ext');
CREATE TABLE store_rast_l AS SELECT * FROM pb_coverage_fill_holes('SELECT rast FROM store_ext');
RESET default_toast_compression;
SELECT 'distance' AS result, pg_column_compression(l.rast) AS compression, count(*),
       bool_and(l.rast = p.rast) AS same, bool_and(pg_column_size(l.rast) < length(l.rast)) AS smaller
FROM store_out_l l JOIN store_out_p p USING (tile_x, tile_y) GROUP BY 1, 2
UNION ALL
SELECT 'fill holes (raster)', pg_column_compression(l.rast), count(*),
       bool_and(ST_AsBinary(l.rast) = ST_AsBinary(p.rast)), bool_and(pg_column_size(l.rast) < length(ST_AsBinary(l.rast)))
FROM store_rast_l l JOIN store_rast_p p USING (tile_x, tile_y) GROUP BY 1, 2;
-- pixelbox.device = hybrid on every GPU there is (here none: the CPU
-- threads alone) gives the CPU's tiles
SET pixelbox.device = cpu;
CREATE TABLE store_cpu AS SELECT * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM store_ext');
SET pixelbox.device = hybrid;
SET pixelbox.gpus = 2;
SELECT count(*) AS tiles, count(*) FILTER (WHERE h.rast = c.rast) AS same
FROM pb_coverage_fill_holes_wkb('SELECT rast FROM store_lz4') h JOIN store_cpu c USING (tile_x, tile_y);
RESET pixelbox.gpus;
RESET pixelbox.device;
-- past pixelbox.host_memory (this backend holds more than 1MB already)
-- every image goes to a temporary file mapped into memory, counted in
-- the report's row mapped: the same tiles, and the files gone after
SET pixelbox.host_memory = '1MB';
SELECT count(*) AS tiles, count(*) FILTER (WHERE h.rast = c.rast) AS same
FROM pb_coverage_fill_holes_wkb('SELECT rast FROM store_lz4') h JOIN store_cpu c USING (tile_x, tile_y);
SELECT stage, device, tiles FROM pb_raster_report() WHERE stage = 'mapped';
SELECT count(*) AS tiles, count(*) FILTER (WHERE d.rast = l.rast) AS same
FROM pb_coverage_distance_transform_wkb('SELECT rast FROM store_ext') d JOIN store_out_l l USING (tile_x, tile_y);
SELECT stage, device, tiles FROM pb_raster_report() WHERE stage = 'mapped';
SELECT count(*) AS temporary_files_left FROM pg_ls_tmpdir();
RESET pixelbox.host_memory;
DROP TABLE store_src, store_ext, store_pglz, store_lz4, store_main, store_out_p, store_out_l, store_rast_p, store_rast_l,
  store_cpu;

-- a cancel (statement_timeout) stops a large coverage promptly
CREATE TABLE big_tiles AS
SELECT t AS rast FROM ST_Tile(ST_AddBand(ST_MakeEmptyRaster(3000, 3000, 0, 0, 1, -1, 0, 0, 0), '8BUI'::text, 5, 0), 500, 500) t;
SET pixelbox.device = cpu;
SET pixelbox.cpu_threads = 1;
-- (terse: where the cancel lands, reading or computing, varies)
\set VERBOSITY terse
SET statement_timeout = '20ms';
SELECT count(*) FROM pb_coverage_distance_transform('SELECT rast FROM big_tiles');
RESET statement_timeout;
\set VERBOSITY default
RESET pixelbox.cpu_threads;
RESET pixelbox.device;
-- the watersheds and the single-value functions with their images in
-- temporary files: the untiled answers still; the report counts them (the
-- marker-less CPU watershed with lines: its 3 images and its 4 scratch arrays)
SET pixelbox.host_memory = '1MB';
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_watershed('SELECT mask AS rast, marker AS markers, mask FROM maze_tiles', 8, false, 1, '16BUI') o
JOIN (SELECT t FROM maze, ST_Tile(pb_watershed(mask, marker, 8, mask, false, 1, '16BUI'), 7, 5) t) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);
SELECT count(*) AS equal_to_untiled
FROM pb_coverage_watershed('SELECT mask AS rast FROM maze_tiles', 4, true) o
JOIN (SELECT t FROM maze, ST_Tile(pb_watershed(mask, NULL, 4, NULL, true), 7, 5) t) u
  ON ST_AsBinary(o.rast) = ST_AsBinary(u.t);
SELECT tiles FROM pb_raster_report() WHERE stage = 'mapped';
SELECT count(*) AS temporary_files_left FROM pg_ls_tmpdir();
CREATE TEMP TABLE fill_mapped AS SELECT pb_fill_holes(mask) AS rast FROM maze;
SELECT tiles FROM pb_raster_report() WHERE stage = 'mapped';
RESET pixelbox.host_memory;
SELECT ST_AsBinary(rast) = (SELECT ST_AsBinary(pb_fill_holes(mask)) FROM maze) AS same_fill_holes
FROM fill_mapped;
SELECT count(*) AS mapped_rows FROM pb_raster_report() WHERE stage = 'mapped';
DROP TABLE fill_mapped;
DROP TABLE maze, maze_tiles, maze_out, slides, slide_out, slide_mosaic, big_tiles;
