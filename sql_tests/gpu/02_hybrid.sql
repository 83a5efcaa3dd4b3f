-- pixelbox.device = hybrid (GPU schedule): reconstruction on the CPU threads
-- and the GPU together gives the CPU's answer, byte for byte, on a maze whose
-- flood crosses the 512-pixel cells again and again, single values and
-- coverages, and so does the distance transform, and the watershed on the
-- GPUs' tiles; pb_raster_report shows what each device ran.  A small
-- gpu_memory makes the images too large for the GPU alone (hybrid runs them
-- there whole when they fit, as the last query shows).  pixelbox.gpus = 1
-- (the first GPU) until every GPU of the machine runs the maze together.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE;
RESET client_min_messages;
CREATE FUNCTION h_le(v bigint, n int) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::int), ''::bytea ORDER BY i)
	FROM generate_series(0, n - 1) i $$;
CREATE FUNCTION h_f8(v float8) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(substr(float8send(v), 9 - i, 1), ''::bytea ORDER BY i)
	FROM generate_series(1, 8) i $$;
-- an 8BUI raster WKB of w x h pixels at upper-left (x0, y0)
CREATE FUNCTION h_rast(w int, h int, pixels bytea, x0 float8 DEFAULT 0, y0 float8 DEFAULT 0)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
	SELECT '\x01'::bytea || h_le(0, 2) || h_le(1, 2) || h_f8(1) || h_f8(-1) || h_f8(x0)
		|| h_f8(y0) || h_f8(0) || h_f8(0) || h_le(0, 4) || h_le(w, 2) || h_le(h, 2)
		|| '\x0400'::bytea || pixels $$;
-- a serpentine maze of 2500 x 1300: a wall every 64th row, its gap at the
-- right and left ends in turn; corridors 200; the marker 150 at (0, 0)
CREATE TABLE maze AS
SELECT h_rast(2500, 1300, string_agg(CASE WHEN y % 64 <> 63 THEN decode(repeat('c8', 2500), 'hex')
										  WHEN (y / 64) % 2 = 0 THEN decode(repeat('00', 2499) || 'c8', 'hex')
										  ELSE decode('c8' || repeat('00', 2499), 'hex') END,
									 ''::bytea ORDER BY y)) AS mask,
	   h_rast(2500, 1300, decode('96' || repeat('00', 2500 * 1300 - 1), 'hex')) AS marker
FROM generate_series(0, 1299) y;
SET pixelbox.cpu_threads = 4;
SET pixelbox.device = cpu;
CREATE TABLE want AS
SELECT md5(pb_reconstruct(marker, mask)) AS recon, md5(pb_reconstruct(marker, mask, 4)) AS recon4,
	   md5(pb_fill_holes(mask, 8)) AS filled, md5(pb_distance_transform(mask)) AS dist,
	   md5(pb_distance_transform(mask, 1, ARRAY[2.5, 0.5], true)) AS dist_index,
	   md5(pb_watershed(mask, NULL, 8, NULL, true)) AS ws,
	   md5(pb_watershed(mask, marker, 4, mask)) AS ws_marker FROM maze;
SET pixelbox.device = hybrid;
SET pixelbox.gpu_memory = '16MB';
SET pixelbox.gpus = 1;
-- opened ahead of the work: one GPU under pixelbox.gpus = 1
SELECT pb_gpu_warm() AS warmed_one;
SELECT md5(pb_reconstruct(marker, mask)) = (SELECT recon FROM want) AS same_8,
	   md5(pb_reconstruct(marker, mask, 4)) = (SELECT recon4 FROM want) AS same_4,
	   md5(pb_fill_holes(mask, 8)) = (SELECT filled FROM want) AS same_filled
FROM maze;
-- the last reconstruction's account: both devices ran cells, every cell ran
SELECT stage, device, tiles > 0 AS ran FROM pb_raster_report()
WHERE stage IN ('compute', 'busy', 'cells') ORDER BY stage, device;
SELECT (SELECT sum(tiles) FROM pb_raster_report() WHERE stage = 'busy')
	   >= (SELECT tiles FROM pb_raster_report() WHERE stage = 'cells') AS every_cell_ran;
