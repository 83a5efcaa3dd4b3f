/*
 * edt_host.cu: the host driver of the exact Euclidean distance transform
 * on the GPU (PbGpuDistance of pb_raster_gpu.h), whose kernels are
 * edt_kernels.cu (the algorithm is described there): the plan of a call
 * within the context's budget (strips, and whether the row kernel keeps
 * its row in shared memory), device buffers, copies, and the launches,
 * polled between, through the launchers of edt_gpu.cuh.
 *
 * Images larger than memory_budget: the column pass runs over column
 * strips and the row pass over row strips, the column rows kept in host
 * memory in between (in the output's own bytes, as the CPU keeps them),
 * which gives the identical result.  The two passes are also callable
 * apart, over a range of columns or rows, for the hybrid transform
 * (edt_hybrid.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edt_gpu.cuh"

#define ED_LAUNCH_PIX ((size_t) 1 << 27)	/* pixels of one row-pass launch */

/* How one call runs. */
struct EdtPlan
{
	int			w,
				h,
				nb;				/* bands of the column pass */
	int			ws,
				hs;				/* column strip width, row strip height */
	bool		single;			/* one strip each way: column rows stay on the GPU */
	bool		shared_rows;	/* the row kernel keeps the row in shared memory */
	size_t		row_smem;		/* its dynamic shared memory */
	int			row_grid;		/* its blocks */
	size_t		scratch;		/* its global scratch (wide rows) */
};

/* Device bytes of one column of the column pass (fg, masks, up, dn, rows). */
static size_t
ColBytes(const EdtPlan *p)
{
	return (size_t) p->h * (1 + sizeof(int)) + (size_t) p->nb * (8 + 2 * sizeof(int));
}

/* Device bytes of one row of the row pass (rows, dist, nearest). */
static size_t
RowBytes(const EdtPlan *p, bool nearest)
{
	return (size_t) p->w * (sizeof(int) + sizeof(float) + (nearest ? 8 : 0));
}

/*
 * Plan the strips and the row kernel's memory within budget.  -1 with a
 * reason when not even one column and one row fit.
 */
static int
PlanEdt(EdtPlan *p, const RgCtx *c, size_t budget, bool nearest, char *err, size_t err_len)
{
	size_t		stat = (size_t) (2 * ED_T + ED_T / 32) * sizeof(int);
	size_t		col_all,
				row_all,
				avail;
	int			occ = 0;

	p->nb = (p->h + ED_BAND - 1) / ED_BAND;
	p->row_smem = (size_t) p->w * (sizeof(int) + 2 * sizeof(uint16_t));
	p->shared_rows = p->row_smem + stat <= c->smem_optin;
	p->scratch = 0;
	if (p->shared_rows)
	{
		if (EdtSharedRowsOccupancy(p->row_smem, &occ) != cudaSuccess || occ < 1)
		{
			/* no large shared memory for this kernel: rows in global scratch */
			cudaGetLastError();
			p->shared_rows = false;
		}
		else
			p->row_grid = c->sms * occ;
	}
	if (!p->shared_rows)
	{
		p->row_smem = 0;
		p->row_grid = c->sms * 2;
	}
	if (p->row_grid > p->h)
		p->row_grid = p->h;
	if (!p->shared_rows)
		p->scratch = (size_t) p->row_grid * p->w * 3 * sizeof(int);

	col_all = (size_t) p->w * ColBytes(p);
	row_all = (size_t) p->h * RowBytes(p, nearest) + p->scratch;
	/* one strip each way: the column buffers go before the row pass's come */
	p->single = col_all <= budget && row_all <= budget;
	if (p->single)
	{
		p->ws = p->w;
		p->hs = p->h;
		return 0;
	}
	p->ws = (int) (budget / ColBytes(p) < (size_t) p->w ? budget / ColBytes(p) : (size_t) p->w);
	avail = budget > p->scratch ? budget - p->scratch : 0;
	p->hs = (int) (avail / RowBytes(p, nearest) < (size_t) p->h ? avail / RowBytes(p, nearest) : (size_t) p->h);
	if (p->ws < 1 || p->hs < 1)
	{
		snprintf(err, err_len, "memory budget of %zu bytes is too small for one column and one row of the distance transform",
				 budget);
		return -1;
	}
	return 0;
}

