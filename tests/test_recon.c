/*
 * test_recon.c: gray-scale morphological reconstruction of the raster core
 * (PbReconstructSeq, the tiled PbReconstructCpu, PbReconClip) against an
 * independent brute force written here: elementary dilations (erosions)
 * clamped by the mask, repeated until nothing changes, on doubles; and
 * the nodata passes around it (nodata.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/raster/pb_raster.h"
#include "harness.h"
#include "recon_ref.h"
#include "tests_recon.h"

static const PbPixType all_types[4] = {PB_PIX_1BB, PB_PIX_8BUI, PB_PIX_16BUI,
PB_PIX_32BF};
static const char *const type_names[4] = {"1BB", "8BUI", "16BUI", "32BF"};

/* A zeroed w x h image of type (data NULL when it has no pixels). */
static PbImage
ImgNew(int w, int h, PbPixType type)
{
	PbImage		im = {w, h, type, NULL};
	size_t		sz = type == PB_PIX_16BUI ? 2 : type == PB_PIX_32BF ? 4 : 1;

	if ((size_t) w * h > 0)
		im.data = calloc((size_t) w * h, sz);
	return im;
}

/* A copy of im with its own pixels. */
static PbImage
ImgCopy(const PbImage *im)
{
	PbImage		c = ImgNew(im->width, im->height, im->type);

	for (size_t i = 0; i < (size_t) im->width * im->height; i++)
		PbPixSet(&c, i, PbPixGet(im, i));
	return c;
}

/* Whether a and b hold equal values (== on doubles: -0.0 equals 0.0). */
static int
ImgSame(const PbImage *a, const PbImage *b)
{
	for (size_t i = 0; i < (size_t) a->width * a->height; i++)
		if (!(PbPixGet(a, i) == PbPixGet(b, i)))
			return 0;
	return 1;
}

/* Largest value of a type (+inf for floats). */
static double
TypeTop(PbPixType type)
{
	switch (type)
	{
		case PB_PIX_1BB:
			return 1;
		case PB_PIX_8BUI:
			return 255;
		case PB_PIX_16BUI:
			return 65535;
		case PB_PIX_32BF:
			break;
	}
	return INFINITY;
}

/* A random value of type: often from a few levels (plateaus), sometimes any. */
static double
RandValue(Rng *r, PbPixType type, int levels)
{
	static const double fl[] = {-INFINITY, INFINITY, -2.5, -1, 0, 0.5, 1, 3.25,
	1e30, -1e-30};

	switch (type)
	{
		case PB_PIX_1BB:
			return (double) RngRange(r, 0, 1);
		case PB_PIX_8BUI:
			return levels ? (double) RngRange(r, 0, levels) : (double) RngRange(r, 0, 255);
		case PB_PIX_16BUI:
			return levels ? (double) RngRange(r, 0, levels) * 1000 + 7 :
				(double) RngRange(r, 0, 65535);
		case PB_PIX_32BF:
			break;
	}
	if (levels)
		return fl[RngRange(r, 0, 9)];
	return (double) (float) ((RngDouble(r) - 0.5) * 1000);
}

/* Fill im with random values (see RandValue). */
static void
ImgRandom(PbImage *im, Rng *r, int levels)
{
	for (size_t i = 0; i < (size_t) im->width * im->height; i++)
		PbPixSet(im, i, RandValue(r, im->type, levels));
}

/* The better of a and b under op: larger for dilation, smaller for erosion. */
static double
Better(double a, double b, PbReconOp op)
{
	return op == PB_RECON_DILATE ? (a > b ? a : b) : (a < b ? a : b);
}

/* The worse of a and b under op (the mask clamp). */
static double
Worse(double a, double b, PbReconOp op)
{
	return op == PB_RECON_DILATE ? (a < b ? a : b) : (a > b ? a : b);
}

/*
 * The brute-force truth: clip marker to mask, then sweep elementary
 * dilations (erosions) clamped by the mask, alternating the sweep
 * direction, until a sweep changes nothing.  Returns a new image.
 */
