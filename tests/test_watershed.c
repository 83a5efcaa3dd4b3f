/*
 * test_watershed.c: the watershed core (src/core/raster/watershed_cpu.c)
 * against the reference automaton (watershed_ref.c) and against results
 * worked out by hand from the definition in watershed.h: small known cases
 * (basins, split plateaus, ties, markers, walls, lines), random images of
 * every type with plateaus, walls and markers over many tile sizes and
 * thread counts, long spiral paths, float specials, the basins of a
 * marker-less run against an independent count of regional minima,
 * stopping, bad arguments, and the markers and mask read from bands.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "../src/core/raster/raster_rules.h"
#include "../src/core/raster/ws_pointers.h"
#include "harness.h"
#include "tests.h"
#include "watershed_ref.h"

/* Run the CPU version with the given threads and tile side. */
static PbStatus
RunCpu(const PbWatershedSpec *s, uint32_t *labels, int threads, int tile)
{
	PbRun run = {threads, tile, NULL, NULL};

	return PbWatershedCpu(s, labels, &run);
}

/* Check labels against expected values, both versions. */
static void
CheckKnown(const PbWatershedSpec *s, const uint32_t *expect)
{
	int64_t		n = (int64_t) s->image.width * s->image.height;
	uint32_t   *a = WsTestAlloc(n * 4),
			   *b = WsTestAlloc(n * 4);

	CHECK_INT(PbWatershedRef(s, a), PB_OK);
	CHECK_INT(RunCpu(s, b, 2, 2), PB_OK);
	for (int64_t i = 0; i < n; i++)
	{
		if (a[i] != expect[i])
			pb_check_fail(__FILE__, __LINE__, "ref pixel %lld: %u, expected %u",
						  (long long) i, a[i], expect[i]);
		if (b[i] != expect[i])
			pb_check_fail(__FILE__, __LINE__, "cpu pixel %lld: %u, expected %u",
						  (long long) i, b[i], expect[i]);
	}
	free(a);
	free(b);
}

/* Basins, ties by the neighbour order, split plateaus, lines. */
void
test_ws_known_markerless(void)
{
	uint8_t		ridge[5] = {1, 2, 3, 2, 1};
	uint8_t		even[6] = {0, 5, 5, 5, 5, 0};
	uint8_t		odd[5] = {0, 5, 5, 5, 0};
	uint8_t		flat[9] = {4, 4, 4, 4, 4, 4, 4, 4, 4};
	/* two minima at the corners of a 3x3; the centre is closer to neither */
	uint8_t		diag[9] = {0, 1, 2, 1, 2, 1, 2, 1, 0};
	PbWatershedSpec s;

	pb_test_context("ridge: the top goes left (neighbour order)");
	s = WsTestSpec(5, 1, PB_PIX_8BUI, ridge, NULL, NULL, 4, false);
	CheckKnown(&s, (uint32_t[]) {1, 1, 1, 2, 2});
	pb_test_context("ridge with lines: the later-flooded side gives way");
	s.lines = true;
	CheckKnown(&s, (uint32_t[]) {1, 1, 0, 2, 2});
	pb_test_context("even plateau split in halves by distance");
	s = WsTestSpec(6, 1, PB_PIX_8BUI, even, NULL, NULL, 8, false);
	CheckKnown(&s, (uint32_t[]) {1, 1, 1, 2, 2, 2});
	pb_test_context("odd plateau: the middle goes left");
	s = WsTestSpec(5, 1, PB_PIX_8BUI, odd, NULL, NULL, 8, false);
	CheckKnown(&s, (uint32_t[]) {1, 1, 1, 2, 2});
	pb_test_context("constant image: one basin");
	s = WsTestSpec(3, 3, PB_PIX_8BUI, flat, NULL, NULL, 8, false);
	CheckKnown(&s, (uint32_t[]) {1, 1, 1, 1, 1, 1, 1, 1, 1});
	s.lines = true;
	CheckKnown(&s, (uint32_t[]) {1, 1, 1, 1, 1, 1, 1, 1, 1});
	/*
	 * 4-connected: (1,0) and (0,1) are 1, next to minimum 1; (2,1), (1,2)
	 * next to minimum 2; (1,1) = 2 sees four 1s at key (1,0): up first.
	 * (2,0) = 2 sees (1,0) left and (2,1) down, both (1,0): left first.
	 */
	pb_test_context("diagonal minima, 4-connected");
	s = WsTestSpec(3, 3, PB_PIX_8BUI, diag, NULL, NULL, 4, false);
	CheckKnown(&s, (uint32_t[]) {1, 1, 1, 1, 1, 2, 1, 2, 2});
	/* 8-connected: (1,1) reaches both minima directly (level 0): up-left first */
	pb_test_context("diagonal minima, 8-connected");
	s.connectivity = 8;
	CheckKnown(&s, (uint32_t[]) {1, 1, 1, 1, 1, 2, 1, 2, 2});
}

