/*
 * edt_cpu.c: the exact Euclidean distance transform of a binary mask on the
 * CPU (PbDistanceCpu), with pixel spacing and the nearest background pixel.
 *
 * Separable, in two passes over the image:
 *  1. Columns: for every pixel the row of the nearest background pixel in
 *     its column (ties go to the upper row), or -1 when the column has no
 *     background.  Columns are swept in chunks of EDT_COL_CHUNK adjacent
 *     columns, row by row (down, then up), so every access is a short
 *     contiguous run instead of a stride of one column.  The row numbers
 *     are kept as int32 in the bytes of dist (copied with memcpy, so no
 *     object is read through a type it was not written with): no image-
 *     sized scratch is needed.
 *  2. Rows: each column's result is a parabola over the row, and the
 *     lower envelope of these parabolas (Felzenszwalb & Huttenlocher; the
 *     removal test of Maurer et al.) gives each pixel its nearest
 *     background pixel.  Ties go to the leftmost site of the envelope.
 *     With these tie rules the nearest pixel is the one SciPy's feature
 *     transform picks (unit spacing; with other spacing SciPy's own
 *     floating-point tests may break ties differently).
 *
 * Arithmetic: with unit spacing (sy == sx == 1) everything is exact int64.
 * Otherwise candidates are compared with the steps (cy, cx) of
 * PbEdtStepsOf (raster_rules.h, shared with the GPU): the spacing itself
 * unless squares of it could leave the double range.  The envelope test
 * is done on exact integer coefficients and scaled once by rho =
 * (cy / cx)^2 (exact integers when sy == sx), and the query compares the
 * very doubles that are output.  The output is computed as
 * scipy.ndimage.distance_transform_edt(fg, sampling=(sy, sx)) does from
 * its feature transform: dy = (row difference) * sy, dx = (column
 * difference) * sx, d = sqrt(dy * dy + dx * dx) in double, then cast to
 * float (with steps rescaled, that distance computed without overflow:
 * EdtOutput).  The squares are computed apart (a table for dx, one value
 * per envelope site for dy) and only then added, so no fused multiply-add
 * can change the rounding.
 *
 * No background pixel at all: SciPy's feature transform then leaves every
 * pixel with the feature (row -1, column 0), and its distances are those
 * to that virtual pixel: sqrt(((y + 1) * sy)^2 + (x * sx)^2).  We output
 * those same distances, and nearest = -1 for every pixel.
 *
 * Sizes: width and height at most PB_EDT_MAX_SIDE (image.h), so that the
 * exact int64 envelope test cannot overflow and its coefficients stay
 * below 2^53 (exact as doubles); larger sizes are PB_ERR_BADARG.
 *
 * Threads: both passes run through PbParallelFor, the caller polling
 * between chunks.  Each row chunk borrows one of a few preallocated
 * scratch slots (at most as many run at once as there are threads), so
 * scratch is malloc'd once per call and reused across rows.  A NULL run
 * is one thread without poll; threads < 1 count as 1.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "edt_job.h"
#include "image.h"
#include "raster_rules.h"

#define EDT_COL_CHUNK 64		/* adjacent columns per column-pass item */
#define EDT_ROW_PIXELS 65536	/* pixels per row-pass item (>= one row) */
#define EDT_MAX_SLOTS 256		/* scratch slots: threads running at once */

/* Inlined even when called twice, so that a constant count specializes it. */
#if defined(__GNUC__)
#define EDT_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define EDT_ALWAYS_INLINE static inline
#endif

/* Scratch of one row-pass worker: the lower envelope of one row. */
typedef struct EdtSlot
{
	atomic_int	busy;			/* taken by a running item */
	int32_t    *col;			/* column of each envelope site */
	int32_t    *row;			/* row of its background pixel */
	int64_t    *g;				/* squared row difference of the site */
	double	   *dy2;			/* ((row - y) * cy)^2 (non-unit spacing) */
} EdtSlot;

