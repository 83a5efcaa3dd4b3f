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
#define _POSIX_C_SOURCE 200809L	/* pthreads, clock_gettime */
#include "recon_hybrid.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raster_rules.h"

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
	void	   *scratch[2];		/* a region's marker and mask, kept for the next */
	size_t		scratch_bytes;	/* the size of each */
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
	const PbRun *run;
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
	bool		stop,
				done;
	PbStatus	status;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_mutex_t *cell_lock;
};

/* Put cell c in the FIFO (under s->lock) unless it is there already. */
static void
Queue(Sched *s, int64_t c)
{
	if (s->queued[c])
		return;
	s->queued[c] = 1;
	s->fifo[s->tail % (s->ncx * s->ncy)] = c;
	s->tail++;
}

/* Mark cell c dirty (under s->lock) and queue it unless it is running. */
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

/* Take region r (under s->lock): its cells busy and clean. */
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

/* Give region r back (under s->lock), queueing its cells dirtied meanwhile. */
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
 * A CPU thread's next cell (under s->lock): the oldest dirty, idle one no
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
 * A device's next block (under s->lock): the block it waits for once no
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

/* Copy marker pixels [x, x + n) of row y into dst, locking cell by cell. */
static void
ReadRow(Sched *s, int64_t x, int64_t y, int64_t n, uint8_t *dst, size_t px)
{
	const uint8_t *src = (const uint8_t *) s->marker->data;

	while (n > 0)
	{
		int64_t		cx = x / s->cell;
		int64_t		end = (cx + 1) * s->cell;
		int64_t		k = (end - x) < n ? end - x : n;
		pthread_mutex_t *m = &s->cell_lock[(y / s->cell) * s->ncx + cx];

		pthread_mutex_lock(m);
		memcpy(dst, src + (y * s->marker->width + x) * px, (size_t) k * px);
		pthread_mutex_unlock(m);
		dst += k * px;
		x += k;
		n -= k;
	}
}

/*
 * Copy region r with its one-pixel halo (clipped to the image) out of the
 * marker and the mask into sub-images; the halo is read under its cells'
 * locks.
 */
