/*
 * bench_watershed.c: the C side of bench/run-watershed-bench.  Makes the
 * benchmark's images, times pixelbox's watershed (CPU threads, the GPU's
 * block-asynchronous automaton and its synchronous baseline) and NVIDIA
 * NPP's marker-less watershed, checks our three results against each other
 * and measures how far a peer's labels agree with ours.  Images pass
 * through raw files; figures are printed as "key value" lines.
 *
 *   bench/bench_watershed prep  --width W --height H --heights F --markers F
 *                               [--seed S] [--h H] [--scale K] [--threads N]
 *   bench/bench_watershed ws    --width W --height H --heights F [--markers F]
 *                               [--conn 8] [--threads N] [--tile T] [--budget-mb M]
 *                               [--cap-s S] [--no-cpu] [--no-gpu] [--sync]
 *                               [--ref F] [--out F]
 *   bench/bench_watershed npp   --width W --height H --heights F [--lib PATH] [--out F]
 *   bench/bench_watershed agree --width W --height H --ref F --peer F [--skip-negative]
 *
 * prep draws a synthetic nuclei mask (random ellipses, radii 5-20 px, about
 * 1.6e-3 nuclei per pixel, so that many touch), takes its exact Euclidean
 * distance transform (PbDistanceCpu), quantizes it as q = min(255,
 * round(scale * distance)) and writes the heights 255 - q (uint8: the
 * inverted distance transform, the usual input for splitting nuclei) and
 * the markers (uint32): the h-maxima of q (q - R(q - h) >= h, R the
 * reconstruction by dilation under q, as scikit-image's h_maxima),
 * 8-connected components numbered 1..K in row-major order of their first
 * pixel, and the background (q = 0) as one more marker, K + 1.
 *
 * ws times PbWatershedCpuIn (--threads; --tile sets the side of its tiles,
 * default the core's; its scratch on transparent huge pages, as the server
 * allocates it) and PbGpuWatershed (block-asynchronous; with --sync,
 * only PbGpuWatershedTestSync's synchronous automaton) on the heights,
 * marker-controlled when --markers is given.
 * "<method>_ms" is the whole call from host memory to host memory;
 * "cpu_phases_s" the CPU's phases in that median run (PbWsHybridStats);
 * "<method>_kernel_ms" and the other GPU statistics are that median run's
 * own.  The reference labels are --ref, else the CPU's; every other result
 * is compared with them ("<method>_same yes" or "no N px").  --out writes
 * the reference.  --cap-s stops a GPU run that takes longer (through the
 * poll callback; "<method>_error capped ...").
 *
 * npp times nppiSegmentWatershed_8u_C1IR_Ctx (8-way, marker-less: NPP has
 * no markers), loaded with dlopen from the NPP library that exports it, so
 * the benchmark builds and runs without NPP: on device-resident data by
 * CUDA events ("npp_kernel_ms") and from pageable host memory with the
 * copies of the image in and the labels out ("npp_total_ms"); --out gets
 * its labels.  It is a separate command so that a failing NPP cannot take
 * the other measurements down with it.
 *
 * agree compares a peer's labels (uint32 or int32) with ours: the share of
 * equal labels (peers given our markers keep their numbers), and the share
 * of pixels in label pairs matched one to one, each label the other's
 * majority (Boyer-Moore), for peers that number basins their own way.
 * --skip-negative leaves out the peer's -1 pixels (OpenCV's boundaries).
 *
 * Timing: one warm-up run, then the median of 3 runs; a warm-up that took
 * over 5 s is the measurement (1 run).  Outputs are poisoned between runs,
 * outside the timed region.  A failing method prints "<method>_error
 * reason" instead of its time.
 *
 * The helpers up to Measure and the NPP loading follow bench_raster.c.
 */
#define _DEFAULT_SOURCE			/* MADV_HUGEPAGE, with POSIX.1-2008 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../cuda/pb_raster_gpu.h"
#include "../src/core/raster/pb_raster.h"

#ifdef PB_BENCH_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "../cuda/pb_raster_gpu_test.h"
#endif

#define BENCH_RUNS 3			/* timed runs after the warm-up */
#define BENCH_SLOW_MS 5000.0	/* a warm-up slower than this is the measurement */
#define NUCLEI_DENSITY 1.6e-3	/* nuclei per pixel, as run-raster-bench's tissue */

