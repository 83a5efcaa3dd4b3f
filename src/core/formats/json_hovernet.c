/*
 * json_hovernet.c: a HoVer-Net nucleus made into a record (see
 * json_hovernet.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../geom/batch.h"
#include "contour_fill.h"
#include "json_hovernet.h"
#include "label_trace.h"

/* "type" (an integer) and "type_prob" (a number); null or absent: none. */
static PbStatus
TypeMembers(json_object *nuc, PbJsonRecord *rec, PbError *err)
{
	json_object *t,
			   *p;

	if (json_object_object_get_ex(nuc, "type", &t) && !json_object_is_type(t, json_type_null))
	{
		int64_t		v = json_object_get_int64(t);

		if (!json_object_is_type(t, json_type_int) || v < INT32_MIN || v > INT32_MAX)
			return PbFail(err, PB_ERR_FORMAT, "its type is %s, not an integer",
							   json_object_is_type(t, json_type_int) ? "out of range" :
							   PbJsonTypeName(t));
		rec->has_type = 1;
		rec->type = (int32_t) v;
	}
	if (json_object_object_get_ex(nuc, "type_prob", &p) && !json_object_is_type(p, json_type_null))
	{
		if (!json_object_is_type(p, json_type_int) && !json_object_is_type(p, json_type_double))
			return PbFail(err, PB_ERR_FORMAT, "its type_prob is %s, not a number", PbJsonTypeName(p));
		rec->has_type_prob = 1;
		rec->type_prob = json_object_get_double(p);
	}
	return PB_OK;
}

/*
 * The contour's points as doubles (malloc'd, 2 per point), checked: an
 * array of [x, y] positions of finite numbers with 3 distinct ones.
 */
static PbStatus
ContourPoints(json_object *nuc, PbNumTree *t, double **xy, uint32_t *n, PbError *err)
{
	json_object *c;
	const PbNumNode *arr;
	uint32_t	node,
				distinct = 0;

	*xy = NULL;
	*n = 0;
	if (!json_object_object_get_ex(nuc, "contour", &c))
		return PbFail(err, PB_ERR_FORMAT, "no \"contour\" member");
	node = PbNumFromJson(t, c);
	arr = &t->nodes[node];
	if (arr->kind != PB_NUM_ARRAY)
		return PbFail(err, PB_ERR_FORMAT, "its contour is %s, not an array of [x, y] points",
						   PbNumWhat(t, node));
	*xy = malloc(sizeof(double) * 2 * ((size_t) arr->count + 1));
	if (*xy == NULL)
		PbOutOfMemory();
	for (uint32_t i = 0; i < arr->count; i++)
	{
		const PbNumNode *pt = PbNumKid(t, arr, i);
		double	   *v = *xy + 2 * i;

		if (pt->kind != PB_NUM_ARRAY || pt->count < 2)
			return PbFail(err, PB_ERR_FORMAT, "point %u of its contour is %s, not [x, y]", i + 1,
							   pt->kind == PB_NUM_ARRAY ? "too short" :
							   PbNumWhat(t, t->kids[arr->first + i]));
		for (uint32_t k = 0; k < 2; k++)
		{
			const PbNumNode *x = PbNumKid(t, pt, k);

			if (x->kind != PB_NUM_NUMBER)
				return PbFail(err, PB_ERR_FORMAT, "point %u of its contour: %c is %s, not a finite number",
								   i + 1, k == 0 ? 'x' : 'y', PbNumWhat(t, t->kids[pt->first + k]));
			v[k] = x->value;
		}
		/* distinct from every earlier point, while fewer than 3 are known */
		if (distinct < 3)
		{
			int			seen = 0;

			for (uint32_t j = 0; j < i && !seen; j++)
				seen = (*xy)[2 * j] == v[0] && (*xy)[2 * j + 1] == v[1];
			distinct += !seen;
		}
	}
	if (distinct < 3)
		return PbFail(err, PB_ERR_FORMAT, "its contour has %u distinct point%s, fewer than a polygon needs (3)",
						   distinct, distinct == 1 ? "" : "s");
	*n = arr->count;
	return PB_OK;
}

/* The contour as written: one ring, closed (unless it already is). */
static void
WriteAsWritten(const double *xy, uint32_t n, PbEwkb *w)
{
	int			closed = xy[0] == xy[2 * (n - 1)] && xy[1] == xy[2 * (n - 1) + 1];
	uint32_t	npoints = closed ? n : n + 1;
	size_t		slot;

	PbEwkbHeader(w, PB_POLYGONTYPE, 0);
	slot = PbEwkbCountSlot(w);
	PbEwkbSetCount(w, slot, 1);
	slot = PbEwkbCountSlot(w);
	PbEwkbSetCount(w, slot, npoints);
	PbEwkbDoubles(w, xy, 2 * (int) n);
	if (!closed)
		PbEwkbDoubles(w, xy, 2);
	PbEwkbCloseRing(w, slot, npoints, 2);
}

/* The contour's pixels outlined along pixel edges. */
static PbStatus
WritePixelEdges(const double *xy, uint32_t n, PbEwkb *w, PbError *err)
{
	int64_t    *ixy = malloc(sizeof(int64_t) * 2 * n);
	PbFilled	f;
	PbStatus	st = PB_OK;

	if (ixy == NULL)
		PbOutOfMemory();
	for (uint32_t i = 0; i < 2 * n && st == PB_OK; i++)
	{
		if (xy[i] != floor(xy[i]) || fabs(xy[i]) > 1073741824.0)
			st = PbFail(err, PB_ERR_FORMAT, "point %u of its contour (%.17g %.17g) is not on a pixel centre (integers within +-2^30); read it with contour => 'as_written'",
							 i / 2 + 1, xy[i - i % 2], xy[i - i % 2 + 1]);
		ixy[i] = (int64_t) xy[i];
	}
	if (st == PB_OK)
		st = PbFillContour(ixy, n, &PbMallocAllocator, &f, err);
	if (st == PB_OK)
	{
		st = PbTraceMask(f.mask, f.width, f.height, (double) f.x0, (double) f.y0, w, err);
		free(f.mask);
	}
	free(ixy);
	if (st != PB_OK)
		err->code = st = PB_ERR_FORMAT;
	return st;
}

/* Make a nucleus into a record (see json_hovernet.h). */
PbStatus
PbHoverNetNucleus(const char *id, json_object *nuc, const PbJsonOptions *opt,
				  PbNumTree *nums, PbJsonRecord *rec, PbError *err)
{
	double	   *xy = NULL;
	uint32_t	n;
	PbStatus	st;

	rec->id = PbJsonStrdup(id);
	if (!json_object_is_type(nuc, json_type_object))
		return PbFail(err, PB_ERR_FORMAT, "%s, not an object", PbJsonTypeName(nuc));
	st = TypeMembers(nuc, rec, err);
	if (st == PB_OK)
		st = ContourPoints(nuc, nums, &xy, &n, err);
	if (st == PB_OK)
	{
		if (opt->contour_as_written)
			WriteAsWritten(xy, n, &rec->geom);
		else
			st = WritePixelEdges(xy, n, &rec->geom, err);
		rec->has_geom = st == PB_OK;
	}
	free(xy);
	return st;
}
