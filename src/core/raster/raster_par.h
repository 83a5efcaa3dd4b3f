/*
 * raster_par.h: the whole-image passes around the raster operations (a
 * band read or written, a mask's walls, markers' labels, a foreground, a
 * fill-holes marker) on run's threads, slice by slice, each slice the
 * serial function's own work on its pixels: the same bytes as one serial
 * pass.  Through SQL these passes cost as much as the GPU's kernels
 * (pb_raster_report); on 16 cores they run several times faster.
 */
#ifndef PB_RASTER_PAR_H
#define PB_RASTER_PAR_H

#include <stdint.h>

#include "../base/pb_base.h"
#include "image.h"
#include "raster_wkb.h"

/* PbRasterReadBand on run's threads; the number of nodata pixels. */
int64_t		PbRasterReadBandPar(const PbRun *run, const PbRasterBand *band,
								int64_t npixels, void *out, uint8_t *is_nodata);

/* PbRasterWriteBand on run's threads; where the next band goes. */
uint8_t    *PbRasterWriteBandPar(const PbRun *run, uint8_t *out, int wkb_type,
								 bool has_nodata, double nodata, const void *pixels,
								 int64_t npixels);

/* PbWsMarkerLabels on run's threads: the first negative pixel, or -1. */
int64_t		PbWsMarkerLabelsPar(const PbRun *run, const PbRasterBand *band,
								int64_t npixels, uint32_t *labels, double *negative);

/* PbWsMaskWalls on run's threads. */
void		PbWsMaskWallsPar(const PbRun *run, const PbRasterBand *band, int64_t npixels,
							 uint8_t *wall);

/* PbDistanceForeground on run's threads. */
void		PbDistanceForegroundPar(const PbRun *run, const PbImage *mask,
									const uint8_t *nodata, uint8_t *fg);

/* PbFillHolesMarker on run's threads. */
void		PbFillHolesMarkerPar(const PbRun *run, const PbImage *image, PbImage *marker);

/* PbReconClip on run's threads. */
PbStatus	PbReconClipPar(const PbRun *run, PbImage *marker, const PbImage *mask,
						   PbReconOp op);

/*
 * Set bytes of buf to zero on run's threads: a large buffer fresh from
 * the allocator is mapped page by page as it is first written, and the
 * threads take those faults in parallel (a copy from the GPU into it then
 * runs at the copy's speed).
 */
void		PbZeroPar(const PbRun *run, void *buf, size_t bytes);

#endif							/* PB_RASTER_PAR_H */
