/*
 * parse_text.c: one line of a polygon text file into a batch shape (the
 * "parser" stage of SCCG; see parse_text.h for the accepted formats).
 *
 * The line is scanned once, left to right, by hand-written recursive
 * descent; each ring's x and y go to a scratch array (on the stack for
 * rings of up to STACK_POINTS points) and from there through
 * PbShapeBuilder, exactly as PbDecodeEwkb hands WKB rings to it, so the
 * shape (int or double storage, area, box) is the same.  Z and M values
 * are read, checked to be finite and dropped, as the builder does.
 *
 * Numbers are converted without strtod when that is exact (Clinger's fast
 * path: at most 19 significant digits forming an integer m <= 2^53 after
 * trailing zeros are dropped, and a power of ten within 1e+-22, so m * 10^e
 * or m / 10^-e is one correctly rounded IEEE operation): this covers the
 * integer and short decimal coordinates of segmentation output.  Other
 * numbers go to strtod (correctly rounded in glibc) as digits and an
 * exponent without a decimal point, so no LC_NUMERIC setting changes a
 * result.  Only the grammar of ScanNumber reaches strtod (no hex floats,
 * no "inf"/"nan", which are reported as non-finite).
 *
 * Errors say what was wrong and where: "... at column N", N the 1-based
 * byte offset in the line.  A failed line leaves the batch as it was.
 *
 * For pb_read_polygons the same descent also writes the geometry as EWKB
 * (ewkb_write.h) as it goes: one parser decides what a file holds.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ewkb_write.h"
#include "parse_text.h"
#include "shape_build.h"

/* Points of a ring held on the stack before the scratch array is allocated. */
#define STACK_POINTS 256

/* The exact fast path needs double arithmetic without excess precision. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define PB_FAST_DECIMAL 1
#else
#define PB_FAST_DECIMAL 0
#endif

/* 2^53: every integer from 0 to 2^53 is exactly a double. */
#define TWO_POW_53 UINT64_C(9007199254740992)

/* The powers of ten that are exact doubles. */
static const double exact_pow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/* Geometry type keywords of WKT, with PostGIS type numbers. */
static const struct
{
	const char *name;
	int			type;
}			wkt_types[] = {
	{"POINT", PB_POINTTYPE}, {"LINESTRING", PB_LINETYPE},
	{"POLYGON", PB_POLYGONTYPE}, {"MULTIPOINT", PB_MULTIPOINTTYPE},
	{"MULTILINESTRING", PB_MULTILINETYPE},
	{"MULTIPOLYGON", PB_MULTIPOLYGONTYPE},
	{"GEOMETRYCOLLECTION", PB_COLLECTIONTYPE},
	{"CIRCULARSTRING", PB_CIRCSTRINGTYPE},
	{"COMPOUNDCURVE", PB_COMPOUNDTYPE}, {"CURVEPOLYGON", PB_CURVEPOLYTYPE},
	{"MULTICURVE", PB_MULTICURVETYPE}, {"MULTISURFACE", PB_MULTISURFACETYPE},
	{"POLYHEDRALSURFACE", PB_POLYHEDRALSURFACETYPE},
	{"TRIANGLE", PB_TRIANGLETYPE}, {"TIN", PB_TINTYPE}
};

/* Parsing state of one line. */
typedef struct TextCursor
{
	const char *line;			/* first byte: column 1 */
	const char *p;				/* next byte to read */
	const char *end;			/* end of the line, terminator excluded */
	PbError    *err;
	const PbAllocator *mem;
	PbEwkb	   *wkb;			/* the line's geometry as EWKB, or NULL */
	double	   *pts;			/* x, y of the points of the current ring */
	uint32_t	npts,
				cap;			/* in points */
	double		stack[2 * STACK_POINTS];
} TextCursor;

/* Whether ch is whitespace (the C locale's isspace, without a locale). */
static inline int
IsSpace(char ch)
{
	return ch == ' ' || (ch >= '\t' && ch <= '\r');
}

