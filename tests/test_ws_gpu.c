/*
 * test_ws_gpu.c: the GPU watershed (cuda/watershed_*.cu) against the CPU
 * core: PbGpuWatershed must equal PbWatershedRef (the synchronous
 * automaton) label for label on small images of every kind (noise,
 * plateaus, ramps, spirals, mazes, constant, cones, float specials; every
 * pixel type, 4 and 8 connectivity, with and without markers, walls and
 * lines, sizes from 1x1 to odd non-square ones), and PbWatershedCpu on
 * 1024^2 to 2048^2 images; a tiny memory budget (tiles) must equal an
 * untiled run (also on two GPUs taking the tiles together), the
 * synchronous automaton the block-asynchronous one, and repeated runs
 * each other; polling and bad arguments.  Timings at
 * 2048^2 and 8192^2 are printed with PB_TEST_VERBOSE=1 (32768^2 too with
 * PB_WS_HUGE=1).  Built only into pb_gpu_tests (make gpu-check), which
 * needs a CUDA device.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../cuda/pb_raster_gpu.h"
#include "../cuda/pb_raster_gpu_test.h"
#include "../src/core/raster/pb_raster.h"
#include "harness.h"
#include "test_gpu_context.h"
#include "watershed_ref.h"

#define WG_BUDGET ((size_t) 8 << 30)	/* enough for every untiled test */

#define WG_THREADS 16

/* An input of the watershed: image, optional walls and markers. */
typedef struct WgCase
{
	PbImage		img;
	uint8_t    *wall;
	uint32_t   *markers;
} WgCase;

/* Image kinds of the generators. */
enum
{
	WG_NOISE,
	WG_PLATEAUS,
	WG_RAMP,
	WG_SPIRAL,
	WG_MAZE,
	WG_CONSTANT,
	WG_CONES,
	WG_SPECIAL,
	WG_KINDS
};

static const char *const wg_kind_names[] = {
	"noise", "plateaus", "ramp", "spiral", "maze", "constant", "cones", "special"
};
static const char *const wg_type_names[] = {"1BB", "8BUI", "16BUI", "32BF"};

/* malloc that aborts the test program on failure. */
static void *
WgMalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

/* Wall-clock milliseconds, for the timing notes. */
static double
WgNowMs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Set pixel i of the image to v, clamped to the type's range. */
static void
WgSet(PbImage *m, size_t i, double v)
{
	switch (m->type)
	{
		case PB_PIX_1BB:
			((uint8_t *) m->data)[i] = v > 0 ? 1 : 0;
			break;
		case PB_PIX_8BUI:
			((uint8_t *) m->data)[i] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
			break;
		case PB_PIX_16BUI:
			((uint16_t *) m->data)[i] = (uint16_t) (v < 0 ? 0 : v > 65535 ? 65535 : v);
			break;
		case PB_PIX_32BF:
			((float *) m->data)[i] = (float) v;
			break;
	}
}

/* The largest value used for a type by the generators. */
static double
WgTop(PbPixType t)
{
	return t == PB_PIX_1BB ? 1 : t == PB_PIX_8BUI ? 255 : t == PB_PIX_16BUI ? 65535 : 1000;
}

/* One corridor pixel of a spiral or maze: low, a few values. */
static double
WgCorridor(Rng *r, PbPixType t)
{
	return t == PB_PIX_1BB ? 0 : (double) RngRange(r, 1, 3);
}

/* A spiral of 1-pixel corridors (values 1..3) between walls of height top. */
static void
WgSpiral(PbImage *m, Rng *r)
{
	int			w = m->width,
				h = m->height;
	int			x0 = 0,
				y0 = 0,
				x1 = w - 1,
				y1 = h - 1;

	for (size_t i = 0; i < (size_t) w * h; i++)
		WgSet(m, i, WgTop(m->type));
#define SETC(x, y) WgSet(m, (size_t) (y) * w + (x), WgCorridor(r, m->type))
	while (x0 <= x1 && y0 <= y1)
	{
		for (int x = x0; x <= x1; x++)
			SETC(x, y0);
		for (int y = y0; y <= y1; y++)
			SETC(x1, y);
		if (y1 > y0)
			for (int x = x1; x >= x0; x--)
				SETC(x, y1);
		if (x1 > x0)
			for (int y = y1; y >= y0 + 2; y--)
				SETC(x0, y);
		if (x0 + 1 <= x1 && y0 + 2 <= y1)
			SETC(x0 + 1, y0 + 2);
		x0 += 2;
		y0 += 2;
		x1 -= 2;
		y1 -= 2;
	}
#undef SETC
}

/* A random maze (depth-first carving): corridors 1..3, walls of height top. */
static void
WgMaze(PbImage *m, Rng *r)
{
	int			cw = (m->width + 1) / 2,
				ch = (m->height + 1) / 2;
	int		   *stack = WgMalloc(sizeof(int) * (size_t) cw * ch);
	uint8_t    *seen = WgMalloc((size_t) cw * ch);
	int			sp = 0;

	memset(seen, 0, (size_t) cw * ch);
	for (size_t i = 0; i < (size_t) m->width * m->height; i++)
		WgSet(m, i, WgTop(m->type));
	stack[sp++] = 0;
	seen[0] = 1;
	WgSet(m, 0, WgCorridor(r, m->type));
	while (sp > 0)
	{
		int			c = stack[sp - 1];
		int			cx = c % cw,
					cy = c / cw;
		int			opts[4],
					no = 0;
		static const int dx[4] = {1, -1, 0, 0},
					dy[4] = {0, 0, 1, -1};

		for (int d = 0; d < 4; d++)
		{
			int			nx = cx + dx[d],
						ny = cy + dy[d];

			if (nx >= 0 && nx < cw && ny >= 0 && ny < ch && !seen[ny * cw + nx] &&
				2 * nx < m->width && 2 * ny < m->height)
				opts[no++] = d;
		}
		if (no == 0)
		{
			sp--;
			continue;
		}
		{
			int			d = opts[RngRange(r, 0, no - 1)];
			int			nx = cx + dx[d],
						ny = cy + dy[d];

			WgSet(m, (size_t) (2 * cy + dy[d]) * m->width + 2 * cx + dx[d], WgCorridor(r, m->type));
			WgSet(m, (size_t) (2 * ny) * m->width + 2 * nx, WgCorridor(r, m->type));
			seen[ny * cw + nx] = 1;
			stack[sp++] = ny * cw + nx;
		}
	}
	free(stack);
	free(seen);
}

