/*
 * toast_par.h: varlena values decompressed and compressed on the CPU
 * threads (toast_par.c), in PostgreSQL's own in-line compressed format,
 * so that the thousands of megabyte tiles of a coverage call are not
 * (de)compressed one at a time on the backend's thread.
 */
#ifndef PB_TOAST_PAR_H
#define PB_TOAST_PAR_H

#include "postgres.h"

/*
 * Value d of a fetched row, in the current memory context: stored out of
 * line, fetched but left compressed; compressed in line, copied as it is;
 * else a copy with a 4-byte header.  PbDecompressValues finishes them.
 */
extern struct varlena *PbFetchValue(Datum d);

/*
 * Replace the compressed values among v[0, n) (pglz or lz4) by their
 * plain form, decompressing on pixelbox.cpu_threads threads; the
 * compressed copies are freed.  Corrupt data is an ERROR naming caller.
 */
extern void PbDecompressValues(struct varlena **v, int64 n, const char *caller);

/*
 * With default_toast_compression = lz4, replace the plain values among
 * v[0, n) that lz4 shrinks (as PostgreSQL's own rule: by more than 2
 * bytes) by their compressed form, compressing on the threads; the plain
 * ones are freed.  Stored as they are, they are not compressed again.
 * With pglz (not thread-safe to compress), nothing is done.  A cancel
 * stops it (caller names the function for other failures).
 */
extern void PbCompressValues(Datum *v, int64 n, const char *caller);

#endif							/* PB_TOAST_PAR_H */
