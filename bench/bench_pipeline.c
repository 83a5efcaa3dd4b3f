/*
 * bench_pipeline.c: the SCCG pipeline on the CPU alone, end to end over
 * grid tiles of two pbgen sets: wall time, page faults, stage figures and
 * the comparison totals (printed exactly, to compare runs bit for bit).
 *
 *   bench/bench_pipeline FILE_A FILE_B [THREADS] [REPEAT] [PER_TILE] [AGG_PAIRS]
 *
 * FILE_A/B: pbgen output (id<TAB>POLYGON WKT per line), set a and set b.
 * THREADS: filter threads (default 2); REPEAT: runs, the best is reported
 * (default 3); PER_TILE: shapes per tile (default 2048); AGG_PAIRS: the
 * aggregator buffer in pairs (default: PbPipeConfigDefaults's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "../src/core/sccg/pb_sccg.h"
#include "bench_data.h"

/* Both sets decoded into one batch; in_a[i] tells the set of shape i. */
typedef struct Sets
{
	PbBatch		b;
	uint8_t    *in_a;
} Sets;

/* What one run produced. */
typedef struct RunOut
{
	PbCompareAcc acc;
	PbPipeStats st;
	uint64_t	missed[2];		/* non-empty shapes of set a, b hit by nothing */
	long		minflt;			/* minor page faults during the run */
	double		cpu_s;			/* user + system time of the process, likewise */
} RunOut;

/* Decode every polygon of a file (GSERIALIZED, as PostgreSQL hands it in). */
static void
LoadSet(Sets *s, const char *path, int in_a)
{
	size_t		n;
	Poly	   *polys = ReadFile(path, &n);
	PbError		err;

	s->in_a = realloc(s->in_a, s->b.nshapes + n + 1);
	for (size_t i = 0; i < n; i++)
	{
		uint32_t	shape;

		if (PbDecodeGserialized(&s->b, polys[i].gser, polys[i].gser_len, &shape, &err) != PB_OK)
		{
			fprintf(stderr, "%s: decode failed: %s\n", path, err.message);
			exit(1);
		}
		s->in_a[shape] = (uint8_t) in_a;
		free(polys[i].varlena);
		free(polys[i].wkb);
	}
	free(polys);
}

/* Minor page faults of the process so far. */
static long
MinorFaults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* User + system seconds of the process (every thread) so far. */
static double
CpuSeconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* One pipeline run over every task of the tiling, on the CPU (no device). */
static void
RunOnce(const Sets *s, PbTiling *tl, int threads, uint32_t agg_pairs, RunOut *o)
{
	PbPipeConfig c;
	PbPipeline *p;
	uint8_t    *hit = calloc(s->b.nshapes + 1, 1);
	long		f0 = MinorFaults();
	double		c0 = CpuSeconds();

	PbPipeConfigDefaults(&c, threads);
	if (agg_pairs > 0)
		c.agg_pairs = agg_pairs;
	p = PbPipeStart(&c);
	if (p == NULL)
	{
		fprintf(stderr, "pipeline did not start\n");
		exit(1);
	}
	for (uint32_t k = 0; k < tl->ntasks; k++)
		PbPipeFeed(p, &tl->tasks[k], NULL, NULL);
	if (!PbPipeFinish(p, NULL, NULL))
	{
		fprintf(stderr, "pipeline stopped\n");
		exit(1);
	}
	PbPipeTotals(p, &o->acc);
	PbPipeGetStats(p, &o->st);
	for (uint32_t k = 0; k < tl->ntasks; k++)
		for (uint32_t i = 0; tl->tasks[k].hit && i < tl->tasks[k].na + tl->tasks[k].nb; i++)
			if (tl->tasks[k].hit[i])
				hit[tl->tasks[k].src_ids[i]] = 1;
	PbPipeDestroy(p);
	o->minflt = MinorFaults() - f0;
	o->cpu_s = CpuSeconds() - c0;
	o->missed[0] = o->missed[1] = 0;
	for (uint32_t i = 0; i < s->b.nshapes; i++)
		if (!hit[i] && s->b.shapes[i].kind != PB_SHAPE_EMPTY)
			o->missed[s->in_a[i] ? 0 : 1]++;
	free(hit);
}

