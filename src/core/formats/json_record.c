/*
 * json_record.c: records of JSON files and the values they are made of
 * (see json_record.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json_record.h"

/* Start a record with nothing in it. */
void
PbJsonRecordInit(PbJsonRecord *rec)
{
	memset(rec, 0, sizeof(*rec));
	PbEwkbInit(&rec->geom, &PbMallocAllocator);
}

/* Free the strings and the EWKB. */
void
PbJsonRecordFree(PbJsonRecord *rec)
{
	free(rec->id);
	free(rec->object_type);
	free(rec->classification);
	free(rec->measurements);
	PbEwkbFree(&rec->geom);
	PbJsonRecordInit(rec);
}

/* Copy a string with malloc. */
char *
PbJsonStrdup(const char *s)
{
	size_t		n = strlen(s) + 1;
	char	   *copy = malloc(n);

	if (copy == NULL)
		PbOutOfMemory();
	memcpy(copy, s, n);
	return copy;
}

/* Name a JSON value's type. */
const char *
PbJsonTypeName(struct json_object *o)
{
	switch (json_object_get_type(o))
	{
		case json_type_null:
			return "null";
		case json_type_boolean:
			return "a boolean";
		case json_type_double:
		case json_type_int:
			return "a number";
		case json_type_object:
			return "an object";
		case json_type_array:
			return "an array";
		case json_type_string:
			return "a string";
	}
	return "of an unknown type";
}

/* A finite number within range, or what is wrong with it. */
const char *
PbJsonCoordinate(struct json_object *o, double *v)
{
	if (json_object_is_type(o, json_type_int))
	{
		int64_t		i = json_object_get_int64(o);

		/* json-c saturates integers beyond int64 (or uint64) */
		if (i == INT64_MIN || i == INT64_MAX)
			return "out of range";
		*v = (double) i;
		return NULL;
	}
	if (json_object_is_type(o, json_type_double))
	{
		*v = json_object_get_double(o);
		if (isnan(*v))
			return "NaN";
		if (!isfinite(*v))
			return "not finite";
		return NULL;
	}
	return PbJsonTypeName(o);
}