static void
CopyOut(Sched *s, const Region *r, const Region *h, PbImage *sub, PbImage *submask)
{
	size_t		px = PbPixSize(s->marker->type);
	int64_t		w = h->x1 - h->x0;

	for (int64_t y = h->y0; y < h->y1; y++)
	{
		uint8_t    *dst = (uint8_t *) sub->data + (y - h->y0) * w * px;
		bool		halo_row = y < r->y0 || y >= r->y1;

		memcpy((uint8_t *) submask->data + (y - h->y0) * w * px,
			   (const uint8_t *) s->mask->data + (y * s->mask->width + h->x0) * px,
			   (size_t) w * px);
		if (halo_row)
		{
			ReadRow(s, h->x0, y, w, dst, px);
			continue;
		}
		if (h->x0 < r->x0)
			ReadRow(s, h->x0, y, 1, dst, px);
		memcpy(dst + (r->x0 - h->x0) * px,
			   (const uint8_t *) s->marker->data + (y * s->marker->width + r->x0) * px,
			   (size_t) (r->x1 - r->x0) * px);
		if (h->x1 > r->x1)
			ReadRow(s, r->x1, y, 1, dst + (r->x1 - h->x0) * px, px);
	}
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
 * Write region r of sub back into the marker (under its cells' locks),
 * then dirty the neighbours of every border pixel that changed: only once
 * the new pixels are there, so that a neighbour run after the dirtying
 * reads them.  False when out of memory for the list (nothing written).
 */
static bool
CopyBack(Sched *s, const Region *r, const Region *h, const PbImage *sub)
{
	size_t		px = PbPixSize(s->marker->type);
	int64_t		w = h->x1 - h->x0;
	uint8_t    *img = (uint8_t *) s->marker->data;
	/* each border pixel dirties at most 3 cells outside (5 at a corner) */
	int64_t    *around = malloc(sizeof(int64_t) * (size_t) (6 * ((r->x1 - r->x0) + (r->y1 - r->y0)) + 16));
	int64_t		n = 0;

	if (around == NULL)
		return false;
	for (int64_t y = r->y0; y < r->y1; y++)
	{
		const uint8_t *src = (const uint8_t *) sub->data + ((y - h->y0) * w - h->x0) * px;
		const uint8_t *dst = img + y * s->marker->width * px;
		bool		edge_row = y == r->y0 || y == r->y1 - 1;

		/* the region's border: its first and last rows, and both ends of the others */
		for (int64_t x = r->x0; x < r->x1; x = edge_row || x == r->x1 - 1 ? x + 1 : r->x1 - 1)
			if (memcmp(src + x * px, dst + x * px, px) != 0)
				CellsAround(s, r, x, y, around, &n);
	}
	for (int64_t cy = r->cy0; cy < r->cy1; cy++)
		for (int64_t cx = r->cx0; cx < r->cx1; cx++)
		{
			Region		c = RegionOf(s, cx, cy, cx + 1, cy + 1);

			pthread_mutex_lock(&s->cell_lock[cy * s->ncx + cx]);
			for (int64_t y = c.y0; y < c.y1; y++)
				memcpy(img + (y * s->marker->width + c.x0) * px,
					   (const uint8_t *) sub->data + ((y - h->y0) * w + c.x0 - h->x0) * px,
					   (size_t) (c.x1 - c.x0) * px);
			pthread_mutex_unlock(&s->cell_lock[cy * s->ncx + cx]);
		}
	pthread_mutex_lock(&s->lock);
	for (int64_t k = 0; k < n; k++)
		MakeDirty(s, around[k]);
	pthread_mutex_unlock(&s->lock);
	free(around);
	return true;
}

/*
 * Propagate into region r of sub (r's pixels a fixpoint of an earlier run,
 * h its halo'd extent) from its halo, through a FIFO: Vincent's last phase,
 * seeded by every halo pixel.  False when that passes a sixteenth of the
 * region's pixels in updates (a flood: the full algorithm is cheaper) or
 * runs out of memory; sub then holds a partial reconstruction.
 */
static bool
SeededRun(PbImage *sub, const PbImage *submask, const Region *r, const Region *h, int conn,
		  PbReconOp op)
{
	int64_t		w = sub->width,
				budget = (r->x1 - r->x0) * (r->y1 - r->y0) / 16 + 16,
				head = 0,
				tail = 0,
				updates = 0;
	/* every halo pixel once, then one entry an update */
	int64_t    *queue = malloc(sizeof(int64_t) * (size_t) (budget + 2 * (w + sub->height) + 8));
	bool		dilate = op == PB_RECON_DILATE;

	if (queue == NULL)
		return false;
	/* the halo: every pixel of sub outside r */
	for (int64_t y = 0; y < sub->height; y++)
		for (int64_t x = 0; x < w; x++)
		{
			int64_t		ix = h->x0 + x,
						iy = h->y0 + y;

			if (ix >= r->x0 && ix < r->x1 && iy >= r->y0 && iy < r->y1)
				x = r->x1 - 1 - h->x0;	/* skip the region's row */
			else
				queue[tail++] = y * w + x;
		}
	while (head < tail)
	{
		int64_t		q = queue[head++];
		double		vq = PbPixGet(sub, q);

		for (int j = 0; j < conn; j++)
		{
			int64_t		px = q % w + PbNbDx(j),
						py = q / w + PbNbDy(j);
			int64_t		p = py * w + px;
			double		cand,
						vp;

			if (px < r->x0 - h->x0 || px >= r->x1 - h->x0 || py < r->y0 - h->y0 ||
				py >= r->y1 - h->y0)
				continue;
			vp = PbPixGet(sub, p);
			cand = PbPixGet(submask, p);
			cand = dilate ? (vq < cand ? vq : cand) : (vq > cand ? vq : cand);
			if (dilate ? !(cand > vp) : !(cand < vp))
				continue;
			if (++updates > budget)
			{
				free(queue);
				return false;
			}
			PbPixSet(sub, p, cand);
			queue[tail++] = p;
		}
	}
	free(queue);
	return true;
}

/*
 * Run region r on worker w (on its device when on_dev): copy it out with
 * its halo, reconstruct (a settled cell on the CPU: seeded from its halo
 * first), copy back.  False when the run failed (a device error, or no
 * memory).
 */
static bool
RunRegion(Worker *w, const Region *r, bool on_dev, bool settled)
{
	Sched	   *s = w->s;
	Region		h = {0, 0, 0, 0, r->x0 > 0 ? r->x0 - 1 : 0, r->y0 > 0 ? r->y0 - 1 : 0,
	r->x1 < s->marker->width ? r->x1 + 1 : r->x1, r->y1 < s->marker->height ? r->y1 + 1 : r->y1};
	size_t		npix = (size_t) (h.x1 - h.x0) * (h.y1 - h.y0);
	PbImage		sub = {(int32_t) (h.x1 - h.x0), (int32_t) (h.y1 - h.y0), s->marker->type, NULL};
	PbImage		submask = sub;
	int			rc;
	PbRun		one = {1, 0, NULL, NULL};	/* a cell is one thread's */
	double		t0 = PbMonotonicSeconds();

	/* the worker's scratch, grown when needed: large fresh memory costs page faults */
	if (npix * PbPixSize(sub.type) > w->scratch_bytes)
	{
		free(w->scratch[0]);
		free(w->scratch[1]);
		w->scratch_bytes = npix * PbPixSize(sub.type);
		w->scratch[0] = malloc(w->scratch_bytes);
		w->scratch[1] = malloc(w->scratch_bytes);
		if (w->scratch[0] == NULL || w->scratch[1] == NULL)
		{
			w->scratch_bytes = 0;
			if (on_dev)
				snprintf(w->dev->err, sizeof(w->dev->err), "out of host memory for a region");
			return false;
		}
	}
	sub.data = w->scratch[0];
	submask.data = w->scratch[1];
	CopyOut(s, r, &h, &sub, &submask);
	if (on_dev)
		rc = w->dev->run(w->dev->ctx, &sub, &submask, s->conn, s->op, w->dev->err,
						 sizeof(w->dev->err));
	else if (settled && SeededRun(&sub, &submask, r, &h, s->conn, s->op))
		rc = 0;
	else
		rc = PbReconstructCpu(&sub, &submask, s->conn, s->op, &one) == PB_OK ? 0 : -1;
	/* a failed run leaves a partial reconstruction: still worth keeping */
	if (!CopyBack(s, r, &h, &sub))
		rc = -1;
	w->busy_s[!on_dev] += PbMonotonicSeconds() - t0;
	if (rc == 0)
	{
		w->regions[!on_dev]++;
		w->pixels[!on_dev] += (int64_t) ((r->x1 - r->x0) * (r->y1 - r->y0));
	}
	return rc == 0;
}

/* Whether the run should stop; the calling thread also polls. */
static bool
Stopping(Worker *w)
{
	Sched	   *s = w->s;

	if (w->polls && s->run->poll && s->run->poll(s->run->poll_arg))
	{
		s->stop = true;
		s->status = PB_ERR_STOPPED;
		pthread_cond_broadcast(&s->changed);
	}
	return s->stop;
}

/*
 * A worker's loop (s->lock held on entry and exit): take a region, run
 * it, give it back, until nothing is dirty and nothing runs, or a stop.
 */
static void
WorkLoop(Worker *w)
{
	Sched	   *s = w->s;

	while (!Stopping(w) && !s->done)
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
			pthread_mutex_unlock(&s->lock);
			ok = RunRegion(w, &r, on_dev, settled);
			pthread_mutex_lock(&s->lock);
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
			{
				s->stop = true;
				s->status = PB_ERR_NOMEM;
			}
			Release(s, &r);
			pthread_cond_broadcast(&s->changed);
			continue;
		}
		if (s->ndirty == 0 && s->running == 0)
		{
			s->done = true;
			pthread_cond_broadcast(&s->changed);
			break;
		}
		if (w->polls)
		{
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 20 * 1000 * 1000;
			if (until.tv_nsec >= 1000000000L)
			{
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&s->changed, &s->lock, &until);
		}
		else
			pthread_cond_wait(&s->changed, &s->lock);
	}
}

