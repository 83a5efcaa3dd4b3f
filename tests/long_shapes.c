/*
 * long_shapes.c: the big combs, spirals and near-circles of long_shapes.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/core/geom/shape_build.h"
#include "long_shapes.h"

/* A shape with room for npoints points and nrects pieces. */
static LongShape
LongNew(uint32_t npoints, size_t nrects)
{
	LongShape	s = {malloc(sizeof(double) * 2 * npoints), 0,
	malloc(sizeof(double) * 4 * (nrects ? nrects : 1)), 0};

	if (s.xy == NULL || s.rects == NULL)
	{
		fprintf(stderr, "long_shapes: out of memory\n");
		exit(1);
	}
	return s;
}

/* Append point (x, y), or (y, x) when transpose. */
static void
Put(LongShape *s, double x, double y, int transpose)
{
	s->xy[2 * s->npoints] = transpose ? y : x;
	s->xy[2 * s->npoints + 1] = transpose ? x : y;
	s->npoints++;
}

/* Append piece [x0, x1] x [y0, y1] (corners in any order), transposed when asked. */
static void
Piece(LongShape *s, double x0, double y0, double x1, double y1, int transpose)
{
	double	   *r = &s->rects[4 * s->nrects++];

	if (transpose)
	{
		double		t = x0;

		x0 = y0, y0 = t;
		t = x1, x1 = y1, y1 = t;
	}
	r[0] = fmin(x0, x1), r[1] = fmin(y0, y1);
	r[2] = fmax(x0, x1), r[3] = fmax(y0, y1);
}

LongShape
LongComb(int teeth, int height, int transpose)
{
	LongShape	s = LongNew(4 * (uint32_t) teeth + 1, (size_t) teeth + 1);

	Put(&s, 0, 0, transpose);
	Put(&s, 2 * teeth - 1, 0, transpose);
	for (int i = teeth - 1; i >= 0; i--)
	{
		Put(&s, 2 * i + 1, height, transpose);
		Put(&s, 2 * i, height, transpose);
		if (i > 0)
		{
			Put(&s, 2 * i, 1, transpose);
			Put(&s, 2 * i - 1, 1, transpose);
		}
		Piece(&s, 2 * i, 1, 2 * i + 1, height, transpose);
	}
	Put(&s, 0, 0, transpose);
	Piece(&s, 0, 0, 2 * teeth - 1, 1, transpose);
	return s;
}

LongShape
LongSpiral(int segments)
{
	static const int dx[4] = {1, 0, -1, 0},
				dy[4] = {0, 1, 0, -1};
	LongShape	s = LongNew(2 * (uint32_t) segments + 3, (size_t) segments);
	double	   *cx = malloc(sizeof(double) * (segments + 1)),
			   *cy = malloc(sizeof(double) * (segments + 1));
	uint32_t	half;

	/* the centre line: v[j + 1] = v[j] + L[j] d[j], turning left */
	cx[0] = cy[0] = 0;
	for (int j = 0; j < segments; j++)
	{
		double		len = 4.0 * (j / 2 + 1);

		cx[j + 1] = cx[j] + len * dx[j % 4];
		cy[j + 1] = cy[j] + len * dy[j % 4];
		/* disjoint pieces: each corner's 2 x 2 square goes to the segment ending there */
		Piece(&s, cx[j] - (j > 0 ? -dx[j % 4] : 0) + dy[j % 4],
			  cy[j] - (j > 0 ? -dy[j % 4] : 0) - dx[j % 4],
			  cx[j + 1] + (j + 1 < segments ? dx[j % 4] : 0) - dy[j % 4],
			  cy[j + 1] + (j + 1 < segments ? dy[j % 4] : 0) + dx[j % 4], 0);
	}
	/* left side forward: a corner is offset by the sum of both left normals */
	for (int j = 0; j <= segments; j++)
	{
		int			a = (j > 0 ? j - 1 : 0) % 4,
					b = (j < segments ? j : j - 1) % 4;
		double		nx = -dy[a] + (a != b ? -dy[b] : 0),
					ny = dx[a] + (a != b ? dx[b] : 0);

		Put(&s, cx[j] + nx, cy[j] + ny, 0);
	}
	/* right side backward */
	half = s.npoints;
	for (uint32_t j = 0; j < half; j++)
	{
		int			k = (int) (half - 1 - j);

		Put(&s, 2 * cx[k] - s.xy[2 * k], 2 * cy[k] - s.xy[2 * k + 1], 0);
	}
	Put(&s, s.xy[0], s.xy[1], 0);
	free(cx);
	free(cy);
	return s;
}

LongShape
LongCircle(uint32_t n, double r, double cx, double cy)
{
	LongShape	s = LongNew(n + 1, 0);

	for (uint32_t i = 0; i < n; i++)
	{
		double		t = 6.283185307179586 * i / n;

		Put(&s, cx + r * cos(t), cy + r * sin(t), 0);
	}
	Put(&s, s.xy[0], s.xy[1], 0);
	return s;
}

LongShape
LongBox(double xmin, double ymin, double xmax, double ymax)
{
	LongShape	s = LongNew(5, 1);

	Put(&s, xmin, ymin, 0);
	Put(&s, xmax, ymin, 0);
	Put(&s, xmax, ymax, 0);
	Put(&s, xmin, ymax, 0);
	Put(&s, xmin, ymin, 0);
	Piece(&s, xmin, ymin, xmax, ymax, 0);
	return s;
}

void
LongFree(LongShape *s)
{
	free(s->xy);
	free(s->rects);
	s->xy = s->rects = NULL;
}

void
LongShear(LongShape *s, double k)
{
	for (uint32_t i = 0; i < s->npoints; i++)
		s->xy[2 * i] += k * s->xy[2 * i + 1];
}

double
LongBoxArea(const LongShape *s, double xmin, double ymin, double xmax,
			double ymax)
{
	double		sum = 0;

	for (size_t i = 0; i < s->nrects; i++)
	{
		const double *r = &s->rects[4 * i];
		double		w = fmin(r[2], xmax) - fmax(r[0], xmin),
					h = fmin(r[3], ymax) - fmax(r[1], ymin);

		if (w > 0 && h > 0)
			sum += w * h;
	}
	return sum;
}

uint32_t
LongAdd(PbBatch *b, const LongShape *s)
{
	PbShapeBuilder sb;
	PbError		err;

	PbBuildBegin(&sb, b, PB_POLYGONTYPE, 0, &err);
	if (PbBuildRing(&sb, (const uint8_t *) s->xy, s->npoints, 2, 0, 1) != PB_OK)
	{
		fprintf(stderr, "long_shapes: %s\n", err.message);
		exit(1);
	}
	return PbBuildEnd(&sb);
}
