/*
 * bench_raster.c: the C side of bench/run-raster-bench.  Times pixelbox's
 * raster operations (CPU threads and GPU) and NVIDIA NPP's distance
 * transform on images the script wrote as raw files, writes the results
 * back as raw files (the script checks them against each other and against
 * the Python peers), and prints its figures as "key value" lines.
 *
 *   bench/bench_raster recon --width W --height H --mask F --marker F
 *                            --op dilate|erode [--conn 8] [common options]
 *   bench/bench_raster edt   --width W --height H --fg F [common options]
 *   bench/bench_raster npp   --width W --height H --fg F [--lib PATH] [--out F]
 *
 * common options: --threads N (CPU threads, default 1), --budget-mb M (GPU
 * memory budget, default 16384), --no-cpu, --no-gpu, --out-cpu F,
 * --out-gpu F (where to write the results; none: not written).
 *
 * Images are row-major uint8 (recon: marker and mask, the marker already
 * clipped; edt and npp: nonzero = foreground); distances are float32.
 *
 * Timing: one warm-up run, then the median of 3 runs; a warm-up that took
 * over 5 s is the measurement (1 run).  Buffers are reset between runs
 * outside the timed region.  "gpu_ms" is what PbGpuReconstruct /
 * PbGpuDistance cost their caller, host buffers in and out (transfers
 * included); "gpu_kernel_ms" and "gpu_transfer_ms" are that median run's
 * own statistics.  npp times NPP's nppiDistanceTransformPBA_8u32f_C1R_Ctx
 * (loaded with dlopen, so the benchmark builds and runs without NPP) on
 * device-resident data by CUDA events ("npp_kernel_ms"), and the whole
 * round trip from pageable host memory, copies included, by the wall clock
 * ("npp_total_ms").  It is a separate command so that a broken NPP cannot
 * take the other measurements down with it.  A failing method prints
 * "<method>_error reason" instead of its time.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/pb_raster_gpu.h"

#ifdef PB_BENCH_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#endif

#define BENCH_RUNS 3			/* timed runs after the warm-up */
#define BENCH_SLOW_MS 5000.0	/* a warm-up slower than this is the measurement */

/* What one benchmark invocation was asked to do. */
typedef struct Args
{
	const char *cmd;
	int32_t		width;
	int32_t		height;
	const char *mask;
	const char *marker;
	const char *fg;
	const char *lib;
	const char *out_cpu;
	const char *out_gpu;
	PbReconOp	op;
	int			conn;
	int			threads;
	size_t		budget;
	int			cpu;
	int			gpu;
} Args;

/* One timed operation: reset (untimed) and run (timed; 0 or an error). */
typedef struct Timed
{
	void		(*reset) (void *ctx);
	int			(*run) (void *ctx, int index, char *err, size_t len);
	void	   *ctx;
} Timed;

/* Milliseconds on a monotonic clock. */
static double
NowMs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Print a message and exit with status 2 (bad arguments or I/O). */
static void
Die(const char *what, const char *detail)
{
	fprintf(stderr, "bench_raster: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(2);
}

/* malloc that exits on failure. */
static void *
Alloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		Die("out of memory", NULL);
	return p;
}

/* Read exactly n bytes of a file into a new buffer. */
static void *
ReadRaw(const char *path, size_t n)
{
	FILE	   *f = fopen(path, "rb");
	void	   *buf = Alloc(n);

	if (f == NULL)
		Die("cannot open", path);
	if (fread(buf, 1, n, f) != n)
		Die("file shorter than width * height pixels", path);
	fclose(f);
	return buf;
}

/* Write n bytes to a file, when a path was given. */
static void
WriteRaw(const char *path, const void *buf, size_t n)
{
	FILE	   *f;

	if (path == NULL || path[0] == '\0')
		return;
	f = fopen(path, "wb");
	if (f == NULL || fwrite(buf, 1, n, f) != n || fclose(f) != 0)
		Die("cannot write", path);
}

/*
 * Time t: a warm-up, then BENCH_RUNS runs, or the warm-up alone when it
 * took over BENCH_SLOW_MS.  *ms gets the median, *index the run it came
 * from (the warm-up is run 0); prints "<key>_error" and returns -1 when a
 * run fails.
 */
