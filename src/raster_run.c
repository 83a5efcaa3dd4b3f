/*
 * raster_run.c: run a raster operation on the GPU or the CPU, through the
 * one GPU path of device.c (PbGpuTry): pixelbox.device picks, the work
 * runs on this backend's GPU context within what is left of its budget, a
 * GPU failure gives one WARNING and the CPU computes the same answer, and
 * a cancel or statement_timeout stops the work within about a second (the
 * kernels and the CPU threads poll between rounds and tiles; only this
 * thread polls, and it only reads the interrupt flags).  The compute
 * stage's time and device go to the raster report (raster_report.c).
 */
#include "postgres.h"

#include "miscadmin.h"

#include "../cuda/pb_raster_gpu.h"
#include "core/raster/edt_hybrid.h"
#include "core/raster/recon_hybrid.h"
#include "raster_glue.h"

/* Side of the hybrid reconstruction's cells, the CPU threads' unit. */
#define HYBRID_CELL 512

/*
 * Turn a core status into an error: a stop means an interrupt arrived
 * (serviced here), out of memory is an error.
 */
static void
CheckStatus(PbStatus st, const char *caller)
{
	if (st == PB_ERR_STOPPED)
	{
		CHECK_FOR_INTERRUPTS();
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("%s: canceled", caller)));
	}
	if (st == PB_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("%s: out of memory for scratch space", caller)));
	if (st != PB_OK)
		elog(ERROR, "%s: invalid arguments to the raster core (status %d)", caller, (int) st);
}

/* The compute stage ran on the GPU: its row, and the GPU's own account. */
static void
ReportGpu(const PbRasterGpuStats *stats)
{
	PbRasterReportStage("compute", "gpu");
	PbRasterReportGpu(stats);
}

/*
 * A hybrid run's account: the compute stage on device hybrid, the GPUs'
 * kernels and copies, and each device's busy seconds and regions (ranges,
 * tiles); no cpu row where cpu_regions < 0 (the CPU threads took none).
 */
static void
ReportHybrid(const PbRasterGpuStats *gpu, int ndev, const double *busy, const int64 *regions,
			 double cpu_busy, int64 cpu_regions)
{
	PbRasterReportStage("compute", "hybrid");
	PbRasterReportGpu(gpu);
	for (int d = 0; d < ndev; d++)
		PbRasterReportTiles("busy", ndev == 1 ? "gpu" : psprintf("gpu %d", d), busy[d], regions[d]);
	if (cpu_regions >= 0)
		PbRasterReportTiles("busy", "cpu", cpu_busy, cpu_regions);
}

/* A reconstruction's arguments, for its GPU work. */
typedef struct ReconArgs
{
	PbImage    *marker;
	const PbImage *mask;
	int			connectivity;
	PbReconOp	op;
	PbRasterGpuStats stats;
	bool		hybrid;			/* ran on the CPU threads and the GPUs together */
	const char *caller;
} ReconArgs;

/* PbGpuWork: the reconstruction on the GPU. */
static int
ReconOnGpu(PbGpu *g, void *arg, char *err, size_t err_len)
{
	ReconArgs  *a = (ReconArgs *) arg;

	return PbGpuReconstruct(g, a->marker, a->mask, a->connectivity, a->op,
							PbInterruptArrived, NULL, &a->stats, err, err_len);
}

/* A hybrid reconstruction's GPU side: the context and what it did. */
typedef struct HybridGpu
{
	PbGpu	   *g;
	PbRasterGpuStats stats;
} HybridGpu;

/* Add a GPU call's kernels and copies to a hybrid GPU's account; 1 becomes "canceled". */
static int
HybridGpuDone(HybridGpu *h, const PbRasterGpuStats *st, int rc, char *err, size_t err_len)
{
	h->stats.kernel_ms += st->kernel_ms;
	h->stats.transfer_ms += st->transfer_ms;
	if (rc == 1)
		snprintf(err, err_len, "canceled");
	return rc;
}

