/*
 * test_pack.c: packed shapes (src/core/shape_pack.h) unpack to exactly the
 * shapes that were packed, on any number of threads and at any offset,
 * and malformed chunks are refused without reading outside them.
 */
#include <stdlib.h>
#include <string.h>

#include "../src/core/geom/pb_geom.h"
#include "testutil.h"

#define PACK_SRID 4326

/* A mixed batch: traced masks, random orthogonal shapes, doubles, empties. */
static void
MixedBatch(PbBatch *b, Rng *r, int n)
{
	static const char *const fixed[] = {
		"POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 1,2 2,1 2,1 1))",
		"POLYGON((0 0,3.5 0,3.5 2,0 2,0 0))",
		"POLYGON EMPTY",
		"MULTIPOLYGON(((10 10,12 10,12 12,10 12,10 10)),((20 20,21 20,21 21,20 21,20 20)))",
		"POLYGON((0 0,10 1,7 9,0 0))",
		"POLYGON((-1073741824 -1073741824,1073741824 -1073741824,1073741824 1073741824,-1073741824 1073741824,-1073741824 -1073741824))",
		"POLYGON((5 5,5 5,9 5,9 5,9 8,5 8,5 5))"
	};
	int64_t		xs[33],
				ys[33];

	for (int i = 0; i < 33; i++)
	{
		xs[i] = 1000 + 3 * i + (i % 4);
		ys[i] = -500 + 2 * i;
	}
	for (int i = 0; i < n; i++)
	{
		int			kind = (int) RngRange(r, 0, 9);
		TGeom	   *g;
		uint32_t	shape;
		PbError		err;

		if (kind < 2)
		{
			DecodeWkt(b, fixed[RngRange(r, 0, 6)], (int) RngRange(r, 0, 1));
			continue;
		}
		if (kind < 6)
		{
			Mask		m = MaskNew(32, 32);

			MaskRects(&m, r, (int) RngRange(r, 1, 6));
			g = MaskTrace(&m, xs, ys, r, (int) RngRange(r, 0, 1));
			MaskFree(&m);
		}
		else
			g = RandomOrthoShape(r, (int) RngRange(r, 1, 3), 6, RngRange(r, -100000, 100000),
								 RngRange(r, -100000, 100000), 5000, (int) RngRange(r, 0, 1));
		if (DecodeTg(b, g, 0, &shape, &err) != PB_OK)
			DummyShape(b);
		TgFree(g);
	}
	for (uint32_t i = 0; i < b->nshapes; i++)
		b->shapes[i].srid = PACK_SRID;
}

/* Pack shapes [0, n) of b in chunks of chunk shapes, tags from tag. */
static void
PackAll(PbPacker *pk, const PbBatch *b, const uint8_t *tag, uint32_t chunk)
{
	PbPackerInit(pk, &PbMallocAllocator, chunk);
	for (uint32_t i = 0; i < b->nshapes; i++)
		PbPackerAdd(pk, b, i, tag[i]);
	PbPackerClose(pk);
}

/*
 * The jobs of a packed stream, placed after what dst holds; their totals
 * in *tot.  Returns the job count, -1 when a header is bad.
 */
static int
Jobs(const PbPacker *pk, const PbBatch *dst, PbUnpackJob *jobs, int cap, PbPackCounts *tot)
{
	int			n = 0;

	tot->shapes = dst->nshapes;
	tot->rings = dst->nrings;
	tot->ipts = dst->nipts;
	tot->dpts = dst->ndpts;
	for (size_t at = 0; at < pk->len; n++)
	{
		PbUnpackJob *j = &jobs[n];

		if (n == cap || PbPackReadHeader(pk->buf + at, pk->len - at, &j->counts) != 0)
			return -1;
		j->chunk = pk->buf + at;
		j->shape0 = tot->shapes;
		j->ring0 = tot->rings;
		j->ipt0 = tot->ipts;
		j->dpt0 = tot->dpts;
		tot->shapes += j->counts.shapes;
		tot->rings += j->counts.rings;
		tot->ipts += j->counts.ipts;
		tot->dpts += j->counts.dpts;
		at += PB_PACK_HEADER_BYTES + j->counts.body;
	}
	return n;
}

