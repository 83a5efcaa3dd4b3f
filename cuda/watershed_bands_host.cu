/*
 * watershed_bands_host.cu: the GPU watershed on several GPUs whose
 * budgets hold the image together though the first alone does not.  The
 * image is cut into one band of whole rows per GPU, resident there with a
 * halo row above and below.  Each band runs the automaton to its fixed
 * point with its halo fixed and sends its edge rows to the host; a band
 * whose halo rows (its neighbours' edge rows) changed loads them and runs
 * again, all bands side by side, until none changed.  Only those rows
 * cross the host between runs, where a tiled run (watershed_host.cu)
 * copies each tile's whole state in and out.  Keys only decrease towards
 * the unique fixed point, so the state is the untiled run's; the bands
 * then store it and the host numbers the minima and draws the lines, as
 * after a tiled run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/base/pb_base.h"
#include "watershed_host.cuh"

typedef struct WsBand WsBand;
typedef void (*WsBandStep) (WsBand *bd);

/* One GPU's band and what the bands share. */
struct WsBand
{
	WsDev	   *d;
	const WsPlan *p;
	const PbWatershedSpec *spec;
	uint32_t   *labels;
	char	   *hkeys;
	PbPollFn	poll;
	void	   *poll_arg;
	int			y0,
				y1;				/* its rows */
	WsRegion	r;				/* its region: the rows and the halo rows, whole width */
	bool		loaded;			/* its buffers were allocated (its region loaded) */
	bool		again;			/* its halo changed (or it never ran): load it, run */
	char	   *halo;			/* its halo rows on the host as it last loaded them */
	WsBandStep	step;			/* what its thread does now */
	bool		started;		/* on a thread of its own */
};


/* The halo rows of a band: the row above it, the row below it (-1: none). */
static void
WsHaloRows(const WsBand *bd, int64_t rows[2])
{
	rows[0] = bd->y0 > 0 ? bd->y0 - 1 : -1;
	rows[1] = bd->y1 < bd->p->h ? bd->y1 : -1;
}

/*
 * Copy the host's halo rows of a band (keys, then labels, each row) into
 * its snapshot (save), or tell whether they differ from it.
 */
static bool
WsHaloSnapshot(WsBand *bd, bool save)
{
	const WsPlan *p = bd->p;
	size_t		kbytes = (size_t) p->w * p->kb,
				lbytes = (size_t) p->w * sizeof(uint32_t);
	int64_t		rows[2];
	char	   *at = bd->halo;

	WsHaloRows(bd, rows);
	for (int i = 0; i < 2; i++, at += kbytes + lbytes)
	{
		const char *k = bd->hkeys + (size_t) rows[i] * kbytes;
		const char *l = (const char *) (bd->labels + (size_t) rows[i] * p->w);

		if (rows[i] < 0)
			continue;
		if (save)
		{
			memcpy(at, k, kbytes);
			memcpy(at + kbytes, l, lbytes);
		}
		else if (memcmp(at, k, kbytes) != 0 || memcmp(at + kbytes, l, lbytes) != 0)
			return true;
	}
	return false;
}

/*
 * WsBandStep: load a band; the first time its buffers and its whole
 * region (pixels, state from the host, walls and seeds), after that its
 * halo rows only; and remember the halo rows loaded.
 */
static void
WsBandLoad(WsBand *bd)
{
	WsDev	   *d = bd->d;
	int64_t		rows[2];

	if (!bd->loaded)
	{
		bd->loaded = true;		/* what WsAlloc got is freed even if it fails */
		d->rc = WsAlloc(d->c, bd->p, &d->b, false, d->err, sizeof(d->err));
		if (d->rc != 0)
			return;
		WsRegionOf(bd->p, &d->b, bd->spec, true, 0, bd->y0, (int) bd->p->w, bd->y1, &bd->r);
		d->rc = WsLoadRegion(d->c, bd->p, &d->b, &bd->r, bd->spec, bd->labels, bd->hkeys,
							 &d->st, d->err, sizeof(d->err));
	}
	else
	{
		WsHaloRows(bd, rows);
		for (int i = 0; i < 2 && d->rc == 0; i++)
			if (rows[i] >= 0)
				d->rc = WsLoadRows(d->c, bd->p, &bd->r, bd->labels, bd->hkeys, rows[i],
								   rows[i] + 1, &d->st, d->err, sizeof(d->err));
	}
	if (d->rc == 0)
		WsHaloSnapshot(bd, true);
}

/*
 * WsBandStep: run a band's automaton to its fixed point, then send its
 * edge rows (those a neighbour reads as its halo) to the host.
 */
static void
WsBandRun(WsBand *bd)
{
	WsDev	   *d = bd->d;
	double		t0 = WsNowMs();

	d->rc = WsRunCa(d->c, &bd->r, bd->p->sync, bd->poll, bd->poll_arg, &d->st, d->err,
					sizeof(d->err));
	if (d->rc == 0 && bd->y0 > 0)
		d->rc = WsStoreRows(d->c, bd->p, &bd->r, bd->labels, bd->hkeys, bd->y0, bd->y0 + 1,
							&d->st, d->err, sizeof(d->err));
	if (d->rc == 0 && bd->y1 < bd->p->h)
		d->rc = WsStoreRows(d->c, bd->p, &bd->r, bd->labels, bd->hkeys, bd->y1 - 1, bd->y1,
							&d->st, d->err, sizeof(d->err));
	d->share.runs++;
	d->share.busy_s += (WsNowMs() - t0) / 1e3;
}

/* WsBandStep: store a settled band's rows on the host. */
static void
WsBandStore(WsBand *bd)
{
	WsDev	   *d = bd->d;

	d->rc = WsStoreRows(d->c, bd->p, &bd->r, bd->labels, bd->hkeys, bd->y0, bd->y1, &d->st,
						d->err, sizeof(d->err));
}

