/*
 * fuzz_pair_area.c: the harness of the intersection area engines, which
 * catches wrong answers as well as crashes.  The first byte picks a mode,
 * the rest drives it:
 *
 *  0  two shapes of random rectilinear rings with small integer vertices
 *     (polygon with holes, or multipolygon; self-crossing, touching and
 *     overlapping rings included), written as EWKB and decoded: every
 *     engine (auto, bitmap, sweep, PixelBox-CPU, general) must give the
 *     number of pixel centres inside both (even-odd rule), counted here
 *     from the generated rings; scaled by s and translated by integers
 *     (up to 2^30), exactly s^2 times that; halved and moved by 1/4 (so
 *     stored as doubles, the general engine), a quarter of it.
 *  1  two shapes of random rings with diagonal edges: the general engine
 *     must give the same area after exact transformations (scaling by a
 *     power of two, integer translation, mirroring, swapping x and y) and
 *     no more than either shape's own even-odd area.
 *  2  two raw values (EWKB or GSERIALIZED, a length prefix between them):
 *     when both decode, the checks of FuzzCheckPairArea.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_RINGS 4
#define MAX_RING_POINTS 16

/* The bytes that drive a mode (0 once used up). */
typedef struct Bytes
{
	const uint8_t *p;
	const uint8_t *end;
} Bytes;

/* One generated shape: rings of x y pairs, without the closing point. */
typedef struct Spec
{
	int			multi;			/* rings as polygons of a MultiPolygon */
	int			nrings;
	int			npts[MAX_RINGS];
	double		xy[MAX_RINGS][2 * MAX_RING_POINTS];
} Spec;

/* A transformation x' = sx * (swap ? y : x) + dx, likewise y'. */
typedef struct Xform
{
	double		sx,
				sy,
				dx,
				dy;
	int			swap;
} Xform;

static const Xform identity = {1, 1, 0, 0, 0};

/* The next byte of the input, 0 when it is used up. */
static unsigned
Next(Bytes *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

/* The next four bytes as a little-endian uint32 (in order: no unsequenced calls). */
static uint32_t
NextU32(Bytes *in)
{
	uint32_t	v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t) Next(in) << (8 * i);
	return v;
}

/* A rectilinear ring of 2k vertices, alternating x and y moves, in [0, span). */
static int
RectRing(Bytes *in, double *xy, unsigned span)
{
	int			k = 2 + (int) (Next(in) % (MAX_RING_POINTS / 2 - 1));
	double		xs[MAX_RING_POINTS / 2],
				ys[MAX_RING_POINTS / 2];

	for (int i = 0; i < k; i++)
	{
		xs[i] = Next(in) % span;
		ys[i] = Next(in) % span;
	}
	for (int i = 0; i < k; i++)
	{
		xy[4 * i] = xs[i];
		xy[4 * i + 1] = ys[i];
		xy[4 * i + 2] = xs[(i + 1) % k];
		xy[4 * i + 3] = ys[i];
	}
	return 2 * k;
}

/* A ring of 3 to MAX_RING_POINTS vertices anywhere in [0, span)^2. */
static int
FreeRing(Bytes *in, double *xy, unsigned span)
{
	int			n = 3 + (int) (Next(in) % (MAX_RING_POINTS - 2));

	for (int i = 0; i < 2 * n; i++)
		xy[i] = Next(in) % span;
	return n;
}

/* A shape of 1 to MAX_RINGS rings, rectilinear or free. */
static void
MakeSpec(Bytes *in, Spec *sp, int rectilinear)
{
	unsigned	span = 1 + Next(in) % 64;

	sp->multi = Next(in) & 1;
	sp->nrings = 1 + (int) (Next(in) % MAX_RINGS);
	for (int r = 0; r < sp->nrings; r++)
		sp->npts[r] = rectilinear ? RectRing(in, sp->xy[r], span)
			: FreeRing(in, sp->xy[r], span);
}

/* Append v to *p as NDR bytes of the given size. */
static void
Put(uint8_t **p, const void *v, size_t size)
{
	memcpy(*p, v, size);
	*p += size;
}

/* Append a uint32 in NDR. */
static void
PutU32(uint8_t **p, uint32_t v)
{
	Put(p, &v, 4);
}

/* Append one transformed ring (closing point repeated) to the WKB at *p. */
static void
PutRing(uint8_t **p, const double *xy, int n, const Xform *t)
{
	PutU32(p, (uint32_t) n + 1);
	for (int i = 0; i <= n; i++)
	{
		double		x = xy[2 * (i % n)],
					y = xy[2 * (i % n) + 1];
		double		tx = t->sx * (t->swap ? y : x) + t->dx,
					ty = t->sy * (t->swap ? x : y) + t->dy;

		Put(p, &tx, 8);
		Put(p, &ty, 8);
	}
}

