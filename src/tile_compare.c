/*
 * tile_compare.c: pb_compare_sets(geom, in_a, tile), the pipeline fed
 * while rows stream in.  As in the paper, tasks are image tiles: only
 * polygons of the same tile are compared (the Fig. 1(b) query with
 * AND a.tile = b.tile).
 *
 * Rows of one tile are decoded into that tile's batch.  When the tile key
 * changes, the finished tile becomes a task and goes to the pipeline at
 * once, so its threads filter and compute while the scan goes on: input
 * ordered (or clustered) by tile streams best.  A tile seen again later is
 * reopened: its new task holds all of its polygons (a copy of the earlier
 * batch plus the new rows) and skips the pairs the earlier task counted,
 * so any row order gives the same answer.  A reopened tile makes its next
 * task only once its polygons have doubled since its last one (else at
 * the final call), so that however rows interleave, a tile's copies and
 * tasks add up to a few times its polygons, not a copy per tile switch.
 *
 * One streaming run per backend at a time: other groups of a hashed
 * GROUP BY keep their tasks and run them at their final call.
 *
 * The state is a pb_set_comparison_state, an expanded object.  Flattened
 * (for Citus, which runs the aggregate on each worker's shards and ships
 * the states to the coordinator as text), it finishes its tiles and keeps
 * only their totals, polygon counts and the ranges of keys it compared;
 * the combine function adds two such states when no key is in both, and
 * raises otherwise, since then polygons of one key were never compared.
 * So partials are exact when the key is the tables' distribution column.
 * PostgreSQL's own parallel workers would split a key's rows, so the
 * aggregate is PARALLEL RESTRICTED: the scan under it may be parallel,
 * the aggregate runs in the leader.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/hsearch.h"

#include "core/geom/pb_geom.h"
#include "core/sccg/pb_sccg.h"
#include "agg_state.h"
#include "pixelbox.h"

/* One tile: its polygons so far (the newest batch holds them all). */
typedef struct TileEntry
{
	int64		key;
	PbBatch    *batch;
	uint32	   *gid;			/* per shape of batch: its number in the state */
	uint8	   *in_a;			/* per shape of batch */
	uint32		cap;
	uint32		na,
				nb;				/* of batch */
	uint32		sent_a,
				sent_b;			/* of those, already in a task */
	uint32		tasked;			/* shapes in the tile's last task; 0: none yet */
	bool		frozen;			/* batch is in a task: copy before adding */
} TileEntry;

/* Transition state, an expanded object. */
typedef struct TileSets
{
	PbAggStateHeader head;		/* first: the expanded pb_set_comparison_state */
	MemoryContext cxt;			/* the live tiles' memory, under the object's */
	PbAllocator mem;
	HTAB	   *tiles;			/* the live tiles; NULL: none */
	TileEntry  *open;			/* the tile rows go to now */
	PbPipeRun	   *run;			/* NULL until the streaming run starts */
	PbTask	  **tasks;			/* every task made */
	const uint32 **task_gid;	/* per task: shape numbers of its source batch */
	uint32		ntasks,
				cap_tasks,
				nfed;			/* of those, fed to run */
	uint8	   *in_a;			/* per shape number: its set */
	uint32		nshapes,
				cap_shapes;
	int32		srid;
	bool		has_srid;
	PbSetTotals done;			/* the finished tiles' totals and keys */
} TileSets;

static void FinishTiles(TileSets *s);
static void AddTotals(PbSetTotals *into, const PbSetTotals *t, MemoryContext cxt);

/* Whether a streaming run is active in this backend (one at a time). */
static const TileSets *streaming;

/* Memory context callback: the streaming slot is free again. */
static void
ReleaseStreaming(void *arg)
{
	if (streaming == arg)
		streaming = NULL;
}

/* Set up an empty state: no tiles yet. */
static void
StateInit(PbAggStateHeader *head, FunctionCallInfo fcinfo)
{
	PbCompareInit(&((TileSets *) head)->done.acc);
}

/* The flat form: the live tiles finished, their totals, counts and keys. */
static uint8 *
StateFlatten(PbAggStateHeader *head, Size *len)
{
	TileSets   *s = (TileSets *) head;
	uint8	   *flat;

	FinishTiles(s);
	flat = MemoryContextAlloc(head->eoh.eoh_context, PbSetStateFlatSize(s->done.nranges));
	*len = PbSetStateFlatten(&s->done, flat);
	return flat;
}