/* Print one stage's figures. */
static void
PrintStage(const char *name, const PbPipeStageStats *st)
{
	printf("  %-16s tasks %8llu  pairs %10llu  migrated %6llu  busy %8.3f s\n", name,
		   (unsigned long long) st->tasks, (unsigned long long) st->pairs,
		   (unsigned long long) st->migrated, st->busy_s);
}

/* Print the run's totals, the doubles also in hex (bit-exact comparison). */
static void
PrintTotals(const RunOut *o)
{
	PbCompareResult r;

	PbCompareResultOf(&o->acc, &r);
	printf("totals: pairs %lld  intersecting %lld  missed a %llu  missed b %llu\n",
		   (long long) r.pairs, (long long) r.intersecting,
		   (unsigned long long) o->missed[0], (unsigned long long) o->missed[1]);
	printf("  J'            %.17g  %a\n", r.jaccard_mean, r.jaccard_mean);
	printf("  jaccard_total %.17g  %a\n", r.jaccard_total, r.jaccard_total);
	printf("  dice_mean     %.17g  %a\n", r.dice_mean, r.dice_mean);
	printf("  intersection  %.17g  %a\n", r.intersection_area, r.intersection_area);
	printf("  union         %.17g  %a\n", r.union_area, r.union_area);
}

/* Load and tile both sets, run the pipeline REPEAT times, report the fastest run. */
int
main(int argc, char **argv)
{
	Sets		s = {0};
	PbTiling	tl;
	int			threads = argc > 3 ? atoi(argv[3]) : 2;
	int			repeat = argc > 4 ? atoi(argv[4]) : 3;
	uint32_t	per_tile = argc > 5 ? (uint32_t) atoi(argv[5]) : 2048;
	uint32_t	agg_pairs = argc > 6 ? (uint32_t) atoi(argv[6]) : 0;
	RunOut		best,
				o;
	struct rusage ru;

	if (argc < 3)
	{
		fprintf(stderr, "usage: %s FILE_A FILE_B [THREADS] [REPEAT] [PER_TILE] [AGG_PAIRS]\n", argv[0]);
		return 2;
	}
	PbBatchInit(&s.b, &PbMallocAllocator);
	LoadSet(&s, argv[1], 1);
	LoadSet(&s, argv[2], 0);
	PbTileGrid(&tl, &s.b, s.in_a, per_tile, &PbMallocAllocator, threads);
	PrintMachine();
	printf("shapes %u, tiles %u (%u x %u grid), threads %d\n", s.b.nshapes, tl.ntasks,
		   tl.nx, tl.ny, threads);
	for (int r = 0; r < (repeat < 1 ? 1 : repeat); r++)
	{
		RunOnce(&s, &tl, threads, agg_pairs, &o);
		printf("run %d: wall %.3f s, cpu %.3f s, minor faults %ld\n", r + 1, o.st.wall_s,
			   o.cpu_s, o.minflt);
		if (r == 0 || o.st.wall_s < best.st.wall_s)
			best = o;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("best wall %.3f s (cpu %.3f s, minor faults %ld), peak rss %ld MiB\n",
		   best.st.wall_s, best.cpu_s, best.minflt, ru.ru_maxrss / 1024);
	printf("  pool: %llu blocks, %llu fresh from malloc, peak %.1f MiB held\n",
		   (unsigned long long) best.st.mem_blocks, (unsigned long long) best.st.mem_fresh,
		   best.st.mem_peak / 1048576.0);
	PrintStage("filter cpu", &best.st.filter_cpu);
	PrintStage("aggregate cpu", &best.st.aggregate_cpu);
	PrintTotals(&best);
	PbTilingFree(&tl, &PbMallocAllocator);
	PbBatchFree(&s.b);
	free(s.in_a);
	return 0;
}