/* PbReconRegionFn: one region of a hybrid reconstruction on the GPU. */
static int
GpuRegion(void *ctx, PbImage *marker, const PbImage *mask, const PbRasterWindow *win,
		  int connectivity, PbReconOp op, char *err, size_t err_len)
{
	HybridGpu  *h = (HybridGpu *) ctx;
	PbRasterGpuStats st;
	int			rc = PbGpuReconstructWindow(h->g, marker, mask, win, connectivity, op,
											PbInterruptArrived, NULL, &st, err, err_len);

	return HybridGpuDone(h, &st, rc, err, err_len);
}

/*
 * The GPUs' blocks, in cells: the largest square window (with its halo)
 * the first GPU takes as one tile, and at most a quarter of the image's
 * side, so that the CPU threads have blocks to take while a GPU runs one;
 * 0 when not even one cell fits, -1 with a reason in err.
 */
static int
HybridBlock(PbGpu *g, const ReconArgs *a, char *err, size_t err_len)
{
	int			side = PbGpuReconstructWindowSide(g, a->marker->type, a->connectivity, a->op,
												  err, err_len);
	int64		cells = ((int64) Max(a->marker->width, a->marker->height) + HYBRID_CELL - 1) /
		HYBRID_CELL;

	if (side < 0)
		return -1;
	return (int) Min((int64) Max(side - 2, 0) / HYBRID_CELL, (cells + 3) / 4);
}

/*
 * PbGpuWork: the reconstruction on the first GPU alone when it holds the
 * image at once (it is then several times the CPU threads) or not even a
 * cell at once, else on the CPU threads and every GPU of pixelbox.gpus
 * together.  A GPU that fails gives its WARNING and leaves its regions to
 * the others: the run still ends with the reconstruction, so the work is
 * done either way.
 */
static int
ReconHybrid(PbGpu *g, void *arg, char *err, size_t err_len)
{
	ReconArgs  *a = (ReconArgs *) arg;
	PbGpu	   *gpus[PB_MAX_GPUS];
	HybridGpu	h[PB_MAX_GPUS];
	PbReconDevice devs[PB_MAX_GPUS];
	PbReconHybridStats hs;
	PbRun		run = PbCpuRun();
	PbStatus	st;
	double		busy[PB_MAX_GPUS] = {0};
	int64		regions[PB_MAX_GPUS] = {0};
	int			ndev,
				block;
	int			holds = PbGpuReconstructHolds(g, a->marker->width, a->marker->height,
											  a->marker->type, a->connectivity, a->op,
											  err, err_len);

	if (holds != 0)
		return holds < 0 ? -1 : ReconOnGpu(g, arg, err, err_len);
	block = HybridBlock(g, a, err, err_len);
	if (block <= 0)				/* not a cell fits: the GPU alone, in its own tiles */
		return block < 0 ? -1 : ReconOnGpu(g, arg, err, err_len);
	a->hybrid = true;
	ndev = PbGpuRasterDevices(g, gpus, a->caller);
	for (int d = 0; d < ndev; d++)
	{
		h[d] = (HybridGpu) {gpus[d]};
		devs[d] = (PbReconDevice) {.run = GpuRegion, .ctx = &h[d], .block = block};
	}
	st = PbReconstructHybrid(a->marker, a->mask, a->connectivity, a->op, &run,
							 HYBRID_CELL, devs, ndev, &hs);
	memset(&a->stats, 0, sizeof(a->stats));
	for (int d = 0; d < ndev; d++)
	{
		a->stats.kernel_ms += h[d].stats.kernel_ms;
		a->stats.transfer_ms += h[d].stats.transfer_ms;
	}
	if (st == PB_ERR_STOPPED)
		return 1;
	for (int d = 0; d < ndev; d++)
	{
		busy[d] = devs[d].busy_s;
		regions[d] = devs[d].regions;
	}
	ReportHybrid(&a->stats, ndev, busy, regions, hs.cpu_busy_s, hs.cpu_regions);
	PbRasterReportTiles("cells", NULL, 0, hs.cells);
	if (st != PB_OK)
	{
		snprintf(err, err_len, "the hybrid reconstruction failed (status %d)", (int) st);
		return -1;
	}
	for (int d = 0; d < ndev; d++)
		if (devs[d].failed)		/* the others finished its work */
			PbGpuFailed(gpus[d], a->caller, devs[d].err);
	return 0;
}

