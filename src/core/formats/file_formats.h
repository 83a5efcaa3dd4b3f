/*
 * file_formats.h: which parser pb_compare_files (parse_files.h) uses for
 * a file, by its name, and the JSON files' parsers.
 *
 *  - *.geojson: QuPath GeoJSON (each feature's "geometry");
 *  - *.json: GeoJSON, or HoVer-Net JSON when it holds a "nuc" object
 *    (pixel-edge polygons), told apart by content;
 *  - label images (label_file.h: *.tif, *.tiff, *.png): label_batch.h;
 *  - anything else: polygon text (text_reader.h).
 * Features without a geometry (a null one) add no polygon.
 */
#ifndef PB_FILE_FORMATS_H
#define PB_FILE_FORMATS_H

#include "../geom/parse_files.h"

/* The parser for the file at path; NULL for polygon text. */
extern PbFileParseFn PbFileParserFor(const char *path);

/* json_files.c: a GeoJSON file (*.geojson) into fp's batch. */
extern void PbReadGeoJsonFile(PbFileParse *fp, int fd, const PbRun *run);

/* json_files.c: a GeoJSON or HoVer-Net file (*.json) into fp's batch. */
extern void PbReadJsonFile(PbFileParse *fp, int fd, const PbRun *run);

#endif							/* PB_FILE_FORMATS_H */
