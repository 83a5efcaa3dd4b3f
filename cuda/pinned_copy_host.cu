/*
 * pinned_copy_host.cu: the copies of pinned_copy.cuh.  PINNED_COPY_THREADS
 * threads each move a band of rows through their own pair of pinned
 * buffers, copying one with memcpy while the other is in flight on their
 * own stream.  The pinned buffers, streams and events are made on a kit's
 * first large copy, on its device, and kept with it: contexts on several
 * devices, and the two sides of one, copy at once, each with its own.
 * The threads start with every signal blocked, call nothing but memcpy
 * and CUDA, and are joined before return.  Small copies, and any the
 * threads cannot take, go the plain way on the caller's stream.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pinned_copy.cuh"

#define PIN_BYTES ((size_t) 2 << 20)	/* each of a thread's two buffers */
#define COPY_MIN ((size_t) 16 << 20)	/* smaller copies go the plain way */
#define FLAT_ROW ((size_t) 1 << 20)	/* row of a flat copy */

/* What a side's copy threads use, made once. */
struct PinnedKit
{
	char	   *pin;			/* 2 * PINNED_COPY_THREADS buffers */
	cudaStream_t stream[PINNED_COPY_THREADS];
	cudaEvent_t ev[2 * PINNED_COPY_THREADS];
};

/* One thread's band of rows. */
typedef struct CopyJob
{
	int			device;			/* the kit's */
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
} CopyJob;

/* Host to device through the job's pinned pair, chunk by chunk. */
static cudaError_t
CopyBandIn(CopyJob *j, cudaStream_t s, cudaEvent_t ev[2])
{
	size_t		per = PIN_BYTES / j->width;
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
CopyBandOut(CopyJob *j, cudaStream_t s, cudaEvent_t ev[2])
{
	size_t		per = PIN_BYTES / j->width;
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
CopyWorker(void *arg)
{
	CopyJob  *j = (CopyJob *) arg;
	cudaError_t e;

	if ((e = cudaSetDevice(j->device)) == cudaSuccess &&
		(e = j->in ? CopyBandIn(j, j->s, j->ev) : CopyBandOut(j, j->s, j->ev)) == cudaSuccess)
		e = cudaStreamSynchronize(j->s);
	j->e = e;
	return NULL;
}

/* Free *kit's buffers, streams and events (null handles fail harmlessly). */
void
PinnedKitFree(PinnedKit **kit)
{
	PinnedKit  *k = *kit;

	if (k == NULL)
		return;
	cudaFreeHost(k->pin);
	for (int t = 0; t < PINNED_COPY_THREADS; t++)
	{
		cudaStreamDestroy(k->stream[t]);
		cudaEventDestroy(k->ev[2 * t]);
		cudaEventDestroy(k->ev[2 * t + 1]);
	}
	cudaGetLastError();
	free(k);
	*kit = NULL;
}

/*
 * Make *kit's pinned buffers, streams and events once (on its device,
 * which is current); whether they exist.
 */
static bool
PinnedKitReady(PinnedKit **kit)
{
	PinnedKit  *k;
	bool		ok;

	if (*kit != NULL)
		return true;
	if ((k = *kit = (PinnedKit *) calloc(1, sizeof(PinnedKit))) == NULL)
		return false;
	ok = cudaHostAlloc((void **) &k->pin, 2 * PINNED_COPY_THREADS * PIN_BYTES,
					   cudaHostAllocPortable) == cudaSuccess;
	for (int t = 0; ok && t < PINNED_COPY_THREADS; t++)
		ok = cudaStreamCreateWithFlags(&k->stream[t], cudaStreamNonBlocking) == cudaSuccess &&
			cudaEventCreateWithFlags(&k->ev[2 * t], cudaEventDisableTiming) == cudaSuccess &&
			cudaEventCreateWithFlags(&k->ev[2 * t + 1], cudaEventDisableTiming) == cudaSuccess;
	if (!ok)
		PinnedKitFree(kit);
	return ok;
}

/* See pinned_copy.cuh. */
cudaError_t
PinnedCopyRows(PinnedKit **kit, int device, cudaStream_t after, bool in, void *dst,
			   size_t dpitch, const void *src, size_t spitch, size_t width, size_t rows)
{
	CopyJob	jobs[PINNED_COPY_THREADS];
	pthread_t	tids[PINNED_COPY_THREADS];
	bool		started[PINNED_COPY_THREADS];
	sigset_t	all,
				old;
	size_t		band = (rows + PINNED_COPY_THREADS - 1) / PINNED_COPY_THREADS;
	cudaError_t e;

	if (width * rows < COPY_MIN || width > PIN_BYTES || !PinnedKitReady(kit))
	{
		if ((e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows,
								   in ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
								   after)) != cudaSuccess)
			return e;
		return cudaStreamSynchronize(after);
	}
	if ((e = cudaStreamSynchronize(after)) != cudaSuccess)
		return e;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int t = 0; t < PINNED_COPY_THREADS; t++)
	{
		size_t		r0 = band * t < rows ? band * t : rows;
		size_t		r1 = r0 + band < rows ? r0 + band : rows;

		jobs[t].device = device;
		jobs[t].in = in;
		jobs[t].dst = (char *) dst + r0 * dpitch;
		jobs[t].dpitch = dpitch;
		jobs[t].src = (const char *) src + r0 * spitch;
		jobs[t].spitch = spitch;
		jobs[t].width = width;
		jobs[t].rows = r1 - r0;
		jobs[t].pin[0] = (*kit)->pin + (size_t) (2 * t) * PIN_BYTES;
		jobs[t].pin[1] = (*kit)->pin + (size_t) (2 * t + 1) * PIN_BYTES;
		jobs[t].s = (*kit)->stream[t];
		jobs[t].ev = &(*kit)->ev[2 * t];
		jobs[t].e = cudaSuccess;
		started[t] = jobs[t].rows > 0 && pthread_create(&tids[t], NULL, CopyWorker, &jobs[t]) == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int t = 0; t < PINNED_COPY_THREADS; t++)
	{
		if (started[t])
			pthread_join(tids[t], NULL);
		else if (jobs[t].rows > 0)	/* no thread: do its band here */
			CopyWorker(&jobs[t]);
	}
	for (int t = 0; t < PINNED_COPY_THREADS; t++)
		if (jobs[t].e != cudaSuccess)
			return jobs[t].e;
	return cudaSuccess;
}

/*
 * See pinned_copy.cuh: the whole rows of FLAT_ROW bytes through the
 * threads, the rest after them the plain way.
 */
cudaError_t
PinnedCopyIn(PinnedKit **kit, int device, cudaStream_t after, void *dst, const void *src,
			 size_t bytes)
{
	size_t		rows = bytes / FLAT_ROW,
				head = rows * FLAT_ROW;
	cudaError_t e = cudaSuccess;

	if (rows > 0)
		e = PinnedCopyRows(kit, device, after, true, dst, FLAT_ROW, src, FLAT_ROW,
						   FLAT_ROW, rows);
	if (e == cudaSuccess && bytes > head)
		e = PinnedCopyRows(kit, device, after, true, (char *) dst + head, bytes - head,
						   (const char *) src + head, bytes - head, bytes - head, 1);
	return e;
}
