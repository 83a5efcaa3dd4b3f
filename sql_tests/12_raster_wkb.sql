-- Raster operations on raster WKB (no postgis_raster needed): small known
-- results, nodata walls, clipping, and every error with its message.
-- Helpers build NDR raster WKB by hand and read pixels back.
CREATE FUNCTION t_le(v bigint, n int) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::int), ''::bytea ORDER BY i)
	FROM generate_series(0, n - 1) i $$;
CREATE FUNCTION t_f8(v float8) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(substr(float8send(v), 9 - i, 1), ''::bytea ORDER BY i)
	FROM generate_series(1, 8) i $$;
-- a one-band raster: size, pixel type code, pixel bytes, flags (0x40: nodata
-- value given), nodata bytes, SRID, upper-left x
CREATE FUNCTION t_rast(w int, h int, pixtype int, pixels bytea, flags int DEFAULT 0,
					   nodata bytea DEFAULT NULL, srid int DEFAULT 0, ulx float8 DEFAULT 0,
					   nbands int DEFAULT 1) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT '\x01'::bytea || t_le(0, 2) || t_le(nbands, 2) || t_f8(1) || t_f8(-1) || t_f8(ulx)
		|| t_f8(0) || t_f8(0) || t_f8(0) || t_le(srid, 4) || t_le(w, 2) || t_le(h, 2)
		|| CASE WHEN nbands = 0 THEN ''::bytea ELSE
		   set_byte('\x00'::bytea, 0, pixtype | flags)
		   || coalesce(nodata, substr('\x0000000000000000'::bytea, 1,
					   CASE WHEN pixtype = 6 THEN 2 WHEN pixtype IN (7, 10) THEN 4 ELSE 1 END))
		   || pixels END $$;
