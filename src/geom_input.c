/*
 * geom_input.c: turn a PostGIS geometry (an argument or a value) into a
 * batch shape.
 *
 * The fast path reads GSERIALIZED directly (no copy for inline values);
 * values it does not recognise go through the geometry type's send
 * function (EWKB), so a future PostGIS format still works, only slower.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "pixelbox.h"

/*
 * The hint for a geometry pixelbox does not handle: merging for a
 * collection of overlapping polygons (shape_build.c's message), else
 * converting curves and surfaces.
 */
static const char *
UnsupportedHint(const PbError *err)
{
	if (strncmp(err->message, "GeometryCollection with overlapping", 35) == 0)
		return "Merge the polygons with ST_UnaryUnion, or compare them one by one (ST_Dump).";
	return "Convert curves with ST_CurveToLine and surfaces with ST_CollectionExtract or ST_Dump.";
}

/* Raise the error a failed decode reported, prefixed with the caller. */
static void
ReportDecodeError(const PbError *err, const char *caller)
{
	switch (err->code)
	{
		case PB_ERR_NONFINITE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", caller, err->message)));
			break;
		case PB_ERR_UNSUPPORTED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: %s", caller, err->message),
					 errhint("%s", UnsupportedHint(err))));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("%s: invalid geometry value: %s", caller, err->message)));
	}
}

/* Decode geometry value d of type typid through the type's send function (EWKB). */
static PbStatus
DecodeViaSend(Datum d, Oid typid, PbBatch *batch, uint32_t *shape, PbError *err)
{
	Oid			sendfn;
	bool		isvarlena;
	bytea	   *wkb;
	PbStatus	st;

	if (!OidIsValid(typid))
		elog(ERROR, "could not determine the geometry argument type");
	getTypeBinaryOutputInfo(typid, &sendfn, &isvarlena);
	wkb = OidSendFunctionCall(sendfn, d);
	st = PbDecodeEwkb(batch, (const uint8_t *) VARDATA(wkb),
					  VARSIZE(wkb) - VARHDRSZ, shape, err);
	pfree(wkb);
	return st;
}

/*
 * Decode geometry value d as a new shape of batch and return its index.
 * Its type (for the send function, needed only off the fast path) is
 * typid, or when that is invalid, argument argno of fcinfo's.
 */
static uint32_t
DecodeGeometry(Datum d, Oid typid, FunctionCallInfo fcinfo, int argno, PbBatch *batch,
			   const char *caller)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(d);
	uint32_t	shape = 0;
	PbError		err;
	PbStatus	st = PB_ERR_VERSION;

	if (!pb_force_ewkb)
		st = PbDecodeGserialized(batch, (const uint8_t *) VARDATA_ANY(v),
								 VARSIZE_ANY_EXHDR(v), &shape, &err);
	if (st == PB_ERR_VERSION)
		st = DecodeViaSend(d, OidIsValid(typid) ? typid
						   : get_fn_expr_argtype(fcinfo->flinfo, argno), batch, &shape, &err);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	if (st != PB_OK)
		ReportDecodeError(&err, caller);
	return shape;
}

/*
 * Decode geometry argument argno of fcinfo as a new shape of batch and
 * return its index; errors name the caller (an SQL function name).
 */
uint32_t
PbDecodeGeometryArg(FunctionCallInfo fcinfo, int argno, PbBatch *batch,
					const char *caller)
{
	return DecodeGeometry(PG_GETARG_DATUM(argno), InvalidOid, fcinfo, argno, batch, caller);
}

/* Decode geometry value d, of type typid, as a new shape of batch: its index. */
uint32_t
PbDecodeGeometryDatum(Datum d, Oid typid, PbBatch *batch, const char *caller)
{
	return DecodeGeometry(d, typid, NULL, 0, batch, caller);
}

/*
 * Raise PostGIS's mixed-SRID error, with the usual cause in pathology as a
 * hint: polygons in pixel space have SRID 0, but ST_GeomFromGeoJSON gives
 * 4326 and a georeferenced raster its own SRID.
 */
static void
MixedSridError(int32_t first, int32_t next, const char *caller)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: Operation on mixed SRID geometries (%d != %d)", caller, first, next),
			 errhint("Polygons in image (pixel) coordinates should have SRID 0; ST_GeomFromGeoJSON gives SRID 4326 and rasters their own. "
					 "Set one SRID on both sides, e.g. ST_SetSRID(geom, 0); pixelbox's file readers give SRID 0.")));
}

/* Raise PostGIS's mixed-SRID error when shapes a and b differ in SRID. */
void
PbCheckSameSrid(const PbBatch *batch, uint32_t a, uint32_t b,
				const char *caller)
{
	int32_t		sa = batch->shapes[a].srid,
				sb = batch->shapes[b].srid;

	if (sa != sb)
		MixedSridError(sa, sb, caller);
}

/*
 * Every polygon of an aggregate must have one SRID: the first one seen is
 * kept in *srid (*has_srid set), later ones must equal it (PostGIS's
 * mixed-SRID error otherwise).
 */
void
PbCheckSetSrid(int32_t *srid, bool *has_srid, int32_t next, const char *caller)
{
	if (!*has_srid)
	{
		*srid = next;
		*has_srid = true;
	}
	else if (next != *srid)
		MixedSridError(*srid, next, caller);
}

/*
 * The geometry value of EWKB a reader wrote, through the geometry type's
 * receive function (recv, ioparam): what PostGIS makes of the bytes, Z, M,
 * SRID and EMPTY parts included.  A value above a varlena's 1 GB limit is
 * an error naming caller (the receive function takes an int length).
 */
Datum
PbGeometryFromEwkb(Oid recv, Oid ioparam, const uint8_t *ewkb, size_t len, const char *caller)
{
	StringInfoData buf;

	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a geometry of %zu bytes, more than a value may hold (1 GB)", caller, len)));
	buf.data = (char *) ewkb;
	buf.len = buf.maxlen = (int) len;
	buf.cursor = 0;
	return OidReceiveFunctionCall(recv, &buf, ioparam, -1);
}
