/*
 * watershed_ca_kernels.cu: the kernels of the cellular automaton of the
 * GPU watershed (section 4 of Quesada-Barriuso et al., artifact-free: the
 * distance d rides in the key), run to its fixed point on one region by
 * WsRunCa (watershed_ca_host.cu), and their launchers (watershed_gpu.cuh).
 *
 * Block-asynchronous (the default): the updatable rectangle is cut into
 * 32 x 32 pixel tiles.  A launch is one round (one global
 * synchronisation).  Its blocks are persistent: they take tiles in chunks
 * of 32 from a counter, in an order that changes every round (rows
 * forwards, backwards, columns forwards, backwards), and skip tiles not
 * active in this round.  A block loads the tile's levels, keys and labels
 * with a one-pixel halo into shared memory and updates its pixels in
 * place (a warp per row, 4 rows per thread, alternately top-down and
 * bottom-up) until a sweep changes nothing (__syncthreads_or), then
 * writes back the pixels that changed.  A sweep recomputes only pixels
 * next to a pixel that the previous sweep or this one (so far) changed
 * (per-row change masks from warp ballots), so the cost follows the
 * moving fronts.  When a pixel of the tile's border changed, the
 * neighbour tiles that hold it in their halo are activated for the next
 * round (and for this one, if they have not run yet: state is updated in
 * place, so later tiles already see it).  Keys only decrease towards the
 * unique fixed point whatever the order, so the result does not depend on
 * the schedule; the host launches rounds in batches and stops after a
 * round that activated nothing, which is the fixed point: every tile has
 * settled on the halo it last read and no halo changed since.
 *
 * Synchronous (PbGpuWatershedTestSync, the paper's baseline of section
 * 4.1): one step of every pixel per launch, from one buffer to the other.
 */

#include "watershed_gpu.cuh"

#define WS_SP (WS_T + 2)		/* pitch of a shared tile with its halo */
#define WS_SN (WS_SP * WS_SP)

/* Pixels of a shared tile with its halo; (x, y) from -1 to WS_T. */
template <bool MK>
struct WsSmem
{
	typedef typename WsKeyOf<MK>::T K;
	const uint32_t *lv;
	const K    *key;
	const uint32_t *lab;

	__device__ __forceinline__ uint32_t
	Lv(int x, int y) const
	{
		return lv[(y + 1) * WS_SP + x + 1];
	}

	__device__ __forceinline__ K
	Key(int x, int y) const
	{
		return key[(y + 1) * WS_SP + x + 1];
	}

	__device__ __forceinline__ uint32_t
	Lab(int x, int y) const
	{
		return lab[(y + 1) * WS_SP + x + 1];
	}
};

/*
 * Whether pixel (x, y) of a tile has a neighbour that changed, from the
 * row masks m (row y at index y + 1; halo rows 0).
 */
template <bool C8>
__device__ __forceinline__ bool
WsNear(const unsigned *m, int x, int y)
{
	unsigned	three = (unsigned) ((7ull << x) >> 1);	/* columns x-1..x+1 */

	if (C8)
		return ((m[y] | m[y + 1] | m[y + 2]) & three) != 0;
	return (((m[y] | m[y + 2]) >> x) & 1) || (m[y + 1] & three & ~(1u << x)) != 0;
}

/*
 * One step of the automaton for non-seed, non-wall pixel (x, y) of level
 * lv (the rules of watershed_rules.h, neighbours in their order): its key
 * k(u) = min(base, min cand(v, u)), and the label WsStepLabel gives it
 * from its pointer (WsPrefer) or, marker-less with d = INF, from idx1
 * (its index + 1) and its minimum's labels.  A reads decoded pixels: Lv
 * (WS_WALL outside), Key (real), Lab; labels are read only when needed.
 */