/*
 * Reconstruct marker under mask in place (marker already clipped), on the
 * GPU when it is wanted and works, else on the CPU (after a GPU failure
 * the marker holds a partial reconstruction, which the CPU finishes).
 * With pixelbox.device = hybrid, an image the GPU holds at once runs there
 * alone; a larger one on the CPU threads and the GPU together, rather than
 * in pieces on the GPU alone.
 */
void
PbRunReconstruct(PbImage *marker, const PbImage *mask, int connectivity,
				 PbReconOp op, const char *caller)
{
	PbRun		run = PbCpuRun();
	ReconArgs	a = {marker, mask, connectivity, op, .caller = caller};
	int			st = PbGpuTry(caller, pb_device == PB_DEVICE_HYBRID ? ReconHybrid : ReconOnGpu, &a);

	if (st == 0)
	{
		if (!a.hybrid)
			ReportGpu(&a.stats);
		return;
	}
	if (st == 1)
		CheckStatus(PB_ERR_STOPPED, caller);
	CheckStatus(PbReconstructCpu(marker, mask, connectivity, op, &run), caller);
	PbRasterReportStage("compute", "cpu");
}

/* A distance transform's arguments, for its GPU work. */
typedef struct DistanceArgs
{
	const uint8 *fg;
	int32		width,
				height;
	double		sy,
				sx;
	float	   *dist;
	int64	   *nearest;
	PbRasterGpuStats stats;
	bool		hybrid;			/* ran on the CPU threads and the GPUs together */
	const char *caller;
} DistanceArgs;

/* PbGpuWork: the distance transform on the GPU. */
static int
DistanceOnGpu(PbGpu *g, void *arg, char *err, size_t err_len)
{
	DistanceArgs *a = (DistanceArgs *) arg;

	return PbGpuDistance(g, a->fg, a->width, a->height, a->sy, a->sx, a->dist,
						 (int64_t *) a->nearest, PbInterruptArrived, NULL, &a->stats,
						 err, err_len);
}

/* PbEdtColumnsFn: a range of a hybrid distance transform's columns on the GPU. */
static int
GpuColumns(void *ctx, const uint8_t *fg, int32_t width, int32_t height, int32_t x0, int32_t x1,
		   void *colrows, char *err, size_t err_len)
{
	HybridGpu  *h = (HybridGpu *) ctx;
	PbRasterGpuStats st;
	int			rc = PbGpuDistanceColumns(h->g, fg, width, height, x0, x1, colrows,
										  PbInterruptArrived, NULL, &st, err, err_len);

	return HybridGpuDone(h, &st, rc, err, err_len);
}

/* PbEdtRowsFn: a range of a hybrid distance transform's rows on the GPU. */
static int
GpuRows(void *ctx, int32_t width, int32_t height, double sy, double sx, int32_t y0, int32_t y1,
		float *dist, int64_t *nearest, char *err, size_t err_len)
{
	HybridGpu  *h = (HybridGpu *) ctx;
	PbRasterGpuStats st;
	int			rc = PbGpuDistanceRows(h->g, width, height, sy, sx, y0, y1, dist, nearest,
									   PbInterruptArrived, NULL, &st, err, err_len);

	return HybridGpuDone(h, &st, rc, err, err_len);
}