/* Everything both passes share. */
typedef struct EdtJob
{
	const uint8_t *fg;
	int64_t		width;
	int64_t		height;
	double		sy,
				sx;				/* the spacing */
	PbEdtSteps	steps;			/* the steps candidates are compared with */
	double		rho;			/* (cy / cx)^2 */
	int			unit;			/* sy == sx == 1: all in int64 */
	int			exact_env;		/* sy == sx: rho is exactly 1 */
	unsigned char *colrows;		/* the column pass's int32 rows: dist */
	float	   *dist;
	int64_t    *nearest;		/* may be NULL */
	const double *dx2;			/* (d * cx)^2 for d in [0, width); non-unit */
	int64_t		rows_per_item;
	EdtSlot    *slots;
	int			nslots;
} EdtJob;

/*
 * Column pass over columns [x0, x0 + n), written for rows [ya, yb) only
 * (the whole pass: 0, height): top-down the last background row seen,
 * then bottom-up the next one, keeping the closer (the upper on a tie).
 * One row of the chunk at a time keeps the accesses contiguous; the loops
 * are branch-free so that the compiler can vectorize them.
 */
EDT_ALWAYS_INLINE void
EdtColumns(const EdtJob *job, int64_t x0, int n, int64_t ya, int64_t yb)
{
	int64_t		w = job->width;
	int32_t		near[EDT_COL_CHUNK];
	int32_t		cur[EDT_COL_CHUNK];

	for (int i = 0; i < n; i++)
		near[i] = -1;
	for (int64_t y = 0; y < yb; y++)
	{
		const uint8_t *f = job->fg + y * w + x0;
		int32_t		yy = (int32_t) y;

		for (int i = 0; i < n; i++)
			near[i] = f[i] == 0 ? yy : near[i];
		if (y >= ya)
			memcpy(job->colrows + (y * w + x0) * 4, near, (size_t) n * 4);
	}

	for (int i = 0; i < n; i++)
		near[i] = -1;
	for (int64_t y = job->height - 1; y >= yb; y--)
	{
		const uint8_t *f = job->fg + y * w + x0;
		int32_t		yy = (int32_t) y;

		for (int i = 0; i < n; i++)
			near[i] = f[i] == 0 ? yy : near[i];
	}
	for (int64_t y = yb - 1; y >= ya; y--)
	{
		const uint8_t *f = job->fg + y * w + x0;
		unsigned char *o = job->colrows + (y * w + x0) * 4;
		int32_t		yy = (int32_t) y;

		memcpy(cur, o, (size_t) n * 4);
		for (int i = 0; i < n; i++)
		{
			int32_t		below = f[i] == 0 ? yy : near[i];
			int32_t		above = cur[i];

			near[i] = below;
			cur[i] = below >= 0 && (above < 0 || below - yy < yy - above)
				? below : above;
		}
		memcpy(o, cur, (size_t) n * 4);
	}
}

/*
 * The column pass over columns [x0, x1) for rows [ya, yb), in chunks of
 * EDT_COL_CHUNK columns; full chunks get a constant count, which lets the
 * loops be unrolled and vectorized.
 */
void
EdtColumnsOf(const EdtJob *job, int64_t x0, int64_t x1, int64_t ya, int64_t yb)
{
	for (; x0 < x1; x0 += EDT_COL_CHUNK)
	{
		if (x1 - x0 >= EDT_COL_CHUNK)
			EdtColumns(job, x0, EDT_COL_CHUNK, ya, yb);
		else
			EdtColumns(job, x0, (int) (x1 - x0), ya, yb);
	}
}

/* One column-pass item: EDT_COL_CHUNK columns (fewer at the right edge). */
static void
EdtColumnItem(void *arg, int64_t item)
{
	const EdtJob *job = arg;
	int64_t		x0 = item * EDT_COL_CHUNK;

	EdtColumnsOf(job, x0, x0 + EDT_COL_CHUNK < job->width ? x0 + EDT_COL_CHUNK : job->width,
				 0, job->height);
}

/*
 * Build the lower envelope of row y's parabolas in s; returns the index of
 * its last site (-1: no column has background).  Site v between u and a
 * new site w goes when the u-v intersection lies strictly right of the v-w
 * one: rho * (c gv - b gu - a gw) > a b c with a = v - u, b = w - v,
 * c = w - u, all integers, and exact when rho is exactly 1 (exact != 0, a
 * constant once inlined).
 */
