/*
 * png_write.h: an RGBA image to PNG bytes in memory, with libpng.
 *
 * Every byte, libpng's own structures and zlib's state included, comes
 * from the caller's allocator: in a backend palloc, so an error raised
 * from inside (out of memory) leaves nothing behind its memory context.
 * libpng's own errors come back as a PbError.  Compression is tuned for
 * images of flat areas, as heat maps are (png_write.c).
 */
#ifndef PB_PNG_WRITE_H
#define PB_PNG_WRITE_H

#include "../base/pb_base.h"

/* A PNG made by PbPngWriteRgba: len bytes at data + reserve. */
typedef struct PbPngBytes
{
	uint8_t    *data;			/* from mem; the caller's reserve bytes first */
	size_t		len;			/* the PNG's bytes, after the reserve */
} PbPngBytes;

/*
 * Encode width x height RGBA pixels (4 bytes each, rows top to bottom) as
 * an 8-bit RGBA PNG, into out->data after reserve bytes left free for the
 * caller (a bytea's header: no copy).  poll is asked between rows.
 * Errors: PB_ERR_BADARG for an empty image or a libpng refusal (its
 * message), PB_ERR_STOPPED; nothing is left allocated then.
 */
extern PbStatus PbPngWriteRgba(const uint8_t *rgba, uint32_t width, uint32_t height,
							   size_t reserve, const PbAllocator *mem, PbPollFn poll,
							   void *poll_arg, PbPngBytes *out, PbError *err);

#endif							/* PB_PNG_WRITE_H */