/* What one benchmark invocation was asked to do. */
typedef struct Args
{
	const char *cmd;
	int32_t		width;
	int32_t		height;
	const char *heights;
	const char *markers;
	const char *ref;
	const char *peer;
	const char *lib;
	const char *out;
	uint64_t	seed;
	int			h;
	double		scale;
	int			conn;
	int			threads;
	int			tile;
	size_t		budget;
	double		cap_ms;
	int			cpu;
	int			gpu;
	int			sync;
	int			skip_negative;
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

/* Print a message and exit with status 2 (bad arguments, I/O or memory). */
static void
Die(const char *what, const char *detail)
{
	fprintf(stderr, "bench_watershed: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(2);
}

/* malloc that exits on failure. */
static void *
Alloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		Die("out of host memory", NULL);
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
	printf("%s_tiles %d\n%s_rounds %d\n", key, s->tiles, key, s->rounds);
	printf("%s_kernel_ms %.3f\n%s_transfer_ms %.3f\n", key, s->kernel_ms, key, s->transfer_ms);
}

/* ---- prep: the synthetic nuclei, heights and markers ------------------- */

/* One step of splitmix64: a small generator that gives the same stream everywhere. */
static uint64_t
SplitMix(uint64_t *state)
{
	uint64_t	z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* A uniform double in [lo, hi) from the generator. */
static double
Uniform(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * (double) (SplitMix(state) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Set fg to 1 inside count random ellipses (centre uniform over the image,
 * semi-axes a in [5, 20) and a * [0.6, 1), any orientation), 0 elsewhere.
 */
static void
DrawNuclei(uint8_t *fg, int32_t w, int32_t h, uint64_t seed, int64_t count)
{
	uint64_t	s = seed;

	memset(fg, 0, (size_t) w * h);
	for (int64_t i = 0; i < count; i++)
	{
		double		cy = Uniform(&s, 0, h);
		double		cx = Uniform(&s, 0, w);
		double		ra = Uniform(&s, 5, 20);
		double		rb = ra * Uniform(&s, 0.6, 1.0);
		double		th = Uniform(&s, 0, 3.14159265358979323846);
		double		c = cos(th),
					sn = sin(th);
		int32_t		y0 = (int32_t) fmax(0, floor(cy - ra)),
					y1 = (int32_t) fmin(h - 1, ceil(cy + ra));
		int32_t		x0 = (int32_t) fmax(0, floor(cx - ra)),
					x1 = (int32_t) fmin(w - 1, ceil(cx + ra));

		for (int32_t y = y0; y <= y1; y++)
			for (int32_t x = x0; x <= x1; x++)
			{
				double		dy = y - cy,
							dx = x - cx;
				double		u = (dx * c + dy * sn) / ra,
							v = (dy * c - dx * sn) / rb;

				if (u * u + v * v <= 1.0)
					fg[(size_t) y * w + x] = 1;
			}
	}
}

/*
 * Number the 8-connected components of the pixels of m equal to cand
 * 1, 2, ... in row-major order of their first pixel; returns the count.
 */
static uint32_t
LabelComponents(uint32_t *m, int32_t w, int32_t h, uint32_t cand)
{
	size_t		n = (size_t) w * h;
	size_t		cap = 1 << 16;
	size_t	   *stack = Alloc(cap * sizeof(size_t));
	uint32_t	next = 0;

	for (size_t i = 0; i < n; i++)
	{
		size_t		top = 0;

		if (m[i] != cand)
			continue;
		m[i] = ++next;
		stack[top++] = i;
		while (top > 0)
		{
			size_t		p = stack[--top];
			int32_t		py = (int32_t) (p / w),
						px = (int32_t) (p % w);

			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++)
				{
					int32_t		y = py + dy,
								x = px + dx;
					size_t		q;

					if (y < 0 || y >= h || x < 0 || x >= w)
						continue;
					q = (size_t) y * w + x;
					if (m[q] != cand)
						continue;
					m[q] = next;
					if (top == cap)
					{
						cap *= 2;
						stack = realloc(stack, cap * sizeof(size_t));
						if (stack == NULL)
							Die("out of host memory", NULL);
					}
					stack[top++] = q;
				}
		}
	}
	free(stack);
	return next;
}

/* The prep command: nuclei, inverted distance transform, h-maxima markers. */
static void
BenchPrep(const Args *a)
{
	size_t		n = (size_t) a->width * a->height;
	int64_t		count = (int64_t) ((double) n * NUCLEI_DENSITY);
	PbRun run = {a->threads, 0, NULL, NULL};
	uint8_t    *q = Alloc(n);
	uint8_t    *rec = Alloc(n);
	float	   *dist = Alloc(sizeof(float) * n);
	uint32_t   *markers = Alloc(sizeof(uint32_t) * n);
	PbImage		marker = {a->width, a->height, PB_PIX_8BUI, rec};
	PbImage		mask = {a->width, a->height, PB_PIX_8BUI, q};
	uint32_t	k;
	size_t		fg = 0;
	double		t0 = NowMs();

	if (a->heights == NULL || a->markers == NULL)
		Die("prep needs --heights and --markers", NULL);
	if (a->h < 1 || a->scale <= 0)
		Die("prep needs --h >= 1 and --scale > 0", NULL);
	DrawNuclei(q, a->width, a->height, a->seed, count);
	if (PbDistanceCpu(q, a->width, a->height, 1.0, 1.0, dist, NULL, &run) != PB_OK)
		Die("PbDistanceCpu failed", NULL);
	for (size_t i = 0; i < n; i++)
	{
		q[i] = (uint8_t) fminf(255.0f, rintf(dist[i] * (float) a->scale));
		rec[i] = q[i] > a->h ? (uint8_t) (q[i] - a->h) : 0;
		fg += dist[i] > 0;
	}
	free(dist);
	if (PbReconstructCpu(&marker, &mask, 8, PB_RECON_DILATE, &run) != PB_OK)
		Die("PbReconstructCpu failed", NULL);
	for (size_t i = 0; i < n; i++)
		markers[i] = (q[i] > 0 && q[i] - rec[i] >= a->h) ? UINT32_MAX : 0;
	k = LabelComponents(markers, a->width, a->height, UINT32_MAX);
	for (size_t i = 0; i < n; i++)
	{
		if (q[i] == 0)
			markers[i] = k + 1;
		q[i] = (uint8_t) (255 - q[i]);
	}
	printf("nuclei %lld\nfg_pct %.2f\nmarkers %u\nprep_ms %.1f\n", (long long) count,
		   100.0 * fg / n, k, NowMs() - t0);
	WriteRaw(a->heights, q, n);
	WriteRaw(a->markers, markers, sizeof(uint32_t) * n);
	free(q);
	free(rec);
	free(markers);
}

/* ---- ws: ours on the CPU and the GPU ----------------------------------- */

/* A watershed run: the spec, the output, the time cap, the GPU statistics. */
typedef struct WsCtx
{
	const Args *a;
	PbWatershedSpec spec;
	uint32_t   *labels;
	double		deadline;		/* NowMs() past which poll stops a GPU run; 0: none */
	int			capped;			/* poll stopped the last run */
	PbRasterGpuStats stats[BENCH_RUNS + 1];
	PbWsHybridStats phases[BENCH_RUNS + 1];	/* the CPU runs' phases */
} WsCtx;

/* Poison the output (a run must write every pixel) and restart the clock of the cap. */
static void
WsReset(void *p)
{
	WsCtx	   *c = p;

	memset(c->labels, 0xA5, sizeof(uint32_t) * c->a->width * c->a->height);
	c->deadline = c->a->cap_ms > 0 ? NowMs() + c->a->cap_ms : 0;
	c->capped = 0;
}

/* Stop a GPU run once it has passed the cap. */
static int
WsPoll(void *p)
{
	WsCtx	   *c = p;

	if (c->deadline > 0 && NowMs() > c->deadline)
		c->capped = 1;
	return c->capped;
}

/*
 * The CPU watershed's scratch as the server allocates it: on transparent
 * huge pages (image_memory.c), so that first touches fault once per 2 MB,
 * not once per 4 KB, and the phases are timed as they run in a backend.
 */
static void *
HugeScratchAlloc(void *ctx, size_t size)
{
	size_t		huge = (size_t) 2 << 20;
	size_t		round = (size + huge - 1) / huge * huge;
	void	   *p = aligned_alloc(huge, round ? round : huge);

	(void) ctx;
#ifdef MADV_HUGEPAGE
	if (p != NULL)
		(void) madvise(p, round, MADV_HUGEPAGE);
#endif
	return p;
}

/* Free scratch of HugeScratchAlloc. */
static void
HugeScratchFree(void *ctx, void *p)
{
	(void) ctx;
	free(p);
}

/*
 * The CPU watershed into the output, its scratch on huge pages: through
 * PbWatershedHybrid with no device, the same run as PbWatershedCpuIn's,
 * so that its phases are timed.
 */
static int
WsCpu(void *p, int index, char *err, size_t len)
{
	WsCtx	   *c = p;
	PbRun run = {c->a->threads, c->a->tile, NULL, NULL};
	PbAllocator scratch = {HugeScratchAlloc, NULL, HugeScratchFree, NULL, NULL};
	PbStatus st = PbWatershedHybrid(&c->spec, c->labels, &run, &scratch, NULL, 0,
									&c->phases[index]);

	if (st != PB_OK)
		snprintf(err, len, "PbWatershedCpu status %d%s", (int) st,
				 st == PB_ERR_NOMEM ? " (out of host memory)" : "");
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

/* PbGpuWatershed into the output, keeping the run's statistics. */
static int
WsGpu(void *p, int index, char *err, size_t len)
{
	WsCtx	   *c = p;
	PbGpu	   *g = BenchGpu(c->a, err, len);

	memset(&c->stats[index], 0, sizeof(c->stats[index]));
	if (g == NULL)
		return -1;
	if (PbGpuWatershed(g, &c->spec, c->labels, NULL, WsPoll, c, &c->stats[index], err, len) == 0)
		return 0;
	if (c->capped)
		snprintf(err, len, "capped at %.0f s", c->a->cap_ms / 1e3);
	return -1;
}

/* Pixels where two label images differ. */
static size_t
CountDiff(const uint32_t *x, const uint32_t *y, size_t n)
{
	size_t		d = 0;

	for (size_t i = 0; i < n; i++)
		d += x[i] != y[i];
	return d;
}

/*
 * Time one method under key into c->labels; the first result becomes the
 * reference (*ref, and c->labels a new buffer), later ones are compared
 * with it.
 */
static void
WsMethod(WsCtx *c, const char *key, int (*fn) (void *, int, char *, size_t),
		 uint32_t **ref, int gpu)
{
	size_t		n = (size_t) c->a->width * c->a->height;
	Timed		t = {WsReset, fn, c};
	double		ms;
	int			index;

	if (Measure(&t, key, &ms, &index) != 0)
		return;
	printf("%s_ms %.3f\n", key, ms);
	if (gpu)
		PrintGpuStats(key, &c->stats[index]);
	else
		printf("%s_phases_s init %.3f keys %.3f pointers %.3f minima %.3f labels %.3f\n", key,
			   c->phases[index].init_s, c->phases[index].keys_s, c->phases[index].pointers_s,
			   c->phases[index].minima_s, c->phases[index].labels_s);
	if (*ref == NULL)
	{
		*ref = c->labels;
		c->labels = Alloc(sizeof(uint32_t) * n);
		printf("%s_same (reference)\n", key);
	}
	else
	{
		size_t		d = CountDiff(*ref, c->labels, n);

		if (d == 0)
			printf("%s_same yes\n", key);
		else
			printf("%s_same no %zu px\n", key, d);
	}
	fflush(stdout);
}

/* The ws command: the methods asked for on one image (and markers). */
static void
BenchWs(const Args *a)
{
	size_t		n = (size_t) a->width * a->height;
	WsCtx		c;
	uint32_t   *ref = NULL;
	PbStatus st;

	if (a->heights == NULL)
		Die("ws needs --heights", NULL);
	memset(&c, 0, sizeof(c));
	c.a = a;
	c.spec.image = (PbImage) {a->width, a->height, PB_PIX_8BUI, ReadRaw(a->heights, n)};
	c.spec.markers = a->markers ? ReadRaw(a->markers, sizeof(uint32_t) * n) : NULL;
	c.spec.connectivity = a->conn;
	if ((st = PbWatershedCheck(&c.spec)) != PB_OK)
		Die("PbWatershedCheck rejects the input", NULL);
	if (a->ref != NULL)
		ref = ReadRaw(a->ref, sizeof(uint32_t) * n);
	c.labels = Alloc(sizeof(uint32_t) * n);
	if (a->cpu)
		WsMethod(&c, "cpu", WsCpu, &ref, 0);
	if (a->gpu)
		WsMethod(&c, "gpu", WsGpu, &ref, 1);
	if (a->sync)
	{
#ifdef PB_BENCH_CUDA
		PbGpuWatershedTestSync(1);
		WsMethod(&c, "sync", WsGpu, &ref, 1);
		PbGpuWatershedTestSync(0);
#else
		printf("sync_error benchmark built without CUDA (no nvcc)\n");
#endif
	}
	if (ref != NULL)
	{
		uint32_t	max = 0;
		size_t		zero = 0;

		for (size_t i = 0; i < n; i++)
		{
			max = ref[i] > max ? ref[i] : max;
			zero += ref[i] == 0;
		}
		printf("labels_max %u\nlabels_zero %zu\n", max, zero);
		if (a->ref == NULL)
			WriteRaw(a->out, ref, sizeof(uint32_t) * n);
	}
	free(c.spec.image.data);
	free((void *) c.spec.markers);
	free(c.labels);
	free(ref);
}

/* ---- agree: a peer's labels against ours -------------------------------- */

/*
 * For every label a of from (0..amax), the majority label of to among its
 * pixels, by Boyer-Moore voting: cand[a] is that label whenever one holds
 * more than half of them.  Pixels where skip[i] are left out.
 */
static uint32_t *
MajorityOf(const uint32_t *from, uint32_t amax, const uint32_t *to, const uint8_t *skip, size_t n)
{
	uint32_t   *cand = Alloc(sizeof(uint32_t) * ((size_t) amax + 1));
	uint32_t   *votes = calloc((size_t) amax + 1, sizeof(uint32_t));

	if (votes == NULL)
		Die("out of host memory", NULL);
	for (size_t i = 0; i < n; i++)
	{
		uint32_t	x = from[i];

		if (skip[i])
			continue;
		if (votes[x] == 0)
		{
			cand[x] = to[i];
			votes[x] = 1;
		}
		else if (cand[x] == to[i])
			votes[x]++;
		else
			votes[x]--;
	}
	for (size_t x = 0; x <= amax; x++)
		if (votes[x] == 0)
			cand[x] = UINT32_MAX;	/* no candidate: matches nothing */
	free(votes);
	return cand;
}

/*
 * Renumber the labels of l (outside skip) 0, 1, ... in order of first
 * appearance, through a hash table of the values: for peers whose label
 * values run above the pixel count.  Returns the largest new label.
 */
static uint32_t
Compact(uint32_t *l, const uint8_t *skip, size_t n)
{
	int			bits = 1;
	size_t		cap;
	uint32_t   *keys,
			   *vals;			/* new label + 1; 0: empty slot */
	uint32_t	next = 0;

	while (((size_t) 1 << bits) < 2 * n)
		bits++;
	cap = (size_t) 1 << bits;
	keys = Alloc(sizeof(uint32_t) * cap);
	vals = calloc(cap, sizeof(uint32_t));
	if (vals == NULL)
		Die("out of host memory", NULL);
	for (size_t i = 0; i < n; i++)
	{
		size_t		h;

		if (skip[i])
			continue;
		h = (size_t) (((uint64_t) l[i] * 0x9E3779B97F4A7C15ull) >> (64 - bits));
		while (vals[h] != 0 && keys[h] != l[i])
			h = (h + 1) & (cap - 1);
		if (vals[h] == 0)
		{
			keys[h] = l[i];
			vals[h] = ++next;
		}
		l[i] = vals[h] - 1;
	}
	free(keys);
	free(vals);
	return next ? next - 1 : 0;
}

/* The agree command: equal labels, and labels matched one to one, in %. */
static void
BenchAgree(const Args *a)
{
	size_t		n = (size_t) a->width * a->height;
	uint32_t   *ours,
			   *peer,
			   *ours_to_peer,
			   *peer_to_ours;
	uint8_t    *skip;
	uint32_t	omax = 0,
				pmax = 0;
	size_t		used = 0,
				equal = 0,
				matched = 0;

	if (a->ref == NULL || a->peer == NULL)
		Die("agree needs --ref and --peer", NULL);
	ours = ReadRaw(a->ref, sizeof(uint32_t) * n);
	peer = ReadRaw(a->peer, sizeof(uint32_t) * n);
	skip = Alloc(n);
	for (size_t i = 0; i < n; i++)
	{
		skip[i] = a->skip_negative && (int32_t) peer[i] < 0;
		if (skip[i])
			continue;
		used++;
		equal += ours[i] == peer[i];
		omax = ours[i] > omax ? ours[i] : omax;
		pmax = peer[i] > pmax ? peer[i] : pmax;
	}
	if ((size_t) omax > n)
		omax = Compact(ours, skip, n);
	if ((size_t) pmax > n)
		pmax = Compact(peer, skip, n);
	ours_to_peer = MajorityOf(ours, omax, peer, skip, n);
	peer_to_ours = MajorityOf(peer, pmax, ours, skip, n);
	for (size_t i = 0; i < n; i++)
		matched += !skip[i] && ours_to_peer[ours[i]] == peer[i] &&
			peer_to_ours[peer[i]] == ours[i];
	printf("agree_skipped %zu\nagree_equal_pct %.3f\nagree_matched_pct %.3f\n", n - used,
		   used ? 100.0 * equal / used : 0.0, used ? 100.0 * matched / used : 0.0);
	free(ours), free(peer), free(skip), free(ours_to_peer), free(peer_to_ours);
}

/* ---- NVIDIA NPP -------------------------------------------------------- */

#ifdef PB_BENCH_CUDA

/*
 * NPP's types, declared here (as in nppdefs.h of CUDA 11-13) so that no NPP
 * header is needed to build: NppiSize, NppStreamContext, and the entry
 * points; NppStatus is an int (0 = NPP_SUCCESS, < 0 errors), NppiNorm and
 * NppiWatershedSegmentBoundaryType are ints.
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

#define NPP_NORM_INF 0			/* nppiNormInf: 8-way neighbours */
#define NPP_BOUNDARIES_NONE 0	/* NPP_WATERSHED_SEGMENT_BOUNDARIES_NONE */

/*
 * The buffer size query writes an int in the NPP of CUDA 11 and 12.1 and a
 * size_t in later ones: the caller passes a zeroed size_t, which reads the
 * same either way (little-endian, sizes below 2 GB for the int).
 */
typedef int (*NppWsBufferSizeFn) (NppSize roi, size_t *bytes);
typedef int (*NppWsFn) (uint8_t *src_dst, int src_dst_step, uint32_t *labels, int labels_step,
						int norm, int boundaries, NppSize roi, uint8_t *buffer,
						NppStreamCtx ctx);

/* An NPP run: the host image and labels, the device buffers, the entry point. */
typedef struct NppCtx
{
	const Args *a;
	const uint8_t *heights;
	uint32_t   *labels;
	uint8_t    *d_img;			/* the input, kept to restore d_src (NPP works in place) */
	uint8_t    *d_src;
	uint32_t   *d_labels;
	uint8_t    *d_buf;
	NppWsFn		ws;
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
 * Find nppiSegmentWatershed_8u_C1IR_Ctx: in the library at path (libnppif,
 * whose image filtering group holds it) or, failing that, in NPP's other
 * image libraries of the same folder (each after libnppc, their core), or
 * without a path in those sonames on the loader's path.  Returns the handle
 * that has it, with its name in *which, or NULL with a reason.
 */
static void *
NppOpen(const char *path, char *which, size_t which_len, char *err, size_t len)
{
	static const char *const parts[] = {"nppif", "nppist", "nppisu", "nppim", "nppitc",
	"nppial", "nppicc", "nppidei", "nppig"};
	static const char *const versions[] = {".so.13", ".so.12", ".so.11", ".so"};
	const char *base = path ? strrchr(path, '/') : NULL;
	const char *at = path ? strstr(base ? base : path, "libnppif") : NULL;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		for (size_t v = 0; v < (at ? 1 : sizeof(versions) / sizeof(versions[0])); v++)
		{
			char		core[4096],
						name[4096];
			void	   *h;

			if (at)				/* the same name with "nppif" -> part, in the same folder */
			{
				snprintf(core, sizeof(core), "%.*slibnppc%s", (int) (at - path), path,
						 at + strlen("libnppif"));
				snprintf(name, sizeof(name), "%.*slib%s%s", (int) (at - path), path, parts[i],
						 at + strlen("libnppif"));
			}
			else
			{
				snprintf(core, sizeof(core), "libnppc%s", versions[v]);
				snprintf(name, sizeof(name), "lib%s%s", parts[i], versions[v]);
			}
			dlopen(core, RTLD_NOW | RTLD_GLOBAL);
			h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
			if (h != NULL && dlsym(h, "nppiSegmentWatershed_8u_C1IR_Ctx") != NULL)
			{
				snprintf(which, which_len, "%s", name);
				return h;
			}
			if (h != NULL)
				dlclose(h);
		}
	snprintf(err, len, "no NPP library with nppiSegmentWatershed_8u_C1IR_Ctx found%s%s",
			 path && path[0] ? " beside " : "", path && path[0] ? path : "");
	return NULL;
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

/*
 * Before a run: poison the host labels and, for device-resident runs,
 * restore the image NPP overwrote (untimed).
 */
static void
NppReset(void *p)
{
	NppCtx	   *c = p;
	size_t		n = (size_t) c->a->width * c->a->height;

	memset(c->labels, 0xA5, sizeof(uint32_t) * n);
	if (!c->with_copies)
	{
		cudaMemcpy(c->d_src, c->d_img, n, cudaMemcpyDeviceToDevice);
		cudaDeviceSynchronize();
	}
}

/*
 * One NPP run: the kernel alone, timed by events (device-resident data),
 * or with the copy of the image in and of the labels out around it.
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
		(e = cudaMemcpy(c->d_src, c->heights, n, cudaMemcpyHostToDevice)) != cudaSuccess)
		return CudaErr("cudaMemcpy to the device", e, err, len);
	cudaEventRecord(c->ev0, 0);
	st = c->ws(c->d_src, c->a->width, c->d_labels, (int) (sizeof(uint32_t) * c->a->width),
			   NPP_NORM_INF, NPP_BOUNDARIES_NONE, roi, c->d_buf, c->sctx);
	cudaEventRecord(c->ev1, 0);
	if (st != 0)
	{
		snprintf(err, len, "nppiSegmentWatershed_8u_C1IR_Ctx status %d", st);
		return -1;
	}
	if ((e = cudaEventSynchronize(c->ev1)) != cudaSuccess)
		return CudaErr("NPP kernel", e, err, len);
	cudaEventElapsedTime(&c->kernel_ms[index], c->ev0, c->ev1);
	if (c->with_copies &&
		(e = cudaMemcpy(c->labels, c->d_labels, sizeof(uint32_t) * n,
						cudaMemcpyDeviceToHost)) != cudaSuccess)
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
	char		which[4096];
	void	   *lib = NppOpen(c->a->lib, which, sizeof(which), err, len);
	NppWsBufferSizeFn bufsize;
	cudaError_t e;
	int			st;

	if (lib == NULL)
		return -1;
	printf("npp_lib %s\n", which);
	bufsize = (NppWsBufferSizeFn) dlsym(lib, "nppiSegmentWatershedGetBufferSize_8u_C1R");
	c->ws = (NppWsFn) dlsym(lib, "nppiSegmentWatershed_8u_C1IR_Ctx");
	if (bufsize == NULL)
	{
		snprintf(err, len, "%s has no nppiSegmentWatershedGetBufferSize_8u_C1R", which);
		return -1;
	}
	if ((st = bufsize(roi, &buf_bytes)) != 0)
	{
		snprintf(err, len, "nppiSegmentWatershedGetBufferSize_8u_C1R status %d", st);
		return -1;
	}
	printf("npp_buffer_bytes %zu\n", buf_bytes);
	fflush(stdout);

	/*
	 * NPP 11.8 asks for 2 * 12 bytes a pixel, computed in 32-bit ints: above
	 * 2^32 / 24 pixels (about 13400^2) the answer wraps.  Under 12 bytes a
	 * pixel there, refuse rather than let NPP write past its buffer.
	 */
	if ((double) n > 4294967296.0 / 24 && buf_bytes < 12 * n)
	{
		snprintf(err, len, "buffer size query wrapped (%zu bytes for %zu px)", buf_bytes, n);
		return -1;
	}
	if (NppContext(&c->sctx, err, len) != 0)
		return -1;
	if ((e = cudaMalloc((void **) &c->d_img, n)) != cudaSuccess ||
		(e = cudaMalloc((void **) &c->d_src, n)) != cudaSuccess ||
		(e = cudaMalloc((void **) &c->d_labels, sizeof(uint32_t) * n)) != cudaSuccess ||
		(e = cudaMalloc((void **) &c->d_buf, buf_bytes ? buf_bytes : 1)) != cudaSuccess)
		return CudaErr("cudaMalloc", e, err, len);
	if ((e = cudaEventCreate(&c->ev0)) != cudaSuccess ||
		(e = cudaEventCreate(&c->ev1)) != cudaSuccess)
		return CudaErr("cudaEventCreate", e, err, len);
	if ((e = cudaMemcpy(c->d_img, c->heights, n, cudaMemcpyHostToDevice)) != cudaSuccess)
		return CudaErr("cudaMemcpy to the device", e, err, len);
	return 0;
}

/*
 * The npp command: NPP's marker-less watershed, device-resident and with
 * copies; writes the with-copies labels.
 */
static void
BenchNpp(const Args *a)
{
	size_t		n = (size_t) a->width * a->height;
	NppCtx		c;
	Timed		t = {NppReset, NppRun, &c};
	char		err[4608];
	double		ms;
	int			index;

	if (a->heights == NULL)
		Die("npp needs --heights", NULL);
	memset(&c, 0, sizeof(c));
	c.a = a;
	c.heights = ReadRaw(a->heights, n);
	c.labels = Alloc(sizeof(uint32_t) * n);
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
			WriteRaw(a->out, c.labels, sizeof(uint32_t) * n);
		}
	}
	cudaFree(c.d_img);
	cudaFree(c.d_src);
	cudaFree(c.d_labels);
	cudaFree(c.d_buf);
	free((void *) c.heights);
	free(c.labels);
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
	a->seed = 1;
	a->h = 8;
	a->scale = 8.0;
	if (argc < 2)
		Die("usage: bench_watershed prep|ws|npp|agree --width W --height H ... (see bench_watershed.c)", NULL);
	a->cmd = argv[1];
	for (int i = 2; i < argc; i++)
	{
		const char *k = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(k, "--no-cpu") == 0)
			a->cpu = 0;
		else if (strcmp(k, "--no-gpu") == 0)
			a->gpu = 0;
		else if (strcmp(k, "--sync") == 0)
			a->sync = 1;
		else if (strcmp(k, "--skip-negative") == 0)
			a->skip_negative = 1;
		else if (v == NULL)
			Die("option without a value", k);
		else
		{
			i++;
			if (strcmp(k, "--width") == 0)
				a->width = atoi(v);
			else if (strcmp(k, "--height") == 0)
				a->height = atoi(v);
			else if (strcmp(k, "--heights") == 0)
				a->heights = v;
			else if (strcmp(k, "--markers") == 0)
				a->markers = v;
			else if (strcmp(k, "--ref") == 0)
				a->ref = v;
			else if (strcmp(k, "--peer") == 0)
				a->peer = v;
			else if (strcmp(k, "--lib") == 0)
				a->lib = v;
			else if (strcmp(k, "--out") == 0)
				a->out = v;
			else if (strcmp(k, "--seed") == 0)
				a->seed = strtoull(v, NULL, 10);
			else if (strcmp(k, "--h") == 0)
				a->h = atoi(v);
			else if (strcmp(k, "--scale") == 0)
				a->scale = atof(v);
			else if (strcmp(k, "--conn") == 0)
				a->conn = atoi(v);
			else if (strcmp(k, "--tile") == 0)
				a->tile = atoi(v) > 0 ? atoi(v) : 0;
			else if (strcmp(k, "--threads") == 0)
				a->threads = atoi(v) > 0 ? atoi(v) : 1;
			else if (strcmp(k, "--budget-mb") == 0)
				a->budget = (size_t) strtoull(v, NULL, 10) << 20;
			else if (strcmp(k, "--cap-s") == 0)
				a->cap_ms = atof(v) * 1e3;
			else
				Die("unknown option", k);
		}
	}
	if (a->width <= 0 || a->height <= 0)
		Die("--width and --height must be positive", NULL);
}

/* Run the command the arguments name. */
int
main(int argc, char **argv)
{
	Args		a;

	ParseArgs(argc, argv, &a);
	printf("threads %d\nbudget_mb %zu\n", a.threads, a.budget >> 20);
	fflush(stdout);
	if (strcmp(a.cmd, "prep") == 0)
		BenchPrep(&a);
	else if (strcmp(a.cmd, "ws") == 0)
		BenchWs(&a);
	else if (strcmp(a.cmd, "npp") == 0)
		BenchNpp(&a);
	else if (strcmp(a.cmd, "agree") == 0)
		BenchAgree(&a);
	else
		Die("unknown command", a.cmd);
	return 0;
}