/* Whether ch is an ASCII decimal digit. */
static inline int
IsDigit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Whether ch is an ASCII letter. */
static inline int
IsAlpha(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Skip whitespace at the cursor. */
static inline void
SkipSpace(TextCursor *c)
{
	while (c->p < c->end && IsSpace(*c->p))
		c->p++;
}

/* Column (1-based byte offset) of position at. */
static size_t
Column(const TextCursor *c, const char *at)
{
	return (size_t) (at - c->line) + 1;
}

/* Describe the byte at position at for a message ("'x'", "end of line"). */
static const char *
Found(const TextCursor *c, const char *at, char *buf, size_t buflen)
{
	unsigned char ch;

	if (at >= c->end)
		return "end of line";
	ch = (unsigned char) *at;
	if (ch > ' ' && ch < 127)
		snprintf(buf, buflen, "'%c'", ch);
	else
		snprintf(buf, buflen, "byte 0x%02x", ch);
	return buf;
}

/* Record an error (message plus " at column N" for position at); return its code. */
static PbStatus
TextFail(TextCursor *c, PbStatus code, const char *at, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

static PbStatus
TextFail(TextCursor *c, PbStatus code, const char *at, const char *fmt,...)
{
	char		desc[150];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	c->err->code = code;
	snprintf(c->err->message, sizeof(c->err->message), "%s at column %zu",
			 desc, Column(c, at));
	return code;
}

/* Report a syntax error: expected what, found the byte at the cursor. */
static PbStatus
Expected(TextCursor *c, const char *what)
{
	char		buf[16];

	return TextFail(c, PB_ERR_FORMAT, c->p, "expected %s, found %s", what,
					Found(c, c->p, buf, sizeof(buf)));
}

/* Report a line that ends inside the parenthesis opened at open. */
static PbStatus
Unterminated(TextCursor *c, const char *open)
{
	return TextFail(c, PB_ERR_FORMAT, c->p,
					"unterminated parenthesis (opened at column %zu): line ends",
					Column(c, open));
}

/* Grow the scratch point array (from the stack to the allocator). */
static PbStatus
GrowPoints(TextCursor *c)
{
	size_t		bytes;

	if (c->cap > UINT32_MAX / 4)
		return TextFail(c, PB_ERR_FORMAT, c->p, "ring has too many points");
	bytes = (size_t) c->cap * 2 * 2 * sizeof(double);
	if (c->pts == c->stack)
	{
		c->pts = c->mem->alloc(c->mem->ctx, bytes);
		memcpy(c->pts, c->stack, sizeof(c->stack));
	}
	else
		c->pts = c->mem->resize(c->mem->ctx, c->pts, bytes);
	c->cap *= 2;
	return PB_OK;
}

/* Append point (x, y) to the scratch array. */
static inline PbStatus
PushPoint(TextCursor *c, double x, double y)
{
	if (c->npts == c->cap && GrowPoints(c) != PB_OK)
		return c->err->code;
	c->pts[2 * (size_t) c->npts] = x;
	c->pts[2 * (size_t) c->npts + 1] = y;
	c->npts++;
	return PB_OK;
}

/*
 * Make the closing point of the ring in the scratch array its first point
 * bit for bit (-0 closes a ring opened at 0, and then becomes 0), so the
 * shape and the EWKB hold the same ring PostGIS would.
 */
static void
CloseExactly(TextCursor *c)
{
	c->pts[2 * (size_t) c->npts - 2] = c->pts[0];
	c->pts[2 * (size_t) c->npts - 1] = c->pts[1];
}

/* Length of the letters at p (up to end). */
static size_t
WordLength(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && IsAlpha(*q))
		q++;
	return (size_t) (q - p);
}

/* Whether the word of n letters at p is w (upper case), ignoring case. */
static int
WordIs(const char *p, size_t n, const char *w)
{
	if (strlen(w) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((p[i] & ~0x20) != w[i])
			return 0;
	return 1;
}

/* Whether an optionally signed nan / inf / infinity starts at p. */
static int
IsNonFiniteWord(const char *p, const char *end)
{
	size_t		n;

	if (p < end && (*p == '+' || *p == '-'))
		p++;
	n = WordLength(p, end);
	return WordIs(p, n, "NAN") || WordIs(p, n, "INF") || WordIs(p, n, "INFINITY");
}

/*
 * Convert the number token [start, stop) (already checked by ScanNumber)
 * with strtod, for what the fast path cannot do exactly.  strtod is given
 * the token without its decimal point, the exponent adjusted ("12.5e3" as
 * "125e2"): sign, digits and exponent are read the same in every locale,
 * so LC_NUMERIC cannot change the result (and localeconv(), which is not
 * thread-safe, is not needed).
 */
static PbStatus
SlowNumber(TextCursor *c, const char *start, const char *stop, double *out)
{
	size_t		need = (size_t) (stop - start) + 24;
	char		local[128];
	char	   *buf = need <= sizeof(local) ? local : c->mem->alloc(c->mem->ctx, need);
	char	   *w = buf,
			   *parsed;
	const char *q = start;
	int64_t		nfrac = 0,
				ev = 0;
	int			in_frac = 0,
				eneg = 0,
				whole;
	double		v;

	for (; q < stop && *q != 'e' && *q != 'E'; q++)
	{
		if (*q == '.')
			in_frac = 1;
		else
		{
			*w++ = *q;
			nfrac += in_frac && IsDigit(*q);
		}
	}
	if (q < stop)
	{
		/* exponent digits; beyond 10^15 the value is 0 or infinite anyway */
		q++;
		if (*q == '+' || *q == '-')
			eneg = (*q++ == '-');
		for (; q < stop; q++)
			if (ev < INT64_C(1000000000000000))
				ev = ev * 10 + (*q - '0');
	}
	snprintf(w, 24, "e%lld", (long long) ((eneg ? -ev : ev) - nfrac));
	v = strtod(buf, &parsed);
	whole = (*parsed == '\0');	/* read before buf is released */
	if (buf != local)
		c->mem->release(c->mem->ctx, buf);
	if (!whole)
		return TextFail(c, PB_ERR_FORMAT, start, "malformed number");
	if (!isfinite(v))
		return TextFail(c, PB_ERR_NONFINITE, start,
						"number out of the range of doubles (not finite)");
	*out = v;
	return PB_OK;
}

/*
 * Read a decimal number ([+-] digits [. digits] [e [+-] digits], or
 * [+-] . digits ...) at the cursor into *out; nan and inf are errors.
 * What may follow the number is the caller's business.
 */
static PbStatus
ScanNumber(TextCursor *c, double *out)
{
	const char *p = c->p,
			   *end = c->end,
			   *start = p;
	int			neg = 0,
				ndig = 0,		/* significant digits in m */
				any = 0,		/* any digit at all */
				inexact = 0;	/* a nonzero digit did not fit in m */
	uint64_t	m = 0;
	int64_t		exp10 = 0;

	if (p < end && (*p == '+' || *p == '-'))
		neg = (*p++ == '-');
	for (; p < end && IsDigit(*p); p++)
	{
		any = 1;
		if (ndig < 19)
		{
			m = m * 10 + (uint64_t) (*p - '0');
			ndig += (m != 0);
		}
		else
		{
			exp10++;
			inexact |= (*p != '0');
		}
	}
	if (p < end && *p == '.')
	{
		for (p++; p < end && IsDigit(*p); p++)
		{
			any = 1;
			if (ndig < 19)
			{
				m = m * 10 + (uint64_t) (*p - '0');
				ndig += (m != 0);
				exp10--;
			}
			else
				inexact |= (*p != '0');
		}
	}
	if (!any)
	{
		char		buf[16];

		if (IsNonFiniteWord(start, end))
			return TextFail(c, PB_ERR_NONFINITE, start,
							"non-finite coordinate (NaN or Infinity)");
		return TextFail(c, PB_ERR_FORMAT, start, "expected a number, found %s",
						Found(c, start, buf, sizeof(buf)));
	}
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		const char *q = p + 1;
		int			eneg = 0;
		int64_t		ev = 0;

		if (q < end && (*q == '+' || *q == '-'))
			eneg = (*q++ == '-');
		if (q >= end || !IsDigit(*q))
			return TextFail(c, PB_ERR_FORMAT, start,
							"malformed number: exponent without digits");
		for (; q < end && IsDigit(*q); q++)
			if (ev < 1000000)
				ev = ev * 10 + (*q - '0');
		exp10 += eneg ? -ev : ev;
		p = q;
	}
	c->p = p;
	if (m == 0)
	{
		*out = neg ? -0.0 : 0.0;
		return PB_OK;
	}
	if (PB_FAST_DECIMAL && !inexact)
	{
		while (m > TWO_POW_53 && m % 10 == 0)
		{
			m /= 10;
			exp10++;
		}
		if (m <= TWO_POW_53 && exp10 >= -22 && exp10 <= 22)
		{
			double		v = (double) m;

			v = exp10 < 0 ? v / exact_pow10[-exp10] : v * exact_pow10[exp10];
			*out = neg ? -v : v;
			return PB_OK;
		}
	}
	return SlowNumber(c, start, p, out);
}

/*
 * Fail, pointing at the number (at start), when coordinate v is beyond
 * the builder's +-PB_COORD_LIMIT, with the builder's reason.
 */
static PbStatus
CheckCoordinate(TextCursor *c, double v, const char *start)
{
	if (fabs(v) <= PB_COORD_LIMIT)
		return PB_OK;
	return TextFail(c, PB_ERR_NONFINITE, start,
					"polygon coordinate beyond +-1e150, where area arithmetic would overflow");
}

/*
 * Read an optionally signed decimal integer within [lo, hi] at the cursor
 * (the line's id, an SRID); what names it in messages.
 */
static PbStatus
ScanInteger(TextCursor *c, int64_t lo, int64_t hi, const char *what,
			int64_t *out)
{
	const char *start = c->p;
	int			neg = 0;
	uint64_t	v = 0,
				limit;

	if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
		neg = (*c->p++ == '-');
	limit = neg ? (uint64_t) 0 - (uint64_t) lo : (uint64_t) hi;
	if (c->p >= c->end || !IsDigit(*c->p))
	{
		char		buf[16];

		return TextFail(c, PB_ERR_FORMAT, start, "expected %s, found %s", what,
						Found(c, start, buf, sizeof(buf)));
	}
	for (; c->p < c->end && IsDigit(*c->p); c->p++)
	{
		unsigned	d = (unsigned) (*c->p - '0');

		if (v > (limit - d) / 10)
			return TextFail(c, PB_ERR_FORMAT, start, "%s out of range", what);
		v = v * 10 + d;
	}
	*out = neg ? (int64_t) (0 - v) : (int64_t) v;
	return PB_OK;
}

/*
 * Read one WKT point (2 to 4 numbers separated by whitespace) of a ring
 * opened at open; push its x, y.  *dims is the number of ordinates every
 * point must have (0: not known yet, set from this point).
 */
static PbStatus
ParseWktPoint(TextCursor *c, int *dims, const char *open)
{
	double		v[4];
	int			k;
	const char *start = c->p;

	for (k = 0;; k++)
	{
		const char *before = c->p,
				   *number;

		SkipSpace(c);
		if (c->p >= c->end)
			return Unterminated(c, open);
		if (k > 0)
		{
			char		buf[16];

			if (*c->p == ',' || *c->p == ')')
				break;
			if (c->p == before)
				return TextFail(c, PB_ERR_FORMAT, c->p,
								"unexpected %s after a number",
								Found(c, c->p, buf, sizeof(buf)));
		}
		if (k == 4)
			return TextFail(c, PB_ERR_FORMAT, c->p,
							"a point has more than 4 ordinates");
		number = c->p;
		if (ScanNumber(c, &v[k]) != PB_OK ||
			(k < 2 && CheckCoordinate(c, v[k], number) != PB_OK))
			return c->err->code;
	}
	if (k < 2)
		return TextFail(c, PB_ERR_FORMAT, c->p,
						"missing coordinate: a point needs x and y");
	if (*dims == 0)
		*dims = k;
	else if (k != *dims)
		return TextFail(c, PB_ERR_FORMAT, start,
						"point has %d ordinates where %d were expected (mixed dimensions)",
						k, *dims);
	if (c->wkb != NULL)
		PbEwkbDoubles(c->wkb, v, k);
	return PushPoint(c, v[0], v[1]);
}

/*
 * Read one ring "(x y, x y, ...)" inside the parenthesis opened at outer
 * and add it to the shape: at least 4 points, closed, as PostGIS requires.
 */
static PbStatus
ParseWktRing(TextCursor *c, PbShapeBuilder *sb, int *dims, int is_shell,
			 const char *outer)
{
	const char *open;
	size_t		slot = 0;

	SkipSpace(c);
	if (c->p >= c->end)
		return Unterminated(c, outer);
	if (*c->p != '(')
		return Expected(c, "'(' opening a ring");
	open = c->p++;
	c->npts = 0;
	if (c->wkb != NULL)
		slot = PbEwkbCountSlot(c->wkb);
	for (;;)
	{
		if (ParseWktPoint(c, dims, open) != PB_OK)
			return c->err->code;
		/* ParseWktPoint stops at ',' or ')' */
		if (*c->p++ == ')')
			break;
	}
	if (c->npts < 4)
		return TextFail(c, PB_ERR_FORMAT, open,
						"too few points: a polygon ring needs at least 4, found %u",
						c->npts);
	if (c->pts[0] != c->pts[2 * (size_t) c->npts - 2] ||
		c->pts[1] != c->pts[2 * (size_t) c->npts - 1])
		return TextFail(c, PB_ERR_FORMAT, open,
						"polygon ring is not closed (its last point differs from its first)");
	CloseExactly(c);
	if (c->wkb != NULL)
	{
		PbEwkbSetCount(c->wkb, slot, c->npts);
		PbEwkbCloseRing(c->wkb, slot, c->npts, *dims);
	}
	return PbBuildRing(sb, (const uint8_t *) c->pts, c->npts, 2, 0, is_shell);
}

/* Read a polygon body "(ring, ring, ...)" (within outer, when nested). */
static PbStatus
ParseWktPolygon(TextCursor *c, PbShapeBuilder *sb, int *dims,
				const char *outer)
{
	const char *open;
	size_t		slot = 0;

	SkipSpace(c);
	if (c->p >= c->end && outer != NULL)
		return Unterminated(c, outer);
	if (c->p >= c->end || *c->p != '(')
		return Expected(c, "'(' or EMPTY");
	open = c->p++;
	if (c->wkb != NULL)
		slot = PbEwkbCountSlot(c->wkb);
	for (uint32_t nrings = 1;; nrings++)
	{
		if (ParseWktRing(c, sb, dims, nrings == 1, open) != PB_OK)
			return c->err->code;
		SkipSpace(c);
		if (c->p >= c->end)
			return Unterminated(c, open);
		if (*c->p == ')')
		{
			c->p++;
			if (c->wkb != NULL)
				PbEwkbSetCount(c->wkb, slot, nrings);
			return PB_OK;
		}
		if (*c->p != ',')
			return Expected(c, "',' or ')' after a ring");
		c->p++;
	}
}

/* Read a multipolygon body "(polygon | EMPTY, ...)". */
static PbStatus
ParseWktMulti(TextCursor *c, PbShapeBuilder *sb, int *dims)
{
	const char *open;
	size_t		slot = 0;

	SkipSpace(c);
	if (c->p >= c->end || *c->p != '(')
		return Expected(c, "'(' or EMPTY");
	open = c->p++;
	if (c->wkb != NULL)
		slot = PbEwkbCountSlot(c->wkb);
	for (uint32_t nparts = 1;; nparts++)
	{
		size_t		n;

		SkipSpace(c);
		n = WordLength(c->p, c->end);
		if (c->wkb != NULL)
			PbEwkbHeader(c->wkb, PB_POLYGONTYPE, 0);
		if (n > 0)
		{
			if (!WordIs(c->p, n, "EMPTY"))
				return Expected(c, "'(' or EMPTY");
			c->p += n;
			if (c->wkb != NULL)
				PbEwkbCountSlot(c->wkb);	/* no rings */
		}
		else if (ParseWktPolygon(c, sb, dims, open) != PB_OK)
			return c->err->code;
		SkipSpace(c);
		if (c->p >= c->end)
			return Unterminated(c, open);
		if (*c->p == ')')
		{
			c->p++;
			if (c->wkb != NULL)
				PbEwkbSetCount(c->wkb, slot, nparts);
			return PB_OK;
		}
		if (*c->p != ',')
			return Expected(c, "',' or ')' after a polygon");
		c->p++;
	}
}

/*
 * Split a type keyword (n letters at p, possibly with a Z, M or ZM suffix
 * attached) into its PostGIS type number and dimensions (*hasm: the
 * suffix has an M); 0 if unknown.
 */
static int
WktTypeOf(const char *p, size_t n, int *dims, int *hasm)
{
	static const char *const suffixes[] = {"", "Z", "M", "ZM"};
	static const int suffix_dims[] = {0, 3, 3, 4};

	for (size_t i = 0; i < sizeof(wkt_types) / sizeof(wkt_types[0]); i++)
	{
		size_t		len = strlen(wkt_types[i].name);

		if (n < len || !WordIs(p, len, wkt_types[i].name))
			continue;
		for (int s = 0; s < 4; s++)
			if (WordIs(p + len, n - len, suffixes[s]))
			{
				*dims = suffix_dims[s];
				*hasm = (s >= 2);
				return wkt_types[i].type;
			}
	}
	return 0;
}

/* Parse "[SRID=n;] TYPE [Z|M|ZM] (EMPTY | body)" to the end of the line. */
static PbStatus
ParseWkt(TextCursor *c, PbBatch *b, uint32_t *shape)
{
	int64_t		srid = 0;
	int			type,
				dims = 0,
				hasm = 0,
				empty = 0;
	size_t		n = WordLength(c->p, c->end),
				start = c->wkb != NULL ? c->wkb->len : 0;
	const char *word = c->p;
	PbShapeBuilder sb;

	if (WordIs(word, n, "SRID"))
	{
		c->p += n;
		SkipSpace(c);
		if (c->p >= c->end || *c->p != '=')
			return Expected(c, "'=' after SRID");
		c->p++;
		SkipSpace(c);
		if (ScanInteger(c, INT32_MIN, INT32_MAX, "an SRID", &srid) != PB_OK)
			return c->err->code;
		SkipSpace(c);
		if (c->p >= c->end || *c->p != ';')
			return Expected(c, "';' after the SRID");
		c->p++;
		SkipSpace(c);
		word = c->p;
		n = WordLength(c->p, c->end);
		if (n == 0)
			return Expected(c, "a geometry type");
	}
	type = WktTypeOf(word, n, &dims, &hasm);
	if (type == 0)
		return TextFail(c, PB_ERR_FORMAT, word, "unknown geometry type \"%.*s\"",
						(int) (n < 40 ? n : 40), word);
	if (type != PB_POLYGONTYPE && type != PB_MULTIPOLYGONTYPE)
		return TextFail(c, PB_ERR_UNSUPPORTED, word,
						"%s geometries are not supported (only Polygon and MultiPolygon)",
						PbGeomTypeName(type));
	c->p += n;
	SkipSpace(c);
	n = WordLength(c->p, c->end);
	if (dims == 0 && (WordIs(c->p, n, "Z") || WordIs(c->p, n, "M") || WordIs(c->p, n, "ZM")))
	{
		dims = (int) n + 2;
		hasm = !WordIs(c->p, n, "Z");
		c->p += n;
		SkipSpace(c);
		n = WordLength(c->p, c->end);
	}
	if (WordIs(c->p, n, "EMPTY"))
	{
		c->p += n;
		empty = 1;
	}
	else if (n > 0)
		return Expected(c, "'(' or EMPTY");

	PbBuildBegin(&sb, b, type, (int32_t) srid, c->err);
	if (c->wkb != NULL)
	{
		PbEwkbHeader(c->wkb, type, (int32_t) srid);
		if (empty)
			PbEwkbCountSlot(c->wkb);	/* no rings or parts */
	}
	if (!empty &&
		(type == PB_POLYGONTYPE ? ParseWktPolygon(c, &sb, &dims, NULL)
		 : ParseWktMulti(c, &sb, &dims)) != PB_OK)
		return PbBuildAbort(&sb);
	SkipSpace(c);
	if (c->p < c->end)
	{
		char		buf[16];

		TextFail(c, PB_ERR_FORMAT, c->p, "unexpected %s after the geometry",
				 Found(c, c->p, buf, sizeof(buf)));
		return PbBuildAbort(&sb);
	}
	/* without a tag, 3 ordinates are x y z and 4 are x y z m, as in PostGIS */
	if (c->wkb != NULL && dims > 2)
		PbEwkbSetDims(c->wkb, start, !hasm || dims == 4, hasm || dims == 4, dims);
	*shape = PbBuildEnd(&sb);
	return PB_OK;
}

/*
 * Parse the numbers after a list line's id as the x, y of one ring; close
 * it and check it has 3 distinct points.  The cursor is just after the id.
 */
static PbStatus
ParseList(TextCursor *c, PbBatch *b, uint32_t *shape)
{
	const char *first = NULL,
			   *last = NULL;
	size_t		nnum = 0;
	double		x = 0.0;
	uint32_t	distinct = 0,
				n;
	PbShapeBuilder sb;

	for (;;)
	{
		const char *sep = c->p;
		double		v;

		SkipSpace(c);
		if (c->p < c->end && *c->p == ',')
		{
			c->p++;
			SkipSpace(c);
			if (c->p >= c->end)
				return Expected(c, "a number after ','");
		}
		if (c->p >= c->end)
			break;
		if (c->p == sep)
			return Expected(c, "whitespace or ',' between numbers");
		last = c->p;
		if (first == NULL)
			first = c->p;
		if (ScanNumber(c, &v) != PB_OK || CheckCoordinate(c, v, last) != PB_OK)
			return c->err->code;
		if (nnum++ & 1)
		{
			if (PushPoint(c, x, v) != PB_OK)
				return c->err->code;
		}
		else
			x = v;
	}
	if (nnum & 1)
		return TextFail(c, PB_ERR_FORMAT, last,
						"odd number of coordinates (%zu): the last x has no y", nnum);
	n = c->npts;
	/* close the ring; count distinct points up to 3 */
	if (n > 0 && (c->pts[0] != c->pts[2 * (size_t) n - 2] ||
				  c->pts[1] != c->pts[2 * (size_t) n - 1]))
	{
		if (PushPoint(c, c->pts[0], c->pts[1]) != PB_OK)
			return c->err->code;
	}
	if (n > 0)
	{
		uint32_t	i = 1,
					j;

		distinct = 1;
		while (i < n && c->pts[2 * i] == c->pts[0] && c->pts[2 * i + 1] == c->pts[1])
			i++;
		if (i < n)
		{
			distinct = 2;
			for (j = i + 1; j < n; j++)
				if ((c->pts[2 * j] != c->pts[0] || c->pts[2 * j + 1] != c->pts[1]) &&
					(c->pts[2 * j] != c->pts[2 * i] || c->pts[2 * j + 1] != c->pts[2 * i + 1]))
				{
					distinct = 3;
					break;
				}
		}
	}
	if (distinct < 3)
		return TextFail(c, PB_ERR_FORMAT, first != NULL ? first : c->p,
						"too few points: a polygon needs at least 3 distinct points, found %u",
						distinct);
	CloseExactly(c);
	PbBuildBegin(&sb, b, PB_POLYGONTYPE, 0, c->err);
	if (PbBuildRing(&sb, (const uint8_t *) c->pts, c->npts, 2, 0, 1) != PB_OK)
		return PbBuildAbort(&sb);
	if (c->wkb != NULL)
	{
		PbEwkbHeader(c->wkb, PB_POLYGONTYPE, 0);
		PbEwkbSetCount(c->wkb, PbEwkbCountSlot(c->wkb), 1);
		PbEwkbSetCount(c->wkb, PbEwkbCountSlot(c->wkb), c->npts);
		PbEwkbDoubles(c->wkb, c->pts, 2 * (int) c->npts);
		PbEwkbCloseRing(c->wkb, c->wkb->len - 16 * (size_t) c->npts - 4, c->npts, 2);
	}
	*shape = PbBuildEnd(&sb);
	return PB_OK;
}

/* Parse a line that is not blank or a comment: [id] WKT, or id and numbers. */
static PbStatus
ParseLine(TextCursor *c, PbBatch *b, int64_t *id, int *has_id,
		  uint32_t *shape)
{
	const char *after_id;

	if (IsAlpha(*c->p))
		return ParseWkt(c, b, shape);
	if (!IsDigit(*c->p) && *c->p != '+' && *c->p != '-')
		return Expected(c, "an id, a WKT geometry or '#'");
	if (ScanInteger(c, INT64_MIN, INT64_MAX, "an id", id) != PB_OK)
		return c->err->code;
	*has_id = 1;
	after_id = c->p;
	if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
		return TextFail(c, PB_ERR_FORMAT, c->p,
						"the id must be an integer");
	if (c->p < c->end && !IsSpace(*c->p) && *c->p != ',')
		return Expected(c, "whitespace after the id");
	SkipSpace(c);
	if (c->p < c->end && IsAlpha(*c->p) && !IsNonFiniteWord(c->p, c->end))
		return ParseWkt(c, b, shape);
	c->p = after_id;
	return ParseList(c, b, shape);
}

/*
 * Parse one line into a new shape of b (see parse_text.h): the entry point
 * of the text parser stage.
 */
PbStatus
PbParseTextLine(PbBatch *b, const char *line, size_t len, PbTextLineKind *kind,
				int64_t *id, int *has_id, uint32_t *shape, PbError *err)
{
	return PbParseTextLineEwkb(b, line, len, kind, id, has_id, shape, NULL, err);
}

/*
 * PbParseTextLine that also writes the polygon as EWKB into wkb (when not
 * NULL), for readers that return the geometry itself.
 */
PbStatus
PbParseTextLineEwkb(PbBatch *b, const char *line, size_t len, PbTextLineKind *kind,
					int64_t *id, int *has_id, uint32_t *shape, PbEwkb *wkb,
					PbError *err)
{
	TextCursor	c;
	PbStatus	st;
	uint32_t	s = UINT32_MAX;

	if (wkb != NULL)
		wkb->len = 0;
	*kind = PB_LINE_SKIP;
	*id = 0;
	*has_id = 0;
	*shape = UINT32_MAX;
	err->code = PB_OK;
	err->message[0] = '\0';
	if (len == 0)
		return PB_OK;
	c.line = line;
	c.p = line;
	c.end = line + len;
	/* drop the line terminator, so columns do not depend on it */
	if (c.end > c.p && c.end[-1] == '\n')
		c.end--;
	if (c.end > c.p && c.end[-1] == '\r')
		c.end--;
	SkipSpace(&c);
	if (c.p >= c.end || *c.p == '#')
		return PB_OK;
	c.err = err;
	c.mem = b->mem;
	c.wkb = wkb;
	c.pts = c.stack;
	c.npts = 0;
	c.cap = STACK_POINTS;
	st = ParseLine(&c, b, id, has_id, &s);
	if (c.pts != c.stack)
		c.mem->release(c.mem->ctx, c.pts);
	if (st != PB_OK)
		return st;
	*kind = PB_LINE_POLYGON;
	*shape = s;
	return PB_OK;
}
