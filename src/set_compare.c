/*
 * set_compare.c: pb_compare_sets(geom, in_a), the cross-comparison of two
 * polygon sets in one scan, without a PostgreSQL join.
 *
 * Rows are decoded into one batch, each shape tagged with its set.  With
 * parallel workers, each of them (and the leader, when it scans too)
 * decodes its rows and packs them (shape_pack.h, a quarter of the batch's
 * bytes); workers hand theirs to the leader in the query's shared memory
 * (parallel_handoff.c) or else through the tuple queue.  The leader
 * unpacks all the packed rows at the end, on threads.  Then the sets are
 * cut into grid tiles and the SCCG pipeline (pipeline_run.c) pairs every
 * tile's polygons whose float4 boxes meet, exactly the pairs PostGIS's &&
 * gives the Fig. 1(b) query, and computes them on CPU threads and the GPU.
 * Besides the pb_cross_compare figures it counts, per set, the polygons
 * that intersect nothing in the other.  pb_match_stats (match_stats.c)
 * keeps its polygons in the same state, through the same functions, with
 * its IoU threshold.
 */
#include "postgres.h"

#include <math.h>
#include <time.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"

#include "core/geom/pb_geom.h"
#include "core/sccg/pb_sccg.h"
#include "parallel_handoff.h"
#include "pixelbox.h"

#define PB_SETS_FORMAT 4		/* version byte of serialized states */
#define SETS_CHUNK_SHAPES 4096	/* shapes per packed chunk (a thread's job) */
#define UNPACK_SLICE 8			/* chunks per thread unpacked between progress reports */

/* Packed chunks (src/core/shape_pack.h): a worker's rows, or the ones sent by one. */
typedef struct SetsPart
{
	uint8	   *data;
	size_t		len;
	bool		in_row;			/* data lies in the input row: the combine
								 * copies it before the next row comes */
	dsa_area   *area;			/* in the query's shared memory (there until
								 * the query ends): its area, to free it */
	dsa_pointer shared;
	uint32		chunks;			/* deserialized: the chunks it holds */
} SetsPart;

/* Transition state of pb_compare_sets (and the sets of pb_compare_files). */
struct SetsState
{
	PbAllocator mem;			/* palloc in the aggregate's context */
	PbBatch		batch;			/* the polygons decoded here, of both sets */
	uint8	   *in_a;			/* per shape: 1 in set a, 0 in set b */
	uint32		cap_in_a;
	int32		srid;
	bool		has_srid;
	double		threshold;		/* pb_match_stats' IoU threshold, when set */
	bool		has_threshold;
	SetsPart   *parts;			/* workers' polygons, still packed */
	uint32		nparts,
				cap_parts;
	PbPacker	pack;			/* in a parallel worker: its rows, packed */
	PbHandoffRef *refs;			/* in a worker: its chunks in shared memory */
	uint32		nrefs,
				cap_refs;
	PbBatch		scratch;		/* in a parallel worker: the row being packed */
	uint32		merged_chunks;	/* chunks unpacked at the end, and their time */
	double		merge_s;
	uint32		shared_chunks;	/* chunks combined from shared memory */
	uint32		inline_chunks;	/* and from serialized states themselves */
};

/* Make an empty set pair allocating in cxt (an aggregate state, or a call's). */
SetsState *
PbSetsCreate(MemoryContext aggcxt)
{
	SetsState  *s = MemoryContextAllocZero(aggcxt, sizeof(SetsState));

	PbPgAllocatorInit(&s->mem, aggcxt);
	PbBatchInit(&s->batch, &s->mem);
	PbBatchInit(&s->scratch, &s->mem);
	PbPackerInit(&s->pack, &s->mem, SETS_CHUNK_SHAPES);
	return s;
}