/* pthread entry of a CPU thread or an extra device's driver. */
static void *
WorkerMain(void *arg)
{
	Worker	   *w = arg;

	pthread_mutex_lock(&w->s->lock);
	WorkLoop(w);
	pthread_mutex_unlock(&w->s->lock);
	return NULL;
}

/*
 * Allocate the schedule's arrays and locks and queue every cell, in the
 * order of blocks of block x block cells (the devices take blocks from the
 * other end); false when out of memory.
 */
static bool
SchedInit(Sched *s, int64_t block)
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
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->changed, NULL);
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
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->changed);
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
	s.run = run;
	s.cell = cell;
	s.ncx = (marker->width + cell - 1) / cell;
	s.ncy = (marker->height + cell - 1) / cell;
	s.status = PB_OK;
	if (marker->width == 0 || marker->height == 0)
		return PB_OK;
	if (!SchedInit(&s, devs[0].block))
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
	pthread_mutex_lock(&s.lock);
	for (int i = 1; i < nw; i++)
		if (PbThreadStart(&tids[started], WorkerMain, &workers[i]) == 0)
			started++;
	/* CPU threads that could not start leave the devices every block */
	s.ncpu = started - (ndev - 1 < started ? ndev - 1 : started);
	WorkLoop(&workers[0]);
	pthread_mutex_unlock(&s.lock);
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
	}
	SchedFree(&s, true);
	return s.status;
}
