/*
 * watershed_bands_host.cu: the GPU watershed on several GPUs whose
 * budgets hold the image together though the first alone does not.  The
 * image is cut into one band of whole rows per GPU, resident there with a
 * halo row above and below.  Each band runs the automaton to its fixed
 * point with its halo fixed and copies its two edge rows (keys and labels)
 * to the host; a band whose halo rows (its neighbours' edge rows) changed
 * since it loaded them loads them and runs again, all bands side by side,
 * until none changed.  Only those rows cross the host between runs, where
 * a tiled run (watershed_host.cu) copies each tile's whole state in and
 * out.  Keys only decrease towards the unique fixed point, so the state is
 * the untiled run's.  Each band then draws its lines on its GPU (every
 * neighbour of its rows is in its region) and copies its labels out; the
 * host numbers the minima of a marker-less run.  No keys are kept on the
 * host but the edge rows.
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
	PbPollFn	poll;
	void	   *poll_arg;
	int			y0,
				y1;				/* its rows */
	WsRegion	r;				/* its region: its rows and halo rows, whole width */
	bool		loaded;			/* its buffers were allocated (its region loaded) */
	bool		again;			/* its halo changed (or it never ran): load it, run */
	WsBand	   *above,
			   *below;			/* its neighbours, or NULL */
	char	   *edge[2];		/* its first and last rows after its last run: keys, labels */
	char	   *halo[2];		/* its halo rows (above, below) as it last loaded them */
	WsBandStep	step;			/* what its thread does now */
	bool		started;		/* on a thread of its own */
};

/* Bytes of one row's state on the host: its keys, then its labels. */
static size_t
WsRowBytes(const WsPlan *p)
{
	return (size_t) p->w * (p->kb + sizeof(uint32_t));
}

/*
 * Copy the state of image row y of a band's region between the device
 * and a host row (keys, then labels): in, to the device.
 */
static int
WsBandRow(WsBand *bd, int64_t y, char *row, bool in)
{
	WsDev	   *d = bd->d;
	const WsPlan *p = bd->p;
	size_t		at = (size_t) (y - bd->r.gy0) * bd->r.w;
	size_t		kbytes = (size_t) p->w * p->kb,
				lbytes = (size_t) p->w * sizeof(uint32_t);
	char	   *key = (char *) bd->r.key + at * p->kb;
	uint32_t   *lab = bd->r.lab + at;
	double		t0 = WsNowMs();
	int			rc = in ?
		(RgCopyIn(d->c, key, kbytes, row, kbytes, kbytes, 1, "copying watershed keys to the GPU",
				  d->err, sizeof(d->err)) != 0 ||
		 RgCopyIn(d->c, lab, lbytes, row + kbytes, lbytes, lbytes, 1,
				  "copying watershed labels to the GPU", d->err, sizeof(d->err)) != 0) :
		(RgCopyOut(d->c, row, kbytes, key, kbytes, kbytes, 1, "copying watershed keys back",
				   d->err, sizeof(d->err)) != 0 ||
		 RgCopyOut(d->c, row + kbytes, lbytes, lab, lbytes, lbytes, 1,
				   "copying watershed labels back", d->err, sizeof(d->err)) != 0);

	d->st.transfer_ms += WsNowMs() - t0;
	return rc ? -1 : 0;
}

/* The neighbours' edge rows a band reads as its halo (NULL: no such row). */
static void
WsHaloSources(const WsBand *bd, const char *src[2])
{
	src[0] = bd->above ? bd->above->edge[1] : NULL;
	src[1] = bd->below ? bd->below->edge[0] : NULL;
}

/* Whether a band's halo rows changed since it loaded them. */
static bool
WsHaloChanged(const WsBand *bd)
{
	const char *src[2];

	WsHaloSources(bd, src);
	for (int i = 0; i < 2; i++)
		if (src[i] != NULL && memcmp(src[i], bd->halo[i], WsRowBytes(bd->p)) != 0)
			return true;
	return false;
}

/*
 * WsBandStep: load a band.  The first time, its buffers and its whole
 * region (pixels, state INF, walls and seeds); after that, its halo rows
 * from its neighbours' edge rows, remembered as loaded.
 */
static void
WsBandLoad(WsBand *bd)
{
	WsDev	   *d = bd->d;
	const char *src[2];

	if (!bd->loaded)
	{
		bd->loaded = true;		/* what WsAlloc got is freed even if it fails */
		d->rc = WsAlloc(d->c, bd->p, &d->b, true, d->err, sizeof(d->err));
		if (d->rc != 0)
			return;
		WsRegionOf(bd->p, &d->b, bd->spec, true, 0, bd->y0, (int) bd->p->w, bd->y1, &bd->r);
		d->rc = WsLoadRegion(d->c, bd->p, &d->b, &bd->r, bd->spec, NULL, NULL, &d->st, d->err,
							 sizeof(d->err));
		return;
	}
	WsHaloSources(bd, src);
	for (int i = 0; i < 2 && d->rc == 0; i++)
		if (src[i] != NULL)
		{
			memcpy(bd->halo[i], src[i], WsRowBytes(bd->p));
			d->rc = WsBandRow(bd, i == 0 ? bd->y0 - 1 : bd->y1, bd->halo[i], true);
		}
}