template <bool MK, bool C8, typename A>
__device__ __forceinline__ void
WsStep(const A &a, int x, int y, uint32_t lv, uint32_t idx1,
	   typename WsKeyOf<MK>::T *nkey, uint32_t *nlab)
{
	uint64_t	best = WsBase(MK, lv);
	uint64_t	pk = ~0ull;		/* the pointer's key */
	uint32_t	plab = 0;
	uint32_t	ml = idx1;

#pragma unroll
	for (int j = 0; j < (C8 ? 8 : 4); j++)
	{
		int			nx = x + PbNbDx(j),
					ny = y + PbNbDy(j);
		uint32_t	lvn = a.Lv(nx, ny);
		uint64_t	kv,
					cand;

		if (lvn == WS_WALL)
			continue;
		kv = WsFull<MK>(a.Key(nx, ny), lvn);
		cand = WsCand(kv, lv);
		if (WsPrefer(cand, kv, best, pk))
		{
			best = cand;
			pk = kv;
			plab = a.Lab(nx, ny);
		}
		if (WsSameMinimum(MK, kv, lv))
			ml = min(ml, a.Lab(nx, ny));
	}
	*nkey = (typename WsKeyOf<MK>::T) best;
	*nlab = WsStepLabel(MK, best, plab, ml);
}

/* The tile taken at position i of a round's order (0..3). */
__device__ __forceinline__ unsigned
WsTileAt(const WsCaArgs &a, unsigned i, unsigned order)
{
	if (order & 1)
		i = a.ntiles - 1 - i;
	if (order & 2)				/* column-major */
		return (i % a.tiles_y) * a.tiles_x + i / a.tiles_y;
	return i;
}

/*
 * Run tile t of round `round` to its local fixed point in shared memory
 * (see the file comment); all threads of the block call it.
 */
template <typename T, bool MK, bool C8>
__device__ __forceinline__ void
WsTile(const WsCaArgs &a, uint32_t round, unsigned t, uint32_t *s_lv,
	   typename WsKeyOf<MK>::T *s_key, uint32_t *s_lab, unsigned *s_chg, unsigned *s_border)
{
	typedef typename WsKeyOf<MK>::T K;
	const int	tid = threadIdx.x,
				tx = tid & 31,
				ty = tid >> 5;
	const int	bx = (int) (t % a.tiles_x),
				by = (int) (t / a.tiles_x);
	const int	ox = a.ux0 + bx * WS_T,
				oy = a.uy0 + by * WS_T;
	const T    *img = (const T *) a.img;
	K		   *key = (K *) a.key;
	WsSmem<MK>	sm = {s_lv, s_key, s_lab};
	uint32_t	idx1 = (uint32_t) ((a.gy0 + oy + 4 * ty) * a.gw + a.gx0 + ox + tx + 1);
	unsigned	upd = 0,
				ever = 0,
				border = 0;
	unsigned   *prev = s_chg,	/* rows changed by the last sweep */
			   *cur = s_chg + WS_SP;	/* ... by this one */
	int			it = 0;

	for (int c = tid; c < WS_SN; c += WS_THREADS)
	{
		int			x = ox + c % WS_SP - 1,
					y = oy + c / WS_SP - 1;
		uint32_t	l = WS_WALL;
		K			k = (K) ~0ull;
		uint32_t	lb = 0;

		if (x >= 0 && y >= 0 && x < a.w && y < a.h)
		{
			size_t		g = (size_t) y * a.w + x;

			k = __ldcg(&key[g]);
			l = WsDecode<MK>(__ldg(&img[g]), &k);
			if (l != WS_WALL)
				lb = __ldcg(&a.lab[g]);
		}
		s_lv[c] = l;
		s_key[c] = k;
		s_lab[c] = lb;
	}
	/*
	 * The first sweep: everything in round 0; later, a tile runs again
	 * because its halo changed, its interior having settled on the old
	 * halo, so only pixels near its border (marked as if rows 0 and 31
	 * and columns 0 and 31 had changed).
	 */
	if (tid < WS_SP)
	{
		if (round == 0)
			prev[tid] = tid > 0 && tid <= WS_T ? ~0u : 0;
		else
			prev[tid] = tid == 1 || tid == WS_T ? ~0u : tid > 0 && tid <= WS_T ? 0x80000001u : 0;
		cur[tid] = 0;
	}
	if (tid == 0)
		*s_border = 0;
	__syncthreads();
#pragma unroll
	for (int j = 0; j < 4; j++)
	{
		int			y = 4 * ty + j;
		uint32_t	l = sm.Lv(tx, y);

		if (ox + tx < a.ux1 && oy + y < a.uy1 && l != WS_WALL && l != WS_SEED)
			upd |= 1u << j;
	}

	/* intra-block updates until a sweep changes nothing */
	for (;;)
	{
		bool		changed = false;
		unsigned   *t;

#pragma unroll
		for (int k = 0; k < 4; k++)
		{
			int			j = (it & 1) ? 3 - k : k;
			int			y = 4 * ty + j;
			int			s = (y + 1) * WS_SP + tx + 1;
			/* changed last sweep, or already in this one (stale rows: harmless) */
			bool		need = (upd >> j & 1) &&
				(WsNear<C8>(prev, tx, y) || WsNear<C8>(cur, tx, y));
			bool		mine = false;
			unsigned	m = 0;

			if (__any_sync(0xffffffffu, need))	/* the warp is one row */
			{
				K			nk;
				uint32_t	nl;

				if (need)
				{
					WsStep<MK, C8>(sm, tx, y, s_lv[s], idx1 + (uint32_t) (j * a.gw), &nk, &nl);
					if (nk != s_key[s] || nl != s_lab[s])
					{
						s_key[s] = nk;
						s_lab[s] = nl;
						mine = true;
						ever |= 1u << j;
					}
				}
				m = __ballot_sync(0xffffffffu, mine);
				changed |= mine;
			}
			if (tx == 0)
				cur[y + 1] = m;
			__syncwarp();		/* the next row reads it */
		}
		it++;
		if (!__syncthreads_or(changed))
			break;
		t = prev;
		prev = cur;
		cur = t;
	}

	/* write back what changed; note the borders that moved */
#pragma unroll
	for (int j = 0; j < 4; j++)
	{
		int			y = 4 * ty + j;
		int			s = (y + 1) * WS_SP + tx + 1;
		size_t		g = (size_t) (oy + y) * a.w + ox + tx;

		if (!(ever >> j & 1))
			continue;
		key[g] = s_key[s];
		a.lab[g] = s_lab[s];
		border |= PbNbBlockBits(tx, y, WS_T, WS_T) & (C8 ? 0xFFu : 0xFu);
	}
	if (border)
	{
		__threadfence();		/* the pixels before the flags */
		atomicOr(s_border, border);
	}
	__syncthreads();
	if (tid == 0 && *s_border)
	{
		for (int j = 0; j < (C8 ? 8 : 4); j++)
		{
			int			nx = bx + PbNbDx(j),
						ny = by + PbNbDy(j);

			if ((*s_border >> j & 1) && nx >= 0 && ny >= 0 && nx < a.tiles_x && ny < a.tiles_y)
				a.act[ny * a.tiles_x + nx] = round + 1;
		}
		atomicMax(&a.ctl[WS_LAST], round + 1);
	}
}

