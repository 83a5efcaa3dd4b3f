/*
 * heatmap.h: a heat map of per-tile values (pb_heatmap_png): tiles
 * numbered (x, y), each a square of cell_pixels pixels, coloured with
 * matplotlib's viridis at a value in [0, 1].
 *
 * The picture spans the tiles' x and y from their smallest to their
 * largest: column x - min_x, image row y - min_y (row 0 at the top, tiles
 * numbered y down as the slide image is).  A value is quantised when it
 * is added (viridis index rint(value * 255)); a tile whose value is
 * missing is mid grey, a tile with no value at all is transparent.  Each
 * tile may be given once.  The image stays within PB_HEAT_MAX_SIDE pixels
 * on a side and PB_HEAT_MAX_BYTES bytes of RGBA, checked as tiles come,
 * so the tiles kept (12 bytes each) never outgrow the image they make.
 */
#ifndef PB_HEATMAP_H
#define PB_HEATMAP_H

#include "../base/pb_base.h"

/* The most pixels on a side of a heat map. */
#define PB_HEAT_MAX_SIDE 16384
/* The most bytes of a heat map's RGBA pixels (2^28: 8192 x 8192). */
#define PB_HEAT_MAX_BYTES ((uint64_t) 1 << 28)
/* The cell sizes allowed, in pixels. */
#define PB_HEAT_MIN_CELL 1
#define PB_HEAT_MAX_CELL 256
/* The colour of a tile without a value (cell colour index). */
#define PB_HEAT_GREY 256

/* matplotlib's viridis, 256 RGB entries (heatmap.c). */
extern const uint8_t PbViridis[256][3];

/* One tile: its numbers and colour (a viridis index, or PB_HEAT_GREY). */
typedef struct PbHeatCell
{
	int32_t		x;
	int32_t		y;
	uint16_t	colour;
} PbHeatCell;

/* What a failed PbHeatAdd or PbHeatRender refused, for the caller's hint. */
typedef enum PbHeatFault
{
	PB_HEAT_FAULT_NONE = 0,
	PB_HEAT_FAULT_VALUE,		/* NaN, < 0 or > 1 */
	PB_HEAT_FAULT_CELL,			/* cell_pixels out of range or changed */
	PB_HEAT_FAULT_SIZE,			/* the image would be too large */
	PB_HEAT_FAULT_DUPLICATE		/* a tile given twice */
} PbHeatFault;

/* The tiles of a heat map so far. */
typedef struct PbHeatMap
{
	PbHeatCell *cells;
	size_t		n,
				cap;
	int64_t		min_x,
				max_x,
				min_y,
				max_y;
	int			cell_pixels;	/* 0 until the first tile */
	PbHeatFault fault;			/* what the last error was about */
	const PbAllocator *mem;
} PbHeatMap;

/* An RGBA image, 4 bytes a pixel, rows top to bottom (mem->alloc'd). */
typedef struct PbHeatImage
{
	uint8_t    *rgba;
	uint32_t	width;
	uint32_t	height;
} PbHeatImage;

/* Start an empty heat map whose tiles live in mem. */
extern void PbHeatInit(PbHeatMap *m, const PbAllocator *mem);

/*
 * Add tile (x, y) of value (has_value 0: no value, grey) drawn
 * cell_pixels wide.  Refused (PB_ERR_BADARG, m->fault says which rule,
 * err names the tile): value NaN or outside [0, 1]; cell_pixels outside
 * [PB_HEAT_MIN_CELL, PB_HEAT_MAX_CELL] or unlike the first tile's; an
 * image too large (its size in err; the limits are the caller's to say); a tile given twice (found here once there are more
 * tiles than the span has places, else by PbHeatRender).
 */
extern PbStatus PbHeatAdd(PbHeatMap *m, int32_t x, int32_t y, int has_value, double value,
						  int cell_pixels, PbError *err);

/*
 * Draw the tiles into *im (its pixels from m->mem; transparent where no
 * tile is), polling between tiles.  Refuses a tile given twice, naming
 * it (PB_ERR_BADARG, m->fault PB_HEAT_FAULT_DUPLICATE); PB_ERR_STOPPED
 * when poll asked to stop.  A map without tiles gives PB_ERR_BADARG.
 */
extern PbStatus PbHeatRender(PbHeatMap *m, PbPollFn poll, void *poll_arg, PbHeatImage *im,
							 PbError *err);

/* Release the tiles. */
extern void PbHeatFree(PbHeatMap *m);

#endif							/* PB_HEATMAP_H */