/* Markers, unreachable pixels, walls, lakes below a marker. */
void
test_ws_known_markers(void)
{
	uint8_t		h[5] = {3, 1, 3, 1, 3};
	uint32_t	m1[5] = {0, 0, 0, 0, 7};
	uint32_t	m2[5] = {5, 0, 0, 0, 7};
	uint8_t		wall[5] = {0, 0, 1, 0, 0};
	uint16_t	h16[6] = {9, 2, 2, 2, 2, 9};
	uint32_t	m3[6] = {4, 0, 0, 0, 0, 6};
	PbWatershedSpec s;

	pb_test_context("one marker floods everything, lakes included");
	s = WsTestSpec(5, 1, PB_PIX_8BUI, h, NULL, m1, 4, false);
	CheckKnown(&s, (uint32_t[]) {7, 7, 7, 7, 7});
	pb_test_context("a wall cuts the left part off: unreachable is 0");
	s.wall = wall;
	CheckKnown(&s, (uint32_t[]) {0, 0, 0, 7, 7});
	pb_test_context("two markers share the middle peak: the left wins the tie");
	s = WsTestSpec(5, 1, PB_PIX_8BUI, h, NULL, m2, 4, false);
	CheckKnown(&s, (uint32_t[]) {5, 5, 5, 7, 7});
	s.lines = true;
	CheckKnown(&s, (uint32_t[]) {5, 5, 0, 7, 7});
	/* a lake between two high markers is split by distance from each */
	pb_test_context("a lake split between two markers");
	s = WsTestSpec(6, 1, PB_PIX_16BUI, h16, NULL, m3, 8, false);
	CheckKnown(&s, (uint32_t[]) {4, 4, 4, 6, 6, 6});
}

/* A random image of type with values in [0, levels), NaN/inf sprinkled for floats. */
static void *
RandomImage(Rng *r, int w, int h, PbPixType type, int levels)
{
	int64_t		n = (int64_t) w * h;
	void	   *d = WsTestAlloc(n * 4);

	for (int64_t i = 0; i < n; i++)
	{
		uint32_t	v = (uint32_t) (RngNext(r) % (uint64_t) levels);

		if (type == PB_PIX_16BUI)
			((uint16_t *) d)[i] = (uint16_t) (v * 257);
		else if (type == PB_PIX_32BF)
		{
			float		f = (float) v - levels / 2.0f;
			uint64_t	k = RngNext(r) % 64;

			if (k == 0)
				f = NAN;
			else if (k == 1)
				f = INFINITY;
			else if (k == 2)
				f = -INFINITY;
			else if (k == 3 && f == 0.0f)
				f = -0.0f;
			((float *) d)[i] = f;
		}
		else
			((uint8_t *) d)[i] = (uint8_t) v;
	}
	return d;
}

/* Compare the CPU version (several threads and tiles) with the reference. */
static void
CompareWithRef(const PbWatershedSpec *s)
{
	static const int tiles[] = {1, 2, 3, 5, 8, 0};
	static const int threads[] = {1, 3, 2, 4, 1, 2};

	WsCheckCpuAgainstRef(s, tiles, threads, 6);
}

