/*
 * toast_par.c: varlena values decompressed and compressed on the CPU
 * threads, in PostgreSQL's own in-line compressed format (a 4-byte
 * varlena header, the raw size and method in 32 bits, the compressed
 * bytes).  PostgreSQL's fetch decompresses each value on the backend's one
 * thread, and its insert compresses each one there: for a coverage call
 * that is gigabytes, serially.  Here the backend's thread fetches (and
 * allocates every buffer: palloc is not thread-safe) and the threads run
 * the pure codecs: lz4 (liblz4, as PostgreSQL links it) and pglz's
 * decompressor (pglz's compressor keeps static state, so pglz output is
 * left to PostgreSQL).
 */
#include "postgres.h"

#include <lz4.h>

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "common/pg_lzcompress.h"

#include "pixelbox.h"
#include "toast_par.h"

/* Values (de)compressed on the threads: source, destination, outcome. */
typedef struct CodecJob
{
	struct varlena **src;
	struct varlena **dst;
	int32	   *got;			/* bytes produced, or -1 */
} CodecJob;

/* Value d of a fetched row, fetched or copied, possibly still compressed. */
struct varlena *
PbFetchValue(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL(v))
		return detoast_external_attr(v);	/* a fresh copy, compressed or not */
	if (VARATT_IS_COMPRESSED(v))
	{
		struct varlena *c = palloc_extended(VARSIZE(v), MCXT_ALLOC_HUGE);

		memcpy(c, v, VARSIZE(v));
		return c;
	}
	return (struct varlena *) DatumGetByteaPCopy(d);
}

/* Decompress item i (pglz or lz4) into its plain buffer. */
static void
DecompressItem(void *arg, int64_t i)
{
	CodecJob   *j = arg;
	const struct varlena *c = j->src[i];
	int32		raw = (int32) VARDATA_COMPRESSED_GET_EXTSIZE(c);
	int32		clen = (int32) (VARSIZE(c) - VARHDRSZ_COMPRESSED);
	const char *data = (const char *) c + VARHDRSZ_COMPRESSED;

	switch (VARDATA_COMPRESSED_GET_COMPRESS_METHOD(c))
	{
		case TOAST_LZ4_COMPRESSION_ID:
			j->got[i] = LZ4_decompress_safe(data, VARDATA(j->dst[i]), clen, raw);
			break;
		case TOAST_PGLZ_COMPRESSION_ID:
			j->got[i] = pglz_decompress(data, clen, VARDATA(j->dst[i]), raw, true);
			break;
		default:				/* no such method: corrupt */
			j->got[i] = -1;
	}
}

/* The compressed values among v[0, n) made plain, on the threads. */
void
PbDecompressValues(struct varlena **v, int64 n, const char *caller)
{
	CodecJob	j;
	int64	   *at = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	int64		m = 0;
	PbRun		run = PbCpuRun();

	for (int64 i = 0; i < n; i++)
		if (VARATT_IS_COMPRESSED(v[i]))
			at[m++] = i;
	if (m == 0)
	{
		pfree(at);
		return;
	}
	j.src = palloc(sizeof(struct varlena *) * m);
	j.dst = palloc(sizeof(struct varlena *) * m);
	j.got = palloc(sizeof(int32) * m);
	for (int64 k = 0; k < m; k++)
	{
		Size		raw = VARDATA_COMPRESSED_GET_EXTSIZE(v[at[k]]);

		j.src[k] = v[at[k]];
		j.dst[k] = palloc_extended(raw + VARHDRSZ, MCXT_ALLOC_HUGE);
		SET_VARSIZE(j.dst[k], raw + VARHDRSZ);
	}
	PbCheckPass(PbParallelFor(&run, m, DecompressItem, &j), caller, "decompressing the tiles");
	for (int64 k = 0; k < m; k++)
	{
		/* as PostgreSQL's own check: only data corrupt on disk gets here */
		if (j.got[k] != (int32) VARDATA_COMPRESSED_GET_EXTSIZE(j.src[k]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("%s: a tile's compressed data is corrupt", caller)));
		pfree(j.src[k]);
		v[at[k]] = j.dst[k];
	}
	pfree(j.src);
	pfree(j.dst);
	pfree(j.got);
	pfree(at);
}

/* Compress item i with lz4 into its buffer (got: 0 when it did not fit). */
static void
CompressItem(void *arg, int64_t i)
{
	CodecJob   *j = arg;
	int32		raw = (int32) VARSIZE(j->src[i]) - VARHDRSZ;

	j->got[i] = LZ4_compress_default(VARDATA(j->src[i]), (char *) j->dst[i] + VARHDRSZ_COMPRESSED,
									 raw, LZ4_compressBound(raw));
}

/* The plain values among v[0, n) lz4-compressed on the threads, where it pays. */
void
PbCompressValues(Datum *v, int64 n, const char *caller)
{
	CodecJob	j;
	int64	   *at;
	int64		m = 0;
	PbRun		run = PbCpuRun();

	if (default_toast_compression != TOAST_LZ4_COMPRESSION || n == 0)
		return;
	at = palloc(sizeof(int64) * n);
	for (int64 i = 0; i < n; i++)
	{
		struct varlena *p = (struct varlena *) DatumGetPointer(v[i]);

		/* PostgreSQL compresses only rows above the threshold, and 4-byte headers */
		if (VARATT_IS_4B_U(p) && VARSIZE(p) > TOAST_TUPLE_THRESHOLD)
			at[m++] = i;
	}
	j.src = palloc(sizeof(struct varlena *) * Max(m, 1));
	j.dst = palloc(sizeof(struct varlena *) * Max(m, 1));
	j.got = palloc(sizeof(int32) * Max(m, 1));
	for (int64 k = 0; k < m; k++)
	{
		j.src[k] = (struct varlena *) DatumGetPointer(v[at[k]]);
		j.dst[k] = palloc_extended(VARHDRSZ_COMPRESSED +
								   LZ4_compressBound((int) (VARSIZE(j.src[k]) - VARHDRSZ)),
								   MCXT_ALLOC_HUGE);
	}
	PbCheckPass(PbParallelFor(&run, m, CompressItem, &j), caller, "compressing the tiles");
	for (int64 k = 0; k < m; k++)
	{
		int32		raw = (int32) VARSIZE(j.src[k]) - VARHDRSZ;

		if (j.got[k] > 0 && j.got[k] + (int32) VARHDRSZ_COMPRESSED < raw - 2)
		{
			SET_VARSIZE_COMPRESSED(j.dst[k], j.got[k] + VARHDRSZ_COMPRESSED);
			TOAST_COMPRESS_SET_SIZE_AND_COMPRESS_METHOD(j.dst[k], raw, TOAST_LZ4_COMPRESSION_ID);
			pfree(j.src[k]);
			v[at[k]] = PointerGetDatum(j.dst[k]);
		}
		else
			pfree(j.dst[k]);
	}
	pfree(j.src);
	pfree(j.dst);
	pfree(j.got);
	pfree(at);
}