static PbImage
BruteRecon(const PbImage *marker, const PbImage *mask, int conn, PbReconOp op)
{
	PbImage		out = ImgCopy(marker);
	int			w = marker->width,
				h = marker->height;
	size_t		n = (size_t) w * h;
	int			changed = 1;

	for (size_t i = 0; i < n; i++)
		PbPixSet(&out, i, Worse(PbPixGet(&out, i), PbPixGet(mask, i), op));
	for (int pass = 0; changed; pass++)
	{
		changed = 0;
		for (size_t k = 0; k < n; k++)
		{
			size_t		i = pass % 2 ? n - 1 - k : k;
			int			x = (int) (i % w),
						y = (int) (i / w);
			double		v = PbPixGet(&out, i);

			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++)
				{
					int			nx = x + dx,
								ny = y + dy;

					if (nx < 0 || ny < 0 || nx >= w || ny >= h ||
						(conn == 4 && dx != 0 && dy != 0))
						continue;
					v = Better(v, PbPixGet(&out, (size_t) ny * w + nx), op);
				}
			v = Worse(v, PbPixGet(mask, i), op);
			if (!(v == PbPixGet(&out, i)))
			{
				PbPixSet(&out, i, v);
				changed = 1;
			}
		}
	}
	return out;
}

/* Reconstruct a copy of marker with PbReconstructSeq; checks the status. */
static PbImage
RunSeq(const PbImage *marker, const PbImage *mask, int conn, PbReconOp op)
{
	PbImage		out = ImgCopy(marker);

	CHECK_INT(PbReconstructSeq(&out, mask, conn, op), PB_OK);
	return out;
}

/* Reconstruct a copy of marker with PbReconstructCpu; checks the status. */
static PbImage
RunCpu(const PbImage *marker, const PbImage *mask, int conn, PbReconOp op,
	   int threads, int tile)
{
	PbImage		out = ImgCopy(marker);
	PbRun run = {threads, tile, NULL, NULL};

	CHECK_INT(PbReconstructCpu(&out, mask, conn, op, &run), PB_OK);
	return out;
}

/*
 * Check Seq and Cpu (threads, tile) against the brute force for one case;
 * what names the case in failure messages.
 */
static void
CheckCase(const char *what, const PbImage *marker, const PbImage *mask,
		  int conn, PbReconOp op, int threads, int tile)
{
	PbImage		truth,
				seq,
				cpu;

	pb_test_context("%s %s %dx%d conn %d %s threads %d tile %d", what,
					type_names[marker->type], marker->width, marker->height,
					conn, op == PB_RECON_DILATE ? "dilate" : "erode", threads,
					tile);
	truth = BruteRecon(marker, mask, conn, op);
	seq = RunSeq(marker, mask, conn, op);
	cpu = RunCpu(marker, mask, conn, op, threads, tile);
	CHECK(ImgSame(&seq, &truth));
	CHECK(ImgSame(&cpu, &truth));
	free(truth.data);
	free(seq.data);
	free(cpu.data);
}

/* A marker under (above, for erosion) mask: random, clipped here. */
static PbImage
ClippedMarker(const PbImage *mask, Rng *r, PbReconOp op, int levels)
{
	PbImage		m = ImgNew(mask->width, mask->height, mask->type);

	ImgRandom(&m, r, levels);
	for (size_t i = 0; i < (size_t) m.width * m.height; i++)
		PbPixSet(&m, i, Worse(PbPixGet(&m, i), PbPixGet(mask, i), op));
	return m;
}

