/*
 * pbgen - synthetic nucleus segmentations for pixelbox benchmarks.
 *
 * Model.  A synthetic tissue image is cut into TILE x TILE pixel tiles laid
 * out row-major; the row is as many tiles wide as makes the image roughly
 * square at one nucleus per AREA_PER_NUCLEUS px^2, and rows are added until
 * set a is complete.  Every tile is generated independently from its own
 * random stream, derived from (seed, tile index), so memory stays bounded
 * at any N.
 *
 *  1. Tissue: each tile gets a background density plus a few round
 *     "clusters" of higher density, and a nucleus count drawn around
 *     TILE^2 / AREA_PER_NUCLEUS.  Nuclei are placed by rejection sampling
 *     against that density with a hard core: along the line of centres two
 *     ellipses must stay apart by the sum of their personal gaps, +1 px for
 *     most nuclei but -1 px for STICKY_PCT% of them, so those overlap their
 *     neighbours and end up sharing edges.  Dense tiles saturate a little
 *     below their count.  Every nucleus is an ellipse (equivalent radius
 *     ~N(7.4, 1.5) px clamped to 3.6..11.5 px, mean area ~150 px^2,
 *     elongation up to 1.3, random orientation) whose radius is modulated
 *     by low-frequency harmonics; its centre stays MARGIN px from the tile
 *     edge, which keeps the whole shape inside the tile.
 *     About 1.5% extra "false positive" objects are also drawn; only
 *     segmentation b shows them.
 *  2. Segmentations a and b: each perturbs every nucleus on its own (shift of
 *     0-2 px, radius x0.9-1.1, extra harmonics), rasterizes it into the
 *     tile's label image (pixel centre inside the outline), later nuclei
 *     overwriting earlier ones so some nuclei share edges.  About 5% of the
 *     nuclei get a 1-6 px hole strictly inside.  Segmentation b drops 3% of
 *     the nuclei and splits 1.5% of them in two along a random line.
 *  3. Cleaning: each label keeps only its largest 4-connected component and
 *     "saddles" (a 2x2 window holding the label on exactly one diagonal) are
 *     removed by adding a free gap pixel or deleting a diagonal one, until
 *     none remain.  Such a pixel set traces to one simple shell plus simple,
 *     disjoint holes: an OGC-valid polygon.  Labels under MIN_LABEL_PX pixels
 *     are dropped.  Cleaning a label never changes another label's pixels.
 *  4. Tracing: the pixel edges of each label are followed into rings whose
 *     vertices are the real corners (collinear runs merged), shell first.
 *     Style "smooth" cuts every corner a quarter pixel along both edges
 *     (one Chaikin pass with the cut clamped to 1/4 px so rings stay simple).
 *
 * Nucleus size.  --nucleus-area A (px^2, default 150) scales the whole
 * model: every length above (radii and their clamps, spacing gaps, centre
 * shifts, MARGIN, the CELL of the hard-core grid, the tile, which stays
 * TILE/CELL cells wide, tissue clusters, false positives) by sqrt(A/150),
 * and every area (AREA_PER_NUCLEUS, hole sizes, MIN_LABEL_PX) by A/150, so
 * a tile holds about as many nuclei and the statistics stay the same;
 * only the pixel grid gets relatively finer.  The numbers above are those
 * at the default, which reproduces the unscaled model byte for byte.
 *
 * Label images.  With --labels-a/--labels-b/--labels-size the tissue and
 * segmentations of steps 1-2 come instead from two label images of one
 * real image (bench/realgen makes them): the slide is tiled with copies of
 * the image, each a symmetry (mirrors, and transposes for a square image)
 * drawn from (seed, tile), and each tile's labels are cleaned (step 3, in
 * the order of their first pixel, row-major) and traced (step 4) on their
 * own, so an object crossing a tile edge is cut there, as tile-wise
 * segmentation cuts it.  The slide is as many tiles wide as makes it
 * roughly square; of the last tile, set b gets the labels whose first
 * pixel comes no later than that of set a's last one.
 *
 * Objects of a tile are emitted in (centre y, centre x) order; set a stops
 * exactly at N polygons, and set b covers the same objects of the last tile.
 * Only integer arithmetic is used, so the bytes depend on nothing but
 * (N, seed, scale, style, nucleus area).  Pixel (x,y) covers
 * [x,x+1]x[y,y+1]; coordinates are multiplied by --scale on output.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sizes marked (*) hold at the default --nucleus-area DEF_AREA; Size below
 * has the values in use, scaled by size_init(). */
enum
{
	TILE = 1024,            /* tile side, px (*) */
	MARGIN = 28,            /* centres keep this far from tile edges (*) */
	CELL = 32,              /* hard-core lookup grid cell, px (*) */
	GRID = TILE / CELL,     /* cells per tile side (at any size) */
	NV = 64,                /* outline vertices per nucleus */
	SUB = 256,              /* Q8 sub-pixel units per pixel */
	AREA_PER_NUCLEUS = 400, /* image px^2 per nucleus (*) */
	MIN_LABEL_PX = 10,      /* smaller labels are dropped (*) */
	MAX_ADDS = 32,          /* saddle fixes by growth per label (*) */
	MAX_N = 50000000,       /* largest --polygons */
	STICKY_PCT = 20,        /* % of nuclei allowed to overlap neighbours */
	STICKY_GAP = -256,      /* their spacing, Q8 (*) */
	LOOSE_GAP = 256,        /* everyone else's, Q8 (*) */
	TARGET_LO = 2300,       /* nuclei per tile drawn from TARGET_LO..HI (*) */
	TARGET_HI = 2940,
	HOLE_MAX = 6,           /* holes have 1..HOLE_MAX px (*) */
	HOLE_TRIES = 64,        /* growth attempts for a hole of HOLE_MAX px */
	DEF_AREA = 150,         /* default --nucleus-area, px^2 */
	MIN_AREA = 40,          /* smallest --nucleus-area */
	MAX_AREA = 2000,        /* largest --nucleus-area */
	MAX_HOLE = HOLE_MAX * MAX_AREA / DEF_AREA /* largest hole at any size */
};
#define ONE 65536 /* Q16 one */

enum
{
	STREAM_TILE = 1,
	STREAM_SEG = 2,   /* + SET_A or SET_B */
	STREAM_LAYOUT = 4 /* label images: each tile's symmetry */
};
enum
{
	FIX_CHANGED = 1,
	FIX_REMOVED = 2
};
enum
{
	SET_NONE = -2, /* not chosen yet */
	SET_BOTH = -1, /* --out-a and --out-b */
	SET_A = 0,     /* --set a: also the segmentation number */
	SET_B = 1
};

/* Direction vectors E, S, W, N in image coordinates (y down). */
static const int DX[4] = {1, 0, -1, 0};
static const int DY[4] = {0, 1, 0, -1};

/* Quarter wave of sin(k * pi / 128) in Q16, k = 0..64. */
static const int32_t SINQ[65] = {
    0,     1608,  3216,  4821,  6424,  8022,  9616,  11204, 12785, 14359,
    15924, 17479, 19024, 20557, 22078, 23586, 25080, 26558, 28020, 29466,
    30893, 32303, 33692, 35062, 36410, 37736, 39040, 40320, 41576, 42806,
    44011, 45190, 46341, 47464, 48559, 49624, 50660, 51665, 52639, 53581,
    54491, 55368, 56212, 57022, 57798, 58538, 59244, 59914, 60547, 61145,
    61705, 62228, 62714, 63162, 63572, 63944, 64277, 64571, 64827, 65043,
    65220, 65358, 65457, 65516, 65536};

typedef struct
{
	uint64_t s[4];
} Rng;

/* Size-dependent parameters for mean nucleus area A = --nucleus-area: every
 * length is the (*) constant times k = sqrt(A / DEF_AREA), every area and
 * the hole size times A / DEF_AREA, so the model is the same at any size.
 * At A = DEF_AREA they equal the constants exactly. */