/*
 * Cones: discs of radius 4..rmax at random centres (about one per
 * spacing^2 pixels); inside, top minus the largest (radius - distance)
 * scaled, so each disc is a basin around its centre and touching discs
 * meet on ridges; outside all discs top.  centres (may be NULL)
 * receives the centre indices, *ncentres their number.
 */
static void
WgCones(PbImage *m, Rng *r, int spacing, int rmax, int64_t *centres, int *ncentres)
{
	int			w = m->width,
				h = m->height;
	int			n = (int) ((int64_t) w * h / ((int64_t) spacing * spacing)) + 1;
	float	   *best = WgMalloc(sizeof(float) * (size_t) w * h);
	double		top = WgTop(m->type);
	double		scale = m->type == PB_PIX_32BF ? 1.0 : top / (rmax + 1.0);

	for (size_t i = 0; i < (size_t) w * h; i++)
		best[i] = 0;
	for (int k = 0; k < n; k++)
	{
		int			cx = (int) RngRange(r, 0, w - 1),
					cy = (int) RngRange(r, 0, h - 1);
		int			rad = (int) RngRange(r, 4, rmax);

		if (centres)
			centres[k] = (int64_t) cy * w + cx;
		for (int y = cy - rad; y <= cy + rad; y++)
			for (int x = cx - rad; x <= cx + rad; x++)
			{
				double		d = sqrt((double) (x - cx) * (x - cx) + (double) (y - cy) * (y - cy));
				size_t		i = (size_t) y * w + x;

				if (x < 0 || y < 0 || x >= w || y >= h || d >= rad)
					continue;
				if (rad - d > best[i])
					best[i] = (float) (rad - d);
			}
	}
	if (ncentres)
		*ncentres = n;
	for (size_t i = 0; i < (size_t) w * h; i++)
		WgSet(m, i, m->type == PB_PIX_32BF ? -best[i]
			  : best[i] > 0 ? floor(top - 1 - best[i] * scale) : top);
	free(best);
}

/* A float from the awkward ones (NaN, infinities, signed zeros, denormals). */
static float
WgSpecial(Rng *r)
{
	static const float v[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-40f, -1e-40f, 3.5f, 1e30f};

	switch (RngRange(r, 0, 11))
	{
		case 8:
			return NAN;
		case 9:
			return INFINITY;
		case 10:
			return -INFINITY;
		case 11:
			return (float) RngRange(r, -3, 3);
	}
	return v[RngRange(r, 0, 7)];
}

/* A zeroed case of the size and type (no walls, no markers). */
static WgCase
WgNew(int w, int h, PbPixType t)
{
	WgCase		c;

	memset(&c, 0, sizeof(c));
	c.img.width = w;
	c.img.height = h;
	c.img.type = t;
	c.img.data = WgMalloc((size_t) w * h * PbPixSize(t));
	memset(c.img.data, 0, (size_t) w * h * PbPixSize(t));
	return c;
}

/* Free a case. */
static void
WgFree(WgCase *c)
{
	free(c->img.data);
	free(c->wall);
	free(c->markers);
	memset(c, 0, sizeof(*c));
}

/* Fill the image of a case with a kind (32BF specials: others get noise). */
static void
WgFill(WgCase *c, Rng *r, int kind)
{
	PbImage    *m = &c->img;
	int			w = m->width,
				h = m->height;
	size_t		n = (size_t) w * h;
	double		top = WgTop(m->type);
	int			bs = (int) RngRange(r, 1, 12);

	switch (kind)
	{
		case WG_NOISE:
		case WG_SPECIAL:
			for (size_t i = 0; i < n; i++)
			{
				if (kind == WG_SPECIAL && m->type == PB_PIX_32BF)
					((float *) m->data)[i] = WgSpecial(r);
				else if (m->type == PB_PIX_32BF)
					WgSet(m, i, (RngDouble(r) - 0.5) * 2000);
				else
					WgSet(m, i, (double) RngRange(r, 0, (int64_t) top));
			}
			break;
		case WG_PLATEAUS:		/* 4 levels in blocks of bs x bs */
			{
				int			bw = (w + bs - 1) / bs,
							bh = (h + bs - 1) / bs;
				double	   *lv = WgMalloc(sizeof(double) * (size_t) bw * bh);

				for (int k = 0; k < bw * bh; k++)
					lv[k] = (double) RngRange(r, 0, 3) * (top / 3);
				for (int y = 0; y < h; y++)
					for (int x = 0; x < w; x++)
						WgSet(m, (size_t) y * w + x, lv[(y / bs) * bw + x / bs]);
				free(lv);
			}
			break;
		case WG_RAMP:
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
					WgSet(m, (size_t) y * w + x, m->type == PB_PIX_8BUI
						  ? (double) (x + 2 * y) / 4 : (double) (x + 2 * y));
			break;
		case WG_SPIRAL:
			WgSpiral(m, r);
			break;
		case WG_MAZE:
			WgMaze(m, r);
			break;
		case WG_CONSTANT:
			for (size_t i = 0; i < n; i++)
				WgSet(m, i, top / 2);
			break;
		case WG_CONES:
			WgCones(m, r, 12, 9, NULL, NULL);
			break;
	}
}

/* Random walls over a fraction of the pixels. */
static void
WgWalls(WgCase *c, Rng *r, double frac)
{
	size_t		n = (size_t) c->img.width * c->img.height;

	free(c->wall);
	c->wall = WgMalloc(n);
	for (size_t i = 0; i < n; i++)
		c->wall[i] = RngDouble(r) < frac;
}

/* Random markers (labels 1..nlab) on a fraction of the pixels. */
static void
WgMarkers(WgCase *c, Rng *r, double frac, int nlab)
{
	size_t		n = (size_t) c->img.width * c->img.height;

	free(c->markers);
	c->markers = WgMalloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		c->markers[i] = RngDouble(r) < frac ? (uint32_t) RngRange(r, 1, nlab) : 0;
}

/* The spec of a case. */
static PbWatershedSpec
WgSpec(const WgCase *c, int conn, bool lines)
{
	PbWatershedSpec s;

	memset(&s, 0, sizeof(s));
	s.image = c->img;
	s.wall = c->wall;
	s.markers = c->markers;
	s.connectivity = conn;
	s.lines = lines;
	return s;
}

