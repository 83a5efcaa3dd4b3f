/*
 * bench_core.c: where the CPU time of a cross-comparison goes, per pair,
 * on polygons from pbgen: decoding (GSERIALIZED as PostGIS stores it, and
 * EWKB), and each exact engine (PixelBox-CPU, edge-flag bitmaps, integer
 * sweep, general slabs), each on a batch of two shapes for every pair;
 * then auto and the bitmaps again on a batch holding each polygon once,
 * shared by its pairs, as the pipeline and the join's memo hold them (a
 * large shape met again is read through its edge index there).  Side by
 * side in one run, on one core.
 *
 *   bench/bench_core FILE_A FILE_B [REPEAT]
 *
 * FILE_A/B: pbgen output (id<TAB>POLYGON WKT per line).  MBR-intersecting
 * pairs are found by sorting; every engine must agree on every pair.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_data.h"

/* Decode both polygons of every pair into a fresh batch; return seconds. */
static double
DecodeAll(PbBatch *batch, const Poly *a, const Poly *b, const PbPair *pairs,
		  size_t npairs, int ewkb)
{
	double		t0 = Now();
	PbError		err;

	PbBatchReset(batch);
	for (size_t i = 0; i < npairs; i++)
	{
		const Poly *pa = &a[pairs[i].a],
				   *pb = &b[pairs[i].b];
		uint32_t	ia,
					ib;

		if ((ewkb ? PbDecodeEwkb(batch, pa->wkb, pa->wkb_len, &ia, &err)
			 : PbDecodeGserialized(batch, pa->gser, pa->gser_len, &ia, &err)) != PB_OK ||
			(ewkb ? PbDecodeEwkb(batch, pb->wkb, pb->wkb_len, &ib, &err)
			 : PbDecodeGserialized(batch, pb->gser, pb->gser_len, &ib, &err)) != PB_OK)
		{
			fprintf(stderr, "decode failed: %s\n", err.message);
			exit(1);
		}
		PbBatchAddPair(batch, ia, ib);
	}
	return Now() - t0;
}

/* Decode every polygon once, in file order (cache-friendly); return seconds. */
static double
DecodeSequential(PbBatch *batch, const Poly *polys, size_t n)
{
	double		t0 = Now();
	PbError		err;
	uint32_t	idx;

	PbBatchReset(batch);
	for (size_t i = 0; i < n; i++)
		if (PbDecodeGserialized(batch, polys[i].gser, polys[i].gser_len, &idx, &err) != PB_OK)
		{
			fprintf(stderr, "decode failed: %s\n", err.message);
			exit(1);
		}
	return Now() - t0;
}

/*
 * Decode every polygon once (a's, then b's) into a fresh batch and queue the
 * pairs between them: shapes shared by all their pairs, as the pipeline's
 * tasks and the join's memo hold them (a blob's edge index pays there).
 */
static void
SharedBatch(PbBatch *batch, const Poly *a, size_t na, const Poly *b, size_t nb,
			const PbPair *pairs, size_t npairs)
{
	PbError		err;
	uint32_t	idx;

	PbBatchReset(batch);
	for (size_t i = 0; i < na + nb; i++)
	{
		const Poly *p = i < na ? &a[i] : &b[i - na];

		if (PbDecodeGserialized(batch, p->gser, p->gser_len, &idx, &err) != PB_OK)
		{
			fprintf(stderr, "decode failed: %s\n", err.message);
			exit(1);
		}
	}
	for (size_t i = 0; i < npairs; i++)
		PbBatchAddPair(batch, pairs[i].a, (uint32_t) (na + pairs[i].b));
}

/* Compute every pair of the batch with one engine; return seconds. */
static double
RunEngine(PbScratch *s, const PbBatch *batch, PbMethod m, double *out)
{
	double		t0 = Now();

	for (uint32_t i = 0; i < batch->npairs; i++)
		out[i] = PbIntersectionArea(s, batch, batch->pairs[i].a, batch->pairs[i].b, m);
	return Now() - t0;
}