static int
Measure(const Timed *t, const char *key, double *ms, int *index)
{
	double		times[BENCH_RUNS + 1];
	int			order[BENCH_RUNS];
	int			nruns = 0;
	char		err[512];

	for (int r = 0; r <= BENCH_RUNS; r++)
	{
		double		t0;

		t->reset(t->ctx);
		err[0] = '\0';
		t0 = NowMs();
		if (t->run(t->ctx, r, err, sizeof(err)) != 0)
		{
			printf("%s_error %s\n", key, err[0] ? err : "failed");
			return -1;
		}
		times[r] = NowMs() - t0;
		if (r == 0 && times[0] > BENCH_SLOW_MS)
		{
			*ms = times[0];
			*index = 0;
			printf("%s_runs 1\n", key);
			return 0;
		}
		if (r > 0)
			order[nruns++] = r;
	}
	/* insertion sort of the timed runs by time; the median is the middle */
	for (int i = 1; i < nruns; i++)
		for (int j = i; j > 0 && times[order[j]] < times[order[j - 1]]; j--)
		{
			int			tmp = order[j];

			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	*index = order[nruns / 2];
	*ms = times[*index];
	printf("%s_runs %d\n", key, nruns);
	return 0;
}

/* Print a GPU run's statistics under key. */
static void
PrintGpuStats(const char *key, const PbRasterGpuStats *s)
{
	printf("%s_tiles %d\n%s_rounds %d\n%s_overflows %d\n", key, s->tiles, key, s->rounds,
		   key, s->overflows);
	printf("%s_kernel_ms %.3f\n%s_transfer_ms %.3f\n", key, s->kernel_ms, key, s->transfer_ms);
}

/* ---- reconstruction ---------------------------------------------------- */

/* A reconstruction run: the input marker, the working copy, the mask. */
typedef struct ReconCtx
{
	const Args *a;
	const uint8_t *marker0;
	PbImage		marker;
	PbImage		mask;
	PbRasterGpuStats stats[BENCH_RUNS + 1];
} ReconCtx;

/* Restore the working marker from the input. */
static void
ReconReset(void *p)
{
	ReconCtx   *c = p;

	memcpy(c->marker.data, c->marker0, (size_t) c->a->width * c->a->height);
}

/* PbReconstructCpu on the working marker. */
static int
ReconCpu(void *p, int index, char *err, size_t len)
{
	ReconCtx   *c = p;
	PbRun run = {c->a->threads, 0, NULL, NULL};
	PbStatus st = PbReconstructCpu(&c->marker, &c->mask, c->a->conn, c->a->op, &run);

	(void) index;
	if (st != PB_OK)
		snprintf(err, len, "PbReconstructCpu status %d", (int) st);
	return st == PB_OK ? 0 : -1;
}

/*
 * The GPU context of the run (--budget-mb), opened on the first GPU run
 * (the warm-up); NULL with the reason in err.
 */
static PbGpu *
BenchGpu(const Args *a, char *err, size_t len)
{
	static PbGpu *g;

	if (g == NULL)
		g = PbGpuOpen(a->budget, 0, err, len);
	return g;
}

/* PbGpuReconstruct on the working marker, keeping the run's statistics. */
static int
ReconGpu(void *p, int index, char *err, size_t len)
{
	ReconCtx   *c = p;
	PbGpu	   *g = BenchGpu(c->a, err, len);

	memset(&c->stats[index], 0, sizeof(c->stats[index]));
	return g != NULL && PbGpuReconstruct(g, &c->marker, &c->mask, c->a->conn, c->a->op,
										 NULL, NULL, &c->stats[index], err, len) == 0 ? 0 : -1;
}

/* The recon command: CPU and GPU reconstruction of one marker and mask. */
static void
BenchRecon(const Args *a)
{
	size_t		n = (size_t) a->width * a->height;
	ReconCtx	c;
	Timed		t = {ReconReset, NULL, &c};
	double		ms;
	int			index;

	if (a->mask == NULL || a->marker == NULL)
		Die("recon needs --mask and --marker", NULL);
	memset(&c, 0, sizeof(c));
	c.a = a;
	c.marker0 = ReadRaw(a->marker, n);
	c.mask = (PbImage) {a->width, a->height, PB_PIX_8BUI, ReadRaw(a->mask, n)};
	c.marker = (PbImage) {a->width, a->height, PB_PIX_8BUI, Alloc(n)};
	if (a->cpu)
	{
		t.run = ReconCpu;
		if (Measure(&t, "cpu", &ms, &index) == 0)
		{
			printf("cpu_ms %.3f\n", ms);
			WriteRaw(a->out_cpu, c.marker.data, n);
		}
	}
	if (a->gpu)
	{
		t.run = ReconGpu;
		if (Measure(&t, "gpu", &ms, &index) == 0)
		{
			printf("gpu_ms %.3f\n", ms);
			PrintGpuStats("gpu", &c.stats[index]);
			WriteRaw(a->out_gpu, c.marker.data, n);
		}
	}
	free((void *) c.marker0);
	free(c.mask.data);
	free(c.marker.data);
}

/* ---- distance transform ------------------------------------------------ */

/* A distance transform run: the foreground mask and the output. */
typedef struct EdtCtx
{
	const Args *a;
	const uint8_t *fg;
	float	   *dist;
	PbRasterGpuStats stats[BENCH_RUNS + 1];
} EdtCtx;

/* Clear the output (so a run cannot pass on an earlier run's result). */
static void
EdtReset(void *p)
{
	EdtCtx	   *c = p;

	memset(c->dist, 0xff, sizeof(float) * c->a->width * c->a->height);
}

/* PbDistanceCpu, unit spacing, no nearest pixels. */
static int
EdtCpu(void *p, int index, char *err, size_t len)
{
	EdtCtx	   *c = p;
	PbRun run = {c->a->threads, 0, NULL, NULL};
	PbStatus st = PbDistanceCpu(c->fg, c->a->width, c->a->height, 1.0, 1.0,
									  c->dist, NULL, &run);

	(void) index;
	if (st != PB_OK)
		snprintf(err, len, "PbDistanceCpu status %d", (int) st);
	return st == PB_OK ? 0 : -1;
}

/* PbGpuDistance, unit spacing, no nearest pixels, keeping the statistics. */
static int
EdtGpu(void *p, int index, char *err, size_t len)
{
	EdtCtx	   *c = p;
	PbGpu	   *g = BenchGpu(c->a, err, len);

	memset(&c->stats[index], 0, sizeof(c->stats[index]));
	return g != NULL && PbGpuDistance(g, c->fg, c->a->width, c->a->height, 1.0, 1.0, c->dist,
									  NULL, NULL, NULL, &c->stats[index], err, len) == 0 ? 0 : -1;
}

/* The edt command: CPU and GPU distance transform of one mask. */
static void
BenchEdt(const Args *a)
{
	size_t		n = (size_t) a->width * a->height;
	EdtCtx		c;
	Timed		t = {EdtReset, NULL, &c};
	double		ms;
	int			index;

	if (a->fg == NULL)
		Die("edt needs --fg", NULL);
	memset(&c, 0, sizeof(c));
	c.a = a;
	c.fg = ReadRaw(a->fg, n);
	c.dist = Alloc(sizeof(float) * n);
	if (a->cpu)
	{
		t.run = EdtCpu;
		if (Measure(&t, "cpu", &ms, &index) == 0)
		{
			printf("cpu_ms %.3f\n", ms);
			WriteRaw(a->out_cpu, c.dist, sizeof(float) * n);
		}
	}
	if (a->gpu)
	{
		t.run = EdtGpu;
		if (Measure(&t, "gpu", &ms, &index) == 0)
		{
			printf("gpu_ms %.3f\n", ms);
			PrintGpuStats("gpu", &c.stats[index]);
			WriteRaw(a->out_gpu, c.dist, sizeof(float) * n);
		}
	}
	free((void *) c.fg);
	free(c.dist);
}

/* ---- NVIDIA NPP -------------------------------------------------------- */

#ifdef PB_BENCH_CUDA

/*
 * NPP's types, declared here (as in nppdefs.h of CUDA 11-13) so that no NPP
 * header is needed to build: NppiSize, NppStreamContext, and the two entry
 * points; NppStatus is an int (0 = NPP_SUCCESS, < 0 errors).
 */
typedef struct NppSize
{
	int			width;
	int			height;
} NppSize;

typedef struct NppStreamCtx
{
	cudaStream_t hStream;
	int			nCudaDeviceId;
	int			nMultiProcessorCount;
	int			nMaxThreadsPerMultiProcessor;
	int			nMaxThreadsPerBlock;
	size_t		nSharedMemPerBlock;
	int			nCudaDevAttrComputeCapabilityMajor;
	int			nCudaDevAttrComputeCapabilityMinor;
	unsigned int nStreamFlags;
	int			nReserved0;
} NppStreamCtx;

typedef int (*NppEdtBufferSizeFn) (NppSize roi, size_t *bytes);
typedef int (*NppEdtFn) (uint8_t *src, int src_step, uint8_t min_site, uint8_t max_site,
						 int16_t *voronoi, int voronoi_step,
						 int16_t *voronoi_indices, int voronoi_indices_step,
						 int16_t *voronoi_manhattan, int voronoi_manhattan_step,
						 float *transform, int transform_step, NppSize roi,
						 uint8_t *buffer, NppStreamCtx ctx);

/* An NPP run: the host mask and result, the device buffers, the library. */
typedef struct NppCtx
{
	const Args *a;
	const uint8_t *fg;
	float	   *dist;
	uint8_t    *d_src;
	float	   *d_dst;
	uint8_t    *d_buf;
	NppEdtFn	edt;
	NppStreamCtx sctx;
	cudaEvent_t ev0;
	cudaEvent_t ev1;
	int			with_copies;	/* time the copies too (else device-resident) */
	float		kernel_ms[BENCH_RUNS + 1];
} NppCtx;

/* Put a CUDA error in err; returns -1. */
static int
CudaErr(const char *what, cudaError_t e, char *err, size_t len)
{
	snprintf(err, len, "%s: %s", what, cudaGetErrorString(e));
	return -1;
}

/*
 * Load NPP's image filtering library: the path given (after its core
 * library libnppc from the same folder, which it needs), else the usual
 * sonames on the loader's path.  Returns the handle or NULL with a reason.
 */
static void *
NppOpen(const char *path, char *err, size_t len)
{
	static const char *const names[] = {"libnppif.so.13", "libnppif.so.12", "libnppif.so.11",
	"libnppif.so"};
	void	   *h = NULL;

	if (path != NULL && path[0] != '\0')
	{
		const char *base = strrchr(path, '/');
		const char *at = strstr(base ? base : path, "libnppif");

		if (at != NULL)
		{
			char		core[4096];

			/* the same name with "nppif" -> "nppc", in the same folder */
			snprintf(core, sizeof(core), "%.*slibnppc%s", (int) (at - path), path,
					 at + strlen("libnppif"));
			dlopen(core, RTLD_NOW | RTLD_GLOBAL);
		}
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	}
	for (size_t i = 0; h == NULL && (path == NULL || path[0] == '\0') &&
		 i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
	{
		const char *why = dlerror();

		snprintf(err, len, "cannot load NPP (%s)", why ? why : "libnppif not found");
	}
	return h;
}

/* Fill an NPP stream context for the legacy default stream of the device. */
static int
NppContext(NppStreamCtx *s, char *err, size_t len)
{
	cudaError_t e;
	int			v;

	memset(s, 0, sizeof(*s));
	if ((e = cudaGetDevice(&s->nCudaDeviceId)) != cudaSuccess)
		return CudaErr("cudaGetDevice", e, err, len);
	if ((e = cudaDeviceGetAttribute(&s->nMultiProcessorCount, cudaDevAttrMultiProcessorCount,
									s->nCudaDeviceId)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&s->nMaxThreadsPerMultiProcessor,
									cudaDevAttrMaxThreadsPerMultiProcessor,
									s->nCudaDeviceId)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&s->nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock,
									s->nCudaDeviceId)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock,
									s->nCudaDeviceId)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&s->nCudaDevAttrComputeCapabilityMajor,
									cudaDevAttrComputeCapabilityMajor,
									s->nCudaDeviceId)) != cudaSuccess ||
		(e = cudaDeviceGetAttribute(&s->nCudaDevAttrComputeCapabilityMinor,
									cudaDevAttrComputeCapabilityMinor,
									s->nCudaDeviceId)) != cudaSuccess)
		return CudaErr("cudaDeviceGetAttribute", e, err, len);
	s->nSharedMemPerBlock = (size_t) v;
	return 0;
}

