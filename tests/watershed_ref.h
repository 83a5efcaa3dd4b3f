/*
 * watershed_ref.h: the reference watershed of the tests (watershed_ref.c),
 * which the core's PbWatershedCpu and the GPU's PbGpuWatershed must equal
 * label for label.  Not shipped: the tests and GPU tests link it.
 */
#ifndef PB_WATERSHED_REF_H
#define PB_WATERSHED_REF_H

#include "../src/core/raster/watershed.h"

/*
 * The same result as PbWatershedCpu by the synchronous automaton,
 * literally: every pixel updated from its neighbours' previous state until
 * nothing changes.  One thread, O(pixels * longest path): the reference of
 * the tests.
 */
extern PbStatus PbWatershedRef(const PbWatershedSpec *spec, uint32_t *labels);

/* A spec over caller-owned pixels. */
extern PbWatershedSpec WsTestSpec(int w, int h, PbPixType type, void *data, const uint8_t *wall,
								  const uint32_t *markers, int conn, bool lines);

/* calloc that aborts the test program on failure. */
extern void *WsTestAlloc(size_t n);

/*
 * Check PbWatershedCpu against PbWatershedRef on spec, once per (tile
 * side, threads) of the lists (runs entries each), the output poisoned
 * before each run (every pixel must be written): a failed check names
 * the run and the first pixel that differs.
 */
extern void WsCheckCpuAgainstRef(const PbWatershedSpec *spec, const int *tiles,
								 const int *threads, int runs);

#endif							/* PB_WATERSHED_REF_H */