/*
 * One block-asynchronous round: persistent blocks take chunks of 32
 * tiles in this round's order and run the active ones (act >= round).
 */
template <typename T, bool MK, bool C8>
__global__ void
__launch_bounds__(WS_THREADS)
WsAsyncRound(WsCaArgs a, uint32_t round)
{
	__shared__ uint32_t s_lv[WS_SN];
	__shared__ typename WsKeyOf<MK>::T s_key[WS_SN];
	__shared__ uint32_t s_lab[WS_SN];
	__shared__ unsigned s_chg[2 * WS_SP];
	__shared__ unsigned s_base,
				s_mask,
				s_border;
	const unsigned order = round & 3;

	if (blockIdx.x == 0 && threadIdx.x == 0)
		a.ctl[WS_GRAB + (round + 1) % 3] = 0;	/* the next round's counter */
	for (;;)
	{
		unsigned	base,
					mask;

		__syncthreads();
		if (threadIdx.x == 0)
			s_base = atomicAdd(&a.ctl[WS_GRAB + round % 3], 32u);
		__syncthreads();
		base = s_base;
		if (base >= a.ntiles)
			return;
		if (threadIdx.x < 32)
		{
			unsigned	i = base + threadIdx.x;
			bool		on = i < a.ntiles && __ldcg(&a.act[WsTileAt(a, i, order)]) >= round;

			mask = __ballot_sync(0xffffffffu, on);
			if (threadIdx.x == 0)
				s_mask = mask;
		}
		__syncthreads();
		mask = s_mask;
		while (mask != 0)
		{
			unsigned	b = __ffs(mask) - 1;

			mask &= mask - 1;
			WsTile<T, MK, C8>(a, round, WsTileAt(a, base + b, order), s_lv, s_key, s_lab, s_chg,
							  &s_border);
		}
	}
}

