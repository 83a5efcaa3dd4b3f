/*
 * edt_hybrid.h: the exact distance transform on CPU threads and devices
 * (GPUs) together, pure C.  Both passes of PbDistanceCpu are cut into
 * ranges taken from one queue per pass: the CPU threads take small ranges
 * from one end (columns from the left, rows from the top), the devices
 * large ones from the other; the row pass starts when every column is
 * done.  Every range is computed exactly as PbDistanceCpu computes it, so
 * the answer is the same whoever takes what.
 *
 * The calling thread drives the first device (polling run->poll between
 * its ranges and while it waits), each other device has a thread of its
 * own, and run->threads - 1 CPU threads take ranges.  A device whose range
 * fails stops taking ranges; its thread redoes that range on the CPU
 * (a failed row range first gets its column rows back from the image)
 * and goes on as a CPU thread, so the answer does not change.
 */
#ifndef PB_EDT_HYBRID_H
#define PB_EDT_HYBRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"
#include "image.h"

/*
 * A device's column pass over columns [x0, x1) of fg (width x height):
 * each pixel's column row (edt_job.h: the row of the nearest background
 * pixel in its column, ties up, or -1) as an int32 into colrows (width
 * per row) at the pixel's place.  0; 1 when a poll of its own asked to
 * stop (the run then stops, PB_ERR_STOPPED); else an error in err.
 */
typedef int (*PbEdtColumnsFn) (void *ctx, const uint8_t *fg, int32_t width, int32_t height,
							   int32_t x0, int32_t x1, void *colrows,
							   char *err, size_t err_len);

/*
 * A device's row pass over rows [y0, y1): their column rows, held in
 * dist's bytes (as int32, at each pixel's place), become the rows'
 * distances (and nearest pixels, when nearest is not NULL), in place.
 * 0; 1 when a poll of its own asked to stop; else an error in err (the
 * rows may then hold anything).
 */
typedef int (*PbEdtRowsFn) (void *ctx, int32_t width, int32_t height, double sy, double sx,
							int32_t y0, int32_t y1, float *dist, int64_t *nearest,
							char *err, size_t err_len);

/* A device taking part, and what it did. */
typedef struct PbEdtDevice
{
	PbEdtColumnsFn columns;
	PbEdtRowsFn rows;
	void	   *ctx;
	int32_t		take_columns;	/* columns it takes at once (>= 1) */
	int32_t		take_rows;		/* rows it takes at once (>= 1) */
	/* out */
	int64_t		ranges;			/* ranges it computed */
	int64_t		pixels;			/* their pixels, both passes */
	double		busy_s;			/* seconds in columns() and rows() */
	bool		failed;
	char		err[256];
} PbEdtDevice;

/* What the CPU threads did. */
typedef struct PbEdtHybridStats
{
	int64_t		cpu_ranges;
	int64_t		cpu_pixels;
	double		cpu_busy_s;		/* summed over the threads */
	int			cpu_threads;
} PbEdtHybridStats;

/*
 * PbDistanceCpu's distance transform (the same arguments and answer) on
 * run->threads - 1 CPU threads and the ndev >= 1 devices.  PB_ERR_STOPPED
 * when run->poll asked to stop, PB_ERR_NOMEM, PB_ERR_BADARG.
 */
PbStatus	PbDistanceHybrid(const uint8_t *fg, int32_t width, int32_t height,
							 double sy, double sx, float *dist, int64_t *nearest,
							 const PbRun *run, PbEdtDevice *devs, int ndev,
							 PbEdtHybridStats *stats);

#endif							/* PB_EDT_HYBRID_H */
