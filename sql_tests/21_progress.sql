-- pb_progress() and pixelbox.progress: the settings and their limits, the
-- columns of the function and of the view, and no rows when nothing runs,
-- also right after a run and after one stopped by a timeout mid-pipeline.
-- Rows seen from a second session during a run, the NOTICE lines, and a
-- cancel are in tests/progress/check_progress.py.  Without pixelbox in
-- shared_preload_libraries pb_progress() raises an error with a hint
-- (the alternative output, expected/21_progress_1.out).  The module is
-- loaded first, so that its settings are defined without the preload too.
LOAD 'pixelbox';
SELECT name, setting, unit, min_val, max_val, context
FROM pg_settings WHERE name LIKE 'pixelbox.progress%' ORDER BY 1;
SET pixelbox.progress_interval = '99ms';
SET pixelbox.progress_interval = '100ms';
SHOW pixelbox.progress_interval;
SET pixelbox.progress_interval = '2min';
SHOW pixelbox.progress_interval;
RESET pixelbox.progress_interval;
SET pixelbox.progress = 'sometimes';
SELECT column_name, data_type FROM information_schema.columns
WHERE table_name = 'pb_progress' ORDER BY ordinal_position;
SELECT pg_get_function_result('pb_progress()'::regprocedure) AS result,
       provolatile, proparallel FROM pg_proc WHERE oid = 'pb_progress()'::regprocedure;
SELECT has_table_privilege('public', 'pb_progress', 'SELECT') AS public_may_read;
-- nothing runs: no rows
SELECT count(*) FROM pb_progress();
-- 400 squares per set, set b shifted by half a side: each b overlaps one a (400 pairs)
CREATE TABLE progress_cells AS
SELECT s = 0 AS in_a, ST_MakeEnvelope(20 * i + 5 * s, 20 * j + 5 * s, 20 * i + 5 * s + 10, 20 * j + 5 * s + 10) AS geom
FROM generate_series(0, 19) i, generate_series(0, 19) j, generate_series(0, 1) s;
-- a whole run (pixelbox.progress on: a NOTICE only after 10 s, none here)
SET pixelbox.progress = on;
SELECT (pb_compare_sets(geom, in_a)).pairs_intersecting FROM progress_cells;
SELECT count(*) FROM pb_progress;
-- a run stopped by statement_timeout mid-pipeline (filter slowed to 5 ms a
-- one-polygon tile, no migration): its row goes with it
SET pixelbox.pipeline_throttle = filter;
SET pixelbox.migration = off;
SET pixelbox.tile_shapes = 1;
SET pixelbox.cpu_threads = 2;
SET statement_timeout = '300ms';
SELECT (pb_compare_sets(geom, in_a)).pairs_intersecting FROM progress_cells;
RESET statement_timeout;
RESET pixelbox.pipeline_throttle;
RESET pixelbox.migration;
RESET pixelbox.tile_shapes;
RESET pixelbox.cpu_threads;
RESET pixelbox.progress;
SELECT count(*) FROM pb_progress;
DROP TABLE progress_cells;
