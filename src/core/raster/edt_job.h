/*
 * edt_job.h: the CPU distance transform (edt_cpu.c) in pieces, so that the
 * hybrid one (edt_hybrid.c) can hand ranges of columns and rows to CPU
 * threads while devices take others.  The column pass writes, for each
 * pixel, the row of the nearest background pixel in its column (ties to
 * the upper row; -1 when the column has none) as an int32 in the bytes of
 * dist, at the pixel's place; the row pass turns each row of these into
 * the row's distances (and nearest pixels) in place.  Internal to the
 * raster core.
 */
#ifndef PB_EDT_JOB_H
#define PB_EDT_JOB_H

#include <stdint.h>

#include "image.h"

typedef struct EdtJob EdtJob;

/* Whether the arguments are PbDistanceCpu's: PB_OK, else PB_ERR_BADARG. */
PbStatus	EdtArgsCheck(const uint8_t *fg, int32_t width, int32_t height, double sy, double sx,
						 const float *dist);

/*
 * The job of a distance transform of checked arguments (sides >= 1), with
 * row-pass scratch for workers callers at once (more spin until one is
 * done); NULL when memory could not be had.
 */
EdtJob	   *EdtJobNew(const uint8_t *fg, int32_t width, int32_t height, double sy, double sx,
					  float *dist, int64_t *nearest, int workers);

/* Free a job (NULL: nothing). */
void		EdtJobFree(EdtJob *job);

/*
 * The column pass over columns [x0, x1), written for rows [ya, yb) only
 * (0, height: the whole pass); any number of threads on disjoint columns.
 */
void		EdtColumnsOf(const EdtJob *job, int64_t x0, int64_t x1, int64_t ya, int64_t yb);

/*
 * The row pass over rows [y0, y1), whose column rows (all columns) are
 * done; any number of threads on disjoint rows.
 */
void		EdtRowsOf(EdtJob *job, int64_t y0, int64_t y1);

#endif							/* PB_EDT_JOB_H */
