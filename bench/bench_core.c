/*
 * bench_core.c: where the CPU time of a cross-comparison goes, per pair,
 * on polygons from pbgen: decoding (GSERIALIZED as PostGIS stores it, and
 * EWKB), and each exact engine (PixelBox-CPU, edge-flag bitmaps, integer
 * sweep, general slabs).  Side by side in one run, on one core.
 *
 *   bench/bench_core FILE_A FILE_B [REPEAT]
 *
 * FILE_A/B: pbgen output (id<TAB>POLYGON WKT per line).  MBR-intersecting
 * pairs are found by sorting; every engine must agree on every pair.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/pb_core.h"

/* One polygon read from a file, as GSERIALIZED and EWKB bytes. */
typedef struct Poly
{
	uint8_t    *gser;
	size_t		gser_len;
	uint8_t    *wkb;
	size_t		wkb_len;
	double		xmin,
				ymin,
				xmax,
				ymax;
} Poly;

/* Growable byte buffer. */
typedef struct Buf
{
	uint8_t    *p;
	size_t		n,
				cap;
} Buf;

/* Append len bytes to a buffer. */
static void
Put(Buf *b, const void *src, size_t len)
{
	if (b->n + len > b->cap)
	{
		b->cap = (b->n + len) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
			abort();
	}
	memcpy(b->p + b->n, src, len);
	b->n += len;
}

