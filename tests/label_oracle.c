/*
 * label_oracle.c: the independent checks of traced label outlines (see
 * label_oracle.h).  Written apart from the tracer: rings read back from
 * the bytes, parts counted by a flood fill, coverage by scanlines.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "label_oracle.h"

/* A ring read back: n points (closing point dropped). */
typedef struct ORing
{
	double	   *xy;
	uint32_t	n;
} ORing;

/* A polygon read back. */
typedef struct OPoly
{
	ORing	   *rings;
	uint32_t	nrings;
} OPoly;

/* A cursor over the bytes. */
typedef struct Cur
{
	const uint8_t *p,
			   *end;
	int			bad;
} Cur;

/* Read a uint32 (host order: the tracer writes host order, NDR here). */
static uint32_t
U32(Cur *c)
{
	uint32_t	v = 0;

	if (c->end - c->p < 4)
	{
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	return v;
}

/* Read a polygon body (after its header). */
static void
ReadPolygon(Cur *c, OPoly *poly)
{
	poly->nrings = U32(c);
	if (c->bad || poly->nrings > 1000000)
	{
		c->bad = 1;
		poly->nrings = 0;
		return;
	}
	poly->rings = calloc(poly->nrings + 1, sizeof(ORing));
	for (uint32_t i = 0; i < poly->nrings && !c->bad; i++)
	{
		uint32_t	n = U32(c);

		if (c->bad || n < 1 || (size_t) (c->end - c->p) < (size_t) n * 16)
		{
			c->bad = 1;
			return;
		}
		CHECK(n >= 5);
		poly->rings[i].xy = malloc(sizeof(double) * 2 * n);
		memcpy(poly->rings[i].xy, c->p, (size_t) n * 16);
		c->p += (size_t) n * 16;
		/* closed: last point repeats the first, bit for bit */
		CHECK(memcmp(poly->rings[i].xy, poly->rings[i].xy + 2 * (n - 1), 16) == 0);
		poly->rings[i].n = n - 1;
	}
}

/* Read the geometry header: order byte and type word (no SRID expected). */
static uint32_t
Header(Cur *c)
{
	if (c->end - c->p < 5 || c->p[0] != 1)
	{
		c->bad = 1;
		return 0;
	}
	c->p++;
	return U32(c);
}

/* Check one ring: axis-parallel edges on the pixel grid turning at every vertex, simple. */
static void
CheckRing(const ORing *r, double x0, double y0)
{
	uint32_t	n = r->n;

	CHECK(n >= 4 && n % 2 == 0);
	for (uint32_t i = 0; i < n; i++)
	{
		const double *a = r->xy + 2 * i,
				   *b = r->xy + 2 * ((i + 1) % n),
				   *d = r->xy + 2 * ((i + 2) % n);
		int			h1 = a[1] == b[1],
					h2 = b[1] == d[1];

		CHECK((a[0] == b[0]) != (a[1] == b[1]));	/* axis-parallel, not zero */
		CHECK(h1 != h2);		/* turns at every vertex */
		CHECK(a[0] - x0 == floor(a[0] - x0) && a[1] - y0 == floor(a[1] - y0));
	}
	/* no vertex twice, no edge crossing or touching another (small rings) */
	if (n > 3000)
		return;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
		{
			const double *a = r->xy + 2 * i,
					   *b = r->xy + 2 * ((i + 1) % n),
					   *p = r->xy + 2 * j,
					   *q = r->xy + 2 * ((j + 1) % n);
			double		ax0 = fmin(a[0], b[0]),
						ax1 = fmax(a[0], b[0]),
						ay0 = fmin(a[1], b[1]),
						ay1 = fmax(a[1], b[1]),
						px0 = fmin(p[0], q[0]),
						px1 = fmax(p[0], q[0]),
						py0 = fmin(p[1], q[1]),
						py1 = fmax(p[1], q[1]);
			int			meet = ax0 <= px1 && px0 <= ax1 && ay0 <= py1 && py0 <= ay1;
			int			adjacent = j == i + 1 || (i == 0 && j == n - 1);

			if (!adjacent && meet)
				pb_check_fail(__FILE__, __LINE__, "edges %u and %u of a ring meet", i, j);
		}
}

/* Twice the signed area of a ring (shoelace). */
static double
Area2(const ORing *r)
{
	double		s = 0;

	for (uint32_t i = 0; i < r->n; i++)
	{
		const double *a = r->xy + 2 * i,
				   *b = r->xy + 2 * ((i + 1) % r->n);

		s += a[0] * b[1] - b[0] * a[1];
	}
	return s;
}

/* Even-odd: is (x, y) inside ring r. */
static int
InRing(const ORing *r, double x, double y)
{
	int			in = 0;

	for (uint32_t i = 0; i < r->n; i++)
	{
		const double *a = r->xy + 2 * i,
				   *b = r->xy + 2 * ((i + 1) % r->n);

		if ((a[1] > y) != (b[1] > y) &&
			x < a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1]))
			in = !in;
	}
	return in;
}

