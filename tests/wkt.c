/*
 * wkt.c: test-only WKT reader and WKB / GSERIALIZED writers (see wkt.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/geom/pb_geom.h"
#include "wkt.h"

/* Allocate or abort. */
static void *
XRealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		abort();
	return p;
}

/* A new, empty geometry of the given type and dimensions. */
TGeom *
TgNew(int type, int hasz, int hasm)
{
	TGeom	   *g = XRealloc(NULL, sizeof(TGeom));

	memset(g, 0, sizeof(*g));
	g->type = type;
	g->hasz = hasz;
	g->hasm = hasm;
	return g;
}

/* Coordinates per point of g. */
int
TgDims(const TGeom *g)
{
	return 2 + g->hasz + g->hasm;
}

/* Append a ring (or point run) of npts points, TgDims(g) doubles each. */
void
TgAddRing(TGeom *g, const double *c, int npts)
{
	size_t		bytes = (size_t) npts * TgDims(g) * sizeof(double);

	g->rings = XRealloc(g->rings, (g->nrings + 1) * sizeof(TRing));
	g->rings[g->nrings].npts = npts;
	g->rings[g->nrings].c = XRealloc(NULL, bytes);
	if (bytes)
		memcpy(g->rings[g->nrings].c, c, bytes);
	g->nrings++;
}

/* Append a child geometry (owned by g from now on). */
void
TgAddChild(TGeom *g, TGeom *child)
{
	g->geoms = XRealloc(g->geoms, (g->ngeoms + 1) * sizeof(TGeom *));
	g->geoms[g->ngeoms++] = child;
}

/* Free a geometry and its children. */
void
TgFree(TGeom *g)
{
	if (g == NULL)
		return;
	for (int i = 0; i < g->nrings; i++)
		free(g->rings[i].c);
	for (int i = 0; i < g->ngeoms; i++)
		TgFree(g->geoms[i]);
	free(g->rings);
	free(g->geoms);
	free(g);
}

/* ---- WKT reader ---- */

typedef struct Parser
{
	const char *s;
	const char *start;
} Parser;

static const struct
{
	const char *name;
	int			type;
}			type_words[] = {
	{"POINT", PB_POINTTYPE}, {"LINESTRING", PB_LINETYPE},
	{"POLYGON", PB_POLYGONTYPE}, {"MULTIPOINT", PB_MULTIPOINTTYPE},
	{"MULTILINESTRING", PB_MULTILINETYPE}, {"MULTIPOLYGON", PB_MULTIPOLYGONTYPE},
	{"GEOMETRYCOLLECTION", PB_COLLECTIONTYPE},
	{"CIRCULARSTRING", PB_CIRCSTRINGTYPE}, {"COMPOUNDCURVE", PB_COMPOUNDTYPE},
	{"CURVEPOLYGON", PB_CURVEPOLYTYPE}, {"MULTICURVE", PB_MULTICURVETYPE},
	{"MULTISURFACE", PB_MULTISURFACETYPE},
	{"POLYHEDRALSURFACE", PB_POLYHEDRALSURFACETYPE},
	{"TRIANGLE", PB_TRIANGLETYPE}, {"TIN", PB_TINTYPE}
};

/* Report a WKT syntax error in a test's input and abort. */
static void
Syntax(const Parser *p, const char *what)
{
	fprintf(stderr, "wkt.c: %s at offset %d of \"%s\"\n", what,
			(int) (p->s - p->start), p->start);
	abort();
}

static void
SkipSpace(Parser *p)
{
	while (isspace((unsigned char) *p->s))
		p->s++;
}

/* Consume character c (after spaces) or fail. */
static void
Expect(Parser *p, char c)
{
	SkipSpace(p);
	if (*p->s != c)
	{
		char		msg[32];

		snprintf(msg, sizeof(msg), "expected '%c'", c);
		Syntax(p, msg);
	}
	p->s++;
}

/* Consume c when it comes next; return whether it did. */
static int
Accept(Parser *p, char c)
{
	SkipSpace(p);
	if (*p->s != c)
		return 0;
	p->s++;
	return 1;
}

