/*
 * bench_gpu.c: GPU kernel throughput, side by side in one run, on data
 * sets given as pbgen files (pbgen's at several scale factors, the
 * paper's Fig. 8, and the realistic set): the bitmap kernel (the
 * default), the PixelBox kernel, and PixelBox-CPU and the CPU's fastest
 * engine (auto: bitmap or sweep) on one core.  Every GPU result is
 * checked against the CPU engine.
 *
 *   bench/bench_gpu LABEL A.tsv B.tsv [LABEL A.tsv B.tsv ...]
 *
 * All MBR pairs of a data set go in one submission, each polygon decoded
 * once and its points copied once however many pairs use it (as the
 * pipeline's parts do).  Kernel pairs/s count kernel time only (CUDA
 * events); "with copies" adds packing, both transfers and the wait, i.e.
 * what a batch costs the caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/pb_gpu.h"
#include "bench_data.h"

#define CPU_SAMPLE 20000		/* pairs timed on the CPU (PixelBox-CPU is slow) */
#define GPU_REPEAT 5

/* One GPU run of all pairs: best kernel ms and best wall ms over repeats. */
static void
TimeGpu(PbGpu *g, const PbBatch *b, const uint32_t *idx, PbGpuKernel k,
		double *kernel_ms, double *wall_ms, int64_t *out)
{
	char		err[256];

	*kernel_ms = *wall_ms = 1e300;
	for (int r = 0; r < GPU_REPEAT + 1; r++)
	{
		double		t0 = Now(),
					t;
		int			st;

		if (PbGpuSubmit(g, b, idx, b->npairs, k, err, sizeof(err)) != 0)
		{
			fprintf(stderr, "submit: %s\n", err);
			exit(1);
		}
		while ((st = PbGpuPoll(g, err, sizeof(err))) == 0)
			;
		if (st < 0)
		{
			fprintf(stderr, "GPU: %s\n", err);
			exit(1);
		}
		t = (Now() - t0) * 1e3;
		if (r == 0)
			continue;			/* warm-up */
		*wall_ms = t < *wall_ms ? t : *wall_ms;
		*kernel_ms = PbGpuKernelMs(g) < *kernel_ms ? PbGpuKernelMs(g) : *kernel_ms;
	}
	memcpy(out, PbGpuResults(g), sizeof(int64_t) * b->npairs);
}

/* Seconds for one CPU engine over the first n pairs; results into out. */
static double
TimeCpu(PbScratch *s, const PbBatch *b, uint32_t n, PbMethod m, double *out)
{
	double		t0 = Now();

	for (uint32_t i = 0; i < n; i++)
		out[i] = PbIntersectionArea(s, b, b->pairs[i].a, b->pairs[i].b, m);
	return Now() - t0;
}