typedef struct
{
	int32_t k;                     /* linear scale, Q16 (ONE at DEF_AREA) */
	int area;                      /* A, px^2 */
	int tile;                      /* tile side, GRID * cell, px */
	size_t stride;                 /* label image row: tile, or label tile + 2 */
	int cell;                      /* hard-core grid cell, ceil(CELL k) px */
	int margin;                    /* centres keep this far from edges, px */
	int target_lo, target_hi;      /* nuclei per tile, same per px^2 */
	int cluster_lo, cluster_hi;    /* tissue cluster radius range, px */
	int32_t sticky_gap, loose_gap; /* spacings, Q8 */
	int hole_max, hole_tries;      /* largest hole, px; growth attempts */
	int min_label;                 /* smaller labels are dropped, px */
	int max_adds;                  /* saddle fixes by growth per label */
} Size;

/* The size parameters in use, set once by size_init(). */
static Size SZ;

typedef struct
{
	int32_t cx, cy; /* centre, tile-local Q8 */
	int32_t a, b;   /* semi-axes, Q8 */
	int32_t cr, sr; /* cos and sin of the orientation, Q16 */
	int32_t amp[3]; /* radial harmonics 2..4 amplitude, Q16 */
	uint8_t ph[3];  /* their phases, 1/256 turn */
	int32_t gap;    /* personal spacing to neighbours, Q8 (may be < 0) */
	uint8_t hole;   /* gets a small hole */
	uint8_t fp;     /* false positive: segmentation b only */
} Nucleus;

typedef struct
{
	int32_t dx, dy;    /* centre shift, Q8 */
	int32_t scale;     /* radius scale, Q16 */
	int32_t amp[3];    /* radial harmonics 3..5 amplitude, Q16 */
	uint8_t ph[3];     /* their phases */
	uint8_t drop;      /* nucleus missing from this segmentation */
	uint8_t split;     /* nucleus split in two */
	uint8_t split_dir; /* normal of the split line, 1/256 turn */
	Rng rng;           /* further draws (hole shape) */
} Seg;

typedef struct
{
	int32_t x, y, r2, w; /* centre px, radius^2 px^2, weight Q16 */
} Cluster;

typedef struct
{
	int32_t base; /* background density, Q16 */
	int ncl;
	Cluster cl[8];
} Tissue;

typedef struct
{
	int32_t x0, y0, x1, y1;
} Box; /* inclusive; empty if x0>x1 */

typedef struct
{
	FILE *f;
	const char *name;
	size_t len;
	char buf[1 << 16];
} Out;

typedef struct
{
	uint32_t *img;   /* TILE*TILE labels of the current segmentation */
	Nucleus *nuc;    /* objects of the tile in generation order */
	uint64_t *order; /* sort keys (cy, cx, index) */
	int32_t *next;   /* hard-core grid chains */
	int32_t head[GRID * GRID];
	int n, cap_n, cap_order, cap_next;
	Box *box; /* per label */
	int cap_box;
	uint8_t *mask; /* local label mask with 1 px border */
	int32_t *comp; /* local component ids / traced-edge marks */
	int32_t *stack;
	int cap_mask, cap_comp, cap_stack;
	int32_t *v; /* traced ring vertices (x, y pairs), tile px */
	int nv, cap_v;
	int *ring_end; /* one past each ring's last vertex */
	int nring, cap_ring;
} Ctx;

typedef struct
{
	uint64_t n, seed;
	int scale, smooth, set; /* set: SET_* */
	const char *out_a, *out_b;
	int area;                      /* --nucleus-area, px^2 */
	const char *labels_a, *labels_b; /* --labels-a, --labels-b */
	int lw, lh;                      /* --labels-size, px */
} Opts;

/* Print a message and exit with status 2 (the tool's only failure code). */
static void
die(const char *fmt, const char *arg, const char *why)
{
	fprintf(stderr, "pbgen: ");
	fprintf(stderr, fmt, arg);
	if (why)
		fprintf(stderr, ": %s", why);
	fputc('\n', stderr);
	exit(2);
}

/* Grow *p to hold at least need elements, aborting when memory runs out. */
static void
reserve(void *pp, int *cap, int need, size_t elem)
{
	void **p = pp;
	if (need <= *cap)
		return;
	int c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, (size_t)c * elem);
	if (!q)
		die("%s", "out of memory", NULL);
	*p = q;
	*cap = c;
}

/* ---- randomness -------------------------------------------------------- */