/* Nothing to reset: every run overwrites the whole output. */
static void
NppReset(void *p)
{
	(void) p;
}

/*
 * One NPP run: the kernel alone, timed by events (device-resident data),
 * or with the copies from and to pageable host memory around it.
 */
static int
NppRun(void *p, int index, char *err, size_t len)
{
	NppCtx	   *c = p;
	size_t		n = (size_t) c->a->width * c->a->height;
	NppSize		roi = {c->a->width, c->a->height};
	cudaError_t e;
	int			st;

	if (c->with_copies &&
		(e = cudaMemcpy(c->d_src, c->fg, n, cudaMemcpyHostToDevice)) != cudaSuccess)
		return CudaErr("cudaMemcpy to the device", e, err, len);
	cudaEventRecord(c->ev0, 0);
	st = c->edt(c->d_src, c->a->width, 0, 0, NULL, 0, NULL, 0, NULL, 0,
				c->d_dst, (int) (sizeof(float) * c->a->width), roi, c->d_buf, c->sctx);
	cudaEventRecord(c->ev1, 0);
	if (st != 0)
	{
		snprintf(err, len, "nppiDistanceTransformPBA_8u32f_C1R_Ctx status %d", st);
		return -1;
	}
	if ((e = cudaEventSynchronize(c->ev1)) != cudaSuccess)
		return CudaErr("NPP kernel", e, err, len);
	cudaEventElapsedTime(&c->kernel_ms[index], c->ev0, c->ev1);
	if (c->with_copies &&
		(e = cudaMemcpy(c->dist, c->d_dst, sizeof(float) * n, cudaMemcpyDeviceToHost)) != cudaSuccess)
		return CudaErr("cudaMemcpy from the device", e, err, len);
	return 0;
}