/* A band's step on the current thread (pthread entry too), on the band's GPU. */
static void *
WsBandMain(void *arg)
{
	WsBand	   *bd = (WsBand *) arg;
	cudaError_t e = cudaSetDevice(bd->d->c->device);

	if (e != cudaSuccess)
	{
		snprintf(bd->d->err, sizeof(bd->d->err), "CUDA device setup failed: %s",
				 cudaGetErrorString(e));
		bd->d->rc = -1;
	}
	else
		bd->step(bd);
	return NULL;
}

/*
 * Run step on every band marked again, side by side: each on a thread of
 * its own (the first on the calling thread, and a band whose thread does
 * not start there too, after it).  0, 1 when one was polled to stop, or
 * -1 with the first failure's reason.
 */
static int
WsBandsEach(WsBand *bands, int n, WsBandStep step, char *err, size_t err_len)
{
	int			rc = 0;

	for (int k = 0; k < n; k++)
	{
		bands[k].step = step;
		bands[k].started = bands[k].again && k > 0 &&
			PbThreadStart(&bands[k].d->thread, WsBandMain, &bands[k]) == 0;
	}
	for (int k = 0; k < n; k++)
		if (bands[k].again && !bands[k].started)
			WsBandMain(&bands[k]);
	for (int k = 0; k < n; k++)
		if (bands[k].started)
			pthread_join(bands[k].d->thread, NULL);
	for (int k = 0; k < n && rc != -1; k++)
		if (bands[k].again && bands[k].d->rc != 0)
		{
			rc = bands[k].d->rc;
			if (rc == -1)
				snprintf(err, err_len, "%s", bands[k].d->err);
		}
	return rc;
}

/*
 * Whether plan p runs in resident bands on the ndev GPUs of devs (each
 * begun): on several GPUs, each of whose budgets holds a band of whole
 * rows with its halo rows; then p's tiles are the bands.
 */
bool
WsBandsFit(WsPlan *p, const WsDev *devs, int ndev)
{
	int64_t		th = (p->h + ndev - 1) / ndev;
	int64_t		rh = th + 2 < p->h ? th + 2 : p->h;

	if (ndev < 2 || (ndev - 1) * th >= p->h)
		return false;
	for (int d = 0; d < ndev; d++)
		if (WsRegionBytes(p, p->w, rh, false) > devs[d].budget)
			return false;
	p->tw = p->rw = (int) p->w;
	p->th = (int) th;
	p->rh = (int) rh;
	p->ntx = 1;
	p->nty = ndev;
	return true;
}

/*
 * The run in resident bands on the ndev GPUs of devs (WsBandsFit said
 * yes): the bands load and run, side by side, until no halo changes; then
 * they store their rows and the host finishes.  0, 1, or -1 with a
 * reason (the first failure's).
 */
int
WsRunBands(WsDev *devs, int ndev, const WsPlan *p, const PbWatershedSpec *spec,
		   uint32_t *labels, PbPollFn poll, void *poll_arg, char *err, size_t err_len)
{
	size_t		halo_bytes = 2 * (size_t) p->w * (p->kb + sizeof(uint32_t));
	WsBand	   *bands = (WsBand *) calloc((size_t) ndev, sizeof(WsBand));
	char	   *hkeys = WsHostBegin(p, labels);
	bool		again = true,
				memory = hkeys != NULL && bands != NULL;
	int			rc = 0;

	for (int k = 0; bands != NULL && k < ndev; k++)
	{
		WsBand	   *bd = &bands[k];

		bd->d = &devs[k];
		bd->p = p;
		bd->spec = spec;
		bd->labels = labels;
		bd->hkeys = hkeys;
		bd->poll = poll;
		bd->poll_arg = poll_arg;
		bd->y0 = k * p->th;
		bd->y1 = bd->y0 + p->th < p->h ? bd->y0 + p->th : (int) p->h;
		bd->again = true;
		memory &= (bd->halo = (char *) malloc(halo_bytes)) != NULL;
	}
	if (!memory)
	{
		snprintf(err, err_len, "out of host memory for a watershed in bands");
		rc = -1;
	}
	if (bands == NULL)
	{
		free(hkeys);
		return rc;
	}
	while (rc == 0 && again)
	{
		if ((rc = WsBandsEach(bands, ndev, WsBandLoad, err, err_len)) != 0 ||
			(rc = WsBandsEach(bands, ndev, WsBandRun, err, err_len)) != 0)
			break;
		again = false;
		for (int k = 0; k < ndev; k++)
		{
			bands[k].again = WsHaloSnapshot(&bands[k], false);
			again = again || bands[k].again;
		}
	}
	for (int k = 0; k < ndev; k++)
		bands[k].again = true;
	if (rc == 0 && (rc = WsBandsEach(bands, ndev, WsBandStore, err, err_len)) == 0 &&
		WsHostFinish(p, spec, hkeys, labels, err, err_len) != 0)
		rc = -1;
	for (int k = ndev - 1; k >= 0; k--) /* the first GPU's last: it stays current */
	{
		if (bands[k].loaded && cudaSetDevice(devs[k].c->device) == cudaSuccess)
		{
			WsFreeBufs(devs[k].c, &devs[k].b);
			if (cudaStreamSynchronize(devs[k].c->stream) != cudaSuccess && rc == 0)
			{
				snprintf(err, err_len, "CUDA failed while freeing: %s",
						 cudaGetErrorString(cudaGetLastError()));
				rc = -1;
			}
		}
		cudaGetLastError();
		free(bands[k].halo);
	}
	free(bands);
	free(hkeys);
	return rc;
}
