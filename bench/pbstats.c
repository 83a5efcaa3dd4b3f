/*
 * pbstats.c: the distributions of two benchmark polygon sets, in one line
 * that the benchmark scripts print as their "data:" line, so every result
 * says what kind of polygons it was measured on.
 *
 *   bench/pbstats FILE_A FILE_B
 *
 * FILE_A/B: pbgen or realgen output (id<TAB>POLYGON WKT per line).  Per set:
 * polygons, vertices per polygon (as ST_NPoints counts them: every ring's
 * points, closing ones included) as median / p90 / p99 / max, box area
 * (the MBR's, in coordinate units squared) as median / p99 / max, and holes
 * (interior rings); for the two sets: the MBR pairs (as && finds them) and
 * the most boxes of the other set that one box of each set meets.
 * Percentiles are nearest-rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_data.h"

/* qsort comparator: doubles, ascending. */
static int
CmpDouble(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile p (1..100) of n sorted values. */
static double
Percentile(const double *sorted, size_t n, int p)
{
	size_t		rank = ((size_t) p * n + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

/* Print one set's figures: vertices, box areas, holes. */
static void
PrintSet(const char *name, const Poly *p, size_t n)
{
	double	   *verts = malloc((n ? n : 1) * sizeof(double)),
			   *boxes = malloc((n ? n : 1) * sizeof(double));
	size_t		holes = 0;

	for (size_t i = 0; i < n; i++)
	{
		uint32_t	nrings,
					size;
		size_t		points = 0,
					off = 9;

		/* NDR WKB: order byte, type, ring count, then per ring its size and points */
		memcpy(&nrings, p[i].wkb + 5, 4);
		for (uint32_t r = 0; r < nrings; r++)
		{
			memcpy(&size, p[i].wkb + off, 4);
			points += size;
			off += 4 + (size_t) size * 16;
		}
		holes += nrings ? nrings - 1 : 0;
		verts[i] = (double) points;
		boxes[i] = (p[i].xmax - p[i].xmin) * (p[i].ymax - p[i].ymin);
	}
	qsort(verts, n, sizeof(double), CmpDouble);
	qsort(boxes, n, sizeof(double), CmpDouble);
	if (n == 0)
		verts[0] = boxes[0] = 0;
	printf("%s: %zu polygons, vertices median %.0f p90 %.0f p99 %.0f max %.0f, "
		   "box area median %.0f p99 %.0f max %.0f, %zu holes",
		   name, n, Percentile(verts, n, 50), Percentile(verts, n, 90),
		   Percentile(verts, n, 99), n ? verts[n - 1] : 0,
		   Percentile(boxes, n, 50), Percentile(boxes, n, 99),
		   n ? boxes[n - 1] : 0, holes);
	free(verts);
	free(boxes);
}

/* Largest count of one index among the pairs' a (side 0) or b (side 1). */
static uint32_t
MostPartners(const PbPair *pairs, size_t npairs, size_t n, int side)
{
	uint32_t   *count = calloc(n ? n : 1, sizeof(uint32_t)),
				most = 0;

	for (size_t i = 0; i < npairs; i++)
	{
		uint32_t	k = ++count[side ? pairs[i].b : pairs[i].a];

		most = k > most ? k : most;
	}
	free(count);
	return most;
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

	if (argc != 3)
	{
		fprintf(stderr, "usage: %s FILE_A FILE_B\n", argv[0]);
		return 2;
	}
	a = ReadFile(argv[1], &na);
	b = ReadFile(argv[2], &nb);
	pairs = FindPairs(a, na, b, nb, &npairs);
	PrintSet("a", a, na);
	printf("; ");
	PrintSet("b", b, nb);
	printf("; %zu MBR pairs, one a box meets up to %u b, one b box up to %u a\n",
		   npairs, MostPartners(pairs, npairs, na, 0), MostPartners(pairs, npairs, nb, 1));
	return 0;
}