CREATE FUNCTION t_u8(VARIADIC v int[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(t_le(x, 1), ''::bytea ORDER BY o) FROM unnest(v) WITH ORDINALITY u(x, o) $$;
CREATE FUNCTION t_f4(VARIADIC v float4[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(string_agg_rev, ''::bytea ORDER BY o) FROM (
		SELECT o, (SELECT string_agg(substr(float4send(x), 5 - i, 1), ''::bytea ORDER BY i)
				   FROM generate_series(1, 4) i) AS string_agg_rev
		FROM unnest(v) WITH ORDINALITY u(x, o)) s $$;
-- pixels of band b of an NDR raster WKB, as float8 (8BUI, 1BB, 16BUI, 32BSI, 32BF)
CREATE FUNCTION t_pixels(r bytea, b int DEFAULT 1) RETURNS float8[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	w int := get_byte(r, 57) + 256 * get_byte(r, 58);
	h int := get_byte(r, 59) + 256 * get_byte(r, 60);
	pos int := 61;
	t int; sz int; out float8[] := '{}'; v bigint;
BEGIN
	FOR band IN 1..b LOOP
		t := get_byte(r, pos) & 15;
		sz := CASE WHEN t = 6 THEN 2 WHEN t IN (7, 10) THEN 4 ELSE 1 END;
		pos := pos + 1 + sz;
		IF band < b THEN pos := pos + sz * w * h; END IF;
	END LOOP;
	FOR i IN 0 .. w * h - 1 LOOP
		v := 0;
		FOR k IN REVERSE sz - 1 .. 0 LOOP v := v * 256 + get_byte(r, pos + i * sz + k); END LOOP;
		out := out || CASE
			WHEN t = 10 THEN float4recv_le(v)
			WHEN t = 7 AND v >= 2147483648 THEN (v - 4294967296)::float8
			ELSE v::float8 END;
	END LOOP;
	RETURN out;
END $$;
CREATE FUNCTION float4recv_le(v bigint) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN (v & 2139095040) = 2139095040 THEN
				CASE WHEN (v & 8388607) <> 0 THEN 'NaN'::float8
					 WHEN v >= 2147483648 THEN '-Infinity' ELSE 'Infinity' END
			ELSE (CASE WHEN v >= 2147483648 THEN -1 ELSE 1 END)
				 * CASE WHEN (v >> 23) & 255 = 0 THEN (v & 8388607) * 2::float8 ^ -149
						ELSE (8388608 + (v & 8388607)) * 2::float8 ^ (((v >> 23) & 255) - 150) END
			END $$;

-- reconstruction by dilation along a row: 7 floods the plateau it sits on
SELECT t_pixels(pb_reconstruct(t_rast(7, 1, 4, t_u8(0, 7, 0, 0, 0, 0, 0)),
							   t_rast(7, 1, 4, t_u8(3, 9, 8, 2, 9, 9, 1))));
-- 4- against 8-connectivity: a diagonal step only the 8-neighbourhood takes
SELECT c, t_pixels(pb_reconstruct(t_rast(2, 2, 4, t_u8(5, 0, 0, 0)),
								  t_rast(2, 2, 4, t_u8(5, 0, 0, 5)), c))
FROM (VALUES (4), (8)) v(c);
-- by erosion: the marker comes down to the mask where connected
SELECT t_pixels(pb_reconstruct(t_rast(5, 1, 4, t_u8(9, 9, 1, 9, 9)),
							   t_rast(5, 1, 4, t_u8(2, 3, 1, 8, 0)), 8, 'erosion'));
-- a marker above the mask is clipped to it first (MATLAB's rule)
SELECT t_pixels(pb_reconstruct(t_rast(3, 1, 4, t_u8(9, 0, 0)), t_rast(3, 1, 4, t_u8(5, 5, 5))));
-- 16BUI and 32BF
SELECT t_pixels(pb_reconstruct(t_rast(4, 1, 6, t_le(1000, 2) || t_le(0, 2) || t_le(0, 2) || t_le(0, 2)),
							   t_rast(4, 1, 6, t_le(40000, 2) || t_le(2000, 2) || t_le(1500, 2) || t_le(60000, 2))));
SELECT t_pixels(pb_reconstruct(t_rast(4, 1, 10, t_f4(-1.5, '-Infinity', -100, -100)),
							   t_rast(4, 1, 10, t_f4(2.25, -0.5, 'Infinity', -3))));
-- nodata in the mask is a wall and stays nodata (value and flag kept)
SELECT t_pixels(r), get_byte(r, 61) & 64 AS has_nodata, get_byte(r, 62) AS nodata
FROM (SELECT pb_reconstruct(t_rast(5, 1, 4, t_u8(5, 0, 0, 0, 0)),
							t_rast(5, 1, 4, t_u8(5, 5, 99, 5, 5), 64, '\x63')) AS r) s;
-- NaN in a 32BF mask is a wall too
SELECT t_pixels(pb_reconstruct(t_rast(4, 1, 10, t_f4(4, 0, 0, 0)),
							   t_rast(4, 1, 10, t_f4(4, 4, 'NaN', 4))));
-- nodata in the marker seeds nothing
SELECT t_pixels(pb_reconstruct(t_rast(3, 1, 4, t_u8(7, 0, 0), 64, '\x07'),
							   t_rast(3, 1, 4, t_u8(7, 7, 7))));
-- the result keeps the marker's georeference and SRID (header bytes)
SELECT substr(pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0), 0, NULL, 3857, 12.5),
							 t_rast(2, 1, 4, t_u8(1, 1), 0, NULL, 3857, 12.5)), 1, 61)
	 = substr(t_rast(2, 1, 4, t_u8(1, 0), 0, NULL, 3857, 12.5), 1, 61) AS same_header;

-- fill holes: the enclosed dark pixel rises, the one touching the border stays
SELECT t_pixels(pb_fill_holes(t_rast(5, 4, 4, t_u8(5, 5, 5, 5, 5,
												   5, 1, 5, 0, 5,
												   5, 5, 5, 0, 5,
												   5, 5, 5, 5, 0))));
-- a binary (1BB) hole reached only diagonally: filled with 4-connectivity, not 8
SELECT c, t_pixels(pb_fill_holes(t_rast(4, 4, 0, t_u8(1, 1, 1, 1,
													   1, 0, 1, 1,
													   1, 1, 0, 1,
													   1, 1, 1, 0)), c))
FROM (VALUES (4), (8)) v(c);

-- distance transform: exact distances, the nearest background pixel's column and row
SELECT t_pixels(r, 1) AS distance, t_pixels(r, 2) AS col, t_pixels(r, 3) AS row
FROM (SELECT pb_distance_transform(t_rast(4, 3, 4, t_u8(1, 1, 1, 1,
														  1, 1, 1, 1,
														  0, 1, 1, 1)), 1, NULL, true) AS r) s;
-- with spacing {row step, column step}
SELECT t_pixels(pb_distance_transform(t_rast(3, 2, 0, t_u8(0, 1, 1, 1, 1, 1)), 1, '{2, 0.5}'));
-- nodata pixels are background
SELECT t_pixels(pb_distance_transform(t_rast(3, 1, 4, t_u8(9, 9, 9), 64, '\x09')));
-- spacing whose squares overflow a double: background pixels 0 (as SciPy
-- gives, not sqrt(0 * inf)), distances along the small step exact (the
-- nearest in the row, past two rows' pixels 1e200 away), the others past
-- the float range
SELECT t_pixels(pb_distance_transform(t_rast(3, 3, 0, t_u8(0, 1, 1,
														  1, 0, 1,
														  1, 1, 0)), 1, '{1e300, 1e300}'));
SELECT t_pixels(pb_distance_transform(t_rast(6, 3, 4, t_u8(0, 1, 1, 1, 1, 1,
														  1, 0, 1, 1, 1, 1,
														  1, 1, 1, 1, 1, 0)), 1, '{1e200, 1}'));
SELECT t_pixels(pb_distance_transform(t_rast(2, 2, 4, t_u8(1, 1, 1, 0)), 1, '{1e200, 1}'));
-- no background at all
SELECT t_pixels(r, 1) AS distance, t_pixels(r, 2) AS col
FROM (SELECT pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 1)), 1, NULL, true) AS r) s;
SELECT pb_distance_transform(NULL) IS NULL AS null_in_null_out;

-- the GPU path failing (injected) gives one WARNING and the same answer
SET pixelbox.device = auto;
SET pixelbox.gpu_fault = open;
SELECT t_pixels(pb_reconstruct(t_rast(3, 1, 4, t_u8(4, 0, 0)), t_rast(3, 1, 4, t_u8(4, 4, 4))));
SELECT t_pixels(pb_distance_transform(t_rast(3, 1, 4, t_u8(0, 1, 1))));
RESET pixelbox.gpu_fault;
RESET pixelbox.device;

-- a cancel (here statement_timeout) stops a long operation promptly: the
-- threads poll between tiles and chunks
SET pixelbox.device = cpu;
SET pixelbox.cpu_threads = 1;
CREATE TABLE big AS SELECT t_rast(3000, 3000, 4, decode(repeat('0105', 4500000), 'hex')) AS r;
SET statement_timeout = '20ms';
SELECT length(pb_fill_holes(r)) FROM big;
SELECT length(pb_distance_transform(r)) FROM big;
RESET statement_timeout;
RESET pixelbox.cpu_threads;
RESET pixelbox.device;

-- a result over 1 GB is refused from the input's header, before any work:
-- a 9460 x 9460 8BUI mask (89 MB) whose distances with the nearest pixel's
-- bands take 12 bytes a pixel, 1.07 GB.  One thread and a 2 s timeout: it
-- used to compute everything (2 GB) first.
CREATE TABLE huge_result AS SELECT t_rast(9460, 9460, 4, repeat(chr(1), 9460 * 9460)::bytea) AS r;
SET pixelbox.device = cpu;
SET pixelbox.cpu_threads = 1;
SET statement_timeout = '2s';
SELECT length(pb_distance_transform(r, 1, NULL, true)) FROM huge_result;
RESET statement_timeout;
RESET pixelbox.cpu_threads;
RESET pixelbox.device;
DROP TABLE huge_result;

-- bad input
SELECT pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0)), t_rast(2, 1, 4, t_u8(1, 1)), 6);
SELECT pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0)), t_rast(2, 1, 4, t_u8(1, 1)), 8, 'opening');
SELECT pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0)), t_rast(3, 1, 4, t_u8(1, 1, 1)));
SELECT pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0), 0, NULL, 4326), t_rast(2, 1, 4, t_u8(1, 1), 0, NULL, 3857));
SELECT pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0), 0, NULL, 0, 0.5), t_rast(2, 1, 4, t_u8(1, 1)));
SELECT pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0)), t_rast(2, 1, 6, t_le(1, 2) || t_le(1, 2)));
SELECT pb_reconstruct(t_rast(2, 1, 4, t_u8(1, 0)), t_rast(2, 1, 4, t_u8(1, 1)), 8, 'dilation', 2);
SELECT pb_reconstruct(t_rast(1, 1, 7, t_le(1, 4)), t_rast(1, 1, 7, t_le(1, 4)));
SELECT pb_fill_holes(t_rast(0, 0, 4, ''::bytea));
SELECT pb_fill_holes(t_rast(2, 2, 4, ''::bytea, 0, NULL, 0, 0, 0));
SELECT pb_fill_holes(substr(t_rast(2, 1, 4, t_u8(1, 1)), 1, 63));
SELECT pb_fill_holes(t_rast(2, 1, 4, t_u8(1, 1)) || '\x00'::bytea);
SELECT pb_fill_holes(set_byte(t_rast(2, 1, 4, t_u8(1, 1)), 1, 1));
SELECT pb_fill_holes('\x02'::bytea || substr(t_rast(2, 1, 4, t_u8(1, 1)), 2));
SELECT pb_fill_holes(t_rast(2, 1, 4, t_u8(1) || '/x.tif'::bytea || '\x00'::bytea, 128));
SELECT pb_fill_holes(t_rast(2, 1, 9, t_u8(1, 1)));
-- a 1BB pixel is 0 or 1 (PostGIS refuses 108 too)
SELECT pb_fill_holes(t_rast(2, 1, 0, t_u8(1, 108)));
SELECT pb_fill_holes(t_rast(2, 1, 4, t_u8(1, 1)), 0);
SELECT pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 1)), 1, '{1}');
SELECT pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 1)), 1, '{0, 1}');
SELECT pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 1)), 1, '{1, -2}');
SELECT pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 1)), 1, '{1, NaN}');
SELECT pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 1)), 1, '{Infinity, 1}');
SELECT pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 1)), 1, '{1, NULL}');
SELECT pb_distance_transform(t_rast(2, 1, 11, t_le(0, 8) || t_le(0, 8), 0, t_le(0, 8)));