/* Read a keyword into buf (upper-cased); return its length (0: none). */
static int
Word(Parser *p, char *buf, int cap)
{
	int			n = 0;

	SkipSpace(p);
	while (isalpha((unsigned char) p->s[n]) && n + 1 < cap)
	{
		buf[n] = (char) toupper((unsigned char) p->s[n]);
		n++;
	}
	buf[n] = '\0';
	return n;
}

/* Whether the next keyword is w (case-insensitive); consume it when so. */
static int
AcceptWord(Parser *p, const char *w)
{
	char		buf[32];
	int			n = Word(p, buf, sizeof(buf));

	if (n == 0 || strcmp(buf, w) != 0)
		return 0;
	p->s += n;
	return 1;
}

/* Read one point of dims numbers into out. */
static void
ParsePoint(Parser *p, double *out, int dims)
{
	for (int k = 0; k < dims; k++)
	{
		char	   *end;

		SkipSpace(p);
		out[k] = strtod(p->s, &end);
		if (end == p->s)
			Syntax(p, "expected a number");
		p->s = end;
	}
}

/* Read "(x y, x y, ...)" as one ring of g. */
static void
ParsePointList(Parser *p, TGeom *g)
{
	int			dims = TgDims(g),
				n = 0,
				cap = 16;
	double	   *c = XRealloc(NULL, cap * dims * sizeof(double));

	Expect(p, '(');
	do
	{
		if (n == cap)
			c = XRealloc(c, (cap *= 2) * dims * sizeof(double));
		ParsePoint(p, c + (size_t) n * dims, dims);
		n++;
	} while (Accept(p, ','));
	Expect(p, ')');
	TgAddRing(g, c, n);
	free(c);
}

static TGeom *ParseTagged(Parser *p, int hasz, int hasm);

/* Default type of an untagged member of collection type t. */
static int
MemberType(int t)
{
	switch (t)
	{
		case PB_MULTIPOINTTYPE:
			return PB_POINTTYPE;
		case PB_MULTILINETYPE:
		case PB_COMPOUNDTYPE:
		case PB_CURVEPOLYTYPE:
		case PB_MULTICURVETYPE:
			return PB_LINETYPE;
		case PB_MULTIPOLYGONTYPE:
		case PB_MULTISURFACETYPE:
		case PB_POLYHEDRALSURFACETYPE:
			return PB_POLYGONTYPE;
		case PB_TINTYPE:
			return PB_TRIANGLETYPE;
		default:
			return 0;
	}
}

/* Read the parenthesized body of a geometry of g's type into g. */
static void
ParseBody(Parser *p, TGeom *g)
{
	switch (g->type)
	{
		case PB_POINTTYPE:
		case PB_LINETYPE:
		case PB_CIRCSTRINGTYPE:
			ParsePointList(p, g);
			return;
		case PB_POLYGONTYPE:
		case PB_TRIANGLETYPE:
			Expect(p, '(');
			do
				ParsePointList(p, g);
			while (Accept(p, ','));
			Expect(p, ')');
			return;
		default:
			break;
	}
	Expect(p, '(');
	do
	{
		int			mt = MemberType(g->type);
		TGeom	   *child;

		SkipSpace(p);
		if (mt != 0 && AcceptWord(p, "EMPTY"))
			child = TgNew(mt, g->hasz, g->hasm);
		else if (mt != 0 && *p->s == '(')
		{
			child = TgNew(mt, g->hasz, g->hasm);
			ParseBody(p, child);
		}
		else if (mt == PB_POINTTYPE)
		{
			/* MULTIPOINT(1 2, 3 4): bare points */
			double		c[4];

			child = TgNew(mt, g->hasz, g->hasm);
			ParsePoint(p, c, TgDims(child));
			TgAddRing(child, c, 1);
		}
		else
			child = ParseTagged(p, g->hasz, g->hasm);
		TgAddChild(g, child);
	} while (Accept(p, ','));
	Expect(p, ')');
}

