/*
 * json_geojson.h: one GeoJSON feature as QuPath writes them (detections,
 * annotations, cells with a "nucleusGeometry") made into a record: its
 * Polygon or MultiPolygon (holes kept) as EWKB with SRID 0, its id,
 * objectType, classification and measurements.
 *
 *  - the geometry is the feature's "geometry", or with nucleus_geometry
 *    its "nucleusGeometry" (at the feature level, where QuPath writes it,
 *    or in "properties"); a missing "geometry" member is an error, a null
 *    one, or a missing or null "nucleusGeometry" (annotations have none),
 *    is a record without a geometry;
 *  - rings have at least 4 positions and end where they start (as GeoJSON
 *    says), positions at least 2 finite numbers (a third is ignored:
 *    pixel space is flat); other geometry types are errors naming theirs;
 *  - the id (a string or a number) is kept as text; the classification is
 *    properties.classification.name, or the string QuPath 0.2 wrote;
 *  - the measurements become one JSON object: QuPath 0.4 writes one,
 *    older versions an array of {"name": .., "value": ..}; NaN and
 *    infinities (which QuPath once wrote as bare words) become the
 *    strings "NaN", "Infinity" and "-Infinity", as QuPath writes them now
 *    (jsonb has no such numbers).
 */
#ifndef PB_JSON_GEOJSON_H
#define PB_JSON_GEOJSON_H

#include "json_numbers.h"
#include "json_record.h"

struct json_object;

/*
 * Make feature into rec (empty on entry); on error rec holds what was
 * made.  nums holds the numeric arrays PbNumSubstitute took from its bytes.
 */
extern PbStatus PbGeoJsonFeature(struct json_object *feature,
								 const PbJsonOptions *opt, PbNumTree *nums,
								 PbJsonRecord *rec, PbError *err);

#endif							/* PB_JSON_GEOJSON_H */