/* PbReconClip is the pixelwise min (dilation) / max (erosion), per type. */
void
test_recon_clip(void)
{
	Rng			r = {11};

	for (int t = 0; t < 4; t++)
		for (int o = 0; o < 2; o++)
		{
			PbReconOp	op = o ? PB_RECON_ERODE : PB_RECON_DILATE;
			PbImage		mask = ImgNew(9, 7, all_types[t]);
			PbImage		marker = ImgNew(9, 7, all_types[t]);
			PbImage		orig;
			PbImage		other = ImgNew(7, 9, all_types[t]);

			ImgRandom(&mask, &r, 3);
			ImgRandom(&marker, &r, 3);
			orig = ImgCopy(&marker);
			pb_test_context("%s op %d", type_names[t], o);
			CHECK_INT(PbReconClip(&marker, &mask, op), PB_OK);
			for (size_t i = 0; i < 63; i++)
				CHECK(PbPixGet(&marker, i) ==
					  Worse(PbPixGet(&orig, i), PbPixGet(&mask, i), op));
			CHECK_INT(PbReconClip(&other, &mask, op), PB_ERR_BADARG);
			other.type = all_types[(t + 1) % 4];
			other.width = 9;
			other.height = 7;
			CHECK_INT(PbReconClip(&other, &mask, op), PB_ERR_BADARG);
			free(mask.data);
			free(marker.data);
			free(orig.data);
			free(other.data);
		}
}

/*
 * Many small random images: every type, connectivity and operation, sizes
 * from 1x1 through 1xN, Nx1 to 13x13, random markers under the mask; Seq
 * and Cpu (random threads and tiny tiles) equal the brute force.
 */
void
test_recon_random_small(void)
{
	Rng			r = {12};

	for (int iter = 0; iter < 96; iter++)
		for (int t = 0; t < 4; t++)
			for (int o = 0; o < 2; o++)
			{
				PbReconOp	op = o ? PB_RECON_ERODE : PB_RECON_DILATE;
				int			w = iter < 8 ? 1 : (int) RngRange(&r, 1, 13);
				int			h = iter >= 8 && iter < 16 ? 1 : (int) RngRange(&r, 1, 13);
				PbImage		mask = ImgNew(w, h, all_types[t]);
				PbImage		marker;
				int			levels = (int) RngRange(&r, 0, 4);

				ImgRandom(&mask, &r, levels);
				marker = ClippedMarker(&mask, &r, op, levels);
				CheckCase("random", &marker, &mask, iter % 2 ? 8 : 4, op,
						  (int) RngRange(&r, 1, 4), (int) RngRange(&r, 0, 6));
				free(mask.data);
				free(marker.data);
			}
}

/*
 * Degenerate inputs: marker == mask and constant images are fixed points;
 * a marker of the worst value everywhere stays so.
 */
void
test_recon_special_images(void)
{
	Rng			r = {13};

	for (int t = 0; t < 4; t++)
		for (int o = 0; o < 2; o++)
			for (int conn = 4; conn <= 8; conn += 4)
			{
				PbReconOp	op = o ? PB_RECON_ERODE : PB_RECON_DILATE;
				PbImage		mask = ImgNew(23, 17, all_types[t]);
				PbImage		marker,
							out;
				double		worst = op == PB_RECON_DILATE ?
					(all_types[t] == PB_PIX_32BF ? -INFINITY : 0) :
					TypeTop(all_types[t]);

				ImgRandom(&mask, &r, 3);
				marker = ImgCopy(&mask);
				pb_test_context("%s op %d conn %d", type_names[t], o, conn);
				out = RunCpu(&marker, &mask, conn, op, 3, 5);
				CHECK(ImgSame(&out, &mask));
				free(out.data);
				out = RunSeq(&marker, &mask, conn, op);
				CHECK(ImgSame(&out, &mask));
				free(out.data);
				CheckCase("marker==mask", &marker, &mask, conn, op, 2, 4);

				for (size_t i = 0; i < 23 * 17; i++)
				{
					PbPixSet(&mask, i, TypeTop(all_types[t]));
					PbPixSet(&marker, i, worst);
				}
				out = RunCpu(&marker, &mask, conn, op, 4, 3);
				CHECK(ImgSame(&out, &marker));
				free(out.data);
				CheckCase("worst marker", &marker, &mask, conn, op, 2, 7);
				CheckCase("constant", &mask, &mask, conn, op, 2, 7);
				free(mask.data);
				free(marker.data);
			}
}

