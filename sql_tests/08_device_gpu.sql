-- pixelbox.device = gpu insists on a GPU: without one it is an error
-- (expected/08_device_gpu.out); with one it computes there
-- (expected/08_device_gpu_1.out).  Same query, same data.
SET pixelbox.device = gpu;
\set VERBOSITY terse
SELECT jaccard_gpu(a, b) AS j
FROM (VALUES ('POLYGON((0 0,2 0,2 2,0 2,0 0))'::geometry, 'POLYGON((1 0,3 0,3 2,1 2,1 0))'::geometry),
             ('POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POLYGON((0 0,4 0,4 4,0 4,0 0))')) t(a, b);
-- nothing to compute, nothing to refuse
SELECT jaccard_gpu(a, b) AS no_rows FROM (VALUES (NULL::geometry, NULL::geometry)) t(a, b) WHERE false;
-- the raster operations follow the same rule: a 3 x 1 8BUI raster {1, 0, 1}
SELECT encode(pb_fill_holes(decode('0100000100000000000000f03f000000000000f0bf0000000000000000000000000000'
	'00000000000000000000000000000000000000000000030001000400010001', 'hex')), 'hex') AS filled;
-- and the watershed: the 0 is the one minimum, every pixel its basin
SELECT encode(pb_watershed(decode('0100000100000000000000f03f000000000000f0bf0000000000000000000000000000'
	'00000000000000000000000000000000000000000000030001000400010001', 'hex')), 'hex') AS basins;
-- and opening the GPUs ahead of the work
SELECT pb_gpu_warm() AS warmed;
\set VERBOSITY default
RESET pixelbox.device;
