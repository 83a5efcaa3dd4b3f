/*
 * recon_hybrid.c: reconstruction by CPU threads and devices from one queue
 * of dirty cells (recon_hybrid.h).
 *
 * Sharing: one mutex guards the schedule (dirty and busy flags, the FIFO of
 * dirty cells, counters); each cell has a mutex guarding its pixels of the
 * marker, taken to write the cell back and to read a strip of its border
 * into a neighbour's halo, never two at a time.  A region's own pixels are
 * written only by the worker holding the region (its cells are busy), so it
 * reads them without a lock.  The mask is never written.
 */
#define _POSIX_C_SOURCE 200809L	/* pthreads */
#include "recon_hybrid.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hybrid_sync.h"
#include "recon_window.h"

#define MAX_WORKERS 256

typedef struct Sched Sched;

/* A rectangle of cells, and its pixels. */
typedef struct Region
{
	int64_t		cx0,
				cy0,
				cx1,
				cy1;			/* cells [cx0, cx1) x [cy0, cy1) */
	int64_t		x0,
				y0,
				x1,
				y1;				/* pixels [x0, x1) x [y0, y1) */
} Region;

/* One worker: a CPU thread (dev NULL) or a device's driver. */
typedef struct Worker
{
	Sched	   *s;
	PbReconDevice *dev;
	bool		polls;			/* the calling thread: it polls run->poll */
	bool		waiting;		/* a device waiting for block want to be free */
	Region		want;
	void	   *scratch[2];		/* a CPU run's marker and mask, kept for the next */
	size_t		scratch_bytes[2];
	void	   *buf[3];			/* the halo, the border, the cells they dirty */
	size_t		buf_bytes[3];
	int64_t		regions[2],
				pixels[2];		/* [0]: on the device, [1]: as a CPU thread */
	double		busy_s[2];
} Worker;

struct Sched
{
	PbImage    *marker;
	const PbImage *mask;
	int			conn;
	PbReconOp	op;
	int64_t		cell,
				ncx,
				ncy;			/* cell side, cells across and down */
	uint8_t    *dirty,
			   *busy,
			   *queued,			/* per cell; queued: in the FIFO */
			   *wanted,			/* per cell: in a block a device waits for */
			   *settled;		/* per cell: a complete run left it a fixpoint */
	int64_t    *fifo;			/* cells in the order they became dirty */
	int64_t		head,
				tail;			/* entries [head, tail) mod the cell count */
	int64_t		ndirty;
	int			running;		/* regions being run */
	int			ncpu;			/* CPU threads started */
	bool		done;
	HybridSync	y;				/* the lock over all of the above, the stop */
	pthread_mutex_t *cell_lock;
};

/* Put cell c in the FIFO (under s->y.lock) unless it is there already. */
static void
Queue(Sched *s, int64_t c)
{
	if (s->queued[c])
		return;
	s->queued[c] = 1;
	s->fifo[s->tail % (s->ncx * s->ncy)] = c;
	s->tail++;
}

/* Mark cell c dirty (under s->y.lock) and queue it unless it is running. */
static void
MakeDirty(Sched *s, int64_t c)
{
	if (s->dirty[c])
		return;
	s->dirty[c] = 1;
	s->ndirty++;
	if (!s->busy[c])
		Queue(s, c);
}

/* The region of cells [cx0, cx1) x [cy0, cy1), clipped to the image. */
static Region
RegionOf(const Sched *s, int64_t cx0, int64_t cy0, int64_t cx1, int64_t cy1)
{
	Region		r = {cx0, cy0, cx1 < s->ncx ? cx1 : s->ncx, cy1 < s->ncy ? cy1 : s->ncy, 0, 0, 0, 0};

	r.x0 = r.cx0 * s->cell;
	r.y0 = r.cy0 * s->cell;
	r.x1 = r.cx1 * s->cell < s->marker->width ? r.cx1 * s->cell : s->marker->width;
	r.y1 = r.cy1 * s->cell < s->marker->height ? r.cy1 * s->cell : s->marker->height;
	return r;
}

/* Take region r (under s->y.lock): its cells busy and clean. */
static void
Take(Sched *s, const Region *r)
{
	for (int64_t cy = r->cy0; cy < r->cy1; cy++)
		for (int64_t cx = r->cx0; cx < r->cx1; cx++)
		{
			int64_t		c = cy * s->ncx + cx;

			s->busy[c] = 1;
			if (s->dirty[c])
			{
				s->dirty[c] = 0;
				s->ndirty--;
			}
		}
	s->running++;
}