/* Whether (x, y) is inside w x h and not yet on the path p. */
static int
SpiralFree(const uint8_t *p, int w, int h, int x, int y)
{
	return x >= 0 && y >= 0 && x < w && y < h && !p[y * w + x];
}

/*
 * A w x h spiral corridor of width 1 (1 inside, 0 walls of width 1),
 * walked like a turtle from the top left corner, turning right where
 * going on would run out or touch the corridor already laid.  The flood
 * from its outer end winds around the centre, crossing tile borders back
 * and forth.  Returns the mask as an 8BUI image; *end gets the inner end.
 */
static PbImage
SpiralMask(int w, int h, size_t *end)
{
	static const int dx[4] = {1, 0, -1, 0},
				dy[4] = {0, 1, 0, -1};
	PbImage		m = ImgNew(w, h, PB_PIX_8BUI);
	uint8_t    *p = m.data;
	int			x = 0,
				y = 0,
				d = 0,
				turns = 0;

	p[0] = 1;
	while (turns < 2)
	{
		if (SpiralFree(p, w, h, x + dx[d], y + dy[d]) &&
			(SpiralFree(p, w, h, x + 2 * dx[d], y + 2 * dy[d]) ||
			 x + 2 * dx[d] < 0 || x + 2 * dx[d] >= w ||
			 y + 2 * dy[d] < 0 || y + 2 * dy[d] >= h))
		{
			x += dx[d];
			y += dy[d];
			p[y * w + x] = 1;
			turns = 0;
		}
		else
		{
			d = (d + 1) % 4;
			turns++;
		}
	}
	*end = (size_t) y * w + x;
	return m;
}

/*
 * The spiral maze, as 1BB, 8BUI gray levels and float: the flood needs
 * many rounds with tiles of 3, 7, 16; 1, 2, 3 and 8 threads match Seq and
 * the brute force.
 */
void
test_recon_spiral_maze(void)
{
	static const int tiles[3] = {3, 7, 16};
	size_t		end;
	PbImage		base = SpiralMask(41, 37, &end);

	for (int t = 0; t < 4; t++)
		for (int conn = 4; conn <= 8; conn += 4)
		{
			PbImage		mask = ImgNew(41, 37, all_types[t]);
			PbImage		marker = ImgNew(41, 37, all_types[t]);
			PbImage		truth,
						seq;

			/* corridor levels fall slowly along the path: a gray flood */
			for (size_t i = 0; i < 41 * 37; i++)
			{
				double		v = ((uint8_t *) base.data)[i];

				if (v && all_types[t] != PB_PIX_1BB)
					v = all_types[t] == PB_PIX_32BF ? 1000.0 - (double) (i % 97) * 0.5 :
						(double) (200 - (i % 53));
				PbPixSet(&mask, i, v);
			}
			PbPixSet(&marker, 0, PbPixGet(&mask, 0));
			truth = BruteRecon(&marker, &mask, conn, PB_RECON_DILATE);
			seq = RunSeq(&marker, &mask, conn, PB_RECON_DILATE);
			pb_test_context("%s conn %d seq", type_names[t], conn);
			CHECK(ImgSame(&seq, &truth));
			CHECK(PbPixGet(&truth, end) > 0); /* the flood reached the end */
			for (int k = 0; k < 3; k++)
				for (int threads = 1; threads <= 8; threads += threads < 3 ? 1 : 5)
				{
					PbImage		cpu = RunCpu(&marker, &mask, conn,
											 PB_RECON_DILATE, threads, tiles[k]);

					pb_test_context("%s conn %d tile %d threads %d",
									type_names[t], conn, tiles[k], threads);
					CHECK(ImgSame(&cpu, &truth));
					free(cpu.data);
				}
			free(mask.data);
			free(marker.data);
			free(truth.data);
			free(seq.data);
		}
	free(base.data);
}

/*
 * Fill holes: marker = mask on the image border and the type's top value
 * elsewhere, reconstruction by erosion.  Random blobs (binary and gray),
 * and one known case: the hole of a ring fills to the ring's level.
 */
