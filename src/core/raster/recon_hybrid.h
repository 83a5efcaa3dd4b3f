/*
 * recon_hybrid.h: gray-scale reconstruction on CPU threads and devices (GPUs)
 * together, pure C: the image is cut into square cells; a CPU thread takes
 * one dirty cell at a time, a device a block of cells, each with a one-pixel
 * halo read from its neighbours, and reconstructs it on its own as a
 * window (window.h: only the rings pass under the neighbours' locks); a cell
 * whose neighbour's facing border changed is dirty again (the paper's
 * tile-based IWPP with border propagation, CPU + GPU from one queue).
 * Nothing dirty and nothing running means the marker is the reconstruction:
 * the same pixels as PbReconstructCpu, in any schedule, since every region
 * run moves the marker toward the one fixpoint without passing it.
 *
 * The calling thread drives the first device (one region at a time,
 * polling run->poll between them and while it waits), each other device
 * has a thread of its own, and run->threads - 1 CPU threads take cells.
 * A device whose run fails stops taking regions; the CPU threads finish
 * its work (a failed region leaves a partial reconstruction, which is
 * still below the fixpoint), so the answer does not change.
 */
#ifndef PB_RECON_HYBRID_H
#define PB_RECON_HYBRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/pb_base.h"
#include "image.h"
#include "window.h"

/*
 * A device's reconstruction of window win of marker under mask (the
 * contract of PbReconWindowCpu, recon_window.h): 0 when done, else an
 * error in err (the region's pixels then hold a partial reconstruction,
 * win->border is undefined).
 */
typedef int (*PbReconRegionFn) (void *ctx, PbImage *marker, const PbImage *mask,
								const PbRasterWindow *win, int connectivity, PbReconOp op,
								char *err, size_t err_len);

/* A device the calling thread drives, and what it did. */
typedef struct PbReconDevice
{
	PbReconRegionFn run;
	void	   *ctx;
	int			block;			/* its regions: block x block cells */
	/* out */
	int64_t		regions;		/* region runs */
	int64_t		pixels;			/* pixels of those regions */
	double		busy_s;			/* seconds in run() */
	bool		failed;
	char		err[256];
} PbReconDevice;

/* What the CPU threads did. */
typedef struct PbReconHybridStats
{
	int64_t		cells;			/* cells of the image */
	int64_t		cpu_regions;	/* cell runs on the CPU threads */
	int64_t		cpu_pixels;
	double		cpu_busy_s;		/* summed over the threads */
	int			cpu_threads;
} PbReconHybridStats;

/*
 * Reconstruct marker (clipped to mask) under mask in place, in cells of
 * cell x cell pixels, on run->threads - 1 CPU threads and the ndev >= 1
 * devices.  PB_ERR_STOPPED when run->poll asked to stop (the marker then
 * holds a partial reconstruction), PB_ERR_NOMEM, PB_ERR_BADARG.
 */
PbStatus	PbReconstructHybrid(PbImage *marker, const PbImage *mask, int connectivity,
								PbReconOp op, const PbRun *run, int cell,
								PbReconDevice *devs, int ndev, PbReconHybridStats *stats);

#endif							/* PB_RECON_HYBRID_H */