/* Seconds on a monotonic clock. */
static double
Now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Parse "POLYGON((x y,...),(...))" into rings of doubles and serialize it
 * twice: NDR WKB and GSERIALIZED v2 with a float bbox (PostGIS's layout).
 */
static int
ParsePolygon(const char *s, Poly *out)
{
	double	   *xy = NULL;
	uint32_t   *sizes = NULL;
	size_t		npts = 0,
				cappts = 0;
	uint32_t	nrings = 0;
	const char *p = strstr(s, "((");
	Buf			w = {0},
				g = {0};
	uint8_t		hdr[4] = {0, 0, 0, 0x44};	/* SRID 0; v2 flag + bbox */
	uint32_t	type = 3;
	float		box[4];

	if (p == NULL)
		return 0;
	p += 1;
	while (*p == '(')
	{
		p++;
		sizes = realloc(sizes, (nrings + 1) * sizeof(uint32_t));
		sizes[nrings] = 0;
		for (;;)
		{
			char	   *end;
			double		x = strtod(p, &end),
						y = strtod(end, &end);

			if (npts == cappts)
				xy = realloc(xy, (cappts = cappts * 2 + 64) * 2 * sizeof(double));
			xy[2 * npts] = x;
			xy[2 * npts + 1] = y;
			npts++;
			sizes[nrings]++;
			p = end;
			if (*p == ',')
				p++;
			else
				break;
		}
		nrings++;
		p++;					/* ')' */
		if (*p == ',')
			p++;
	}
	out->xmin = out->ymin = 1e300;
	out->xmax = out->ymax = -1e300;
	for (size_t i = 0; i < npts; i++)
	{
		out->xmin = xy[2 * i] < out->xmin ? xy[2 * i] : out->xmin;
		out->xmax = xy[2 * i] > out->xmax ? xy[2 * i] : out->xmax;
		out->ymin = xy[2 * i + 1] < out->ymin ? xy[2 * i + 1] : out->ymin;
		out->ymax = xy[2 * i + 1] > out->ymax ? xy[2 * i + 1] : out->ymax;
	}
	/* NDR WKB */
	Put(&w, "\x01", 1);
	Put(&w, &type, 4);
	Put(&w, &nrings, 4);
	for (uint32_t r = 0, k = 0; r < nrings; k += sizes[r], r++)
	{
		Put(&w, &sizes[r], 4);
		Put(&w, xy + 2 * k, sizes[r] * 2 * sizeof(double));
	}
	/* GSERIALIZED v2: srid[3] flags, bbox floats, type, nrings, sizes, pad, points */
	box[0] = (float) out->xmin;
	box[1] = (float) out->xmax;
	box[2] = (float) out->ymin;
	box[3] = (float) out->ymax;
	Put(&g, hdr, 4);
	Put(&g, box, sizeof(box));
	Put(&g, &type, 4);
	Put(&g, &nrings, 4);
	Put(&g, sizes, nrings * 4);
	if (nrings & 1)
		Put(&g, "\0\0\0\0", 4);
	Put(&g, xy, npts * 2 * sizeof(double));
	out->wkb = w.p;
	out->wkb_len = w.n;
	out->gser = g.p;
	out->gser_len = g.n;
	free(xy);
	free(sizes);
	return 1;
}

/* Read every polygon of a pbgen file. */
static Poly *
ReadFile(const char *path, size_t *n)
{
	FILE	   *f = fopen(path, "r");
	char	   *line = NULL;
	size_t		cap = 0,
				count = 0,
				alloc = 0;
	Poly	   *polys = NULL;

	if (f == NULL)
	{
		perror(path);
		exit(2);
	}
	while (getline(&line, &cap, f) > 0)
	{
		if (count == alloc)
			polys = realloc(polys, (alloc = alloc * 2 + 1024) * sizeof(Poly));
		if (ParsePolygon(line, &polys[count]))
			count++;
	}
	free(line);
	fclose(f);
	*n = count;
	return polys;
}

/* Index of a polygon and its box's xmin, for the sort-based pair finder. */
typedef struct Ref
{
	double		xmin;
	uint32_t	idx;
	int			set;
} Ref;

/* qsort comparator: refs by xmin. */
static int
CmpRef(const void *a, const void *b)
{
	double		x = ((const Ref *) a)->xmin,
				y = ((const Ref *) b)->xmin;

	return (x > y) - (x < y);
}

/* Find the pairs (a, b) whose closed boxes intersect, as PostGIS's && does. */
static PbPair *
FindPairs(const Poly *a, size_t na, const Poly *b, size_t nb, size_t *npairs)
{
	Ref		   *refs = malloc((na + nb) * sizeof(Ref));
	PbPair	   *pairs = NULL;
	size_t		n = 0,
				cap = 0;

	for (size_t i = 0; i < na; i++)
		refs[i] = (Ref) {a[i].xmin, (uint32_t) i, 0};
	for (size_t i = 0; i < nb; i++)
		refs[na + i] = (Ref) {b[i].xmin, (uint32_t) i, 1};
	qsort(refs, na + nb, sizeof(Ref), CmpRef);
	for (size_t i = 0; i < na + nb; i++)
	{
		const Poly *pi = refs[i].set ? &b[refs[i].idx] : &a[refs[i].idx];

		for (size_t j = i + 1; j < na + nb && refs[j].xmin <= pi->xmax; j++)
		{
			const Poly *pj;

			if (refs[j].set == refs[i].set)
				continue;
			pj = refs[j].set ? &b[refs[j].idx] : &a[refs[j].idx];
			if (pj->ymin > pi->ymax || pi->ymin > pj->ymax)
				continue;
			if (n == cap)
				pairs = realloc(pairs, (cap = cap * 2 + 1024) * sizeof(PbPair));
			pairs[n].a = refs[i].set ? refs[j].idx : refs[i].idx;
			pairs[n].b = refs[i].set ? refs[i].idx : refs[j].idx;
			n++;
		}
	}
	free(refs);
	*npairs = n;
	return pairs;
}

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

/* Compute every pair of the batch with one engine; return seconds. */
static double
RunEngine(PbScratch *s, const PbBatch *batch, PbMethod m, double *out)
{
	double		t0 = Now();

	for (uint32_t i = 0; i < batch->npairs; i++)
		out[i] = PbIntersectionArea(s, batch, batch->pairs[i].a, batch->pairs[i].b, m);
	return Now() - t0;
}

/* Print the machine this ran on. */
static void
PrintMachine(void)
{
	FILE	   *f = fopen("/proc/cpuinfo", "r");
	char		line[512];

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0)
		{
			printf("machine: %s", strchr(line, ':') + 2);
			break;
		}
	if (f)
		fclose(f);
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
	PbBatch		batch;
	PbScratch	scratch;
	int			repeat = argc > 3 ? atoi(argv[3]) : 3;
	const char *names[] = {"auto (bitmap/sweep)", "PixelBox-CPU", "bitmap", "sweep", "general"};
	PbMethod	methods[] = {PB_METHOD_AUTO, PB_METHOD_PIXELBOX, PB_METHOD_BITMAP, PB_METHOD_SWEEP, PB_METHOD_GENERAL};
	double	   *ref,
			   *res,
				best[5],
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
			double		t = RunEngine(&scratch, &batch, methods[m], m == 0 ? ref : res);

			best[m] = t < best[m] ? t : best[m];
		}
		for (size_t i = 0; m > 0 && i < npairs; i++)
			if (res[i] != ref[i])
			{
				fprintf(stderr, "MISMATCH pair %zu: %s %.17g vs auto %.17g\n", i, names[m], res[i], ref[i]);
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
	printf("\nall engines agree on all %zu pairs\n", npairs);
	return 0;
}