int
main(int argc, char **argv)
{
	size_t		na,
				nb,
				npairs;
	Poly	   *a,
			   *b;
	PbPair	   *pairs;
	PbBatch		batch,
				shared;
	PbScratch	scratch;
	int			repeat = argc > 3 ? atoi(argv[3]) : 3;
	const char *names[] = {"auto (bitmap/sweep)", "PixelBox-CPU", "bitmap", "sweep", "general"};
	PbMethod	methods[] = {PB_METHOD_AUTO, PB_METHOD_PIXELBOX, PB_METHOD_BITMAP, PB_METHOD_SWEEP, PB_METHOD_GENERAL};
	double	   *ref,
			   *res,
				best[5],
				best_shared[2] = {1e300, 1e300},
				dec_g = 1e300,
				dec_w = 1e300,
				dec_seq = 1e300;
	size_t		verts = 0;

	if (argc < 3)
	{
		fprintf(stderr, "usage: %s FILE_A FILE_B [REPEAT]\n", argv[0]);
		return 2;
	}
	a = ReadFile(argv[1], &na);
	b = ReadFile(argv[2], &nb);
	pairs = FindPairs(a, na, b, nb, &npairs);
	PbBatchInit(&batch, &PbMallocAllocator);
	PbScratchInit(&scratch, &PbMallocAllocator);
	for (int r = 0; r < repeat; r++)
	{
		double		t = DecodeSequential(&batch, a, na);

		dec_seq = t < dec_seq ? t : dec_seq;
	}
	for (int r = 0; r < repeat; r++)
	{
		double		t = DecodeAll(&batch, a, b, pairs, npairs, 1);

		dec_w = t < dec_w ? t : dec_w;
		t = DecodeAll(&batch, a, b, pairs, npairs, 0);
		dec_g = t < dec_g ? t : dec_g;
	}
	for (uint32_t i = 0; i < batch.nrings; i++)
		verts += batch.rings[i].npoints;
	ref = malloc(npairs * sizeof(double));
	res = malloc(npairs * sizeof(double));
	for (int m = 0; m < 5; m++)
	{
		best[m] = 1e300;
		for (int r = 0; r < repeat; r++)
		{
			double		t;

			DecodeAll(&batch, a, b, pairs, npairs, 0);	/* a batch met once, as in use */
			t = RunEngine(&scratch, &batch, methods[m], m == 0 ? ref : res);
			best[m] = t < best[m] ? t : best[m];
		}
		for (size_t i = 0; m > 0 && i < npairs; i++)
			if (res[i] != ref[i])
			{
				fprintf(stderr, "MISMATCH pair %zu: %s %.17g vs auto %.17g\n", i, names[m], res[i], ref[i]);
				return 1;
			}
	}
	PbBatchInit(&shared, &PbMallocAllocator);
	for (int m = 0; m < 2; m++)
		for (int r = 0; r < repeat; r++)
		{
			double		t;

			SharedBatch(&shared, a, na, b, nb, pairs, npairs);	/* new serial: indexes rebuilt */
			t = RunEngine(&scratch, &shared, methods[2 * m], res);
			best_shared[m] = t < best_shared[m] ? t : best_shared[m];
			for (size_t i = 0; i < npairs; i++)
				if (res[i] != ref[i])
				{
					fprintf(stderr, "MISMATCH pair %zu: %s on shared shapes %.17g vs auto %.17g\n",
							i, names[2 * m], res[i], ref[i]);
					return 1;
				}
		}
	PrintMachine();
	printf("polygons: %zu + %zu, MBR pairs: %zu, mean vertices per polygon: %.1f, best of %d runs, one core\n\n",
		   na, nb, npairs, (double) verts / (2.0 * npairs), repeat);
	printf("| step (per MBR pair)                | ns / pair | pairs/s    | vs auto |\n");
	printf("|------------------------------------|-----------|------------|---------|\n");
	printf("| decode 2 geometries, GSERIALIZED   | %9.0f | %10.0f | %6.2fx |\n", dec_g / npairs * 1e9, npairs / dec_g, dec_g / best[0]);
	printf("|   same, in file order (cache-warm) | %9.0f | %10.0f | %6.2fx |\n", 2 * dec_seq / na * 1e9, na / (2 * dec_seq), 2 * dec_seq / na / (best[0] / npairs));
	printf("| decode 2 geometries, EWKB          | %9.0f | %10.0f | %6.2fx |\n", dec_w / npairs * 1e9, npairs / dec_w, dec_w / best[0]);
	for (int m = 0; m < 5; m++)
		printf("| area: %-28s | %9.0f | %10.0f | %6.2fx |\n", names[m], best[m] / npairs * 1e9, npairs / best[m], best[m] / best[0]);
	for (int m = 0; m < 2; m++)
		printf("| area: %-6s, shapes shared      | %9.0f | %10.0f | %6.2fx |\n", m ? "bitmap" : "auto",
			   best_shared[m] / npairs * 1e9, npairs / best_shared[m], best_shared[m] / best[0]);
	printf("\nall engines agree on all %zu pairs\n", npairs);
	return 0;
}
