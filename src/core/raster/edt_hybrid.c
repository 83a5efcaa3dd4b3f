/*
 * edt_hybrid.c: PbDistanceHybrid of edt_hybrid.h.  One lock guards the
 * pass being run and the part of it not yet taken, [lo, hi): CPU threads
 * take about CPU_TAKE_PIXELS pixels from lo, devices their own take from
 * hi.  The last range of a pass to finish moves the run to the next pass
 * (the row pass needs every column done); waiting workers sleep on one
 * condition (hybrid_sync.h, as the hybrid reconstruction's do).
 */
#define _POSIX_C_SOURCE 200809L	/* pthreads */
#include "edt_hybrid.h"

#include <stdlib.h>
#include <string.h>

#include "edt_job.h"
#include "hybrid_sync.h"

#define MAX_WORKERS 256
#define CPU_TAKE_PIXELS ((int64_t) 1 << 20)	/* a CPU thread's range, about */
#define CPU_TAKE_COLUMNS_MIN 64 /* the column pass's chunk (edt_cpu.c) */

enum
{
	PASS_COLUMNS,
	PASS_ROWS,
	PASS_DONE
};

/* The shared state of one run. */
typedef struct Sched
{
	EdtJob	   *job;
	const uint8_t *fg;
	int32_t		width,
				height;
	double		sy,
				sx;
	float	   *dist;
	int64_t    *nearest;
	int64_t		cpu_take[2];	/* per pass */
	HybridSync	y;
	int			pass;
	int64_t		lo,
				hi;				/* the pass's range not taken yet */
	int			running;		/* ranges being computed */
} Sched;

/* A CPU thread or a device's driver, and what it did. */
typedef struct Worker
{
	Sched	   *s;
	PbEdtDevice *dev;			/* NULL: a CPU thread */
	bool		polls;
	int64_t		ranges[2],
				pixels[2];		/* [0] on its device, [1] on the CPU */
	double		busy_s[2];
} Worker;

/* Range [a, b) of pass on the CPU threads' code. */
static void
CpuRange(Sched *s, int pass, int64_t a, int64_t b)
{
	if (pass == PASS_COLUMNS)
		EdtColumnsOf(s->job, a, b, 0, s->height);
	else
		EdtRowsOf(s->job, a, b);
}

/*
 * Range [a, b) of pass on w's device, or on the CPU when w is a CPU thread
 * or its device failed on it (then out for good: a row range first gets
 * its column rows back from the image).  Whether the device was stopped
 * by a poll of its own (the range is then left undone).
 */
static bool
RunRange(Worker *w, int pass, int64_t a, int64_t b, bool on_dev)
{
	Sched	   *s = w->s;
	double		t0 = PbMonotonicSeconds();
	int64_t		pixels = (b - a) * (pass == PASS_COLUMNS ? s->height : s->width);

	if (on_dev)
	{
		PbEdtDevice *d = w->dev;
		int			rc = pass == PASS_COLUMNS
			? d->columns(d->ctx, s->fg, s->width, s->height, (int32_t) a, (int32_t) b, s->dist,
						 d->err, sizeof(d->err))
			: d->rows(d->ctx, s->width, s->height, s->sy, s->sx, (int32_t) a, (int32_t) b,
					  s->dist, s->nearest, d->err, sizeof(d->err));

		if (rc == 0 || rc == 1)
		{
			w->ranges[0] += rc == 0;
			w->pixels[0] += rc == 0 ? pixels : 0;
			w->busy_s[0] += PbMonotonicSeconds() - t0;
			return rc == 1;
		}
		d->failed = true;
		t0 = PbMonotonicSeconds();
		if (pass == PASS_ROWS)
			EdtColumnsOf(s->job, 0, s->width, a, b);
	}
	CpuRange(s, pass, a, b);
	w->ranges[1]++;
	w->pixels[1] += pixels;
	w->busy_s[1] += PbMonotonicSeconds() - t0;
	return false;
}

/* The pass is over (all taken, none running): start the next one. */
static void
NextPass(Sched *s)
{
	s->pass++;
	s->lo = 0;
	s->hi = s->pass == PASS_ROWS ? s->height : 0;
	pthread_cond_broadcast(&s->y.changed);
}

/*
 * A worker's loop (s->y.lock held on entry and exit): take a range of the
 * pass, compute it, until both passes are done or a stop.
 */