/*
 * One synchronous step: every updatable pixel from the previous state
 * (key_in, lab_in) into key_out, lab_out; a step that changed anything
 * records step + 1 in ctl[WS_LAST].
 */
template <typename T, bool MK, bool C8>
__global__ void
WsSyncStep(WsCaArgs a, const void *key_in, const uint32_t *lab_in, void *key_out,
		   uint32_t *lab_out, uint32_t step)
{
	typedef typename WsKeyOf<MK>::T K;
	WsGlobal<T, MK> g = {(const T *) a.img, (const K *) key_in, lab_in, a.w, a.h};
	size_t		uw = (size_t) (a.ux1 - a.ux0);
	size_t		n = uw * (size_t) (a.uy1 - a.uy0);
	bool		changed = false;

	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		int			x = a.ux0 + (int) (i % uw),
					y = a.uy0 + (int) (i / uw);
		size_t		p = (size_t) y * a.w + x;
		uint32_t	l = g.Lv(x, y);
		K			nk;
		uint32_t	nl;

		if (l == WS_WALL || l == WS_SEED)
			continue;
		WsStep<MK, C8>(g, x, y, l, (uint32_t) ((a.gy0 + y) * a.gw + a.gx0 + x + 1), &nk, &nl);
		((K *) key_out)[p] = nk;
		lab_out[p] = nl;
		changed |= nk != g.Key(x, y) || nl != g.Lab(x, y);
	}
	if (__any_sync(0xffffffffu, changed) && (threadIdx.x & 31) == 0)
		atomicMax(&a.ctl[WS_LAST], step + 1);
}

/* ---------------------------------------------------------------------- */
/* launchers (watershed_gpu.cuh) */

/* One block-asynchronous round on grid persistent blocks of WS_THREADS. */
template <typename T, bool MK, bool C8>
static void
WsLaunchRound(const WsCaArgs &a, uint32_t round, cudaStream_t s, unsigned grid)
{
	WsAsyncRound<T, MK, C8><<<grid, WS_THREADS, 0, s>>>(a, round);
}

/* One synchronous step, (key_in, lab_in) to (key_out, lab_out), on grid blocks of 256. */
template <typename T, bool MK, bool C8>
static void
WsLaunchStep(const WsCaArgs &a, const void *key_in, const uint32_t *lab_in, void *key_out,
			 uint32_t *lab_out, uint32_t step, cudaStream_t s, unsigned grid)
{
	WsSyncStep<T, MK, C8><<<grid, 256, 0, s>>>(a, key_in, lab_in, key_out, lab_out, step);
}

/* Round blocks that fit on one multiprocessor, into *occ. */
template <typename T, bool MK, bool C8>
static cudaError_t
WsRoundOccupancy(int *occ)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, WsAsyncRound<T, MK, C8>, WS_THREADS, 0);
}

/* Step blocks that fit on one multiprocessor, into *occ. */
template <typename T, bool MK, bool C8>
static cudaError_t
WsStepOccupancy(int *occ)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, WsSyncStep<T, MK, C8>, 256, 0);
}

/* The launchers of a pixel type, marker mode and connectivity. */
template <typename T, bool MK, bool C8>
static WsCaKernels
WsCaKernelsOf(void)
{
	WsCaKernels k;

	k.round = WsLaunchRound<T, MK, C8>;
	k.step = WsLaunchStep<T, MK, C8>;
	k.round_occupancy = WsRoundOccupancy<T, MK, C8>;
	k.step_occupancy = WsStepOccupancy<T, MK, C8>;
	return k;
}

/* The launchers of a pixel type for a marker mode and connectivity. */
template <typename T>
static WsCaKernels
WsCaPickMode(bool mk, bool c8)
{
	if (mk)
		return c8 ? WsCaKernelsOf<T, true, true>() : WsCaKernelsOf<T, true, false>();
	return c8 ? WsCaKernelsOf<T, false, true>() : WsCaKernelsOf<T, false, false>();
}

/* The launchers of region r's pixel type, marker mode and connectivity. */
WsCaKernels
WsCaPick(const WsRegion *r)
{
	switch (r->type)
	{
		case PB_PIX_16BUI:
			return WsCaPickMode<uint16_t>(r->mk, r->c8);
		case PB_PIX_32BF:
			return WsCaPickMode<float>(r->mk, r->c8);
		default:
			return WsCaPickMode<uint8_t>(r->mk, r->c8);
	}
}
