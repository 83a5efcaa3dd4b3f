/*
 * pb_raster.h: the public header of the raster core (src/core/raster):
 * images, PostGIS raster WKB in and out, morphological reconstruction, the
 * exact EDT and the watershed.  Depends on base only.
 */
#ifndef PB_RASTER_H
#define PB_RASTER_H

#include "image.h"
#include "raster_wkb.h"
#include "watershed.h"

#endif							/* PB_RASTER_H */