int
main(int argc, char **argv)
{
	char		err[256];
	PbGpu	   *g;

	if (argc < 4 || (argc - 1) % 3 != 0)
	{
		fprintf(stderr, "usage: %s LABEL A.tsv B.tsv [LABEL A.tsv B.tsv ...]\n", argv[0]);
		return 2;
	}
	if ((g = PbGpuOpen((size_t) 16 << 30, 0, err, sizeof(err))) == NULL)
	{
		fprintf(stderr, "no GPU: %s\n", err);
		return 1;
	}
	PrintMachine();
	printf("GPU: %s; kernel time by CUDA events, best of %d; PixelBox-CPU on one core over the first %d pairs, CPU auto over all\n\n",
		   PbGpuDeviceName(g), GPU_REPEAT, CPU_SAMPLE);
	printf("| data | pairs | vertices | bitmap kernel pairs/s | with copies | PixelBox kernel pairs/s | with copies | PixelBox-CPU 1 core | CPU auto 1 core | bitmap with copies / CPU 1 core |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
	for (int arg = 1; arg + 2 < argc; arg += 3)
	{
		size_t		na,
					nb,
					npairs,
					verts = 0;
		Poly	   *a = ReadFile(argv[arg + 1], &na);
		Poly	   *bb = ReadFile(argv[arg + 2], &nb);
		PbPair	   *pairs = FindPairs(a, na, bb, nb, &npairs);
		PbError		derr;
		PbBatch		batch;
		PbScratch	sc;
		uint32_t   *idx = malloc(sizeof(uint32_t) * npairs),
				   *sa = malloc(sizeof(uint32_t) * na),
				   *sb = malloc(sizeof(uint32_t) * nb);
		int64_t    *gpu_bm = malloc(sizeof(int64_t) * npairs),
				   *gpu_box = malloc(sizeof(int64_t) * npairs);
		double	   *cpu_box = malloc(sizeof(double) * npairs),
				   *cpu_auto = malloc(sizeof(double) * npairs);
		double		k_bm,
					w_bm,
					k_box,
					w_box,
					t_pbcpu,
					t_auto;
		uint32_t	nsample = npairs < CPU_SAMPLE ? (uint32_t) npairs : CPU_SAMPLE;

		PbBatchInit(&batch, &PbMallocAllocator);
		PbScratchInit(&sc, &PbMallocAllocator);
		for (size_t i = 0; i < na + nb; i++)
		{
			const Poly *p = i < na ? &a[i] : &bb[i - na];
			uint32_t   *s = i < na ? &sa[i] : &sb[i - na];

			if (PbDecodeGserialized(&batch, p->gser, p->gser_len, s, &derr) != PB_OK)
			{
				fprintf(stderr, "%s: polygon %zu: %s\n", argv[arg], i, derr.message);
				return 1;
			}
		}
		for (size_t i = 0; i < npairs; i++)
		{
			uint32_t	ia = sa[pairs[i].a],
						ib = sb[pairs[i].b];

			if (batch.shapes[ia].kind != PB_SHAPE_INT || batch.shapes[ib].kind != PB_SHAPE_INT)
			{
				fprintf(stderr, "%s: pair %zu is not rectilinear integer\n", argv[arg], i);
				return 1;
			}
			PbBatchAddPair(&batch, ia, ib);
			idx[i] = (uint32_t) i;
			verts += PbShapePoints(&batch, &batch.shapes[ia]) + PbShapePoints(&batch, &batch.shapes[ib]);
		}
		TimeGpu(g, &batch, idx, PB_GPU_BITMAP, &k_bm, &w_bm, gpu_bm);
		TimeGpu(g, &batch, idx, PB_GPU_PIXELBOX, &k_box, &w_box, gpu_box);
		t_pbcpu = TimeCpu(&sc, &batch, nsample, PB_METHOD_PIXELBOX, cpu_box);
		t_auto = TimeCpu(&sc, &batch, (uint32_t) npairs, PB_METHOD_AUTO, cpu_auto);
		for (size_t i = 0; i < npairs; i++)
			if ((double) gpu_bm[i] != cpu_auto[i] || gpu_box[i] != gpu_bm[i] ||
				(i < nsample && cpu_box[i] != cpu_auto[i]))
			{
				fprintf(stderr, "%s: MISMATCH pair %zu: bitmap GPU %lld, PixelBox GPU %lld, CPU %.17g\n",
						argv[arg], i, (long long) gpu_bm[i], (long long) gpu_box[i], cpu_auto[i]);
				return 1;
			}
		printf("| %s | %zu | %.1f | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g | %.0fx |\n", argv[arg], npairs,
			   (double) verts / (2.0 * npairs), npairs / (k_bm * 1e-3), npairs / (w_bm * 1e-3),
			   npairs / (k_box * 1e-3), npairs / (w_box * 1e-3), nsample / t_pbcpu, npairs / t_auto,
			   (npairs / (w_bm * 1e-3)) / (npairs / t_auto));
		fflush(stdout);
		PbBatchFree(&batch);
		PbScratchFree(&sc);
		free(idx);
		free(sa);
		free(sb);
		free(gpu_bm);
		free(gpu_box);
		free(cpu_box);
		free(cpu_auto);
	}
	printf("\nevery GPU result equals the CPU engines' on every pair\n");
	PbGpuClose(g);
	return 0;
}