/* Record the set of the newest shape, growing the tag array. */
static void
SetsTag(SetsState *s, uint32 shape, bool in_a)
{
	if (shape >= s->cap_in_a)
	{
		uint32		cap = Max(1024, s->cap_in_a * 2);

		while (cap <= shape)
			cap *= 2;
		s->in_a = s->in_a ? repalloc_huge(s->in_a, cap)
			: MemoryContextAllocHuge((MemoryContext) s->mem.ctx, cap);
		s->cap_in_a = cap;
	}
	s->in_a[shape] = in_a ? 1 : 0;
}

/* Keep a packed part until it is unpacked. */
static void
SetsAddPart(SetsState *s, SetsPart part)
{
	if (s->nparts == s->cap_parts)
	{
		s->cap_parts = Max(8, s->cap_parts * 2);
		s->parts = s->parts ? repalloc(s->parts, sizeof(SetsPart) * s->cap_parts)
			: MemoryContextAlloc((MemoryContext) s->mem.ctx, sizeof(SetsPart) * s->cap_parts);
	}
	s->parts[s->nparts++] = part;
}

/* Make the rows this state packed one of its parts (nothing if none). */
static void
SetsFlushPack(SetsState *s)
{
	SetsPart	part;

	PbPackerClose(&s->pack);
	if (s->pack.len == 0)
		return;
	memset(&part, 0, sizeof(part));
	part.data = s->pack.buf;
	part.len = s->pack.len;
	SetsAddPart(s, part);
	PbPackerInit(&s->pack, &s->mem, SETS_CHUNK_SHAPES);
}

/* The batch polygons are decoded into (then given to PbSetsAdd). */
PbBatch *
PbSetsBatch(SetsState *s)
{
	return &s->batch;
}

/* Put the batch's shape into set a (in_a) or b, checking its SRID. */
void
PbSetsAdd(SetsState *s, uint32 shape, bool in_a, const char *caller)
{
	PbCheckSetSrid(&s->srid, &s->has_srid, s->batch.shapes[shape].srid, caller);
	SetsTag(s, shape, in_a);
}

/* Bytes of packed polygons copied between two interrupt checks. */
#define SETS_COPY_SLICE ((size_t) 16 << 20)

/*
 * memcpy of a partial state's packed polygons (hundreds of MB at the end
 * of a parallel scan) in slices, seeing a cancel between them.
 */
static void
CopyPacked(void *dst, const void *src, size_t len)
{
	for (size_t at = 0; at < len; at += SETS_COPY_SLICE)
	{
		CHECK_FOR_INTERRUPTS();
		memcpy((char *) dst + at, (const char *) src + at, Min(SETS_COPY_SLICE, len - at));
	}
}

/*
 * In a parallel worker, move the packer's closed chunks into the query's
 * shared memory (parallel_handoff.c) as they fill, so that the handing
 * off is spread over the scan instead of all workers allocating at its
 * end; left in the packer (for the tuple queue) when it cannot.
 */
static void
SetsHandOff(FunctionCallInfo fcinfo, SetsState *s)
{
	PbHandoffRef ref;
	void	   *dst;

	if (s->pack.len == 0 ||
		(dst = PbHandoffAlloc(fcinfo, s->pack.len, &ref)) == NULL)
		return;
	memcpy(dst, s->pack.buf, s->pack.len);
	PbPackerDrop(&s->pack);
	if (s->nrefs == s->cap_refs)
	{
		s->cap_refs = Max(16, s->cap_refs * 2);
		s->refs = s->refs ? repalloc(s->refs, sizeof(PbHandoffRef) * s->cap_refs)
			: MemoryContextAlloc((MemoryContext) s->mem.ctx, sizeof(PbHandoffRef) * s->cap_refs);
	}
	s->refs[s->nrefs++] = ref;
}

/*
 * Whether this call's state is a partial one that will be serialized: in
 * a parallel worker, or in the leader taking part in a parallel scan.
 */
static bool
SetsPartial(FunctionCallInfo fcinfo)
{
	AggState   *agg = (AggState *) fcinfo->context;

	return agg != NULL && IsA(agg, AggState) && DO_AGGSPLIT_SERIALIZE(agg->aggsplit);
}

