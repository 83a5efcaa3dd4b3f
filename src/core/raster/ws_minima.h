/*
 * ws_minima.h: the marker-less watershed's numbering of its minima on CPU
 * threads (watershed_cpu.c): each minimum, a connected plateau of seeds of
 * one level, gets 1, 2, ... in row-major order of its first pixel.
 * Internal to the raster core.
 */
#ifndef PB_WS_MINIMA_H
#define PB_WS_MINIMA_H

#include <stdint.h>

#include "watershed_rules.h"

/*
 * Label every seed pixel (seed[i] nonzero: the marker-less least keys'
 * pixels with d = INF, walls not) with the number of its minimum, on
 * run's threads, the union-find forest in parent (g->n entries, the
 * caller's scratch, which may lie over the keys: they are not read);
 * other pixels' labels are left alone.
 * PB_ERR_NOMEM, PB_ERR_STOPPED (poll), else PB_OK.  g->n must be below
 * 2^32 (the forest's indices are 32-bit).
 */
PbStatus	WsNumberMinima(const WsGrid *g, const uint8_t *seed, uint32_t *labels,
						   uint32_t *parent, const PbRun *run);

#endif							/* PB_WS_MINIMA_H */
