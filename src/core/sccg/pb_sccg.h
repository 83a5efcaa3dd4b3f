/*
 * pb_sccg.h: the public header of the SCCG pipeline (src/core/sccg): tile
 * tasks, the pipeline with task migration and its device interface, grid
 * tiling of two sets, and the Hilbert R-tree filter.  Depends on geom and
 * base.
 */
#ifndef PB_SCCG_H
#define PB_SCCG_H

#include "device.h"
#include "hilbert_rtree.h"
#include "pipeline.h"
#include "tiling.h"

#endif							/* PB_SCCG_H */