/* Set up NPP and the device buffers; 0, or -1 with a reason. */
static int
NppSetup(NppCtx *c, char *err, size_t len)
{
	size_t		n = (size_t) c->a->width * c->a->height;
	NppSize		roi = {c->a->width, c->a->height};
	size_t		buf_bytes = 0;
	void	   *lib = NppOpen(c->a->lib, err, len);
	NppEdtBufferSizeFn bufsize;
	cudaError_t e;
	int			st;

	if (lib == NULL)
		return -1;
	bufsize = (NppEdtBufferSizeFn) dlsym(lib, "nppiDistanceTransformPBAGetBufferSize");
	c->edt = (NppEdtFn) dlsym(lib, "nppiDistanceTransformPBA_8u32f_C1R_Ctx");
	if (bufsize == NULL || c->edt == NULL)
	{
		snprintf(err, len, "NPP has no nppiDistanceTransformPBA_8u32f_C1R_Ctx");
		return -1;
	}
	if ((st = bufsize(roi, &buf_bytes)) != 0)
	{
		snprintf(err, len, "nppiDistanceTransformPBAGetBufferSize status %d", st);
		return -1;
	}
	if (NppContext(&c->sctx, err, len) != 0)
		return -1;
	if ((e = cudaMalloc((void **) &c->d_src, n)) != cudaSuccess ||
		(e = cudaMalloc((void **) &c->d_dst, sizeof(float) * n)) != cudaSuccess ||
		(e = cudaMalloc((void **) &c->d_buf, buf_bytes ? buf_bytes : 1)) != cudaSuccess)
		return CudaErr("cudaMalloc", e, err, len);
	if ((e = cudaEventCreate(&c->ev0)) != cudaSuccess ||
		(e = cudaEventCreate(&c->ev1)) != cudaSuccess)
		return CudaErr("cudaEventCreate", e, err, len);
	if ((e = cudaMemcpy(c->d_src, c->fg, n, cudaMemcpyHostToDevice)) != cudaSuccess)
		return CudaErr("cudaMemcpy to the device", e, err, len);
	printf("npp_buffer_bytes %zu\n", buf_bytes);
	return 0;
}