void
test_recon_fill_holes(void)
{
	Rng			r = {14};

	for (int iter = 0; iter < 6; iter++)
		for (int t = 0; t < 4; t++)
		{
			int			w = (int) RngRange(&r, 5, 40),
						h = (int) RngRange(&r, 5, 40);
			PbImage		mask = ImgNew(w, h, all_types[t]);
			PbImage		marker = ImgNew(w, h, all_types[t]);

			ImgRandom(&mask, &r, iter % 3 ? 1 : 0);
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
				{
					size_t		i = (size_t) y * w + x;
					int			edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;

					PbPixSet(&marker, i, edge ? PbPixGet(&mask, i) : TypeTop(all_types[t]));
				}
			CheckCase("fill holes", &marker, &mask, iter % 2 ? 8 : 4,
					  PB_RECON_ERODE, (int) RngRange(&r, 1, 5), (int) RngRange(&r, 1, 9));
			free(mask.data);
			free(marker.data);
		}

	/* a ring of 9 around a hole of 2 on a background of 1: hole -> 9 */
	{
		PbImage		mask = ImgNew(20, 20, PB_PIX_8BUI);
		PbImage		marker = ImgNew(20, 20, PB_PIX_8BUI);
		PbImage		out;

		for (int y = 0; y < 20; y++)
			for (int x = 0; x < 20; x++)
			{
				int			ring = x >= 4 && x <= 15 && y >= 4 && y <= 15;
				int			hole = x >= 6 && x <= 13 && y >= 6 && y <= 13;
				int			edge = x == 0 || y == 0 || x == 19 || y == 19;
				double		v = hole ? 2 : ring ? 9 : 1;

				PbPixSet(&mask, (size_t) y * 20 + x, v);
				PbPixSet(&marker, (size_t) y * 20 + x, edge ? v : 255);
			}
		out = RunCpu(&marker, &mask, 4, PB_RECON_ERODE, 2, 3);
		pb_test_context("ring");
		CHECK_INT(PbPixGet(&out, 10 * 20 + 10), 9);
		CHECK_INT(PbPixGet(&out, 5 * 20 + 5), 9);
		CHECK_INT(PbPixGet(&out, 2 * 20 + 2), 1);
		free(out.data);
		free(mask.data);
		free(marker.data);
	}
}

/*
 * Floats with -inf/+inf in mask and marker, both operations: +inf floods
 * under an infinite mask (dilation), -inf under erosion.
 */
void
test_recon_float_inf(void)
{
	Rng			r = {15};

	for (int iter = 0; iter < 40; iter++)
		for (int o = 0; o < 2; o++)
		{
			PbReconOp	op = o ? PB_RECON_ERODE : PB_RECON_DILATE;
			int			w = (int) RngRange(&r, 1, 24),
						h = (int) RngRange(&r, 1, 24);
			PbImage		mask = ImgNew(w, h, PB_PIX_32BF);
			PbImage		marker;

			ImgRandom(&mask, &r, 1);
			marker = ClippedMarker(&mask, &r, op, 1);
			CheckCase("inf", &marker, &mask, iter % 2 ? 8 : 4, op,
					  (int) RngRange(&r, 1, 4), (int) RngRange(&r, 1, 8));
			free(mask.data);
			free(marker.data);
		}

	/* one +inf marker pixel floods an all +inf mask */
	{
		PbImage		mask = ImgNew(30, 20, PB_PIX_32BF);
		PbImage		marker = ImgNew(30, 20, PB_PIX_32BF);
		PbImage		out;

		for (size_t i = 0; i < 600; i++)
		{
			PbPixSet(&mask, i, INFINITY);
			PbPixSet(&marker, i, -INFINITY);
		}
		PbPixSet(&marker, 317, INFINITY);
		out = RunCpu(&marker, &mask, 4, PB_RECON_DILATE, 3, 4);
		pb_test_context("inf flood");
		for (size_t i = 0; i < 600; i++)
			CHECK(PbPixGet(&out, i) == INFINITY);
		free(out.data);
		free(mask.data);
		free(marker.data);
	}
}

