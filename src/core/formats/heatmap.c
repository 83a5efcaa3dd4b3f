/*
 * heatmap.c: per-tile values to an RGBA heat map (heatmap.h): the checks
 * of each tile as it comes, and the drawing.
 *
 * Tiles are kept as they come, 12 bytes each, their value already a
 * colour.  Every tile added is checked against the image it makes so far
 * (cell size, side, bytes), so the tiles kept stay bounded by the largest
 * image allowed; once there are more tiles than the span has places, one
 * is there twice, and it is found then.  Drawing paints each tile's
 * square and marks its place in a bitmap, which finds a tile given twice.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"

/* Tiles kept at first. */
#define HEAT_FIRST_CAP 1024
/* Pixels painted between two polls. */
#define HEAT_POLL_PIXELS ((uint64_t) 1 << 20)
/* Bytes of the image cleared between two polls. */
#define HEAT_CLEAR_BYTES ((size_t) 16 << 20)

/* Start an empty heat map whose tiles live in mem. */
void
PbHeatInit(PbHeatMap *m, const PbAllocator *mem)
{
	memset(m, 0, sizeof(*m));
	m->mem = mem;
}

/* Release the tiles. */
void
PbHeatFree(PbHeatMap *m)
{
	if (m->cells != NULL)
		m->mem->release(m->mem->ctx, m->cells);
	m->cells = NULL;
	m->n = m->cap = 0;
}