/* Unpack a whole stream after dst's shapes on threads threads; 0 or -1. */
static int
UnpackAfter(const PbPacker *pk, PbBatch *dst, uint8_t *tag, int threads)
{
	PbUnpackJob jobs[1024];
	PbPackCounts tot;
	PbRun		run = {threads, 0, NULL, NULL};
	int			n = Jobs(pk, dst, jobs, 1024, &tot);

	if (n < 0)
		return -1;
	PbBatchReserve(dst, tot.shapes, tot.rings, tot.ipts, tot.dpts);
	if (PbUnpackJobs(jobs, (uint32_t) n, dst, PACK_SRID, tag, &run) != PB_OK)
		return -1;
	dst->nshapes = tot.shapes;
	dst->nrings = tot.rings;
	dst->nipts = tot.ipts;
	dst->ndpts = tot.dpts;
	return 0;
}

/* Packed and unpacked (after other shapes, any chunking, any threads) = the original. */
void
test_pack_round_trip(void)
{
	static const uint32_t chunks[] = {1, 3, 64, 4096};
	Rng			r = {0x5eed1234};
	PbBatch		src;
	uint8_t    *tag;
	char		why[256];

	PbBatchInit(&src, &PbMallocAllocator);
	MixedBatch(&src, &r, 700);
	tag = malloc(src.nshapes);
	for (uint32_t i = 0; i < src.nshapes; i++)
		tag[i] = (uint8_t) RngRange(&r, 0, 1);
	for (int c = 0; c < 4; c++)
		for (int threads = 1; threads <= 4; threads++)
		{
			PbPacker	pk;
			PbBatch		dst;
			uint8_t    *got = malloc(src.nshapes + 8);
			uint32_t	pre;

			pb_test_context("chunk %u, threads %d", chunks[c], threads);
			PackAll(&pk, &src, tag, chunks[c]);
			PbBatchInit(&dst, &PbMallocAllocator);
			/* shapes of both kinds already there: every offset must shift */
			DecodeWkt(&dst, "POLYGON((0 0,4 0,4 4,0 4,0 0))", 0);
			DecodeWkt(&dst, "POLYGON((0 0,3.5 0,3.5 2,0 2,0 0))", 0);
			pre = dst.nshapes;
			CHECK_INT(UnpackAfter(&pk, &dst, got, threads), 0);
			CHECK_INT(dst.nshapes, pre + src.nshapes);
			CHECK_INT(dst.nipts, src.nipts + 5);
			CHECK_INT(dst.ndpts, src.ndpts + 5);
			for (uint32_t i = 0; i < src.nshapes && i + pre < dst.nshapes; i++)
			{
				if (!SameShape(&dst, pre + i, &src, i, 1, why, sizeof(why)))
					pb_check_fail(__FILE__, __LINE__, "shape %u: %s", i, why);
				CHECK_INT(got[pre + i], tag[i]);
			}
			PbPackerFree(&pk);
			PbBatchFree(&dst);
			free(got);
		}
	free(tag);
	PbBatchFree(&src);
}

/* A poll that asks to stop from its arg-th call on (counts its calls). */
static int
StopFromCall(void *arg)
{
	int		   *left = arg;

	return --(*left) < 0;
}

/*
 * The unpacking threads ask the poll between chunks: a stop ends the
 * unpack with PB_ERR_STOPPED, before every chunk is done (a cancel during
 * pb_compare_sets's merge of parallel workers' chunks is seen in time).
 */
void
test_pack_unpack_stops(void)
{
	Rng			r = {0x57095};
	PbBatch		src;
	uint8_t    *tag;

	PbBatchInit(&src, &PbMallocAllocator);
	MixedBatch(&src, &r, 400);
	tag = calloc(src.nshapes, 1);
	/* only the calling thread polls: with helpers, stop at its first poll */
	for (int threads = 1; threads <= 3; threads++)
		for (int after = 0; after <= (threads == 1 ? 2 : 0); after++)
		{
			PbPacker	pk;
			PbBatch		dst;
			PbUnpackJob jobs[1024];
			PbPackCounts tot;
			uint8_t    *got = malloc(src.nshapes);
			int			left = after;
			PbRun		run = {threads, 0, StopFromCall, &left};
			int			n;

			pb_test_context("threads %d, stop after %d polls", threads, after);
			PackAll(&pk, &src, tag, 1);
			PbBatchInit(&dst, &PbMallocAllocator);
			n = Jobs(&pk, &dst, jobs, 1024, &tot);
			CHECK(n > 8);
			PbBatchReserve(&dst, tot.shapes, tot.rings, tot.ipts, tot.dpts);
			CHECK_INT(PbUnpackJobs(jobs, (uint32_t) n, &dst, PACK_SRID, got, &run), PB_ERR_STOPPED);
			left = 1 << 30;
			CHECK_INT(PbUnpackJobs(jobs, (uint32_t) n, &dst, PACK_SRID, got, &run), PB_OK);
			PbPackerFree(&pk);
			PbBatchFree(&dst);
			free(got);
		}
	free(tag);
	PbBatchFree(&src);
}

