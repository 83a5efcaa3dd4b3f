/*
 * pb_raster.h: the public header of the raster core (src/core/raster):
 * images, PostGIS raster WKB in and out, morphological reconstruction, the
 * exact EDT, the watershed, and their per-pixel nodata passes.  Depends on
 * base only.
 */
#ifndef PB_RASTER_H
#define PB_RASTER_H

#include "image.h"
#include "nodata.h"
#include "raster_par.h"
#include "raster_wkb.h"
#include "watershed.h"

#endif							/* PB_RASTER_H */