EDT_ALWAYS_INLINE int64_t
EdtEnvelopeOf(const EdtJob *job, int64_t y, EdtSlot *s, int exact)
{
	const unsigned char *src = job->colrows + y * job->width * 4;
	int32_t    *restrict col = s->col;
	int32_t    *restrict row = s->row;
	int64_t    *restrict gs = s->g;
	double		rho = job->rho;
	int64_t		top = -1;

	for (int64_t x = 0; x < job->width; x++)
	{
		int32_t		r;
		int64_t		g;

		memcpy(&r, src + x * 4, 4);
		if (r < 0)
			continue;
		g = ((int64_t) r - y) * ((int64_t) r - y);
		while (top >= 1)
		{
			int64_t		v = col[top];
			int64_t		u = col[top - 1];
			int64_t		a = v - u;
			int64_t		b = x - v;
			int64_t		c = x - u;
			int64_t		lhs = c * gs[top] - b * gs[top - 1] - a * g;
			int64_t		abc = a * b * c;

			if (exact ? lhs <= abc : rho * (double) lhs <= (double) abc)
				break;
			top--;
		}
		top++;
		col[top] = (int32_t) x;
		row[top] = r;
		gs[top] = g;
	}
	return top;
}

/* The envelope of row y, with the test specialized for exact rho. */
static int64_t
EdtEnvelope(const EdtJob *job, int64_t y, EdtSlot *s)
{
	if (job->exact_env)
		return EdtEnvelopeOf(job, y, s, 1);
	return EdtEnvelopeOf(job, y, s, 0);
}

/*
 * The output distance of a pixel dr rows and dc columns from its chosen
 * background pixel, d2 their squared distance under the comparison steps:
 * sqrt(d2) 2^k, or with steps far apart the larger of |dr sy| and
 * |dc sx|; cast to float.  Either equals SciPy's sqrt((dr sy)^2 +
 * (dc sx)^2) cast to float (what the GPU computes), without its overflow.
 */
static inline float
EdtOutput(const EdtJob *job, double d2, int64_t dr, int64_t dc)
{
	if (job->steps.apart)
		return (float) fmax(fabs((double) dr * job->sy), fabs((double) dc * job->sx));
	if (job->steps.k != 0)
		return (float) ldexp(sqrt(d2), job->steps.k);
	return (float) sqrt(d2);
}

/*
 * Fill row y when the image has no background: SciPy's distances to the
 * virtual feature (row -1, column 0), and nearest = -1.
 */
static void
EdtRowNoBackground(const EdtJob *job, int64_t y)
{
	float	   *d = job->dist + y * job->width;

	if (job->unit)
		for (int64_t x = 0; x < job->width; x++)
			d[x] = (float) sqrt((double) ((y + 1) * (y + 1) + x * x));
	else
	{
		double		t = (double) (-1 - y) * job->steps.cy;
		double		dy2 = t * t;

		for (int64_t x = 0; x < job->width; x++)
			d[x] = EdtOutput(job, dy2 + job->dx2[x], -1 - y, x);
	}
	if (job->nearest)
		for (int64_t x = 0; x < job->width; x++)
			job->nearest[y * job->width + x] = -1;
}

/*
 * Unit spacing: walk the envelope left to right, moving on while the next
 * site is strictly closer (squared distances exact in int64).
 */
static void
EdtQueryUnit(const EdtJob *job, int64_t y, const EdtSlot *s, int64_t top)
{
	float	   *d = job->dist + y * job->width;
	int64_t    *nr = job->nearest ? job->nearest + y * job->width : NULL;
	int64_t		k = 0;

	for (int64_t x = 0; x < job->width; x++)
	{
		int64_t		dx = s->col[k] - x;
		int64_t		best = s->g[k] + dx * dx;

		while (k < top)
		{
			int64_t		dn = s->col[k + 1] - x;
			int64_t		next = s->g[k + 1] + dn * dn;

			if (next >= best)
				break;
			best = next;
			k++;
		}
		d[x] = (float) sqrt((double) best);
		if (nr)
			nr[x] = (int64_t) s->row[k] * job->width + s->col[k];
	}
}

