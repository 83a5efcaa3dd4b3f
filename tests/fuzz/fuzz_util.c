/*
 * fuzz_util.c: the checks the harnesses share (see fuzz.h).  They read the
 * batch the decoders filled, never call the code under test; and the
 * temporary file the file readers' harnesses read from.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

/* Print where and what broke, then abort (both drivers count an abort). */
void
FuzzFail(const char *file, int line, const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "FUZZ CHECK FAILED at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* The batch's sizes now. */
FuzzBatchMark
FuzzMark(const PbBatch *b)
{
	FuzzBatchMark m = {b->nshapes, b->nrings, b->nipts, b->ndpts};

	return m;
}

/* Point i of ring r of shape s, as doubles. */
static void
PointXY(const PbBatch *b, const PbShape *s, const PbRing *r, uint32_t i,
		double *x, double *y)
{
	if (s->kind == PB_SHAPE_INT)
	{
		*x = b->ipts[2 * ((size_t) r->start + i)];
		*y = b->ipts[2 * ((size_t) r->start + i) + 1];
	}
	else
	{
		*x = b->dpts[2 * ((size_t) r->start + i)];
		*y = b->dpts[2 * ((size_t) r->start + i) + 1];
	}
}

/* Check the rings, points, box and area of a freshly decoded shape. */
static void
CheckShape(const PbBatch *b, const FuzzBatchMark *mark, uint32_t shape)
{
	const PbShape *s = &b->shapes[shape];
	double		xmin = INFINITY,
				ymin = INFINITY,
				xmax = -INFINITY,
				ymax = -INFINITY;

	FUZZ_CHECK(s->ring_first == mark->nrings && s->ring_first + s->nrings == b->nrings,
			   "rings [%u, +%u) of the shape are not the batch's new rings [%u, %u)",
			   s->ring_first, s->nrings, mark->nrings, b->nrings);
	FUZZ_CHECK((s->kind == PB_SHAPE_EMPTY) == (s->nrings == 0),
			   "kind %d with %u rings", s->kind, s->nrings);
	FUZZ_CHECK(s->kind <= PB_SHAPE_DOUBLE, "unknown kind %d", s->kind);
	if (s->kind == PB_SHAPE_EMPTY)
	{
		FUZZ_CHECK(s->area == 0.0, "empty shape of area %g", s->area);
		return;
	}
	FUZZ_CHECK(s->kind == PB_SHAPE_INT ? b->ndpts == mark->ndpts : b->nipts == mark->nipts,
			   "a shape of kind %d added points to the other pool", s->kind);
	for (uint32_t r = s->ring_first; r < s->ring_first + s->nrings; r++)
	{
		const PbRing *ring = &b->rings[r];
		uint32_t	lo = s->kind == PB_SHAPE_INT ? mark->nipts : mark->ndpts;
		uint32_t	hi = s->kind == PB_SHAPE_INT ? b->nipts : b->ndpts;
		double		px = 0,
					py = 0,
					x0 = 0,
					y0 = 0;

		FUZZ_CHECK(ring->npoints > 0 && ring->start >= lo &&
				   (uint64_t) ring->start + ring->npoints <= hi,
				   "ring %u [%u, +%u) outside the shape's points [%u, %u)",
				   r, ring->start, ring->npoints, lo, hi);
		for (uint32_t i = 0; i < ring->npoints; i++)
		{
			double		x,
						y;

			PointXY(b, s, ring, i, &x, &y);
			FUZZ_CHECK(isfinite(x) && isfinite(y), "non-finite point %g %g", x, y);
			if (s->kind == PB_SHAPE_INT)
			{
				FUZZ_CHECK(fabs(x) <= PB_INT_LIMIT && fabs(y) <= PB_INT_LIMIT,
						   "int point %g %g beyond 2^30", x, y);
				FUZZ_CHECK(i == 0 || x == px || y == py,
						   "int ring %u has a diagonal edge to %g %g", r, x, y);
			}
			if (i == 0)
				x0 = x, y0 = y;
			px = x, py = y;
			xmin = fmin(xmin, x), xmax = fmax(xmax, x);
			ymin = fmin(ymin, y), ymax = fmax(ymax, y);
		}
		FUZZ_CHECK(s->kind != PB_SHAPE_INT || px == x0 || py == y0,
				   "int ring %u has a diagonal closing edge", r);
	}
	FUZZ_CHECK(s->box.xmin == xmin && s->box.ymin == ymin &&
			   s->box.xmax == xmax && s->box.ymax == ymax,
			   "box %g %g %g %g is not the points' %g %g %g %g",
			   s->box.xmin, s->box.ymin, s->box.xmax, s->box.ymax,
			   xmin, ymin, xmax, ymax);
	FUZZ_CHECK(s->kind != PB_SHAPE_INT || (isfinite(s->area) && s->area == floor(s->area)),
			   "int shape of area %.17g (not an integer)", s->area);
}

/* Check a decode's outcome against what the decoders promise. */
void
FuzzCheckDecoded(const PbBatch *b, const FuzzBatchMark *mark, PbStatus st,
				 uint32_t shape, const PbError *err)
{
	if (st != PB_OK)
	{
		FuzzBatchMark now = FuzzMark(b);

		FUZZ_CHECK(memcmp(&now, mark, sizeof(now)) == 0,
				   "failed decode (%d) changed the batch: shapes %u->%u rings %u->%u ipts %u->%u dpts %u->%u",
				   (int) st, mark->nshapes, now.nshapes, mark->nrings, now.nrings,
				   mark->nipts, now.nipts, mark->ndpts, now.ndpts);
		FUZZ_CHECK(err->code == st, "status %d but err->code %d", (int) st, (int) err->code);
		FUZZ_CHECK(memchr(err->message, '\0', sizeof(err->message)) != NULL &&
				   err->message[0] != '\0', "failed decode (%d) without a message", (int) st);
		return;
	}
	FUZZ_CHECK(b->nshapes == mark->nshapes + 1 && shape == mark->nshapes,
			   "decode returned shape %u, batch went from %u to %u shapes",
			   shape, mark->nshapes, b->nshapes);
	CheckShape(b, mark, shape);
}

/* Whether shapes a of ba and b of bb have the same kind, rings, points, area and box. */
int
FuzzSameShape(const PbBatch *ba, uint32_t a, const PbBatch *bb, uint32_t b)
{
	const PbShape *p = &ba->shapes[a];
	const PbShape *q = &bb->shapes[b];

	if (p->kind != q->kind || p->nrings != q->nrings || p->geomtype != q->geomtype ||
		p->srid != q->srid || memcmp(&p->box, &q->box, sizeof(PbBox)) != 0 ||
		!(p->area == q->area || (isnan(p->area) && isnan(q->area))))
		return 0;
	for (uint32_t r = 0; r < p->nrings; r++)
	{
		const PbRing *rp = &ba->rings[p->ring_first + r];
		const PbRing *rq = &bb->rings[q->ring_first + r];

		if (rp->npoints != rq->npoints)
			return 0;
		for (uint32_t i = 0; i < rp->npoints; i++)
		{
			double		xp,
						yp,
						xq,
						yq;

			PointXY(ba, p, rp, i, &xp, &yp);
			PointXY(bb, q, rq, i, &xq, &yq);
			if (xp != xq || yp != yq)
				return 0;
		}
	}
	return 1;
}

/* Largest |coordinate| of shape s. */
double
FuzzShapeMagnitude(const PbBatch *b, uint32_t s)
{
	const PbShape *sh = &b->shapes[s];

	if (sh->kind == PB_SHAPE_EMPTY)
		return 0.0;
	return fmax(fmax(fabs(sh->box.xmin), fabs(sh->box.xmax)),
				fmax(fabs(sh->box.ymin), fabs(sh->box.ymax)));
}

/* Append an NDR double to the buffer at *p. */
static uint8_t *
PutDouble(uint8_t *p, double v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

/* Decode a Polygon of one ring of up to 8 points (x y pairs) as NDR WKB into b. */
static void
DecodeRing(PbBatch *b, const double *xy, uint32_t n)
{
	uint8_t		buf[1 + 4 + 4 + 4 + 8 * 16];
	uint8_t    *p = buf;
	uint32_t	type = PB_POLYGONTYPE,
				one = 1,
				shape;
	PbError		err;

	*p++ = 1;
	memcpy(p, &type, 4), p += 4;
	memcpy(p, &one, 4), p += 4;
	memcpy(p, &n, 4), p += 4;
	for (uint32_t i = 0; i < 2 * n; i++)
		p = PutDouble(p, xy[i]);
	if (PbDecodeEwkb(b, buf, (size_t) (p - buf), &shape, &err) != PB_OK)
		FuzzFail(__FILE__, __LINE__, "prefill shape does not decode: %s", err.message);
}

/* Two shapes to decode after: an int square and a double triangle. */
void
FuzzPrefillBatch(PbBatch *b)
{
	static const double square[] = {0, 0, 4, 0, 4, 4, 0, 4, 0, 0};
	static const double triangle[] = {0.5, 0, 3, 1, 1, 2.5, 0.5, 0};

	DecodeRing(b, square, 5);
	DecodeRing(b, triangle, 4);
}

/* The harnesses' temporary file (see fuzz.h). */
int
FuzzTempFile(const char *prefix)
{
	static int	fd = -1;

	if (fd < 0)
	{
		const char *dir = getenv("TMPDIR");
		char		path[4096];

		snprintf(path, sizeof(path), "%s/%s_XXXXXX",
				 dir != NULL && dir[0] != '\0' ? dir : "/tmp", prefix);
		fd = mkstemp(path);
		FUZZ_CHECK(fd >= 0, "cannot make the temporary file %s", path);
		unlink(path);
	}
	return fd;
}

/* Make the file hold exactly len bytes of data. */
void
FuzzWriteFile(int fd, const void *data, size_t len)
{
	size_t		done = 0;

	while (done < len)
	{
		ssize_t		n = pwrite(fd, (const char *) data + done, len - done, (off_t) done);

		FUZZ_CHECK(n > 0, "cannot write the temporary file");
		done += (size_t) n;
	}
	FUZZ_CHECK(ftruncate(fd, (off_t) len) == 0, "cannot truncate the temporary file");
}