/* qsort comparator: doubles. */
static int
CmpD(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* 4-connected parts of the label's pixels (flood fill). */
static int
CountParts(const uint32_t *labels, uint32_t w, uint32_t h, uint32_t label)
{
	uint8_t    *seen = calloc((size_t) w * h, 1);
	size_t	   *stack = malloc(sizeof(size_t) * ((size_t) w * h + 1));
	int			parts = 0;

	for (size_t s = 0; s < (size_t) w * h; s++)
	{
		size_t		top = 0;

		if (labels[s] != label || seen[s])
			continue;
		parts++;
		seen[s] = 1;
		stack[top++] = s;
		while (top > 0)
		{
			size_t		i = stack[--top];
			uint32_t	c = (uint32_t) (i % w),
						r = (uint32_t) (i / w);
			size_t		nb[4];
			int			k = 0;

			if (c > 0)
				nb[k++] = i - 1;
			if (c + 1 < w)
				nb[k++] = i + 1;
			if (r > 0)
				nb[k++] = i - w;
			if (r + 1 < h)
				nb[k++] = i + w;
			for (int j = 0; j < k; j++)
				if (labels[nb[j]] == label && !seen[nb[j]])
				{
					seen[nb[j]] = 1;
					stack[top++] = nb[j];
				}
		}
	}
	free(seen);
	free(stack);
	return parts;
}

/* Count the label's pixels. */
int64_t
CountLabel(const uint32_t *labels, uint32_t w, uint32_t h, uint32_t label)
{
	int64_t		n = 0;

	for (size_t i = 0; i < (size_t) w * h; i++)
		n += labels[i] == label;
	return n;
}

/* Read the geometry back and check it against the label's pixels. */
int
CheckLabelOutline(const uint8_t *ewkb, size_t len, const uint32_t *labels,
				  uint32_t w, uint32_t h, uint32_t label, double x0, double y0)
{
	Cur			c = {ewkb, ewkb + len, 0};
	uint32_t	type = Header(&c),
				npoly = 1;
	OPoly	   *polys;
	double		area = 0;
	int			parts = CountParts(labels, w, h, label);
	long		before = pb_test_failures();

	if (type == 6)
		npoly = U32(&c);
	else if (type != 3)
		c.bad = 1;
	if (c.bad || npoly > 10000000)
	{
		pb_check_fail(__FILE__, __LINE__, "not a polygon or multipolygon (type %u)", type);
		return 0;
	}
	polys = calloc(npoly + 1, sizeof(OPoly));
	for (uint32_t k = 0; k < npoly && !c.bad; k++)
	{
		if (type == 6 && Header(&c) != 3)
			c.bad = 1;
		if (!c.bad)
			ReadPolygon(&c, &polys[k]);
	}
	CHECK(!c.bad && c.p == c.end);
	if (c.bad)
		npoly = 0;
	/* one polygon per part, a POLYGON when there is one */
	CHECK_INT(npoly, parts);
	CHECK_INT(type == 3, parts == 1);
	for (uint32_t k = 0; k < npoly; k++)
	{
		OPoly	   *p = &polys[k];

		for (uint32_t i = 0; i < p->nrings; i++)
		{
			CheckRing(&p->rings[i], x0, y0);
			area += (i == 0 ? 1 : -1) * fabs(Area2(&p->rings[i])) / 2;
			if (i > 0)
			{
				/* a point just inside the hole, by its top-left corner */
				const ORing *hole = &p->rings[i];
				double		tx = hole->xy[0],
							ty = hole->xy[1];

				for (uint32_t j = 1; j < hole->n; j++)
					if (hole->xy[2 * j + 1] < ty ||
						(hole->xy[2 * j + 1] == ty && hole->xy[2 * j] < tx))
					{
						tx = hole->xy[2 * j];
						ty = hole->xy[2 * j + 1];
					}
				CHECK(InRing(&p->rings[0], tx + 0.5, ty + 0.5));
				CHECK(InRing(hole, tx + 0.5, ty + 0.5));
			}
		}
	}
	CHECK_DBL_EQ(area, (double) CountLabel(labels, w, h, label));
	/* coverage of every pixel centre, by scanlines over all rings */
	for (uint32_t r = 0; r < h && pb_test_failures() == before; r++)
	{
		double		y = y0 + r + 0.5;
		double	   *xs = NULL;
		size_t		nx = 0,
					cap = 0;
		uint32_t	col = 0;

		for (uint32_t k = 0; k < npoly; k++)
			for (uint32_t i = 0; i < polys[k].nrings; i++)
			{
				const ORing *g = &polys[k].rings[i];

				for (uint32_t j = 0; j < g->n; j++)
				{
					const double *a = g->xy + 2 * j,
							   *b = g->xy + 2 * ((j + 1) % g->n);

					if ((a[1] > y) != (b[1] > y))
					{
						if (nx == cap)
						{
							cap = cap ? 2 * cap : 64;
							xs = realloc(xs, sizeof(double) * cap);
						}
						xs[nx++] = a[0];
					}
				}
			}
		if (nx > 0)
			qsort(xs, nx, sizeof(double), CmpD);
		CHECK(nx % 2 == 0);
		for (size_t k = 0; k <= nx; k += 2)
		{
			/* columns before xs[k] are outside, from xs[k] to xs[k+1] inside */
			double		in_from = k < nx ? xs[k] - x0 : w;

			for (; col < w && col + 0.5 < in_from; col++)
				if (labels[(size_t) r * w + col] == label)
					pb_check_fail(__FILE__, __LINE__, "pixel (%u, %u) of label %u not covered",
								  col, r, label);
			if (k >= nx)
				break;
			for (; col < w && col + 0.5 < xs[k + 1] - x0; col++)
				if (labels[(size_t) r * w + col] != label)
					pb_check_fail(__FILE__, __LINE__, "pixel (%u, %u) covered by label %u",
								  col, r, label);
		}
		free(xs);
	}
	for (uint32_t k = 0; k < npoly; k++)
	{
		for (uint32_t i = 0; i < polys[k].nrings; i++)
			free(polys[k].rings[i].xy);
		free(polys[k].rings);
	}
	free(polys);
	return (int) npoly;
}