/*
 * Decode one row (geometry argument 1, set argument 2) into the state
 * (argument 0, made when NULL), which it returns; NULL geometry or NULL
 * set skips the row.  A partial state (parallel worker, or the leader
 * scanning beside them) packs each row at once (shape_pack.h), about a
 * quarter of a batch's bytes: packing as it scans lets the parallel scan
 * balance that work too, instead of the leader packing all its rows at
 * the end.  A worker moves every full chunk into the query's shared
 * memory (SetsHandOff).
 */
SetsState *
PbSetsTransition(FunctionCallInfo fcinfo, const char *caller)
{
	MemoryContext aggcxt;
	SetsState  *s;
	uint32		shape;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s transition function called in non-aggregate context", caller);
	if (PG_ARGISNULL(0))
	{
		PbRejectCoordinatorPull(fcinfo, caller);
		s = PbSetsCreate(aggcxt);
	}
	else
		s = (SetsState *) PG_GETARG_POINTER(0);
	PbProgressRow(caller, aggcxt);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		return s;
	if (SetsPartial(fcinfo))
	{
		PbBatchReset(&s->scratch);
		shape = PbDecodeGeometryArg(fcinfo, 1, &s->scratch, caller);
		PbCheckSetSrid(&s->srid, &s->has_srid, s->scratch.shapes[shape].srid, caller);
		PbPackerAdd(&s->pack, &s->scratch, shape, PG_GETARG_BOOL(2));
		if (!s->pack.open)
			SetsHandOff(fcinfo, s);
		return s;
	}
	shape = PbDecodeGeometryArg(fcinfo, 1, &s->batch, caller);
	PbSetsAdd(s, shape, PG_GETARG_BOOL(2), caller);
	return s;
}

PG_FUNCTION_INFO_V1(pb_compare_sets_transfn);
/* Decode one row into the state (PbSetsTransition). */
Datum
pb_compare_sets_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(PbSetsTransition(fcinfo, "pb_compare_sets"));
}

/*
 * Give the state its IoU threshold (pb_match_stats), which must be the
 * same in every row of a group.
 */
void
PbSetsSetThreshold(SetsState *s, double threshold, const char *caller)
{
	if (s->has_threshold && s->threshold != threshold)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the IoU threshold must be the same in every row of a group (%g and %g)",
						caller, s->threshold, threshold)));
	s->threshold = threshold;
	s->has_threshold = true;
}

/* The state's IoU threshold, when it has one. */
bool
PbSetsThreshold(const SetsState *s, double *threshold)
{
	*threshold = s->threshold;
	return s->has_threshold;
}

/* Per shape of the batch: 1 in set a, 0 in set b (after PbSetsPairs). */
const uint8 *
PbSetsInA(const SetsState *s)
{
	return s->in_a;
}

/*
 * Append the shapes of src (with their set tags) and its packed parts to
 * dst, and its SRID and threshold, which must agree with dst's.
 */
static void
SetsAppend(SetsState *dst, SetsState *src, const char *caller)
{
	const PbBatch *b = &src->batch;
	PbBatch    *d = &dst->batch;
	uint32		base = d->nshapes;

	if (src->has_srid)
		PbCheckSetSrid(&dst->srid, &dst->has_srid, src->srid, caller);
	if (src->has_threshold)
		PbSetsSetThreshold(dst, src->threshold, caller);
	PbBatchAppend(d, b);
	for (uint32 i = 0; i < b->nshapes; i++)
		SetsTag(dst, base + i, src->in_a[i]);
	SetsFlushPack(src);
	for (uint32 i = 0; i < src->nparts; i++)
		SetsAddPart(dst, src->parts[i]);
	src->nparts = 0;
}

/*
 * Keep the packed parts s took from a deserialized state: the ones in the
 * input row are copied (the row goes before the next comes), the ones in
 * shared memory stay there until the final function unpacks them all.
 */