/*
 * Medium images (h-maxima style marker = mask - h, random clipped markers
 * and unclipped ones): PbReconstructCpu with 1..8 threads (1, 4, 7 for
 * tiles of 1 and 2) and tiles up to the default equals PbReconstructSeq.
 */
void
test_recon_tiles_match_seq(void)
{
	static const int tiles[7] = {1, 2, 3, 7, 16, 64, 0};
	Rng			r = {16};

	for (int t = 0; t < 4; t++)
		for (int kind = 0; kind < 3; kind++)
		{
			PbReconOp	op = kind == 1 ? PB_RECON_ERODE : PB_RECON_DILATE;
			int			conn = t % 2 ? 8 : 4;
			PbImage		mask = ImgNew(150, 97, all_types[t]);
			PbImage		marker = ImgNew(150, 97, all_types[t]);
			PbImage		seq;

			ImgRandom(&mask, &r, kind == 2 ? 0 : 6);
			for (size_t i = 0; i < 150 * 97; i++)
			{
				double		m = PbPixGet(&mask, i);

				if (kind == 0)	/* mask - h, saturating */
					PbPixSet(&marker, i, all_types[t] == PB_PIX_32BF ? m - 1.5 :
						   m >= 2 ? m - 2 : 0);
				else			/* random, not clipped */
					PbPixSet(&marker, i, RandValue(&r, all_types[t], kind == 2 ? 0 : 6));
			}
			seq = RunSeq(&marker, &mask, conn, op);
			if (kind == 0)
			{
				PbImage		truth = BruteRecon(&marker, &mask, conn, op);

				pb_test_context("%s h-maxima seq", type_names[t]);
				CHECK(ImgSame(&seq, &truth));
				free(truth.data);
			}
			for (int k = 0; k < 7; k++)
				for (int threads = 1; threads <= 8; threads += k < 2 ? 3 : 1)
				{
					PbImage		cpu = RunCpu(&marker, &mask, conn, op, threads, tiles[k]);

					pb_test_context("%s kind %d tile %d threads %d",
									type_names[t], kind, tiles[k], threads);
					CHECK(ImgSame(&cpu, &seq));
					free(cpu.data);
				}
			free(mask.data);
			free(marker.data);
			free(seq.data);
		}
}

