/*
 * recon_template.h: the kernels of the tiled reconstruction
 * (recon_cpu.c) for one pixel type under one operation, a template in the
 * manner of PostgreSQL's lib/sort_template.h: the includer defines
 *
 *	RT_PREFIX		prefix of the names made here (U8Dil: U8DilClip, ...)
 *	RT_TYPE			the pixel type (uint8_t, uint16_t, float)
 *	RT_BETTER(a, b)	whether value a beats b (> for dilation, < for erosion)
 *	RT_WORST		the value that never wins (frame pixels outside the image)
 *
 * and includes this file, which defines the static kernels and RT_PREFIX
 * ## Impl, the ReconImpl that holds them, then undefines every RT_ macro,
 * so the next type can follow.  Each pixel type x operation gets its own
 * copy, so inner loops compare values directly, while compiler messages
 * and debuggers see these lines.  The includer defines first what the
 * kernels use: Queue32, TileSlot, TileCtx, ReconImpl, TileGeom, FramePos,
 * RECON_SEED_BUDGET (recon_cpu.c), and the neighbour table
 * (raster_rules.h).  No include guard: included once per instance.
 */

#define RT_MAKE_NAME_(a, b) a##b
#define RT_MAKE_NAME(a, b) RT_MAKE_NAME_(a, b)
#define RT_NAME(x) RT_MAKE_NAME(RT_PREFIX, x)

#define RT_BEST RT_NAME(Best)
#define RT_CLIP RT_NAME(Clip)
#define RT_CLIP_ALL RT_NAME(ClipAll)
#define RT_VISIT RT_NAME(Visit)
#define RT_PAD_RUN RT_NAME(PadRun)
#define RT_PAD_SCAN RT_NAME(PadScan)
#define RT_PAD_SEED RT_NAME(PadSeed)
#define RT_FRAME_AT RT_NAME(FrameAt)
#define RT_GATHER RT_NAME(Gather)
#define RT_PROCESS RT_NAME(Process)
#define RT_IMPL RT_NAME(Impl)

/* The better of a and b. */
static inline RT_TYPE
RT_BEST(RT_TYPE a, RT_TYPE b)
{
	return RT_BETTER(b, a) ? b : a;
}

/* v clipped by mask value m (min for dilation, max for erosion). */
static inline RT_TYPE
RT_CLIP(RT_TYPE v, RT_TYPE m)
{
	return RT_BETTER(v, m) ? m : v;
}

/* PbReconClip on n pixels. */
static void
RT_CLIP_ALL(void *Jv, const void *Iv, int64_t n)
{
	RT_TYPE    *J = Jv;
	const RT_TYPE *I = Iv;

	for (int64_t i = 0; i < n; i++)
		J[i] = RT_CLIP(J[i], I[i]);
}

/*
 * The FIFO propagation step from value v: improve pixel n of a padded
 * tile when v beats it and it has not reached its mask, queue it and
 * count it in *updates.  False when the queue cannot grow.
 */
static inline bool
RT_VISIT(RT_TYPE *J, const RT_TYPE *I, Queue32 *q, ptrdiff_t n, RT_TYPE v,
		 int64_t *updates)
{
	if (!RT_BETTER(v, J[n]) || J[n] == I[n])
		return true;
	J[n] = RT_CLIP(v, I[n]);
	(*updates)++;
	return Queue32Push(q, (int32_t) n);
}

/*
 * FIFO propagation in a padded tile (stride s) from the queued interior
 * pixels, until the queue is empty or more than limit updates were made.
 * Frame pixels have I == J, so they are never updated and every queued
 * pixel has all its neighbours inside the buffer.  The neighbours go in
 * the order of raster_rules.h, written out: this is the inner loop.
 * Returns the number of updates, -1 when out of memory.
 */
