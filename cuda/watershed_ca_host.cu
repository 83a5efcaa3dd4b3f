/*
 * watershed_ca_host.cu: the host driver of the GPU watershed's cellular
 * automaton (WsRunCa, watershed_gpu.cuh), whose kernels are
 * watershed_ca_kernels.cu (the automaton is described there): it sets up
 * a region's round arguments, sizes the grid by occupancy, and launches
 * rounds (or synchronous steps) in batches through the launchers of
 * watershed_gpu.cuh, reading the control words after each batch: it stops
 * after a batch whose last round activated nothing, the fixed point, and
 * polls between batches, whose length it adapts to about WS_BATCH_MS.
 */
#include "watershed_gpu.cuh"

#define WS_MAX_BATCH 256		/* rounds launched between two checks */
#define WS_BATCH_MS 20.0		/* a batch longer than this is halved */

/* Run region r's automaton to its fixed point (see watershed_gpu.cuh). */
int
WsRunCa(RgCtx *c, const WsRegion *r, bool sync, PbPollFn poll, void *poll_arg,
		PbRasterGpuStats *st, char *err, size_t err_len)
{
	WsCaKernels kr = WsCaPick(r);
	size_t		kb = WsKeyBytes(r->mk);
	size_t		npix = (size_t) r->w * r->h;
	WsCaArgs	a;
	int			occ = 0;
	unsigned	grid;
	uint32_t	round = 0;
	int			batch = 1;
	void	   *keys[2] = {r->key, r->key2};
	uint32_t   *labs[2] = {r->lab, r->lab2};

	a.img = r->img;
	a.key = r->key;
	a.lab = r->lab;
	a.w = r->w;
	a.h = r->h;
	a.ux0 = r->ux0;
	a.uy0 = r->uy0;
	a.ux1 = r->ux1;
	a.uy1 = r->uy1;
	a.tiles_x = (r->ux1 - r->ux0 + WS_T - 1) / WS_T;
	a.tiles_y = (r->uy1 - r->uy0 + WS_T - 1) / WS_T;
	a.ntiles = (unsigned) a.tiles_x * a.tiles_y;
	a.gx0 = (uint64_t) r->gx0;
	a.gy0 = (uint64_t) r->gy0;
	a.gw = (uint64_t) r->gw;
	a.act = r->act;
	a.ctl = r->ctl;
	if (a.ntiles == 0)
		return 0;
	if (sync)
	{
		RG_TRY(kr.step_occupancy(&occ), "querying the occupancy of the watershed step");
		grid = (unsigned) (c->sms * (occ > 0 ? occ : 1));
		RG_TRY(cudaMemcpyAsync(r->key2, r->key, npix * kb, cudaMemcpyDeviceToDevice, c->stream),
			   "copying the watershed state");
		RG_TRY(cudaMemcpyAsync(r->lab2, r->lab, npix * sizeof(uint32_t),
							   cudaMemcpyDeviceToDevice, c->stream), "copying the watershed state");
	}
	else
	{
		RG_TRY(kr.round_occupancy(&occ), "querying the occupancy of the watershed round");
		grid = (unsigned) (c->sms * (occ > 0 ? occ : 1));
		if (grid > (a.ntiles + 31) / 32)
			grid = (a.ntiles + 31) / 32;
		RG_TRY(cudaMemsetAsync(r->act, 0, a.ntiles * sizeof(uint32_t), c->stream),
			   "clearing the tile flags");
	}
	RG_TRY(cudaMemsetAsync(r->ctl, 0, WS_CTL_WORDS * sizeof(uint32_t), c->stream),
		   "clearing the watershed counters");

	/* batches of rounds, polled between them, until one activated nothing */
	for (;;)
	{
		double		ms = 0;

		if (RgStop(poll, poll_arg))
			return 1;
		RG_TRY(RgTimeStart(c), "timing");
		for (int k = 0; k < batch; k++, round++)
		{
			if (sync)
				kr.step(a, keys[round & 1], labs[round & 1], keys[!(round & 1)],
						labs[!(round & 1)], round, c->stream, grid);
			else
				kr.round(a, round, c->stream, grid);
		}
		RG_TRY(cudaGetLastError(), "launching the watershed automaton");
		RG_TRY(cudaMemcpyAsync(c->h_small, r->ctl, WS_CTL_WORDS * sizeof(uint32_t),
							   cudaMemcpyDeviceToHost, c->stream), "reading the watershed counters");
		RG_TRY(RgTimeEnd(c, &ms), "running the watershed automaton");
		st->kernel_ms += ms;
		st->rounds += batch;
		if (c->h_small[WS_LAST] < round)
			break;
		if (ms > WS_BATCH_MS && batch > 1)
			batch /= 2;
		else if (ms < WS_BATCH_MS / 4 && batch < WS_MAX_BATCH)
			batch *= 2;
	}
	if (sync && (round & 1))	/* the last state is in the second buffers */
	{
		RG_TRY(cudaMemcpyAsync(r->key, r->key2, npix * kb, cudaMemcpyDeviceToDevice, c->stream),
			   "copying the watershed state");
		RG_TRY(cudaMemcpyAsync(r->lab, r->lab2, npix * sizeof(uint32_t),
							   cudaMemcpyDeviceToDevice, c->stream), "copying the watershed state");
	}
	return 0;
fail:
	return -1;
}
