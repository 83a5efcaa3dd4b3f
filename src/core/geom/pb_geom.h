/*
 * pb_geom.h: the public header of the polygon core (src/core/geom): the
 * batch of decoded polygons, the decoders (GSERIALIZED, EWKB, text files),
 * the packed form parallel workers hand over, the exact area engines and
 * the exact sums of the comparison totals, and the instance metrics
 * (match.h).  Depends on base only.
 */
#ifndef PB_GEOM_H
#define PB_GEOM_H

#include "accum.h"
#include "batch.h"
#include "decode_values.h"
#include "ewkb_write.h"
#include "match.h"
#include "parse_files.h"
#include "parse_text.h"
#include "shape_pack.h"
#include "state_codec.h"
#include "text_reader.h"

#endif							/* PB_GEOM_H */
