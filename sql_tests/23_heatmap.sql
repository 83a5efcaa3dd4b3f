-- pb_heatmap_png: the PNG's header (signature, size, 8-bit RGBA) for small
-- maps, NULL without rows, one map per group, and every error with its
-- message and hint.  Every pixel of random maps against matplotlib's
-- viridis, decoded by PIL, is in tests/metrics/check_heatmap.py.

-- the PNG header's facts: signature, IHDR width and height (big-endian),
-- bit depth, colour type (6: RGBA)
CREATE FUNCTION heat_header(png bytea, OUT png_signature boolean, OUT width int,
                            OUT height int, OUT bit_depth int, OUT colour_type int)
LANGUAGE sql AS $$
  SELECT substr(png, 1, 8) = '\x89504e470d0a1a0a'::bytea AND substr(png, 13, 4) = 'IHDR'::bytea,
         (get_byte(png, 16) << 24) | (get_byte(png, 17) << 16) | (get_byte(png, 18) << 8) | get_byte(png, 19),
         (get_byte(png, 20) << 24) | (get_byte(png, 21) << 16) | (get_byte(png, 22) << 8) | get_byte(png, 23),
         get_byte(png, 24), get_byte(png, 25)
$$;

CREATE TABLE heat_tiles (slide int, tile_x int, tile_y int, f1 float8);
-- slide 1: x from -2 to 2 (5 tiles), y from 3 to 4 (2 tiles), holes, a NULL
INSERT INTO heat_tiles VALUES
  (1, -2, 3, 0.0), (1, 2, 3, 1.0), (1, 0, 4, NULL), (1, 1, 4, 0.5),
  -- slide 2: one tile
  (2, 7, 7, 0.25);

-- 8 pixels a tile: 40 x 16
SELECT (heat_header(pb_heatmap_png(tile_x, tile_y, f1))).* FROM heat_tiles WHERE slide = 1;
-- 3 pixels a tile: 15 x 6; 1 pixel: 5 x 2; 256: 1280 x 512
SELECT c AS cell_pixels, (heat_header(pb_heatmap_png(tile_x, tile_y, f1, c))).*
FROM heat_tiles, unnest(ARRAY[1, 3, 256]) c WHERE slide = 1 GROUP BY c ORDER BY c;
-- one map per slide
SELECT slide, (heat_header(pb_heatmap_png(tile_x, tile_y, f1))).*
FROM heat_tiles GROUP BY slide ORDER BY slide;
-- no rows: NULL
SELECT pb_heatmap_png(tile_x, tile_y, f1) IS NULL AS no_rows FROM heat_tiles WHERE slide = 3;
SELECT pb_heatmap_png(tile_x, tile_y, f1, 4) IS NULL AS no_rows FROM heat_tiles WHERE false;
-- rows without a tile (tile_x or tile_y NULL: pb_tile_agreement's row of
-- EMPTY geometries) are skipped, as aggregates skip NULLs
SELECT pb_heatmap_png(x, y, v) = pb_heatmap_png(x, y, v) FILTER (WHERE x IS NOT NULL AND y IS NOT NULL)
       AS skipped
FROM (VALUES (1, 2, 0.5), (NULL, 2, 0.75), (4, NULL, NULL), (2, 3, 0.25)) t(x, y, v);
SELECT pb_heatmap_png(x, y, v, 3) IS NULL AS nothing_drawn
FROM (VALUES (NULL::int, NULL::int, 0.125), (NULL, 5, 0.5)) t(x, y, v);
-- the largest: 16384 x 4096 (2^28 bytes of RGBA) from two corner tiles of 64
SELECT (heat_header(pb_heatmap_png(x, y, 0.5, 64))).*
FROM (VALUES (0, 0), (255, 63)) t(x, y);

-- errors: the value
SELECT pb_heatmap_png(x, 5, v) FROM (VALUES (1, 0.5), (2, 'NaN'::float8)) t(x, v);
SELECT pb_heatmap_png(x, 5, v) FROM (VALUES (1, 0.5), (3, -0.25)) t(x, v);
SELECT pb_heatmap_png(x, 5, v) FROM (VALUES (1, 0.5), (4, 1.5)) t(x, v);
SELECT pb_heatmap_png(x, 5, v) FROM (VALUES (1, 0.5), (5, 'Infinity'::float8)) t(x, v);
-- the same tile twice (the first repeat named; found when drawn, or as it
-- comes once there are more rows than the span has tiles)
SELECT pb_heatmap_png(x, y, 0.5) FROM (VALUES (0, 0), (1, 1), (1, 0), (1, 1)) t(x, y);
SELECT pb_heatmap_png(x, y, 0.5) FROM (VALUES (3, -1), (3, -1)) t(x, y);
-- cell_pixels: outside [1, 256], NULL, not the same in every row
SELECT pb_heatmap_png(1, 2, 0.5, 0);
SELECT pb_heatmap_png(1, 2, 0.5, 257);
SELECT pb_heatmap_png(1, 2, 0.5, -8);
SELECT pb_heatmap_png(1, 2, 0.5, NULL);
SELECT pb_heatmap_png(x, 0, 0.5, c) FROM (VALUES (0, 8), (1, 8), (2, 4)) t(x, c);
-- too large: a side past 16384 pixels, or past 2^28 bytes of RGBA
SELECT pb_heatmap_png(x, 0, 0.5) FROM (VALUES (0), (2048)) t(x);
SELECT pb_heatmap_png(0, y, 0.5, 1) FROM (VALUES (-2147483648), (2147483647)) t(y);
SELECT pb_heatmap_png(x, y, 0.5, 64) FROM (VALUES (0, 0), (255, 64)) t(x, y);
