/*
 * raster_copy_host.cu: copies between the caller's pageable memory and
 * the device for the raster drivers (reconstruction, distance transform,
 * watershed), several times faster than a plain
 * cudaMemcpy from pageable memory (which one thread stages through a
 * driver buffer): RG_COPY_THREADS threads each move a band of rows through
 * their own pair of pinned buffers, copying one with memcpy while the
 * other is in flight on their own stream.  The pinned buffers, streams
 * and events are made on a context's first large copy, on its device, and
 * kept with the context (like its memory pool): contexts on several
 * devices copy at once, each with its own.  The threads start with
 * every signal blocked, call nothing but memcpy and CUDA, and are joined
 * before return.  Small copies, and any the threads cannot take, go the
 * plain way on the context's stream.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "raster_gpu_common.cuh"

#define RG_COPY_THREADS PB_RASTER_COPY_THREADS
#define RG_PIN_BYTES ((size_t) 2 << 20)	/* each of a thread's two buffers */
#define RG_COPY_MIN ((size_t) 16 << 20)	/* smaller copies go the plain way */

/* What a context's copy threads use, made once. */
struct RgCopyKit
{
	char	   *pin;			/* 2 * RG_COPY_THREADS buffers */
	cudaStream_t stream[RG_COPY_THREADS];
	cudaEvent_t ev[2 * RG_COPY_THREADS];
};

/* One thread's band of rows. */
typedef struct RgCopyJob
{
	int			device;			/* the context's */
	bool		in;				/* host to device */
	char	   *dst;
	size_t		dpitch;
	const char *src;
	size_t		spitch;
	size_t		width;			/* bytes per row */
	size_t		rows;
	char	   *pin[2];
	cudaStream_t s;
	cudaEvent_t *ev;			/* 2 */
	cudaError_t e;
} RgCopyJob;

/* Host to device through the job's pinned pair, chunk by chunk. */
static cudaError_t
RgCopyBandIn(RgCopyJob *j, cudaStream_t s, cudaEvent_t ev[2])
{
	size_t		per = RG_PIN_BYTES / j->width;
	cudaError_t e = cudaSuccess;

	for (size_t r0 = 0, k = 0; r0 < j->rows && e == cudaSuccess; r0 += per, k++)
	{
		size_t		n = per < j->rows - r0 ? per : j->rows - r0;
		char	   *b = j->pin[k & 1];

		if (k >= 2 && (e = cudaEventSynchronize(ev[k & 1])) != cudaSuccess)
			break;
		for (size_t r = 0; r < n; r++)
			memcpy(b + r * j->width, j->src + (r0 + r) * j->spitch, j->width);
		if ((e = cudaMemcpy2DAsync(j->dst + r0 * j->dpitch, j->dpitch, b, j->width, j->width, n,
								   cudaMemcpyHostToDevice, s)) == cudaSuccess)
			e = cudaEventRecord(ev[k & 1], s);
	}
	return e;
}

