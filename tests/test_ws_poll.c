/*
 * test_ws_poll.c: how the CPU watershed (watershed_cpu.c) polls on one
 * thread.  Every phase polls between its items, the numbering of the
 * minima (marker-less; ws_minima.c) included: it runs in bands of rows,
 * eight per thread, and polls between the seams it joins on the caller's
 * thread too.  A noisy image has minima everywhere.  A stop asked at any
 * poll is honoured at once.
 */
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "harness.h"

/* A poll that counts its calls and asks to stop from the stop_at-th on. */
typedef struct WsPollCount
{
	int			calls;
	int			stop_at;		/* 0: never */
} WsPollCount;

/* Count the call; nonzero from the stop_at-th call on. */
static int
WsCountingPoll(void *arg)
{
	WsPollCount *p = arg;

	p->calls++;
	return p->stop_at > 0 && p->calls >= p->stop_at;
}

/*
 * A 1024 x 1024 noise image as one tile, one thread, marker-less: the
 * polls are those of InitRows, PointerRows and LabelRows (64 items of 16
 * rows each: 65 polls), of the one key round (one tile: 2) and of the
 * minima numbering: three passes over its 8 bands (9 polls each) and the 7
 * seams between them, after the first pass.  Stopping at any of them gives
 * PB_ERR_STOPPED with no poll after; never stopping gives the labels of a
 * run without poll.
 */
void
test_ws_minima_poll(void)
{
	int			w = 1024,
				h = 1024;
	int64_t		n = (int64_t) w * h;
	uint8_t    *img = malloc((size_t) n);
	uint32_t   *want = malloc((size_t) n * sizeof(uint32_t));
	uint32_t   *labels = malloc((size_t) n * sizeof(uint32_t));
	Rng			r = {2020};
	PbWatershedSpec s;
	PbRun plain = {1, 1024, NULL, NULL};
	WsPollCount never = {0, 0};
	PbRun run = {1, 1024, WsCountingPoll, &never};
	int			bands = 8;
	int			numbering = 3 * (bands + 1) + bands - 1;
	int			total = 3 * (h / 16 + 1) + 2 + numbering;
	int			minima = 2 * (h / 16 + 1) + 2 + 1;	/* its first poll */
	int			seams = minima + bands + 1; /* the first seam's */
	int			stops[] = {1, 66, minima - 1, minima, seams - 1, seams, seams + bands - 2,
	seams + bands - 1, minima + numbering - 1, minima + numbering, total};

	if (img == NULL || want == NULL || labels == NULL)
		abort();
	for (int64_t i = 0; i < n; i++)
		img[i] = (uint8_t) RngRange(&r, 0, 255);
	memset(&s, 0, sizeof(s));
	s.image.width = w;
	s.image.height = h;
	s.image.type = PB_PIX_8BUI;
	s.image.data = img;
	s.connectivity = 8;
	CHECK_INT(PbWatershedCpu(&s, want, &plain), PB_OK);
	CHECK_INT(PbWatershedCpu(&s, labels, &run), PB_OK);
	CHECK_INT(never.calls, total);
	CHECK(memcmp(labels, want, (size_t) n * sizeof(uint32_t)) == 0);
	for (int k = 0; k < (int) (sizeof(stops) / sizeof(stops[0])); k++)
	{
		WsPollCount pc = {0, stops[k]};

		pb_test_context("stop at poll %d of %d", stops[k], total);
		run.poll_arg = &pc;
		CHECK_INT(PbWatershedCpu(&s, labels, &run), PB_ERR_STOPPED);
		CHECK_INT(pc.calls, stops[k]);
	}
	free(img);
	free(want);
	free(labels);
}