-- distance transforms: the GPU's strips and the CPU threads' ranges of
-- columns, then of rows, give the CPU's distances (and nearest pixels);
-- the CPU side runs 8 threads fewer than cpu_threads (the GPU's copies')
SET pixelbox.cpu_threads = 12;
SELECT md5(pb_distance_transform(mask)) = (SELECT dist FROM want) AS same_dist,
	   md5(pb_distance_transform(mask, 1, ARRAY[2.5, 0.5], true)) = (SELECT dist_index FROM want)
	   AS same_dist_index
FROM maze;
SELECT stage, device, tiles > 0 AS ran FROM pb_raster_report()
WHERE stage IN ('compute', 'busy') ORDER BY stage, device;
SET pixelbox.cpu_threads = 4;
-- watersheds: the CPU threads' tiles and the GPU's blocks of them,
-- marker-less with lines, and flooded from the marker through the whole maze
SELECT md5(pb_watershed(mask, NULL, 8, NULL, true)) = (SELECT ws FROM want) AS same_ws,
	   md5(pb_watershed(mask, marker, 4, mask)) = (SELECT ws_marker FROM want) AS same_ws_marker
FROM maze;
SELECT stage, device, tiles > 0 AS ran FROM pb_raster_report()
WHERE stage IN ('compute', 'busy') ORDER BY stage, device;
-- the phases of the last call, marker-controlled: no minima to number
SELECT device AS phase, seconds > 0 AS timed FROM pb_raster_report()
WHERE stage = 'phase' ORDER BY device;
-- a GPU that fails its blocks mid-run (injected): one WARNING, the CPU
-- threads finish, same labels
SET pixelbox.gpu_fault = blocks;
SELECT md5(pb_watershed(mask, marker, 4, mask)) = (SELECT ws_marker FROM want) AS same_ws_marker
FROM maze;
RESET pixelbox.gpu_fault;
-- the flood reached the bottom corridor
SELECT get_byte(pb_reconstruct(marker, mask), 63 + 1299 * 2500 + 1000) AS bottom FROM maze;

-- a coverage of 700 x 500 tiles of the maze, hybrid against cpu
CREATE TABLE tiles AS
SELECT tx, ty, h_rast(w, h, (SELECT string_agg(substr(m.mask, 64 + (ty * 500 + r) * 2500 + tx * 700, w),
											   ''::bytea ORDER BY r)
							 FROM generate_series(0, h - 1) r), tx * 700, -ty * 500) AS rast
FROM maze m, generate_series(0, 3) tx, generate_series(0, 2) ty,
	 LATERAL (SELECT least(700, 2500 - tx * 700) AS w, least(500, 1300 - ty * 500) AS h) s;
SET pixelbox.device = cpu;
CREATE TABLE cov_cpu AS SELECT * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM tiles', 8);
SET pixelbox.device = hybrid;
CREATE TABLE cov_hybrid AS SELECT * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM tiles', 8);
SELECT count(*) AS tiles, count(*) FILTER (WHERE c.rast = h.rast) AS same
FROM cov_cpu c JOIN cov_hybrid h USING (tile_x, tile_y);
SET pixelbox.device = cpu;
CREATE TABLE dist_cpu AS SELECT * FROM pb_coverage_distance_transform_wkb('SELECT rast FROM tiles');
SET pixelbox.device = hybrid;
CREATE TABLE dist_hybrid AS SELECT * FROM pb_coverage_distance_transform_wkb('SELECT rast FROM tiles');
SELECT string_agg(DISTINCT device, ', ') AS devices FROM pb_raster_report() WHERE stage = 'compute';
SELECT count(*) AS tiles, count(*) FILTER (WHERE c.rast = h.rast) AS same
FROM dist_cpu c JOIN dist_hybrid h USING (tile_x, tile_y);
-- every GPU of the machine, one or several (each with a context and a
-- thread of its own): the same answer, and a GPU ran blocks
SET pixelbox.gpus = 0;
-- every GPU opened at once, ahead of the work; a second call finds them open
SELECT pb_gpu_warm() >= 1 AS warmed, pb_gpu_warm() = pb_gpu_warm() AS kept;
SELECT md5(pb_reconstruct(marker, mask)) = (SELECT recon FROM want) AS same_8,
	   md5(pb_fill_holes(mask, 8)) = (SELECT filled FROM want) AS same_filled FROM maze;
