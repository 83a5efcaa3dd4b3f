/*
 * json_record.h: what one record of a JSON file (a GeoJSON feature, a
 * HoVer-Net nucleus) becomes: its geometry as EWKB (SRID 0) and its
 * attributes as text, made on any thread from malloc'd memory
 * (PbMallocAllocator) and freed by PbJsonRecordFree.
 */
#ifndef PB_JSON_RECORD_H
#define PB_JSON_RECORD_H

#include <stdint.h>

#include "../geom/ewkb_write.h"

/* How the records are made. */
typedef struct PbJsonOptions
{
	int			nucleus_geometry;	/* GeoJSON: "nucleusGeometry", not "geometry" */
	int			contour_as_written; /* HoVer-Net: the contour, not its pixels */
} PbJsonOptions;

/* One record; NULL strings and has_* 0 are SQL NULLs. */
typedef struct PbJsonRecord
{
	int64_t		number;			/* the feature's or nucleus's, 1-based in the file */
	int64_t		line;			/* the line it starts on (1-based) */
	char	   *id;				/* a feature's id (as text), a nucleus's id */
	char	   *object_type;	/* GeoJSON: properties.objectType */
	char	   *classification; /* GeoJSON: properties.classification(.name) */
	char	   *measurements;	/* GeoJSON: a JSON object */
	int			has_type;		/* HoVer-Net: "type" */
	int32_t		type;
	int			has_type_prob;	/* HoVer-Net: "type_prob" */
	double		type_prob;
	int			has_geom;		/* 0: no geometry (SQL NULL) */
	PbEwkb		geom;			/* its EWKB when has_geom */
} PbJsonRecord;

/* An empty record (nothing to free). */
extern void PbJsonRecordInit(PbJsonRecord *rec);

/* Free what a record holds and empty it. */
extern void PbJsonRecordFree(PbJsonRecord *rec);

/* A malloc'd copy of s (PbOutOfMemory when malloc fails). */
extern char *PbJsonStrdup(const char *s);

struct json_object;

/*
 * A coordinate: a JSON number that is finite and, written as an integer,
 * within json-c's range (it saturates larger ones).  Returns NULL and sets
 * *v, or says what is wrong ("a string", "NaN", "out of range", ...).
 */
extern const char *PbJsonCoordinate(struct json_object *o, double *v);

/* The JSON type of o for messages ("a string", "null", ...). */
extern const char *PbJsonTypeName(struct json_object *o);

#endif							/* PB_JSON_RECORD_H */