/*
 * PbGpuWork: the distance transform on the first GPU alone when it runs
 * the image in one piece, else on the CPU threads and every GPU of
 * pixelbox.gpus together, each GPU taking its strips (at most a quarter
 * of the image's side) from one end of each pass.  The CPU side runs
 * PB_RASTER_COPY_THREADS fewer threads per GPU: both sides are bound by the
 * host's memory, and with every core busy the GPUs' copies slowed so much
 * that the hybrid lost to the GPU alone.  A GPU that fails gives
 * its WARNING and its range is redone on the CPU: the work is done either
 * way.
 */
static int
DistanceHybrid(PbGpu *g, void *arg, char *err, size_t err_len)
{
	DistanceArgs *a = (DistanceArgs *) arg;
	PbGpu	   *gpus[PB_MAX_GPUS];
	HybridGpu	h[PB_MAX_GPUS];
	PbEdtDevice devs[PB_MAX_GPUS];
	PbEdtHybridStats hs;
	PbRun		run = PbCpuRun();
	PbStatus	st;
	double		busy[PB_MAX_GPUS] = {0};
	int64		ranges[PB_MAX_GPUS] = {0};
	int32		cols,
				rows;
	int			ndev;
	int			whole = PbGpuDistancePlan(g, a->width, a->height, a->nearest != NULL,
										  &cols, &rows, err, err_len);

	if (whole != 0)
		return whole < 0 ? -1 : DistanceOnGpu(g, arg, err, err_len);
	a->hybrid = true;
	ndev = PbGpuRasterDevices(g, gpus, a->caller);
	/* the passes are bound by the host's memory: leave the GPUs' copies their cores */
	run.threads = Max(1, run.threads - ndev * PB_RASTER_COPY_THREADS);
	for (int d = 0; d < ndev; d++)
	{
		h[d] = (HybridGpu) {gpus[d]};
		devs[d] = (PbEdtDevice) {.columns = GpuColumns, .rows = GpuRows, .ctx = &h[d],
			.take_columns = Min(cols, (a->width + 3) / 4),
		.take_rows = Min(rows, (a->height + 3) / 4)};
	}
	st = PbDistanceHybrid(a->fg, a->width, a->height, a->sy, a->sx, a->dist,
						  (int64_t *) a->nearest, &run, devs, ndev, &hs);
	memset(&a->stats, 0, sizeof(a->stats));
	for (int d = 0; d < ndev; d++)
	{
		a->stats.kernel_ms += h[d].stats.kernel_ms;
		a->stats.transfer_ms += h[d].stats.transfer_ms;
		busy[d] = devs[d].busy_s;
		ranges[d] = devs[d].ranges;
	}
	if (st == PB_ERR_STOPPED)
		return 1;
	ReportHybrid(&a->stats, ndev, busy, ranges, hs.cpu_busy_s, hs.cpu_ranges);
	if (st != PB_OK)
	{
		snprintf(err, err_len, "the hybrid distance transform failed (status %d)", (int) st);
		return -1;
	}
	for (int d = 0; d < ndev; d++)
		if (devs[d].failed)		/* its range was redone on the CPU */
			PbGpuFailed(gpus[d], a->caller, devs[d].err);
	return 0;
}

/*
 * The exact distance transform, on the GPU when wanted and working; with
 * pixelbox.device = hybrid, an image the GPU takes in one piece runs there
 * alone, a larger one on the CPU threads and the GPUs together.
 */
void
PbRunDistance(const uint8 *fg, int32 width, int32 height, double sy, double sx,
			  float *dist, int64 *nearest, const char *caller)
{
	PbRun		run = PbCpuRun();
	DistanceArgs a = {fg, width, height, sy, sx, dist, nearest, .caller = caller};
	int			st = PbGpuTry(caller, pb_device == PB_DEVICE_HYBRID ? DistanceHybrid : DistanceOnGpu,
							  &a);

	if (st == 0)
	{
		if (!a.hybrid)
			ReportGpu(&a.stats);
		return;
	}
	if (st == 1)
		CheckStatus(PB_ERR_STOPPED, caller);
	CheckStatus(PbDistanceCpu(fg, width, height, sy, sx, dist, (int64_t *) nearest, &run),
				caller);
	PbRasterReportStage("compute", "cpu");
}