/* Whether the arguments are PbDistanceCpu's; else a reason in err. */
static bool
EdtArgsOk(int32_t width, int32_t height, double sy, double sx, char *err, size_t err_len)
{
	if (width < 0 || height < 0 || width > PB_EDT_MAX_SIDE || height > PB_EDT_MAX_SIDE ||
		!(sy > 0) || !(sx > 0) || !isfinite(sy) || !isfinite(sx))
	{
		snprintf(err, err_len, "invalid distance transform arguments (sides 0 to %d, finite spacing > 0)",
				 PB_EDT_MAX_SIDE);
		return false;
	}
	return true;
}

/* The column pass's device buffers for strips of p->ws columns. */
struct ColBufs
{
	uint8_t    *fg;
	unsigned long long *mask;
	int		   *up,
			   *dn,
			   *g;
};

/* Allocate the column pass's buffers (g: p->ws columns of column rows). */
static int
ColAlloc(RgCtx *c, const EdtPlan *p, ColBufs *b, char *err, size_t err_len)
{
	RG_TRY(RgAlloc(c, (void **) &b->fg, (size_t) p->ws * p->h), "allocating GPU memory for the image");
	RG_TRY(RgAlloc(c, (void **) &b->mask, (size_t) p->ws * p->nb * 8), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &b->up, (size_t) p->ws * p->nb * sizeof(int)), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &b->dn, (size_t) p->ws * p->nb * sizeof(int)), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &b->g, (size_t) p->ws * p->h * sizeof(int)), "allocating GPU memory for the column rows");
	return 0;
fail:
	return -1;
}

/* Free the column pass's buffers but g (stream-ordered). */
static void
ColFreeButRows(RgCtx *c, ColBufs *b)
{
	RgFree(c, b->fg);
	RgFree(c, b->mask);
	RgFree(c, b->up);
	RgFree(c, b->dn);
	b->fg = NULL;
	b->mask = NULL;
	b->up = b->dn = NULL;
}

/*
 * The column pass over columns [x0, x1) in strips of p->ws; with host
 * set, each strip's column rows are copied into it (w per row) at their
 * place, else (one strip) they stay in b->g.  0, 1 when polled to stop,
 * -1 with a reason.
 */
static int
ColumnStrips(RgCtx *c, const EdtPlan *p, const ColBufs *b, const uint8_t *fg, int x0, int x1,
			 int *host, PbPollFn poll, void *poll_arg, PbRasterGpuStats *st,
			 char *err, size_t err_len)
{
	for (int s0 = x0; s0 < x1; s0 += p->ws)
	{
		int			sw = x1 - s0 < p->ws ? x1 - s0 : p->ws;

		if (RgStop(poll, poll_arg))
			return 1;
		RG_TRY(RgTimeStart(c), "timing");
		if (RgCopyIn(c, b->fg, sw, fg + s0, p->w, sw, p->h, "copying the image to the GPU",
					 err, err_len) != 0)
			return -1;
		RG_TRY(RgTimeEnd(c, &st->transfer_ms), "copying the image to the GPU");
		RG_TRY(RgTimeStart(c), "timing");
		EdtLaunchColumns(b->fg, sw, p->h, p->nb, b->mask, b->up, b->dn, b->g, c->stream);
		RG_TRY(cudaGetLastError(), "launching the column pass");
		RG_TRY(RgTimeEnd(c, &st->kernel_ms), "running the column pass");
		st->rounds++;
		if (host)
		{
			RG_TRY(RgTimeStart(c), "timing");
			if (RgCopyOut(c, host + s0, (size_t) p->w * sizeof(int), b->g, (size_t) sw * sizeof(int),
						  (size_t) sw * sizeof(int), p->h, "copying column rows from the GPU",
						  err, err_len) != 0)
				return -1;
			RG_TRY(RgTimeEnd(c, &st->transfer_ms), "copying column rows from the GPU");
		}
	}
	return 0;
fail:
	return -1;
}

