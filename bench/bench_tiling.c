/*
 * bench_tiling.c: how long PbTileGrid takes to cut two polygon sets into
 * grid tiles, at several thread counts, and a checksum of everything it
 * produced (grid, tasks, ids, windows, flags) so that runs of different
 * builds or thread counts can be compared for identity.
 *
 *   bench/bench_tiling FILE_A FILE_B [PER_TILE [REPEAT [THREADS...]]]
 *
 * FILE_A/B: pbgen output (id<TAB>POLYGON WKT per line), set a then set b
 * in one batch.  PER_TILE defaults to 2048 (pixelbox.tile_shapes),
 * REPEAT to 5 (the best run is shown), THREADS to 1 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/sccg/pb_sccg.h"
#include "bench_data.h"

/* Fold len bytes into a 64-bit FNV-1a hash. */
static uint64_t
Fold(uint64_t h, const void *p, size_t len)
{
	const uint8_t *s = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

/* A checksum of a whole tiling: grid, and per task counts, window, flag, ids. */
static uint64_t
Checksum(const PbTiling *tl)
{
	uint64_t	h = 14695981039346656037ULL;

	h = Fold(h, &tl->nx, sizeof(tl->nx));
	h = Fold(h, &tl->ny, sizeof(tl->ny));
	h = Fold(h, &tl->ntasks, sizeof(tl->ntasks));
	for (uint32_t k = 0; k < tl->ntasks; k++)
	{
		const PbTask *t = &tl->tasks[k];
		uint64_t	off = (uint64_t) (t->src_ids - tl->ids);

		h = Fold(h, &t->na, sizeof(t->na));
		h = Fold(h, &t->nb, sizeof(t->nb));
		h = Fold(h, &off, sizeof(off));
		h = Fold(h, &t->ref, sizeof(t->ref));
		h = Fold(h, &t->all_int, sizeof(t->all_int));
		h = Fold(h, t->src_ids, sizeof(uint32_t) * ((size_t) t->na + t->nb));
	}
	return h;
}

/* Decode the polygons of a file into the batch, tagging them with set. */
static void
Load(PbBatch *batch, uint8_t **in_a, const char *path, int set_a)
{
	size_t		n;
	Poly	   *polys = ReadFile(path, &n);
	PbError		err;
	uint32_t	idx;

	*in_a = realloc(*in_a, (size_t) batch->nshapes + n + 1);
	for (size_t i = 0; i < n; i++)
	{
		if (PbDecodeGserialized(batch, polys[i].gser, polys[i].gser_len, &idx, &err) != PB_OK)
		{
			fprintf(stderr, "decode failed: %s\n", err.message);
			exit(1);
		}
		(*in_a)[idx] = (uint8_t) set_a;
		free(polys[i].varlena);
		free(polys[i].wkb);
	}
	free(polys);
}

int
main(int argc, char **argv)
{
	PbBatch		batch;
	uint8_t    *in_a = NULL;
	uint32_t	per_tile = argc > 3 ? (uint32_t) atoi(argv[3]) : 2048;
	int			repeat = argc > 4 ? atoi(argv[4]) : 5;
	int			default_threads[] = {1, 2};
	int			nthreads = argc > 5 ? argc - 5 : 2;

	if (argc < 3)
	{
		fprintf(stderr, "usage: %s FILE_A FILE_B [PER_TILE [REPEAT [THREADS...]]]\n", argv[0]);
		return 2;
	}
	PbBatchInit(&batch, &PbMallocAllocator);
	Load(&batch, &in_a, argv[1], 1);
	Load(&batch, &in_a, argv[2], 0);
	PrintMachine();
	printf("shapes: %u, per tile: %u, best of %d runs\n", batch.nshapes, per_tile, repeat);
	for (int ti = 0; ti < nthreads; ti++)
	{
		int			threads = argc > 5 ? atoi(argv[5 + ti]) : default_threads[ti];
		double		best = 1e300;
		uint64_t	sum = 0;
		PbTiling	tl;

		for (int r = 0; r < repeat; r++)
		{
			double		t0 = Now(),
						t;

			PbTileGrid(&tl, &batch, in_a, per_tile, &PbMallocAllocator, threads);
			t = Now() - t0;
			best = t < best ? t : best;
			if (r == 0)
			{
				sum = Checksum(&tl);
				printf("grid %u x %u, %u tasks, %zu ids\n", tl.nx, tl.ny, tl.ntasks,
					   tl.ntasks ? (size_t) (tl.tasks[tl.ntasks - 1].src_ids - tl.ids) +
					   tl.tasks[tl.ntasks - 1].na + tl.tasks[tl.ntasks - 1].nb : 0);
			}
			PbTilingFree(&tl, &PbMallocAllocator);
		}
		printf("threads %2d: %8.2f ms  checksum %016llx\n", threads, best * 1e3,
			   (unsigned long long) sum);
	}
	PbBatchFree(&batch);
	free(in_a);
	return 0;
}
