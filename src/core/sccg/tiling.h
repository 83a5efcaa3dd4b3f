/*
 * tiling.h: cut two polygon sets into grid tiles, the pipeline's tasks,
 * when the caller has no tiles of its own.
 *
 * A shape goes to every tile its float box (as PostGIS stores it) meets;
 * each tile counts only the pairs whose reference point (largest xmin,
 * largest ymin of the two boxes) lies in its half-open cell.  The cells
 * partition the plane (the outer ones reach to infinity), the reference
 * point of an intersecting pair lies in both boxes, so every pair of
 * intersecting boxes is counted in exactly one tile, however the grid
 * cuts through polygons.
 */
#ifndef PB_TILING_H
#define PB_TILING_H

#include "pipeline.h"

/* The tasks of a tiling (those with shapes of both sets), and their ids. */
typedef struct PbTiling
{
	PbTask	   *tasks;
	uint32_t	ntasks;
	uint32_t   *ids;			/* the tasks' src_ids point in here */
	uint32_t	nx,
				ny;				/* grid size */
} PbTiling;

/*
 * Tile the shapes of b, in_a[i] giving the set of shape i, with about
 * per_tile shapes per tile, on threads threads (the caller included; 1:
 * no thread is started).  Memory from mem, taken on the calling thread
 * only (PbTilingFree releases it).  The result does not depend on threads.
 */
extern void PbTileGrid(PbTiling *tl, const PbBatch *b, const uint8_t *in_a,
					   uint32_t per_tile, const PbAllocator *mem, int threads);
extern void PbTilingFree(PbTiling *tl, const PbAllocator *mem);

/*
 * At most how many tasks PbTileGrid makes of nshapes shapes at per_tile a
 * tile, known before tiling: a cap on the threads of the run taking them.
 */
extern uint64_t PbTileGridMaxTasks(uint32_t nshapes, uint32_t per_tile);

#endif							/* PB_TILING_H */
