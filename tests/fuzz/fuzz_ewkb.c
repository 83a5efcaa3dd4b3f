/*
 * fuzz_ewkb.c: the harness of the (E)WKB decoder, PbDecodeEwkb (what the
 * geometry type's send function and ST_AsEWKB give, either byte order,
 * ISO and EWKB flags).
 */
#include "fuzz.h"

/* One input: EWKB bytes. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FuzzDecoder(PbDecodeEwkb, data, size);
	return 0;
}