/* Random images of every type, connectivity, with and without markers, walls, lines. */
void
test_ws_cpu_matches_ref_random(void)
{
	Rng			r = {12345};
	static const PbPixType types[] = {PB_PIX_8BUI, PB_PIX_16BUI, PB_PIX_32BF, PB_PIX_1BB};

	for (int iter = 0; iter < 160; iter++)
	{
		int			w = 1 + (int) (RngNext(&r) % 23),
					h = 1 + (int) (RngNext(&r) % 19);
		PbPixType	type = types[iter % 4];
		int			levels = type == PB_PIX_1BB ? 2 : 2 + (int) (RngNext(&r) % 12);
		void	   *img = RandomImage(&r, w, h, type, levels);
		uint8_t    *wall = NULL;
		uint32_t   *markers = NULL;
		PbWatershedSpec s;

		if (iter % 3 == 1)
		{
			wall = WsTestAlloc((size_t) w * h);
			for (int i = 0; i < w * h; i++)
				wall[i] = RngNext(&r) % 6 == 0;
		}
		if (iter % 2 == 1)
		{
			markers = WsTestAlloc((size_t) w * h * 4);
			for (int i = 0; i < w * h; i++)
				markers[i] = RngNext(&r) % 9 == 0 ? 1 + (uint32_t) (RngNext(&r) % 4) : 0;
		}
		s = WsTestSpec(w, h, type, img, wall, markers, iter % 4 < 2 ? 4 : 8, iter % 5 == 0);
		pb_test_context("iteration %d: %dx%d type %d levels %d conn %d markers %d walls %d lines %d",
						iter, w, h, (int) type, levels, s.connectivity, markers != NULL,
						wall != NULL, s.lines);
		CompareWithRef(&s);
		free(img);
		free(wall);
		free(markers);
	}
}

/*
 * Long paths: a serpentine corridor (open rows joined at alternate ends)
 * descending to its far end (one basin whose pointers wind through every
 * tile), and the same corridor flat (a plateau whose distances wind
 * through every tile), marker-less and with a marker at the entrance.
 */
void
test_ws_serpentine(void)
{
	int			w = 41,
				h = 37,
				step = 0;
	uint16_t   *img = WsTestAlloc((size_t) w * h * 2);
	uint8_t    *wall = WsTestAlloc((size_t) w * h);
	uint32_t   *markers = WsTestAlloc((size_t) w * h * 4);

	memset(wall, 1, (size_t) w * h);
	for (int y = 0; y < h; y += 2)
		for (int k = 0; k < w; k++)
		{
			int			x = (y / 2) % 2 ? w - 1 - k : k;

			wall[y * w + x] = 0;
			img[y * w + x] = (uint16_t) (60000 - step++);
			if (k == w - 1 && y + 1 < h)
			{
				wall[(y + 1) * w + x] = 0;
				img[(y + 1) * w + x] = (uint16_t) (60000 - step++);
			}
		}
	markers[0] = 3;
	for (int flat = 0; flat < 2; flat++)
	{
		if (flat)
			for (int i = 0; i < w * h; i++)
				img[i] = 100;
		for (int m = 0; m < 2; m++)
			for (int conn = 4; conn <= 8; conn += 4)
			{
				PbWatershedSpec s = WsTestSpec(w, h, PB_PIX_16BUI, img, wall, m ? markers : NULL, conn, m);
				uint32_t   *labels = WsTestAlloc((size_t) w * h * 4);

				pb_test_context("serpentine flat %d markers %d conn %d", flat, m, conn);
				CompareWithRef(&s);
				/* one basin fills the corridor */
				CHECK_INT(RunCpu(&s, labels, 2, 4), PB_OK);
				for (int i = 0; i < w * h; i++)
					CHECK_INT(labels[i], wall[i] ? 0 : (m ? 3 : 1));
				free(labels);
			}
	}
	free(img);
	free(wall);
	free(markers);
}

/*
 * Flood-fill the equal-level component of pixel i (connectivity conn)
 * into comp (value id), returning whether no pixel of it has a lower
 * non-wall neighbour: whether it is a regional minimum.
 */