/* Read "TYPE [Z|M|ZM] (EMPTY | body)"; untagged dims come from the parent. */
static TGeom *
ParseTagged(Parser *p, int hasz, int hasm)
{
	char		buf[32];
	int			n = Word(p, buf, sizeof(buf)),
				type = 0;
	TGeom	   *g;

	for (size_t i = 0; i < sizeof(type_words) / sizeof(type_words[0]); i++)
		if (strcmp(buf, type_words[i].name) == 0)
			type = type_words[i].type;
	if (n == 0 || type == 0)
		Syntax(p, "expected a geometry type");
	p->s += n;
	if (AcceptWord(p, "ZM"))
		hasz = hasm = 1;
	else if (AcceptWord(p, "Z"))
		hasz = 1, hasm = 0;
	else if (AcceptWord(p, "M"))
		hasz = 0, hasm = 1;
	g = TgNew(type, hasz, hasm);
	if (!AcceptWord(p, "EMPTY"))
		ParseBody(p, g);
	return g;
}

/* Parse (E)WKT; abort on a syntax error. */
TGeom *
TgParse(const char *wkt)
{
	Parser		p = {wkt, wkt};
	int			srid = 0;
	TGeom	   *g;

	if (AcceptWord(&p, "SRID"))
	{
		char	   *end;

		Expect(&p, '=');
		srid = (int) strtol(p.s, &end, 10);
		p.s = end;
		Expect(&p, ';');
	}
	g = ParseTagged(&p, 0, 0);
	g->srid = srid;
	SkipSpace(&p);
	if (*p.s != '\0')
		Syntax(&p, "trailing text");
	return g;
}

/* ---- writers ---- */

void
TBufFree(TBuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* Append n bytes. */
static void
Put(TBuf *b, const void *src, size_t n)
{
	if (b->n + n > b->cap)
	{
		b->cap = (b->n + n) * 2 + 64;
		b->p = XRealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, src, n);
	b->n += n;
}

/* Append n bytes, reversed when swap. */
static void
PutOrdered(TBuf *b, const void *src, size_t n, int swap)
{
	uint8_t		tmp[8];

	for (size_t i = 0; i < n; i++)
		tmp[i] = swap ? ((const uint8_t *) src)[n - 1 - i] : ((const uint8_t *) src)[i];
	Put(b, tmp, n);
}

static int
HostLittle(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *) &one == 1;
}

/* WKB type number of a PostGIS type number. */
static uint32_t
WkbTypeNumber(int type)
{
	switch (type)
	{
		case PB_POLYHEDRALSURFACETYPE:
			return 15;
		case PB_TRIANGLETYPE:
			return 17;
		case PB_TINTYPE:
			return 16;
		default:
			return (uint32_t) type;
	}
}

/* Write the points of ring r of g. */
static void
PutCoords(TBuf *b, const TGeom *g, const TRing *r, int swap)
{
	for (int i = 0; i < r->npts * TgDims(g); i++)
		PutOrdered(b, &r->c[i], 8, swap);
}

/* Write one WKB geometry; top says whether it may carry the SRID. */
static void
WriteWkb(const TGeom *g, const TWkbOpt *opt, int top, TBuf *b)
{
	int			swap = (opt->xdr != 0) == HostLittle();
	uint8_t		order = opt->xdr ? 0 : 1;
	uint32_t	code = WkbTypeNumber(g->type),
				n;

	Put(b, &order, 1);
	if (opt->iso)
		code += 1000 * g->hasz + 2000 * g->hasm;
	else
	{
		if (g->hasz)
			code |= 0x80000000u;
		if (g->hasm)
			code |= 0x40000000u;
		if (top && opt->with_srid)
			code |= 0x20000000u;
	}
	PutOrdered(b, &code, 4, swap);
	if (!opt->iso && top && opt->with_srid)
		PutOrdered(b, &opt->srid, 4, swap);
	switch (g->type)
	{
		case PB_POINTTYPE:
			if (g->nrings == 0)
			{
				double		nan_ = NAN;

				for (int k = 0; k < TgDims(g); k++)
					PutOrdered(b, &nan_, 8, swap);
			}
			else
				PutCoords(b, g, &g->rings[0], swap);
			return;
		case PB_LINETYPE:
		case PB_CIRCSTRINGTYPE:
			n = g->nrings ? (uint32_t) g->rings[0].npts : 0;
			PutOrdered(b, &n, 4, swap);
			if (g->nrings)
				PutCoords(b, g, &g->rings[0], swap);
			return;
		case PB_POLYGONTYPE:
		case PB_TRIANGLETYPE:
			n = (uint32_t) g->nrings;
			PutOrdered(b, &n, 4, swap);
			for (int i = 0; i < g->nrings; i++)
			{
				n = (uint32_t) g->rings[i].npts;
				PutOrdered(b, &n, 4, swap);
				PutCoords(b, g, &g->rings[i], swap);
			}
			return;
		default:
			n = (uint32_t) g->ngeoms;
			PutOrdered(b, &n, 4, swap);
			for (int i = 0; i < g->ngeoms; i++)
				WriteWkb(g->geoms[i], opt, 0, b);
			return;
	}
}

