-- The extension installs with PostGIS pulled in by CASCADE.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE;
RESET client_min_messages;
SELECT extname FROM pg_extension WHERE extname IN ('postgis', 'pixelbox') ORDER BY 1;
-- every function, aggregate and type of the extension has a comment
SELECT p.proname, obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pixelbox'
ORDER BY 1;
SELECT obj_description('pb_comparison'::regtype, 'pg_type') IS NOT NULL AS type_commented;
-- user functions are IMMUTABLE, STRICT and PARALLEL SAFE; aggregates parallel safe
SELECT proname, provolatile, proisstrict, proparallel, prokind
FROM pg_proc WHERE proname IN ('pb_intersection_area', 'pb_union_area', 'pb_jaccard',
                               'jaccard_gpu', 'pb_cross_compare')
ORDER BY 1;
SELECT aggfnoid::regproc, aggcombinefn, aggserialfn, aggdeserialfn
FROM pg_aggregate WHERE aggfnoid::regproc::text IN ('jaccard_gpu', 'pb_cross_compare') ORDER BY 1;
-- the settings and their defaults
SELECT name, setting, unit FROM pg_settings WHERE name LIKE 'pixelbox.%' ORDER BY 1;