/* Device to host through the job's pinned pair, one chunk behind. */
static cudaError_t
RgCopyBandOut(RgCopyJob *j, cudaStream_t s, cudaEvent_t ev[2])
{
	size_t		per = RG_PIN_BYTES / j->width;
	size_t		nchunks = (j->rows + per - 1) / per;
	cudaError_t e = cudaSuccess;

	for (size_t k = 0; k <= nchunks && e == cudaSuccess; k++)
	{
		if (k < nchunks)		/* start chunk k */
		{
			size_t		r0 = k * per,
						n = per < j->rows - r0 ? per : j->rows - r0;

			if ((e = cudaMemcpy2DAsync(j->pin[k & 1], j->width, j->src + r0 * j->spitch, j->spitch,
									   j->width, n, cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
				(e = cudaEventRecord(ev[k & 1], s)) != cudaSuccess)
				break;
		}
		if (k > 0)				/* finish chunk k - 1 */
		{
			size_t		r0 = (k - 1) * per,
						n = per < j->rows - r0 ? per : j->rows - r0;
			const char *b = j->pin[(k - 1) & 1];

			if ((e = cudaEventSynchronize(ev[(k - 1) & 1])) != cudaSuccess)
				break;
			for (size_t r = 0; r < n; r++)
				memcpy(j->dst + (r0 + r) * j->dpitch, b + r * j->width, j->width);
		}
	}
	return e;
}

/* A copy thread: its band on its own stream, then wait for it. */
static void *
RgCopyWorker(void *arg)
{
	RgCopyJob  *j = (RgCopyJob *) arg;
	cudaError_t e;

	if ((e = cudaSetDevice(j->device)) == cudaSuccess &&
		(e = j->in ? RgCopyBandIn(j, j->s, j->ev) : RgCopyBandOut(j, j->s, j->ev)) == cudaSuccess)
		e = cudaStreamSynchronize(j->s);
	j->e = e;
	return NULL;
}

/* Free the copies' buffers, streams and events of c (null handles fail harmlessly). */
void
RgCopyKitFree(RgCtx *c)
{
	RgCopyKit  *k = c->kit;

	if (k == NULL)
		return;
	cudaFreeHost(k->pin);
	for (int t = 0; t < RG_COPY_THREADS; t++)
	{
		cudaStreamDestroy(k->stream[t]);
		cudaEventDestroy(k->ev[2 * t]);
		cudaEventDestroy(k->ev[2 * t + 1]);
	}
	cudaGetLastError();
	free(k);
	c->kit = NULL;
}

/*
 * Make c's pinned buffers, streams and events once (on its device, which
 * is current); whether they exist.
 */
static bool
RgCopyKitReady(RgCtx *c)
{
	bool		ok;

	if (c->kit != NULL)
		return true;
	if ((c->kit = (RgCopyKit *) calloc(1, sizeof(RgCopyKit))) == NULL)
		return false;
	ok = cudaHostAlloc((void **) &c->kit->pin, 2 * RG_COPY_THREADS * RG_PIN_BYTES,
					   cudaHostAllocPortable) == cudaSuccess;
	for (int t = 0; ok && t < RG_COPY_THREADS; t++)
		ok = cudaStreamCreateWithFlags(&c->kit->stream[t], cudaStreamNonBlocking) == cudaSuccess &&
			cudaEventCreateWithFlags(&c->kit->ev[2 * t], cudaEventDisableTiming) == cudaSuccess &&
			cudaEventCreateWithFlags(&c->kit->ev[2 * t + 1], cudaEventDisableTiming) == cudaSuccess;
	if (!ok)
		RgCopyKitFree(c);
	return ok;
}

/*
 * A 2D copy between pageable host memory and the device (in: host to
 * device), ordered after the work already on the context's stream and
 * finished on return.  0, or -1 with a reason (what) in err.
 */
static int
RgCopy(RgCtx *c, bool in, void *dst, size_t dpitch, const void *src, size_t spitch,
	   size_t width, size_t rows, const char *what, char *err, size_t err_len)
{
	RgCopyJob	jobs[RG_COPY_THREADS];
	pthread_t	tids[RG_COPY_THREADS];
	bool		started[RG_COPY_THREADS];
	sigset_t	all,
				old;
	size_t		band = (rows + RG_COPY_THREADS - 1) / RG_COPY_THREADS;
	cudaError_t e;

	if (width * rows < RG_COPY_MIN || width > RG_PIN_BYTES || !RgCopyKitReady(c))
	{
		if ((e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows,
								   in ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
								   c->stream)) != cudaSuccess ||
			(e = cudaStreamSynchronize(c->stream)) != cudaSuccess)
			return RgFail(err, err_len, what, e);
		return 0;
	}
	if ((e = cudaStreamSynchronize(c->stream)) != cudaSuccess)
		return RgFail(err, err_len, what, e);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int t = 0; t < RG_COPY_THREADS; t++)
	{
		size_t		r0 = band * t < rows ? band * t : rows;
		size_t		r1 = r0 + band < rows ? r0 + band : rows;

		jobs[t].device = c->device;
		jobs[t].in = in;
		jobs[t].dst = (char *) dst + r0 * dpitch;
		jobs[t].dpitch = dpitch;
		jobs[t].src = (const char *) src + r0 * spitch;
		jobs[t].spitch = spitch;
		jobs[t].width = width;
		jobs[t].rows = r1 - r0;
		jobs[t].pin[0] = c->kit->pin + (size_t) (2 * t) * RG_PIN_BYTES;
		jobs[t].pin[1] = c->kit->pin + (size_t) (2 * t + 1) * RG_PIN_BYTES;
		jobs[t].s = c->kit->stream[t];
		jobs[t].ev = &c->kit->ev[2 * t];
		jobs[t].e = cudaSuccess;
		started[t] = jobs[t].rows > 0 && pthread_create(&tids[t], NULL, RgCopyWorker, &jobs[t]) == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int t = 0; t < RG_COPY_THREADS; t++)
	{
		if (started[t])
			pthread_join(tids[t], NULL);
		else if (jobs[t].rows > 0)	/* no thread: do its band here */
			RgCopyWorker(&jobs[t]);
	}
	for (int t = 0; t < RG_COPY_THREADS; t++)
		if (jobs[t].e != cudaSuccess)
			return RgFail(err, err_len, what, jobs[t].e);
	return 0;
}

/* Host rows to the device (see raster_gpu_common.cuh). */
int
RgCopyIn(RgCtx *c, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		 size_t rows, const char *what, char *err, size_t err_len)
{
	return RgCopy(c, true, dst, dpitch, src, spitch, width, rows, what, err, err_len);
}

/* Device rows to the host (see raster_gpu_common.cuh). */
int
RgCopyOut(RgCtx *c, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		  size_t rows, const char *what, char *err, size_t err_len)
{
	return RgCopy(c, false, dst, dpitch, src, spitch, width, rows, what, err, err_len);
}
