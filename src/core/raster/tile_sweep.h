/*
 * tile_sweep.h: the schedule of a tiled fixed-point run on several workers
 * (the CPU watershed's tiles on its threads, the GPU watershed's on one or
 * several GPUs): a grid of tiles,
 * each marked to run; a worker takes a marked tile none of whose eight
 * neighbours is running, so that a tile's run reads a halo that no one
 * writes meanwhile and the run is equal to some serial order of the same
 * tile runs; a tile whose border changed marks its neighbours to run
 * again.  Tiles are taken in sweeps over the grid, alternately forwards
 * and backwards, so that a flood crosses the grid in few sweeps; the run
 * is over when no tile is marked and none runs.  Thread-safe.
 *
 * A device that runs many tiles at once (a GPU in a hybrid run) takes a
 * block of them instead: it reserves the block with the most tiles marked
 * or running, and its ring of tiles around it, so that no worker starts a tile
 * there; once nothing there runs, the block runs as one, and its ring may
 * not run meanwhile (the ring's keys are the block's halo).
 */
#ifndef PB_TILE_SWEEP_H
#define PB_TILE_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/pb_base.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct PbTileSweep PbTileSweep;

/*
 * A schedule of ntx x nty tiles, every one marked; run's poll is asked by
 * the worker that takes with polls set.  NULL when out of memory or the
 * grid is empty.
 */
PbTileSweep *PbTileSweepNew(int ntx, int nty, const PbRun *run);

/* Free a schedule. */
void		PbTileSweepFree(PbTileSweep *s);

/*
 * Take the next tile to run (its index, row-major), sleeping while every
 * marked tile has a running neighbour; -1 when the run is over or
 * stopped (PbTileSweepStatus says which).  The polling worker (polls)
 * asks the run's poll while it waits, and stops the run when told.
 */
int64_t		PbTileSweepTake(PbTileSweep *s, bool polls);

/* Tile t, taken, has run; changed: its border changed (its neighbours run again). */
void		PbTileSweepDone(PbTileSweep *s, int64_t t, bool changed);

/* A block of tiles [tx0, tx1) x [ty0, ty1) that a device runs as one. */
typedef struct PbTileBlock
{
	int			tx0,
				ty0,
				tx1,
				ty1;
} PbTileBlock;

/*
 * Take the next block of at most bw x bh tiles to run (aligned on a grid
 * of such blocks, the one with the most tiles marked or running), waiting
 * while tiles of it or of its ring still run; false when the run is over
 * or stopped.  Its tiles are no longer marked.  The polling worker polls as
 * in PbTileSweepTake.
 */
bool		PbTileSweepTakeBlock(PbTileSweep *s, int bw, int bh, bool polls, PbTileBlock *b);

/* Mark tile t to run again (a tile next to a block whose border changed). */
void		PbTileSweepMark(PbTileSweep *s, int64_t t);

/*
 * Block b, taken, has run: its ring may run again.  failed: it did not
 * finish, so its tiles and its ring are marked to run again.
 */
void		PbTileSweepDoneBlock(PbTileSweep *s, const PbTileBlock *b, bool failed);

/* Stop the run for why: every take returns -1 from now on. */
void		PbTileSweepStop(PbTileSweep *s, PbStatus why);

/* PB_OK, or why the run stopped. */
PbStatus	PbTileSweepStatus(PbTileSweep *s);

/* Tile runs done so far. */
int64_t		PbTileSweepRuns(PbTileSweep *s);

#ifdef __cplusplus
}
#endif

#endif							/* PB_TILE_SWEEP_H */