/* Bad arguments give PB_ERR_BADARG; zero-size images are a no-op. */
void
test_recon_badarg(void)
{
	PbImage		a = ImgNew(5, 4, PB_PIX_8BUI);
	PbImage		b = ImgNew(5, 4, PB_PIX_8BUI);
	PbImage		c = ImgNew(4, 5, PB_PIX_8BUI);
	PbImage		d = ImgNew(5, 4, PB_PIX_16BUI);
	PbImage		nodata = {5, 4, PB_PIX_8BUI, NULL};
	PbImage		empty = {0, 7, PB_PIX_32BF, NULL};
	PbImage		empty2 = {0, 7, PB_PIX_32BF, NULL};
	PbImage		neg = {-1, 4, PB_PIX_8BUI, a.data};
	PbImage		badtype = {5, 4, (PbPixType) 9, a.data};
	PbImage		badtype2 = {5, 4, (PbPixType) 9, b.data};
	PbRun run = {2, 0, NULL, NULL};
	PbRun badtile = {2, -1, NULL, NULL};

	for (int conn = 0; conn <= 9; conn++)
		if (conn != 4 && conn != 8)
		{
			CHECK_INT(PbReconstructSeq(&a, &b, conn, PB_RECON_DILATE), PB_ERR_BADARG);
			CHECK_INT(PbReconstructCpu(&a, &b, conn, PB_RECON_ERODE, &run), PB_ERR_BADARG);
		}
	CHECK_INT(PbReconstructSeq(&a, &c, 4, PB_RECON_DILATE), PB_ERR_BADARG);
	CHECK_INT(PbReconstructCpu(&a, &c, 8, PB_RECON_DILATE, &run), PB_ERR_BADARG);
	CHECK_INT(PbReconstructSeq(&a, &d, 4, PB_RECON_DILATE), PB_ERR_BADARG);
	CHECK_INT(PbReconstructCpu(&a, &d, 4, PB_RECON_DILATE, &run), PB_ERR_BADARG);
	CHECK_INT(PbReconstructSeq(&nodata, &b, 4, PB_RECON_DILATE), PB_ERR_BADARG);
	CHECK_INT(PbReconstructCpu(&a, &nodata, 4, PB_RECON_DILATE, &run), PB_ERR_BADARG);
	CHECK_INT(PbReconClip(&nodata, &b, PB_RECON_DILATE), PB_ERR_BADARG);
	CHECK_INT(PbReconstructSeq(&neg, &neg, 4, PB_RECON_DILATE), PB_ERR_BADARG);
	CHECK_INT(PbReconstructSeq(&badtype, &badtype2, 4, PB_RECON_DILATE), PB_ERR_BADARG);
	CHECK_INT(PbReconstructCpu(&badtype, &badtype2, 4, PB_RECON_DILATE, &run), PB_ERR_BADARG);
	CHECK_INT(PbReconstructSeq(&a, &b, 4, (PbReconOp) 7), PB_ERR_BADARG);
	CHECK_INT(PbReconstructCpu(&a, &b, 4, PB_RECON_DILATE, &badtile), PB_ERR_BADARG);
	CHECK_INT(PbReconstructSeq(NULL, &b, 4, PB_RECON_DILATE), PB_ERR_BADARG);
	CHECK_INT(PbReconstructCpu(&a, NULL, 4, PB_RECON_DILATE, &run), PB_ERR_BADARG);

	CHECK_INT(PbReconstructSeq(&empty, &empty2, 4, PB_RECON_DILATE), PB_OK);
	CHECK_INT(PbReconstructCpu(&empty, &empty2, 8, PB_RECON_ERODE, &run), PB_OK);
	CHECK_INT(PbReconstructCpu(&empty, &empty2, 8, PB_RECON_ERODE, NULL), PB_OK);
	CHECK_INT(PbReconClip(&empty, &empty2, PB_RECON_ERODE), PB_OK);
	/* run NULL means one thread, default tile */
	CHECK_INT(PbReconstructCpu(&a, &b, 8, PB_RECON_ERODE, NULL), PB_OK);
	free(a.data);
	free(b.data);
	free(c.data);
	free(d.data);
}

/*
 * Reconstruct marker under mask on one thread, 4-connected, around the
 * nodata passes of nodata.h (as the SQL functions do); the result in
 * marker.
 */
static void
ReconWithNodata(PbImage *marker, const uint8_t *marker_nodata, PbImage *mask,
				const uint8_t *mask_nodata, PbReconOp op)
{
	float		saved[16];
	PbRun run = {1, 0, NULL, NULL};

	PbReconNodataWalls(marker, marker_nodata, mask, mask_nodata, op, saved);
	CHECK_INT(PbReconClip(marker, mask, op), PB_OK);
	CHECK_INT(PbReconstructCpu(marker, mask, 4, op, &run), PB_OK);
	PbReconRestoreNodata(marker, mask_nodata, saved);
}

/*
 * The nodata passes around a reconstruction (nodata.h): a nodata marker
 * pixel seeds nothing, a nodata mask pixel is a wall that keeps its mask
 * value in the result; the fill-holes marker is the image's border with
 * the highest value of the type inside.
 */