/* splitmix64 step: the standard seeder for xoshiro. */
static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* Seed an independent stream from (seed, kind, a, b) by chained mixing. */
static void
rng_seed(Rng *r, uint64_t seed, uint64_t kind, uint64_t a, uint64_t b)
{
	uint64_t x = seed;
	x = splitmix64(&x) ^ kind;
	x = splitmix64(&x) ^ a;
	x = splitmix64(&x) ^ b;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* 64-bit rotate left. */
static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** next value. */
static uint64_t
rng_next(Rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform integer in [0, n) by multiply-shift (bias below 2^-32). */
static int32_t
rng_below(Rng *r, uint32_t n)
{
	return (int32_t)(((rng_next(r) >> 32) * n) >> 32);
}

/* Uniform integer in [lo, hi]. */
static int32_t
rng_range(Rng *r, int32_t lo, int32_t hi)
{
	return lo + rng_below(r, (uint32_t)(hi - lo + 1));
}

/* ---- integer trigonometry --------------------------------------------- */

/* Full-turn sine table in Q16, filled once from SINQ by trig_init(). */
static int32_t SIN256[256];

/* Unfold the quarter-wave table into SIN256 by symmetry. */
static void
trig_init(void)
{
	for (int i = 0; i <= 64; i++)
	{
		SIN256[i] = SINQ[i];
		SIN256[(128 - i) & 255] = SINQ[i];
		SIN256[(128 + i) & 255] = -SINQ[i];
		SIN256[(256 - i) & 255] = -SINQ[i];
	}
}

/* sin of a 1/256-turn angle in Q16. */
static int32_t
isin(int a)
{
	return SIN256[a & 255];
}

/* cos of a 1/256-turn angle in Q16. */
static int32_t
icos(int a)
{
	return isin(a + 64);
}

/* (a * b) / ONE with C's truncation, identical on every platform. */
static int64_t
qmul(int64_t a, int64_t b)
{
	return a * b / ONE;
}

/* Integer square root (floor). */
static uint64_t
isqrt(uint64_t v)
{
	uint64_t r = 0;
	for (uint64_t bit = (uint64_t)1 << 62; bit; bit >>= 2)
		if (v >= r + bit)
		{
			v -= r + bit;
			r = (r >> 1) + bit;
		}
		else
		{
			r >>= 1;
		}
	return r;
}

/* ---- nucleus size ------------------------------------------------------ */

/* Fill SZ for mean nucleus area `area` px^2.  Lengths scale by
 * k = sqrt(area / DEF_AREA), rounded up where they bound a shape (cell,
 * margin): the farthest interacting centres, two 1.3-elongated 11.5 px radii
 * plus two loose gaps, are 31.9 k px apart, within one cell of 32 k, and the
 * largest outline (harmonics, x1.1, 2 k px shift) reaches 23 k px from its
 * centre, inside the 28 k margin with room for the 1 px cleaning border.
 * The tile is GRID cells at any size, so a tile holds about as many nuclei
 * as at the default; the largest, 3744 px, keeps Q8 coordinates within the
 * 20 bits of the sort keys.  At DEF_AREA every value is the constant
 * itself. */
static void
size_init(int area)
{
	int64_t k = (int64_t)isqrt((uint64_t)area * ONE * ONE / DEF_AREA);
	uint64_t num, den;
	SZ.k = (int32_t)k;
	SZ.area = area;
	SZ.cell = (int)((CELL * k + ONE - 1) / ONE);
	SZ.tile = GRID * SZ.cell;
	SZ.stride = (size_t)SZ.tile;
	SZ.margin = (int)((MARGIN * k + ONE - 1) / ONE);
	/* Same nuclei per px^2: TARGET * (tile / TILE)^2 * DEF_AREA / area. */
	num = (uint64_t)SZ.tile * (uint64_t)SZ.tile * DEF_AREA;
	den = (uint64_t)TILE * TILE * (uint64_t)area;
	SZ.target_lo = (int)(TARGET_LO * num / den);
	SZ.target_hi = (int)(TARGET_HI * num / den);
	SZ.cluster_lo = (int)qmul(80, k);
	SZ.cluster_hi = (int)qmul(300, k);
	SZ.sticky_gap = (int32_t)qmul(STICKY_GAP, k);
	SZ.loose_gap = (int32_t)qmul(LOOSE_GAP, k);
	SZ.hole_max = (HOLE_MAX * area + DEF_AREA / 2) / DEF_AREA;
	SZ.hole_tries = HOLE_TRIES * SZ.hole_max / HOLE_MAX;
	if (SZ.hole_tries < HOLE_TRIES)
		SZ.hole_tries = HOLE_TRIES;
	SZ.min_label = (MIN_LABEL_PX * area + DEF_AREA / 2) / DEF_AREA;
	SZ.max_adds = (int)((MAX_ADDS * k + ONE / 2) / ONE);
}

/* ---- tissue and nuclei ------------------------------------------------- */

/* Draw a tile's density field: background level plus a few round clusters. */
static void
tissue_init(Tissue *t, Rng *r)
{
	t->base = rng_range(r, ONE * 8 / 100, ONE * 35 / 100);
	t->ncl = rng_range(r, 2, 7);
	for (int i = 0; i < t->ncl; i++)
	{
		int32_t rad = rng_range(r, SZ.cluster_lo, SZ.cluster_hi);
		t->cl[i].x = rng_below(r, (uint32_t)SZ.tile);
		t->cl[i].y = rng_below(r, (uint32_t)SZ.tile);
		t->cl[i].r2 = rad * rad;
		t->cl[i].w = rng_range(r, ONE * 6 / 10, ONE);
	}
}

/* Density at Q8 point (x,y), Q16 capped at ONE; clusters are (1-d^2/R^2)^2. */
static int32_t
tissue_density(const Tissue *t, int32_t x, int32_t y)
{
	int64_t d = t->base;
	for (int i = 0; i < t->ncl; i++)
	{
		int64_t dx = x / SUB - t->cl[i].x, dy = y / SUB - t->cl[i].y;
		int64_t d2 = dx * dx + dy * dy;
		if (d2 >= t->cl[i].r2)
			continue;
		int64_t f = ONE - d2 * ONE / t->cl[i].r2;
		d += qmul(t->cl[i].w, qmul(f, f));
	}
	return d > ONE ? ONE : (int32_t)d;
}

/* Equivalent radius (Q8): Irwin-Hall approximate normal, mean 7.4 sd 1.5 px,
 * clamped to 3.6..11.5 px, giving areas of roughly 40..400 px^2; all times
 * the size scale k. */
static int32_t
draw_radius(Rng *r)
{
	int64_t s = -2 * ONE;
	for (int i = 0; i < 4; i++)
		s += rng_below(r, ONE);
	int64_t rad = 74 * SUB / 10 + s * 665 / ONE;
	if (rad < 36 * SUB / 10)
		rad = 36 * SUB / 10;
	if (rad > 115 * SUB / 10)
		rad = 115 * SUB / 10;
	return (int32_t)qmul(rad, SZ.k);
}

/* Radius (Q8) of nucleus o's ellipse in direction (dx, dy), |d| = dist. */
static int64_t
extent_towards(const Nucleus *o, int64_t dx, int64_t dy, int64_t dist)
{
	int64_t u = qmul(dx, o->cr) + qmul(dy, o->sr);
	int64_t v = qmul(dy, o->cr) - qmul(dx, o->sr);
	uint64_t den = isqrt((uint64_t)((int64_t)o->b * o->b * u * u +
	                                (int64_t)o->a * o->a * v * v));
	return den ? (int64_t)o->a * o->b * dist / (int64_t)den : o->a;
}

/* True when nuclei nu and o are too close: along the line of centres the
 * two ellipses must keep the sum of their personal gaps apart (a negative
 * sum lets them overlap, so they end up touching).  Bounds by the major and
 * minor axes settle most pairs without the exact extents. */
static int
too_close(const Nucleus *nu, const Nucleus *o)
{
	int64_t dx = nu->cx - o->cx, dy = nu->cy - o->cy, d2 = dx * dx + dy * dy;
	int64_t gaps = nu->gap + o->gap, far = nu->a + o->a + gaps;
	int64_t near = nu->b + o->b + gaps;
	if (far <= 0 || d2 >= far * far)
		return 0;
	if (near > 0 && d2 < near * near)
		return 1;
	int64_t dist = (int64_t)isqrt((uint64_t)d2);
	return dist < extent_towards(nu, dx, dy, dist) +
	                  extent_towards(o, dx, dy, dist) + gaps;
}

/* True when candidate nu is too close to any nucleus placed so far. */
static int
crowded(const Ctx *c, const Nucleus *nu)
{
	int gx = nu->cx / SUB / SZ.cell, gy = nu->cy / SUB / SZ.cell;
	for (int j = gy - 1; j <= gy + 1; j++)
		for (int i = gx - 1; i <= gx + 1; i++)
		{
			if (i < 0 || j < 0 || i >= GRID || j >= GRID)
				continue;
			for (int k = c->head[j * GRID + i]; k >= 0; k = c->next[k])
				if (too_close(nu, &c->nuc[k]))
					return 1;
		}
	return 0;
}

/* Draw an object at (x,y) with equivalent radius rad (Q8): an ellipse of
 * area pi rad^2 stretched by up to 1.3, random orientation and harmonics. */
static void
draw_object(Nucleus *nu, Rng *r, int32_t x, int32_t y, int32_t rad)
{
	int32_t elong = rng_range(r, ONE, ONE * 13 / 10);
	int rot = rng_below(r, 256);
	nu->cx = x;
	nu->cy = y;
	nu->a = (int32_t)qmul(rad, elong);
	nu->b = (int32_t)((int64_t)rad * ONE / elong);
	nu->cr = icos(rot);
	nu->sr = isin(rot);
	for (int k = 0; k < 3; k++)
	{
		nu->amp[k] = rng_below(r, ONE * 6 / 100 + 1);
		nu->ph[k] = (uint8_t)rng_below(r, 256);
	}
	nu->gap = rng_below(r, 100) < STICKY_PCT ? SZ.sticky_gap : SZ.loose_gap;
	nu->hole = rng_below(r, 100) < 5;
	nu->fp = 0;
}

/* Append object *nu to the tile. */
static void
append_object(Ctx *c, const Nucleus *nu)
{
	reserve(&c->nuc, &c->cap_n, c->n + 1, sizeof *c->nuc);
	c->nuc[c->n++] = *nu;
}

/* Place the tile's nuclei (density + hard core) and its false positives. */
static void
gen_objects(Ctx *c, uint64_t seed, uint64_t tile)
{
	Rng r;
	Tissue ts;
	Nucleus nu;
	rng_seed(&r, seed, STREAM_TILE, tile, 0);
	tissue_init(&ts, &r);
	int target = rng_range(&r, SZ.target_lo, SZ.target_hi);
	c->n = 0;
	for (int i = 0; i < GRID * GRID; i++)
		c->head[i] = -1;
	for (long tries = 0; c->n < target && tries < 40L * target; tries++)
	{
		int32_t x = rng_range(&r, SZ.margin * SUB, (SZ.tile - SZ.margin) * SUB);
		int32_t y = rng_range(&r, SZ.margin * SUB, (SZ.tile - SZ.margin) * SUB);
		if (rng_below(&r, ONE) >= tissue_density(&ts, x, y))
			continue;
		draw_object(&nu, &r, x, y, draw_radius(&r));
		if (crowded(c, &nu))
			continue;
		append_object(c, &nu);
		reserve(&c->next, &c->cap_next, c->n, sizeof *c->next);
		int cell = y / SUB / SZ.cell * GRID + x / SUB / SZ.cell;
		c->next[c->n - 1] = c->head[cell];
		c->head[cell] = c->n - 1;
	}
	int nfp = (target * 15 + rng_below(&r, 1000)) / 1000;
	for (int i = 0; i < nfp; i++)
	{
		int32_t x = rng_range(&r, SZ.margin * SUB, (SZ.tile - SZ.margin) * SUB);
		int32_t y = rng_range(&r, SZ.margin * SUB, (SZ.tile - SZ.margin) * SUB);
		draw_object(&nu, &r, x, y,
		            (int32_t)qmul(rng_range(&r, 32 * SUB / 10, 55 * SUB / 10),
		                          SZ.k));
		nu.hole = 0;
		nu.fp = 1;
		append_object(c, &nu);
	}
}

/* Compare two sort keys (all distinct, so qsort's order is deterministic). */
static int
cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Order the tile's objects by centre (y, x) so a cut-off tile is filled
 * from the top; the object index is kept in the low 20 bits of the key. */
static void
sort_objects(Ctx *c)
{
	reserve(&c->order, &c->cap_order, c->n, sizeof *c->order);
	for (int i = 0; i < c->n; i++)
		c->order[i] = (uint64_t)c->nuc[i].cy << 40 |
		              (uint64_t)c->nuc[i].cx << 20 | (uint64_t)i;
	qsort(c->order, (size_t)c->n, sizeof *c->order, cmp_key);
}

/* ---- segmentation rendering ------------------------------------------- */

/* Draw one segmentation's perturbation of object i of the tile. */
static void
seg_params(Seg *s, uint64_t seed, uint64_t tile, int i, int seg)
{
	rng_seed(&s->rng, seed, STREAM_SEG + (uint64_t)seg, tile, (uint64_t)i);
	Rng *r = &s->rng;
	int32_t m = rng_below(r, SUB + 1) + rng_below(r, SUB + 1) - SUB;
	m = m < 0 ? -2 * m : 2 * m; /* 0..2 px, mostly small */
	m = (int32_t)qmul(m, SZ.k);
	int dir = rng_below(r, 256);
	s->dx = (int32_t)qmul(m, icos(dir));
	s->dy = (int32_t)qmul(m, isin(dir));
	s->scale = rng_range(r, ONE * 9 / 10, ONE * 11 / 10);
	for (int k = 0; k < 3; k++)
	{
		s->amp[k] = rng_below(r, ONE * 3 / 100 + 1);
		s->ph[k] = (uint8_t)rng_below(r, 256);
	}
	s->drop = seg == SET_B && rng_below(r, 1000) < 30;
	s->split = seg == SET_B && !s->drop && rng_below(r, 1000) < 15;
	s->split_dir = (uint8_t)rng_below(r, 256);
}

/* Compute the perturbed outline (NV Q8 vertices) of a nucleus. */
static void
outline(const Nucleus *nu, const Seg *s, int32_t *px, int32_t *py)
{
	int64_t cx = nu->cx + s->dx, cy = nu->cy + s->dy;
	for (int j = 0; j < NV; j++)
	{
		int th = j * (256 / NV);
		int64_t rad = ONE;
		for (int k = 0; k < 3; k++)
		{
			rad += qmul(nu->amp[k], icos((k + 2) * th + nu->ph[k]));
			rad += qmul(s->amp[k], icos((k + 3) * th + s->ph[k]));
		}
		rad = qmul(rad, s->scale);
		int64_t ex = qmul(qmul(nu->a, icos(th)), rad);
		int64_t ey = qmul(qmul(nu->b, isin(th)), rad);
		px[j] = (int32_t)(cx + qmul(ex, nu->cr) - qmul(ey, nu->sr));
		py[j] = (int32_t)(cy + qmul(ex, nu->sr) + qmul(ey, nu->cr));
	}
}

/* Extend box to cover pixel (x,y). */
static void
box_add(Box *b, int32_t x, int32_t y)
{
	if (x < b->x0)
		b->x0 = x;
	if (x > b->x1)
		b->x1 = x;
	if (y < b->y0)
		b->y0 = y;
	if (y > b->y1)
		b->y1 = y;
}

/* Sort a short array of crossings (insertion sort; at most NV entries). */
static void
sort_small(int32_t *v, int n)
{
	for (int i = 1; i < n; i++)
	{
		int32_t t = v[i];
		int j = i;
		for (; j > 0 && v[j - 1] > t; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/* Label every pixel whose centre lies inside the polygon (even-odd rule,
 * half-open so shared edges are never counted twice). */
static void
raster(Ctx *c, const int32_t *px, const int32_t *py, uint32_t lab)
{
	int32_t ymin = py[0], ymax = py[0], xs[NV];
	for (int j = 1; j < NV; j++)
	{
		if (py[j] < ymin)
			ymin = py[j];
		if (py[j] > ymax)
			ymax = py[j];
	}
	for (int32_t y = (ymin - SUB / 2 + SUB - 1) / SUB;
	     y * SUB + SUB / 2 <= ymax; y++)
	{
		int32_t yc = y * SUB + SUB / 2;
		int n = 0;
		for (int i = 0, j = NV - 1; i < NV; j = i++)
			if ((py[i] <= yc) != (py[j] <= yc))
				xs[n++] = px[j] + (int32_t)((int64_t)(yc - py[j]) *
				                            (px[i] - px[j]) / (py[i] - py[j]));
		sort_small(xs, n);
		for (int k = 0; k + 1 < n; k += 2)
		{
			int32_t x0 = (xs[k] - SUB / 2 + SUB - 1) / SUB;
			int32_t x1 = (xs[k + 1] - SUB / 2 + SUB - 1) / SUB;
			for (int32_t x = x0; x < x1; x++)
			{
				c->img[(size_t)y * SZ.stride + (size_t)x] = lab;
				box_add(&c->box[lab], x, y);
			}
		}
	}
}

/* Linear search of a tiny pixel list. */
static int
in_list(const int *hx, const int *hy, int n, int x, int y)
{
	for (int i = 0; i < n; i++)
		if (hx[i] == x && hy[i] == y)
			return 1;
	return 0;
}

/* Cut a random 4-connected 1-6 px hole (times A / DEF_AREA) at the centre
 * of label lab, but only where the hole and its whole 8-neighbourhood are
 * lab, so the hole is strictly inside and touches the outer boundary
 * nowhere. */
static void
punch_hole(Ctx *c, uint32_t lab, int32_t cx, int32_t cy, Rng *r)
{
	int size = rng_range(r, 1, SZ.hole_max), hx[MAX_HOLE], hy[MAX_HOLE], k = 1;
	hx[0] = cx / SUB;
	hy[0] = cy / SUB;
	for (int tries = 0; k < size && tries < SZ.hole_tries; tries++)
	{
		int j = rng_below(r, (uint32_t)k), d = rng_below(r, 4);
		int x = hx[j] + DX[d], y = hy[j] + DY[d];
		if (!in_list(hx, hy, k, x, y))
		{
			hx[k] = x;
			hy[k] = y;
			k++;
		}
	}
	for (int i = 0; i < k; i++)
		for (int y = hy[i] - 1; y <= hy[i] + 1; y++)
			for (int x = hx[i] - 1; x <= hx[i] + 1; x++)
				if (c->img[(size_t)y * SZ.stride + (size_t)x] != lab)
					return;
	for (int i = 0; i < k; i++)
		c->img[(size_t)hy[i] * SZ.stride + (size_t)hx[i]] = 0;
}

/* Move the pixels of label lab on the positive side of a line through the
 * shifted centre to label lab2 (segmentation b's over-segmentation). */
static void
split_label(Ctx *c, uint32_t lab, uint32_t lab2, int32_t cx, int32_t cy,
            int dir)
{
	Box b = c->box[lab];
	int32_t nx = icos(dir), ny = isin(dir);
	for (int32_t y = b.y0; y <= b.y1; y++)
		for (int32_t x = b.x0; x <= b.x1; x++)
		{
			uint32_t *p = &c->img[(size_t)y * SZ.stride + (size_t)x];
			int64_t ux = x * SUB + SUB / 2 - cx, uy = y * SUB + SUB / 2 - cy;
			if (*p == lab && ux * nx + uy * ny > 0)
				*p = lab2;
		}
	c->box[lab2] = b;
}

/* Rasterize segmentation seg (SET_A or SET_B) of the tile into c->img.
 * Object i gets label i+1; the second half of a split gets n+1+i. */
static void
render(Ctx *c, uint64_t seed, uint64_t tile, int seg)
{
	memset(c->img, 0, SZ.stride * SZ.stride * sizeof *c->img);
	reserve(&c->box, &c->cap_box, 2 * c->n + 1, sizeof *c->box);
	for (int i = 0; i < 2 * c->n + 1; i++)
		c->box[i] = (Box){SZ.tile, SZ.tile, -1, -1};
	for (int i = 0; i < c->n; i++)
	{
		const Nucleus *nu = &c->nuc[i];
		Seg s;
		int32_t px[NV], py[NV];
		if (nu->fp && seg == SET_A)
			continue;
		seg_params(&s, seed, tile, i, seg);
		if (s.drop)
			continue;
		outline(nu, &s, px, py);
		raster(c, px, py, (uint32_t)i + 1);
		if (s.split)
			split_label(c, (uint32_t)i + 1, (uint32_t)(c->n + 1 + i),
			            nu->cx + s.dx, nu->cy + s.dy, s.split_dir);
		else if (nu->hole)
			punch_hole(c, (uint32_t)i + 1, nu->cx + s.dx, nu->cy + s.dy,
			           &s.rng);
	}
}

/* ---- label cleaning ---------------------------------------------------- */

/* Local working window of a label: its box plus a 1 px border. */
typedef struct
{
	int w, h;  /* window size */
	size_t g0; /* tile index of local pixel (0,0) */
	uint32_t lab;
} Win;

/* Tile index of local pixel p. */
static size_t
gidx(const Win *w, int p)
{
	return w->g0 + (size_t)(p / w->w) * SZ.stride + (size_t)(p % w->w);
}

/* Number of 4-neighbours of local pixel p inside the mask. */
static int
mask_nbrs(const Ctx *c, const Win *w, int p)
{
	return c->mask[p - 1] + c->mask[p + 1] + c->mask[p - w->w] +
	       c->mask[p + w->w];
}

/* Remove local pixel p from the label (it becomes background). */
static void
drop_px(Ctx *c, const Win *w, int p)
{
	c->mask[p] = 0;
	c->img[gidx(w, p)] = 0;
}

/* Flood the 4-connected mask component from p with id; return its size. */
static int
flood(Ctx *c, const Win *w, int p, int32_t id)
{
	int sp = 0, size = 0, step[4] = {1, -1, w->w, -w->w};
	c->comp[p] = id;
	c->stack[sp++] = p;
	while (sp)
	{
		int q = c->stack[--sp];
		size++;
		for (int k = 0; k < 4; k++)
		{
			int u = q + step[k];
			if (c->mask[u] && !c->comp[u])
			{
				c->comp[u] = id;
				c->stack[sp++] = u;
			}
		}
	}
	return size;
}

/* Keep only the largest 4-connected component of the label (first one on a
 * tie); the rest turns into background. */
static void
keep_largest(Ctx *c, const Win *w)
{
	int n = w->w * w->h, best = 0, best_size = 0;
	int32_t id = 0;
	memset(c->comp, 0, (size_t)n * sizeof *c->comp);
	for (int p = 0; p < n; p++)
		if (c->mask[p] && !c->comp[p])
		{
			int size = flood(c, w, p, ++id);
			if (size > best_size)
			{
				best_size = size;
				best = id;
			}
		}
	for (int p = 0; id > 1 && p < n; p++)
		if (c->mask[p] && c->comp[p] != best)
			drop_px(c, w, p);
}

/* Resolve one saddle: label pixels p,q on a diagonal, gap pixels u,v on the
 * other.  Prefer adding a free gap pixel (the one with more label
 * neighbours), else delete the diagonal pixel with fewer neighbours. */
static int
resolve_saddle(Ctx *c, const Win *w, int p, int q, int u, int v, int *adds)
{
	if (*adds < SZ.max_adds)
	{
		int fu = c->img[gidx(w, u)] == 0, fv = c->img[gidx(w, v)] == 0;
		int pick = -1;
		if (fu && fv)
			pick = mask_nbrs(c, w, v) > mask_nbrs(c, w, u) ? v : u;
		else if (fu || fv)
			pick = fu ? u : v;
		if (pick >= 0)
		{
			c->mask[pick] = 1;
			c->img[gidx(w, pick)] = w->lab;
			(*adds)++;
			return FIX_CHANGED;
		}
	}
	drop_px(c, w, mask_nbrs(c, w, q) < mask_nbrs(c, w, p) ? q : p);
	return FIX_CHANGED | FIX_REMOVED;
}

/* One pass over all 2x2 windows fixing saddles; returns FIX_* flags. */
static int
fix_saddles(Ctx *c, const Win *w, int *adds)
{
	int res = 0;
	const uint8_t *m = c->mask;
	for (int y = 0; y + 1 < w->h; y++)
		for (int x = 0; x + 1 < w->w; x++)
		{
			int a = y * w->w + x, b = a + 1, l = a + w->w, d = l + 1;
			if (m[a] && m[d] && !m[b] && !m[l])
				res |= resolve_saddle(c, w, a, d, b, l, adds);
			else if (m[b] && m[l] && !m[a] && !m[d])
				res |= resolve_saddle(c, w, b, l, a, d, adds);
		}
	return res;
}

/* Make label lab OGC-valid when traced (one 4-connected component, no
 * saddles) or drop it when under SZ.min_label pixels.  Leaves the final
 * mask in c->mask for tracing; returns 1 if the label survives. */
static int
clean_label(Ctx *c, uint32_t lab, Win *w)
{
	const Box *b = &c->box[lab];
	if (b->x0 > b->x1)
		return 0;
	w->w = b->x1 - b->x0 + 3;
	w->h = b->y1 - b->y0 + 3;
	w->g0 = (size_t)(b->y0 - 1) * SZ.stride + (size_t)(b->x0 - 1);
	w->lab = lab;
	int n = w->w * w->h, count = 0, adds = 0, res;
	reserve(&c->mask, &c->cap_mask, n, sizeof *c->mask);
	reserve(&c->comp, &c->cap_comp, n, sizeof *c->comp);
	reserve(&c->stack, &c->cap_stack, n, sizeof *c->stack);
	for (int y = 0; y < w->h; y++)
	{
		const uint32_t *row = &c->img[w->g0 + (size_t)y * SZ.stride];
		for (int x = 0; x < w->w; x++)
			c->mask[y * w->w + x] = row[x] == lab;
	}
	keep_largest(c, w);
	while ((res = fix_saddles(c, w, &adds)))
		if (res & FIX_REMOVED)
			keep_largest(c, w);
	for (int p = 0; p < n; p++)
		count += c->mask[p];
	if (count >= SZ.min_label)
		return 1;
	for (int p = 0; p < n; p++)
		if (c->mask[p])
			drop_px(c, w, p);
	return 0;
}

/* ---- tracing ----------------------------------------------------------- */

/* Append vertex (x,y) in tile pixel coordinates to the current ring. */
static void
push_vertex(Ctx *c, int32_t x, int32_t y)
{
	reserve(&c->v, &c->cap_v, 2 * c->nv + 2, sizeof *c->v);
	c->v[2 * c->nv] = x;
	c->v[2 * c->nv++ + 1] = y;
}

/* Direction to leave local vertex (x,y) when arriving heading d, walking
 * with the label on the right (y down): turn right if the pixel ahead-right
 * is outside, left if the pixel ahead-left is inside, else go straight. */
static int
next_dir(const Ctx *c, const Win *w, int x, int y, int d)
{
	static const int RX[4] = {0, -1, -1, 0}, RY[4] = {0, 0, -1, -1};
	int l = (d + 3) & 3;
	if (!c->mask[(y + RY[d]) * w->w + x + RX[d]])
		return (d + 1) & 3;
	if (c->mask[(y + RY[l]) * w->w + x + RX[l]])
		return l;
	return d;
}

/* Trace the ring through the top edge of local pixel (x0,y0), recording
 * only corners; the start is always a corner and is repeated at the end.
 * Top edges walked eastwards are marked in c->comp so no ring is traced
 * twice. */
static void
trace_ring(Ctx *c, const Win *w, int x0, int y0)
{
	int x = x0, y = y0, d = 0;
	int32_t ox = (int32_t)(w->g0 % SZ.stride);
	int32_t oy = (int32_t)(w->g0 / SZ.stride);
	push_vertex(c, ox + x, oy + y);
	do
	{
		if (d == 0)
			c->comp[y * w->w + x] = 1;
		x += DX[d];
		y += DY[d];
		int nd = next_dir(c, w, x, y, d);
		if (nd != d)
			push_vertex(c, ox + x, oy + y);
		d = nd;
	} while (x != x0 || y != y0 || d != 0);
	reserve(&c->ring_end, &c->cap_ring, c->nring + 1, sizeof *c->ring_end);
	c->ring_end[c->nring++] = c->nv;
}

/* Trace all rings of the cleaned label in c->mask.  Row-major scanning meets
 * the shell first (its top-left pixel), holes after. */
static void
trace_label(Ctx *c, const Win *w)
{
	int n = w->w * w->h;
	c->nv = c->nring = 0;
	memset(c->comp, 0, (size_t)n * sizeof *c->comp);
	for (int p = w->w; p < n; p++)
		if (c->mask[p] && !c->mask[p - w->w] && !c->comp[p])
			trace_ring(c, w, p % w->w, p / w->w);
}

/* ---- output ------------------------------------------------------------ */

/* Write out the buffer, dying on a write error. */
static void
out_flush(Out *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		die("cannot write %s", o->name, strerror(errno));
	o->len = 0;
}

/* Make room for n more bytes. */
static void
out_room(Out *o, size_t n)
{
	if (o->len + n > sizeof o->buf)
		out_flush(o);
}

/* Append a string. */
static void
out_str(Out *o, const char *s)
{
	size_t n = strlen(s);
	out_room(o, n);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* Append one character. */
static void
out_char(Out *o, char ch)
{
	out_room(o, 1);
	o->buf[o->len++] = ch;
}

/* Append an unsigned decimal integer. */
static void
out_uint(Out *o, uint64_t v)
{
	char t[24];
	int k = 0;
	do
		t[k++] = (char)('0' + v % 10);
	while (v /= 10);
	out_room(o, (size_t)k);
	while (k)
		o->buf[o->len++] = t[--k];
}

/* Append a non-negative quarter-integer q/4 as its shortest exact decimal. */
static void
out_quarter(Out *o, int64_t q)
{
	static const char *const FRAC[4] = {"", ".25", ".5", ".75"};
	out_uint(o, (uint64_t)(q / 4));
	out_str(o, FRAC[q % 4]);
}

/* Append one "x y" point given in quarter pixels, scaled by k. */
static void
out_point(Out *o, int64_t qx, int64_t qy, int k, int first)
{
	if (!first)
		out_char(o, ',');
	out_quarter(o, qx * k);
	out_char(o, ' ');
	out_quarter(o, qy * k);
}

/* Sign of a - b. */
static int
sgn(int32_t a, int32_t b)
{
	return (a > b) - (a < b);
}

/* Write ring [s, e) (closed; its last vertex repeats the first).  Rect
 * style prints the corners; smooth style replaces each corner by two points
 * a quarter pixel along its incoming and outgoing edges. */
static void
out_ring(Out *o, const Ctx *c, int s, int e, int64_t ox, int64_t oy,
         const Opts *opt)
{
	int m = e - s - 1;
	out_char(o, '(');
	for (int i = 0; i <= m; i++)
	{
		const int32_t *v = &c->v[2 * (s + i % m)];
		const int32_t *pv = &c->v[2 * (s + (i + m - 1) % m)];
		const int32_t *nv = &c->v[2 * (s + (i + 1) % m)];
		int64_t qx = 4 * (ox + v[0]), qy = 4 * (oy + v[1]);
		if (!opt->smooth)
		{
			out_point(o, qx, qy, opt->scale, i == 0);
			continue;
		}
		out_point(o, qx + sgn(pv[0], v[0]), qy + sgn(pv[1], v[1]), opt->scale,
		          i == 0);
		if (i < m)
			out_point(o, qx + sgn(nv[0], v[0]), qy + sgn(nv[1], v[1]),
			          opt->scale, 0);
	}
	out_char(o, ')');
}

/* Trace the cleaned label in c->mask and write "id<TAB>POLYGON(...)". */
static void
emit(Out *o, Ctx *c, const Win *w, uint64_t id, int64_t ox, int64_t oy,
     const Opts *opt)
{
	trace_label(c, w);
	out_uint(o, id);
	out_str(o, "\tPOLYGON(");
	for (int r = 0, s = 0; r < c->nring; s = c->ring_end[r++])
	{
		if (r)
			out_char(o, ',');
		out_ring(o, c, s, c->ring_end[r], ox, oy, opt);
	}
	out_str(o, ")\n");
}

/* ---- driver ------------------------------------------------------------ */

/* Tiles per image row: a roughly square image of n * AREA_PER_NUCLEUS px^2
 * (times A / DEF_AREA). */
static uint64_t
tiles_per_row(uint64_t n)
{
	uint64_t px2 = n * AREA_PER_NUCLEUS * (uint64_t)SZ.area / DEF_AREA;
	uint64_t w = (isqrt(px2) + (uint64_t)SZ.tile / 2) / (uint64_t)SZ.tile;
	return w ? w : 1;
}

/* Clean segmentation a of the tile in output order, writing its polygons to
 * oa (if any), until `want` survive.  Returns how many objects (in sorted
 * order) that took and stores the survivor count in *got. */
static int
pass_a(Ctx *c, Out *oa, uint64_t *id, uint64_t want, uint64_t *got, int64_t ox,
       int64_t oy, const Opts *opt)
{
	Win w;
	*got = 0;
	for (int k = 0; k < c->n; k++)
	{
		int i = (int)(c->order[k] & 0xFFFFF);
		if (c->nuc[i].fp || !clean_label(c, (uint32_t)i + 1, &w))
			continue;
		if (oa)
			emit(oa, c, &w, ++*id, ox, oy, opt);
		if (++*got == want)
			return k + 1;
	}
	return c->n;
}

/* Clean and write segmentation b for the first `cut` objects in order; a
 * split object yields its two halves in turn. */
static void
pass_b(Ctx *c, Out *ob, uint64_t *id, int cut, int64_t ox, int64_t oy,
       const Opts *opt)
{
	Win w;
	for (int k = 0; k < cut; k++)
	{
		int i = (int)(c->order[k] & 0xFFFFF);
		uint32_t labs[2] = {(uint32_t)i + 1, (uint32_t)(c->n + 1 + i)};
		for (int j = 0; j < 2; j++)
			if (clean_label(c, labs[j], &w))
				emit(ob, c, &w, ++*id, ox, oy, opt);
	}
}

/* Free every buffer of the context. */
static void
ctx_free(Ctx *c)
{
	free(c->img);
	free(c->nuc);
	free(c->order);
	free(c->next);
	free(c->box);
	free(c->mask);
	free(c->comp);
	free(c->stack);
	free(c->v);
	free(c->ring_end);
}

/* Generate tiles until set a holds opt->n polygons. */
static void
generate(const Opts *opt, Out *oa, Out *ob)
{
	Ctx c;
	memset(&c, 0, sizeof c);
	c.img = malloc(SZ.stride * SZ.stride * sizeof *c.img);
	if (!c.img)
		die("%s", "out of memory", NULL);
	uint64_t tw = tiles_per_row(opt->n), done = 0, id_a = 0, id_b = 0;
	for (uint64_t t = 0; done < opt->n; t++)
	{
		int64_t ox = (int64_t)(t % tw) * SZ.tile;
		int64_t oy = (int64_t)(t / tw) * SZ.tile;
		uint64_t got;
		gen_objects(&c, opt->seed, t);
		sort_objects(&c);
		render(&c, opt->seed, t, SET_A);
		int cut = pass_a(&c, oa, &id_a, opt->n - done, &got, ox, oy, opt);
		done += got;
		if (ob)
		{
			render(&c, opt->seed, t, SET_B);
			pass_b(&c, ob, &id_b, cut, ox, oy, opt);
		}
	}
	ctx_free(&c);
}

/* ---- label images (--labels-a, --labels-b) ---------------------------- */

/* Two segmentations of one image as compact labels 1..nlab (0 background),
 * row-major, w x h px. */
typedef struct
{
	uint32_t *lab[2]; /* SET_A, SET_B */
	uint32_t nlab[2];
	int w, h;
} Labels;

/* Compare two uint32 values for qsort and bsearch. */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Read a raw little-endian uint32 label image of w x h px, or die. */
static uint32_t *
read_labels(const char *path, int w, int h)
{
	size_t n = (size_t)w * (size_t)h;
	uint32_t *img = malloc(n * sizeof *img);
	uint8_t *raw = malloc(n * 4);
	FILE *f = fopen(path, "rb");
	if (!img || !raw)
		die("%s", "out of memory", NULL);
	if (!f)
		die("cannot open '%s'", path, strerror(errno));
	size_t got = fread(raw, 4, n, f);
	if (ferror(f))
		die("cannot read '%s'", path, strerror(errno));
	if (got != n || fgetc(f) != EOF)
		die("'%s' is not w x h little-endian uint32 labels (--labels-size)",
		    path, NULL);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		img[i] = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
		         (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
	free(raw);
	return img;
}

/* Renumber the labels of img (n px) to 1..K in the order of their values,
 * so per-label arrays stay small whatever the file's values; returns K. */
static uint32_t
compact_labels(uint32_t *img, size_t n)
{
	uint32_t *vals = malloc(n * sizeof *vals), k = 0;
	if (!vals)
		die("%s", "out of memory", NULL);
	memcpy(vals, img, n * sizeof *vals);
	qsort(vals, n, sizeof *vals, cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (vals[i] && (k == 0 || vals[i] != vals[k - 1]))
			vals[k++] = vals[i];
	for (size_t i = 0; i < n; i++)
		if (img[i])
			img[i] = 1 + (uint32_t)((uint32_t *)bsearch(&img[i], vals, k,
			                                            sizeof *vals, cmp_u32) -
			                        vals);
	free(vals);
	return k;
}

/* Load both label images of the options into L. */
static void
load_labels(Labels *L, const Opts *opt)
{
	const char *path[2] = {opt->labels_a, opt->labels_b};
	L->w = opt->lw;
	L->h = opt->lh;
	for (int s = 0; s < 2; s++)
	{
		L->lab[s] = read_labels(path[s], L->w, L->h);
		L->nlab[s] = compact_labels(L->lab[s], (size_t)L->w * (size_t)L->h);
	}
}

/* Symmetry of tile t: 0..7 for square images (bit 0 mirrors x, bit 1
 * mirrors y, bit 2 transposes), 0..3 otherwise; drawn from the seed. */
static int
tile_variant(const Labels *L, uint64_t seed, uint64_t t)
{
	Rng r;
	rng_seed(&r, seed, STREAM_LAYOUT, t, 0);
	return rng_below(&r, L->w == L->h ? 8 : 4);
}

/* Copy segmentation seg of L into c->img as seen under symmetry v, inside a
 * 1 px background border (cleaning looks one pixel around each label), with
 * each label's box and, in c->order, the labels in the order of their first
 * pixel (key: that pixel's row-major index in the tile << 32 | label). */
static void
load_tile(Ctx *c, const Labels *L, int seg, int v)
{
	const uint32_t *src = L->lab[seg];
	int w = L->w, h = L->h;
	memset(c->img, 0, SZ.stride * (size_t)(h + 2) * sizeof *c->img);
	reserve(&c->box, &c->cap_box, (int)L->nlab[seg] + 1, sizeof *c->box);
	reserve(&c->order, &c->cap_order, (int)L->nlab[seg], sizeof *c->order);
	for (uint32_t i = 0; i <= L->nlab[seg]; i++)
		c->box[i] = (Box){w + 2, h + 2, -1, -1};
	c->n = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
		{
			int sx = v & 4 ? y : x, sy = v & 4 ? x : y;
			if (v & 1)
				sx = w - 1 - sx;
			if (v & 2)
				sy = h - 1 - sy;
			uint32_t lab = src[(size_t)sy * (size_t)w + (size_t)sx];
			if (!lab)
				continue;
			c->img[(size_t)(y + 1) * SZ.stride + (size_t)(x + 1)] = lab;
			if (c->box[lab].x0 > c->box[lab].x1)
				c->order[c->n++] = ((uint64_t)y * (uint64_t)w + (uint64_t)x)
				                       << 32 |
				                   lab;
			box_add(&c->box[lab], x + 1, y + 1);
		}
}

/* Clean and write the tile's labels in c->order whose key is at most
 * `limit`, until `want` survive (counted in *got); to o when not NULL.
 * (ox, oy) is the slide position of the bordered tile's pixel (0,0).
 * Returns the key of the last survivor. */
static uint64_t
pass_labels(Ctx *c, Out *o, uint64_t *id, uint64_t want, uint64_t limit,
            uint64_t *got, int64_t ox, int64_t oy, const Opts *opt)
{
	Win w;
	uint64_t last = 0;
	*got = 0;
	for (int k = 0; k < c->n && (c->order[k] >> 32) <= limit; k++)
	{
		if (!clean_label(c, (uint32_t)c->order[k], &w))
			continue;
		if (o)
			emit(o, c, &w, ++*id, ox, oy, opt);
		last = c->order[k] >> 32;
		if (++*got == want)
			break;
	}
	return last;
}

/* Tiles per slide row for n polygons of set a: a roughly square slide of
 * tiles holding as many labels as the image. */
static uint64_t
label_tiles_per_row(const Labels *L, uint64_t n)
{
	uint64_t per = L->nlab[SET_A] ? L->nlab[SET_A] : 1;
	uint64_t px2 = (n + per - 1) / per * (uint64_t)L->w * (uint64_t)L->h;
	uint64_t w = (isqrt(px2) + (uint64_t)L->w / 2) / (uint64_t)L->w;
	return w ? w : 1;
}

/* Lay the label images out as tiles of a slide (row-major, each tile one
 * symmetry of the image, traced on its own so objects end at its edges)
 * until set a holds opt->n polygons; set b covers the same tiles, and of
 * the last tile the labels that start (first pixel) no later than set a's
 * last one. */
static void
generate_labels(const Opts *opt, Out *oa, Out *ob)
{
	Ctx c;
	Labels L;
	memset(&c, 0, sizeof c);
	load_labels(&L, opt);
	SZ.stride = (size_t)L.w + 2;
	c.img = malloc(SZ.stride * (size_t)(L.h + 2) * sizeof *c.img);
	if (!c.img)
		die("%s", "out of memory", NULL);
	uint64_t tw = label_tiles_per_row(&L, opt->n), done = 0, id_a = 0,
	         id_b = 0;
	for (uint64_t t = 0; done < opt->n; t++)
	{
		int64_t ox = (int64_t)(t % tw) * L.w - 1;
		int64_t oy = (int64_t)(t / tw) * L.h - 1;
		int v = tile_variant(&L, opt->seed, t);
		uint64_t got, nb, cut;
		load_tile(&c, &L, SET_A, v);
		cut = pass_labels(&c, oa, &id_a, opt->n - done, UINT64_MAX, &got, ox,
		                  oy, opt);
		if (got < opt->n - done)
			cut = UINT64_MAX;
		done += got;
		if (ob)
		{
			load_tile(&c, &L, SET_B, v);
			pass_labels(&c, ob, &id_b, UINT64_MAX, cut, &nb, ox, oy, opt);
		}
	}
	ctx_free(&c);
	free(L.lab[0]);
	free(L.lab[1]);
}

/* Print the usage text. */
static void
usage(FILE *f)
{
	fputs(
	    "usage: pbgen --polygons N [--seed S] [--scale K] "
	    "[--style rect|smooth]\n"
	    "             [--nucleus-area A | --labels-a FILE --labels-b FILE "
	    "--labels-size WxH]\n"
	    "             (--set a|b | --out-a FILE --out-b FILE)\n"
	    "\n"
	    "Generate two segmentations (a, b) of one synthetic tissue image as\n"
	    "lines \"id<TAB>WKT POLYGON\", ready for COPY into PostgreSQL.\n"
	    "\n"
	    "  --polygons N   polygons in set a, 1..50000000 (set b: about N)\n"
	    "  --seed S       random seed, unsigned 64-bit (default 1)\n"
	    "  --scale K      multiply all coordinates by K, 1..100 (default 1)\n"
	    "  --style rect   rectilinear polygons on pixel corners (default)\n"
	    "  --style smooth corners cut by 1/4 px: diagonal edges, "
	    "quarter coordinates\n"
	    "  --nucleus-area A\n"
	    "                 mean nucleus area in px^2, 40..2000 (default 150);\n"
	    "                 nucleus sizes, spacing, holes, tiles and image area\n"
	    "                 scale with it\n"
	    "  --set a|b      write that set to stdout\n"
	    "  --out-a FILE   write set a to FILE (with --out-b)\n"
	    "  --out-b FILE   write set b to FILE (with --out-a)\n"
	    "  --labels-a FILE --labels-b FILE --labels-size WxH\n"
	    "                 instead of the synthetic tissue, tile a slide with\n"
	    "                 these two segmentations of one image (raw\n"
	    "                 little-endian uint32 labels, W x H px, 0 = none),\n"
	    "                 each tile a symmetry of the image drawn from the\n"
	    "                 seed (bench/realgen makes them from a real image)\n"
	    "  --help         show this text\n",
	    f);
}

/* Parse an unsigned decimal in [lo, hi] for option name, or die. */
static uint64_t
parse_uint(const char *s, const char *name, uint64_t lo, uint64_t hi)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v < lo || v > hi)
	{
		fprintf(stderr,
		        "pbgen: invalid value '%s' for --%s (expected %llu..%llu)\n",
		        s, name, (unsigned long long)lo, (unsigned long long)hi);
		exit(2);
	}
	return v;
}

/* Parse --labels-size "WxH" (each 1..16384 px) into opt, or die. */
static void
parse_size(const char *s, Opts *opt)
{
	char *end;
	long w = strtol(s, &end, 10), h = 0;
	if (*s >= '0' && *s <= '9' && *end == 'x' && end[1] >= '0' &&
	    end[1] <= '9')
		h = strtol(end + 1, &end, 10);
	if (*end || w < 1 || w > 16384 || h < 1 || h > 16384)
		die("invalid --labels-size '%s' (expected WxH, 1..16384 each)", s,
		    NULL);
	opt->lw = (int)w;
	opt->lh = (int)h;
}

/* Parse the command line into opt, dying with status 2 on any problem. */
static void
parse_args(int argc, char **argv, Opts *opt)
{
	static const struct option LONG[] = {
	    {"polygons", required_argument, 0, 'n'},
	    {"seed", required_argument, 0, 's'},
	    {"scale", required_argument, 0, 'k'},
	    {"style", required_argument, 0, 't'},
	    {"set", required_argument, 0, 'S'},
	    {"out-a", required_argument, 0, 'a'},
	    {"out-b", required_argument, 0, 'b'},
	    {"nucleus-area", required_argument, 0, 'A'},
	    {"labels-a", required_argument, 0, 'L'},
	    {"labels-b", required_argument, 0, 'M'},
	    {"labels-size", required_argument, 0, 'W'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0}};
	int ch, have_n = 0, have_area = 0;
	*opt = (Opts){.seed = 1, .scale = 1, .set = SET_NONE, .area = DEF_AREA};
	while ((ch = getopt_long(argc, argv, "", LONG, NULL)) != -1)
	{
		switch (ch)
		{
			case 'n':
				opt->n = parse_uint(optarg, "polygons", 1, MAX_N);
				have_n = 1;
				break;
			case 's':
				opt->seed = parse_uint(optarg, "seed", 0, UINT64_MAX);
				break;
			case 'k':
				opt->scale = (int)parse_uint(optarg, "scale", 1, 100);
				break;
			case 't':
				if (strcmp(optarg, "rect") && strcmp(optarg, "smooth"))
					die("invalid --style '%s' (expected rect or smooth)",
					    optarg, NULL);
				opt->smooth = !strcmp(optarg, "smooth");
				break;
			case 'S':
				if (strcmp(optarg, "a") && strcmp(optarg, "b"))
					die("invalid --set '%s' (expected a or b)", optarg, NULL);
				opt->set = optarg[0] == 'a' ? SET_A : SET_B;
				break;
			case 'A':
				opt->area = (int)parse_uint(optarg, "nucleus-area", MIN_AREA,
				                            MAX_AREA);
				have_area = 1;
				break;
			case 'L':
				opt->labels_a = optarg;
				break;
			case 'M':
				opt->labels_b = optarg;
				break;
			case 'W':
				parse_size(optarg, opt);
				break;
			case 'a':
				opt->out_a = optarg;
				break;
			case 'b':
				opt->out_b = optarg;
				break;
			case 'h':
				usage(stdout);
				exit(0);
			default:
				fputs("Try 'pbgen --help'.\n", stderr);
				exit(2);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind], NULL);
	if (!have_n)
		die("%s", "missing required option --polygons", NULL);
	if ((opt->labels_a || opt->labels_b || opt->lw) &&
	    !(opt->labels_a && opt->labels_b && opt->lw))
		die("%s", "need all of --labels-a, --labels-b and --labels-size",
		    NULL);
	if (opt->labels_a && have_area)
		die("%s", "--nucleus-area cannot be combined with label images",
		    NULL);
	if (opt->set >= 0 && (opt->out_a || opt->out_b))
		die("%s", "--set cannot be combined with --out-a/--out-b", NULL);
	if (opt->set < 0 && !(opt->out_a && opt->out_b))
		die("%s", "need --set a|b, or both --out-a FILE and --out-b FILE",
		    NULL);
	if (opt->set < 0)
	{
		if (!strcmp(opt->out_a, opt->out_b))
			die("--out-a and --out-b name the same file '%s'", opt->out_a,
			    NULL);
		opt->set = SET_BOTH;
	}
}

/* Open name for writing into o, or die. */
static void
open_out(Out *o, const char *name)
{
	o->name = name;
	o->len = 0;
	o->f = fopen(name, "wb");
	if (!o->f)
		die("cannot open '%s' for writing", name, strerror(errno));
}

/* Flush and close o, dying if any write failed. */
static void
close_out(Out *o)
{
	out_flush(o);
	if (o->f == stdout ? fflush(o->f) : fclose(o->f))
		die("cannot write %s", o->name, strerror(errno));
}

/* Entry point: parse options, open outputs, generate, close. */
int
main(int argc, char **argv)
{
	static Out oa, ob;
	Opts opt;
	parse_args(argc, argv, &opt);
	trig_init();
	size_init(opt.area);
	Out *pa = NULL, *pb = NULL;
	if (opt.set == SET_BOTH)
	{
		open_out(&oa, opt.out_a);
		open_out(&ob, opt.out_b);
		pa = &oa;
		pb = &ob;
	}
	else
	{
		Out *o = opt.set == SET_A ? &oa : &ob;
		o->f = stdout;
		o->name = "stdout";
		if (opt.set == SET_A)
			pa = o;
		else
			pb = o;
	}
	if (opt.labels_a)
		generate_labels(&opt, pa, pb);
	else
		generate(&opt, pa, pb);
	if (pa)
		close_out(pa);
	if (pb)
		close_out(pb);
	return 0;
}