static bool
MinimumComponent(const PbWatershedSpec *s, const uint32_t *lv, int64_t i, int32_t id,
				 int32_t *comp, int64_t *stack)
{
	static const int dx[8] = {0, -1, 1, 0, -1, 1, -1, 1};
	static const int dy[8] = {-1, 0, 0, 1, -1, -1, 1, 1};
	int64_t		w = s->image.width,
				h = s->image.height,
				top = 0;
	bool		minimum = true;

	comp[i] = id;
	stack[top++] = i;
	while (top > 0)
	{
		int64_t		u = stack[--top];

		for (int j = 0; j < s->connectivity; j++)
		{
			int64_t		x = u % w + dx[j],
						y = u / w + dy[j],
						v = y * w + x;

			if (x < 0 || y < 0 || x >= w || y >= h || lv[v] == PB_WS_INF)
				continue;
			if (lv[v] < lv[u])
				minimum = false;
			else if (lv[v] == lv[u] && comp[v] == 0)
			{
				comp[v] = id;
				stack[top++] = v;
			}
		}
	}
	return minimum;
}

/*
 * Check a marker-less run of s on threads against an independent count:
 * every regional minimum (by flood fill) carries one label of its own,
 * the labels are 1..K with K the number of minima, numbered in row-major
 * order of first pixels.
 */
static void
CheckMinimaLabels(const PbWatershedSpec *s, int threads, int tile)
{
	int64_t		n = (int64_t) s->image.width * s->image.height;
	uint32_t   *lv = WsTestAlloc(n * 4),
			   *labels = WsTestAlloc(n * 4);
	int32_t    *comp = WsTestAlloc(n * 4);
	int64_t    *stack = WsTestAlloc(n * 8);
	uint32_t   *minlab = WsTestAlloc((n + 1) * 4);	/* per component: its label, if a minimum */
	int32_t		ncomp = 0;
	uint32_t	minima = 0,
				maxlab = 0;

	for (int64_t i = 0; i < n; i++)
		lv[i] = PbWsLevel(s, i);
	CHECK_INT(RunCpu(s, labels, threads, tile), PB_OK);
	for (int64_t i = 0; i < n; i++)
	{
		if (lv[i] == PB_WS_INF)
		{
			CHECK_INT(labels[i], 0);
			continue;
		}
		CHECK(labels[i] != 0);	/* every pixel drains to some minimum */
		if (labels[i] > maxlab)
			maxlab = labels[i];
		if (comp[i] == 0 && MinimumComponent(s, lv, i, ++ncomp, comp, stack))
		{
			minlab[ncomp] = ++minima;	/* a new minimum, in row-major order */
			CHECK_INT(labels[i], minima);
		}
		/* every pixel of a minimum carries its minimum's label */
		if (minlab[comp[i]] != 0)
			CHECK_INT(labels[i], minlab[comp[i]]);
	}
	CHECK_INT(maxlab, minima);
	free(minlab);
	free(lv);
	free(labels);
	free(comp);
	free(stack);
}

/* Marker-less basins of random plateaued images against the independent count. */
void
test_ws_basins_are_minima(void)
{
	Rng			r = {777};

	for (int iter = 0; iter < 40; iter++)
	{
		int			w = 5 + (int) (RngNext(&r) % 60),
					h = 5 + (int) (RngNext(&r) % 50);
		PbPixType	type = iter % 2 ? PB_PIX_8BUI : PB_PIX_32BF;
		void	   *img = RandomImage(&r, w, h, type, 3 + iter % 7);
		PbWatershedSpec s = WsTestSpec(w, h, type, img, NULL, NULL, iter % 3 ? 8 : 4, false);

		pb_test_context("iteration %d: %dx%d conn %d", iter, w, h, s.connectivity);
		CheckMinimaLabels(&s, 3, 16);
		free(img);
	}
}

/* A counting allocator over malloc, for test_ws_scratch_allocator. */
typedef struct CountingAlloc
{
	int			allocs,
				releases;
	size_t		bytes;
} CountingAlloc;

/* PbAllocator alloc of the counting allocator. */
static void *
CountAlloc(void *ctx, size_t size)
{
	CountingAlloc *c = ctx;

	c->allocs++;
	c->bytes += size;
	return WsTestAlloc(size);
}