/* Give region r back (under s->y.lock), queueing its cells dirtied meanwhile. */
static void
Release(Sched *s, const Region *r)
{
	for (int64_t cy = r->cy0; cy < r->cy1; cy++)
		for (int64_t cx = r->cx0; cx < r->cx1; cx++)
		{
			int64_t		c = cy * s->ncx + cx;

			s->busy[c] = 0;
			if (s->dirty[c])
				Queue(s, c);
		}
	s->running--;
}

/*
 * A CPU thread's next cell (under s->y.lock): the oldest dirty, idle one no
 * device waits for.
 */
static bool
PickCell(Sched *s, Region *r)
{
	while (s->head < s->tail)
	{
		int64_t		c = s->fifo[s->head % (s->ncx * s->ncy)];

		s->head++;
		s->queued[c] = 0;
		/*
		 * a busy cell is queued again when its region is given back; a
		 * wanted one is the device's
		 */
		if (s->dirty[c] && !s->busy[c] && !s->wanted[c])
		{
			*r = RegionOf(s, c % s->ncx, c / s->ncx, c % s->ncx + 1, c / s->ncx + 1);
			return true;
		}
	}
	return false;
}

/*
 * Mark region r's cells wanted by a device (on), or no longer (off: the
 * device takes the region at once, so its dirty cells need no queueing).
 */
static void
Want(Sched *s, const Region *r, bool on)
{
	for (int64_t cy = r->cy0; cy < r->cy1; cy++)
		for (int64_t cx = r->cx0; cx < r->cx1; cx++)
			s->wanted[cy * s->ncx + cx] = on;
}

/* Whether no cell of region r is busy. */
static bool
RegionFree(const Sched *s, const Region *r)
{
	for (int64_t cy = r->cy0; cy < r->cy1; cy++)
		for (int64_t cx = r->cx0; cx < r->cx1; cx++)
			if (s->busy[cy * s->ncx + cx])
				return false;
	return true;
}

/*
 * A device's next block (under s->y.lock): the block it waits for once no
 * CPU thread runs a cell of it any more; else, among the blocks no other
 * device wants, the one with the most dirty cells (the last of equals:
 * the CPU threads start from the first), taken at once when free, else
 * wanted: the CPU threads start no new cell in it, so the device gets it
 * as soon as their running cells are done (with threads everywhere, a
 * block would otherwise never be free).  False while it waits or nothing
 * is dirty.
 */
static bool
PickBlock(Sched *s, Worker *w, Region *r)
{
	int			block = w->dev->block;
	int64_t		best = 0;

	if (w->waiting)
	{
		if (!RegionFree(s, &w->want))
			return false;
		w->waiting = false;
		Want(s, &w->want, false);
		*r = w->want;
		return true;
	}
	for (int64_t by = 0; by * block < s->ncy; by++)
		for (int64_t bx = 0; bx * block < s->ncx; bx++)
		{
			Region		b = RegionOf(s, bx * block, by * block, (bx + 1) * block,
									 (by + 1) * block);
			int64_t		n = 0;
			bool		other = false;

			for (int64_t cy = b.cy0; cy < b.cy1 && !other; cy++)
				for (int64_t cx = b.cx0; cx < b.cx1 && !other; cx++)
				{
					other = s->wanted[cy * s->ncx + cx];
					n += s->dirty[cy * s->ncx + cx];
				}
			if (!other && n > 0 && n >= best)
			{
				best = n;
				*r = b;
			}
		}
	if (best == 0 || RegionFree(s, r))
		return best > 0;
	w->waiting = true;
	w->want = *r;
	Want(s, r, true);
	return false;
}

/*
 * Copy the ring of rectangle [x0, x1) x [y0, y1) of the marker into ring
 * (out) or from ring into the marker, each pixel under its cell's lock
 * (held across the pixels of one cell in a row).
 */
static void
RingLocked(Sched *s, int64_t x0, int64_t y0, int64_t x1, int64_t y1, uint8_t *ring, bool out)
{
	size_t		px = PbPixSize(s->marker->type);
	uint8_t    *img = (uint8_t *) s->marker->data;
	int64_t		held = -1;

	for (int k = 0; k < 4; k++)
	{
		int64_t		x,
					y,
					n;
		int			down;

		PbRingSegment(x1 - x0, y1 - y0, k, &x, &y, &n, &down);
		for (int64_t i = 0; i < n; i++, ring += px)
		{
			int64_t		ix = x0 + x + (down ? 0 : i),
						iy = y0 + y + (down ? i : 0);
			int64_t		c = (iy / s->cell) * s->ncx + ix / s->cell;
			uint8_t    *p = img + (iy * s->marker->width + ix) * px;

			if (c != held)
			{
				if (held >= 0)
					pthread_mutex_unlock(&s->cell_lock[held]);
				pthread_mutex_lock(&s->cell_lock[c]);
				held = c;
			}
			memcpy(out ? ring : p, out ? p : ring, px);
		}
	}
	if (held >= 0)
		pthread_mutex_unlock(&s->cell_lock[held]);
}