/* Write a spec, transformed, as NDR EWKB (Polygon or MultiPolygon); return its size. */
static size_t
WriteSpec(const Spec *sp, const Xform *t, uint8_t *out)
{
	uint8_t    *p = out;

	*p++ = 1;
	PutU32(&p, sp->multi ? PB_MULTIPOLYGONTYPE : PB_POLYGONTYPE);
	PutU32(&p, (uint32_t) sp->nrings);
	for (int r = 0; r < sp->nrings; r++)
	{
		if (sp->multi)
		{
			*p++ = 1;
			PutU32(&p, PB_POLYGONTYPE);
			PutU32(&p, 1);
		}
		PutRing(&p, sp->xy[r], sp->npts[r], t);
	}
	return (size_t) (p - out);
}

/* Decode a spec, transformed, into b; return the shape. */
static uint32_t
AddSpec(PbBatch *b, const Spec *sp, const Xform *t)
{
	uint8_t		wkb[9 + MAX_RINGS * (9 + 4 + 16 * (MAX_RING_POINTS + 1))];
	size_t		n = WriteSpec(sp, t, wkb);
	uint32_t	shape;
	PbError		err;

	if (PbDecodeEwkb(b, wkb, n, &shape, &err) != PB_OK)
		FuzzFail(__FILE__, __LINE__, "generated shape does not decode: %s", err.message);
	return shape;
}

/* Even-odd rule over every ring of the spec (the truth, from the generated rings). */
static int
SpecInside(const Spec *sp, double x, double y)
{
	int			inside = 0;

	for (int r = 0; r < sp->nrings; r++)
		for (int i = 0, n = sp->npts[r]; i < n; i++)
		{
			double		x0 = sp->xy[r][2 * i],
						y0 = sp->xy[r][2 * i + 1],
						x1 = sp->xy[r][2 * ((i + 1) % n)],
						y1 = sp->xy[r][2 * ((i + 1) % n) + 1];

			if ((y0 > y) != (y1 > y) && x < x0 + (y - y0) * (x1 - x0) / (y1 - y0))
				inside = !inside;
		}
	return inside;
}

/* Bounds of a spec's vertices: xmin, ymin, xmax, ymax. */
static void
SpecBox(const Spec *sp, double box[4])
{
	box[0] = box[1] = INFINITY;
	box[2] = box[3] = -INFINITY;
	for (int r = 0; r < sp->nrings; r++)
		for (int i = 0; i < sp->npts[r]; i++)
		{
			box[0] = fmin(box[0], sp->xy[r][2 * i]);
			box[1] = fmin(box[1], sp->xy[r][2 * i + 1]);
			box[2] = fmax(box[2], sp->xy[r][2 * i]);
			box[3] = fmax(box[3], sp->xy[r][2 * i + 1]);
		}
}

/* Pixel centres inside both specs (unit pixels, integer corners). */
static double
TruthPixels(const Spec *p, const Spec *q)
{
	double		bp[4],
				bq[4],
				count = 0;

	SpecBox(p, bp);
	SpecBox(q, bq);
	for (double y = fmax(bp[1], bq[1]); y < fmin(bp[3], bq[3]); y++)
		for (double x = fmax(bp[0], bq[0]); x < fmin(bp[2], bq[2]); x++)
			count += SpecInside(p, x + 0.5, y + 0.5) && SpecInside(q, x + 0.5, y + 0.5);
	return count;
}

/* The area of the intersection of p and q transformed by t, by method. */
static double
AreaOf(PbScratch *s, const Spec *p, const Spec *q, const Xform *t, PbMethod method)
{
	PbBatch		b;
	double		area;

	PbBatchInit(&b, &PbMallocAllocator);
	AddSpec(&b, p, t);
	AddSpec(&b, q, t);
	area = PbIntersectionArea(s, &b, 0, 1, method);
	PbBatchFree(&b);
	return area;
}

/* Mode 0: rectilinear integer shapes against the pixel count. */
static void
RectilinearMode(Bytes *in, PbScratch *s)
{
	Spec		p,
				q;
	PbBatch		b;
	double		truth,
				area,
				scale;
	Xform		moved;
	Xform		halved = {0.5, 0.5, 0.25, 0.25, 0};

	MakeSpec(in, &p, 1);
	MakeSpec(in, &q, 1);
	/* scale and translate anywhere that keeps |coordinates| <= 2^30 (the int path) */
	scale = 1 + NextU32(in) % 16384;
	moved.sx = moved.sy = scale;
	moved.dx = (double) ((int64_t) (NextU32(in) % 2000000001) - 1000000000);
	moved.dy = (double) ((int64_t) (NextU32(in) % 2000000001) - 1000000000);
	moved.swap = Next(in) & 1;
	PbBatchInit(&b, &PbMallocAllocator);
	AddSpec(&b, &p, &identity);
	AddSpec(&b, &q, &identity);
	FUZZ_CHECK(b.shapes[0].kind == PB_SHAPE_INT && b.shapes[1].kind == PB_SHAPE_INT,
			   "rectilinear integer shapes not stored as int");
	FuzzCheckPairArea(s, &b, 0, 1, SIZE_MAX);
	truth = TruthPixels(&p, &q);
	area = PbIntersectionArea(s, &b, 0, 1, PB_METHOD_AUTO);
	FUZZ_CHECK(area == truth, "area %.17g, %.17g pixel centres inside both", area, truth);
	PbBatchFree(&b);
	area = AreaOf(s, &p, &q, &moved, PB_METHOD_AUTO);
	FUZZ_CHECK(area == truth * scale * scale,
			   "scaled by %g, moved by %g %g: area %.17g, expected %.17g",
			   scale, moved.dx, moved.dy, area, truth * scale * scale);
	area = AreaOf(s, &p, &q, &moved, PB_METHOD_GENERAL);
	FUZZ_CHECK(fabs(area - truth * scale * scale) <= 1e-9 * (truth + 1) * scale * scale,
			   "general, scaled by %g, moved by %g %g: area %.17g, expected %.17g",
			   scale, moved.dx, moved.dy, area, truth * scale * scale);
	area = AreaOf(s, &p, &q, &halved, PB_METHOD_AUTO);
	FUZZ_CHECK(fabs(area - truth / 4) <= 1e-9 * (truth + 1),
			   "halved (doubles): area %.17g, expected %.17g", area, truth / 4);
}

