/*
 * gpu_context_host.cu: the PbGpu context of pb_gpu.h (its fields are in
 * gpu_context.cuh): probing the devices, opening and closing it, and the
 * account of its one budget between its polygon side (polygon_host.cu,
 * which reserves its buffer here) and its raster side
 * (raster_context_host.cu, whose calls begin and end here).
 *
 * The CUDA runtime is linked statically (see the Makefile): on a machine
 * without a driver the first call fails cleanly and we report why.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_context.cuh"

/* Count the usable devices, or say why there is none. */
extern "C" int
PbGpuProbe(char *reason, size_t reason_len)
{
	int			count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess)
	{
		snprintf(reason, reason_len, "CUDA is not usable: %s", cudaGetErrorString(e));
		return 0;
	}
	if (count == 0)
		snprintf(reason, reason_len, "no CUDA device is present");
	return count;
}


/*
 * Open the context on the device: its name, and the polygon side's stream
 * and events (the raster side is made by its first call).
 */
extern "C" PbGpu *
PbGpuOpen(size_t memory_budget, int device, char *err, size_t err_len)
{
	PbGpu	   *g;
	cudaDeviceProp prop;
	cudaError_t e;
	int			count = PbGpuProbe(err, err_len);

	if (count == 0)
		return NULL;
	if (device < 0 || device >= count)
	{
		snprintf(err, err_len, "there is no CUDA device %d (%d present)", device, count);
		return NULL;
	}
	g = (PbGpu *) calloc(1, sizeof(PbGpu));
	if (g == NULL)
	{
		snprintf(err, err_len, "out of host memory");
		return NULL;
	}
	g->budget = memory_budget;
	g->device = device;
	g->method = PB_GPU_BITMAP;
	if ((e = cudaSetDevice(device)) != cudaSuccess ||
		(e = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
		(e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking)) != cudaSuccess ||
		(e = cudaEventCreate(&g->start)) != cudaSuccess ||
		(e = cudaEventCreate(&g->stop)) != cudaSuccess)
	{
		Fail(err, err_len, "CUDA initialization failed", e);
		if (g->start)
			cudaEventDestroy(g->start);
		if (g->stream)
			cudaStreamDestroy(g->stream);
		cudaGetLastError();
		free(g);
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	g->sm_count = prop.multiProcessorCount;
	snprintf(g->name, sizeof(g->name), "%s (sm_%d%d, %d SMs)", prop.name, prop.major,
			 prop.minor, prop.multiProcessorCount);
	return g;
}


/* The device's name, compute capability and SM count. */
extern "C" const char *
PbGpuDeviceName(const PbGpu *g)
{
	return g->name;
}

/* The budget less used bytes, or 0 when they are over it. */
static size_t
BudgetLess(const PbGpu *g, size_t used)
{
	return g->budget > used ? g->budget - used : 0;
}

/* Give the polygon side's buffer back to the device (lock held, buffer idle). */
static void
FreePoly(PbGpu *g)
{
	cudaFree(g->d_buf);
	g->d_buf = NULL;
	g->d_cap = 0;
}


/*
 * Make the polygon side's buffer hold need bytes and mark it in use.
 * Within the budget: what the raster side holds counts, and what its pool
 * caches is taken back when it is idle.  0, or -1 with a reason.
 */
int
GpuPolyReserve(PbGpu *g, size_t need, char *err, size_t err_len)
{
	int			rc = 0;

	pthread_mutex_lock(&g->lock);
	g->poly_busy = 1;
	if (need > g->d_cap || g->d_cap + g->src_bytes > g->budget)
	{
		size_t		poly = need + g->src_bytes,
					room,
					want;
		cudaError_t e;

		FreePoly(g);
		if (g->raster_made && !g->raster_busy && poly + g->raster_held > g->budget)
			g->raster_held = RgTrim(&g->rg, BudgetLess(g, poly));
		room = BudgetLess(g, g->raster_held + g->src_bytes);
		want = need + need / 2 < room ? need + need / 2 : room;
		if (need > room)
		{
			snprintf(err, err_len, "batch needs %zu bytes of device memory; the raster operations hold %zu and the held polygons %zu of the budget (%zu)",
					 need, g->raster_held, g->src_bytes, g->budget);
			rc = -1;
		}
		else if ((e = cudaMalloc(&g->d_buf, want)) != cudaSuccess)
		{
			cudaGetLastError();	/* out of memory is not sticky: clear it */
			rc = Fail(err, err_len, "device allocation failed", e);
		}
		else
			g->d_cap = want;
	}
	if (rc != 0)
		g->poly_busy = 0;
	pthread_mutex_unlock(&g->lock);
	return rc;
}


/*
 * Give the polygon side bytes more for a held source (d_src, counted in
 * src_bytes), within the budget: its idle buffer goes back first if need
 * be.  0, or -1 (nothing held, the device's error cleared).
 */
int
GpuPolyHold(PbGpu *g, size_t bytes)
{
	int			rc = -1;

	pthread_mutex_lock(&g->lock);
	if (!g->poly_busy && g->d_cap + bytes + g->raster_held > g->budget)
		FreePoly(g);
	if (g->d_cap + bytes + g->raster_held <= g->budget)
	{
		if (cudaSetDevice(g->device) == cudaSuccess && cudaMalloc(&g->d_src, bytes) == cudaSuccess)
		{
			g->src_bytes = bytes;
			rc = 0;
		}
		else
			cudaGetLastError();
	}
	pthread_mutex_unlock(&g->lock);
	return rc;
}

/* Free the held source (none is fine); the caller waited for its readers. */
void
GpuPolyUnhold(PbGpu *g)
{
	pthread_mutex_lock(&g->lock);
	cudaFree(g->d_src);
	g->d_src = NULL;
	g->src_bytes = 0;
	pthread_mutex_unlock(&g->lock);
}


/*
 * A raster call begins (see gpu_context.cuh): the polygon side's buffer
 * goes back when idle; the call gets the rest of the budget.
 */
size_t
GpuRasterBegin(PbGpu *g)
{
	size_t		reserved;

	pthread_mutex_lock(&g->lock);
	g->raster_made = 1;
	g->raster_busy = 1;
	if (!g->poly_busy && g->d_buf != NULL)
		FreePoly(g);
	reserved = BudgetLess(g, g->d_cap + g->src_bytes);
	g->raster_held = reserved;
	pthread_mutex_unlock(&g->lock);
	return reserved;
}


/* A raster call is over: the raster side now holds what its pool caches. */
void
GpuRasterEnd(PbGpu *g, size_t cached)
{
	pthread_mutex_lock(&g->lock);
	g->raster_busy = 0;
	g->raster_held = cached;
	pthread_mutex_unlock(&g->lock);
}


/* A new budget; idle caches over it go back now, busy ones as they end. */
extern "C" void
PbGpuSetBudget(PbGpu *g, size_t memory_budget)
{
	pthread_mutex_lock(&g->lock);
	if (memory_budget != g->budget)
	{
		size_t		poly;

		g->budget = memory_budget;
		if (!g->poly_busy && g->d_cap + g->src_bytes > memory_budget)
			FreePoly(g);
		poly = g->d_cap + g->src_bytes;
		if (g->raster_made && !g->raster_busy && g->raster_held + poly > memory_budget)
			g->raster_held = RgTrim(&g->rg, BudgetLess(g, poly));
	}
	pthread_mutex_unlock(&g->lock);
}


/* Close the context: wait for its work, free both sides. */
extern "C" void
PbGpuClose(PbGpu *g)
{
	if (g == NULL)
		return;
	Drain(g);
	RgDestroy(&g->rg);
	cudaFree(g->d_buf);
	cudaFree(g->d_src);
	PinnedKitFree(&g->kit);
	cudaFreeHost(g->h_slot[0]);
	cudaFreeHost(g->h_slot[1]);
	cudaFreeHost(g->h_out);
	cudaFreeHost(g->h_found);
	cudaEventDestroy(g->start);
	cudaEventDestroy(g->stop);
	cudaStreamDestroy(g->stream);
	pthread_mutex_destroy(&g->lock);
	free(g);
}