/*
 * Add to out[*n] the cells outside r next to its pixel (x, y): the cells a
 * change of that pixel makes dirty.
 */
static void
CellsAround(const Sched *s, const Region *r, int64_t x, int64_t y, int64_t *out, int64_t *n)
{
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
		{
			int64_t		nx = x + dx,
						ny = y + dy;

			if ((dx && dy && s->conn == 4) || nx < 0 || ny < 0 ||
				nx >= s->marker->width || ny >= s->marker->height)
				continue;
			if (nx >= r->x0 && nx < r->x1 && ny >= r->y0 && ny < r->y1)
				continue;
			out[(*n)++] = (ny / s->cell) * s->ncx + nx / s->cell;
		}
}

/*
 * Write region r's new ring (border, PbRingSegment order) into the marker
 * under its cells' locks, then dirty the neighbours of every pixel of it
 * that changed: only once the new pixels are there, so that a neighbour
 * run after the dirtying reads them.  around: room for the cells.
 */
static void
PutBorder(Sched *s, const Region *r, const uint8_t *border, int64_t *around)
{
	size_t		px = PbPixSize(s->marker->type);
	const uint8_t *img = (const uint8_t *) s->marker->data;
	const uint8_t *b = border;
	int64_t		n = 0;

	/* the region's own pixels: no other worker writes them */
	for (int k = 0; k < 4; k++)
	{
		int64_t		x,
					y,
					len;
		int			down;

		PbRingSegment(r->x1 - r->x0, r->y1 - r->y0, k, &x, &y, &len, &down);
		for (int64_t i = 0; i < len; i++, b += px)
		{
			int64_t		ix = r->x0 + x + (down ? 0 : i),
						iy = r->y0 + y + (down ? i : 0);

			if (memcmp(b, img + (iy * s->marker->width + ix) * px, px) != 0)
				CellsAround(s, r, ix, iy, around, &n);
		}
	}
	RingLocked(s, r->x0, r->y0, r->x1, r->y1, (uint8_t *) border, false);
	pthread_mutex_lock(&s->y.lock);
	for (int64_t k = 0; k < n; k++)
		MakeDirty(s, around[k]);
	pthread_mutex_unlock(&s->y.lock);
}

/*
 * Make *p at least need bytes (its size in *have), dropping its contents;
 * false when out of memory.
 */
static bool
Grow(void **p, size_t *have, size_t need)
{
	if (need <= *have)
		return true;
	free(*p);
	*p = malloc(need);
	*have = *p ? need : 0;
	return *p != NULL;
}

/*
 * Grow worker w's buffers for a region r with halo'd extent h: its rings,
 * the cells they dirty and, for a CPU run, the scratch images.  Large
 * fresh memory costs page faults, so they are kept for the next region.
 * False when out of memory.
 */
static bool
Buffers(Worker *w, const Region *r, const Region *h, bool cpu)
{
	size_t		px = PbPixSize(w->s->marker->type);
	size_t		need[4] = {
		(size_t) PbRingPixels(h->x1 - h->x0, h->y1 - h->y0) * px,
		(size_t) PbRingPixels(h->x1 - h->x0, h->y1 - h->y0) * px,
		/* each ring pixel dirties at most 3 cells outside (5 at a corner) */
		sizeof(int64_t) * (size_t) (6 * ((r->x1 - r->x0) + (r->y1 - r->y0)) + 16),
		cpu ? (size_t) (h->x1 - h->x0) * (h->y1 - h->y0) * px : 0
	};

	for (int i = 0; i < 3; i++)
		if (!Grow(&w->buf[i], &w->buf_bytes[i], need[i]))
			return false;
	return Grow(&w->scratch[0], &w->scratch_bytes[0], need[3]) &&
		Grow(&w->scratch[1], &w->scratch_bytes[1], need[3]);
}

/*
 * Run region r on worker w (on its device when on_dev) as a window
 * (window.h): its halo read under the neighbours' locks, the run, its
 * ring written back under its cells' locks and the neighbours beside
 * changed pixels dirtied.  A settled region on the CPU is seeded from its
 * halo first.  False when the run failed (a device error, or no memory):
 * the region's pixels then hold a partial reconstruction, still below the
 * fixpoint.
 */