/* Whether two label arrays are equal; reports the first difference. */
static bool
WgSame(const uint32_t *got, const uint32_t *want, int w, int h, const char *what)
{
	for (size_t i = 0; i < (size_t) w * h; i++)
		if (got[i] != want[i])
		{
			pb_check_fail(__FILE__, __LINE__, "%s: pixel (%d, %d) is %u, want %u", what,
						  (int) (i % w), (int) (i / w), got[i], want[i]);
			return false;
		}
	return true;
}

/* Run the GPU with a budget; false (and a failure) unless it returned 0. */
static bool
WgGpu(const PbWatershedSpec *s, uint32_t *labels, size_t budget, PbRasterGpuStats *st)
{
	char		err[256] = "";
	int			rc = PbGpuWatershed(TestGpu(budget), s, labels, NULL, NULL, NULL, st, err, sizeof(err));

	if (rc != 0)
		pb_check_fail(__FILE__, __LINE__, "PbGpuWatershed returned %d: %s", rc, err);
	return rc == 0;
}

/* GPU == PbWatershedRef for one spec. */
static void
WgCheckRef(const PbWatershedSpec *s)
{
	size_t		n = (size_t) s->image.width * s->image.height;
	uint32_t   *g = WgMalloc(n * sizeof(uint32_t));
	uint32_t   *want = WgMalloc(n * sizeof(uint32_t));

	if (PbWatershedRef(s, want) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "PbWatershedRef failed");
	else if (WgGpu(s, g, WG_BUDGET, NULL))
		WgSame(g, want, s->image.width, s->image.height, "GPU vs reference");
	free(g);
	free(want);
}

/* ---------------------------------------------------------------------- */
/* against the reference */

/*
 * Every kind, type and size of small image, 4 and 8 connectivity,
 * marker-less and with sparse or dense markers, with and without walls
 * and lines: the GPU equals the reference automaton.
 */
void
test_wsgpu_small(void)
{
	static const int sizes[][2] = {{1, 1}, {1, 9}, {13, 1}, {7, 5}, {33, 31}, {64, 64}, {100, 37}};
	static const PbPixType types[] = {PB_PIX_1BB, PB_PIX_8BUI, PB_PIX_16BUI, PB_PIX_32BF};
	Rng			r = {61};

	for (int kind = 0; kind < WG_KINDS; kind++)
		for (int ti = 0; ti < 4; ti++)
			for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
			{
				WgCase		c = WgNew(sizes[si][0], sizes[si][1], types[ti]);

				WgFill(&c, &r, kind);
				for (int conn = 4; conn <= 8; conn += 4)
					for (int mode = 0; mode < 3; mode++)
						for (int wl = 0; wl < 4; wl++)
						{
							PbWatershedSpec s;

							free(c.markers);
							c.markers = NULL;
							free(c.wall);
							c.wall = NULL;
							if (mode > 0)
								WgMarkers(&c, &r, mode == 1 ? 0.01 : 0.2, mode == 1 ? 3 : 50);
							if (wl & 1)
								WgWalls(&c, &r, 0.1);
							s = WgSpec(&c, conn, (wl & 2) != 0);
							pb_test_context("%s %s %dx%d conn %d markers %d walls %d lines %d",
											wg_kind_names[kind], wg_type_names[ti], sizes[si][0],
											sizes[si][1], conn, mode, wl & 1, (wl & 2) != 0);
							WgCheckRef(&s);
						}
				WgFree(&c);
			}
}

/* Corner cases: a constant image is one basin, all walls are all 0. */
void
test_wsgpu_special(void)
{
	WgCase		c = WgNew(50, 40, PB_PIX_8BUI);
	PbWatershedSpec s;
	uint32_t   *g = WgMalloc(50 * 40 * sizeof(uint32_t));

	memset(c.img.data, 7, 50 * 40);
	s = WgSpec(&c, 8, true);
	pb_test_context("constant image");
	if (WgGpu(&s, g, WG_BUDGET, NULL))
		for (int i = 0; i < 50 * 40; i++)
			if (g[i] != 1)
			{
				pb_check_fail(__FILE__, __LINE__, "pixel %d: label %u, want 1", i, g[i]);
				break;
			}
	c.wall = WgMalloc(50 * 40);
	memset(c.wall, 1, 50 * 40);
	s = WgSpec(&c, 4, false);
	pb_test_context("all walls");
	if (WgGpu(&s, g, WG_BUDGET, NULL))
		for (int i = 0; i < 50 * 40; i++)
			if (g[i] != 0)
			{
				pb_check_fail(__FILE__, __LINE__, "pixel %d: label %u, want 0", i, g[i]);
				break;
			}
	WgFree(&c);
	free(g);
}

/* ---------------------------------------------------------------------- */
/* against the tiled CPU version, at size */

/* GPU == PbWatershedCpu for one spec. */
static void
WgCheckCpu(const PbWatershedSpec *s)
{
	size_t		n = (size_t) s->image.width * s->image.height;
	uint32_t   *g = WgMalloc(n * sizeof(uint32_t));
	uint32_t   *want = WgMalloc(n * sizeof(uint32_t));
	PbRun run = {WG_THREADS, 0, NULL, NULL};

	if (PbWatershedCpu(s, want, &run) != PB_OK)
		pb_check_fail(__FILE__, __LINE__, "PbWatershedCpu failed");
	else if (WgGpu(s, g, WG_BUDGET, NULL))
		WgSame(g, want, s->image.width, s->image.height, "GPU vs PbWatershedCpu");
	free(g);
	free(want);
}

