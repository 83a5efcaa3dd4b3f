/*
 * bench_data.h: what the C benchmarks share: pbgen files read into
 * GSERIALIZED (PostGIS's layout) and EWKB bytes, MBR pairs found by
 * sorting, a clock, and the machine's name.
 */
#ifndef PB_BENCH_DATA_H
#define PB_BENCH_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "../src/core/geom/pb_geom.h"

/* One polygon read from a file, as GSERIALIZED and EWKB bytes. */
typedef struct Poly
{
	uint8_t    *varlena;		/* the value as PostgreSQL holds it: a 4-byte header, */
	uint8_t    *gser;			/* then the GSERIALIZED bytes (8-byte aligned doubles) */
	size_t		gser_len;
	uint8_t    *wkb;
	size_t		wkb_len;
	double		xmin,
				ymin,
				xmax,
				ymax;
} Poly;

/* Seconds on a monotonic clock. */
extern double Now(void);
/* Read every polygon of a pbgen file (id<TAB>POLYGON WKT per line). */
extern Poly *ReadFile(const char *path, size_t *n);
/* The pairs (a, b) whose closed boxes intersect, as PostGIS's && finds them. */
extern PbPair *FindPairs(const Poly *a, size_t na, const Poly *b, size_t nb, size_t *npairs);
/* Print the processor this runs on. */
extern void PrintMachine(void);

#endif							/* PB_BENCH_DATA_H */