/*
 * Other spacing: the same walk on dy2 + (dx * cx)^2, the doubles SciPy
 * outputs (or those scaled exactly), so the chosen site gives the
 * smallest output.
 */
static void
EdtQuerySpaced(const EdtJob *job, int64_t y, EdtSlot *s, int64_t top)
{
	float	   *d = job->dist + y * job->width;
	int64_t    *nr = job->nearest ? job->nearest + y * job->width : NULL;
	const double *dx2 = job->dx2;
	int64_t		k = 0;

	for (int64_t j = 0; j <= top; j++)
	{
		double		t = (double) ((int64_t) s->row[j] - y) * job->steps.cy;

		s->dy2[j] = t * t;
	}
	for (int64_t x = 0; x < job->width; x++)
	{
		double		best = s->dy2[k] + dx2[llabs(s->col[k] - x)];

		while (k < top)
		{
			double		next = s->dy2[k + 1] + dx2[llabs(s->col[k + 1] - x)];

			if (next >= best)
				break;
			best = next;
			k++;
		}
		d[x] = EdtOutput(job, best, (int64_t) s->row[k] - y, (int64_t) s->col[k] - x);
		if (nr)
			nr[x] = (int64_t) s->row[k] * job->width + s->col[k];
	}
}

/* Take a free scratch slot (one is free unless slots are oversubscribed). */
static EdtSlot *
EdtSlotTake(EdtJob *job)
{
	for (;;)
		for (int i = 0; i < job->nslots; i++)
		{
			int			expected = 0;

			if (atomic_compare_exchange_strong(&job->slots[i].busy, &expected, 1))
				return &job->slots[i];
		}
}

/* The row pass over rows [y0, y1), with one borrowed scratch slot. */
void
EdtRowsOf(EdtJob *job, int64_t y0, int64_t y1)
{
	EdtSlot    *s = EdtSlotTake(job);

	for (int64_t y = y0; y < y1; y++)
	{
		int64_t		top = EdtEnvelope(job, y, s);

		if (top < 0)
			EdtRowNoBackground(job, y);
		else if (job->unit)
			EdtQueryUnit(job, y, s, top);
		else
			EdtQuerySpaced(job, y, s, top);
	}
	atomic_store(&s->busy, 0);
}

/* One row-pass item: rows_per_item rows (fewer at the bottom). */
static void
EdtRowItem(void *arg, int64_t item)
{
	EdtJob	   *job = arg;
	int64_t		y0 = item * job->rows_per_item;

	EdtRowsOf(job, y0, y0 + job->rows_per_item < job->height ? y0 + job->rows_per_item : job->height);
}

/*
 * Allocate the scratch slots (and the dx^2 table for non-unit spacing) in
 * one block; returns it, or NULL when memory could not be had.
 */
static void *
EdtScratchAlloc(EdtJob *job)
{
	int64_t		w = job->width;
	size_t		per = (size_t) w * (2 * sizeof(int32_t) + sizeof(int64_t) +
									(job->unit ? 0 : sizeof(double)));
	size_t		head = (size_t) job->nslots * sizeof(EdtSlot);
	size_t		table = job->unit ? 0 : (size_t) w * sizeof(double);
	unsigned char *block;
	unsigned char *p;

	head = (head + 15) & ~(size_t) 15;
	block = malloc(head + table + per * (size_t) job->nslots);
	if (block == NULL)
		return NULL;
	job->slots = (EdtSlot *) block;
	p = block + head;
	if (!job->unit)
	{
		double	   *dx2 = (double *) p;

		for (int64_t d = 0; d < w; d++)
		{
			double		t = (double) d * job->steps.cx;

			dx2[d] = t * t;
		}
		job->dx2 = dx2;
		p += table;
	}
	for (int i = 0; i < job->nslots; i++)
	{
		EdtSlot    *s = &job->slots[i];

		atomic_init(&s->busy, 0);
		/* widest types first: every array stays aligned */
		s->g = (int64_t *) p;
		p += (size_t) w * sizeof(int64_t);
		s->dy2 = NULL;
		if (!job->unit)
		{
			s->dy2 = (double *) p;
			p += (size_t) w * sizeof(double);
		}
		s->col = (int32_t *) p;
		p += (size_t) w * sizeof(int32_t);
		s->row = (int32_t *) p;
		p += (size_t) w * sizeof(int32_t);
	}
	return block;
}