static void
WorkLoop(Worker *w)
{
	Sched	   *s = w->s;

	while (!HybridStopping(&s->y, w->polls) && s->pass != PASS_DONE)
	{
		bool		on_dev = w->dev && !w->dev->failed;
		int			pass = s->pass;
		int64_t		a,
					b;
		bool		stopped;

		if (s->lo >= s->hi)
		{
			if (s->running == 0)
				NextPass(s);
			else
				HybridWait(&s->y, w->polls);
			continue;
		}
		if (on_dev)
		{
			int64_t		take = pass == PASS_COLUMNS ? w->dev->take_columns : w->dev->take_rows;

			b = s->hi;
			a = s->hi - take > s->lo ? s->hi - take : s->lo;
			s->hi = a;
		}
		else
		{
			a = s->lo;
			b = s->lo + s->cpu_take[pass] < s->hi ? s->lo + s->cpu_take[pass] : s->hi;
			s->lo = b;
		}
		s->running++;
		pthread_mutex_unlock(&s->y.lock);
		stopped = RunRange(w, pass, a, b, on_dev);
		pthread_mutex_lock(&s->y.lock);
		s->running--;
		if (stopped)
			HybridStop(&s->y, PB_ERR_STOPPED);
		else if (s->lo >= s->hi && s->running == 0)
			NextPass(s);
	}
}

/* pthread entry of a CPU thread or an extra device's driver. */
static void *
WorkerMain(void *arg)
{
	Worker	   *w = arg;

	pthread_mutex_lock(&w->s->y.lock);
	WorkLoop(w);
	pthread_mutex_unlock(&w->s->y.lock);
	return NULL;
}

/* See edt_hybrid.h. */
PbStatus
PbDistanceHybrid(const uint8_t *fg, int32_t width, int32_t height,
				 double sy, double sx, float *dist, int64_t *nearest,
				 const PbRun *run, PbEdtDevice *devs, int ndev, PbEdtHybridStats *stats)
{
	Sched		s;
	Worker		workers[MAX_WORKERS];
	pthread_t	tids[MAX_WORKERS];
	int			nw = 0,
				started = 0;
	int			ncpu = run && run->threads > 1 ? run->threads - 1 : 0;
	int64_t		cols = CPU_TAKE_PIXELS / (height > 0 ? height : 1);
	PbStatus	st = EdtArgsCheck(fg, width, height, sy, sx, dist);

	memset(stats, 0, sizeof(*stats));
	if (st != PB_OK || run == NULL || ndev < 1 || ndev > MAX_WORKERS / 2)
		return PB_ERR_BADARG;
	for (int d = 0; d < ndev; d++)
	{
		if (devs[d].columns == NULL || devs[d].rows == NULL || devs[d].take_columns < 1 ||
			devs[d].take_rows < 1)
			return PB_ERR_BADARG;
		devs[d].ranges = devs[d].pixels = 0;
		devs[d].busy_s = 0;
		devs[d].failed = false;
		devs[d].err[0] = '\0';
	}
	if (width == 0 || height == 0)
		return PB_OK;
	if (ncpu > MAX_WORKERS - ndev)
		ncpu = MAX_WORKERS - ndev;
	memset(&s, 0, sizeof(s));
	s.fg = fg;
	s.width = width;
	s.height = height;
	s.sy = sy;
	s.sx = sx;
	s.dist = dist;
	s.nearest = nearest;
	s.cpu_take[PASS_COLUMNS] = cols < CPU_TAKE_COLUMNS_MIN ? CPU_TAKE_COLUMNS_MIN
		: cols / CPU_TAKE_COLUMNS_MIN * CPU_TAKE_COLUMNS_MIN;
	s.cpu_take[PASS_ROWS] = CPU_TAKE_PIXELS / width > 1 ? CPU_TAKE_PIXELS / width : 1;
	s.pass = PASS_COLUMNS;
	s.lo = 0;
	s.hi = width;
	if ((s.job = EdtJobNew(fg, width, height, sy, sx, dist, nearest, ncpu + ndev)) == NULL)
		return PB_ERR_NOMEM;
	HybridSyncInit(&s.y, run);
	memset(workers, 0, sizeof(workers));
	for (int d = 0; d < ndev; d++)
		workers[nw++] = (Worker) {.s = &s, .dev = &devs[d], .polls = d == 0};
	for (int i = 0; i < ncpu; i++)
		workers[nw++] = (Worker) {.s = &s};
	pthread_mutex_lock(&s.y.lock);
	for (int i = 1; i < nw; i++)
		if (PbThreadStart(&tids[started], WorkerMain, &workers[i]) == 0)
			started++;
	WorkLoop(&workers[0]);
	pthread_mutex_unlock(&s.y.lock);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	stats->cpu_threads = started - (ndev - 1 < started ? ndev - 1 : started);
	for (int i = 0; i < nw; i++)
	{
		if (workers[i].dev)
		{
			workers[i].dev->ranges = workers[i].ranges[0];
			workers[i].dev->pixels = workers[i].pixels[0];
			workers[i].dev->busy_s = workers[i].busy_s[0];
		}
		stats->cpu_ranges += workers[i].ranges[1];
		stats->cpu_pixels += workers[i].pixels[1];
		stats->cpu_busy_s += workers[i].busy_s[1];
	}
	HybridSyncDestroy(&s.y);
	EdtJobFree(s.job);
	return s.y.status;
}