/* 1024^2 to 2048^2 images of every kind: the GPU equals PbWatershedCpu. */
void
test_wsgpu_large(void)
{
	static const struct
	{
		int			w,
					h;
		PbPixType	t;
		int			kind;
		int			markers;	/* 0 none, 1 sparse, 2 dense */
		int			walls;
		int			conn;
		bool		lines;
	}			cases[] = {
		{1024, 1024, PB_PIX_8BUI, WG_NOISE, 0, 0, 8, true},
		{1024, 1024, PB_PIX_8BUI, WG_NOISE, 1, 0, 4, false},
		{2048, 2048, PB_PIX_8BUI, WG_CONES, 0, 1, 8, true},
		{2048, 2048, PB_PIX_32BF, WG_CONES, 1, 0, 8, false},
		{1536, 1024, PB_PIX_16BUI, WG_PLATEAUS, 0, 0, 4, true},
		{1536, 1024, PB_PIX_16BUI, WG_PLATEAUS, 2, 1, 8, true},
		{1023, 1025, PB_PIX_8BUI, WG_MAZE, 0, 0, 4, false},
		{1023, 1025, PB_PIX_8BUI, WG_MAZE, 1, 0, 8, true},
		{1024, 1024, PB_PIX_16BUI, WG_SPIRAL, 1, 0, 4, true},
		{2048, 1024, PB_PIX_32BF, WG_RAMP, 0, 0, 8, false},
		{2048, 1024, PB_PIX_32BF, WG_RAMP, 1, 1, 4, true},
		{1024, 1024, PB_PIX_32BF, WG_SPECIAL, 2, 0, 8, true},
	};
	Rng			r = {62};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
	{
		WgCase		c = WgNew(cases[k].w, cases[k].h, cases[k].t);
		PbWatershedSpec s;

		WgFill(&c, &r, cases[k].kind);
		if (cases[k].markers)
			WgMarkers(&c, &r, cases[k].markers == 1 ? 0.0005 : 0.05, 1000);
		if (cases[k].walls)
			WgWalls(&c, &r, 0.05);
		s = WgSpec(&c, cases[k].conn, cases[k].lines);
		pb_test_context("%s %s %dx%d conn %d markers %d walls %d lines %d",
						wg_kind_names[cases[k].kind], wg_type_names[cases[k].t], cases[k].w,
						cases[k].h, cases[k].conn, cases[k].markers, cases[k].walls, cases[k].lines);
		WgCheckCpu(&s);
		WgFree(&c);
	}
}

/* ---------------------------------------------------------------------- */
/* tiles, the synchronous automaton, repeated runs */

/*
 * A tiled run in host keys the caller lends (as the glue does, within its
 * memory budget): the same labels as the untiled run want, the keys
 * written in the lent bytes (they end as the image's final keys, no
 * longer the fill put there), kb bytes a pixel.
 */
static void
WgLentKeys(const PbWatershedSpec *s, const uint32_t *want, size_t budget, size_t kb)
{
	size_t		n = (size_t) s->image.width * s->image.height;
	size_t		bytes = PbGpuWatershedHostKeyBytes(s);
	uint8_t    *lent = WgMalloc(bytes);
	uint32_t   *got = WgMalloc(n * sizeof(uint32_t));
	char		err[256] = "";
	size_t		kept = 0;

	CHECK_INT((long long) bytes, (long long) (n * kb));
	memset(lent, 0x5A, bytes);
	if (PbGpuWatershed(TestGpu(budget), s, got, lent, NULL, NULL, NULL, err, sizeof(err)) != 0)
		pb_check_fail(__FILE__, __LINE__, "lent keys: %s", err);
	else
		WgSame(got, want, s->image.width, s->image.height, "tiled in lent keys vs untiled");
	for (size_t i = 0; i < bytes; i++)
		kept += lent[i] == 0x5A;
	if (kept == bytes)
		pb_check_fail(__FILE__, __LINE__, "the lent keys were not used");
	free(lent);
	free(got);
}

/* Tiny budgets (many tiles) give the untiled labels. */
void
test_wsgpu_tiles(void)
{
	static const size_t budgets[] = {40000, 150000};
	Rng			r = {63};

	for (int kind = 0; kind < WG_KINDS; kind++)
		for (int mode = 0; mode < 2; mode++)
		{
			WgCase		c = WgNew(301, 257, kind == WG_SPECIAL ? PB_PIX_32BF : PB_PIX_8BUI);
			uint32_t   *a = WgMalloc(sizeof(uint32_t) * 301 * 257);
			uint32_t   *b = WgMalloc(sizeof(uint32_t) * 301 * 257);
			PbWatershedSpec s;
			PbRasterGpuStats st;

			WgFill(&c, &r, kind);
			if (mode)
				WgMarkers(&c, &r, 0.002, 9);
			if (kind == WG_CONES)
				WgWalls(&c, &r, 0.05);
			s = WgSpec(&c, kind % 2 ? 4 : 8, true);
			for (size_t bi = 0; bi < 2; bi++)
			{
				pb_test_context("%s markers %d budget %zu", wg_kind_names[kind], mode, budgets[bi]);
				s.lines = bi == 0;
				if (!WgGpu(&s, a, WG_BUDGET, NULL) || !WgGpu(&s, b, budgets[bi], &st))
					continue;
				if (st.tiles < 4)
					pb_check_fail(__FILE__, __LINE__, "budget %zu: only %d tiles", budgets[bi], st.tiles);
				WgSame(b, a, 301, 257, "tiled vs untiled");
				WgLentKeys(&s, a, budgets[bi], mode ? 8 : 4);
			}
			WgFree(&c);
			free(a);
			free(b);
		}
}

/*
 * A tiled run whose regions are narrower than the widest stage more of
 * their rows at once, within the staging buffer: at 3776^2 with markers
 * and walls and a 280 MB budget the tiles are 3760 px, so the first
 * column's regions are one pixel narrower than the plan's, and staging
 * rows by their own width overran the buffer by 970 bytes (as 65536^2
 * did at 1GB, where the GPU failed and the CPU computed).  The tiled
 * labels equal the untiled ones.
 */
void
test_wsgpu_staging(void)
{
	const int	side = 3776;
	size_t		n = (size_t) side * side;
	WgCase		c = WgNew(side, side, PB_PIX_32BF);
	uint32_t   *a = WgMalloc(n * sizeof(uint32_t));
	uint32_t   *b = WgMalloc(n * sizeof(uint32_t));
	Rng			r = {3776};
	PbWatershedSpec s;
	PbRasterGpuStats st;

	WgFill(&c, &r, WG_CONES);
	WgWalls(&c, &r, 0.01);
	WgMarkers(&c, &r, 0.0005, 40);
	s = WgSpec(&c, 8, true);
	if (WgGpu(&s, a, WG_BUDGET, NULL) && WgGpu(&s, b, (size_t) 280 << 20, &st))
	{
		CHECK_INT(st.tiles, 4);
		WgSame(b, a, side, side, "tiled vs untiled");
	}
	WgFree(&c);
	free(a);
	free(b);
}

