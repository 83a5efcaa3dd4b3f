/*
 * watershed_host.cuh: what the host drivers of the GPU watershed share
 * (watershed_host.cu: planning, buffers, the untiled and tiled runs;
 * watershed_bands_host.cu: the run in resident bands on several GPUs):
 * the plan, a GPU's buffers and part, a region and its loading.
 */
#ifndef PB_WATERSHED_HOST_CUH
#define PB_WATERSHED_HOST_CUH

#include <pthread.h>
#include <time.h>

#include "watershed_gpu.cuh"

/* How one call runs. */
typedef struct WsPlan
{
	int64_t		w,
				h;				/* image */
	size_t		ps;				/* bytes per input pixel */
	size_t		kb;				/* bytes per stored key */
	bool		mk,
				wall,
				sync,
				lines;
	int			tw,
				th;				/* tile interior (the image when untiled) */
	int			ntx,
				nty;
	int			rw,
				rh;				/* largest region (tile and halo) */
} WsPlan;

/* Device buffers of a call, reused by every tile. */
typedef struct WsBufs
{
	uint32_t   *lab,
			   *lab2,
			   *act,
			   *ctl,
			   *bits,
			   *cnt;
	void	   *img,
			   *key,
			   *key2;
	char	   *stage;
} WsBufs;

/* One GPU's part of a run on several. */
typedef struct WsDev
{
	RgCtx	   *c;				/* its raster side, begun (RgBegin) */
	size_t		budget;
	struct WsTiledJob *job;		/* tiled runs */
	WsBufs		b;
	PbRasterGpuStats st;
	PbGpuShare	share;
	int			rc;				/* 0, 1 polled to stop, -1 failed (err) */
	char		err[256];
	pthread_t	thread;
} WsDev;

/* Wall-clock milliseconds (copies run on their own threads and streams). */
static inline double
WsNowMs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Device bytes of a rw x rh region; whole: with the finishing buffers. */
size_t		WsRegionBytes(const WsPlan *p, int64_t rw, int64_t rh, bool whole);

/* Allocate the buffers of the plan (whole: with the finishing ones); free them. */
int			WsAlloc(RgCtx *c, const WsPlan *p, WsBufs *b, bool whole, char *err, size_t err_len);
void		WsFreeBufs(RgCtx *c, WsBufs *b);

/*
 * The region of interior [x0,x1) x [y0,y1) on the buffers of b: untiled,
 * the whole image; tiled, with a one-pixel halo wherever the image goes on.
 */
void		WsRegionOf(const WsPlan *p, const WsBufs *b, const PbWatershedSpec *spec, bool tiled,
					   int x0, int y0, int x1, int y1, WsRegion *r);

/* The plan of spec's watershed, untiled: sizes, key bytes, what it reads and draws. */
void		WsPlanOf(WsPlan *p, const PbWatershedSpec *spec);

/*
 * Load region r in three steps: its pixels (WsLoadPixels); its state; its
 * walls and seeds encoded into the keys over that state, then the wait
 * for the load (WsLoadMarks).  0, or -1 with a reason.
 */
int			WsLoadPixels(RgCtx *c, const WsPlan *p, const WsBufs *b, const WsRegion *r,
						 const PbWatershedSpec *spec, PbRasterGpuStats *st, char *err,
						 size_t err_len);
int			WsLoadMarks(RgCtx *c, const WsPlan *p, const WsBufs *b, const WsRegion *r,
						const PbWatershedSpec *spec, PbRasterGpuStats *st, char *err,
						size_t err_len);

/*
 * Load region r: its pixels; its state, INF (hkeys NULL) or the host's
 * (hkeys and labels); its walls and seeds encoded.  0, or -1 with a reason.
 */
int			WsLoadRegion(RgCtx *c, const WsPlan *p, const WsBufs *b, const WsRegion *r,
						 const PbWatershedSpec *spec, const uint32_t *labels, const char *hkeys,
						 PbRasterGpuStats *st, char *err, size_t err_len);

/*
 * Whether plan p can run in resident bands on the ndev GPUs of devs
 * (each begun), and the run (watershed_bands_host.cu).
 */
bool		WsBandsFit(WsPlan *p, const WsDev *devs, int ndev);
int			WsRunBands(WsDev *devs, int ndev, const WsPlan *p, const PbWatershedSpec *spec,
					   uint32_t *labels, PbPollFn poll, void *poll_arg, char *err, size_t err_len);

#endif							/* PB_WATERSHED_HOST_CUH */