/*
 * The npp command: NPP's exact distance transform (sites: the zero
 * pixels), device-resident and with copies; writes the with-copies result.
 */
static void
BenchNpp(const Args *a)
{
	size_t		n = (size_t) a->width * a->height;
	NppCtx		c;
	Timed		t = {NppReset, NppRun, &c};
	char		err[512];
	double		ms;
	int			index;

	if (a->fg == NULL)
		Die("npp needs --fg", NULL);
	memset(&c, 0, sizeof(c));
	c.a = a;
	c.fg = ReadRaw(a->fg, n);
	c.dist = Alloc(sizeof(float) * n);
	if (NppSetup(&c, err, sizeof(err)) != 0)
		printf("npp_error %s\n", err);
	else
	{
		c.with_copies = 0;
		if (Measure(&t, "npp_device", &ms, &index) == 0)
			printf("npp_kernel_ms %.3f\nnpp_device_wall_ms %.3f\n", c.kernel_ms[index], ms);
		c.with_copies = 1;
		if (Measure(&t, "npp_total", &ms, &index) == 0)
		{
			printf("npp_total_ms %.3f\n", ms);
			WriteRaw(a->out_cpu, c.dist, sizeof(float) * n);
		}
	}
	cudaFree(c.d_src);
	cudaFree(c.d_dst);
	cudaFree(c.d_buf);
	free((void *) c.fg);
	free(c.dist);
}