/* Mode 1: shapes with diagonal edges under exact transformations. */
static void
DiagonalMode(Bytes *in, PbScratch *s)
{
	Spec		p,
				q;
	double		area,
				self_p,
				self_q,
				tol;
	double		k = ldexp(1.0, (int) (Next(in) % 40) - 20);
	Xform		variants[4] = {
		{k, k, 0, 0, 0},		/* a power of two: exact */
		{1, 1, 0, 0, 0},		/* translated, below */
		{-1, 1, 0, 0, 0},		/* mirrored */
		{1, 1, 0, 0, 1},		/* x and y swapped */
	};

	MakeSpec(in, &p, 0);
	MakeSpec(in, &q, 0);
	variants[1].dx = (double) ((int64_t) (NextU32(in) % (1 << 24)) - (1 << 23));
	variants[1].dy = (double) ((int64_t) (NextU32(in) % (1 << 24)) - (1 << 23));
	area = AreaOf(s, &p, &q, &identity, PB_METHOD_AUTO);
	self_p = AreaOf(s, &p, &p, &identity, PB_METHOD_AUTO);
	self_q = AreaOf(s, &q, &q, &identity, PB_METHOD_AUTO);
	tol = 1e-9 * 64 * 64;
	FUZZ_CHECK(area <= self_p + tol && area <= self_q + tol,
			   "area %.17g above a shape's own even-odd area (%.17g, %.17g)",
			   area, self_p, self_q);
	{
		PbBatch		b;

		PbBatchInit(&b, &PbMallocAllocator);
		AddSpec(&b, &p, &identity);
		AddSpec(&b, &q, &identity);
		FuzzCheckPairArea(s, &b, 0, 1, SIZE_MAX);
		PbBatchFree(&b);
	}
	for (int v = 0; v < 4; v++)
	{
		const Xform *t = &variants[v];
		double		factor = fabs(t->sx * t->sy);
		double		got = AreaOf(s, &p, &q, t, PB_METHOD_AUTO);

		FUZZ_CHECK(fabs(got - area * factor) <= tol * factor,
				   "transformed (%g %g %g %g %d): area %.17g, expected %.17g",
				   t->sx, t->sy, t->dx, t->dy, t->swap, got, area * factor);
	}
}

/* Mode 2: two raw values, EWKB or GSERIALIZED, decoded and compared. */
static void
RawMode(Bytes *in, PbScratch *s)
{
	unsigned	formats = Next(in);
	size_t		n1 = NextU32(in) % 65536;
	size_t		left = (size_t) (in->end - in->p);
	uint8_t    *v1,
			   *v2;
	size_t		n2;
	PbBatch		b;
	uint32_t	a,
				c;
	PbError		err;
	PbStatus	st;

	/* each value in a buffer of its own size, so a read past it is caught */
	n1 = n1 < left ? n1 : left;
	n2 = left - n1;
	v1 = malloc(n1 ? n1 : 1);
	v2 = malloc(n2 ? n2 : 1);
	memcpy(v1, in->p, n1);
	memcpy(v2, in->p + n1, n2);
	PbBatchInit(&b, &PbMallocAllocator);
	st = (formats & 1 ? PbDecodeGserialized : PbDecodeEwkb) (&b, v1, n1, &a, &err);
	if (st == PB_OK)
		st = (formats & 2 ? PbDecodeGserialized : PbDecodeEwkb) (&b, v2, n2, &c, &err);
	if (st == PB_OK)
		FuzzCheckPairArea(s, &b, a, c, 2048);
	PbBatchFree(&b);
	free(v2);
	free(v1);
}

/* One input: a mode byte, then what drives the mode. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Bytes		in = {data, data + size};
	PbScratch	s;

	if (size == 0)
		return 0;
	PbScratchInit(&s, &PbMallocAllocator);
	switch (Next(&in) % 3)
	{
		case 0:
			RectilinearMode(&in, &s);
			break;
		case 1:
			DiagonalMode(&in, &s);
			break;
		default:
			RawMode(&in, &s);
			break;
	}
	PbScratchFree(&s);
	return 0;
}
