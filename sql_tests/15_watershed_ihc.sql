-- The README's worked example: touching nuclei of scikit-image's IHC image
-- split entirely in SQL (postgis_raster loads, thresholds and traces;
-- pixelbox_raster fills holes, measures distances, finds h-maxima markers
-- and floods), then the nuclei compared with the unsplit components by
-- jaccard_gpu.  scikit-image on the same arrays finds the same 129 nuclei
-- (tests/raster/check_watershed.py checks this pipeline pixel by pixel).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis_raster;
CREATE EXTENSION IF NOT EXISTS pixelbox_raster;
RESET client_min_messages;
SET postgis.gdal_enabled_drivers = 'PNG';
CREATE TABLE ihc AS
SELECT ST_FromGDALRaster(pg_read_binary_file('/usr/lib/python3/dist-packages/skimage/data/ihc.png')) AS rast;
SELECT ST_Width(rast) AS width, ST_Height(rast) AS height, ST_NumBands(rast) AS bands,
	   ST_BandPixelType(rast, 1) AS pixel_type
FROM ihc;
CREATE TABLE ihc_seg AS
WITH nuclei AS MATERIALIZED (		-- hematoxylin-blue pixels, holes filled: 1, else 0
	SELECT pb_fill_holes(ST_SetBandNoDataValue(ST_MapAlgebra(rast, 1, rast, 3,
		'CASE WHEN [rast2.val] - [rast1.val] > 15 THEN 1 ELSE 0 END', '8BUI'), NULL)) AS mask
	FROM ihc),
dist AS MATERIALIZED (				-- distance to the background, and 2 pixels lower
	SELECT mask, dt, ST_MapAlgebra(dt, '32BF', '[rast] - 2') AS dt_h
	FROM (SELECT mask, pb_distance_transform(mask) AS dt FROM nuclei) s),
peaks AS MATERIALIZED (				-- h-maxima: where dt - 2 reconstructed under dt stays
	SELECT mask, dt, ST_MapAlgebra(pb_reconstruct(dt_h, dt), dt_h,
		'CASE WHEN [rast1.val] = [rast2.val] THEN 1 ELSE 0 END', '8BUI') AS peaks
	FROM dist),
markers AS MATERIALIZED (			-- one label per 8-connected peak
	SELECT mask, dt, pb_watershed(peaks, mask => peaks) AS markers FROM peaks)
SELECT mask, pb_watershed(mask, mask => mask) AS components, markers,
	   pb_watershed(ST_MapAlgebra(dt, '32BF', '-[rast]'), markers, mask => mask) AS labels
FROM markers;
-- nuclear pixels, components, markers and nuclei (labels are 1..n, nodata 0)
SELECT (ST_SummaryStats(mask)).sum AS nuclear_pixels,
	   (ST_SummaryStats(components)).max AS components,
	   (ST_SummaryStats(markers)).max AS markers, (ST_SummaryStats(markers)).count AS marker_pixels,
	   (ST_SummaryStats(labels)).max AS nuclei, (ST_SummaryStats(labels)).count AS nucleus_pixels,
	   ST_BandPixelType(labels) AS label_type, ST_BandNoDataValue(labels) AS nodata,
	   ST_SameAlignment(labels, mask) AS aligned
FROM ihc_seg;
-- polygons: one row per nucleus and per unsplit component (8-connected
-- pixels whose polygons touch at a corner form one multipolygon)
CREATE TABLE ihc_nucleus AS
SELECT val::int AS id, ST_Union(geom) AS geom FROM ihc_seg, ST_DumpAsPolygons(labels) GROUP BY val;
CREATE TABLE ihc_blob AS
SELECT val::int AS id, ST_Union(geom) AS geom FROM ihc_seg, ST_DumpAsPolygons(components) GROUP BY val;
SELECT 'nuclei' AS polygons, count(*), sum(ST_Area(geom)) AS area, min(ST_Area(geom)) AS smallest,
	   max(ST_Area(geom)) AS largest FROM ihc_nucleus
UNION ALL
SELECT 'components', count(*), sum(ST_Area(geom)), min(ST_Area(geom)), max(ST_Area(geom)) FROM ihc_blob;
-- how many nuclei each component was split into (0: its distance map never
-- reaches 2 pixels, so it has no marker)
SELECT parts, count(*) AS components
FROM (SELECT b.id, count(n.id) AS parts FROM ihc_blob b
	  LEFT JOIN ihc_nucleus n ON n.geom && b.geom AND pb_intersection_area(n.geom, b.geom) > 0
	  GROUP BY b.id) s
GROUP BY parts ORDER BY parts;
-- the nuclei against the unsplit components: J' over the overlapping pairs
SELECT round(jaccard_gpu(n.geom, b.geom)::numeric, 6) AS jaccard
FROM ihc_nucleus n JOIN ihc_blob b ON n.geom && b.geom;