/*
 * Outlines with short edges take about one byte a vertex, plus a few
 * bytes a shape (its area, the first point, the counts).
 */
void
test_pack_compact(void)
{
	Rng			r = {77};
	PbBatch		b;
	PbPacker	pk;
	uint8_t    *tag;
	int64_t		xs[65],
				ys[65];

	for (int i = 0; i < 65; i++)
	{
		xs[i] = 50000 + i;
		ys[i] = 80000 + i;
	}
	PbBatchInit(&b, &PbMallocAllocator);
	for (int i = 0; i < 200; i++)
	{
		Mask		m = MaskNew(24, 24);
		TGeom	   *g;
		uint32_t	shape;
		PbError		err;

		MaskRects(&m, &r, 6);
		g = MaskTrace(&m, xs, ys, &r, 0);
		MaskFree(&m);
		CHECK_INT(DecodeTg(&b, g, 0, &shape, &err), PB_OK);
		TgFree(g);
	}
	tag = calloc(b.nshapes, 1);
	PackAll(&pk, &b, tag, 4096);
	pb_test_note("packed %zu bytes for %u points (%.2f bytes each), batch %zu",
				 pk.len, b.nipts, (double) pk.len / b.nipts, PbBatchBytes(&b));
	CHECK(pk.len < (size_t) b.nipts * 5 / 4 + (size_t) b.nshapes * 20);
	PbPackerFree(&pk);
	PbBatchFree(&b);
	free(tag);
}

/* Unpack one chunk whose body is body[0 .. len) (header made to match). */
static int
UnpackBody(const uint8_t *body, size_t len, PbPackCounts c, PbBatch *dst, uint8_t *tag)
{
	uint8_t    *chunk = malloc(PB_PACK_HEADER_BYTES + len + 1);
	uint32_t	w[4] = {c.shapes, c.rings, c.ipts, c.dpts};
	PbUnpackJob job;
	int			rc;

	memset(&job, 0, sizeof(job));
	job.chunk = chunk;
	c.body = len;
	memcpy(chunk, w, sizeof(w));
	memcpy(chunk + sizeof(w), &c.body, sizeof(c.body));
	memcpy(chunk + PB_PACK_HEADER_BYTES, body, len);
	job.counts = c;
	PbBatchReset(dst);
	PbBatchReserve(dst, c.shapes, c.rings, c.ipts, c.dpts);
	rc = PbUnpackChunk(&job, dst, PACK_SRID, tag);
	free(chunk);
	return rc;
}