/* Whether the arguments are PbDistanceCpu's (PB_OK), else PB_ERR_BADARG. */
PbStatus
EdtArgsCheck(const uint8_t *fg, int32_t width, int32_t height, double sy, double sx,
			 const float *dist)
{
	if (width < 0 || height < 0 || width > PB_EDT_MAX_SIDE || height > PB_EDT_MAX_SIDE)
		return PB_ERR_BADARG;
	if (!(sy > 0) || !(sx > 0) || !isfinite(sy) || !isfinite(sx))
		return PB_ERR_BADARG;
	if (width > 0 && height > 0 && (fg == NULL || dist == NULL))
		return PB_ERR_BADARG;
	return PB_OK;
}

/*
 * The job of a distance transform of checked arguments, with scratch for
 * workers row-pass callers at once; NULL when memory could not be had.
 */
EdtJob *
EdtJobNew(const uint8_t *fg, int32_t width, int32_t height, double sy, double sx,
		  float *dist, int64_t *nearest, int workers)
{
	EdtJob	   *job = calloc(1, sizeof(EdtJob));
	int64_t		row_items;

	if (job == NULL)
		return NULL;
	job->fg = fg;
	job->width = width;
	job->height = height;
	job->sy = sy;
	job->sx = sx;
	job->steps = PbEdtStepsOf(sy, sx);
	job->rho = (job->steps.cy / job->steps.cx) * (job->steps.cy / job->steps.cx);
	job->unit = sy == 1.0 && sx == 1.0;
	job->exact_env = sy == sx;
	job->colrows = (unsigned char *) dist;
	job->dist = dist;
	job->nearest = nearest;
	job->rows_per_item = width >= EDT_ROW_PIXELS ? 1 : EDT_ROW_PIXELS / width;
	row_items = (height + job->rows_per_item - 1) / job->rows_per_item;
	job->nslots = row_items < workers ? (int) row_items : workers;
	if (EdtScratchAlloc(job) == NULL)
	{
		free(job);
		return NULL;
	}
	return job;
}

/* Free a job and its scratch. */
void
EdtJobFree(EdtJob *job)
{
	if (job == NULL)
		return;
	free(job->slots);			/* the start of the scratch block */
	free(job);
}

/* The exact Euclidean distance transform: see pb_raster.h and above. */
PbStatus
PbDistanceCpu(const uint8_t *fg, int32_t width, int32_t height,
			  double sy, double sx, float *dist, int64_t *nearest,
			  const PbRun *run)
{
	PbRun one = {1, 0, NULL, NULL};
	PbRun clamped;
	EdtJob	   *job;
	int			threads;
	PbStatus st = EdtArgsCheck(fg, width, height, sy, sx, dist);

	if (st != PB_OK || width == 0 || height == 0)
		return st;
	if (run == NULL)
		run = &one;
	threads = run->threads > 1 ? run->threads : 1;
	if (threads > EDT_MAX_SLOTS)
		threads = EDT_MAX_SLOTS;
	if ((job = EdtJobNew(fg, width, height, sy, sx, dist, nearest, threads)) == NULL)
		return PB_ERR_NOMEM;
	/* never more threads at once than scratch slots */
	clamped = *run;
	clamped.threads = threads;
	st = PbParallelFor(&clamped, (width + EDT_COL_CHUNK - 1) / EDT_COL_CHUNK,
					   EdtColumnItem, job);
	if (st == PB_OK)
		st = PbParallelFor(&clamped, (height + job->rows_per_item - 1) / job->rows_per_item,
						   EdtRowItem, job);
	EdtJobFree(job);
	return st;
}