/* The synchronous automaton gives the block-asynchronous labels. */
void
test_wsgpu_sync(void)
{
	Rng			r = {64};

	for (int kind = 0; kind < WG_KINDS; kind++)
	{
		WgCase		c = WgNew(200, 150, kind == WG_SPECIAL ? PB_PIX_32BF : PB_PIX_16BUI);
		uint32_t   *a = WgMalloc(sizeof(uint32_t) * 200 * 150);
		uint32_t   *b = WgMalloc(sizeof(uint32_t) * 200 * 150);
		PbWatershedSpec s;

		WgFill(&c, &r, kind);
		if (kind % 2)
			WgMarkers(&c, &r, 0.003, 5);
		s = WgSpec(&c, kind % 3 ? 8 : 4, kind % 4 != 0);
		pb_test_context("%s", wg_kind_names[kind]);
		if (WgGpu(&s, a, WG_BUDGET, NULL))
		{
			PbGpuWatershedTestSync(1);
			if (WgGpu(&s, b, WG_BUDGET, NULL))
				WgSame(b, a, 200, 150, "synchronous vs asynchronous");
			if (WgGpu(&s, b, 60000, NULL))
				WgSame(b, a, 200, 150, "synchronous tiled vs asynchronous");
			PbGpuWatershedTestSync(0);
		}
		WgFree(&c);
		free(a);
		free(b);
	}
}

/* Repeated runs of a plateau-rich image give the same labels. */
void
test_wsgpu_repeat(void)
{
	Rng			r = {65};
	WgCase		c = WgNew(1024, 768, PB_PIX_8BUI);
	uint32_t   *a = WgMalloc(sizeof(uint32_t) * 1024 * 768);
	uint32_t   *b = WgMalloc(sizeof(uint32_t) * 1024 * 768);

	for (int mode = 0; mode < 2; mode++)
	{
		PbWatershedSpec s;

		WgFill(&c, &r, WG_PLATEAUS);
		if (mode)
			WgMarkers(&c, &r, 0.001, 100);
		s = WgSpec(&c, 8, true);
		pb_test_context("markers %d", mode);
		if (!WgGpu(&s, a, WG_BUDGET, NULL))
			continue;
		for (int k = 0; k < 5; k++)
			if (WgGpu(&s, b, WG_BUDGET, NULL) && !WgSame(b, a, 1024, 768, "repeated run"))
				break;
	}
	WgFree(&c);
	free(a);
	free(b);
}

/* ---------------------------------------------------------------------- */
/* polling and bad arguments */

/* A poll that says stop, and one that counts its calls. */
static int
WgPollStop(void *arg)
{
	(void) arg;
	return 1;
}

static int
WgPollCount(void *arg)
{
	(*(int *) arg)++;
	return 0;
}

/* Polling: a stop gives 1, tiled or not; a counting poll is called. */
void
test_wsgpu_poll(void)
{
	Rng			r = {66};
	WgCase		c = WgNew(300, 300, PB_PIX_8BUI);
	uint32_t   *g = WgMalloc(sizeof(uint32_t) * 300 * 300);
	uint32_t   *want = WgMalloc(sizeof(uint32_t) * 300 * 300);
	PbWatershedSpec s;
	char		err[256] = "";
	int			calls = 0;
	int			rc;

	WgSpiral(&c.img, &r);
	s = WgSpec(&c, 4, false);
	rc = PbGpuWatershed(TestGpu(WG_BUDGET), &s, g, NULL, WgPollStop, NULL, NULL, err, sizeof(err));
	if (rc != 1)
		pb_check_fail(__FILE__, __LINE__, "stop poll: returned %d (%s), want 1", rc, err);
	rc = PbGpuWatershed(TestGpu(50000), &s, g, NULL, WgPollStop, NULL, NULL, err, sizeof(err));
	if (rc != 1)
		pb_check_fail(__FILE__, __LINE__, "stop poll, tiled: returned %d (%s), want 1", rc, err);
	rc = PbGpuWatershed(TestGpu(WG_BUDGET), &s, g, NULL, WgPollCount, &calls, NULL, err, sizeof(err));
	if (rc != 0)
		pb_check_fail(__FILE__, __LINE__, "counting poll: returned %d (%s)", rc, err);
	else if (PbWatershedRef(&s, want) == PB_OK)
		WgSame(g, want, 300, 300, "counting poll");
	if (calls < 1)
		pb_check_fail(__FILE__, __LINE__, "poll was never called");
	WgFree(&c);
	free(g);
	free(want);
}

/*
 * Two GPUs take the tiles together (two contexts: on device 1 where there
 * is one, else both on device 0), with budgets of a few tiles, equal or
 * not: the labels equal one GPU's untiled run on every kind, with and
 * without markers, walls and lines, and the tiles ran on both; an image
 * the first holds whole runs there alone; one it does not hold runs in
 * resident bands where half of its rows fit each GPU, else in tiles of a
 * quarter of its side at most; a stop gives 1; a GPU whose budget holds
 * no tile fails the call with the reason.
 */