static bool
RunRegion(Worker *w, const Region *r, bool on_dev, bool settled)
{
	Sched	   *s = w->s;
	Region		h = {0, 0, 0, 0, r->x0 > 0 ? r->x0 - 1 : 0, r->y0 > 0 ? r->y0 - 1 : 0,
	r->x1 < s->marker->width ? r->x1 + 1 : r->x1, r->y1 < s->marker->height ? r->y1 + 1 : r->y1};
	PbRasterWindow	win;
	int			rc;
	double		t0 = PbMonotonicSeconds();

	if (!Buffers(w, r, &h, !on_dev))
	{
		if (on_dev)
			snprintf(w->dev->err, sizeof(w->dev->err), "out of host memory for a region");
		return false;
	}
	win = (PbRasterWindow) {r->x0, r->y0, r->x1, r->y1, h.x0, h.y0, h.x1, h.y1, w->buf[0], w->buf[1]};
	RingLocked(s, h.x0, h.y0, h.x1, h.y1, w->buf[0], true);
	if (on_dev)
		rc = w->dev->run(w->dev->ctx, s->marker, s->mask, &win, s->conn, s->op, w->dev->err,
						 sizeof(w->dev->err));
	else
		rc = PbReconWindowCpu(s->marker, s->mask, &win, s->conn, s->op, settled,
							  w->scratch[0], w->scratch[1]) == PB_OK ? 0 : -1;
	if (rc == 0)
		PutBorder(s, r, w->buf[1], w->buf[2]);
	w->busy_s[!on_dev] += PbMonotonicSeconds() - t0;
	if (rc == 0)
	{
		w->regions[!on_dev]++;
		w->pixels[!on_dev] += (int64_t) ((r->x1 - r->x0) * (r->y1 - r->y0));
	}
	return rc == 0;
}

/*
 * A worker's loop (s->y.lock held on entry and exit): take a region, run
 * it, give it back, until nothing is dirty and nothing runs, or a stop.
 */
