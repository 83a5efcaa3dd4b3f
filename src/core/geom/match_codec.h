/*
 * match_codec.h: the bytes of the instance metrics' parts (match.h's
 * PbMatchParts), which the keyed pb_match_stats' partial states carry
 * from Citus workers to the coordinator.  Written as state_codec.h writes
 * the comparison totals: the counts little-endian, then each exact sum as
 * its span of nonzero limbs.  Decoding checks everything it reads.
 */
#ifndef PB_MATCH_CODEC_H
#define PB_MATCH_CODEC_H

#include "match.h"
#include "state_codec.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Most bytes PbMatchPartsEncode writes: 5 counts, 8 sums. */
#define PB_MATCH_PARTS_CODE_MAX (5 * 8 + 8 * PB_SUM_CODE_MAX)

extern size_t PbMatchPartsEncode(const PbMatchParts *p, uint8_t *out);
extern size_t PbMatchPartsDecode(const uint8_t *in, size_t len, PbMatchParts *p);

#ifdef __cplusplus
}
#endif

#endif							/* PB_MATCH_CODEC_H */
