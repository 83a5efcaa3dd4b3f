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
 * memory in between, which gives the identical result.
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

/*
 * The exact distance transform on the GPU of g: column bands, then rows in
 * shared memory, in one piece or in strips when the image does not fit
 * what is left of g's budget (see pb_raster_gpu.h for the contract).
 */
extern "C" int
PbGpuDistance(PbGpu *g, const uint8_t *fg, int32_t width, int32_t height,
			  double sy, double sx, float *dist, int64_t *nearest,
			  PbPollFn poll, void *poll_arg,
			  PbRasterGpuStats *stats, char *err, size_t err_len)
{
	PbRasterGpuStats st;
	RgCtx	   *c = NULL;
	size_t		memory_budget = 0;
	EdtPlan		p;
	int		   *host_g = NULL;
	uint8_t    *d_fg = NULL;
	unsigned long long *d_mask = NULL;
	int		   *d_up = NULL,
			   *d_dn = NULL,
			   *d_g = NULL;
	float	   *d_dist = NULL;
	long long  *d_near = NULL;
	char	   *d_scratch = NULL;
	int			rc = -1;
	int			chunk;
	RowArgs		ra;

	memset(&st, 0, sizeof(st));
	memset(&p, 0, sizeof(p));
	if (stats)
		*stats = st;
	if (width < 0 || height < 0 || width > PB_EDT_MAX_SIDE || height > PB_EDT_MAX_SIDE ||
		!(sy > 0) || !(sx > 0) || !isfinite(sy) || !isfinite(sx))
	{
		snprintf(err, err_len, "invalid distance transform arguments (sides 0 to %d, finite spacing > 0)",
				 PB_EDT_MAX_SIDE);
		return -1;
	}
	if (width == 0 || height == 0)
		return 0;
	if (fg == NULL || dist == NULL)
	{
		snprintf(err, err_len, "invalid distance transform arguments (no pixel data)");
		return -1;
	}
	if (RgBegin(g, &c, &memory_budget, err, err_len) != 0)
		return -1;
	p.w = width;
	p.h = height;
	if (PlanEdt(&p, c, memory_budget, nearest != NULL, err, err_len) != 0)
		goto fail;
	if (!p.single)
	{
		host_g = (int *) malloc((size_t) p.w * p.h * sizeof(int));
		if (host_g == NULL)
		{
			snprintf(err, err_len, "out of host memory for the column pass of the distance transform");
			goto fail;
		}
	}
	st.tiles = p.single ? 1 : (p.w + p.ws - 1) / p.ws + (p.h + p.hs - 1) / p.hs;

	/* column pass, over column strips */
	RG_TRY(RgAlloc(c, (void **) &d_fg, (size_t) p.ws * p.h), "allocating GPU memory for the image");
	RG_TRY(RgAlloc(c, (void **) &d_mask, (size_t) p.ws * p.nb * 8), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &d_up, (size_t) p.ws * p.nb * sizeof(int)), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &d_dn, (size_t) p.ws * p.nb * sizeof(int)), "allocating GPU memory for the column pass");
	RG_TRY(RgAlloc(c, (void **) &d_g, (size_t) p.ws * p.h * sizeof(int)), "allocating GPU memory for the column rows");
	for (int x0 = 0; x0 < p.w; x0 += p.ws)
	{
		int			sw = p.w - x0 < p.ws ? p.w - x0 : p.ws;

		if (RgStop(poll, poll_arg))
		{
			rc = 1;
			goto done;
		}
		RG_TRY(RgTimeStart(c), "timing");
		if (RgCopyIn(c, d_fg, sw, fg + x0, p.w, sw, p.h, "copying the image to the GPU",
					 err, err_len) != 0)
			goto fail;
		RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying the image to the GPU");
		RG_TRY(RgTimeStart(c), "timing");
		EdtLaunchColumns(d_fg, sw, p.h, p.nb, d_mask, d_up, d_dn, d_g, c->stream);
		RG_TRY(cudaGetLastError(), "launching the column pass");
		RG_TRY(RgTimeEnd(c, &st.kernel_ms), "running the column pass");
		st.rounds++;
		if (!p.single)
		{
			RG_TRY(RgTimeStart(c), "timing");
			if (RgCopyOut(c, host_g + x0, (size_t) p.w * sizeof(int), d_g, (size_t) sw * sizeof(int),
						  (size_t) sw * sizeof(int), p.h, "copying column rows from the GPU",
						  err, err_len) != 0)
				goto fail;
			RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying column rows from the GPU");
		}
	}
	RgFree(c, d_fg);
	RgFree(c, d_mask);
	RgFree(c, d_up);
	RgFree(c, d_dn);
	d_fg = NULL;
	d_mask = NULL;
	d_up = d_dn = NULL;
	if (!p.single)
	{
		RgFree(c, d_g);
		d_g = NULL;
		RG_TRY(RgAlloc(c, (void **) &d_g, (size_t) p.w * p.hs * sizeof(int)), "allocating GPU memory for the column rows");
	}

	/* row pass, over row strips */
	RG_TRY(RgAlloc(c, (void **) &d_dist, (size_t) p.w * p.hs * sizeof(float)), "allocating GPU memory for distances");
	if (nearest)
		RG_TRY(RgAlloc(c, (void **) &d_near, (size_t) p.w * p.hs * 8), "allocating GPU memory for nearest pixels");
	if (p.scratch)
		RG_TRY(RgAlloc(c, (void **) &d_scratch, p.scratch), "allocating GPU scratch for wide rows");
	memset(&ra, 0, sizeof(ra));
	ra.w = p.w;
	ra.sy = sy;
	ra.sx = sx;
	ra.scratch = d_scratch;
	chunk = (int) (ED_LAUNCH_PIX / p.w > 0 ? ED_LAUNCH_PIX / p.w : 1);
	for (int y0 = 0; y0 < p.h; y0 += p.hs)
	{
		int			sh = p.h - y0 < p.hs ? p.h - y0 : p.hs;

		if (RgStop(poll, poll_arg))
		{
			rc = 1;
			goto done;
		}
		if (!p.single)
		{
			RG_TRY(RgTimeStart(c), "timing");
			if (RgCopyIn(c, d_g, (size_t) p.w * sizeof(int), host_g + (size_t) y0 * p.w,
						 (size_t) p.w * sizeof(int), (size_t) p.w * sizeof(int), sh,
						 "copying column rows to the GPU", err, err_len) != 0)
				goto fail;
			RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying column rows to the GPU");
		}
		/* launches of at most ED_LAUNCH_PIX pixels, polled between */
		for (int r0 = 0; r0 < sh; r0 += chunk)
		{
			int			rows = sh - r0 < chunk ? sh - r0 : chunk;
			int			grid = p.row_grid < rows ? p.row_grid : rows;

			if (r0 > 0 && RgStop(poll, poll_arg))
			{
				rc = 1;
				goto done;
			}
			ra.g = d_g + (size_t) r0 * p.w;
			ra.dist = d_dist + (size_t) r0 * p.w;
			ra.nearest = d_near ? d_near + (size_t) r0 * p.w : NULL;
			ra.rows = rows;
			ra.y0 = y0 + r0;
			RG_TRY(RgTimeStart(c), "timing");
			EdtLaunchRows(ra, p.shared_rows, p.row_smem, c->stream, grid);
			RG_TRY(cudaGetLastError(), "launching the row pass");
			RG_TRY(RgTimeEnd(c, &st.kernel_ms), "running the row pass");
			st.rounds++;
		}
		RG_TRY(RgTimeStart(c), "timing");
		if (RgCopyOut(c, dist + (size_t) y0 * p.w, (size_t) p.w * sizeof(float), d_dist,
					  (size_t) p.w * sizeof(float), (size_t) p.w * sizeof(float), sh,
					  "copying distances from the GPU", err, err_len) != 0 ||
			(nearest && RgCopyOut(c, nearest + (size_t) y0 * p.w, (size_t) p.w * 8, d_near,
								  (size_t) p.w * 8, (size_t) p.w * 8, sh,
								  "copying nearest pixels from the GPU", err, err_len) != 0))
			goto fail;
		RG_TRY(RgTimeEnd(c, &st.transfer_ms), "copying results from the GPU");
	}
	rc = 0;
	goto done;
fail:
	rc = -1;
done:
	RgFree(c, d_fg);
	RgFree(c, d_mask);
	RgFree(c, d_up);
	RgFree(c, d_dn);
	RgFree(c, d_g);
	RgFree(c, d_dist);
	RgFree(c, d_near);
	RgFree(c, d_scratch);
	if (cudaStreamSynchronize(c->stream) != cudaSuccess && rc == 0)
	{
		snprintf(err, err_len, "CUDA failed while freeing: %s", cudaGetErrorString(cudaGetLastError()));
		rc = -1;
	}
	cudaGetLastError();
	RgEnd(c);
	free(host_g);
	if (stats)
		*stats = st;
	return rc;
}
