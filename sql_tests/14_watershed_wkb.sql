-- pb_watershed on raster WKB (no postgis_raster needed): small results
-- worked out by hand from the definition in src/core/raster/watershed.h, the
-- device rules, and every error with its message.
-- Helpers build NDR raster WKB by hand (as in 12_raster_wkb) and print labels.
CREATE FUNCTION ws_le(v bigint, n int) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::int), ''::bytea ORDER BY i)
	FROM generate_series(0, n - 1) i $$;
CREATE FUNCTION ws_f8(v float8) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(substr(float8send(v), 9 - i, 1), ''::bytea ORDER BY i)
	FROM generate_series(1, 8) i $$;
-- bytes per pixel of a pixel type code
CREATE FUNCTION ws_size(pixtype int) RETURNS int LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN pixtype IN (5, 6) THEN 2 WHEN pixtype IN (7, 8, 10) THEN 4
				WHEN pixtype = 11 THEN 8 ELSE 1 END $$;
-- one band: pixel type code, pixel bytes, flags (0x40: nodata value given,
-- 0x80: out-of-db), nodata bytes (default zeros)
CREATE FUNCTION ws_band(pixtype int, pixels bytea, flags int DEFAULT 0, nodata bytea DEFAULT NULL)
	RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT set_byte('\x00'::bytea, 0, pixtype | flags)
		   || coalesce(nodata, substr('\x0000000000000000'::bytea, 1, ws_size(pixtype))) || pixels $$;
-- a raster: size, SRID, upper-left x, then its bands
CREATE FUNCTION ws_rast(w int, h int, bands bytea[], srid int DEFAULT 0, ulx float8 DEFAULT 0)
	RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT '\x01'::bytea || ws_le(0, 2) || ws_le(cardinality(bands), 2) || ws_f8(1) || ws_f8(-1)
		|| ws_f8(ulx) || ws_f8(0) || ws_f8(0) || ws_f8(0) || ws_le(srid, 4) || ws_le(w, 2) || ws_le(h, 2)
		|| coalesce((SELECT string_agg(b, ''::bytea ORDER BY o) FROM unnest(bands) WITH ORDINALITY u(b, o)), '') $$;
-- a one-band raster of w x h pixels
CREATE FUNCTION ws_r(w int, h int, pixtype int, pixels bytea, flags int DEFAULT 0,
					 nodata bytea DEFAULT NULL, srid int DEFAULT 0, ulx float8 DEFAULT 0)
	RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT ws_rast(w, h, ARRAY[ws_band(pixtype, pixels, flags, nodata)], srid, ulx) $$;
