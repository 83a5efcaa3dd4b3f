/*
 * recon_window.h: the CPU's side of reconstructing one window of a larger
 * image (window.h): moving rings between an image and a packed buffer, and
 * the CPU's run of a window under the same contract as the GPU's
 * (PbGpuReconstructWindow, cuda/pb_raster_gpu.h), which the hybrid's CPU
 * threads use.
 */
#ifndef PB_RASTER_RECON_WINDOW_H
#define PB_RASTER_RECON_WINDOW_H

#include <stdbool.h>

#include "../base/pb_base.h"
#include "image.h"
#include "window.h"

/* Copy the ring of rectangle [x0, x1) x [y0, y1) of img into ring. */
void		PbRingGather(const PbImage *img, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
						 void *ring);

/* Copy ring into the ring of rectangle [x0, x1) x [y0, y1) of img. */
void		PbRingScatter(PbImage *img, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
						  const void *ring);

/*
 * Reconstruct window win of marker under mask on this thread: its halo'd
 * extent copied into the scratch buffers (each at least the extent's
 * pixels of marker's type) with its ring from win->halo, reconstructed,
 * the region but its ring written into marker and its ring into
 * win->border.  seeded: the region is a fixpoint of an earlier run, so
 * propagating from its halo alone finishes it (tried first; a flood falls
 * back to the full algorithm).  PB_OK, or PbReconstructCpu's error with
 * nothing written.
 */
PbStatus	PbReconWindowCpu(PbImage *marker, const PbImage *mask, const PbRasterWindow *win,
							 int connectivity, PbReconOp op, bool seeded,
							 void *scratch_marker, void *scratch_mask);

#endif							/* PB_RASTER_RECON_WINDOW_H */
