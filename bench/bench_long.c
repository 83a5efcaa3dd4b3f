/*
 * bench_long.c: one long pair at a time (combs with teeth along x or y,
 * rectangular spirals, near-circles; rectilinear and sheared) against a
 * box and against itself, through each exact engine: seconds, the longest
 * stretch between two interrupt polls, and the answer against the truth.
 *
 *   bench/bench_long [VERTICES] [ENGINES] [CASE]
 *
 * VERTICES: about how many vertices each long shape has (default 128000).
 * ENGINES: letters of the engines to run (default "bsg"): b bitmap,
 * s sweep, g general, p PixelBox-CPU.  CASE: run only the cases whose
 * names contain it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/long_shapes.h"
#include "bench_data.h"

static double last_poll,
			max_gap;
static const char *only = "";

/* check_interrupts: note the longest time since the previous poll. */
static void
NotePoll(void *ctx)
{
	double		t = Now();

	(void) ctx;
	if (t - last_poll > max_gap)
		max_gap = t - last_poll;
	last_poll = t;
}

/* Run every asked engine on shapes p, q of b and print one line each. */
static void
RunCase(const char *name, PbBatch *b, PbScratch *sc, uint32_t p, uint32_t q,
		double truth, const char *engines)
{
	static const struct
	{
		char		letter;
		PbMethod	method;
		const char *name;
	}			all[] = {
		{'b', PB_METHOD_BITMAP, "bitmap"}, {'s', PB_METHOD_SWEEP, "sweep"},
		{'g', PB_METHOD_GENERAL, "general"}, {'p', PB_METHOD_PIXELBOX, "pixelbox"},
	};
	int			is_int = b->shapes[p].kind == PB_SHAPE_INT && b->shapes[q].kind == PB_SHAPE_INT;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
	{
		double		t0,
					t,
					area;

		PbBox		w = PbWindow(&b->shapes[p], &b->shapes[q]);

		if (strchr(engines, all[i].letter) == NULL ||
			(!is_int && all[i].method != PB_METHOD_GENERAL) ||
			(all[i].method == PB_METHOD_BITMAP &&
			 (w.xmax - w.xmin) * (w.ymax - w.ymin) > 64.0 * (1 << 26)))
			continue;
		max_gap = 0;
		last_poll = t0 = Now();
		area = PbIntersectionArea(sc, b, p, q, all[i].method);
		t = Now();
		NotePoll(NULL);
		printf("%-16s %9zu %-9s %9.3f %9.1f %s\n", name,
			   PbShapePoints(b, &b->shapes[p]), all[i].name, t - t0, 1e3 * max_gap,
			   fabs(area - truth) <= 1e-9 * fabs(truth) ? "ok" : "WRONG");
		fflush(stdout);
	}
}

/* Shape s against the box (and, when self, against itself), sheared by k. */
static void
Against(const char *name, LongShape *s, const double box[4], double k, int self,
		const char *engines)
{
	PbAllocator mem = PbMallocAllocator;
	PbBatch		b;
	PbScratch	sc;
	LongShape	bx = LongBox(box[0], box[1], box[2], box[3]);
	double		truth = LongBoxArea(s, box[0], box[1], box[2], box[3]),
				whole = LongBoxArea(s, -INFINITY, -INFINITY, INFINITY, INFINITY);
	char		label[64];
	uint32_t	p,
				q,
				p2;

	if (strstr(name, only) == NULL)
		return;
	mem.check_interrupts = NotePoll;
	PbBatchInit(&b, &mem);
	PbScratchInit(&sc, &mem);
	LongShear(s, k);
	LongShear(&bx, k);
	p = LongAdd(&b, s);
	q = LongAdd(&b, &bx);
	p2 = LongAdd(&b, s);
	if (s->nrects == 0)			/* no pieces: the circle, all inside the box */
		truth = whole = b.shapes[p].area;
	snprintf(label, sizeof(label), "%s/box", name);
	RunCase(label, &b, &sc, p, q, truth, engines);
	if (self)
	{
		snprintf(label, sizeof(label), "%s/self", name);
		RunCase(label, &b, &sc, p, p2, whole, engines);
	}
	LongShear(s, -k);
	LongFree(&bx);
	PbScratchFree(&sc);
	PbBatchFree(&b);
}

int
main(int argc, char **argv)
{
	long		n = argc > 1 ? atol(argv[1]) : 128000;
	const char *engines = argc > 2 ? argv[2] : "bsg";
	int			teeth = (int) (n / 4);
	LongShape	combx = LongComb(teeth, 1000, 0),
				comby = LongComb(teeth, 1000, 1),
				spiral = LongSpiral((int) (n / 2)),
				circle = LongCircle((uint32_t) n, 1e6, 0, 0);
	double		xbox[4] = {-1, -1, teeth, 500},
				ybox[4] = {-1, -1, 500, teeth},
				sbox[4] = {-1e9, -1e9, 1, 1e9},
				cbox[4] = {-2e6, -2e6, 2e6, 2e6};

	only = argc > 3 ? argv[3] : "";
	PrintMachine();
	printf("%-16s %9s %-9s %9s %9s %s\n", "case", "vertices", "engine", "seconds",
		   "poll_ms", "answer");
	Against("comb-x", &combx, xbox, 0, 1, engines);
	Against("comb-y", &comby, ybox, 0, 1, engines);
	Against("spiral", &spiral, sbox, 0, 1, engines);
	Against("comb-x-diag", &combx, xbox, 0.5, 1, engines);
	Against("comb-y-diag", &comby, ybox, 0.5, 1, engines);
	Against("spiral-diag", &spiral, sbox, 0.5, 1, engines);
	Against("circle", &circle, cbox, 0, 1, engines);
	LongFree(&combx);
	LongFree(&comby);
	LongFree(&spiral);
	LongFree(&circle);
	return 0;
}