/* PbAllocator release of the counting allocator. */
static void
CountRelease(void *ctx, void *ptr)
{
	CountingAlloc *c = ctx;

	c->releases++;
	free(ptr);
}

/*
 * PbWatershedCpuIn takes its image-sized scratch from the allocator it is
 * given (14 bytes a pixel with markers; marker-less, no levels: 10, or 14
 * with lines, whose minima's forest cannot take the keys' place), gives
 * all of it back, and labels as PbWatershedCpu does.
 */
void
test_ws_scratch_allocator(void)
{
	Rng			r = {4242};
	int			w = 61,
				h = 47;
	int64_t		n = (int64_t) w * h;
	void	   *img = RandomImage(&r, w, h, PB_PIX_8BUI, 6);
	uint32_t   *markers = WsTestAlloc(n * 4);
	uint32_t   *want = WsTestAlloc(n * 4),
			   *got = WsTestAlloc(n * 4);

	for (int64_t i = 0; i < n; i += 97)
		markers[i] = (uint32_t) (i % 5 + 1);
	for (int mk = 0; mk < 2; mk++)
		for (int lines = 0; lines < 2; lines++)
		{
			PbWatershedSpec s = WsTestSpec(w, h, PB_PIX_8BUI, img, NULL, mk ? markers : NULL, 8,
										   lines != 0);
			CountingAlloc c = {0, 0, 0};
			PbAllocator a = {CountAlloc, NULL, CountRelease, NULL, &c};
			PbRun		run = {3, 16, NULL, NULL};
			bool		forest = !mk && lines;

			pb_test_context("markers %d lines %d", mk, lines);
			CHECK_INT(PbWatershedCpu(&s, want, &run), PB_OK);
			CHECK_INT(PbWatershedCpuIn(&s, got, &run, &a), PB_OK);
			CHECK(memcmp(want, got, (size_t) n * 4) == 0);
			CHECK_INT(c.allocs, mk || forest ? 4 : 3);
			CHECK_INT(c.releases, c.allocs);
			CHECK_INT((int64_t) c.bytes, n * (mk || forest ? 14 : 10));
		}
	free(img);
	free(markers);
	free(want);
	free(got);
}

/*
 * Minima whose first pixel is joined to the rest only rows further down,
 * across the seams of the numbering's bands of rows (any thread count):
 * a U (two bars meeting at the bottom) with a lone minimum between its
 * bars, a staircase joined only diagonally (one minimum 8-connected, one
 * per step 4-connected), and with a wall cutting a bar.
 */
void
test_ws_minima_across_bands(void)
{
	const int	w = 23,
				h = 61;
	uint8_t    *img = WsTestAlloc(w * h);
	uint8_t    *wall = WsTestAlloc(w * h);

	memset(img, 9, w * h);
	for (int y = 0; y < h - 1; y++)	/* the U's bars, the bottom joining them */
		img[y * w + 2] = img[y * w + 10] = 0;
	for (int x = 2; x <= 10; x++)
		img[(h - 2) * w + x] = 0;
	img[30 * w + 6] = 0;		/* the lone minimum between the bars */
	for (int y = 0; y < 12; y++)	/* the staircase, level 1 */
		img[(y + 3) * w + 14 + y % 9] = 1;
	wall[40 * w + 10] = 1;		/* cuts the right bar: its top is a minimum of its own */
	for (int conn = 4; conn <= 8; conn += 4)
		for (int m = 0; m < 2; m++)
		{
			PbWatershedSpec s = WsTestSpec(w, h, PB_PIX_8BUI, img, m ? wall : NULL, NULL, conn, false);
			static const int threads[] = {1, 2, 5, 16};

			for (int t = 0; t < 4; t++)
			{
				pb_test_context("conn %d, wall %d, %d threads", conn, m, threads[t]);
				CheckMinimaLabels(&s, threads[t], 8);
			}
		}
	free(img);
	free(wall);
}

/* Poll for test_ws_stopped: stop on the first call. */
static int
StopAtOnce(void *arg)
{
	(*(int *) arg)++;
	return 1;
}