static void
WorkLoop(Worker *w)
{
	Sched	   *s = w->s;

	while (!HybridStopping(&s->y, w->polls) && !s->done)
	{
		Region		r;
		/* a device that failed goes on as a CPU thread */
		bool		on_dev = w->dev && !w->dev->failed;
		bool		got = on_dev ? PickBlock(s, w, &r) : PickCell(s, &r);

		if (got)
		{
			bool		ok,
						settled = true;

			Take(s, &r);
			for (int64_t cy = r.cy0; cy < r.cy1; cy++)
				for (int64_t cx = r.cx0; cx < r.cx1; cx++)
					settled &= s->settled[cy * s->ncx + cx];
			pthread_mutex_unlock(&s->y.lock);
			ok = RunRegion(w, &r, on_dev, settled);
			pthread_mutex_lock(&s->y.lock);
			for (int64_t cy = r.cy0; cy < r.cy1; cy++)
				for (int64_t cx = r.cx0; cx < r.cx1; cx++)
					s->settled[cy * s->ncx + cx] = ok;
			if (!ok && on_dev)
			{
				/* the device is out; its region goes back to the queue */
				w->dev->failed = true;
				for (int64_t cy = r.cy0; cy < r.cy1; cy++)
					for (int64_t cx = r.cx0; cx < r.cx1; cx++)
						MakeDirty(s, cy * s->ncx + cx);
			}
			else if (!ok)
				HybridStop(&s->y, PB_ERR_NOMEM);
			Release(s, &r);
			pthread_cond_broadcast(&s->y.changed);
			continue;
		}
		if (s->ndirty == 0 && s->running == 0)
		{
			s->done = true;
			pthread_cond_broadcast(&s->y.changed);
			break;
		}
		HybridWait(&s->y, w->polls);
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

/*
 * Allocate the schedule's arrays and locks and queue every cell, in the
 * order of blocks of block x block cells (the devices take blocks from the
 * other end); false when out of memory.
 */
static bool
SchedInit(Sched *s, int64_t block, const PbRun *run)
{
	int64_t		n = s->ncx * s->ncy;

	s->dirty = calloc((size_t) n, 1);
	s->busy = calloc((size_t) n, 1);
	s->queued = calloc((size_t) n, 1);
	s->wanted = calloc((size_t) n, 1);
	s->settled = calloc((size_t) n, 1);
	s->fifo = malloc(sizeof(int64_t) * (size_t) n);
	s->cell_lock = malloc(sizeof(pthread_mutex_t) * (size_t) n);
	if (!s->dirty || !s->busy || !s->queued || !s->wanted || !s->settled || !s->fifo ||
		!s->cell_lock)
		return false;
	for (int64_t c = 0; c < n; c++)
		pthread_mutex_init(&s->cell_lock[c], NULL);
	HybridSyncInit(&s->y, run);
	/* first pass: block by block, so the CPU threads start at one end */
	for (int64_t by = 0; by * block < s->ncy; by++)
		for (int64_t bx = 0; bx * block < s->ncx; bx++)
			for (int64_t cy = by * block; cy < (by + 1) * block && cy < s->ncy; cy++)
				for (int64_t cx = bx * block; cx < (bx + 1) * block && cx < s->ncx; cx++)
					MakeDirty(s, cy * s->ncx + cx);
	return true;
}

/* Free what SchedInit allocated (any part of it). */
static void
SchedFree(Sched *s, bool inited)
{
	if (inited)
	{
		for (int64_t c = 0; c < s->ncx * s->ncy; c++)
			pthread_mutex_destroy(&s->cell_lock[c]);
		HybridSyncDestroy(&s->y);
	}
	free(s->dirty);
	free(s->busy);
	free(s->queued);
	free(s->wanted);
	free(s->settled);
	free(s->fifo);
	free(s->cell_lock);
}

PbStatus
PbReconstructHybrid(PbImage *marker, const PbImage *mask, int connectivity, PbReconOp op,
					const PbRun *run, int cell, PbReconDevice *devs, int ndev,
					PbReconHybridStats *stats)
{
	Sched		s;
	Worker		workers[MAX_WORKERS];
	pthread_t	tids[MAX_WORKERS];
	int			nw = 0,
				started = 0;
	int			ncpu = run && run->threads > 1 ? run->threads - 1 : 0;

	memset(stats, 0, sizeof(*stats));
	if (PbReconCheck(marker, mask, connectivity, op) != PB_OK || cell < 1 || ndev < 1 ||
		ndev > MAX_WORKERS / 2 || run == NULL)
		return PB_ERR_BADARG;
	for (int d = 0; d < ndev; d++)
	{
		if (devs[d].run == NULL || devs[d].block < 1)
			return PB_ERR_BADARG;
		devs[d].regions = devs[d].pixels = 0;
		devs[d].busy_s = 0;
		devs[d].failed = false;
		devs[d].err[0] = '\0';
	}
	if (ncpu > MAX_WORKERS - ndev)
		ncpu = MAX_WORKERS - ndev;
	memset(&s, 0, sizeof(s));
	s.marker = marker;
	s.mask = mask;
	s.conn = connectivity;
	s.op = op;
	s.cell = cell;
	s.ncx = (marker->width + cell - 1) / cell;
	s.ncy = (marker->height + cell - 1) / cell;
	if (marker->width == 0 || marker->height == 0)
		return PB_OK;
	if (!SchedInit(&s, devs[0].block, run))
	{
		SchedFree(&s, false);
		return PB_ERR_NOMEM;
	}
	memset(workers, 0, sizeof(workers));
	for (int d = 0; d < ndev; d++)
		workers[nw++] = (Worker) {.s = &s, .dev = &devs[d], .polls = d == 0};
	for (int i = 0; i < ncpu; i++)
		workers[nw++] = (Worker) {.s = &s};
	/* the first device takes its block before the CPU threads start */
	pthread_mutex_lock(&s.y.lock);
	for (int i = 1; i < nw; i++)
		if (PbThreadStart(&tids[started], WorkerMain, &workers[i]) == 0)
			started++;
	/* CPU threads that could not start leave the devices every block */
	s.ncpu = started - (ndev - 1 < started ? ndev - 1 : started);
	WorkLoop(&workers[0]);
	pthread_mutex_unlock(&s.y.lock);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	stats->cells = s.ncx * s.ncy;
	stats->cpu_threads = s.ncpu;
	for (int i = 0; i < nw; i++)
	{
		if (workers[i].dev)
		{
			workers[i].dev->regions = workers[i].regions[0];
			workers[i].dev->pixels = workers[i].pixels[0];
			workers[i].dev->busy_s = workers[i].busy_s[0];
		}
		stats->cpu_regions += workers[i].regions[1];
		stats->cpu_pixels += workers[i].pixels[1];
		stats->cpu_busy_s += workers[i].busy_s[1];
		free(workers[i].scratch[0]);
		free(workers[i].scratch[1]);
		for (int k = 0; k < 3; k++)
			free(workers[i].buf[k]);
	}
	SchedFree(&s, true);
	return s.y.status;
}