-- pb_raster_report: the stages of the last raster call, in order, each
-- with its time; the compute stage names its device; nothing after a
-- call that failed
SELECT pb_fill_holes(t_rast(3, 3, 4, t_u8(1, 1, 1, 1, 0, 1, 1, 1, 1))) IS NOT NULL AS ok;
SELECT operation, stage, device IS NOT NULL AS on_a_device, seconds >= 0 AS timed
FROM pb_raster_report() WHERE stage NOT LIKE 'gpu %';
SELECT (SELECT seconds FROM pb_raster_report() WHERE stage = 'total')
       >= (SELECT max(seconds) FROM pb_raster_report() WHERE stage <> 'total') AS total_covers;
SELECT length(pb_watershed(t_rast(2, 1, 4, t_u8(3, 1)), t_rast(2, 1, 4, t_u8(0, 1)))) > 0 AS ok;
SELECT string_agg(stage, ', ') AS stages FROM pb_raster_report() WHERE stage NOT LIKE 'gpu %';
SELECT length(pb_distance_transform(t_rast(2, 1, 4, t_u8(1, 0)), 1, NULL, true)) > 0 AS ok;
SELECT string_agg(stage, ', ') AS stages FROM pb_raster_report() WHERE stage NOT LIKE 'gpu %';
SELECT pb_fill_holes(t_rast(2, 1, 9, t_u8(1, 1)));
SELECT count(*) AS rows_after_an_error FROM pb_raster_report();