/* Truncated, flipped, miscounted and hand-made bad chunks are refused. */
void
test_pack_malformed(void)
{
	Rng			r = {99};
	PbBatch		src,
				dst;
	PbPacker	pk;
	PbPackCounts c;
	uint8_t    *tag,
			   *body;
	size_t		len;
	int			refused = 0;

	PbBatchInit(&src, &PbMallocAllocator);
	PbBatchInit(&dst, &PbMallocAllocator);
	MixedBatch(&src, &r, 40);
	tag = calloc(src.nshapes + 1, 1);
	PackAll(&pk, &src, tag, 100000);
	CHECK_INT(PbPackReadHeader(pk.buf, pk.len, &c), 0);
	body = pk.buf + PB_PACK_HEADER_BYTES;
	len = (size_t) c.body;
	CHECK_INT(UnpackBody(body, len, c, &dst, tag), 0);

	/* the stream's own header must fit the stream */
	CHECK_INT(PbPackReadHeader(pk.buf, PB_PACK_HEADER_BYTES - 1, &c), -1);
	CHECK_INT(PbPackReadHeader(pk.buf, pk.len - 1, &c), -1);
	CHECK_INT(PbPackReadHeader(pk.buf, pk.len, &c), 0);

	/* every truncation of the body, and every count off by one */
	for (size_t cut = 0; cut < len; cut++)
		CHECK_INT(UnpackBody(body, cut, c, &dst, tag), -1);
	for (int k = 0; k < 4; k++)
	{
		PbPackCounts m = c;
		uint32_t   *f = k == 0 ? &m.shapes : k == 1 ? &m.rings : k == 2 ? &m.ipts : &m.dpts;

		(*f)++;
		CHECK_INT(UnpackBody(body, len, m, &dst, tag), -1);
		*f -= 2;
		CHECK_INT(UnpackBody(body, len, m, &dst, tag), -1);
	}
	/* random byte flips: refused or unpacked, never a read outside (ASan) */
	for (int i = 0; i < 3000; i++)
	{
		uint8_t    *copy = malloc(len);
		size_t		at = (size_t) RngRange(&r, 0, (int64_t) len - 1);

		memcpy(copy, body, len);
		copy[at] ^= (uint8_t) RngRange(&r, 1, 255);
		refused += UnpackBody(copy, len, c, &dst, tag) != 0;
		free(copy);
	}
	pb_test_note("%d of 3000 flipped chunks refused", refused);
	CHECK(refused > 1000);

	/* hand-made records: kind 3, an empty shape with rings, a ring of no points */
	{
		const uint8_t kind3[] = {3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};
		const uint8_t empty_ring[] = {0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0};
		const uint8_t no_points[] = {1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
		PbPackCounts one = {.shapes = 1};
		PbPackCounts ring = {.shapes = 1, .rings = 1};

		CHECK_INT(UnpackBody(kind3, sizeof(kind3), one, &dst, tag), -1);
		CHECK_INT(UnpackBody(empty_ring, sizeof(empty_ring), ring, &dst, tag), -1);
		CHECK_INT(UnpackBody(no_points, sizeof(no_points), ring, &dst, tag), -1);
	}
	/* an int ring past +-2^30, and one whose closing edge is diagonal */
	{
		/* flags 1, type 3, 1 ring, area 0, 3 points: start (2^30 + 1, 0) */
		uint8_t		far[32] = {1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2};
		uint8_t    *p = far + 12;
		uint64_t	zx = (uint64_t) (PB_INT_LIMIT + 1) * 2;
		PbPackCounts ring = {.shapes = 1, .rings = 1, .ipts = 2};

		while (zx >= 0x80)
		{
			*p++ = (uint8_t) (zx | 0x80);
			zx >>= 7;
		}
		*p++ = (uint8_t) zx;
		*p++ = 0;				/* y delta 0 */
		*p++ = 0;				/* second point: x moves by 0 */
		CHECK_INT(UnpackBody(far, (size_t) (p - far), ring, &dst, tag), -1);
	}
	{
		/*
		 * rings that leave the +-2^30 limit and come back to where they
		 * started: by 2^31 and back, and by eight moves of 2^61 (2^64 in all,
		 * which wraps around to the start in 64-bit sums)
		 */
		const int64_t out_and_back[] = {(int64_t) 1 << 31, -((int64_t) 1 << 31)};
		const int64_t wrap[8] = {(int64_t) 1 << 61, (int64_t) 1 << 61, (int64_t) 1 << 61,
			(int64_t) 1 << 61, (int64_t) 1 << 61, (int64_t) 1 << 61, (int64_t) 1 << 61,
		(int64_t) 1 << 61};

		for (int k = 0; k < 2; k++)
		{
			const int64_t *moves = k == 0 ? out_and_back : wrap;
			uint32_t	nmoves = k == 0 ? 2 : 8;
			uint8_t		rec[128] = {1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, (uint8_t) (nmoves + 1), 0, 0};
			uint8_t    *p = rec + 14;
			PbPackCounts ring = {.shapes = 1, .rings = 1, .ipts = nmoves + 1};

			for (uint32_t m = 0; m < nmoves; m++)
			{
				uint64_t	z = ((uint64_t) moves[m] << 1) ^ (uint64_t) (moves[m] >> 63);
				uint64_t	v = z << 1; /* along x */

				while (v >= 0x80)
				{
					*p++ = (uint8_t) (v | 0x80);
					v >>= 7;
				}
				*p++ = (uint8_t) v;
			}
			pb_test_context("ring %d out of range and back", k);
			CHECK_INT(UnpackBody(rec, (size_t) (p - rec), ring, &dst, tag), -1);
		}
		pb_test_context("%s", "");
	}
	{
		/* points (0,0), (4,0), (4,4): the closing edge (4,4)-(0,0) is diagonal */
		const uint8_t diag[] = {1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 8 << 1, (8 << 1) | 1};
		PbPackCounts ring = {.shapes = 1, .rings = 1, .ipts = 3};

		CHECK_INT(UnpackBody(diag, sizeof(diag), ring, &dst, tag), -1);
	}
	PbPackerFree(&pk);
	PbBatchFree(&src);
	PbBatchFree(&dst);
	free(tag);
}
