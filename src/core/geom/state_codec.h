/*
 * state_codec.h: the bytes of the comparison aggregates' partial states.
 *
 * A partial state crosses processes and machines (Citus ships it from the
 * workers to the coordinator as text), so its bytes are written field by
 * field, little-endian, whatever the host: the counts, then each exact sum
 * as its span of nonzero limbs (a few limbs in practice, not all 70), and
 * for keyed comparisons the polygon counts and the sorted ranges of keys
 * the state compared.  Decoding checks everything it reads.
 */
#ifndef PB_STATE_CODEC_H
#define PB_STATE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "accum.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* Most bytes PbCompareAccEncode writes. */
#define PB_ACC_CODE_MAX (2 * 8 + 4 * (2 + PB_EXACT_LIMBS * 8))

/* A keyed state's ranges of keys: every key k with lo <= k <= hi. */
typedef struct PbKeyRange
{
	int64_t		lo,
				hi;
} PbKeyRange;

extern size_t PbCompareAccEncode(const PbCompareAcc *acc, uint8_t *out);
extern size_t PbCompareAccDecode(const uint8_t *in, size_t len, PbCompareAcc *acc);

extern uint32_t PbKeyRangesOf(int64_t *keys, uint32_t n, PbKeyRange *out);
extern int	PbKeyRangesMerge(const PbKeyRange *a, uint32_t na, const PbKeyRange *b, uint32_t nb,
							 PbKeyRange *out, uint32_t *nout, int64_t *clash);
extern size_t PbKeyRangesEncode(const PbKeyRange *r, uint32_t n, uint8_t *out);
extern size_t PbKeyRangesDecode(const uint8_t *in, size_t len, PbKeyRange *out, uint32_t cap,
								uint32_t *n);

/* Write v at p, little-endian. */
static inline void
PbPutI64(uint8_t *p, int64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) ((uint64_t) v >> (8 * i));
}

/* The little-endian int64 at p. */
static inline int64_t
PbGetI64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t) p[i] << (8 * i);
	return (int64_t) v;
}

#ifdef __cplusplus
}
#endif

#endif