#else

/* The npp command in a build without CUDA: nothing to run. */
static void
BenchNpp(const Args *a)
{
	(void) a;
	printf("npp_error benchmark built without CUDA (no nvcc)\n");
}

#endif							/* PB_BENCH_CUDA */

/* ---- command line ------------------------------------------------------ */

/* Parse the command line into a (exits on errors). */
static void
ParseArgs(int argc, char **argv, Args *a)
{
	memset(a, 0, sizeof(*a));
	a->conn = 8;
	a->threads = 1;
	a->budget = (size_t) 16384 << 20;
	a->cpu = a->gpu = 1;
	a->op = PB_RECON_DILATE;
	if (argc < 2)
		Die("usage: bench_raster recon|edt|npp --width W --height H ... (see bench_raster.c)", NULL);
	a->cmd = argv[1];
	for (int i = 2; i < argc; i++)
	{
		const char *k = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(k, "--no-cpu") == 0)
			a->cpu = 0;
		else if (strcmp(k, "--no-gpu") == 0)
			a->gpu = 0;
		else if (v == NULL)
			Die("option without a value", k);
		else
		{
			i++;
			if (strcmp(k, "--width") == 0)
				a->width = atoi(v);
			else if (strcmp(k, "--height") == 0)
				a->height = atoi(v);
			else if (strcmp(k, "--mask") == 0)
				a->mask = v;
			else if (strcmp(k, "--marker") == 0)
				a->marker = v;
			else if (strcmp(k, "--fg") == 0)
				a->fg = v;
			else if (strcmp(k, "--lib") == 0)
				a->lib = v;
			else if (strcmp(k, "--out-cpu") == 0 || strcmp(k, "--out") == 0)
				a->out_cpu = v;
			else if (strcmp(k, "--out-gpu") == 0)
				a->out_gpu = v;
			else if (strcmp(k, "--conn") == 0)
				a->conn = atoi(v);
			else if (strcmp(k, "--threads") == 0)
				a->threads = atoi(v) > 0 ? atoi(v) : 1;
			else if (strcmp(k, "--budget-mb") == 0)
				a->budget = (size_t) strtoull(v, NULL, 10) << 20;
			else if (strcmp(k, "--op") == 0 && strcmp(v, "dilate") == 0)
				a->op = PB_RECON_DILATE;
			else if (strcmp(k, "--op") == 0 && strcmp(v, "erode") == 0)
				a->op = PB_RECON_ERODE;
			else
				Die("unknown option or value", k);
		}
	}
	if (a->width <= 0 || a->height <= 0)
		Die("--width and --height must be positive", NULL);
}

int
main(int argc, char **argv)
{
	Args		a;

	ParseArgs(argc, argv, &a);
	printf("threads %d\nbudget_mb %zu\n", a.threads, a.budget >> 20);
	fflush(stdout);
	if (strcmp(a.cmd, "recon") == 0)
		BenchRecon(&a);
	else if (strcmp(a.cmd, "edt") == 0)
		BenchEdt(&a);
	else if (strcmp(a.cmd, "npp") == 0)
		BenchNpp(&a);
	else
		Die("unknown command", a.cmd);
	return 0;
}