/* Record fault and a printf-style message in err; PB_ERR_BADARG. */
static PbStatus Refuse(PbHeatMap *m, PbHeatFault fault, PbError *err, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

static PbStatus
Refuse(PbHeatMap *m, PbHeatFault fault, PbError *err, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	m->fault = fault;
	err->code = PB_ERR_BADARG;
	return PB_ERR_BADARG;
}

/*
 * Write v in 15 significant digits, or 17 where 15 do not read back as v
 * (1.0000000000000002), and infinities as PostgreSQL writes them.
 */
static void
FormatValue(double v, char *buf, size_t len)
{
	if (isinf(v))
	{
		snprintf(buf, len, "%s", v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

/*
 * Check that tiles x0..x1, y0..y1 of cell pixels make an image within
 * PB_HEAT_MAX_SIDE on a side and PB_HEAT_MAX_BYTES of RGBA.
 */
static PbStatus
CheckSize(PbHeatMap *m, int64_t x0, int64_t x1, int64_t y0, int64_t y1, int cell,
		  PbError *err)
{
	uint64_t	w = (uint64_t) (x1 - x0 + 1) * (uint64_t) cell,
				h = (uint64_t) (y1 - y0 + 1) * (uint64_t) cell;

	if (w <= PB_HEAT_MAX_SIDE && h <= PB_HEAT_MAX_SIDE && w * h * 4 <= PB_HEAT_MAX_BYTES)
		return PB_OK;
	return Refuse(m, PB_HEAT_FAULT_SIZE, err,
				  "the heat map would be at least %llu x %llu pixels (tiles x %lld to %lld, y %lld to %lld, cell_pixels %d): too large",
				  (unsigned long long) w, (unsigned long long) h, (long long) x0,
				  (long long) x1, (long long) y0, (long long) y1, cell);
}

/* The number of places in the span of the tiles so far. */
static uint64_t
SpanTiles(const PbHeatMap *m)
{
	return (uint64_t) (m->max_x - m->min_x + 1) * (uint64_t) (m->max_y - m->min_y + 1);
}

/* Is place i of bitmap marked?  Mark it. */
static inline int
TestAndMark(uint64_t *bits, uint64_t i)
{
	uint64_t	bit = (uint64_t) 1 << (i & 63);
	int			was = (bits[i >> 6] & bit) != 0;

	bits[i >> 6] |= bit;
	return was;
}

/* The bitmap index of a tile's place in the span. */
static inline uint64_t
Place(const PbHeatMap *m, const PbHeatCell *c)
{
	return (uint64_t) (c->y - m->min_y) * (uint64_t) (m->max_x - m->min_x + 1) +
		(uint64_t) (c->x - m->min_x);
}

/* Name the first tile given a second time. */
static PbStatus
Duplicate(PbHeatMap *m, const PbHeatCell *c, PbError *err)
{
	return Refuse(m, PB_HEAT_FAULT_DUPLICATE, err,
				  "tile (%d, %d) appears twice: each tile may have one value", c->x, c->y);
}

/* A zeroed bitmap of the span's places (from mem). */
static uint64_t *
NewBitmap(const PbHeatMap *m)
{
	size_t		bytes = (size_t) ((SpanTiles(m) + 63) / 64) * sizeof(uint64_t);
	uint64_t   *bits = m->mem->alloc(m->mem->ctx, bytes);

	memset(bits, 0, bytes);
	return bits;
}

/* Find a tile that is there twice (there must be one): refuse it. */
static PbStatus
FindDuplicate(PbHeatMap *m, PbError *err)
{
	uint64_t   *bits = NewBitmap(m);
	PbStatus	st = PB_OK;

	for (size_t i = 0; i < m->n && st == PB_OK; i++)
		if (TestAndMark(bits, Place(m, &m->cells[i])))
			st = Duplicate(m, &m->cells[i], err);
	m->mem->release(m->mem->ctx, bits);
	return st;
}

/* Add one tile, checked (heatmap.h). */
PbStatus
PbHeatAdd(PbHeatMap *m, int32_t x, int32_t y, int has_value, double value,
		  int cell_pixels, PbError *err)
{
	uint16_t	colour = PB_HEAT_GREY;
	int64_t		x0,
				x1,
				y0,
				y1;
	PbStatus	st;

	m->fault = PB_HEAT_FAULT_NONE;
	if (cell_pixels < PB_HEAT_MIN_CELL || cell_pixels > PB_HEAT_MAX_CELL)
		return Refuse(m, PB_HEAT_FAULT_CELL, err,
					  "tile (%d, %d): cell_pixels must be between %d and %d, not %d",
					  x, y, PB_HEAT_MIN_CELL, PB_HEAT_MAX_CELL, cell_pixels);
	if (m->cell_pixels != 0 && cell_pixels != m->cell_pixels)
		return Refuse(m, PB_HEAT_FAULT_CELL, err,
					  "tile (%d, %d): cell_pixels must be the same in every row: %d, then %d",
					  x, y, m->cell_pixels, cell_pixels);
	if (has_value)
	{
		char		v[32];

		if (isnan(value))
			return Refuse(m, PB_HEAT_FAULT_VALUE, err,
						  "tile (%d, %d): its value is NaN, not a number in [0, 1]", x, y);
		if (!(value >= 0.0 && value <= 1.0))
		{
			FormatValue(value, v, sizeof(v));
			return Refuse(m, PB_HEAT_FAULT_VALUE, err,
						  "tile (%d, %d): its value %s is outside [0, 1]", x, y, v);
		}
		colour = (uint16_t) rint(value * 255.0);
	}
	x0 = m->cell_pixels && m->min_x < x ? m->min_x : x;
	x1 = m->cell_pixels && m->max_x > x ? m->max_x : x;
	y0 = m->cell_pixels && m->min_y < y ? m->min_y : y;
	y1 = m->cell_pixels && m->max_y > y ? m->max_y : y;
	st = CheckSize(m, x0, x1, y0, y1, cell_pixels, err);
	if (st != PB_OK)
		return st;
	if (m->n == m->cap)
	{
		size_t		cap = m->cap ? m->cap * 2 : HEAT_FIRST_CAP;

		m->cells = m->cells ? m->mem->resize(m->mem->ctx, m->cells, cap * sizeof(PbHeatCell))
			: m->mem->alloc(m->mem->ctx, cap * sizeof(PbHeatCell));
		m->cap = cap;
	}
	m->cells[m->n++] = (PbHeatCell) {x, y, colour};
	m->min_x = x0;
	m->max_x = x1;
	m->min_y = y0;
	m->max_y = y1;
	m->cell_pixels = cell_pixels;
	if (m->n > SpanTiles(m))
		return FindDuplicate(m, err);
	return PB_OK;
}

/* Paint tile c's square of its colour into im (width w pixels). */
static void
Paint(const PbHeatMap *m, const PbHeatCell *c, uint8_t *rgba, uint32_t w)
{
	int			cell = m->cell_pixels;
	size_t		stride = (size_t) w * 4,
				span = (size_t) cell * 4;
	uint8_t    *top = rgba + (size_t) (c->y - m->min_y) * cell * stride +
		(size_t) (c->x - m->min_x) * span;
	uint8_t		px[4] = {128, 128, 128, 255};

	if (c->colour != PB_HEAT_GREY)
	{
		px[0] = PbViridis[c->colour][0];
		px[1] = PbViridis[c->colour][1];
		px[2] = PbViridis[c->colour][2];
	}
	for (int i = 0; i < cell; i++)
		memcpy(top + (size_t) i * 4, px, 4);
	for (int r = 1; r < cell; r++)
		memcpy(top + (size_t) r * stride, top, span);
}

/* Draw the tiles (heatmap.h). */
PbStatus
PbHeatRender(PbHeatMap *m, PbPollFn poll, void *poll_arg, PbHeatImage *im, PbError *err)
{
	const PbAllocator *mem = m->mem;
	uint64_t   *bits;
	uint64_t	painted = 0,
				per_tile;
	size_t		bytes;
	PbStatus	st = PB_OK;

	memset(im, 0, sizeof(*im));
	m->fault = PB_HEAT_FAULT_NONE;
	if (m->n == 0)
		return PbFail(err, PB_ERR_BADARG, "a heat map needs at least one tile");
	im->width = (uint32_t) ((m->max_x - m->min_x + 1) * m->cell_pixels);
	im->height = (uint32_t) ((m->max_y - m->min_y + 1) * m->cell_pixels);
	bytes = (size_t) im->width * im->height * 4;
	im->rgba = mem->alloc(mem->ctx, bytes);
	/* cleared a slice at a time: a large map's first touch of its pages is slow */
	for (size_t at = 0; at < bytes; at += HEAT_CLEAR_BYTES)
	{
		if (poll != NULL && poll(poll_arg))
		{
			mem->release(mem->ctx, im->rgba);
			memset(im, 0, sizeof(*im));
			return PbFail(err, PB_ERR_STOPPED, "stopped");
		}
		memset(im->rgba + at, 0, bytes - at < HEAT_CLEAR_BYTES ? bytes - at : HEAT_CLEAR_BYTES);
	}
	bits = NewBitmap(m);
	per_tile = (uint64_t) m->cell_pixels * m->cell_pixels;
	for (size_t i = 0; i < m->n && st == PB_OK; i++)
	{
		if (painted >= HEAT_POLL_PIXELS)
		{
			painted = 0;
			if (poll != NULL && poll(poll_arg))
			{
				st = PbFail(err, PB_ERR_STOPPED, "stopped");
				break;
			}
		}
		if (TestAndMark(bits, Place(m, &m->cells[i])))
			st = Duplicate(m, &m->cells[i], err);
		else
			Paint(m, &m->cells[i], im->rgba, im->width);
		painted += per_tile;
	}
	mem->release(mem->ctx, bits);
	if (st != PB_OK)
	{
		mem->release(mem->ctx, im->rgba);
		memset(im, 0, sizeof(*im));
	}
	return st;
}