/* A watershed's arguments, for its GPU work. */
typedef struct WatershedArgs
{
	const PbWatershedSpec *spec;
	uint32	   *labels;
	PbRasterGpuStats stats;
	bool		hybrid;			/* ran on every GPU together */
	const char *caller;
} WatershedArgs;

/*
 * PbGpuWork: the watershed on the GPU; a marker-less image of more pixels
 * than the GPU alone numbers (PB_WS_MAX_MINIMA_PIXELS) goes to the CPU
 * threads, with the fallback's WARNING saying why.
 */
static int
WatershedOnGpu(PbGpu *g, void *arg, char *err, size_t err_len)
{
	WatershedArgs *a = (WatershedArgs *) arg;
	void	   *keys = NULL;
	int			holds,
				rc;

	if (PbWatershedCheckGpu(a->spec) != PB_OK)
	{
		snprintf(err, err_len, "a marker-less watershed of more than %llu pixels runs on the "
				 "CPU threads or with pixelbox.device = hybrid, not on the GPU alone",
				 (unsigned long long) PB_WS_MAX_MINIMA_PIXELS);
		return -1;
	}
	if ((holds = PbGpuWatershedHolds(g, a->spec, err, err_len)) < 0)
		return -1;
	/* in tiles through the host, the image's keys are an image of the call's, in its budget */
	if (holds == 0)
		keys = PbHugeAlloc(PbGpuWatershedHostKeyBytes(a->spec));
	rc = PbGpuWatershed(g, a->spec, a->labels, keys, PbInterruptArrived, NULL, &a->stats,
						err, err_len);
	if (keys != NULL)
		PbHugeFree(keys);
	return rc;
}

/*
 * The hybrid watershed of an image no GPU holds, whole or in bands: the
 * CPU threads' key phase with each of the ndev GPUs of gpus taking blocks
 * of its tiles (PbWatershedHybrid); the threads label after.  A GPU that
 * fails gives one WARNING and leaves its blocks to the others; a cancel
 * or a lack of memory raises its error once every GPU is done.
 */
static void
WatershedWithCpu(PbGpu **gpus, int ndev, WatershedArgs *a)
{
	PbGpuWsBlocks *volatile blocks[PB_MAX_GPUS] = {0};	/* read after an error */
	PbWsDevice	devs[PB_MAX_GPUS];
	PbWsHybridStats hs = {0};
	double		busy[PB_MAX_GPUS];
	int64		regions[PB_MAX_GPUS];
	PbRun		run = PbCpuRun();
	PbStatus	st = PB_ERR_NOMEM;

	PG_TRY();
	{
		int			made = 0;

		for (; made < ndev && (blocks[made] = PbGpuWsBlocksNew(gpus[made])) != NULL; made++)
			devs[made] = (PbWsDevice)
			{
				PbGpuWsBlocksBegin, PbGpuWsBlocksRun, PbGpuWsBlocksEnd, blocks[made]
			};
		PbSeamsWsDevices(devs, made);
		if (made == ndev)
			st = PbWatershedHybrid(a->spec, a->labels, &run, &PbImageScratch, devs, ndev, &hs);
	}
	PG_FINALLY();
	{
		memset(&a->stats, 0, sizeof(a->stats));
		for (int d = 0; d < ndev && blocks[d] != NULL; d++)
		{
			PbRasterGpuStats gs;

			PbGpuWsBlocksFree(blocks[d], &gs);
			a->stats.tiles += gs.tiles;
			a->stats.rounds += gs.rounds;
			a->stats.kernel_ms += gs.kernel_ms;
			a->stats.transfer_ms += gs.transfer_ms;
		}
	}
	PG_END_TRY();
	CheckStatus(st, a->caller);
	for (int d = 0; d < ndev; d++)
	{
		if (devs[d].failed)
			ereport(WARNING,
					(errmsg("%s: GPU %d failed; the CPU threads and the other GPUs finished its part",
							a->caller, d),
					 errdetail("%s", devs[d].err)));
		busy[d] = devs[d].busy_s;
		regions[d] = devs[d].regions;
	}
	a->hybrid = true;
	ReportHybrid(&a->stats, ndev, busy, regions, hs.cpu_busy_s, hs.cpu_runs);
	PbRasterReportTiles("phase", "init", hs.init_s, 0);
	PbRasterReportTiles("phase", "keys", hs.keys_s, hs.tiles);
	PbRasterReportTiles("phase", "pointers", hs.pointers_s, 0);
	PbRasterReportTiles("phase", "minima", hs.minima_s, 0);
	PbRasterReportTiles("phase", "labels", hs.labels_s, 0);
}

