-- pixelbox_raster: the raster-typed forms of pixelbox's raster operations.
-- Each passes its rasters to pixelbox's raster WKB function of the same name
-- through ST_AsWKB / ST_RastFromWKB (the documented raster WKB), so the
-- result keeps the input's georeference and SRID.  PostGIS and pixelbox are
-- found through their extensions' schemas, not through search_path.

\echo Use "CREATE EXTENSION pixelbox_raster" to load this file. \quit

DO $install$
DECLARE
	rt text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'postgis_raster');
	pb text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pixelbox');
BEGIN
	EXECUTE format($f$
		CREATE FUNCTION pb_reconstruct(marker %1$s.raster, mask %1$s.raster,
									   connectivity int DEFAULT 8,
									   method text DEFAULT 'dilation', band int DEFAULT 1)
			RETURNS %1$s.raster
			LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
			AS 'SELECT %1$s.ST_RastFromWKB(%2$s.pb_reconstruct(%1$s.ST_AsWKB(marker),
					%1$s.ST_AsWKB(mask), connectivity, method, band))'$f$, rt, pb);
	EXECUTE format($f$
		COMMENT ON FUNCTION pb_reconstruct(%1$s.raster, %1$s.raster, int, text, int) IS
		'Gray-scale morphological reconstruction of marker under mask (method dilation) or above it (erosion), 4- or 8-connected, on one band of two aligned rasters (1BB, 8BUI, 16BUI, 32BF), on the GPU when there is one. A marker crossing the mask is clipped to it; nodata and NaN mask pixels are walls.'$f$, rt);

	EXECUTE format($f$
		CREATE FUNCTION pb_fill_holes(image %1$s.raster, connectivity int DEFAULT 4,
									  band int DEFAULT 1)
			RETURNS %1$s.raster
			LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
			AS 'SELECT %1$s.ST_RastFromWKB(%2$s.pb_fill_holes(%1$s.ST_AsWKB(image),
					connectivity, band))'$f$, rt, pb);
	EXECUTE format($f$
		COMMENT ON FUNCTION pb_fill_holes(%1$s.raster, int, int) IS
		'Fill the holes of one band of a raster: every dark region not reached from the border by a flood of the given connectivity is raised to its surroundings (reconstruction by erosion).'$f$, rt);

	EXECUTE format($f$
		CREATE FUNCTION pb_distance_transform(mask %1$s.raster, band int DEFAULT 1,
											  spacing float8[] DEFAULT NULL,
											  with_index boolean DEFAULT false)
			RETURNS %1$s.raster
			LANGUAGE sql IMMUTABLE PARALLEL SAFE
			AS 'SELECT %1$s.ST_RastFromWKB(%2$s.pb_distance_transform(%1$s.ST_AsWKB(mask),
					band, spacing, with_index))'$f$, rt, pb);
	EXECUTE format($f$
		COMMENT ON FUNCTION pb_distance_transform(%1$s.raster, int, float8[], boolean) IS
		'Exact Euclidean distance of every nonzero pixel of one band to the nearest zero or nodata pixel, as a 32BF raster on the same grid (spacing: {row step, column step}, default {1,1}); with_index adds the column and row (1-based) of that pixel as bands 2 and 3.'$f$, rt);

	EXECUTE format($f$
		CREATE FUNCTION pb_watershed(image %1$s.raster, markers %1$s.raster DEFAULT NULL,
									 connectivity int DEFAULT 8, mask %1$s.raster DEFAULT NULL,
									 watershed_line boolean DEFAULT false, band int DEFAULT 1,
									 label_type text DEFAULT '32BUI')
			RETURNS %1$s.raster
			LANGUAGE sql IMMUTABLE PARALLEL SAFE
			AS 'SELECT %1$s.ST_RastFromWKB(%2$s.pb_watershed(%1$s.ST_AsWKB(image),
					%1$s.ST_AsWKB(markers), connectivity, %1$s.ST_AsWKB(mask),
					watershed_line, band, label_type))'$f$, rt, pb);
	EXECUTE format($f$
		COMMENT ON FUNCTION pb_watershed(%1$s.raster, %1$s.raster, int, %1$s.raster, boolean, int, text) IS
		'Watershed of one band of a raster (1BB, 8BUI, 16BUI, 32BF heights), 4- or 8-connected, on the GPU when there is one: marker-less (every regional minimum a basin, numbered 1, 2, ... in row-major order) when markers is NULL, else flooded from the nonzero labels of an integer markers raster on the same grid (pixels no marker reaches get 0). Pixels outside the optional mask, nodata and NaN pixels get 0; watershed_line sets the pixels where basins meet to 0. Returns labels of label_type (32BUI, 16BUI or 8BUI) with nodata 0, on the same grid.'$f$, rt);
END
$install$;

-- Label rasters to polygons: the raster-typed form of pixelbox's
-- pb_labels_to_polygons(bytea, ...).
DO $labels$
DECLARE
	rt text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'postgis_raster');
	pg text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'postgis');
	pb text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pixelbox');
