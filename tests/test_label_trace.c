/*
 * test_label_trace.c: PbTraceMask (src/core/formats/label_trace.h), a mask
 * to the polygon of its pixels, checked by the outline oracle
 * (label_oracle.h) on drawn cases and random masks.
 */
#include <stdlib.h>
#include <string.h>

#include "../src/core/formats/label_trace.h"
#include "harness.h"
#include "label_oracle.h"
#include "testutil.h"

/* Trace a mask drawn as rows of '#' and '.', check it, return its polygons. */
static int
TraceDrawn(const char *const *rows, double x0, double y0, int *npts)
{
	uint32_t	h = 0,
				w = (uint32_t) strlen(rows[0]);
	uint8_t    *mask;
	uint32_t   *labels;
	PbEwkb		out;
	PbError		err;
	int			parts = 0;

	while (rows[h] != NULL)
		h++;
	mask = malloc((size_t) w * h);
	labels = malloc(sizeof(uint32_t) * w * h);
	for (uint32_t r = 0; r < h; r++)
		for (uint32_t c = 0; c < w; c++)
		{
			mask[r * w + c] = rows[r][c] == '#' ? (uint8_t) (1 + c % 200) : 0;
			labels[r * w + c] = rows[r][c] == '#';
		}
	PbEwkbInit(&out, &PbMallocAllocator);
	CHECK_INT(PbTraceMask(mask, w, h, x0, y0, &out, &err), PB_OK);
	if (out.len > 0)
		parts = CheckLabelOutline(out.data, out.len, labels, w, h, 1, x0, y0);
	if (npts != NULL)
		*npts = (int) ((out.len - 9) / 16);
	PbEwkbFree(&out);
	free(mask);
	free(labels);
	return parts;
}

/* One pixel, anywhere (corners and edges of the image), offset or not. */
void
test_label_trace_single_pixels(void)
{
	const char *const corner[] = {"#..", "...", "...", NULL};
	const char *const middle[] = {"...", ".#.", "...", NULL};
	const char *const last[] = {"...", "...", "..#", NULL};
	const char *const alone[] = {"#", NULL};
	int			npts;

	CHECK_INT(TraceDrawn(corner, 0, 0, &npts), 1);
	/* 4 vertices and the closing point: 1 + 4 + 4 + 5 * 16 bytes */
	CHECK_INT(npts, 5);
	CHECK_INT(TraceDrawn(middle, 10, -7, NULL), 1);
	CHECK_INT(TraceDrawn(last, 0.5, 0.25, NULL), 1);
	CHECK_INT(TraceDrawn(alone, 0, 0, NULL), 1);
}

/* Collinear unit edges are one segment: a bar and an L have 4 and 6 corners. */
void
test_label_trace_collinear_merged(void)
{
	const char *const bar[] = {"######", NULL};
	const char *const ell[] = {"#...", "#...", "####", NULL};
	const char *const full[] = {"###", "###", "###", NULL};
	int			npts;

	TraceDrawn(bar, 0, 0, &npts);
	CHECK_INT(npts, 5);
	TraceDrawn(ell, 0, 0, &npts);
	CHECK_INT(npts, 7);
	TraceDrawn(full, 0, 0, &npts);
	CHECK_INT(npts, 5);
}

/* Pixels touching only at corners are separate parts. */
void
test_label_trace_checkerboard(void)
{
	const char *const board[] = {"#.#.", ".#.#", "#.#.", ".#.#", NULL};
	const char *const diag[] = {"#...", ".#..", "..#.", "...#", NULL};
	const char *const cross[] = {"##..", "##..", "..##", "..##", NULL};

	CHECK_INT(TraceDrawn(board, 0, 0, NULL), 8);
	CHECK_INT(TraceDrawn(diag, 0, 0, NULL), 4);
	CHECK_INT(TraceDrawn(cross, 0, 0, NULL), 2);
}