void
test_recon_nodata(void)
{
	static const uint8_t marker_nd[5] = {0, 0, 0, 0, 1};
	static const uint8_t mask_nd[5] = {0, 0, 1, 0, 0};
	PbImage		mask = ImgNew(5, 1, PB_PIX_8BUI);
	PbImage		marker = ImgNew(5, 1, PB_PIX_8BUI);
	PbImage		fmask = ImgNew(5, 1, PB_PIX_32BF);
	PbImage		fmarker = ImgNew(5, 1, PB_PIX_32BF);
	PbImage		image = ImgNew(4, 3, PB_PIX_16BUI);
	PbImage		fill = ImgNew(4, 3, PB_PIX_16BUI);
	PbImage		bits = ImgNew(3, 3, PB_PIX_1BB);
	PbImage		bfill = ImgNew(3, 3, PB_PIX_1BB);

	/* dilation: 9 spreads from the left up to the wall, not from the nodata 7 */
	for (int i = 0; i < 5; i++)
	{
		PbPixSet(&mask, i, i == 2 ? 5 : 9);
		PbPixSet(&marker, i, i == 0 ? 9 : i == 4 ? 7 : 0);
	}
	ReconWithNodata(&marker, marker_nd, &mask, mask_nd, PB_RECON_DILATE);
	CHECK(PbPixGet(&marker, 0) == 9 && PbPixGet(&marker, 1) == 9 && PbPixGet(&marker, 2) == 5 &&
		  PbPixGet(&marker, 3) == 0 && PbPixGet(&marker, 4) == 0);

	/* erosion of floats: the wall is +inf while it runs, 5 again after */
	for (int i = 0; i < 5; i++)
	{
		PbPixSet(&fmask, i, i == 2 ? 5 : 1);
		PbPixSet(&fmarker, i, i == 0 ? 1 : i == 4 ? 3 : 9);
	}
	ReconWithNodata(&fmarker, marker_nd, &fmask, mask_nd, PB_RECON_ERODE);
	CHECK(PbPixGet(&fmarker, 0) == 1 && PbPixGet(&fmarker, 1) == 1 && PbPixGet(&fmarker, 2) == 5 &&
		  PbPixGet(&fmarker, 3) == 9 && PbPixGet(&fmarker, 4) == 9);
	CHECK(PbPixGet(&fmask, 2) == INFINITY);

	/* the fill-holes markers: border kept, the top of the type inside */
	for (int i = 0; i < 12; i++)
		PbPixSet(&image, i, 100 + i);
	PbFillHolesMarker(&image, &fill);
	for (int i = 0; i < 12; i++)
		CHECK(PbPixGet(&fill, i) == (i == 5 || i == 6 ? 65535 : 100 + i));
	PbFillHolesMarker(&bits, &bfill);
	for (int i = 0; i < 9; i++)
		CHECK(PbPixGet(&bfill, i) == (i == 4 ? 1 : 0));
	free(mask.data);
	free(marker.data);
	free(fmask.data);
	free(fmarker.data);
	free(image.data);
	free(fill.data);
	free(bits.data);
	free(bfill.data);
}

/* Poll function for test_recon_stopped: stop after *arg more calls. */
static int
StopAfter(void *arg)
{
	int		   *left = arg;

	return (*left)-- <= 0;
}

/*
 * A poll that says stop gives PB_ERR_STOPPED, at once or in a later round;
 * one that never does changes nothing.
 */
void
test_recon_stopped(void)
{
	size_t		end;
	PbImage		mask = SpiralMask(41, 37, &end);
	PbImage		marker = ImgNew(41, 37, PB_PIX_8BUI);
	PbImage		truth;

	PbPixSet(&marker, 0, 1);
	truth = BruteRecon(&marker, &mask, 4, PB_RECON_DILATE);
	for (int after = 0; after < 40; after += 13)
		for (int threads = 1; threads <= 4; threads += 3)
		{
			PbImage		out = ImgCopy(&marker);
			int			left = after;
			PbRun run = {threads, 3, StopAfter, &left};

			pb_test_context("after %d threads %d", after, threads);
			CHECK_INT(PbReconstructCpu(&out, &mask, 4, PB_RECON_DILATE, &run),
					  PB_ERR_STOPPED);
			free(out.data);
		}
	{
		PbImage		out = ImgCopy(&marker);
		int			left = 1 << 30;
		PbRun run = {3, 5, StopAfter, &left};

		CHECK_INT(PbReconstructCpu(&out, &mask, 4, PB_RECON_DILATE, &run), PB_OK);
		CHECK(ImgSame(&out, &truth));
		free(out.data);
	}
	free(mask.data);
	free(marker.data);
	free(truth.data);
}