/* The row pass's device buffers for strips of p->hs rows. */
struct RowBufs
{
	int		   *g;				/* NULL: the caller's (one strip) */
	float	   *dist;
	long long  *near;
	char	   *scratch;
};

/* Allocate the row pass's buffers (g too when with_g). */
static int
RowAlloc(RgCtx *c, const EdtPlan *p, RowBufs *b, bool with_g, bool nearest, char *err,
		 size_t err_len)
{
	if (with_g)
		RG_TRY(RgAlloc(c, (void **) &b->g, (size_t) p->w * p->hs * sizeof(int)), "allocating GPU memory for the column rows");
	RG_TRY(RgAlloc(c, (void **) &b->dist, (size_t) p->w * p->hs * sizeof(float)), "allocating GPU memory for distances");
	if (nearest)
		RG_TRY(RgAlloc(c, (void **) &b->near, (size_t) p->w * p->hs * 8), "allocating GPU memory for nearest pixels");
	if (p->scratch)
		RG_TRY(RgAlloc(c, (void **) &b->scratch, p->scratch), "allocating GPU scratch for wide rows");
	return 0;
fail:
	return -1;
}

/*
 * The row pass over rows [y0, y1) in strips of p->hs: column rows from
 * host (w per row; NULL: one strip, already in g), distances (and nearest
 * pixels) out to dist (and nearest) at their rows, which may be host's
 * own bytes.  0, 1 when polled to stop, -1 with a reason.
 */
static int
RowStrips(RgCtx *c, const EdtPlan *p, const RowBufs *b, int *g, const int *host, int y0, int y1,
		  double sy, double sx, float *dist, int64_t *nearest, PbPollFn poll, void *poll_arg,
		  PbRasterGpuStats *st, char *err, size_t err_len)
{
	int			chunk = (int) (ED_LAUNCH_PIX / p->w > 0 ? ED_LAUNCH_PIX / p->w : 1);
	RowArgs		ra;

	memset(&ra, 0, sizeof(ra));
	ra.w = p->w;
	ra.sy = sy;
	ra.sx = sx;
	ra.scratch = b->scratch;
	for (int s0 = y0; s0 < y1; s0 += p->hs)
	{
		int			sh = y1 - s0 < p->hs ? y1 - s0 : p->hs;

		if (RgStop(poll, poll_arg))
			return 1;
		if (host)
		{
			RG_TRY(RgTimeStart(c), "timing");
			if (RgCopyIn(c, g, (size_t) p->w * sizeof(int), host + (size_t) s0 * p->w,
						 (size_t) p->w * sizeof(int), (size_t) p->w * sizeof(int), sh,
						 "copying column rows to the GPU", err, err_len) != 0)
				return -1;
			RG_TRY(RgTimeEnd(c, &st->transfer_ms), "copying column rows to the GPU");
		}
		/* launches of at most ED_LAUNCH_PIX pixels, polled between */
		for (int r0 = 0; r0 < sh; r0 += chunk)
		{
			int			rows = sh - r0 < chunk ? sh - r0 : chunk;
			int			grid = p->row_grid < rows ? p->row_grid : rows;

			if (r0 > 0 && RgStop(poll, poll_arg))
				return 1;
			ra.g = g + (size_t) r0 * p->w;
			ra.dist = b->dist + (size_t) r0 * p->w;
			ra.nearest = b->near ? b->near + (size_t) r0 * p->w : NULL;
			ra.rows = rows;
			ra.y0 = s0 + r0;
			RG_TRY(RgTimeStart(c), "timing");
			EdtLaunchRows(ra, p->shared_rows, p->row_smem, c->stream, grid);
			RG_TRY(cudaGetLastError(), "launching the row pass");
			RG_TRY(RgTimeEnd(c, &st->kernel_ms), "running the row pass");
			st->rounds++;
		}
		RG_TRY(RgTimeStart(c), "timing");
		if (RgCopyOut(c, dist + (size_t) s0 * p->w, (size_t) p->w * sizeof(float), b->dist,
					  (size_t) p->w * sizeof(float), (size_t) p->w * sizeof(float), sh,
					  "copying distances from the GPU", err, err_len) != 0 ||
			(nearest && RgCopyOut(c, nearest + (size_t) s0 * p->w, (size_t) p->w * 8, b->near,
								  (size_t) p->w * 8, (size_t) p->w * 8, sh,
								  "copying nearest pixels from the GPU", err, err_len) != 0))
			return -1;
		RG_TRY(RgTimeEnd(c, &st->transfer_ms), "copying results from the GPU");
	}
	return 0;
fail:
	return -1;
}