void
test_wsgpu_multi(void)
{
	char		err[256] = "";
	int			count = PbGpuProbe(err, sizeof(err));
	PbGpu	   *g[2] = {TestGpu(WG_BUDGET), NULL};
	Rng			r = {67};
	int			w = 613,
				h = 509;
	uint32_t   *a = WgMalloc(sizeof(uint32_t) * w * h);
	uint32_t   *b = WgMalloc(sizeof(uint32_t) * w * h);
	int64_t		runs[2] = {0, 0};

	if (g[0] == NULL)
		goto done;
	if ((g[1] = PbGpuOpen(150000, count > 1 ? 1 : 0, err, sizeof(err))) == NULL)
	{
		pb_check_fail(__FILE__, __LINE__, "a second context: %s", err);
		goto done;
	}
	for (int kind = 0; kind < WG_KINDS; kind++)
		for (int mode = 0; mode < 2; mode++)
		{
			WgCase		c = WgNew(w, h, kind == WG_SPECIAL ? PB_PIX_32BF : PB_PIX_8BUI);
			PbWatershedSpec s;
			PbRasterGpuStats st;
			PbGpuShare	sh[2];
			int			rc;

			WgFill(&c, &r, kind);
			if (mode)
				WgMarkers(&c, &r, 0.002, 9);
			if (kind == WG_CONES || kind == WG_NOISE)
				WgWalls(&c, &r, 0.05);
			s = WgSpec(&c, kind % 2 ? 4 : 8, mode == kind % 2);
			pb_test_context("%s markers %d lines %d", wg_kind_names[kind], mode, (int) s.lines);
			if (WgGpu(&s, a, WG_BUDGET, NULL))
			{
				PbGpuSetBudget(g[0], kind % 3 == 0 ? 150000 : 90000);
				rc = PbGpuWatershedOn(g, 2, &s, b, NULL, NULL, NULL, &st, sh, err, sizeof(err));
				if (rc != 0)
					pb_check_fail(__FILE__, __LINE__, "two GPUs: returned %d: %s", rc, err);
				else
				{
					WgSame(b, a, w, h, "two GPUs vs one, untiled");
					CHECK(st.tiles >= 12);
					CHECK(sh[0].runs + sh[1].runs >= st.tiles);
					runs[0] += sh[0].runs;
					runs[1] += sh[1].runs;
				}
			}
			WgFree(&c);
		}
	pb_test_note("tile runs: first GPU %lld, second %lld", (long long) runs[0], (long long) runs[1]);
	CHECK(runs[0] > 0 && runs[1] > 0);

	{
		WgCase		c = WgNew(300, 300, PB_PIX_8BUI);
		PbWatershedSpec s,
					big;
		PbRasterGpuStats st;
		PbGpuShare	sh[2];

		WgSpiral(&c.img, &r);
		s = WgSpec(&c, 4, true);
		PbGpuSetBudget(g[0], WG_BUDGET);
		CHECK_INT(PbGpuWatershedHolds(g[0], &s, err, sizeof(err)), 1);
		CHECK_INT(PbGpuWatershedOn(g, 2, &s, b, NULL, NULL, NULL, &st, sh, err, sizeof(err)), 0);
		CHECK(st.tiles == 1 && sh[0].runs == 1 && sh[1].runs == 0);
		if (WgGpu(&s, a, WG_BUDGET, NULL))
			WgSame(b, a, 300, 300, "whole on the first of two");
		PbGpuSetBudget(g[0], 600000);
		PbGpuSetBudget(g[1], 600000);
		CHECK_INT(PbGpuWatershedHolds(g[0], &s, err, sizeof(err)), 0);
		CHECK_INT(PbGpuWatershedOn(g, 2, &s, b, NULL, NULL, NULL, &st, sh, err, sizeof(err)), 0);
		CHECK_INT(st.tiles, 2);		/* half the rows each hold: resident bands */
		CHECK(sh[0].runs >= 1 && sh[1].runs >= 1);
		WgSame(b, a, 300, 300, "two resident bands");
		PbGpuSetBudget(g[0], 300000);
		PbGpuSetBudget(g[1], 300000);
		CHECK_INT(PbGpuWatershedOn(g, 2, &s, b, NULL, NULL, NULL, &st, sh, err, sizeof(err)), 0);
		CHECK_INT(st.tiles, 16);	/* a quarter of the side, though larger tiles fit */
		WgSame(b, a, 300, 300, "tiles of a quarter of the side");
		PbGpuSetBudget(g[0], 50000);
		CHECK_INT(PbGpuWatershedOn(g, 2, &s, b, NULL, WgPollStop, NULL, NULL, NULL, err, sizeof(err)), 1);
		PbGpuSetBudget(g[1], 64);
		CHECK_INT(PbGpuWatershedOn(g, 2, &s, b, NULL, NULL, NULL, NULL, NULL, err, sizeof(err)), -1);
		CHECK_STR_HAS(err, "too small for one tile");
		CHECK_INT(PbGpuWatershedOn(g, 0, &s, b, NULL, NULL, NULL, NULL, NULL, err, sizeof(err)), -1);
		CHECK_STR_HAS(err, "invalid watershed arguments");
		/* 2^32 pixels marker-less: the CPU's and the hybrid's, not the GPU's alone */
		big = s;
		big.markers = NULL;
		big.image.width = big.image.height = 65536;
		CHECK_INT(PbWatershedCheck(&big), PB_OK);
		CHECK_INT(PbGpuWatershedHolds(g[0], &big, err, sizeof(err)), -1);
		CHECK_STR_HAS(err, "invalid watershed arguments");
		CHECK_INT(PbGpuWatershedOn(g, 1, &big, b, NULL, NULL, NULL, NULL, NULL, err, sizeof(err)), -1);
		CHECK_INT(PbGpuWatershedBandsFit(g, 1, &big, err, sizeof(err)), -1);
		PbGpuSetBudget(g[0], WG_BUDGET);
		WgFree(&c);
	}
done:
	if (g[1] != NULL)
		PbGpuClose(g[1]);
	free(a);
	free(b);
}

/* PbWsDevices over GPU contexts gpus (n of them): the blocks of a hybrid watershed. */
static void
WgBlockDevices(PbGpu **gpus, int n, PbGpuWsBlocks **blocks, PbWsDevice *devs)
{
	for (int d = 0; d < n; d++)
	{
		blocks[d] = PbGpuWsBlocksNew(gpus[d]);
		memset(&devs[d], 0, sizeof(devs[d]));
		devs[d].begin = PbGpuWsBlocksBegin;
		devs[d].run = PbGpuWsBlocksRun;
		devs[d].end = PbGpuWsBlocksEnd;
		devs[d].ctx = blocks[d];
	}
}

/*
 * The hybrid watershed with GPUs taking blocks of the CPU threads' tiles
 * (PbWatershedHybrid with PbGpuWsBlocks): the labels equal the GPU's
 * untiled run on every kind, with and without markers, walls and lines,
 * with one GPU and two (a second context), and the GPUs ran blocks; a GPU
 * whose budget holds no block is left out, same labels; a stop gives
 * PB_ERR_STOPPED.
 */