/*
 * WsBandStep: run a band's automaton to its fixed point, then copy its
 * edge rows (those its neighbours read as halo) to the host.
 */
static void
WsBandRun(WsBand *bd)
{
	WsDev	   *d = bd->d;
	double		t0 = WsNowMs();

	d->rc = WsRunCa(d->c, &bd->r, bd->p->sync, bd->poll, bd->poll_arg, &d->st, d->err,
					sizeof(d->err));
	if (d->rc == 0 && bd->above != NULL)
		d->rc = WsBandRow(bd, bd->y0, bd->edge[0], false);
	if (d->rc == 0 && bd->below != NULL)
		d->rc = WsBandRow(bd, bd->y1 - 1, bd->edge[1], false);
	d->share.runs++;
	d->share.busy_s += (WsNowMs() - t0) / 1e3;
}

/* WsBandStep: a settled band's lines on its GPU, then its labels to the caller's. */
static void
WsBandFinish(WsBand *bd)
{
	WsDev	   *d = bd->d;
	const WsPlan *p = bd->p;
	size_t		lbytes = (size_t) p->w * sizeof(uint32_t);
	double		t0;
	cudaError_t e = cudaSuccess;

	if (p->lines)
	{
		WsLaunchFinish(&bd->r, true, false, d->b.bits, d->b.cnt, d->c->stream, d->c->sms);
		if ((e = cudaGetLastError()) != cudaSuccess ||
			(e = cudaStreamSynchronize(d->c->stream)) != cudaSuccess)
		{
			snprintf(d->err, sizeof(d->err), "drawing the watershed lines: %s",
					 cudaGetErrorString(e));
			d->rc = -1;
			return;
		}
	}
	t0 = WsNowMs();
	d->rc = RgCopyOut(d->c, bd->labels + (size_t) bd->y0 * p->w, lbytes,
					  bd->r.lab + (size_t) bd->r.uy0 * bd->r.w, lbytes, lbytes, bd->y1 - bd->y0,
					  "copying the labels back", d->err, sizeof(d->err));
	d->st.transfer_ms += WsNowMs() - t0;
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
 * rows with its halo rows and the buffers to draw its lines; then p's
 * tiles are the bands.
 */
bool
WsBandsFit(WsPlan *p, const WsDev *devs, int ndev)
{
	int64_t		th = (p->h + ndev - 1) / ndev;
	int64_t		rh = th + 2 < p->h ? th + 2 : p->h;

	if (ndev < 2 || (ndev - 1) * th >= p->h)
		return false;
	for (int d = 0; d < ndev; d++)
		if (WsRegionBytes(p, p->w, rh, true) > devs[d].budget)
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
 * they draw their lines and copy their labels out, and the host numbers
 * the minima (marker-less).  0, 1, or -1 with a reason (the first
 * failure's).
 */
int
WsRunBands(WsDev *devs, int ndev, const WsPlan *p, const PbWatershedSpec *spec,
		   uint32_t *labels, PbPollFn poll, void *poll_arg, char *err, size_t err_len)
{
	size_t		row = WsRowBytes(p);
	WsBand	   *bands = (WsBand *) calloc((size_t) ndev, sizeof(WsBand));
	char	   *rows = (char *) malloc((size_t) ndev * 4 * row);
	bool		again = true;
	int			rc = 0;

	if (bands == NULL || rows == NULL)
	{
		snprintf(err, err_len, "out of host memory for a watershed in bands");
		free(bands);
		free(rows);
		return -1;
	}
	memset(rows, 0xFF, (size_t) ndev * 4 * row);	/* INF, as the halo rows start */
	for (int k = 0; k < ndev; k++)
	{
		WsBand	   *bd = &bands[k];

		bd->d = &devs[k];
		bd->p = p;
		bd->spec = spec;
		bd->labels = labels;
		bd->poll = poll;
		bd->poll_arg = poll_arg;
		bd->y0 = k * p->th;
		bd->y1 = bd->y0 + p->th < p->h ? bd->y0 + p->th : (int) p->h;
		bd->above = k > 0 ? &bands[k - 1] : NULL;
		bd->below = k < ndev - 1 ? &bands[k + 1] : NULL;
		for (int i = 0; i < 2; i++)
		{
			bd->edge[i] = rows + (size_t) (4 * k + i) * row;
			bd->halo[i] = rows + (size_t) (4 * k + 2 + i) * row;
		}
		bd->again = true;
	}
	while (rc == 0 && again)
	{
		if ((rc = WsBandsEach(bands, ndev, WsBandLoad, err, err_len)) != 0 ||
			(rc = WsBandsEach(bands, ndev, WsBandRun, err, err_len)) != 0)
			break;
		again = false;
		for (int k = 0; k < ndev; k++)
		{
			bands[k].again = WsHaloChanged(&bands[k]);
			again = again || bands[k].again;
		}
	}
	for (int k = 0; k < ndev; k++)
		bands[k].again = true;
	if (rc == 0 && (rc = WsBandsEach(bands, ndev, WsBandFinish, err, err_len)) == 0 &&
		!p->mk && WsHostNumber(labels, p->w * p->h, err, err_len) != 0)
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
	}
	free(rows);
	free(bands);
	return rc;
}