static int64_t
RT_PAD_RUN(RT_TYPE *J, const RT_TYPE *I, ptrdiff_t s, int conn, Queue32 *q,
		   int64_t limit)
{
	int64_t		updates = 0;

	while (q->count > 0 && updates <= limit)
	{
		ptrdiff_t	p = Queue32Pop(q);
		RT_TYPE		v = J[p];

		if (!RT_VISIT(J, I, q, p - s, v, &updates) ||
			!RT_VISIT(J, I, q, p - 1, v, &updates) ||
			!RT_VISIT(J, I, q, p + 1, v, &updates) ||
			!RT_VISIT(J, I, q, p + s, v, &updates))
			return -1;
		if (conn == 8 &&
			(!RT_VISIT(J, I, q, p - s - 1, v, &updates) ||
			 !RT_VISIT(J, I, q, p - s + 1, v, &updates) ||
			 !RT_VISIT(J, I, q, p + s - 1, v, &updates) ||
			 !RT_VISIT(J, I, q, p + s + 1, v, &updates)))
			return -1;
	}
	return updates;
}

/*
 * The fast hybrid algorithm on the w x h interior of a padded tile: the
 * frame takes part in the scans as fixed neighbours, so no bounds checks.
 * Each row is split into loops the compiler can vectorize (the best of
 * the neighbours in the other row, into u; which pixels to queue, into
 * flag) around the one serial loop along the row.  u and flag hold w + 2
 * elements.  Returns the number of queue updates, -1 when out of memory.
 */
static int64_t
RT_PAD_SCAN(RT_TYPE *J, const RT_TYPE *I, int w, int h, int conn, RT_TYPE *u,
			uint8_t *flag, Queue32 *q)
{
	const ptrdiff_t s = (ptrdiff_t) w + 2;

	for (int y = 1; y <= h; y++)
	{
		RT_TYPE    *jr = J + y * s;
		const RT_TYPE *ir = I + y * s;
		const RT_TYPE *ju = jr - s;
		RT_TYPE		prev = jr[0];

		if (conn == 8)
			for (int x = 1; x <= w; x++)
				u[x] = RT_BEST(RT_BEST(ju[x - 1], ju[x]), RT_BEST(ju[x + 1], jr[x]));
		else
			for (int x = 1; x <= w; x++)
				u[x] = RT_BEST(ju[x], jr[x]);
		for (int x = 1; x <= w; x++)
			jr[x] = prev = RT_CLIP(RT_BEST(u[x], prev), ir[x]);
	}
	for (int y = h; y >= 1; y--)
	{
		RT_TYPE    *jr = J + y * s;
		const RT_TYPE *ir = I + y * s;
		const RT_TYPE *jd = jr + s;
		const RT_TYPE *id = ir + s;
		RT_TYPE		next = jr[w + 1];

		if (conn == 8)
			for (int x = 1; x <= w; x++)
				u[x] = RT_BEST(RT_BEST(jd[x - 1], jd[x]), RT_BEST(jd[x + 1], jr[x]));
		else
			for (int x = 1; x <= w; x++)
				u[x] = RT_BEST(jd[x], jr[x]);
		for (int x = w; x >= 1; x--)
			jr[x] = next = RT_CLIP(RT_BEST(u[x], next), ir[x]);
		/* queue p when it can still improve a neighbour in N-(p) */
		if (conn == 8)
			for (int x = 1; x <= w; x++)
				flag[x] = (uint8_t) ((RT_BETTER(jr[x], jr[x + 1]) & RT_BETTER(ir[x + 1], jr[x + 1])) |
									 (RT_BETTER(jr[x], jd[x]) & RT_BETTER(id[x], jd[x])) |
									 (RT_BETTER(jr[x], jd[x - 1]) & RT_BETTER(id[x - 1], jd[x - 1])) |
									 (RT_BETTER(jr[x], jd[x + 1]) & RT_BETTER(id[x + 1], jd[x + 1])));
		else
			for (int x = 1; x <= w; x++)
				flag[x] = (uint8_t) ((RT_BETTER(jr[x], jr[x + 1]) & RT_BETTER(ir[x + 1], jr[x + 1])) |
									 (RT_BETTER(jr[x], jd[x]) & RT_BETTER(id[x], jd[x])));
		for (int x = w; x >= 1; x--)
			if (flag[x] && !Queue32Push(q, (int32_t) (y * s + x)))
				return -1;
	}
	return RT_PAD_RUN(J, I, s, conn, q, INT64_MAX);
}

