/*
 * contour_fill.c: the pixel centres inside or on a closed contour (see
 * contour_fill.h).
 *
 * Two passes over the bounding box's mask: every lattice point of every
 * edge is set (the centres on the contour), then each row is filled
 * between pairs of the edges' crossings (even-odd, half-open in y so a
 * vertex on the row counts once), strictly between them: a centre on a
 * crossing lies on an edge and was set by the first pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contour_fill.h"

#define FILL_LIMIT ((int64_t) 1 << 30)

/* Greatest common divisor of two non-negative integers. */
static int64_t
Gcd(int64_t a, int64_t b)
{
	while (b != 0)
	{
		int64_t		t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Floor of num / den (den > 0). */
static int64_t
FloorDiv(int64_t num, int64_t den)
{
	int64_t		q = num / den;

	if (num % den != 0 && num < 0)
		q--;
	return q;
}

/* qsort comparator: int64 keys. */
static int
CmpKeys(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a,
				y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* Set every lattice point of every edge. */
static void
MarkEdges(const int64_t *xy, uint32_t n, PbFilled *f)
{
	for (uint32_t i = 0; i < n; i++)
	{
		int64_t		x = xy[2 * i],
					y = xy[2 * i + 1];
		int64_t		dx = xy[2 * ((i + 1) % n)] - x,
					dy = xy[2 * ((i + 1) % n) + 1] - y;
		int64_t		g = Gcd(dx < 0 ? -dx : dx, dy < 0 ? -dy : dy);
		int64_t		sx = g ? dx / g : 0,
					sy = g ? dy / g : 0;

		for (int64_t k = 0; k <= g; k++)
			f->mask[(size_t) (y + k * sy - f->y0) * f->width + (size_t) (x + k * sx - f->x0)] = 1;
	}
}

/*
 * Fill each row strictly between pairs of crossings.  A crossing x is
 * kept as the key 2 floor(x) + (x not an integer): sorting the keys puts
 * crossings in order except within one open unit interval, where the
 * order changes no pixel.
 */
static void
FillRows(const int64_t *xy, uint32_t n, const PbAllocator *mem, PbFilled *f)
{
	uint32_t	h = f->height;
	size_t	   *first = mem->alloc(mem->ctx, sizeof(size_t) * ((size_t) h + 1));
	size_t		total = 0;
	int64_t    *keys = NULL;

	memset(first, 0, sizeof(size_t) * ((size_t) h + 1));
	/* rows r with min(y1, y2) <= r < max(y1, y2) cross the edge */
	for (int pass = 0; pass < 2; pass++)
	{
		size_t	   *fillp = NULL;

		if (pass == 1)
		{
			for (uint32_t r = 0; r < h; r++)
			{
				size_t		c = first[r];

				first[r] = total;
				total += c;
			}
			first[h] = total;
			keys = mem->alloc(mem->ctx, sizeof(int64_t) * (total ? total : 1));
			fillp = mem->alloc(mem->ctx, sizeof(size_t) * ((size_t) h + 1));
			memcpy(fillp, first, sizeof(size_t) * ((size_t) h + 1));
		}
		for (uint32_t i = 0; i < n; i++)
		{
			int64_t		x1 = xy[2 * i],
						y1 = xy[2 * i + 1],
						x2 = xy[2 * ((i + 1) % n)],
						y2 = xy[2 * ((i + 1) % n) + 1];
			int64_t		lo = y1 < y2 ? y1 : y2,
						hi = y1 < y2 ? y2 : y1;

			for (int64_t r = lo; r < hi; r++)
			{
				size_t		row = (size_t) (r - f->y0);

				if (pass == 0)
					first[row]++;
				else
				{
					int64_t		num = (r - y1) * (x2 - x1),
								den = y2 - y1;
					int64_t		q;

					if (den < 0)
					{
						num = -num;
						den = -den;
					}
					q = FloorDiv(num, den);
					keys[fillp[row]++] = 2 * (x1 + q) + (num % den != 0);
				}
			}
		}
		if (pass == 1)
			mem->release(mem->ctx, fillp);
	}
	for (uint32_t r = 0; r < h; r++)
	{
		int64_t    *k = keys + first[r];
		size_t		m = first[r + 1] - first[r];

		qsort(k, m, sizeof(int64_t), CmpKeys);
		for (size_t j = 0; j + 1 < m; j += 2)
		{
			/* integers strictly between the two crossings */
			int64_t		from = FloorDiv(k[j], 2) + 1,
						to = (k[j + 1] & 1) ? FloorDiv(k[j + 1], 2) : FloorDiv(k[j + 1], 2) - 1;

			if (to >= from)
				memset(f->mask + (size_t) r * f->width + (size_t) (from - f->x0), 1,
					   (size_t) (to - from + 1));
		}
	}
	mem->release(mem->ctx, keys);
	mem->release(mem->ctx, first);
}

/* Fill a contour (see contour_fill.h). */
PbStatus
PbFillContour(const int64_t *xy, uint32_t n, const PbAllocator *mem,
			  PbFilled *out, PbError *err)
{
	int64_t		xmin = 0,
				ymin = 0,
				xmax = 0,
				ymax = 0;
	uint64_t	pixels;

	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < n; i++)
	{
		int64_t		x = xy[2 * i],
					y = xy[2 * i + 1];

		if (x < -FILL_LIMIT || x > FILL_LIMIT || y < -FILL_LIMIT || y > FILL_LIMIT)
		{
			snprintf(err->message, sizeof(err->message),
					 "vertex %u (%lld %lld) is beyond +-2^30", i + 1, (long long) x, (long long) y);
			err->code = PB_ERR_BADARG;
			return PB_ERR_BADARG;
		}
		if (i == 0 || x < xmin)
			xmin = x;
		if (i == 0 || x > xmax)
			xmax = x;
		if (i == 0 || y < ymin)
			ymin = y;
		if (i == 0 || y > ymax)
			ymax = y;
	}
	pixels = (uint64_t) (xmax - xmin + 1) * (uint64_t) (ymax - ymin + 1);
	if (n > 0 && pixels <= PB_FILL_MAX_PIXELS)
	{
		/* the rows the edges cross and their lattice points: a zig-zag's
		 * work and memory grow with these, not with its box */
		uint64_t	work = 0;

		for (uint32_t i = 0; i < n; i++)
		{
			int64_t		dx = xy[2 * ((i + 1) % n)] - xy[2 * i],
						dy = xy[2 * ((i + 1) % n) + 1] - xy[2 * i + 1];

			work += (uint64_t) (dy < 0 ? -dy : dy) + (uint64_t) (dx < 0 ? -dx : dx);
		}
		if (work > PB_FILL_MAX_EDGE_WORK)
		{
			snprintf(err->message, sizeof(err->message),
					 "a contour whose edges are %llu pixels long in all, more than the %llu a contour may have",
					 (unsigned long long) work, (unsigned long long) PB_FILL_MAX_EDGE_WORK);
			err->code = PB_ERR_BADARG;
			return PB_ERR_BADARG;
		}
	}
	if (n == 0 || pixels > PB_FILL_MAX_PIXELS)
	{
		snprintf(err->message, sizeof(err->message),
				 "a contour spanning %lld x %lld pixels, more than the %llu a contour may cover",
				 (long long) (xmax - xmin + 1), (long long) (ymax - ymin + 1),
				 (unsigned long long) PB_FILL_MAX_PIXELS);
		err->code = PB_ERR_BADARG;
		return PB_ERR_BADARG;
	}
	out->width = (uint32_t) (xmax - xmin + 1);
	out->height = (uint32_t) (ymax - ymin + 1);
	out->x0 = xmin;
	out->y0 = ymin;
	out->mask = mem->alloc(mem->ctx, (size_t) pixels);
	memset(out->mask, 0, (size_t) pixels);
	FillRows(xy, n, mem, out);
	MarkEdges(xy, n, out);
	return PB_OK;
}