void
test_wsgpu_hybrid(void)
{
	char		err[256] = "";
	int			count = PbGpuProbe(err, sizeof(err));
	PbGpu	   *g[2] = {TestGpu(WG_BUDGET), NULL};
	Rng			r = {71};
	int			w = 613,
				h = 509;
	uint32_t   *a = WgMalloc(sizeof(uint32_t) * w * h);
	uint32_t   *b = WgMalloc(sizeof(uint32_t) * w * h);
	PbRun		run = {3, 16, NULL, NULL};
	int64_t		blocks_run = 0;

	if (g[0] == NULL)
		goto done;
	if ((g[1] = PbGpuOpen(400000, count > 1 ? 1 : 0, err, sizeof(err))) == NULL)
	{
		pb_check_fail(__FILE__, __LINE__, "a second context: %s", err);
		goto done;
	}
	for (int kind = 0; kind < WG_KINDS; kind++)
		for (int mode = 0; mode < 2; mode++)
		{
			WgCase		c = WgNew(w, h, kind == WG_SPECIAL ? PB_PIX_32BF : PB_PIX_8BUI);
			PbWatershedSpec s;
			PbGpuWsBlocks *blk[2];
			PbWsDevice	devs[2];
			PbWsHybridStats hs;
			PbRasterGpuStats st;
			int			ndev = 1 + (kind + mode) % 2;

			WgFill(&c, &r, kind);
			if (mode)
				WgMarkers(&c, &r, 0.002, 9);
			if (kind == WG_CONES || kind == WG_NOISE)
				WgWalls(&c, &r, 0.05);
			s = WgSpec(&c, kind % 2 ? 4 : 8, mode == kind % 2);
			pb_test_context("%s markers %d lines %d, %d GPUs", wg_kind_names[kind], mode,
							(int) s.lines, ndev);
			if (WgGpu(&s, a, WG_BUDGET, NULL))
			{
				PbGpuSetBudget(g[0], kind % 3 == 0 ? 400000 : 250000);
				WgBlockDevices(g, ndev, blk, devs);
				CHECK_INT(PbWatershedHybrid(&s, b, &run, NULL, devs, ndev, &hs), PB_OK);
				WgSame(b, a, w, h, "hybrid vs the GPU untiled");
				for (int d = 0; d < ndev; d++)
				{
					if (devs[d].failed)
						pb_check_fail(__FILE__, __LINE__, "GPU %d failed: %s", d, devs[d].err);
					PbGpuWsBlocksFree(blk[d], &st);
					CHECK_INT(st.tiles, devs[d].regions);
					blocks_run += devs[d].regions;
				}
			}
			WgFree(&c);
		}
	pb_test_note("blocks run by the GPUs: %lld", (long long) blocks_run);
	CHECK(blocks_run > 0);

	{
		WgCase		c = WgNew(300, 300, PB_PIX_8BUI);
		PbWatershedSpec s;
		PbGpuWsBlocks *blk[2];
		PbWsDevice	devs[2];

		WgSpiral(&c.img, &r);
		s = WgSpec(&c, 4, true);
		if (WgGpu(&s, a, WG_BUDGET, NULL))
		{
			PbGpuSetBudget(g[0], 64);	/* holds no block */
			WgBlockDevices(g, 2, blk, devs);
			CHECK_INT(PbWatershedHybrid(&s, b, &run, NULL, devs, 2, NULL), PB_OK);
			CHECK(devs[0].failed && !devs[1].failed);
			CHECK_STR_HAS(devs[0].err, "too small for a block");
			WgSame(b, a, 300, 300, "a GPU left out");
			PbGpuWsBlocksFree(blk[0], NULL);
			PbGpuWsBlocksFree(blk[1], NULL);

			PbGpuSetBudget(g[0], 200000);
			WgBlockDevices(g, 1, blk, devs);
			run.poll = WgPollStop;
			CHECK_INT(PbWatershedHybrid(&s, b, &run, NULL, devs, 1, NULL), PB_ERR_STOPPED);
			run.poll = NULL;
			PbGpuWsBlocksFree(blk[0], NULL);
		}
		PbGpuSetBudget(g[0], WG_BUDGET);
		WgFree(&c);
	}
done:
	if (g[1] != NULL)
		PbGpuClose(g[1]);
	free(a);
	free(b);
}

/*
 * Three GPUs (three contexts: on devices 1 and 2 where they exist, else
 * on device 0) whose budgets each hold a third of the rows and not the
 * image: resident bands, the middle one with a halo row on both sides.
 * The labels equal one GPU's untiled run on every kind, with and without
 * markers, walls and lines, 4 and 8 connectivity; every band ran; a stop
 * gives 1.
 */
void
test_wsgpu_bands(void)
{
	char		err[256] = "";
	int			count = PbGpuProbe(err, sizeof(err));
	PbGpu	   *g[3] = {TestGpu(WG_BUDGET), NULL, NULL};
	Rng			r = {71};
	int			w = 401,
				h = 389;
	size_t		n = (size_t) w * h;
	uint32_t   *a = WgMalloc(sizeof(uint32_t) * n);
	uint32_t   *b = WgMalloc(sizeof(uint32_t) * n);

	if (g[0] == NULL)
		goto done;
	for (int k = 1; k < 3; k++)
		if ((g[k] = PbGpuOpen(WG_BUDGET, count > k ? k : 0, err, sizeof(err))) == NULL)
		{
			pb_check_fail(__FILE__, __LINE__, "context %d: %s", k, err);
			goto done;
		}
	for (int kind = 0; kind < WG_KINDS; kind++)
		for (int mode = 0; mode < 2; mode++)
		{
			WgCase		c = WgNew(w, h, kind == WG_SPECIAL ? PB_PIX_32BF : PB_PIX_8BUI);
			size_t		px = PbPixSize(c.img.type) + 4 + (mode ? 8 : 4) + 5;
			PbWatershedSpec s;
			PbRasterGpuStats st;
			PbGpuShare	sh[3];

			WgFill(&c, &r, kind);
			if (mode)
				WgMarkers(&c, &r, 0.002, 9);
			if (kind == WG_CONES || kind == WG_NOISE)
				WgWalls(&c, &r, 0.05);
			s = WgSpec(&c, kind % 2 ? 4 : 8, mode != kind % 2);
			pb_test_context("%s markers %d lines %d", wg_kind_names[kind], mode, (int) s.lines);
			if (WgGpu(&s, a, WG_BUDGET, NULL))
			{
				/* half the image's bytes: a third of its rows fits, the whole does not */
				for (int k = 0; k < 3; k++)
					PbGpuSetBudget(g[k], n * px / 2);
				CHECK_INT(PbGpuWatershedOn(g, 3, &s, b, NULL, NULL, NULL, &st, sh, err, sizeof(err)), 0);
				CHECK_INT(st.tiles, 3);
				CHECK(sh[0].runs >= 1 && sh[1].runs >= 1 && sh[2].runs >= 1);
				WgSame(b, a, w, h, "three resident bands vs one GPU, untiled");
			}
			WgFree(&c);
		}
	{
		WgCase		c = WgNew(w, h, PB_PIX_8BUI);
		PbWatershedSpec s;

		WgSpiral(&c.img, &r);
		s = WgSpec(&c, 4, true);
		for (int k = 0; k < 3; k++)
			PbGpuSetBudget(g[k], n * 9 / 2);	/* 9 bytes a pixel: a third of the rows */
		CHECK_INT(PbGpuWatershedOn(g, 3, &s, b, NULL, WgPollStop, NULL, NULL, NULL, err, sizeof(err)), 1);
		WgFree(&c);
	}
done:
	if (g[0] != NULL)
		PbGpuSetBudget(g[0], WG_BUDGET);
	for (int k = 1; k < 3; k++)
		if (g[k] != NULL)
			PbGpuClose(g[k]);
	free(a);
	free(b);
}