/*
 * Propagate from frame pixel (fx, fy) of a padded w x h tile into its
 * interior neighbours, queueing those it improves.  Returns the number of
 * updates, -1 when out of memory.
 */
static int64_t
RT_PAD_SEED(RT_TYPE *J, const RT_TYPE *I, int w, int h, int conn, int fx, int fy,
			Queue32 *q)
{
	const ptrdiff_t s = (ptrdiff_t) w + 2;
	RT_TYPE		v = J[fy * s + fx];
	int64_t		updates = 0;

	for (int k = 0; k < conn; k++)
	{
		int			x = fx + PbNbDx(k),
					y = fy + PbNbDy(k);

		if (x >= 1 && x <= w && y >= 1 && y <= h &&
			!RT_VISIT(J, I, q, y * s + x, v, &updates))
			return -1;
	}
	return updates;
}

/* Marker value at (x, y) as a frame pixel: RT_WORST outside the image. */
static inline RT_TYPE
RT_FRAME_AT(const TileCtx *c, int64_t x, int64_t y)
{
	const RT_TYPE *J = c->J;
	const RT_TYPE *I = c->I;

	if (x < 0 || y < 0 || x >= c->W || y >= c->H)
		return RT_WORST;
	if (c->first)
		return RT_CLIP(J[y * c->W + x], I[y * c->W + x]);
	return J[y * c->W + x];
}

/*
 * Read tile t's frame from the image into its unused frame slot (nobody
 * writes the image meanwhile).  The first round clips the marker, as the
 * tile owning the pixel will.
 */
static void
RT_GATHER(TileCtx *c, int64_t t)
{
	int64_t		x0,
				y0;
	int			w,
				h;
	RT_TYPE    *f = (RT_TYPE *) c->halos + ((size_t) t * 2 + (c->cur[t] ^ 1)) * c->hlen;
	size_t		row;

	TileGeom(c, t, &x0, &y0, &w, &h);
	row = (size_t) w + 2;
	for (int k = 0; k < w + 2; k++)
	{
		f[k] = RT_FRAME_AT(c, x0 - 1 + k, y0 - 1);
		f[row + k] = RT_FRAME_AT(c, x0 - 1 + k, y0 + h);
	}
	for (int k = 0; k < h; k++)
	{
		f[2 * row + k] = RT_FRAME_AT(c, x0 - 1, y0 + k);
		f[2 * row + h + k] = RT_FRAME_AT(c, x0 + w, y0 + k);
	}
}

/*
 * Run tile t on slot sl: in the first round the full hybrid algorithm,
 * later FIFO propagation from the frame pixels that changed since the
 * tile last ran (nothing when none did), switching to the full algorithm
 * from the current state when the flood grows past the seed budget.
 * Writes the tile back and sets c->sides[t] to the neighbour tiles its
 * changes reach (PbNbBlockBits).
 */