static void
SetsKeepParts(SetsState *s, uint32 from)
{
	for (uint32 i = from; i < s->nparts; i++)
	{
		SetsPart   *part = &s->parts[i];

		if (part->area != NULL)
			s->shared_chunks += part->chunks;
		else if (part->in_row)
		{
			uint8	   *copy = MemoryContextAllocHuge((MemoryContext) s->mem.ctx, part->len);

			CopyPacked(copy, part->data, part->len);
			part->data = copy;
			part->in_row = false;
			s->inline_chunks += part->chunks;
		}
	}
}

/*
 * Merge two partial states (arguments 0 and 1) into the first, returned
 * (NULL when both are).  A worker's packed polygons stay packed (in
 * shared memory, or copied from its row) until the final function unpacks
 * every worker's at once, on threads, into a batch sized for them all.
 */
SetsState *
PbSetsCombine(FunctionCallInfo fcinfo, const char *caller)
{
	MemoryContext aggcxt;
	SetsState  *s1 = PG_ARGISNULL(0) ? NULL : (SetsState *) PG_GETARG_POINTER(0);
	SetsState  *s2 = PG_ARGISNULL(1) ? NULL : (SetsState *) PG_GETARG_POINTER(1);
	uint32		from;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s combine function called in non-aggregate context", caller);
	if (s2 == NULL)
		return s1;
	if (s1 == NULL)
		s1 = PbSetsCreate(aggcxt);
	from = s1->nparts;
	SetsAppend(s1, s2, caller);
	SetsKeepParts(s1, from);
	return s1;
}

PG_FUNCTION_INFO_V1(pb_compare_sets_combinefn);
/* Merge two partial states (PbSetsCombine). */
Datum
pb_compare_sets_combinefn(PG_FUNCTION_ARGS)
{
	SetsState  *s = PbSetsCombine(fcinfo, "pb_compare_sets");

	if (s == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(s);
}

/*
 * Bytes of the serialized state's header: format, SRID, has_srid,
 * threshold, has_threshold, refs.
 */
#define SETS_HEADER (1 + sizeof(int32) + 1 + sizeof(double) + 1 + sizeof(uint32))

/*
 * Serialize a partial state (argument 0; worker to leader): where its
 * chunks in shared memory are, then the rest inline: the rows it packed,
 * its decoded shapes packed now, and its packed parts as they are.  A
 * worker moves that rest to shared memory too when it can, leaving only
 * references to go through the tuple queue.
 */
bytea *
PbSetsSerialize(FunctionCallInfo fcinfo, const char *caller)
{
	SetsState  *s = (SetsState *) PG_GETARG_POINTER(0);
	PbPacker	more;
	size_t		size;
	bytea	   *out;
	char	   *p;

	PbPackerClose(&s->pack);
	PbPackerInit(&more, &s->mem, SETS_CHUNK_SHAPES);
	for (uint32 i = 0; i < s->batch.nshapes; i++)
		PbPackerAdd(&more, &s->batch, i, s->in_a[i]);
	PbPackerClose(&more);
	SetsHandOff(fcinfo, s);
	size = s->pack.len + more.len;
	for (uint32 i = 0; i < s->nparts; i++)
		size += s->parts[i].len;
	if (size > MaxAllocSize - VARHDRSZ - SETS_HEADER - (size_t) s->nrefs * PB_HANDOFF_REF_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: a parallel worker's polygons take %zu bytes packed, more than the 1 GB a partial state may hold",
						caller, size),
				 errhint("Use more parallel workers (max_parallel_workers_per_gather), or none.")));
	size += SETS_HEADER + (size_t) s->nrefs * PB_HANDOFF_REF_BYTES;
	out = (bytea *) palloc(VARHDRSZ + size);
	SET_VARSIZE(out, VARHDRSZ + size);
	p = VARDATA(out);
	*p++ = PB_SETS_FORMAT;
	memcpy(p, &s->srid, sizeof(int32));
	p += sizeof(int32);
	*p++ = s->has_srid;
	memcpy(p, &s->threshold, sizeof(double));
	p += sizeof(double);
	*p++ = s->has_threshold;
	memcpy(p, &s->nrefs, sizeof(uint32));
	p += sizeof(uint32);
	for (uint32 i = 0; i < s->nrefs; i++)
	{
		memcpy(p, &s->refs[i].segment, 4);
		memcpy(p + 4, &s->refs[i].pointer, 8);
		memcpy(p + 12, &s->refs[i].len, 8);
		p += PB_HANDOFF_REF_BYTES;
	}
	CopyPacked(p, s->pack.buf, s->pack.len);
	p += s->pack.len;
	CopyPacked(p, more.buf, more.len);
	p += more.len;
	for (uint32 i = 0; i < s->nparts; i++)
	{
		CopyPacked(p, s->parts[i].data, s->parts[i].len);
		p += s->parts[i].len;
	}
	PbPackerFree(&more);
	return out;
}

