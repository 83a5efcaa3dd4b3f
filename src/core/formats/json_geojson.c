/*
 * json_geojson.c: a GeoJSON feature made into a record (see
 * json_geojson.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "../geom/batch.h"
#include "json_geojson.h"

/* Member key of o when o is an object and has it, else NULL. */
static json_object *
Member(json_object *o, const char *key)
{
	json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
		!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* Append one ring's positions (checked) to w; where names it in messages. */
static PbStatus
WriteRing(PbEwkb *w, const PbNumTree *t, uint32_t ring, const char *where,
		  PbError *err)
{
	const PbNumNode *r = &t->nodes[ring];
	size_t		slot;
	double		first[2] = {0, 0},
				xy[2] = {0, 0};

	if (r->kind != PB_NUM_ARRAY)
		return PbFail(err, PB_ERR_FORMAT, "%s is %s, not an array of positions", where,
						   PbNumWhat(t, ring));
	if (r->count < 4)
		return PbFail(err, PB_ERR_FORMAT, "%s has %u position%s; a ring needs at least 4 (the last repeating the first)",
						   where, r->count, r->count == 1 ? "" : "s");
	slot = PbEwkbCountSlot(w);
	PbEwkbSetCount(w, slot, r->count);
	for (uint32_t i = 0; i < r->count; i++)
	{
		const PbNumNode *pos = PbNumKid(t, r, i);

		if (pos->kind != PB_NUM_ARRAY)
			return PbFail(err, PB_ERR_FORMAT, "position %u of %s is %s, not an array of numbers",
							   i + 1, where, PbNumWhat(t, t->kids[r->first + i]));
		if (pos->count < 2)
			return PbFail(err, PB_ERR_FORMAT, "position %u of %s has %u number%s; a position needs 2",
							   i + 1, where, pos->count, pos->count == 1 ? "" : "s");
		for (uint32_t k = 0; k < 2; k++)
		{
			const PbNumNode *c = PbNumKid(t, pos, k);

			if (c->kind != PB_NUM_NUMBER)
				return PbFail(err, PB_ERR_FORMAT, "position %u of %s: coordinate %c is %s, not a finite number",
								   i + 1, where, k == 0 ? 'x' : 'y',
								   PbNumWhat(t, t->kids[pos->first + k]));
			xy[k] = c->value;
		}
		if (i == 0)
			memcpy(first, xy, sizeof(first));
		PbEwkbDoubles(w, xy, 2);
	}
	if (xy[0] != first[0] || xy[1] != first[1])
		return PbFail(err, PB_ERR_FORMAT, "%s is not closed: its last position (%.17g %.17g) is not its first (%.17g %.17g), as GeoJSON requires",
						   where, xy[0], xy[1], first[0], first[1]);
	PbEwkbCloseRing(w, slot, r->count, 2);
	return PB_OK;
}

/* Append one polygon (an array of rings) to w; part > 0 numbers it in a multipolygon. */
static PbStatus
WritePolygon(PbEwkb *w, const PbNumTree *t, uint32_t rings, const char *member,
			 uint32_t part, PbError *err)
{
	const PbNumNode *p = &t->nodes[rings];
	char		where[64];
	size_t		slot;

	if (p->kind != PB_NUM_ARRAY)
	{
		if (part > 0)
			return PbFail(err, PB_ERR_FORMAT, "polygon %u of its %s is %s, not an array of rings",
							   part, member, PbNumWhat(t, rings));
		return PbFail(err, PB_ERR_FORMAT, "the coordinates of its %s are %s, not an array of rings",
						   member, PbNumWhat(t, rings));
	}
	PbEwkbHeader(w, PB_POLYGONTYPE, 0);
	slot = PbEwkbCountSlot(w);
	PbEwkbSetCount(w, slot, p->count);
	for (uint32_t r = 0; r < p->count; r++)
	{
		PbStatus	st;

		if (part > 0)
			snprintf(where, sizeof(where), "ring %u of polygon %u", r + 1, part);
		else
			snprintf(where, sizeof(where), "ring %u", r + 1);
		st = WriteRing(w, t, t->kids[p->first + r], where, err);
		if (st != PB_OK)
			return st;
	}
	return PB_OK;
}

/* The EWKB of a GeoJSON Polygon or MultiPolygon. */
static PbStatus
WriteGeometry(PbEwkb *w, PbNumTree *t, json_object *g, const char *member,
			  PbError *err)
{
	json_object *type = Member(g, "type");
	json_object *coords;
	const char *name;
	uint32_t	c;
	const PbNumNode *mp;

	if (!json_object_is_type(g, json_type_object))
		return PbFail(err, PB_ERR_FORMAT, "its %s is %s, not a GeoJSON geometry", member,
						   PbJsonTypeName(g));
	if (type == NULL || !json_object_is_type(type, json_type_string))
		return PbFail(err, PB_ERR_FORMAT, "its %s has no \"type\" string", member);
	name = json_object_get_string(type);
	if (strcmp(name, "Polygon") != 0 && strcmp(name, "MultiPolygon") != 0)
		return PbFail(err, PB_ERR_FORMAT, "its %s is a %.40s, not a Polygon or MultiPolygon", member, name);
	if (!json_object_object_get_ex(g, "coordinates", &coords))
		return PbFail(err, PB_ERR_FORMAT, "its %s (a %s) has no \"coordinates\"", member, name);
	c = PbNumFromJson(t, coords);
	if (strcmp(name, "Polygon") == 0)
		return WritePolygon(w, t, c, member, 0, err);
	mp = &t->nodes[c];
	if (mp->kind != PB_NUM_ARRAY)
		return PbFail(err, PB_ERR_FORMAT, "the coordinates of its %s are %s, not an array of polygons",
						   member, PbNumWhat(t, c));
	{
		size_t		slot;

		PbEwkbHeader(w, PB_MULTIPOLYGONTYPE, 0);
		slot = PbEwkbCountSlot(w);
		PbEwkbSetCount(w, slot, mp->count);
		for (uint32_t p = 0; p < mp->count; p++)
		{
			PbStatus	st = WritePolygon(w, t, t->kids[mp->first + p], member, p + 1, err);

			if (st != PB_OK)
				return st;
		}
	}
	return PB_OK;
}

/* A string member as a malloc'd copy (NULL when absent or null), or an error. */
static PbStatus
StringMember(json_object *o, const char *key, const char *where, char **out,
			 PbError *err)
{
	json_object *v = Member(o, key);

	if (v == NULL || json_object_is_type(v, json_type_null))
		return PB_OK;
	if (!json_object_is_type(v, json_type_string))
		return PbFail(err, PB_ERR_FORMAT, "%s is %s, not a string", where, PbJsonTypeName(v));
	*out = PbJsonStrdup(json_object_get_string(v));
	return PB_OK;
}

/* Replace NaN and infinities in v (and below it) by QuPath's strings; return v. */
static json_object *
FiniteOrString(json_object *v)
{
	if (json_object_is_type(v, json_type_double))
	{
		double		d = json_object_get_double(v);

		if (!isfinite(d))
			return json_object_new_string(isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
	}
	else if (json_object_is_type(v, json_type_array))
	{
		for (size_t i = 0; i < json_object_array_length(v); i++)
		{
			json_object *e = json_object_array_get_idx(v, i);
			json_object *f = FiniteOrString(e);

			if (f != e)
				json_object_array_put_idx(v, i, f);
		}
	}
	else if (json_object_is_type(v, json_type_object))
	{
		json_object_object_foreach(v, key, val)
		{
			json_object *f = FiniteOrString(val);

			if (f != val)
				json_object_object_add(v, key, f);
		}
	}
	return v;
}

/* The measurements as the text of one JSON object (QuPath's two forms). */
static PbStatus
Measurements(json_object *props, PbJsonRecord *rec, PbError *err)
{
	json_object *m = Member(props, "measurements");
	json_object *obj;

	if (m == NULL || json_object_is_type(m, json_type_null))
		return PB_OK;
	if (json_object_is_type(m, json_type_object))
		obj = json_object_get(m);
	else if (json_object_is_type(m, json_type_array))
	{
		obj = json_object_new_object();
		for (size_t i = 0; i < json_object_array_length(m); i++)
		{
			json_object *e = json_object_array_get_idx(m, i);
			json_object *name = Member(e, "name");
			json_object *value = NULL;

			/* a null value is NULL: ask whether it is there */
			if (name == NULL || !json_object_is_type(name, json_type_string) ||
				!json_object_object_get_ex(e, "value", &value))
			{
				json_object_put(obj);
				return PbFail(err, PB_ERR_FORMAT, "measurement %zu is not {\"name\": string, \"value\": ...}",
								   i + 1);
			}
			json_object_object_add(obj, json_object_get_string(name),
								   json_object_get(value));
		}
	}
	else
		return PbFail(err, PB_ERR_FORMAT, "properties.measurements is %s, not an object or an array",
						   PbJsonTypeName(m));
	obj = FiniteOrString(obj);
	rec->measurements = PbJsonStrdup(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN));
	json_object_put(obj);
	return PB_OK;
}

/* id, objectType, classification and measurements of a feature. */
static PbStatus
Attributes(json_object *f, PbJsonRecord *rec, PbError *err)
{
	json_object *id = Member(f, "id");
	json_object *props = Member(f, "properties");
	json_object *cls = Member(props, "classification");
	PbStatus	st;

	if (id != NULL && !json_object_is_type(id, json_type_null))
	{
		if (!json_object_is_type(id, json_type_string) &&
			!json_object_is_type(id, json_type_int) &&
			!json_object_is_type(id, json_type_double))
			return PbFail(err, PB_ERR_FORMAT, "its id is %s, not a string or a number", PbJsonTypeName(id));
		rec->id = PbJsonStrdup(json_object_get_string(id));
	}
	if (props != NULL && !json_object_is_type(props, json_type_null) &&
		!json_object_is_type(props, json_type_object))
		return PbFail(err, PB_ERR_FORMAT, "its properties are %s, not an object", PbJsonTypeName(props));
	st = StringMember(props, "objectType", "properties.objectType", &rec->object_type, err);
	if (st != PB_OK)
		return st;
	if (cls != NULL && json_object_is_type(cls, json_type_string))
		rec->classification = PbJsonStrdup(json_object_get_string(cls));
	else if (cls != NULL && json_object_is_type(cls, json_type_object))
		st = StringMember(cls, "name", "properties.classification.name", &rec->classification, err);
	else if (cls != NULL && !json_object_is_type(cls, json_type_null))
		return PbFail(err, PB_ERR_FORMAT, "properties.classification is %s, not an object or a string",
						   PbJsonTypeName(cls));
	if (st != PB_OK)
		return st;
	return Measurements(props, rec, err);
}

/* Make a feature into a record (see json_geojson.h). */
PbStatus
PbGeoJsonFeature(json_object *f, const PbJsonOptions *opt, PbNumTree *nums,
				 PbJsonRecord *rec, PbError *err)
{
	const char *member = opt->nucleus_geometry ? "nucleusGeometry" : "geometry";
	json_object *type = Member(f, "type");
	json_object *g;
	PbStatus	st;

	if (!json_object_is_type(f, json_type_object))
		return PbFail(err, PB_ERR_FORMAT, "%s, not a GeoJSON Feature (an object)", PbJsonTypeName(f));
	if (type == NULL || !json_object_is_type(type, json_type_string) ||
		strcmp(json_object_get_string(type), "Feature") != 0)
		return PbFail(err, PB_ERR_FORMAT, "its \"type\" is %s%.40s%s, not \"Feature\"",
						   type != NULL && json_object_is_type(type, json_type_string) ? "\"" : "",
						   type == NULL ? "missing" :
						   json_object_is_type(type, json_type_string) ?
						   json_object_get_string(type) : PbJsonTypeName(type),
						   type != NULL && json_object_is_type(type, json_type_string) ? "\"" : "");
	st = Attributes(f, rec, err);
	if (st != PB_OK)
		return st;
	/* json-c gives a null member as NULL: ask whether it is there */
	if (!json_object_object_get_ex(f, member, &g) && opt->nucleus_geometry)
		g = Member(Member(f, "properties"), member);
	else if (!json_object_object_get_ex(f, member, &g))
		return PbFail(err, PB_ERR_FORMAT, "no \"geometry\" member");
	if (g == NULL)
		return PB_OK;
	st = WriteGeometry(&rec->geom, nums, g, member, err);
	rec->has_geom = st == PB_OK;
	return st;
}