/* A poll that says stop gives PB_ERR_STOPPED. */
void
test_ws_stopped(void)
{
	int			w = 300,
				h = 300,
				calls = 0;
	Rng			r = {5};
	void	   *img = RandomImage(&r, w, h, PB_PIX_8BUI, 50);
	uint32_t   *labels = WsTestAlloc((size_t) w * h * 4);
	PbWatershedSpec s = WsTestSpec(w, h, PB_PIX_8BUI, img, NULL, NULL, 8, false);
	PbRun run = {2, 16, StopAtOnce, &calls};

	CHECK_INT(PbWatershedCpu(&s, labels, &run), PB_ERR_STOPPED);
	CHECK(calls >= 1);
	free(img);
	free(labels);
}

/*
 * The watershed's markers and mask read from bands (nodata.h): nodata and
 * zero marker pixels mark nothing, a negative one is reported where it
 * is; zero, nodata and NaN mask pixels are walls, in either byte order.
 */
void
test_ws_nodata_bands(void)
{
	int16_t		mk[5] = {0, 3, 7, 12, 7};
	int16_t		mkx[5];
	float		mask[5] = {1.5f, 0, NAN, 4, 7};
	uint32_t	labels[5];
	uint8_t		wall[5] = {0, 0, 0, 0, 1};
	double		neg = 0;
	PbRasterBand b;

	for (int i = 0; i < 5; i++)
		mkx[i] = (int16_t) (((uint16_t) mk[i] >> 8) | ((uint16_t) mk[i] << 8));
	memset(&b, 0, sizeof(b));
	b.wkb_type = PB_WKB_16BSI;
	b.has_nodata = true;
	b.nodata = 7;
	for (int swap = 0; swap < 2; swap++)
	{
		b.pixels = (const uint8_t *) (swap ? mkx : mk);
		b.swap = swap;
		CHECK_INT(PbWsMarkerLabels(&b, 5, labels, &neg), -1);
		CHECK(labels[0] == 0 && labels[1] == 3 && labels[2] == 0 && labels[3] == 12 &&
			  labels[4] == 0);
	}
	mk[3] = -2;
	b.pixels = (const uint8_t *) mk;
	b.swap = false;
	CHECK_INT(PbWsMarkerLabels(&b, 5, labels, &neg), 3);
	CHECK(neg == -2);

	b.wkb_type = PB_WKB_32BF;
	b.pixels = (const uint8_t *) mask;
	b.nodata = 4;
	PbWsMaskWalls(&b, 5, wall);
	CHECK(!wall[0] && wall[1] && wall[2] && wall[3] && wall[4]);
	b.all_nodata = true;
	wall[0] = 0;
	PbWsMaskWalls(&b, 5, wall);
	CHECK(wall[0]);
}