-- pixel bytes of integers (n bytes each, two's complement) and of floats
CREATE FUNCTION ws_i(n int, VARIADIC v bigint[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(ws_le(x, n), ''::bytea ORDER BY o) FROM unnest(v) WITH ORDINALITY u(x, o) $$;
CREATE FUNCTION ws_u8(VARIADIC v bigint[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT ws_i(1, VARIADIC v) $$;
CREATE FUNCTION ws_f4(VARIADIC v float4[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg((SELECT string_agg(substr(float4send(x), 5 - i, 1), ''::bytea ORDER BY i)
					   FROM generate_series(1, 4) i), ''::bytea ORDER BY o)
	FROM unnest(v) WITH ORDINALITY u(x, o) $$;
-- the labels of a one-band unsigned result (8BUI, 16BUI, 32BUI), one text row per raster row
CREATE FUNCTION ws_rows(r bytea) RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	w int := get_byte(r, 57) + 256 * get_byte(r, 58);
	h int := get_byte(r, 59) + 256 * get_byte(r, 60);
	sz int := ws_size(get_byte(r, 61) & 15);
	pos int := 62 + sz;
	line text; v bigint;
BEGIN
	FOR y IN 0 .. h - 1 LOOP
		line := '';
		FOR x IN 0 .. w - 1 LOOP
			v := 0;
			FOR k IN REVERSE sz - 1 .. 0 LOOP
				v := v * 256 + get_byte(r, pos + (y * w + x) * sz + k);
			END LOOP;
			line := line || CASE WHEN x > 0 THEN ' ' ELSE '' END || v;
		END LOOP;
		RETURN NEXT line;
	END LOOP;
END $$;

-- marker-less: every regional minimum is a basin, numbered in row-major
-- order; the 5 between them goes to the steeper side (the 2 beats the 4)
SELECT ws_rows(pb_watershed(ws_r(7, 1, 4, ws_u8(3, 1, 2, 5, 4, 0, 4))));
-- with watershed lines: of two touching basins the pixel flooded later gives way
SELECT ws_rows(pb_watershed(ws_r(7, 1, 4, ws_u8(3, 1, 2, 5, 4, 0, 4)), watershed_line => true));
-- steepest descent first: the 5 drains into the 0, not the 1 on its left
SELECT ws_rows(pb_watershed(ws_r(3, 1, 4, ws_u8(1, 5, 0))));
-- then the nearest: the 5 has two lower neighbours of height 2; the right
-- one borders the 0 directly, the left one is a step further from the 0 on the far left
SELECT ws_rows(pb_watershed(ws_r(6, 1, 4, ws_u8(0, 2, 2, 5, 2, 0))));
-- a plateau is split by the distance to its lower border: even width
-- halves, with lines the later (right) half gives up its first pixel
SELECT l, ws_rows(pb_watershed(ws_r(6, 1, 4, ws_u8(0, 5, 5, 5, 5, 0)), watershed_line => l))
FROM (VALUES (false), (true)) v(l);
-- odd width: the middle pixel is equally far from both sides; the
-- neighbour order (up, left, right, down, ...) sends it left; with lines it
-- is the line (its right neighbour was flooded first)
SELECT l, ws_rows(pb_watershed(ws_r(5, 1, 4, ws_u8(0, 5, 5, 5, 0)), watershed_line => l))
FROM (VALUES (false), (true)) v(l);
-- the same plateau upright: up comes first in the order
SELECT ws_rows(pb_watershed(ws_r(1, 5, 4, ws_u8(0, 5, 5, 5, 0))));
-- a constant image is one minimum: one basin (lines change nothing)
SELECT l, ws_rows(pb_watershed(ws_r(3, 2, 4, ws_u8(7, 7, 7, 7, 7, 7)), watershed_line => l))
FROM (VALUES (false), (true)) v(l);
-- 4- against 8-connectivity: diagonal zeros are two minima or one
SELECT c, ws_rows(pb_watershed(ws_r(2, 2, 4, ws_u8(0, 9, 9, 0)), NULL, c))
FROM (VALUES (4), (8)) v(c);
-- a 4 x 3 image: the 3 at column 3, row 2 drains diagonally into the
-- corner 0 only with 8-connectivity; with 4 its up neighbour (2) comes first
SELECT c, ws_rows(pb_watershed(ws_r(4, 3, 4, ws_u8(0, 1, 2, 3,
												   1, 2, 3, 2,
												   2, 3, 2, 0)), NULL, c))
FROM (VALUES (4), (8)) v(c);
SELECT ws_rows(pb_watershed(ws_r(4, 3, 4, ws_u8(0, 1, 2, 3,
												 1, 2, 3, 2,
												 2, 3, 2, 0)), watershed_line => true));

-- 1BB, 16BUI and 32BF heights
SELECT ws_rows(pb_watershed(ws_r(5, 1, 0, ws_u8(1, 0, 1, 1, 0))));
SELECT ws_rows(pb_watershed(ws_r(5, 1, 6, ws_i(2, 300, 1000, 200, 40000, 100))));
SELECT ws_rows(pb_watershed(ws_r(6, 1, 10, ws_f4(-1.5, 'Infinity', 'NaN', 0.5, -0.0, 3))));
-- NaN is a wall, not a minimum: both sides are minima of their own
SELECT ws_rows(pb_watershed(ws_r(3, 1, 10, ws_f4(5, 'NaN', 7))));
-- image nodata pixels are walls too (here the 9)
SELECT nd, ws_rows(pb_watershed(ws_r(3, 1, 4, ws_u8(0, 9, 0), nd, '\x09')))
FROM (VALUES (0), (64)) v(nd);
-- band picks the image band
SELECT ws_rows(pb_watershed(ws_rast(3, 1, ARRAY[ws_band(4, ws_u8(0, 9, 0)),
											   ws_band(4, ws_u8(9, 0, 9))]), band => 2));

-- a mask: pixels outside (zero, nodata or NaN; any pixel type) are walls with label 0
SELECT ws_rows(pb_watershed(ws_r(5, 1, 4, ws_u8(0, 5, 3, 5, 0))));
SELECT ws_rows(pb_watershed(ws_r(5, 1, 4, ws_u8(0, 5, 3, 5, 0)),
							mask => ws_r(5, 1, 4, ws_u8(1, 1, 0, 1, 1))));
SELECT ws_rows(pb_watershed(ws_r(5, 1, 4, ws_u8(0, 5, 3, 5, 0)),
							mask => ws_r(5, 1, 4, ws_u8(1, 7, 1, 1, 1), 64, '\x07')));
SELECT ws_rows(pb_watershed(ws_r(5, 1, 4, ws_u8(0, 5, 3, 5, 0)),
							mask => ws_r(5, 1, 10, ws_f4(1, 0.5, 'NaN', -2, 1))));

-- marker-controlled: only the markers' labels spread; the local minimum
-- (3) is flooded from the left (equally far from both markers: left
-- first); past the NaN wall no marker reaches: 0
SELECT l, ws_rows(pb_watershed(ws_r(7, 1, 10, ws_f4(0, 5, 3, 5, 0, 'NaN', 4)),
							   ws_r(7, 1, 4, ws_u8(2, 0, 0, 0, 7, 0, 0)), watershed_line => l))
FROM (VALUES (false), (true)) v(l);
-- nodata marker pixels are no markers (here the 2): the 7 takes everything
SELECT ws_rows(pb_watershed(ws_r(5, 1, 4, ws_u8(0, 5, 3, 5, 0)),
							ws_r(5, 1, 4, ws_u8(2, 0, 0, 0, 7), 64, '\x02')));
-- a marker on a wall seeds nothing
SELECT ws_rows(pb_watershed(ws_r(3, 1, 10, ws_f4(0, 'NaN', 0)), ws_r(3, 1, 4, ws_u8(0, 4, 0))));
-- signed and wide marker types; labels keep their value
SELECT ws_rows(pb_watershed(ws_r(3, 1, 4, ws_u8(0, 9, 0)), ws_r(3, 1, 3, ws_i(1, 0, 0, 127))));
SELECT ws_rows(pb_watershed(ws_r(3, 1, 4, ws_u8(0, 9, 0)), ws_r(3, 1, 8, ws_i(4, 4000000000, 0, 5))));
SELECT ws_rows(pb_watershed(ws_r(3, 1, 4, ws_u8(0, 9, 0)), ws_r(3, 1, 7, ws_i(4, 0, 0, 70000)),
							mask => ws_r(3, 1, 6, ws_i(2, 0, 1, 1))));

-- label types: 16BUI and 8BUI (any case); the result has nodata 0
SELECT t, get_byte(r, 61) AS band_flags, length(r) AS bytes, ws_rows(r)
FROM (SELECT t, pb_watershed(ws_r(3, 1, 4, ws_u8(0, 9, 0)), label_type => t) AS r
	  FROM (VALUES ('32BUI'), ('16BUI'), ('8bui')) v(t)) s;
-- 300 minima fit 16BUI, not 8BUI; marker labels too
SELECT max(x::int) AS basins
FROM ws_rows(pb_watershed(ws_r(600, 1, 4, decode(repeat('0001', 300), 'hex')), label_type => '16BUI')) r,
	 regexp_split_to_table(r, ' ') x;
SELECT pb_watershed(ws_r(600, 1, 4, decode(repeat('0001', 300), 'hex')), label_type => '8BUI');
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(0, 1)), ws_r(2, 1, 8, ws_i(4, 70000, 0)), label_type => '16BUI');
-- the result keeps the image's georeference and SRID (header bytes)
SELECT substr(pb_watershed(ws_r(2, 1, 4, ws_u8(1, 0), 0, NULL, 3857, 12.5),
						   ws_r(2, 1, 4, ws_u8(0, 3), 0, NULL, 3857, 12.5)), 1, 61)
	 = substr(ws_r(2, 1, 4, ws_u8(1, 0), 0, NULL, 3857, 12.5), 1, 61) AS same_header;
-- NULL image, NULL option: NULL; NULL markers or mask: none
SELECT pb_watershed(NULL::bytea) IS NULL AS null_image,
	   pb_watershed(ws_r(1, 1, 4, ws_u8(0)), connectivity => NULL) IS NULL AS null_connectivity,
	   pb_watershed(ws_r(2, 1, 4, ws_u8(0, 1)), NULL, 8, NULL)
	   = pb_watershed(ws_r(2, 1, 4, ws_u8(0, 1))) AS null_markers_mask;

-- the same labels on 1 and on 4 threads, over many tiles (a 600 x 400
-- image of pseudo-random heights with plateaus, and markers)
SET pixelbox.device = cpu;
CREATE TABLE ws_gen AS
SELECT ws_r(600, 400, 4, decode(string_agg(lpad(to_hex((i * 7919 + i / 600 * 31) % 97 / 8), 2, '0'), '' ORDER BY i), 'hex')) AS image,
	   ws_r(600, 400, 6, decode(string_agg(CASE WHEN i % 1201 = 0 THEN lpad(to_hex(i / 1201 % 65536), 4, '0') ELSE '0000' END, '' ORDER BY i), 'hex')) AS markers
FROM generate_series(0, 600 * 400 - 1) i;
SET pixelbox.cpu_threads = 1;
CREATE TABLE ws_threads AS
SELECT 1 AS threads, md5(pb_watershed(image)) AS free,
	   md5(pb_watershed(image, watershed_line => true)) AS lines,
	   md5(pb_watershed(image, markers, 4)) AS marked
FROM ws_gen;
SET pixelbox.cpu_threads = 4;
INSERT INTO ws_threads
SELECT 4, md5(pb_watershed(image)), md5(pb_watershed(image, watershed_line => true)),
	   md5(pb_watershed(image, markers, 4))
FROM ws_gen;
SELECT count(DISTINCT free) AS free, count(DISTINCT lines) AS lines, count(DISTINCT marked) AS marked
FROM ws_threads;
RESET pixelbox.cpu_threads;

-- the GPU path failing (injected) gives one WARNING and the same answer
SET pixelbox.device = auto;
SET pixelbox.gpu_fault = open;
SELECT ws_rows(pb_watershed(ws_r(5, 1, 4, ws_u8(0, 5, 5, 5, 0))));
RESET pixelbox.gpu_fault;

-- a cancel (here statement_timeout) stops a long watershed promptly
SET pixelbox.device = cpu;
SET pixelbox.cpu_threads = 1;
CREATE TABLE ws_big AS SELECT ws_r(3000, 3000, 4, decode(repeat('0105', 4500000), 'hex')) AS r;
SET statement_timeout = '20ms';
SELECT length(pb_watershed(r)) FROM ws_big;
RESET statement_timeout;
RESET pixelbox.cpu_threads;
RESET pixelbox.device;

-- bad input: the raster WKB
SELECT pb_watershed(substr(ws_r(2, 1, 4, ws_u8(1, 1)), 1, 63));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_r(2, 1, 4, ws_u8(1, 1)) || '\x00'::bytea);
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), mask => set_byte(ws_r(2, 1, 4, ws_u8(1, 1)), 1, 1));
SELECT pb_watershed(ws_r(0, 0, 4, ''::bytea));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), band => 2);
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_rast(2, 1, '{}'));
-- out-of-db bands (band number 1, a path)
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1) || '/x.tif'::bytea || '\x00'::bytea, 128));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_r(2, 1, 4, ws_u8(1) || '/m.tif'::bytea || '\x00'::bytea, 128));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), mask => ws_r(2, 1, 4, ws_u8(1) || '/k.tif'::bytea || '\x00'::bytea, 128));
-- pixel types
SELECT pb_watershed(ws_r(2, 1, 7, ws_i(4, 1, 1)));
SELECT pb_watershed(ws_r(2, 1, 11, ws_i(8, 0, 0), 0, ws_i(8, 0)));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_r(2, 1, 10, ws_f4(1, 0)));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_r(2, 1, 11, ws_i(8, 0, 0), 0, ws_i(8, 0)));
-- a negative marker, with where it is
SELECT pb_watershed(ws_r(3, 2, 4, ws_u8(1, 1, 1, 1, 1, 1)), ws_r(3, 2, 5, ws_i(2, 0, 4, 0, 0, 0, -3)));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_r(2, 1, 3, ws_i(1, -1, 0)));
-- markers and mask on another grid
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_r(3, 1, 4, ws_u8(1, 0, 0)));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), mask => ws_r(1, 2, 4, ws_u8(1, 1)));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), ws_r(2, 1, 4, ws_u8(1, 0), 0, NULL, 0, 0.5));
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1), 0, NULL, 4326), mask => ws_r(2, 1, 4, ws_u8(1, 1), 0, NULL, 3857));
-- options
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), connectivity => 6);
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), label_type => '64BUI');
SELECT pb_watershed(ws_r(2, 1, 4, ws_u8(1, 1)), label_type => '32BSI');