/* Read a flat state's totals, counts and keys into an empty state. */
static void
StateRead(PbAggStateHeader *head, const uint8 *flat, Size len)
{
	PbSetStateRead(flat, len, &((TileSets *) head)->done, head->eoh.eoh_context);
}

/* Finish both states' tiles and add from's totals to into's. */
static void
StateAdd(PbAggStateHeader *into, PbAggStateHeader *from)
{
	FinishTiles((TileSets *) into);
	FinishTiles((TileSets *) from);
	AddTotals(&((TileSets *) into)->done, &((TileSets *) from)->done, into->eoh.eoh_context);
}

static const PbAggStateKind TilesKind = {
	"pixelbox set comparison state", sizeof(TileSets),
	StateInit, StateFlatten, StateRead, StateAdd
};

/* Make room for live tiles: their context, allocator and table. */
static void
StartTiles(TileSets *s)
{
	HASHCTL		ctl;
	MemoryContextCallback *cb;

	s->cxt = AllocSetContextCreate(s->head.eoh.eoh_context, "pixelbox set comparison tiles",
								   ALLOCSET_DEFAULT_SIZES);
	cb = MemoryContextAlloc(s->cxt, sizeof(MemoryContextCallback));
	PbPgAllocatorInit(&s->mem, s->cxt);
	ctl.keysize = sizeof(int64);
	ctl.entrysize = sizeof(TileEntry);
	ctl.hcxt = s->cxt;
	s->tiles = hash_create("pb_compare_sets tiles", 256, &ctl,
						   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	cb->func = ReleaseStreaming;
	cb->arg = s;
	MemoryContextRegisterResetCallback(s->cxt, cb);
}

/* Grow a per-shape array of the tile to hold n shapes. */
static void
GrowTile(TileSets *s, TileEntry *e, uint32 n)
{
	uint32		cap = Max(64, e->cap);

	if (n <= e->cap)
		return;
	while (cap < n)
		cap *= 2;
	e->gid = e->gid ? repalloc_huge(e->gid, sizeof(uint32) * cap)
		: MemoryContextAllocHuge(s->cxt, sizeof(uint32) * cap);
	e->in_a = e->in_a ? repalloc_huge(e->in_a, cap) : MemoryContextAllocHuge(s->cxt, cap);
	e->cap = cap;
}

/*
 * Make e's batch writable: a tile already in a task gets a new batch, a
 * copy of the old one, so the task's shapes never move under the threads.
 */
static void
ThawTile(TileSets *s, TileEntry *e)
{
	PbBatch    *copy;
	uint32	   *gid;
	uint8	   *in_a;

	if (e->batch == NULL)
	{
		e->batch = MemoryContextAlloc(s->cxt, sizeof(PbBatch));
		PbBatchInit(e->batch, &s->mem);
		return;
	}
	if (!e->frozen)
		return;
	copy = MemoryContextAlloc(s->cxt, sizeof(PbBatch));
	PbBatchInit(copy, &s->mem);
	PbBatchAppend(copy, e->batch);
	gid = MemoryContextAllocHuge(s->cxt, sizeof(uint32) * Max(e->cap, 1));
	in_a = MemoryContextAllocHuge(s->cxt, Max(e->cap, 1));
	memcpy(gid, e->gid, sizeof(uint32) * e->batch->nshapes);
	memcpy(in_a, e->in_a, e->batch->nshapes);
	e->batch = copy;
	e->gid = gid;
	e->in_a = in_a;
	e->frozen = false;
}

/* Feed the tasks not yet fed (starting the run first if need be). */
static void
FeedPending(TileSets *s)
{
	if (s->run == NULL)
		s->run = PbPipeRunStart(s->cxt, "pb_compare_sets", -1, NULL);	/* tiles still coming */
	while (s->nfed < s->ntasks)
		PbPipeRunFeed(s->run, s->tasks[s->nfed++]);
}

/*
 * Keep a task (gid: shape numbers of its source batch) and give it to the
 * streaming run now, unless another state of this backend streams.
 */
static void
QueueTask(TileSets *s, PbTask *t, const uint32 *gid)
{
	if (s->ntasks == s->cap_tasks)
	{
		s->cap_tasks = Max(64, s->cap_tasks * 2);
		s->tasks = s->tasks ? repalloc_huge(s->tasks, sizeof(PbTask *) * s->cap_tasks)
			: MemoryContextAllocHuge(s->cxt, sizeof(PbTask *) * s->cap_tasks);
		s->task_gid = s->task_gid ? repalloc_huge(s->task_gid, sizeof(uint32 *) * s->cap_tasks)
			: MemoryContextAllocHuge(s->cxt, sizeof(uint32 *) * s->cap_tasks);
	}
	s->task_gid[s->ntasks] = gid;
	s->tasks[s->ntasks++] = t;
	if (streaming == NULL)
		streaming = s;
	if (streaming == s)
		FeedPending(s);
}

/*
 * The open tile is complete for now (final: for good): make its new
 * polygons a task, unless the tile already made one and has not doubled
 * since (not final), which bounds the copies a reopened tile makes.
 */
static void
CloseTile(TileSets *s, TileEntry *e, bool final)
{
	PbTask	   *t;
	uint32	   *ids;
	uint32		n = e->batch ? e->batch->nshapes : 0,
				k = 0;

	if (e->frozen || n == 0 || (e->na == e->sent_a && e->nb == e->sent_b))
		return;
	if (e->na == 0 || e->nb == 0)
	{
		/* no pair can form yet; the polygons stay for a later reopening */
		e->sent_a = e->na;
		e->sent_b = e->nb;
		return;
	}
	if (!final && e->tasked > 0 && n - e->tasked < e->tasked)
		return;
	t = MemoryContextAllocZero(s->cxt, sizeof(PbTask));
	ids = MemoryContextAllocHuge(s->cxt, sizeof(uint32) * n);
	for (int set = 1; set >= 0; set--)
		for (uint32 i = 0; i < n; i++)
			if (e->in_a[i] == set)
				ids[k++] = i;
	t->src = e->batch;
	t->src_ids = ids;
	t->na = e->na;
	t->nb = e->nb;
	t->old_a = e->sent_a;
	t->old_b = e->sent_b;
	t->ref = (PbBox) {-INFINITY, -INFINITY,
	INFINITY, INFINITY};
	t->all_int = 1;
	for (uint32 i = 0; i < n; i++)
		if (!PbDeviceShape(e->batch, &e->batch->shapes[i]))
			t->all_int = 0;
	e->sent_a = e->na;
	e->sent_b = e->nb;
	e->tasked = n;
	e->frozen = true;
	QueueTask(s, t, e->gid);
}

PG_FUNCTION_INFO_V1(pb_compare_tiles_transfn);
/* Decode one row into its tile; a change of tile sends the last one on. */
Datum
pb_compare_tiles_transfn(PG_FUNCTION_ARGS)
{
	TileSets   *s;
	TileEntry  *e;
	int64		key;
	bool		found;
	uint32		shape;
	bool		in_a;

	s = (TileSets *) PbAggStateTransition(fcinfo, &TilesKind, "pb_compare_tiles_transfn", NULL);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		PG_RETURN_DATUM(PbAggStateDatum(&s->head));
	if (s->tiles == NULL)
		StartTiles(s);
	key = PG_GETARG_INT64(3);
	in_a = PG_GETARG_BOOL(2);
	e = s->open;
	if (e == NULL || e->key != key)
	{
		if (e != NULL)
			CloseTile(s, e, false);
		e = hash_search(s->tiles, &key, HASH_ENTER, &found);
		if (!found)
		{
			memset(e, 0, sizeof(*e));
			e->key = key;
		}
		s->open = e;
	}
	ThawTile(s, e);
	shape = PbDecodeGeometryArg(fcinfo, 1, e->batch, "pb_compare_sets");
	PbCheckSetSrid(&s->srid, &s->has_srid, e->batch->shapes[shape].srid, "pb_compare_sets");
	GrowTile(s, e, shape + 1);
	if (s->nshapes == s->cap_shapes)
	{
		s->cap_shapes = Max(1024, s->cap_shapes * 2);
		s->in_a = s->in_a ? repalloc_huge(s->in_a, s->cap_shapes)
			: MemoryContextAllocHuge(s->cxt, s->cap_shapes);
	}
	e->gid[shape] = s->nshapes;
	e->in_a[shape] = in_a;
	s->in_a[s->nshapes++] = in_a;
	if (in_a)
		e->na++;
	else
		e->nb++;
	PG_RETURN_DATUM(PbAggStateDatum(&s->head));
}

/*
 * Add the totals t (another state's, or the live tiles') to into, whose
 * key ranges are reallocated in cxt; raises when a key is in both.
 */
static void
AddTotals(PbSetTotals *into, const PbSetTotals *t, MemoryContext cxt)
{
	PbAddKeyRanges(&into->ranges, &into->nranges, t->ranges, t->nranges, cxt,
				   "pb_compare_sets", "compared");
	PbCompareMerge(&into->acc, &t->acc);
	for (int i = 0; i < 4; i++)
		into->counts[i] += t->counts[i];
}

/*
 * Finish the live tiles: send the last of them, wait for the pipeline,
 * and add their totals, polygon counts and keys to s->done; their memory
 * goes back.
 */
static void
FinishTiles(TileSets *s)
{
	PbSetTotals live;
	uint8	   *matched;
	int64	   *keys;
	HASH_SEQ_STATUS seq;
	TileEntry  *e;
	uint32		nkeys = 0;

	if (s->tiles == NULL)
		return;
	memset(&live, 0, sizeof(live));
	PbCompareInit(&live.acc);
	matched = MemoryContextAllocExtended(s->cxt, s->nshapes + 1, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	keys = MemoryContextAllocHuge(s->cxt, sizeof(int64) * (hash_get_num_entries(s->tiles) + 1));
	hash_seq_init(&seq, s->tiles);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		CloseTile(s, e, true);
		keys[nkeys++] = e->key;
	}
	s->open = NULL;
	FeedPending(s);
	PbPipeRunFinish(s->run, &live.acc);
	for (uint32 k = 0; k < s->ntasks; k++)
	{
		const PbTask *t = s->tasks[k];

		for (uint32 i = 0; t->hit && i < t->na + t->nb; i++)
			if (t->hit[i])
				matched[s->task_gid[k][t->src_ids[i]]] = 1;
	}
	PbPipeRunEnd(s->run);
	s->run = NULL;
	for (uint32 i = 0; i < s->nshapes; i++)
	{
		live.counts[s->in_a[i] ? 0 : 1]++;
		if (!matched[i])
			live.counts[s->in_a[i] ? 2 : 3]++;
	}
	live.ranges = MemoryContextAllocHuge(s->cxt, sizeof(PbKeyRange) * (nkeys + 1));
	live.nranges = PbKeyRangesOf((int64_t *) keys, nkeys, live.ranges);
	AddTotals(&s->done, &live, s->head.eoh.eoh_context);
	MemoryContextDelete(s->cxt);	/* frees the streaming slot too */
	s->cxt = NULL;
	s->tiles = NULL;
	s->tasks = NULL;
	s->task_gid = NULL;
	s->in_a = NULL;
	s->ntasks = s->cap_tasks = s->nfed = s->nshapes = s->cap_shapes = 0;
}

PG_FUNCTION_INFO_V1(pb_compare_tiles_combinefn);
/*
 * Add the second state's totals to the first (Citus workers' states on
 * the coordinator); raises when both compared polygons of one key.
 */
Datum
pb_compare_tiles_combinefn(PG_FUNCTION_ARGS)
{
	return PbAggStateCombine(fcinfo, &TilesKind, "pb_compare_tiles_combinefn");
}

PG_FUNCTION_INFO_V1(pb_compare_tiles_finalfn);
/* Finish the tiles (sending the last, waiting for the pipeline): pb_set_comparison. */
Datum
pb_compare_tiles_finalfn(PG_FUNCTION_ARGS)
{
	TileSets   *s = (TileSets *) PbAggStateArg(fcinfo, 0, &TilesKind, "pb_compare_tiles_finalfn");
	PbSetTotals none;

	if (s == NULL)
	{
		memset(&none, 0, sizeof(none));
		PbCompareInit(&none.acc);
		return PbSetsResultDatum(fcinfo, &none.acc, none.counts, "pb_compare_sets");
	}
	FinishTiles(s);
	return PbSetsResultDatum(fcinfo, &s->done.acc, s->done.counts, "pb_compare_sets");
}