static void
RT_PROCESS(TileCtx *c, int64_t t, TileSlot *sl)
{
	int64_t		x0,
				y0;
	int			w,
				h;
	RT_TYPE    *img = c->J;
	const RT_TYPE *mask = c->I;
	const RT_TYPE *old = (RT_TYPE *) c->halos + ((size_t) t * 2 + c->cur[t]) * c->hlen;
	const RT_TYPE *f = (RT_TYPE *) c->halos + ((size_t) t * 2 + (c->cur[t] ^ 1)) * c->hlen;
	RT_TYPE    *J = sl->J;
	RT_TYPE    *I = sl->I;
	ptrdiff_t	s;
	size_t		row,
				flen,
				k = 0;
	int64_t		updates = 0;
	unsigned	sides = 0;

	TileGeom(c, t, &x0, &y0, &w, &h);
	s = (ptrdiff_t) w + 2;
	row = (size_t) s;
	flen = 2 * row + 2 * (size_t) h;
	c->sides[t] = 0;
	c->cur[t] ^= 1;
	if (!c->first)
	{
		while (k < flen && old[k] == f[k])
			k++;
		if (k == flen)
			return;
	}
	for (int y = 0; y < h; y++)
	{
		memcpy(J + (y + 1) * s + 1, img + (y0 + y) * c->W + x0, w * sizeof(RT_TYPE));
		memcpy(I + (y + 1) * s + 1, mask + (y0 + y) * c->W + x0, w * sizeof(RT_TYPE));
	}
	for (size_t j = 0; j < flen; j++)
	{
		int			fx,
					fy;

		FramePos(j, w, h, &fx, &fy);
		J[fy * s + fx] = I[fy * s + fx] = f[j];
	}
	if (c->first)
		updates = RT_PAD_SCAN(J, I, w, h, c->conn, sl->row,
							  (uint8_t *) ((RT_TYPE *) sl->row + w + 2), &sl->q);
	else
	{
		for (; k < flen && updates >= 0; k++)
		{
			int			fx,
						fy;
			int64_t		u;

			if (old[k] == f[k])
				continue;
			FramePos(k, w, h, &fx, &fy);
			u = RT_PAD_SEED(J, I, w, h, c->conn, fx, fy, &sl->q);
			updates = u < 0 ? -1 : updates + u;
		}
		if (updates > 0)
		{
			int64_t		u = RT_PAD_RUN(J, I, s, c->conn, &sl->q,
									   (int64_t) w * h / RECON_SEED_BUDGET);

			if (u >= 0 && sl->q.count > 0)
			{
				sl->q.count = 0;
				u = RT_PAD_SCAN(J, I, w, h, c->conn, sl->row,
								(uint8_t *) ((RT_TYPE *) sl->row + w + 2), &sl->q);
			}
			updates = u < 0 ? -1 : updates + u;
		}
	}
	if (updates < 0)
	{
		sl->q.count = 0;
		atomic_store(&c->nomem, 1);
		return;
	}
	if (updates == 0 && !c->first)
		return;
	for (int y = 0; y < h; y++)
	{
		const RT_TYPE *src = J + (y + 1) * s + 1;
		RT_TYPE    *dst = img + (y0 + y) * c->W + x0;

		if (y == 0 || y == h - 1)
		{
			for (int x = 0; x < w; x++)
				if (src[x] != dst[x])
					sides |= PbNbBlockBits(x, y, w, h);
		}
		else
		{
			if (src[0] != dst[0])
				sides |= 1u << PB_NB_LEFT;
			if (src[w - 1] != dst[w - 1])
				sides |= 1u << PB_NB_RIGHT;
		}
		memcpy(dst, src, w * sizeof(RT_TYPE));
	}
	c->sides[t] = (uint8_t) sides;
}

/* The kernels above, for ReconPick. */
static const ReconImpl RT_IMPL = {
	RT_CLIP_ALL, RT_GATHER, RT_PROCESS
};

#undef RT_MAKE_NAME_
#undef RT_MAKE_NAME
#undef RT_NAME
#undef RT_BEST
#undef RT_CLIP
#undef RT_CLIP_ALL
#undef RT_VISIT
#undef RT_PAD_RUN
#undef RT_PAD_SCAN
#undef RT_PAD_SEED
#undef RT_FRAME_AT
#undef RT_GATHER
#undef RT_PROCESS
#undef RT_IMPL
#undef RT_PREFIX
#undef RT_TYPE
#undef RT_BETTER
#undef RT_WORST
