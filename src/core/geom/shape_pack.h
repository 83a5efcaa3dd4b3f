/*
 * shape_pack.h: decoded shapes in a compact byte form, for handing them
 * from one process to another (parallel workers to the leader) at a
 * fraction of the batch's size, and unpacking them on several threads.
 *
 * A packed stream is a run of chunks.  A chunk is a header (the numbers
 * of shapes, rings, int points, double points, and the body's bytes) and
 * a body of shape records:
 *
 *   flags (kind | tag << 2), geomtype, varint nrings, area (8 bytes),
 *   box (32 bytes, double shapes only), then per ring varint npoints and
 *   the points: double shapes raw; int shapes (rectilinear) as the first
 *   point's zigzag deltas from the previous point, then one varint per
 *   vertex: the move along its one axis, zigzag, and the axis (about one
 *   byte a vertex for nucleus outlines).
 *
 * Int shapes' boxes are recomputed from their points, which gives the
 * decoder's box exactly; areas are carried as they are.  The unpacker
 * trusts nothing: every count, kind, coordinate limit and the closing
 * edge's direction are checked, and a chunk that does not match its header is refused.
 */
#ifndef PB_SHAPE_PACK_H
#define PB_SHAPE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"

#define PB_PACK_HEADER_BYTES 24

/* The counts in a chunk's header. */
typedef struct PbPackCounts
{
	uint32_t	shapes,
				rings,
				ipts,
				dpts;
	uint64_t	body;			/* bytes of the body after the header */
} PbPackCounts;

/* Packs shapes one by one into chunks of chunk_shapes shapes. */
typedef struct PbPacker
{
	const PbAllocator *mem;
	uint8_t    *buf;			/* the packed stream so far */
	size_t		len,
				cap;
	uint32_t	chunk_shapes;
	int			open;			/* a chunk is open at chunk_at */
	size_t		chunk_at;
	PbPackCounts counts;		/* of the open chunk */
} PbPacker;

/* Start an empty packer allocating through mem. */
extern void PbPackerInit(PbPacker *pk, const PbAllocator *mem, uint32_t chunk_shapes);

/* Pack shape `shape` of b with its tag (0 or 1). */
extern void PbPackerAdd(PbPacker *pk, const PbBatch *b, uint32_t shape, int tag);

/* Close the open chunk (if any): buf[0 .. len) is then a whole stream. */
extern void PbPackerClose(PbPacker *pk);

/*
 * Forget the packed stream (its closed chunks were copied elsewhere),
 * keeping the buffer for the next ones.  Only with no chunk open.
 */
extern void PbPackerDrop(PbPacker *pk);

/* Release the packer's buffer. */
extern void PbPackerFree(PbPacker *pk);

/*
 * Read the header of the chunk at p (len bytes left in the stream):
 * 0 with *c filled when the header and the body's length fit, -1 if not.
 */
extern int	PbPackReadHeader(const uint8_t *p, size_t len, PbPackCounts *c);

/* Where one chunk's shapes go in the destination batch. */
typedef struct PbUnpackJob
{
	const uint8_t *chunk;		/* the chunk, header first */
	PbPackCounts counts;
	uint32_t	shape0,
				ring0,
				ipt0,
				dpt0;			/* first shape, ring, int and double point */
} PbUnpackJob;

/*
 * Unpack one chunk into b, whose arrays already hold room for it at the
 * job's offsets (the counts are not changed: the caller sets them), every
 * shape with the given SRID and its tag into tag[shape]. Touches only the
 * job's ranges, so jobs run concurrently.  Returns 0, or -1 when the body
 * is malformed (what was written is then garbage).
 */
extern int	PbUnpackChunk(const PbUnpackJob *job, PbBatch *b, int32_t srid,
						  uint8_t *tag);

/*
 * Unpack n jobs (disjoint ranges of b) on run's threads, which call
 * nothing but the unpacker and block every signal; run->poll is asked
 * between jobs.  Returns PB_OK, PB_ERR_STOPPED when the poll stopped it
 * (some jobs then never ran), or PB_ERR_FORMAT when a chunk was malformed.
 */
extern PbStatus PbUnpackJobs(const PbUnpackJob *jobs, uint32_t n, PbBatch *b,
							 int32_t srid, uint8_t *tag, const PbRun *run);

#endif							/* PB_SHAPE_PACK_H */