/* One call of the GPU transform: its context, plan, buffers and account. */
struct EdtCall
{
	RgCtx	   *c;				/* NULL until begun */
	EdtPlan		p;
	ColBufs		cb;
	RowBufs		rb;
	PbRasterGpuStats st;
};

/*
 * Begin a call on g for a width x height image (with nearest pixels or
 * not): a context and the plan of the whole image within what is left of
 * g's budget.  0, or -1 with a reason (the call may be begun: end it).
 */
static int
EdtBegin(EdtCall *k, PbGpu *g, int32_t width, int32_t height, bool nearest, char *err,
		 size_t err_len)
{
	size_t		memory_budget = 0;

	if (RgBegin(g, &k->c, &memory_budget, err, err_len) != 0)
		return -1;
	k->p.w = width;
	k->p.h = height;
	return PlanEdt(&k->p, k->c, memory_budget, nearest, err, err_len);
}

/*
 * End a call (when begun): its buffers freed (NULL ones are skipped), its
 * account to stats.  rc, or -1 when freeing failed.
 */
static int
EdtEnd(EdtCall *k, int rc, PbRasterGpuStats *stats, char *err, size_t err_len)
{
	RgCtx	   *c = k->c;

	if (stats)
		*stats = k->st;
	if (c == NULL)
		return rc;
	ColFreeButRows(c, &k->cb);
	RgFree(c, k->cb.g);
	RgFree(c, k->rb.g);
	RgFree(c, k->rb.dist);
	RgFree(c, k->rb.near);
	RgFree(c, k->rb.scratch);
	if (cudaStreamSynchronize(c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	RgEnd(c);
	return rc;
}

/*
 * The exact distance transform on the GPU of g: column bands, then rows in
 * shared memory, in one piece, or when the image does not fit what is left
 * of g's budget in strips, the column rows kept in dist's own bytes in
 * between (see pb_raster_gpu.h for the contract).
 */
extern "C" int
PbGpuDistance(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
			  double sy, double sx, float *dist, int64_t *nearest,
			  PbPollFn poll, void *poll_arg,
			  PbRasterGpuStats *stats, char *err, size_t err_len)
{
	EdtCall		k;
	EdtPlan    *p = &k.p;
	int		   *host;
	int			rc = -1;

	memset(&k, 0, sizeof(k));
	if (stats)
		*stats = k.st;
	if (!EdtArgsOk(width, height, sy, sx, err, err_len))
		return -1;
	if (width == 0 || height == 0)
		return 0;
	if (fg == NULL || dist == NULL)
	{
		snprintf(err, err_len, "invalid distance transform arguments (no pixel data)");
		return -1;
	}
	if (EdtBegin(&k, g, width, height, nearest != NULL, err, err_len) != 0 ||
		ColAlloc(k.c, p, &k.cb, err, err_len) != 0)
		goto done;
	k.st.tiles = p->single ? 1 : (p->w + p->ws - 1) / p->ws + (p->h + p->hs - 1) / p->hs;
	host = p->single ? NULL : (int *) dist;
	rc = ColumnStrips(k.c, p, &k.cb, fg, 0, p->w, host, poll, poll_arg, &k.st, err, err_len);
	if (rc != 0)
		goto done;
	ColFreeButRows(k.c, &k.cb);
	if (!p->single)				/* the column rows are in dist now */
	{
		RgFree(k.c, k.cb.g);
		k.cb.g = NULL;
	}
	rc = -1;
	if (RowAlloc(k.c, p, &k.rb, !p->single, nearest != NULL, err, err_len) != 0)
		goto done;
	rc = RowStrips(k.c, p, &k.rb, p->single ? k.cb.g : k.rb.g, host, 0, p->h, sy, sx, dist,
				   nearest, poll, poll_arg, &k.st, err, err_len);
done:
	return EdtEnd(&k, rc, stats, err, err_len);
}

/*
 * Whether g, now, runs a width x height transform (with nearest pixels)
 * in one piece (1) or in strips (0, with their columns and rows); -1 with
 * a reason (see pb_raster_gpu.h).
 */
extern "C" int
PbGpuDistancePlan(PbGpu *g, int32_t width, int32_t height, bool nearest,
				  int32_t *strip_columns, int32_t *strip_rows, char *err, size_t err_len)
{
	EdtCall		k;
	int			rc;

	memset(&k, 0, sizeof(k));
	if (!EdtArgsOk(width, height, 1.0, 1.0, err, err_len))
		return -1;
	if (width == 0 || height == 0)
	{
		snprintf(err, err_len, "invalid distance transform arguments (an empty image)");
		return -1;
	}
	rc = EdtEnd(&k, EdtBegin(&k, g, width, height, nearest, err, err_len), NULL, err, err_len);
	if (rc != 0)
		return -1;
	*strip_columns = k.p.ws;
	*strip_rows = k.p.hs;
	return k.p.single ? 1 : 0;
}

/* The column pass over columns [x0, x1) into colrows (see pb_raster_gpu.h). */
extern "C" int
PbGpuDistanceColumns(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
					 int32_t x0, int32_t x1, void *colrows, PbPollFn poll, void *poll_arg,
					 PbRasterGpuStats *stats, char *err, size_t err_len)
{
	EdtCall		k;
	int			rc = -1;

	memset(&k, 0, sizeof(k));
	if (stats)
		*stats = k.st;
	if (!EdtArgsOk(width, height, 1.0, 1.0, err, err_len))
		return -1;
	if (fg == NULL || colrows == NULL || x0 < 0 || x1 > width || x0 >= x1 || height < 1)
	{
		snprintf(err, err_len, "invalid column range of the distance transform");
		return -1;
	}
	if (EdtBegin(&k, g, width, height, false, err, err_len) == 0)
	{
		k.p.ws = k.p.ws < x1 - x0 ? k.p.ws : x1 - x0;
		if (ColAlloc(k.c, &k.p, &k.cb, err, err_len) == 0)
			rc = ColumnStrips(k.c, &k.p, &k.cb, fg, x0, x1, (int *) colrows, poll, poll_arg,
							  &k.st, err, err_len);
	}
	return EdtEnd(&k, rc, stats, err, err_len);
}

/* The row pass over rows [y0, y1), in place in dist (see pb_raster_gpu.h). */
extern "C" int
PbGpuDistanceRows(PbGpu *g, int32_t width, int32_t height, double sy, double sx,
				  int32_t y0, int32_t y1, float *dist, int64_t *nearest,
				  PbPollFn poll, void *poll_arg, PbRasterGpuStats *stats,
				  char *err, size_t err_len)
{
	EdtCall		k;
	int			rc = -1;

	memset(&k, 0, sizeof(k));
	if (stats)
		*stats = k.st;
	if (!EdtArgsOk(width, height, sy, sx, err, err_len))
		return -1;
	if (dist == NULL || y0 < 0 || y1 > height || y0 >= y1 || width < 1)
	{
		snprintf(err, err_len, "invalid row range of the distance transform");
		return -1;
	}
	if (EdtBegin(&k, g, width, height, nearest != NULL, err, err_len) == 0)
	{
		k.p.hs = k.p.hs < y1 - y0 ? k.p.hs : y1 - y0;
		if (RowAlloc(k.c, &k.p, &k.rb, true, nearest != NULL, err, err_len) == 0)
			rc = RowStrips(k.c, &k.p, &k.rb, k.rb.g, (const int *) dist, y0, y1, sy, sx, dist,
						   nearest, poll, poll_arg, &k.st, err, err_len);
	}
	return EdtEnd(&k, rc, stats, err, err_len);
}
