/*
 * fuzz.h: what the fuzz harnesses of tests/fuzz share.
 *
 * Each harness (fuzz_*.c) is one libFuzzer entry point,
 * LLVMFuzzerTestOneInput, over one decoder or reader of the pure core
 * (src/core), with the allocator the core's tools use (PbMallocAllocator).
 * It is linked either with libFuzzer (clang -fsanitize=fuzzer) or with
 * driver.c (gcc or clang, no libFuzzer: replays files and runs a seeded
 * mutation loop).  Beside the sanitizers' reports, a harness checks what
 * the decoder promises (a decoded shape is well-formed, a failed decode
 * leaves the batch as it was, engines agree); a broken promise is reported
 * by FUZZ_CHECK and aborts, so both drivers count it as a crash.
 */
#ifndef PB_FUZZ_H
#define PB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "../../src/core/geom/pb_geom.h"

/* The entry point every harness defines (libFuzzer's). */
extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Report a broken promise of the code under test and abort. */
extern void FuzzFail(const char *file, int line, const char *fmt,...)
			__attribute__((format(printf, 3, 4), noreturn));

#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			FuzzFail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

/*
 * A temporary file for the harnesses of file readers, made once per
 * process under $TMPDIR or /tmp (named after prefix) and unlinked at once,
 * so nothing is left behind even when a run crashes.
 */
extern int	FuzzTempFile(const char *prefix);

/* Make the file hold exactly len bytes of data. */
extern void FuzzWriteFile(int fd, const void *data, size_t len);

/* Batch sizes, to check that a failed decode left the batch unchanged. */
typedef struct FuzzBatchMark
{
	uint32_t	nshapes,
				nrings,
				nipts,
				ndpts;
} FuzzBatchMark;

extern FuzzBatchMark FuzzMark(const PbBatch *b);

/*
 * Check the outcome of one decode into b that started at mark: on PB_OK,
 * shape is the last shape and well-formed (rings within the point pool of
 * its kind, int points rectilinear, box holding every point, finite area
 * for finite coordinates); otherwise the batch is as at mark and err holds
 * the same code and a message.
 */
extern void FuzzCheckDecoded(const PbBatch *b, const FuzzBatchMark *mark,
							 PbStatus st, uint32_t shape, const PbError *err);

/* Whether two shapes (of the same or other batches) hold the same rings and points. */
extern int	FuzzSameShape(const PbBatch *ba, uint32_t a, const PbBatch *bb,
						  uint32_t b);

/*
 * Put two shapes in a fresh batch (an int square and a double triangle),
 * so a harness's decode appends after content in both point pools.
 */
extern void FuzzPrefillBatch(PbBatch *b);

/* A decoder's signature (PbDecodeEwkb, PbDecodeGserialized). */
typedef PbStatus (*FuzzDecodeFn) (PbBatch *b, const uint8_t *data, size_t len,
								  uint32_t *shape, PbError *err);

/*
 * The harness of one decoder: decode the input twice after prefilled
 * shapes (both outcomes checked and equal), then check the intersection
 * areas of the shape with itself and the prefilled ones.
 */
extern void FuzzDecoder(FuzzDecodeFn decode, const uint8_t *data, size_t size);

/*
 * Check the intersection area of shapes a and c of b: finite, within
 * [0, area of the boxes' window], the same both ways round, and for two
 * int shapes the same from every engine (those whose cost the window
 * bounds).  Skipped for shapes of more than max_points points.
 */
extern void FuzzCheckPairArea(PbScratch *s, const PbBatch *b, uint32_t a,
							  uint32_t c, size_t max_points);

/* Largest |coordinate| of a shape (0 for an empty one). */
extern double FuzzShapeMagnitude(const PbBatch *b, uint32_t s);

#endif							/* PB_FUZZ_H */
