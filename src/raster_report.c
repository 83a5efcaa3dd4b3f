/*
 * raster_report.c: where the time of this backend's last raster call went
 * (pb_raster_report()): the stages of pb_reconstruct, pb_fill_holes,
 * pb_distance_transform and pb_watershed as they run (detoast, read,
 * prepare, compute, finish, write), the compute stage's device, and on the
 * GPU its kernels' and copies' share; for the coverage functions, the sum
 * of each stage over the slides.  A handful of clock readings a call;
 * what happens after the function returns (the executor, TOAST compression
 * of a stored result) is not in it.
 */
#include "postgres.h"

#include "funcapi.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"

#include "../cuda/pb_raster_gpu.h"
#include "raster_glue.h"

#define MAX_STAGES 24

/* One row of the report. */
typedef struct ReportRow
{
	const char *stage;
	bool		on_device;		/* false: the host's own work */
	char		device[32];		/* a copy: callers' names may be built per call */
	double		seconds;
	int64		tiles;			/* -1: not a count of tiles */
} ReportRow;

/* The last (or running) call of this backend. */
static struct
{
	const char *operation;		/* NULL: no call yet */
	instr_time	start,
				last;
	ReportRow	rows[MAX_STAGES];
	int			n;
	bool		finished;
} report;

/*
 * Add seconds to the row of stage on device, appending it the first time:
 * a coverage call runs the stages once per slide and reports their sums.
 */
static void
AddRow(const char *stage, const char *device, double seconds, int64 tiles)
{
	if (report.finished)		/* outside a raster call: nothing to add to */
		return;
	for (int i = 0; i < report.n; i++)
		if (strcmp(report.rows[i].stage, stage) == 0 &&
			report.rows[i].on_device == (device != NULL) &&
			(device == NULL || strcmp(report.rows[i].device, device) == 0))
		{
			report.rows[i].seconds += seconds;
			if (tiles >= 0)
				report.rows[i].tiles = Max(report.rows[i].tiles, 0) + tiles;
			return;
		}
	if (report.n < MAX_STAGES)
	{
		ReportRow  *r = &report.rows[report.n++];

		*r = (ReportRow) {stage, device != NULL, "", seconds, tiles};
		if (device != NULL)
			strlcpy(r->device, device, sizeof(r->device));
	}
}

/* A raster call starts: forget the last one and start the clock. */
void
PbRasterReportBegin(const char *operation)
{
	report.operation = operation;
	report.n = 0;
	report.finished = false;
	INSTR_TIME_SET_CURRENT(report.start);
	report.last = report.start;
}

/* A stage ends now: its row has the time since the last stage ended. */
void
PbRasterReportStage(const char *stage, const char *device)
{
	instr_time	now;
	instr_time	d;

	INSTR_TIME_SET_CURRENT(now);
	d = now;
	INSTR_TIME_SUBTRACT(d, report.last);
	report.last = now;
	AddRow(stage, device, INSTR_TIME_GET_DOUBLE(d), -1);
}

/*
 * The GPU's own account of the compute stage: kernels (with the tiles the
 * image was cut into, 1 when it ran whole; none counted for a hybrid run,
 * whose busy rows count its regions) and copies.
 */
void
PbRasterReportGpu(const PbRasterGpuStats *stats)
{
	AddRow("gpu kernels", "gpu", stats->kernel_ms / 1000.0, stats->tiles > 0 ? stats->tiles : -1);
	AddRow("gpu copies", "gpu", stats->transfer_ms / 1000.0, -1);
}

/*
 * A hybrid reconstruction's account of a device (or of the image's
 * cells, device NULL): its busy seconds and the tiles (regions) it ran;
 * or a count of images put in temporary files (stage mapped).
 */
void
PbRasterReportTiles(const char *stage, const char *device, double seconds, int64 tiles)
{
	AddRow(stage, device, seconds, tiles);
}

/* The call returns its result: the total row. */
void
PbRasterReportEnd(void)
{
	instr_time	d;

	INSTR_TIME_SET_CURRENT(d);
	INSTR_TIME_SUBTRACT(d, report.start);
	AddRow("total", NULL, INSTR_TIME_GET_DOUBLE(d), -1);
	report.finished = true;
}

PG_FUNCTION_INFO_V1(pb_raster_report);
/*
 * The rows of this backend's last finished raster call: operation, stage,
 * device, seconds and tiles (the GPU's tiles on its kernels' row, a
 * hybrid run's regions per device, and its cells); none before the first (or after one that failed).
 */
Datum
pb_raster_report(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (report.operation == NULL || !report.finished)
		return (Datum) 0;
	for (int i = 0; i < report.n; i++)
	{
		Datum		v[5];
		bool		nulls[5] = {false, false, !report.rows[i].on_device, false,
		report.rows[i].tiles < 0};

		v[0] = CStringGetTextDatum(report.operation);
		v[1] = CStringGetTextDatum(report.rows[i].stage);
		v[2] = report.rows[i].on_device ? CStringGetTextDatum(report.rows[i].device) : (Datum) 0;
		v[3] = Float8GetDatum(report.rows[i].seconds);
		v[4] = Int64GetDatum(report.rows[i].tiles);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
	}
	return (Datum) 0;
}