/*
 * PbGpuWork, pixelbox.device = hybrid: an image the first GPU holds whole
 * runs there alone; one the GPUs hold in resident bands runs so on every
 * GPU; a larger one, or a marker-less one of more pixels than the GPUs
 * alone number, runs on the CPU threads with every GPU taking blocks of
 * their tiles.
 */
static int
WatershedOnGpus(PbGpu *g, void *arg, char *err, size_t err_len)
{
	WatershedArgs *a = (WatershedArgs *) arg;
	PbGpu	   *gpus[PB_MAX_GPUS];
	PbGpuShare	shares[PB_MAX_GPUS];
	double		busy[PB_MAX_GPUS];
	int64		runs[PB_MAX_GPUS];
	int			ndev,
				rc;
	bool		alone = PbWatershedCheckGpu(a->spec) == PB_OK;
	int			holds = alone ? PbGpuWatershedHolds(g, a->spec, err, err_len) : 0;

	if (holds != 0)
		return holds < 0 ? -1 : WatershedOnGpu(g, arg, err, err_len);
	ndev = PbGpuRasterDevices(g, gpus, a->caller);
	rc = alone ? PbGpuWatershedBandsFit(gpus, ndev, a->spec, err, err_len) : 0;
	if (rc < 0)
		return -1;
	if (rc == 0)
	{
		WatershedWithCpu(gpus, ndev, a);
		return 0;
	}
	rc = PbGpuWatershedOn(gpus, ndev, a->spec, a->labels, NULL, PbInterruptArrived, NULL,
						  &a->stats, shares, err, err_len);
	if (rc != 0)
		return rc;
	a->hybrid = true;
	for (int d = 0; d < ndev; d++)
	{
		busy[d] = shares[d].busy_s;
		runs[d] = shares[d].runs;
	}
	ReportHybrid(&a->stats, ndev, busy, runs, 0, -1);
	return 0;
}

/*
 * The watershed of spec into labels, on the GPU when wanted and working
 * (with pixelbox.device = hybrid, on every GPU and the CPU threads); a
 * spec the core refuses is a bug of the caller, not of the user.
 */
void
PbRunWatershed(const PbWatershedSpec *spec, uint32 *labels, const char *caller)
{
	PbRun		run = PbCpuRun();
	WatershedArgs a = {spec, labels, .caller = caller};
	int			st;

	CheckStatus(PbWatershedCheck(spec), caller);
	st = PbGpuTry(caller, pb_device == PB_DEVICE_HYBRID ? WatershedOnGpus : WatershedOnGpu, &a);
	if (st == 0)
	{
		if (!a.hybrid)
			ReportGpu(&a.stats);
		return;
	}
	if (st == 1)
		CheckStatus(PB_ERR_STOPPED, caller);
	CheckStatus(PbWatershedCpuIn(spec, labels, &run, &PbImageScratch), caller);
	PbRasterReportStage("compute", "cpu");
}