/* Bad arguments fail with a reason. */
void
test_wsgpu_badarg(void)
{
	WgCase		c = WgNew(10, 10, PB_PIX_8BUI);
	PbWatershedSpec s = WgSpec(&c, 8, false);
	uint32_t	g[100];
	char		err[256] = "";

	if (PbGpuWatershed(TestGpu(WG_BUDGET), NULL, g, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "NULL spec accepted");
	if (PbGpuWatershed(TestGpu(WG_BUDGET), &s, NULL, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "NULL labels accepted");
	s.connectivity = 6;
	if (PbGpuWatershed(TestGpu(WG_BUDGET), &s, g, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "connectivity 6 accepted");
	s.connectivity = 4;
	s.image.type = (PbPixType) 99;
	if (PbGpuWatershed(TestGpu(WG_BUDGET), &s, g, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "pixel type 99 accepted");
	s.image.type = PB_PIX_8BUI;
	s.image.width = 0;
	if (PbGpuWatershed(TestGpu(WG_BUDGET), &s, g, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "width 0 accepted");
	s.image.width = 10;
	if (PbGpuWatershed(TestGpu(64), &s, g, NULL, NULL, NULL, NULL, err, sizeof(err)) != -1)
		pb_check_fail(__FILE__, __LINE__, "a budget of 64 bytes accepted");
	else
		CHECK_STR_HAS(err, "budget");
	WgFree(&c);
}

/* ---------------------------------------------------------------------- */
/* timings */

/*
 * Time the GPU on one input (the second of two runs, the first warming
 * the memory pool), against PbWatershedCpu when cpu (also timed).
 */
static void
WgTime(const PbWatershedSpec *s, const char *what, size_t budget, bool cpu)
{
	size_t		n = (size_t) s->image.width * s->image.height;
	uint32_t   *g = WgMalloc(n * sizeof(uint32_t));
	uint32_t   *want = cpu ? WgMalloc(n * sizeof(uint32_t)) : NULL;
	PbRasterGpuStats st;
	PbRun run = {WG_THREADS, 0, NULL, NULL};
	double		t0,
				t1,
				t2 = 0,
				t3 = 0;

	pb_test_context("%s %dx%d", what, s->image.width, s->image.height);
	if (!WgGpu(s, g, budget, &st))
		goto done;
	t0 = WgNowMs();
	if (!WgGpu(s, g, budget, &st))
		goto done;
	t1 = WgNowMs();
	if (cpu)
	{
		t2 = WgNowMs();
		if (PbWatershedCpu(s, want, &run) != PB_OK)
			pb_check_fail(__FILE__, __LINE__, "PbWatershedCpu failed");
		t3 = WgNowMs();
		WgSame(g, want, s->image.width, s->image.height, "GPU vs PbWatershedCpu");
	}
	pb_test_note("watershed %s %dx%d, budget %zu MiB: GPU %.1f ms (kernels %.1f, transfers %.1f, "
				 "%d rounds, %d tiles), CPU %d threads %.0f ms", what, s->image.width,
				 s->image.height, budget >> 20, t1 - t0, st.kernel_ms, st.transfer_ms, st.rounds,
				 st.tiles, WG_THREADS, t3 - t2);
done:
	free(g);
	free(want);
}

/*
 * Nuclei-like cones (walls outside them; markers at their centres) and
 * noise, marker-less and marker-controlled, block-asynchronous and
 * synchronous, at 2048^2 and 8192^2 (also with pixelbox.gpu_memory's
 * default 1 GiB); with PB_WS_HUGE=1 also 32768^2, untiled in 16 GiB and
 * tiled in 4 GiB.
 */
void
test_wsgpu_timings(void)
{
	static const int sides[] = {2048, 8192, 32768};
	int			nsides = getenv("PB_WS_HUGE") ? 3 : 2;

	for (int si = 0; si < nsides; si++)
	{
		int			side = sides[si];
		bool		huge = side > 8192;
		size_t		budget = huge ? (size_t) 16 << 30 : WG_BUDGET;
		Rng			r = {67};
		WgCase		c = WgNew(side, side, PB_PIX_8BUI);
		int64_t    *centres = WgMalloc(sizeof(int64_t) * ((size_t) side * side / 144 + 1));
		int			nc = 0;
		PbWatershedSpec s;

		WgCones(&c.img, &r, 12, 9, centres, &nc);
		c.wall = WgMalloc((size_t) side * side);
		for (size_t i = 0; i < (size_t) side * side; i++)
			c.wall[i] = ((uint8_t *) c.img.data)[i] == 255;
		s = WgSpec(&c, 8, false);
		WgTime(&s, "cones marker-less", budget, !huge);
		c.markers = WgMalloc(sizeof(uint32_t) * (size_t) side * side);
		memset(c.markers, 0, sizeof(uint32_t) * (size_t) side * side);
		for (int k = 0; k < nc; k++)
			c.markers[centres[k]] = (uint32_t) k + 1;
		s = WgSpec(&c, 8, true);
		WgTime(&s, "cones markers+lines", budget, !huge);
		if (side == 8192)
			WgTime(&s, "cones markers+lines", (size_t) 1 << 30, false);
		if (huge)
			WgTime(&s, "cones markers+lines", (size_t) 4 << 30, false);
		if (!huge)
		{
			PbGpuWatershedTestSync(1);
			WgTime(&s, "SYNC cones markers+lines", WG_BUDGET, false);
			s.markers = NULL;
			WgTime(&s, "SYNC cones marker-less", WG_BUDGET, false);
			PbGpuWatershedTestSync(0);
		}
		free(c.wall);
		c.wall = NULL;
		WgFill(&c, &r, WG_NOISE);
		s = WgSpec(&c, 4, false);
		s.markers = NULL;
		WgTime(&s, "noise marker-less", budget, !huge);
		WgMarkers(&c, &r, 0.0001, 100);
		s = WgSpec(&c, 8, false);
		WgTime(&s, "noise sparse markers", budget, !huge);
		free(centres);
		WgFree(&c);
	}
}