PG_FUNCTION_INFO_V1(pb_compare_sets_serialfn);
/* Serialize a partial state (PbSetsSerialize). */
Datum
pb_compare_sets_serialfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(PbSetsSerialize(fcinfo, "pb_compare_sets"));
}

/* The error of a serialized state that is not one of ours. */
static void
BadState(const char *caller)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("%s: invalid serialized aggregate state", caller)));
}

/* Check that part holds whole chunks, and count them (bodies are checked later). */
static void
CheckChunks(SetsPart *part, const char *caller)
{
	for (size_t at = 0; at < part->len; part->chunks++)
	{
		PbPackCounts c;

		if (PbPackReadHeader(part->data + at, part->len - at, &c) != 0)
			BadState(caller);
		at += PB_PACK_HEADER_BYTES + c.body;
	}
}

/*
 * Rebuild a state from PbSetsSerialize's bytes (argument 0): its chunks
 * stay packed where they are, in shared memory or in the input row, for
 * the combine function that comes next to keep.  Chunk headers are
 * checked here, bodies when unpacked.
 */
SetsState *
PbSetsDeserialize(FunctionCallInfo fcinfo, const char *caller)
{
	MemoryContext aggcxt;
	bytea	   *in = PG_GETARG_BYTEA_P(0);
	const uint8 *p = (const uint8 *) VARDATA(in);
	size_t		len = VARSIZE(in) - VARHDRSZ;
	SetsState  *s;
	SetsPart	part;
	uint32		nrefs;
	size_t		at = SETS_HEADER;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s deserialization function called in non-aggregate context", caller);
	if (len < SETS_HEADER || p[0] != PB_SETS_FORMAT)
		BadState(caller);
	memcpy(&nrefs, p + SETS_HEADER - sizeof(uint32), sizeof(uint32));
	if (nrefs > (len - SETS_HEADER) / PB_HANDOFF_REF_BYTES)
		BadState(caller);
	s = PbSetsCreate(aggcxt);
	memcpy(&s->srid, p + 1, sizeof(int32));
	s->has_srid = p[1 + sizeof(int32)] != 0;
	memcpy(&s->threshold, p + 2 + sizeof(int32), sizeof(double));
	s->has_threshold = p[2 + sizeof(int32) + sizeof(double)] != 0;
	for (uint32 i = 0; i < nrefs; i++, at += PB_HANDOFF_REF_BYTES)
	{
		PbHandoffRef ref;

		memset(&part, 0, sizeof(part));
		memcpy(&ref.segment, p + at, 4);
		memcpy(&ref.pointer, p + at + 4, 8);
		memcpy(&ref.len, p + at + 12, 8);
		part.data = PbHandoffFind(fcinfo, &ref, &part.area);
		part.shared = (dsa_pointer) ref.pointer;
		part.len = ref.len;
		CheckChunks(&part, caller);
		SetsAddPart(s, part);
	}
	if (at < len)
	{
		memset(&part, 0, sizeof(part));
		part.data = (uint8 *) p + at;
		part.len = len - at;
		part.in_row = true;
		CheckChunks(&part, caller);
		SetsAddPart(s, part);
	}
	return s;
}

