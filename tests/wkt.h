/*
 * wkt.h: a test-only geometry tree, a small WKT reader building it, and
 * writers to (E)WKB / ISO WKB (either byte order) and to GSERIALIZED v1/v2,
 * so tests can state their inputs readably.  Type numbers are PostGIS's
 * (PB_POLYGONTYPE, ...); the WKB writer maps them to WKB numbers.
 */
#ifndef PB_TEST_WKT_H
#define PB_TEST_WKT_H

#include <stddef.h>
#include <stdint.h>

/* A run of points, dims doubles each (x, y[, z][, m]). */
typedef struct TRing
{
	int			npts;
	double	   *c;
} TRing;

/*
 * A geometry: points, lines, circular strings and triangles have one ring
 * (none when empty), polygons one per ring, collections children.
 */
typedef struct TGeom
{
	int			type;
	int			hasz,
				hasm;
	int			srid;			/* from an EWKT "SRID=n;" prefix, else 0 */
	int			nrings;
	TRing	   *rings;
	int			ngeoms;
	struct TGeom **geoms;
} TGeom;

/* Bytes being written. */
typedef struct TBuf
{
	uint8_t    *p;
	size_t		n,
				cap;
} TBuf;

/* How to write WKB. */
typedef struct TWkbOpt
{
	int			xdr;			/* big-endian (XDR) instead of NDR */
	int			iso;			/* ISO type codes (1003...) instead of EWKB flags */
	int			with_srid;		/* EWKB: write the SRID flag and value */
	int32_t		srid;
} TWkbOpt;

/* How to write GSERIALIZED (the bytes after the varlena header). */
typedef struct TGserOpt
{
	int			version;		/* 1 (PostGIS 2) or 2 (PostGIS 3) */
	int			bbox;			/* include a float bounding box */
	int			extended;		/* v2: include the 8-byte extended flags */
	int32_t		srid;
} TGserOpt;

extern TGeom *TgNew(int type, int hasz, int hasm);
extern void TgAddRing(TGeom *g, const double *c, int npts);
extern void TgAddChild(TGeom *g, TGeom *child);
extern void TgFree(TGeom *g);
extern int	TgDims(const TGeom *g);

/* Parse (E)WKT; aborts with a message on a syntax error (a test bug). */
extern TGeom *TgParse(const char *wkt);

extern void TBufFree(TBuf *b);
extern void TgWriteWkb(const TGeom *g, const TWkbOpt *opt, TBuf *out);
extern void TgWriteGser(const TGeom *g, const TGserOpt *opt, TBuf *out);

/* WKT straight to EWKB (NDR or XDR), SRID from the text when it has one. */
extern void WktToWkb(const char *wkt, int xdr, TBuf *out);

#endif							/* PB_TEST_WKT_H */