BEGIN
	EXECUTE format($f$
		CREATE FUNCTION pb_labels_to_polygons(rast %1$s.raster, band int DEFAULT 1,
											  space text DEFAULT 'pixel', OUT label bigint,
											  OUT pixels bigint, OUT geom %3$s.geometry)
			RETURNS SETOF record
			LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
			AS 'SELECT * FROM %2$s.pb_labels_to_polygons(%1$s.ST_AsWKB(rast), band, space)'$f$,
		rt, pb, pg);
	EXECUTE format($f$
		COMMENT ON FUNCTION pb_labels_to_polygons(%1$s.raster, int, text) IS
		'One row per nonzero label of one band of a label raster (8BUI, 16BUI, 32BUI, 1BB, 2BUI, 4BUI; nodata is background), in label order: its pixel count and its outline along pixel edges. space pixel: image coordinates (column, row, y down; SRID 0), whatever the georeference (a TIFF loaded by ST_FromGDALRaster has scale (1, -1): its world coordinates are upside down); world: through the raster''s georeference and SRID, as ST_DumpAsPolygons and ST_Union give them.'$f$, rt);
END
$labels$;

-- Coverage functions on raster tiles: the C functions of pixelbox's
-- pb_coverage_*_wkb, returning rasters (ST_RastFromWKB of the raster type's
-- schema, found from the result column's type).
DO $coverage$
DECLARE
	rt text := (SELECT quote_ident(n.nspname) FROM pg_extension e
				JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'postgis_raster');
BEGIN
	EXECUTE format($f$
		CREATE FUNCTION pb_coverage_reconstruct(tiles text, connectivity int DEFAULT 8,
												method text DEFAULT 'dilation', band int DEFAULT 1)
			RETURNS TABLE (slide text, tile_x int, tile_y int, rast %1$s.raster)
			LANGUAGE C STRICT
			AS '$libdir/pixelbox', 'pb_coverage_reconstruct'$f$, rt);
	COMMENT ON FUNCTION pb_coverage_reconstruct(text, int, text, int) IS
		'pb_reconstruct over whole slides stored as tiles: tiles is a query returning one row per tile with raster columns marker and mask and optionally slide (the slide key, any type). Each slide''s tiles must form one grid (same scale, skew, SRID and pixel type, aligned on a grid of tiles, as ST_Tile or raster2pgsql -t make them); pixels no tile covers are nodata. Returns one row per input tile: slide (as text), tile_x and tile_y (its cell, 0-based) and the result on the tile''s grid, equal pixel for pixel to pb_reconstruct of the slide''s mosaic.';

	EXECUTE format($f$
		CREATE FUNCTION pb_coverage_fill_holes(tiles text, connectivity int DEFAULT 4,
											   band int DEFAULT 1)
			RETURNS TABLE (slide text, tile_x int, tile_y int, rast %1$s.raster)
			LANGUAGE C STRICT
			AS '$libdir/pixelbox', 'pb_coverage_fill_holes'$f$, rt);
	COMMENT ON FUNCTION pb_coverage_fill_holes(text, int, int) IS
		'pb_fill_holes over whole slides stored as tiles (a query with a raster column rast and optionally slide): the holes are those of the whole slide, whatever tiles they cross. One row per input tile (slide, tile_x, tile_y, rast).';

	EXECUTE format($f$
		CREATE FUNCTION pb_coverage_distance_transform(tiles text, band int DEFAULT 1,
													   spacing float8[] DEFAULT NULL,
													   with_index boolean DEFAULT false)
			RETURNS TABLE (slide text, tile_x int, tile_y int, rast %1$s.raster)
			LANGUAGE C
			AS '$libdir/pixelbox', 'pb_coverage_distance_transform'$f$, rt);
	COMMENT ON FUNCTION pb_coverage_distance_transform(text, int, float8[], boolean) IS
		'pb_distance_transform over whole slides stored as tiles (a query with a raster column rast and optionally slide): the distance to the nearest zero or nodata pixel of the whole slide (pixels no tile covers count as nodata). with_index adds the column and row of that pixel in the slide''s grid (1-based, from the upper-left corner of the upper-left tile''s cell). One row per input tile (slide, tile_x, tile_y, rast).';

	EXECUTE format($f$
		CREATE FUNCTION pb_coverage_watershed(tiles text, connectivity int DEFAULT 8,
											  watershed_line boolean DEFAULT false,
											  band int DEFAULT 1, label_type text DEFAULT '32BUI')
			RETURNS TABLE (slide text, tile_x int, tile_y int, rast %1$s.raster)
			LANGUAGE C STRICT
			AS '$libdir/pixelbox', 'pb_coverage_watershed'$f$, rt);
	COMMENT ON FUNCTION pb_coverage_watershed(text, int, boolean, int, text) IS
		'pb_watershed over whole slides stored as tiles: a query with a raster column rast (the heights), optional raster columns markers and mask, and optionally slide. Basins cross tile borders; marker-less basins are numbered 1, 2, ... per slide in row-major order of the slide. One row per input tile (slide, tile_x, tile_y, rast), labels of label_type with nodata 0.';
END
$coverage$;