/* Rings with holes, holes touching the shell or each other at a corner. */
void
test_label_trace_holes(void)
{
	const char *const ring[] = {"###", "#.#", "###", NULL};
	const char *const corner_hole[] = {"###", "#.#", "##.", NULL};
	const char *const corner_hole2[] = {".###", "#.##", "####", NULL};
	const char *const two_holes[] = {"#####", "#.###", "##.##", "#####", NULL};
	const char *const chain[] = {"######", "#.####", "##.###", "###.##", "####.#",
	"######", NULL};
	const char *const big_hole[] = {"#####", "#...#", "#.#.#", "#...#", "#####", NULL};

	CHECK_INT(TraceDrawn(ring, 0, 0, NULL), 1);
	CHECK_INT(TraceDrawn(corner_hole, 0, 0, NULL), 1);
	CHECK_INT(TraceDrawn(corner_hole2, 0, 0, NULL), 1);
	CHECK_INT(TraceDrawn(two_holes, 0, 0, NULL), 1);
	CHECK_INT(TraceDrawn(chain, 0, 0, NULL), 1);
	/* an island in the hole: two parts */
	CHECK_INT(TraceDrawn(big_hole, 0, 0, NULL), 2);
}

/* Parts nested in the holes of parts, several deep, beside others. */
void
test_label_trace_nested(void)
{
	const char *const nest[] = {
		"#########.###",
		"#.......#.#.#",
		"#.#####.#.###",
		"#.#...#.#....",
		"#.#.#.#.#.###",
		"#.#...#.#.#.#",
		"#.#####.#.###",
		"#.......#....",
		"#########.#..",
		NULL
	};
	const char *const lines[] = {"#.#.#", "#.#.#", "#.#.#", "#####", NULL};

	CHECK_INT(TraceDrawn(nest, 0, 0, NULL), 6);
	CHECK_INT(TraceDrawn(lines, 3, 4, NULL), 1);
}

/* Random masks of every density, blobs with holes and islands. */
void
test_label_trace_random_masks(void)
{
	Rng			rng = {20261125};

	for (int t = 0; t < 400; t++)
	{
		int			w = (int) RngRange(&rng, 1, 40),
					h = (int) RngRange(&rng, 1, 40);
		Mask		m = MaskNew(w, h);
		uint32_t   *labels = malloc(sizeof(uint32_t) * w * h);
		PbEwkb		out;
		PbError		err;
		PbStatus	st;
		int64_t		n = 0;

		if (t % 2)
			MaskNoise(&m, &rng, RngDouble(&rng));
		else
			MaskRects(&m, &rng, (int) RngRange(&rng, 1, 12));
		for (int i = 0; i < w * h; i++)
			n += labels[i] = m.bit[i] != 0;
		pb_test_context("mask %d (%d x %d)", t, w, h);
		PbEwkbInit(&out, &PbMallocAllocator);
		st = PbTraceMask(m.bit, (uint32_t) w, (uint32_t) h, 2, 3, &out, &err);
		if (n == 0)
			CHECK_INT(st, PB_ERR_BADARG);
		else
		{
			CHECK_INT(st, PB_OK);
			CheckLabelOutline(out.data, out.len, labels, (uint32_t) w, (uint32_t) h, 1, 2, 3);
		}
		PbEwkbFree(&out);
		MaskFree(&m);
		free(labels);
		if (pb_test_failures() > 0)
			break;
	}
}

/* An empty mask and impossible sizes are refused with a message. */
void
test_label_trace_mask_errors(void)
{
	uint8_t		zeros[6] = {0};
	PbEwkb		out;
	PbError		err;

	PbEwkbInit(&out, &PbMallocAllocator);
	CHECK_INT(PbTraceMask(zeros, 3, 2, 0, 0, &out, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "the mask has no pixel set");
	CHECK_INT(PbTraceMask(zeros, 0, 2, 0, 0, &out, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "mask of 0 x 2 pixels (sides from 1 to 1073741824)");
	CHECK_INT(PbTraceMask(zeros, 2, PB_TRACE_MAX_SIDE + 1, 0, 0, &out, &err), PB_ERR_BADARG);
	CHECK_STR_HAS(err.message, "sides from 1 to");
	CHECK_INT(out.len, 0);
	PbEwkbFree(&out);
}
