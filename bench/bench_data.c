/*
 * bench_data.c: reading pbgen output for the C benchmarks (see bench_data.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_data.h"

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
double
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
	Put(&g, "\0\0\0\0", 4);	/* the varlena header's place */
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
	out->varlena = g.p;
	out->gser = g.p + 4;
	out->gser_len = g.n - 4;
	free(xy);
	free(sizes);
	return 1;
}

/* Read every polygon of a pbgen file. */
Poly *
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
PbPair *
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

/* Print the machine this ran on. */
void
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