PG_FUNCTION_INFO_V1(pb_compare_sets_deserialfn);
/* Rebuild a partial state (PbSetsDeserialize). */
Datum
pb_compare_sets_deserialfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(PbSetsDeserialize(fcinfo, "pb_compare_sets"));
}

/* Seconds on a monotonic clock (the report's merge and tiling times). */
static double
NowSeconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Unpack the state's packed parts into its batch, after the shapes it
 * decoded itself: offsets from the chunk headers, then every chunk on its
 * own thread, a slice of them at a time so that the progress is reported
 * between slices (chunks are alike: slicing costs little balance).
 */
static void
SetsUnpackParts(SetsState *s, const char *caller)
{
	PbBatch    *b = &s->batch;
	PbUnpackJob *jobs;
	uint32		njobs = 0,
				cap = 64;
	double		t0;
	PbRun		run;
	PbStatus	st = PB_OK;
	uint32		slice;
	uint64		shapes = b->nshapes,
				rings = b->nrings,
				ipts = b->nipts,
				dpts = b->ndpts;

	SetsFlushPack(s);
	if (s->nparts == 0)
		return;
	jobs = palloc(sizeof(PbUnpackJob) * cap);
	for (uint32 i = 0; i < s->nparts; i++)
		for (size_t at = 0; at < s->parts[i].len;)
		{
			PbUnpackJob *j;

			if (njobs == cap)
			{
				cap *= 2;
				jobs = repalloc(jobs, sizeof(PbUnpackJob) * cap);
			}
			j = &jobs[njobs++];
			j->chunk = s->parts[i].data + at;
			if (PbPackReadHeader(j->chunk, s->parts[i].len - at, &j->counts) != 0)
				BadState(caller);
			j->shape0 = (uint32) shapes;
			j->ring0 = (uint32) rings;
			j->ipt0 = (uint32) ipts;
			j->dpt0 = (uint32) dpts;
			shapes += j->counts.shapes;
			rings += j->counts.rings;
			ipts += j->counts.ipts;
			dpts += j->counts.dpts;
			at += PB_PACK_HEADER_BYTES + j->counts.body;
		}
	if (shapes >= UINT32_MAX || rings >= UINT32_MAX || ipts >= UINT32_MAX || dpts >= UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: more than 2^32 shapes, rings or points in one comparison", caller)));
	t0 = NowSeconds();
	PbBatchReserve(b, (uint32) shapes, (uint32) rings, (uint32) ipts, (uint32) dpts);
	PbBatchAdviseHuge(b);
	if (shapes > 0)
		SetsTag(s, (uint32) shapes - 1, false);
	run = PbCpuRun();
	slice = (uint32) run.threads * UNPACK_SLICE;
	PbProgressStart(caller, (MemoryContext) s->mem.ctx);
	PbProgressEnter(PB_PHASE_UNPACK, njobs);
	for (uint32 i = 0; i < njobs && st == PB_OK; i += slice)
	{
		uint32		k = Min(slice, njobs - i);

		st = PbUnpackJobs(jobs + i, k, b, s->srid, s->in_a, &run);
		PbProgressUpdate(i + k, njobs, 0);
		PbProgressNotice();
	}
	if (st == PB_ERR_STOPPED)
	{
		CHECK_FOR_INTERRUPTS();
		elog(ERROR, "%s: unpacking stopped without a cancel", caller);
	}
	if (st != PB_OK)
		BadState(caller);
	b->nshapes = (uint32) shapes;
	b->nrings = (uint32) rings;
	b->nipts = (uint32) ipts;
	b->ndpts = (uint32) dpts;
	for (uint32 i = 0; i < s->nparts; i++)
		if (s->parts[i].area != NULL)
			dsa_free(s->parts[i].area, s->parts[i].shared);
		else
			pfree(s->parts[i].data);
	s->nparts = 0;
	pfree(jobs);
	s->merged_chunks += njobs;
	s->merge_s += NowSeconds() - t0;
}

/* Grow box *b (empty: +inf mins, -inf maxes) to take in box c. */
static void
BoxGrow(PbBox *b, const PbBox *c)
{
	b->xmin = Min(b->xmin, c->xmin);
	b->ymin = Min(b->ymin, c->ymin);
	b->xmax = Max(b->xmax, c->xmax);
	b->ymax = Max(b->ymax, c->ymax);
}

/* Do closed boxes b and c share a point? */
static bool
BoxesMeet(const PbBox *b, const PbBox *c)
{
	return b->xmin <= c->xmax && c->xmin <= b->xmax && b->ymin <= c->ymax && c->ymin <= b->ymax;
}

/*
 * Warn when both sets have polygons but their extents do not meet: nothing
 * can match, and the usual cause is a convention, not the data.  When set
 * b mirrored in y (y -> -y) would meet set a, or a mirrored b, say so: a
 * label image loaded with ST_FromGDALRaster has scale (1, -1), so its
 * polygons' y runs up from 0 to -height while QuPath's, HoVer-Net's and
 * pixelbox's readers' run down.
 */
static void
WarnIfApart(const SetsState *s, const char *caller)
{
	PbBox		ext[2] = {{INFINITY, INFINITY, -INFINITY, -INFINITY},
						  {INFINITY, INFINITY, -INFINITY, -INFINITY}},
				flipped;

	for (uint32 i = 0; i < s->batch.nshapes; i++)
		if (s->batch.shapes[i].kind != PB_SHAPE_EMPTY)
			BoxGrow(&ext[s->in_a[i] ? 0 : 1], &s->batch.shapes[i].box);
	if (ext[0].xmin > ext[0].xmax || ext[1].xmin > ext[1].xmax || BoxesMeet(&ext[0], &ext[1]))
		return;
	flipped = ext[1];
	flipped.ymin = -ext[1].ymax;
	flipped.ymax = -ext[1].ymin;
	ereport(WARNING,
			(errmsg("%s: the two sets do not overlap: set a spans x %g..%g, y %g..%g; set b spans x %g..%g, y %g..%g",
					caller, ext[0].xmin, ext[0].xmax, ext[0].ymin, ext[0].ymax,
					ext[1].xmin, ext[1].xmax, ext[1].ymin, ext[1].ymax),
			 BoxesMeet(&ext[0], &flipped) ?
			 errhint("One set looks mirrored in y. A label image loaded with ST_FromGDALRaster has scale (1, -1), so its y runs up; "
					 "read it with pb_read_labels, or pb_labels_to_polygons(rast, space => 'pixel'), to get image coordinates (y down).") :
			 errhint("Check that both sets are in the same coordinate space (pixels of the same image, or the same world coordinates).")));
}

/*
 * Run the pipeline over the two sets cut into grid tiles: totals into acc,
 * matched[i] set for every shape intersecting the other set, and when
 * emit is given, every pair of positive area to it (after the run, on
 * this thread).  The run starts before the tiling, capped at the tiles
 * the grid can have, so that the GPU takes the merged points while the
 * shapes are tiled.  Tasks and the run live in the state's context,
 * whose reset stops the threads before any of that memory goes.
 */
static void
RunSets(SetsState *s, PbCompareAcc *acc, uint8 *matched, PbSetsPairFn emit, void *ctx,
		const char *caller)
{
	PbTiling	tl;
	PbPipeRun	   *run;
	double		t0;

	WarnIfApart(s, caller);
	run = PbPipeRunStart((MemoryContext) s->mem.ctx, caller,
						 (int64) PbTileGridMaxTasks(s->batch.nshapes, (uint32) pb_tile_shapes),
						 &s->batch);
	t0 = NowSeconds();
	PbTileGrid(&tl, &s->batch, s->in_a, (uint32) pb_tile_shapes, &s->mem, PbCpuThreads());
	PbPipeRunAddTileTime(run, NowSeconds() - t0);
	PbPipeRunAddMerge(run, s->merged_chunks, s->merge_s, s->shared_chunks, s->inline_chunks);
	PbPipeRunExpect(run, tl.ntasks);
	for (uint32 k = 0; k < tl.ntasks; k++)
	{
		tl.tasks[k].keep_pairs = emit != NULL;
		PbPipeRunFeed(run, &tl.tasks[k]);
	}
	PbPipeRunFinish(run, acc);
	for (uint32 k = 0; k < tl.ntasks; k++)
	{
		const PbTask *t = &tl.tasks[k];

		for (uint32 i = 0; t->hit && i < t->na + t->nb; i++)
			if (t->hit[i])
				matched[t->src_ids[i]] = 1;
		for (uint32 i = 0; i < t->nkept; i++)
		{
			CHECK_FOR_INTERRUPTS();
			emit(ctx, t->src_ids[t->kept[i].a], t->src_ids[t->kept[i].b], t->kept[i].area);
		}
	}
	PbPipeRunEnd(run);
	PbTilingFree(&tl, &s->mem);
}

/*
 * The pb_set_comparison row of fcinfo's result type from the totals and
 * counts[] = {polygons a, polygons b, missed a, missed b}.
 */
Datum
PbSetsResultDatum(FunctionCallInfo fcinfo, const PbCompareAcc *acc, const int64 *counts,
				  const char *caller)
{
	PbCompareResult r;
	TupleDesc	tupdesc;
	Datum		values[11];
	bool		nulls[11] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s: return type must be a row type", caller);
	PbCompareResultOf(acc, &r);
	PbCompareResultDatums(&r, values, nulls);
	for (int i = 0; i < 4; i++)
		values[7 + i] = Int64GetDatum(counts[i]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * Pair the two sets (s may be NULL: no rows), compute every pair, and
 * return the pb_set_comparison row of fcinfo's result type.
 */
Datum
PbSetsResult(SetsState *s, FunctionCallInfo fcinfo, const char *caller)
{
	PbCompareAcc acc;
	int64		counts[4] = {0, 0, 0, 0};	/* polygons a, b, missed a, b */

	PbCompareInit(&acc);
	if (s != NULL)
	{
		uint32		n;
		uint8	   *matched;

		SetsUnpackParts(s, caller);
		n = s->batch.nshapes;
		matched = palloc_extended(n + 1, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		RunSets(s, &acc, matched, NULL, NULL, caller);
		for (uint32 i = 0; i < n; i++)
		{
			counts[s->in_a[i] ? 0 : 1]++;
			if (!matched[i])
				counts[s->in_a[i] ? 2 : 3]++;
		}
		pfree(matched);
	}
	return PbSetsResultDatum(fcinfo, &acc, counts, caller);
}

PG_FUNCTION_INFO_V1(pb_compare_sets_finalfn);
/* Pair the two sets, compute every pair, and return pb_set_comparison. */
Datum
pb_compare_sets_finalfn(PG_FUNCTION_ARGS)
{
	return PbSetsResult(PG_ARGISNULL(0) ? NULL : (SetsState *) PG_GETARG_POINTER(0), fcinfo,
						"pb_compare_sets");
}

/*
 * Pair the two sets through the pipeline and give emit every pair of
 * positive intersection area: (shape of set a, shape of set b, area), in
 * no particular order, each pair once.
 */
void
PbSetsPairs(SetsState *s, PbSetsPairFn emit, void *ctx, const char *caller)
{
	PbCompareAcc acc;
	uint8	   *matched;

	SetsUnpackParts(s, caller);
	if (s->batch.nshapes == 0)
	{
		PbProgressEnd();		/* no pipeline run to end the operation */
		return;
	}
	PbCompareInit(&acc);
	matched = palloc_extended(s->batch.nshapes + 1, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	RunSets(s, &acc, matched, emit, ctx, caller);
	pfree(matched);
}