/* Write g as (E)WKB or ISO WKB into out (replacing its contents). */
void
TgWriteWkb(const TGeom *g, const TWkbOpt *opt, TBuf *out)
{
	out->n = 0;
	WriteWkb(g, opt, 1, out);
}

/* Grow the float bounding box (per dimension min, max) over g's points. */
static void
BoxOf(const TGeom *g, int dims, float *box, int *any)
{
	for (int r = 0; r < g->nrings; r++)
		for (int i = 0; i < g->rings[r].npts; i++)
			for (int k = 0; k < dims; k++)
			{
				float		v = (float) g->rings[r].c[(size_t) i * dims + k];

				if (!*any || v < box[2 * k])
					box[2 * k] = v;
				if (!*any || v > box[2 * k + 1])
					box[2 * k + 1] = v;
				if (k + 1 == dims)
					*any = 1;
			}
	for (int i = 0; i < g->ngeoms; i++)
		BoxOf(g->geoms[i], dims, box, any);
}

static void
PutU32(TBuf *b, uint32_t v)
{
	Put(b, &v, 4);
}

/* Write one GSERIALIZED body (native byte order). */
static void
WriteGserBody(const TGeom *g, TBuf *b)
{
	PutU32(b, (uint32_t) g->type);
	switch (g->type)
	{
		case PB_POINTTYPE:
		case PB_LINETYPE:
		case PB_CIRCSTRINGTYPE:
		case PB_TRIANGLETYPE:
			PutU32(b, g->nrings ? (uint32_t) g->rings[0].npts : 0);
			if (g->nrings)
				Put(b, g->rings[0].c, (size_t) g->rings[0].npts * TgDims(g) * 8);
			return;
		case PB_POLYGONTYPE:
			PutU32(b, (uint32_t) g->nrings);
			for (int i = 0; i < g->nrings; i++)
				PutU32(b, (uint32_t) g->rings[i].npts);
			if (g->nrings & 1)
				PutU32(b, 0);
			for (int i = 0; i < g->nrings; i++)
				Put(b, g->rings[i].c, (size_t) g->rings[i].npts * TgDims(g) * 8);
			return;
		default:
			PutU32(b, (uint32_t) g->ngeoms);
			for (int i = 0; i < g->ngeoms; i++)
				WriteGserBody(g->geoms[i], b);
			return;
	}
}

/* Write g as GSERIALIZED (after the varlena header) into out. */
void
TgWriteGser(const TGeom *g, const TGserOpt *opt, TBuf *out)
{
	uint32_t	s = (uint32_t) opt->srid & 0x1fffff;
	uint8_t		hdr[4] = {(uint8_t) (s >> 16), (uint8_t) (s >> 8), (uint8_t) s, 0};

	out->n = 0;
	hdr[3] = (uint8_t) ((g->hasz ? 0x01 : 0) | (g->hasm ? 0x02 : 0) |
						(opt->bbox ? 0x04 : 0));
	if (opt->version == 2)
		hdr[3] |= 0x40 | (opt->extended ? 0x10 : 0);
	Put(out, hdr, 4);
	if (opt->version == 2 && opt->extended)
	{
		uint64_t	xflags = 0;

		Put(out, &xflags, 8);
	}
	if (opt->bbox)
	{
		float		box[8] = {0};
		int			any = 0;

		BoxOf(g, TgDims(g), box, &any);
		Put(out, box, (size_t) TgDims(g) * 2 * sizeof(float));
	}
	WriteGserBody(g, out);
}

/* WKT to EWKB in the given byte order, with the SRID flag when it has one. */
void
WktToWkb(const char *wkt, int xdr, TBuf *out)
{
	TGeom	   *g = TgParse(wkt);
	TWkbOpt		opt = {xdr, 0, g->srid != 0, g->srid};

	TgWriteWkb(g, &opt, out);
	TgFree(g);
}