SELECT count(*) FILTER (WHERE device LIKE 'gpu%' AND tiles > 0) >= 1 AS a_gpu_ran
FROM pb_raster_report() WHERE stage = 'busy';
SELECT md5(pb_watershed(mask, marker, 4, mask)) = (SELECT ws_marker FROM want) AS same_ws_marker
FROM maze;
SELECT count(*) FILTER (WHERE device LIKE 'gpu%' AND tiles > 0) >= 1 AS a_gpu_ran
FROM pb_raster_report() WHERE stage = 'busy';
CREATE TABLE cov_gpus AS SELECT * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM tiles', 8);
SELECT count(*) AS tiles, count(*) FILTER (WHERE c.rast = h.rast) AS same
FROM cov_cpu c JOIN cov_gpus h USING (tile_x, tile_y);
-- the slide's images in temporary files (pixelbox.host_memory), the GPUs
-- copying their blocks from and to them: the same tiles
SET pixelbox.host_memory = '1MB';
CREATE TABLE cov_mapped AS SELECT * FROM pb_coverage_fill_holes_wkb('SELECT rast FROM tiles', 8);
SELECT stage, tiles > 0 AS mapped FROM pb_raster_report() WHERE stage = 'mapped';
SELECT count(*) AS tiles, count(*) FILTER (WHERE c.rast = h.rast) AS same
FROM cov_cpu c JOIN cov_mapped h USING (tile_x, tile_y);
RESET pixelbox.host_memory;
RESET pixelbox.gpus;
-- pixelbox.device = gpu, the watershed in tiles through the host: the
-- image's keys between tile runs are one of the call's images, within
-- pixelbox.host_memory (past it, in a temporary file: one image more than
-- the same call holding the maze whole on the GPU)
SET pixelbox.device = gpu;
SET pixelbox.host_memory = '1MB';
SELECT md5(pb_watershed(mask, marker, 4, mask)) = (SELECT ws_marker FROM want) AS same_ws_marker
FROM maze;
CREATE TABLE mapped_tiled AS
SELECT (SELECT tiles FROM pb_raster_report() WHERE stage = 'gpu kernels') > 1 AS in_tiles,
	   (SELECT tiles FROM pb_raster_report() WHERE stage = 'mapped') AS mapped;
SET pixelbox.gpu_memory = '1GB';
SELECT md5(pb_watershed(mask, marker, 4, mask)) = (SELECT ws_marker FROM want) AS same_ws_marker
FROM maze;
SELECT in_tiles, mapped - (SELECT tiles FROM pb_raster_report() WHERE stage = 'mapped') AS keys_mapped
FROM mapped_tiled;
SET pixelbox.gpu_memory = '16MB';
RESET pixelbox.host_memory;
SET pixelbox.device = hybrid;
-- with room on the GPU, the maze runs there alone
RESET pixelbox.gpu_memory;
SELECT md5(pb_reconstruct(marker, mask)) = (SELECT recon FROM want) AS same_8 FROM maze;
SELECT string_agg(DISTINCT device, ', ') AS devices FROM pb_raster_report() WHERE stage = 'compute';
RESET pixelbox.device;
RESET pixelbox.cpu_threads;
DROP TABLE maze, want, tiles, cov_cpu, cov_hybrid, cov_gpus, cov_mapped, dist_cpu, dist_hybrid, mapped_tiled;
DROP FUNCTION h_rast(int, int, bytea, float8, float8), h_le(bigint, int), h_f8(float8);