/* Arguments the watershed refuses. */
void
test_ws_badarg(void)
{
	uint8_t		px[4] = {0};
	uint32_t	labels[4];
	PbWatershedSpec s = WsTestSpec(2, 2, PB_PIX_8BUI, px, NULL, NULL, 8, false);
	PbRun run = {1, 0, NULL, NULL};

	CHECK_INT(PbWatershedCheck(&s), PB_OK);
	CHECK_INT(PbWatershedCheck(NULL), PB_ERR_BADARG);
	s.connectivity = 6;
	CHECK_INT(PbWatershedCheck(&s), PB_ERR_BADARG);
	CHECK_INT(PbWatershedCpu(&s, labels, &run), PB_ERR_BADARG);
	CHECK_INT(PbWatershedRef(&s, labels), PB_ERR_BADARG);
	s.connectivity = 4;
	s.image.width = 0;
	CHECK_INT(PbWatershedCheck(&s), PB_ERR_BADARG);
	s.image.width = 70000;
	s.image.height = 70000;
	CHECK_INT(PbWatershedCheck(&s), PB_ERR_BADARG);	/* labels would overflow */
	/*
	 * marker-less: 2^32 pixels on the CPU; on the GPU alone a minimum's
	 * index + 1 stays apart from 0 and PB_WS_INF
	 */
	s.image.width = 65536;
	s.image.height = 65536;
	CHECK_INT(PbWatershedCheck(&s), PB_OK);
	CHECK_INT(PbWatershedCheckGpu(&s), PB_ERR_BADARG);
	CHECK_INT(PbWatershedRef(&s, labels), PB_ERR_BADARG);
	s.image.height = 65537;
	CHECK_INT(PbWatershedCheck(&s), PB_ERR_BADARG);
	CHECK_INT(PbWatershedCpu(&s, labels, &run), PB_ERR_BADARG);
	s.image.height = 65535;
	CHECK_INT(PbWatershedCheckGpu(&s), PB_OK);
	s.image.width = 2;			/* 2^32 - 2 pixels: one over the GPU's last */
	s.image.height = INT32_MAX;
	CHECK_INT(PbWatershedCheckGpu(&s), PB_ERR_BADARG);
	CHECK_INT(PbWatershedCheck(&s), PB_OK);
	s.image.width = 1;
	CHECK_INT(PbWatershedCheckGpu(&s), PB_OK);
	/* with markers: 2^32 pixels on both */
	s.markers = labels;
	s.image.width = 65536;
	s.image.height = 65536;
	CHECK_INT(PbWatershedCheck(&s), PB_OK);
	CHECK_INT(PbWatershedCheckGpu(&s), PB_OK);
	s.image.height = 65537;
	CHECK_INT(PbWatershedCheck(&s), PB_ERR_BADARG);
	CHECK_INT(PbWatershedCheckGpu(&s), PB_ERR_BADARG);
	s.markers = NULL;
	s.image.width = 2;
	s.image.height = 2;
	s.image.data = NULL;
	CHECK_INT(PbWatershedCheck(&s), PB_ERR_BADARG);
	s.image.data = px;
	s.image.type = (PbPixType) 99;
	CHECK_INT(PbWatershedCheck(&s), PB_ERR_BADARG);
	s.image.type = PB_PIX_8BUI;
	run.threads = 0;
	CHECK_INT(PbWatershedCpu(&s, labels, &run), PB_ERR_BADARG);
	run.threads = 1;
	CHECK_INT(PbWatershedCpu(&s, NULL, &run), PB_ERR_BADARG);
}

/*
 * The vectorized pointer rule (ws_pointers.h) against a plain fold: every
 * pixel of a stretch gets its first neighbour of least key, on keys drawn
 * from a few values (so that ties are everywhere) and from the whole
 * range, for stretches of every length up to a few vectors (the
 * vector loop's remainders), 4- and 8-connected.
 */
void
test_ws_least_neighbours(void)
{
	const int64_t w = 37,
				h = 3;
	uint64_t	key[37 * 3];
	uint8_t		out[37];
	int64_t		off[8];

	srand(11);
	for (int j = 0; j < 8; j++)
		off[j] = PbNbDy(j) * w + PbNbDx(j);
	for (int round = 0; round < 400; round++)
	{
		int			conn = round % 2 ? 8 : 4;
		int64_t		n = 1 + round % (w - 2);

		for (int64_t i = 0; i < w * h; i++)
			key[i] = round % 3 == 0 ? (uint64_t) rand() << 33 ^ (uint64_t) rand()
				: ((uint64_t) (rand() % 3) << 32 | (uint64_t) (rand() % 2)) +
				(round % 5 == 0 ? UINT64_MAX - 8 : 0);
		memset(out, 0xff, sizeof(out));
		PbWsLeastNeighbours(key + w + 1, off, conn, n, out);
		for (int64_t x = 0; x < n; x++)
		{
			const uint64_t *k = key + w + 1 + x;
			int			p = 0;

			for (int j = 1; j < conn; j++)
				if (k[off[j]] < k[off[p]])
					p = j;
			if (out[x] != p)
				pb_check_fail(__FILE__, __LINE__, "round %d pixel %lld: %d, expected %d",
							  round, (long long) x, out[x], p);
		}
		CHECK_INT(out[n], 0xff);	/* nothing written past the stretch */
	}
}
