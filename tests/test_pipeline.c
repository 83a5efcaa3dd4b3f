/*
 * test_pipeline.c: the SCCG pipeline (pipeline.c, pipe_task.c, tiling.c)
 * against brute force written here: every pair of shapes of two random
 * sets whose float boxes meet, computed one by one.  The totals must be
 * bit-identical and the missed shapes the same for any tiling, thread
 * count, device (none, a CPU test double, one that fails), with migration
 * forced either way or switched off, and a stop request must end a run.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/core/sccg/pb_sccg.h"
#include "../src/core/base/pb_base.h"
#include "../src/pipe_seams.h"
#include "long_shapes.h"
#include "testutil.h"

/* Two random sets in one batch: in_a[i] says which set shape i is in. */
typedef struct Sets
{
	PbBatch		b;
	uint8_t    *in_a;
	uint32_t	n;
} Sets;

/* Append one decoded tree to the sets. */
static void
AddTree(Sets *s, TGeom *g, int in_a)
{
	uint32_t	shape;
	PbError		err;

	if (DecodeTg(&s->b, g, 0, &shape, &err) != PB_OK)
		shape = DummyShape(&s->b);
	TgFree(g);
	s->in_a = realloc(s->in_a, s->b.nshapes);
	s->in_a[shape] = (uint8_t) in_a;
	s->n = s->b.nshapes;
}

/* Append a shape given as WKT. */
static void
AddWkt(Sets *s, const char *wkt, int in_a)
{
	uint32_t	shape = DecodeWkt(&s->b, wkt, 0);

	s->in_a = realloc(s->in_a, s->b.nshapes);
	s->in_a[shape] = (uint8_t) in_a;
	s->n = s->b.nshapes;
}

/*
 * n shapes per set scattered over a span x span field: rectilinear
 * blobs, a few diagonal (double) ones when with_double, a few empty ones,
 * and copies of set a's shapes in set b (duplicates).
 */
static void
MakeSets(Sets *s, Rng *r, int n, int64_t span, int with_double)
{
	Rng		   *saved = malloc(sizeof(Rng) * (size_t) (n + 1));

	memset(s, 0, sizeof(*s));
	PbBatchInit(&s->b, &PbMallocAllocator);
	for (int set = 0; set < 2; set++)
		for (int k = 0; k < n; k++)
		{
			/* set b's first tenth repeats set a's first tenth: duplicates */
			Rng			dup = saved[k];
			Rng		   *g = set == 1 && k < n / 10 ? &dup : r;
			int64_t		x,
						y;

			if (set == 0)
				saved[k] = *r;
			x = (int64_t) (RngNext(g) % (uint64_t) span);
			y = (int64_t) (RngNext(g) % (uint64_t) span);
			AddTree(s, RandomOrthoShape(g, 1 + (int) (RngNext(g) % 2), 6, x, y,
										12 + (int64_t) (RngNext(g) % 20), 0), set == 0);
		}
	for (int k = 0; k < n / 10; k++)
	{
		char		wkt[200];
		int64_t		x = (int64_t) (RngNext(r) % (uint64_t) span),
					y = (int64_t) (RngNext(r) % (uint64_t) span);

		if (with_double)
		{
			snprintf(wkt, sizeof(wkt), "POLYGON((%lld %lld,%lld.5 %lld,%lld %lld.25,%lld %lld))",
					 (long long) x, (long long) y, (long long) x + 15, (long long) y + 2,
					 (long long) x + 7, (long long) y + 14, (long long) x, (long long) y);
			AddWkt(s, wkt, k % 2);
		}
		AddWkt(s, "POLYGON EMPTY", k % 2);
	}
	free(saved);
}

/* What a comparison produced: totals and missed shapes per set. */
typedef struct Outcome
{
	PbCompareAcc acc;
	uint64_t	missed[2];
} Outcome;

/* Whether two float boxes meet (closed), as PostGIS's &&. */
static int
BoxesMeet(const PbBox *p, const PbBox *q)
{
	return p->xmin <= q->xmax && q->xmin <= p->xmax && p->ymin <= q->ymax && q->ymin <= p->ymax;
}

/* Brute force: every (a, b) pair with meeting boxes, one by one. */
static void
BruteForce(const Sets *s, Outcome *o)
{
	PbScratch	sc;
	uint8_t    *hit = calloc(s->n + 1, 1);

	PbScratchInit(&sc, &PbMallocAllocator);
	PbCompareInit(&o->acc);
	for (uint32_t a = 0; a < s->n; a++)
		for (uint32_t b = 0; b < s->n; b++)
		{
			PbBox		fa,
						fb;
			double		area;

			if (!s->in_a[a] || s->in_a[b] || s->b.shapes[a].kind == PB_SHAPE_EMPTY ||
				s->b.shapes[b].kind == PB_SHAPE_EMPTY)
				continue;
			fa = PbBoxAsPostgisFloat(s->b.shapes[a].box);
			fb = PbBoxAsPostgisFloat(s->b.shapes[b].box);
			if (!BoxesMeet(&fa, &fb))
				continue;
			area = PbIntersectionArea(&sc, &s->b, a, b, PB_METHOD_GENERAL);
			PbCompareAdd(&o->acc, s->b.shapes[a].area, s->b.shapes[b].area, area);
			if (area > 0)
				hit[a] = hit[b] = 1;
		}
	o->missed[0] = o->missed[1] = 0;
	for (uint32_t i = 0; i < s->n; i++)
		if (!hit[i])
			o->missed[s->in_a[i] ? 0 : 1]++;
	PbScratchFree(&sc);
	free(hit);
}

/* The results of one submission to the fake device. */
typedef struct FakeResults
{
	int64_t    *areas;
	PbDeviceFound *found;
	uint32_t	nfound;
} FakeResults;

/*
 * A test double of a device: computes on the CPU when a submission is
 * staged, into the slot not started, so that results read after the next
 * one is started are the wrong ones; optionally failing.
 */
typedef struct FakeDevice
{
	PbScratch	sc;
	FakeResults slot[2];
	int			cur;			/* slot of the started submission */
	int			staged;			/* slot 1 - cur holds a staged one */
	int			stages,
				starts;
	int			fail_at;		/* fail the stage of this batch (1-based), 0: never */
	int			fail_start_at;	/* fail this start (1-based), 0: never */
	/* holding the source (FakeHold) */
	int			hold_answer;	/* what hold returns */
	int			holds,
				releases,
				stages_at_hold; /* stages before the (last) hold */
	const PbBatch *held;		/* the source held, or NULL */
	const PbBatch *asked;		/* the source last asked to hold */
	int			foreign_parts;	/* parts staged while held not borrowing it */
} FakeDevice;

/* bytes: the fake device has no memory limit. */
static size_t
FakeBytes(void *ctx, const PbDevicePart *parts, uint32_t n)
{
	(void) ctx;
	(void) parts;
	(void) n;
	return 0;
}

/* Append one found pair. */
static void
FakeFound(FakeResults *r, uint32_t part, uint32_t a, uint32_t b, int64_t area)
{
	r->found = realloc(r->found, sizeof(PbDeviceFound) * (r->nfound + 1));
	r->found[r->nfound++] = (PbDeviceFound) {part, a, b, area};
}

/* stage: compute at once, into the slot not started. */
static int
FakeStage(void *ctx, const PbDevicePart *parts, uint32_t n, char *err, size_t err_len)
{
	FakeDevice *d = (FakeDevice *) ctx;
	FakeResults *r = &d->slot[1 - d->cur];
	size_t		k = 0,
				total = 0;

	d->staged = 0;
	if (++d->stages == d->fail_at)
	{
		snprintf(err, err_len, "injected device failure");
		return -1;
	}
	for (uint32_t p = 0; p < n; p++)
	{
		PbDevicePart	counted = parts[p];

		if (d->held != NULL &&
			(parts[p].batch->rings != d->held->rings || parts[p].batch->ipts != d->held->ipts))
			d->foreign_parts++;

		/* what a real device would copy: the counts must be the shapes' own */
		PbDevicePartCount(&counted);
		if (counted.nrings != parts[p].nrings || counted.nipts != parts[p].nipts)
		{
			snprintf(err, err_len, "part %u: wrong ring or point count", p);
			return -1;
		}
		total += parts[p].filter ? 0 : parts[p].npairs;
		/* huge shapes stay on the CPU (PbDeviceShape) */
		for (uint32_t j = 0; j < (parts[p].filter ? 0 : parts[p].npairs); j++)
		{
			const PbPair *pr = &parts[p].pairs[parts[p].pair_idx ? parts[p].pair_idx[j] : j];

			if (!PbDeviceShape(parts[p].batch, &parts[p].batch->shapes[pr->a]) ||
				!PbDeviceShape(parts[p].batch, &parts[p].batch->shapes[pr->b]))
			{
				snprintf(err, err_len, "part %u: a pair of a shape not for the device", p);
				return -1;
			}
		}
		for (uint32_t i = 0; parts[p].filter && i < parts[p].batch->nshapes; i++)
			if (parts[p].batch->shapes[i].kind == PB_SHAPE_INT &&
				!PbDeviceShape(parts[p].batch, &parts[p].batch->shapes[i]))
			{
				snprintf(err, err_len, "part %u: a shape too big for the device to filter", p);
				return -1;
			}
	}
	r->areas = realloc(r->areas, sizeof(int64_t) * (total + 1));
	r->nfound = 0;
	for (uint32_t p = 0; p < n; p++)
	{
		const PbBatch *b = parts[p].batch;

		if (!parts[p].filter)
		{
			for (uint32_t j = 0; j < parts[p].npairs; j++)
			{
				const PbPair *pr = &parts[p].pairs[parts[p].pair_idx ? parts[p].pair_idx[j] : j];

				r->areas[k++] = (int64_t) PbIntersectionArea(&d->sc, b, pr->a, pr->b, PB_METHOD_SWEEP);
			}
			continue;
		}
		for (uint32_t a = 0; a < parts[p].split; a++)
			for (uint32_t bb = parts[p].split; bb < b->nshapes; bb++)
			{
				PbBox		fa,
							fb;
				double		rx,
							ry;

				if (b->shapes[a].kind != PB_SHAPE_INT || b->shapes[bb].kind != PB_SHAPE_INT)
					continue;
				fa = PbBoxAsPostgisFloat(b->shapes[a].box);
				fb = PbBoxAsPostgisFloat(b->shapes[bb].box);
				rx = fmax(fa.xmin, fb.xmin);
				ry = fmax(fa.ymin, fb.ymin);
				if (BoxesMeet(&fa, &fb) && rx >= parts[p].ref.xmin && rx < parts[p].ref.xmax &&
					ry >= parts[p].ref.ymin && ry < parts[p].ref.ymax)
					FakeFound(r, p, a, bb, (int64_t) PbIntersectionArea(&d->sc, b, a, bb, PB_METHOD_SWEEP));
			}
	}
	d->staged = 1;
	return 0;
}

/* start: the staged submission's results become the ones read. */
static int
FakeStart(void *ctx, char *err, size_t err_len)
{
	FakeDevice *d = (FakeDevice *) ctx;

	if (++d->starts == d->fail_start_at || !d->staged)
	{
		snprintf(err, err_len, d->staged ? "injected start failure" : "nothing staged");
		return -1;
	}
	d->cur = 1 - d->cur;
	d->staged = 0;
	return 0;
}

/* poll: done at once. */
static int
FakePoll(void *ctx, char *err, size_t err_len)
{
	(void) ctx;
	(void) err;
	(void) err_len;
	return 1;
}

/* results: areas of the host-given pairs. */
static const int64_t *
FakeAreas(void *ctx)
{
	FakeDevice *d = (FakeDevice *) ctx;

	return d->slot[d->cur].areas;
}

/* found: pairs of the filter parts. */
static uint32_t
FakeFoundPairs(void *ctx, const PbDeviceFound **found)
{
	FakeDevice *d = (FakeDevice *) ctx;

	*found = d->slot[d->cur].found;
	return d->slot[d->cur].nfound;
}

/* hold: record the source, held when hold_answer says so. */
static int
FakeHold(void *ctx, const PbBatch *src)
{
	FakeDevice *d = (FakeDevice *) ctx;

	d->holds++;
	d->stages_at_hold = d->stages;
	d->asked = src;
	d->held = d->hold_answer ? src : NULL;
	return d->hold_answer;
}

/* release: the source is no longer held. */
static void
FakeRelease(void *ctx)
{
	FakeDevice *d = (FakeDevice *) ctx;

	d->releases++;
	d->held = NULL;
}

/* The PbPipeDevice of a fake device (holding nothing). */
static PbPipeDevice
FakeOps(FakeDevice *d)
{
	PbPipeDevice dev = {d, "fake", 1, (size_t) 1 << 30, FakeBytes, FakeStage, FakeStart,
	FakePoll, FakeAreas, FakeFoundPairs, NULL, NULL};

	memset(d, 0, sizeof(*d));
	PbScratchInit(&d->sc, &PbMallocAllocator);
	return dev;
}

/* Release a fake device. */
static void
FakeFree(FakeDevice *d)
{
	PbScratchFree(&d->sc);
	for (int i = 0; i < 2; i++)
	{
		free(d->slot[i].areas);
		free(d->slot[i].found);
	}
}

/*
 * Give c the device dev (NULL: none) and the core's steps, slowed down by
 * filter_us a task in the filter step, agg_us in the compute step and the
 * device (when agg_us > 0): what pixelbox.pipeline_throttle does in the glue.
 */
static void
SlowDown(PbPipeConfig *c, PbPipeThrottle *th, const PbPipeDevice *dev, uint32_t filter_us,
		 uint32_t agg_us)
{
	c->steps = (PbPipeSteps) {PbPipeFilterStep, PbPipeComputeStep, NULL};
	c->device = dev;
	PbPipeThrottleInstall(c, th, filter_us, agg_us);
}

/* Run the pipeline over a grid tiling of s with config c; stats into *st. */
static int
RunPipeline(const Sets *s, const PbPipeConfig *c, uint32_t per_tile, Outcome *o, PbPipeStats *st)
{
	PbTiling	tl;
	PbPipeline *p;
	uint8_t    *hit = calloc(s->n + 1, 1);

	PbTileGrid(&tl, &s->b, s->in_a, per_tile, &PbMallocAllocator, c->threads);
	p = PbPipeStart(c);
	if (p == NULL)
		return 0;
	for (uint32_t k = 0; k < tl.ntasks; k++)
		PbPipeFeed(p, &tl.tasks[k], NULL, NULL);
	if (!PbPipeFinish(p, NULL, NULL))
		return 0;
	PbPipeTotals(p, &o->acc);
	PbPipeGetStats(p, st);
	for (uint32_t k = 0; k < tl.ntasks; k++)
		for (uint32_t i = 0; i < tl.tasks[k].na + tl.tasks[k].nb; i++)
			if (tl.tasks[k].hit && tl.tasks[k].hit[i])
				hit[tl.tasks[k].src_ids[i]] = 1;
	o->missed[0] = o->missed[1] = 0;
	for (uint32_t i = 0; i < s->n; i++)
		if (!hit[i])
			o->missed[s->in_a[i] ? 0 : 1]++;
	PbPipeDestroy(p);
	PbTilingFree(&tl, &PbMallocAllocator);
	free(hit);
	return 1;
}

/* Whether two outcomes are the same, bit for bit. */
static void
CheckSame(const Outcome *want, const Outcome *got)
{
	PbCompareResult w,
				g;

	PbCompareResultOf(&want->acc, &w);
	PbCompareResultOf(&got->acc, &g);
	CHECK_INT(g.pairs, w.pairs);
	CHECK_INT(g.intersecting, w.intersecting);
	CHECK_DBL_EQ(g.jaccard_mean, w.jaccard_mean);
	CHECK_DBL_EQ(g.jaccard_total, w.jaccard_total);
	CHECK_DBL_EQ(g.dice_mean, w.dice_mean);
	CHECK_DBL_EQ(g.intersection_area, w.intersection_area);
	CHECK_DBL_EQ(g.union_area, w.union_area);
	CHECK_INT(got->missed[0], want->missed[0]);
	CHECK_INT(got->missed[1], want->missed[1]);
}

/* Free the sets. */
static void
FreeSets(Sets *s)
{
	PbBatchFree(&s->b);
	free(s->in_a);
}

/* Any tiling and thread count, no device: the brute-force answer. */
void
test_pipeline_cpu_matches_brute(void)
{
	Rng			r = {4242};
	Sets		s;
	Outcome		want,
				got;
	PbPipeStats st;
	uint32_t	tiles[] = {1, 7, 40, 100000};
	int			threads[] = {1, 3};

	MakeSets(&s, &r, 500, 400, 1);
	BruteForce(&s, &want);
	CHECK(want.acc.pairs > 500);
	for (int ti = 0; ti < 4; ti++)
		for (int th = 0; th < 2; th++)
		{
			PbPipeConfig c;

			pb_test_context("per_tile %u, %d threads", tiles[ti], threads[th]);
			PbPipeConfigDefaults(&c, threads[th]);
			c.agg_pairs = 64;	/* a small buffer: congestion happens */
			CHECK(RunPipeline(&s, &c, tiles[ti], &got, &st));
			CheckSame(&want, &got);
			CHECK(st.filter_cpu.pairs == (uint64_t) want.acc.pairs);
		}
	FreeSets(&s);
}

/*
 * The core's compute step after a nap of 10 ms per pair: CPU threads far
 * slower than the device, per pair, as the pipeline's rates model them
 * (a nap per task would make one-pair tasks look cheap to the model).
 */
static void
SlowCompute(void *ctx, PbTask *t, PbScratch *sc, PbMethod method, PbCompareAcc *acc)
{
	uint64_t	ns = (uint64_t) t->nint * 10 * 1000 * 1000;
	struct timespec nap = {(time_t) (ns / 1000000000u), (long) (ns % 1000000000u)};

	nanosleep(&nap, NULL);
	PbPipeComputeStep(ctx, t, sc, method, acc);
}

/*
 * A device far faster than a CPU thread, congested: the filter threads
 * measure both and leave the queued tasks to the device (kept_for_device)
 * instead of computing them at a thousandth of its speed; at most the one
 * task that measures a thread's rate runs on the CPU.  Same answers.
 */
void
test_pipeline_balance_by_rate(void)
{
	Rng			r = {7};
	Sets		s;
	Outcome		want,
				got;
	PbPipeStats st;
	FakeDevice	fd;
	PbPipeDevice dev = FakeOps(&fd);
	PbPipeConfig c;

	MakeSets(&s, &r, 400, 300, 1);
	BruteForce(&s, &want);
	PbPipeConfigDefaults(&c, 3);
	c.steps = (PbPipeSteps) {PbPipeFilterStep, SlowCompute, NULL};
	c.device = &dev;
	c.agg_pairs = 32;
	c.batch_pairs = 32;
	CHECK(RunPipeline(&s, &c, 20, &got, &st));
	CheckSame(&want, &got);
	CHECK(st.kept_for_device > 0);
	CHECK(st.aggregate_cpu.migrated <= 1);
	CHECK(st.aggregate_device.tasks > 0);
	CHECK(st.device_error[0] == 0);
	FakeFree(&fd);
	FreeSets(&s);
}

/* A device (the CPU test double), migration forced either way, or off. */
void
test_pipeline_device_migration(void)
{
	Rng			r = {99};
	Sets		s;
	Outcome		want,
				got;
	PbPipeStats st;
	FakeDevice	fd;
	PbPipeDevice dev = FakeOps(&fd);
	PbPipeConfig c;
	PbPipeThrottle	th;

	MakeSets(&s, &r, 400, 300, 1);
	BruteForce(&s, &want);

	/* device slowed: filter threads find its buffer full and compute on the CPU */
	PbPipeConfigDefaults(&c, 3);
	SlowDown(&c, &th, &dev, 0, 3000);
	c.agg_pairs = 32;
	c.batch_pairs = 32;
	pb_test_context("device congested");
	CHECK(RunPipeline(&s, &c, 20, &got, &st));
	CheckSame(&want, &got);
	CHECK(st.aggregate_cpu.migrated > 0);
	CHECK(st.aggregate_device.tasks > 0);
	CHECK(st.device_error[0] == 0);

	/* filter slowed: the idle device takes filter work */
	SlowDown(&c, &th, &dev, 3000, 0);
	c.agg_pairs = 1u << 20;
	c.batch_pairs = 64;
	pb_test_context("device idle");
	CHECK(RunPipeline(&s, &c, 20, &got, &st));
	CheckSame(&want, &got);
	CHECK(st.filter_device.migrated > 0);
	CHECK(st.filter_device.pairs > 0);
	CHECK(st.aggregate_cpu.migrated == 0);
	CHECK(st.device_error[0] == 0);

	/* migration off: nothing moves, even slowed down */
	c.migration = 0;
	SlowDown(&c, &th, &dev, 3000, 1000);
	c.agg_pairs = 32;
	pb_test_context("migration off");
	CHECK(RunPipeline(&s, &c, 20, &got, &st));
	CheckSame(&want, &got);
	CHECK(st.filter_device.tasks == 0);
	CHECK(st.aggregate_cpu.tasks == 0);
	CHECK(st.device_error[0] == 0);
	FakeFree(&fd);

	/*
	 * the device fails: staging its second batch (while the first runs), or
	 * starting its third; that batch and the rest are computed on the CPU
	 */
	for (int k = 0; k < 2; k++)
	{
		dev = FakeOps(&fd);
		if (k == 0)
			fd.fail_at = 2;
		else
			fd.fail_start_at = 3;
		PbPipeConfigDefaults(&c, 2);
		c.device = &dev;
		c.batch_pairs = 16;
		pb_test_context(k == 0 ? "device fails to stage" : "device fails to start");
		CHECK(RunPipeline(&s, &c, 20, &got, &st));
		CheckSame(&want, &got);
		CHECK(strstr(st.device_error, k == 0 ? "injected device failure" : "injected start failure") != NULL);
		CHECK(st.aggregate_cpu.tasks > 0);
		CHECK(st.device_batches == (k == 0 ? 1 : 2));
		FakeFree(&fd);
	}
	FreeSets(&s);
}

/*
 * A device that holds the tasks' source: asked once, before its first
 * batch, or at the start when the run names the source (then even a run
 * given no task holds it); every part staged while it holds borrows that
 * source; let go once at the end, also when the device failed midway and
 * through the aggregator's throttle (pixelbox.pipeline_throttle); a device
 * that declines is never told to let go.  The answers are the brute
 * force's throughout.
 */
void
test_pipeline_device_holds_source(void)
{
	static const char *const runs[6] = {"held", "declined", "held, device fails", "held, aggregator slowed",
	"named at the start", "named at the start, no task"};
	Rng			r = {0x401d};
	Sets		s;
	Outcome		want,
				got;
	PbPipeStats st;
	FakeDevice	fd;
	PbPipeDevice dev;
	PbPipeConfig c;
	PbPipeThrottle th;

	MakeSets(&s, &r, 400, 300, 1);
	BruteForce(&s, &want);
	for (int k = 0; k < 6; k++)
	{
		dev = FakeOps(&fd);
		dev.hold = FakeHold;
		dev.release = FakeRelease;
		fd.hold_answer = k != 1;
		fd.fail_at = k == 2 ? 3 : 0;
		PbPipeConfigDefaults(&c, 3);
		c.device = &dev;
		c.batch_pairs = 64;
		c.source = k >= 4 ? &s.b : NULL;
		if (k == 3)
			SlowDown(&c, &th, &dev, 0, 200);
		pb_test_context("%s", runs[k]);
		if (k == 5)
		{
			PbPipeline *p = PbPipeStart(&c);

			CHECK(p != NULL);
			if (p == NULL)
				break;
			CHECK(PbPipeFinish(p, NULL, NULL));
			PbPipeGetStats(p, &st);
			PbPipeDestroy(p);
			CHECK_INT(fd.holds, 1);
			CHECK(fd.asked == &s.b);
			CHECK_INT(fd.releases, 1);
			CHECK_INT(st.source_held, 1);
			CHECK_INT(fd.stages, 0);
			FakeFree(&fd);
			continue;
		}
		CHECK(RunPipeline(&s, &c, 20, &got, &st));
		CheckSame(&want, &got);
		CHECK_INT(fd.holds, 1);
		CHECK(fd.asked == &s.b);
		CHECK_INT(fd.stages_at_hold, 0);
		CHECK_INT(fd.releases, k != 1);
		CHECK(fd.held == NULL);
		CHECK_INT(fd.foreign_parts, 0);
		CHECK_INT(st.source_held, k != 1);
		CHECK(st.device_batches > (k == 2 ? 1u : 3u));
		CHECK(k == 2 ? st.device_error[0] != 0 : st.device_error[0] == 0);
		FakeFree(&fd);
	}
	FreeSets(&s);
}

/* Order kept pairs by a, then b. */
static int
CmpKept(const void *x, const void *y)
{
	const PbTaskPair *p = x,
			   *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/*
 * Run the pipeline with every task keeping its pairs; return them (shape
 * indices of s, malloc'd, sorted) and their number in *n, or NULL.
 */
static PbTaskPair *
RunKept(const Sets *s, const PbPipeConfig *c, uint32_t per_tile, uint32_t *n)
{
	PbTiling	tl;
	PbPipeline *p;
	PbTaskPair *all = NULL;

	*n = 0;
	PbTileGrid(&tl, &s->b, s->in_a, per_tile, &PbMallocAllocator, c->threads);
	p = PbPipeStart(c);
	if (p == NULL)
		return NULL;
	for (uint32_t k = 0; k < tl.ntasks; k++)
	{
		tl.tasks[k].keep_pairs = 1;
		PbPipeFeed(p, &tl.tasks[k], NULL, NULL);
	}
	if (PbPipeFinish(p, NULL, NULL))
		for (uint32_t k = 0; k < tl.ntasks; k++)
		{
			const PbTask *t = &tl.tasks[k];

			all = realloc(all, sizeof(PbTaskPair) * (*n + t->nkept + 1));
			for (uint32_t i = 0; i < t->nkept; i++)
				all[(*n)++] = (PbTaskPair) {t->src_ids[t->kept[i].a], t->src_ids[t->kept[i].b],
				t->kept[i].area};
		}
	PbPipeDestroy(p);
	PbTilingFree(&tl, &PbMallocAllocator);
	if (all != NULL)
		qsort(all, *n, sizeof(PbTaskPair), CmpKept);
	return all;
}

/*
 * Tasks keeping their pairs (pb_intersecting_pairs): every pair of positive
 * area once, with its area, as brute force finds them, whoever computes
 * them: CPU threads, the device, the device filtering, CPU migration.
 */
void
test_pipeline_kept_pairs(void)
{
	Rng			r = {4242};
	Sets		s;
	PbScratch	sc;
	PbTaskPair *want = NULL;
	uint32_t	nwant = 0;
	FakeDevice	fd;
	PbPipeDevice dev = FakeOps(&fd);
	PbPipeThrottle	th;

	MakeSets(&s, &r, 300, 250, 1);
	PbScratchInit(&sc, &PbMallocAllocator);
	for (uint32_t a = 0; a < s.n; a++)
		for (uint32_t b = 0; b < s.n; b++)
		{
			double		area;

			if (!s.in_a[a] || s.in_a[b])
				continue;
			area = PbIntersectionArea(&sc, &s.b, a, b, PB_METHOD_GENERAL);
			if (area <= 0)
				continue;
			want = realloc(want, sizeof(PbTaskPair) * (nwant + 1));
			want[nwant++] = (PbTaskPair) {a, b, area};
		}
	CHECK(nwant > 100);
	for (int mode = 0; mode < 4; mode++)
	{
		PbPipeConfig c;
		PbTaskPair *got;
		uint32_t	ngot;

		PbPipeConfigDefaults(&c, 3);
		c.device = mode == 0 ? NULL : &dev;
		c.batch_pairs = 32;
		if (mode == 2)
			SlowDown(&c, &th, &dev, 2000, 0);	/* the idle device filters */
		if (mode == 3)
		{
			SlowDown(&c, &th, &dev, 0, 2000);	/* the congested device loses tasks to the CPU */
			c.agg_pairs = 32;
		}
		pb_test_context("mode %d", mode);
		got = RunKept(&s, &c, 15, &ngot);
		CHECK(got != NULL);
		CHECK_INT(ngot, nwant);
		for (uint32_t i = 0; got != NULL && i < ngot && i < nwant; i++)
			if (CmpKept(&got[i], &want[i]) != 0 || got[i].area != want[i].area)
			{
				pb_check_fail(__FILE__, __LINE__, "pair %u: (%u, %u) %.17g, want (%u, %u) %.17g", i,
							  got[i].a, got[i].b, got[i].area, want[i].a, want[i].b, want[i].area);
				break;
			}
		free(got);
	}
	pb_test_context("%s", "");
	FakeFree(&fd);
	PbScratchFree(&sc);
	free(want);
	FreeSets(&s);
}

/*
 * Tiles given by the caller, one seen twice (a reopened tile: the second
 * task holds all its shapes and skips the pairs of the first): the same
 * totals as one task with everything.
 */
void
test_pipeline_reopened_tile(void)
{
	Rng			r = {7};
	Sets		s;
	Outcome		want;
	PbCompareAcc got;
	PbPipeConfig c;
	PbPipeline *p;
	uint32_t   *ids,
				na = 0,
				nb = 0,
				half_a,
				half_b;
	PbTask		t1,
				t2;
	PbCompareResult w,
				g;

	MakeSets(&s, &r, 200, 150, 1);
	BruteForce(&s, &want);
	ids = malloc(sizeof(uint32_t) * s.n);
	/* set a first, each set in shape order */
	for (uint32_t i = 0; i < s.n; i++)
		if (s.in_a[i])
			ids[na++] = i;
	for (uint32_t i = 0; i < s.n; i++)
		if (!s.in_a[i])
			ids[na + nb++] = i;
	half_a = na / 2;
	half_b = nb / 3;
	/* t1: the first halves; t2: everything, old = t1's */
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	t1.src = t2.src = &s.b;
	t1.ref = t2.ref = (PbBox) {-INFINITY, -INFINITY, INFINITY, INFINITY};
	t2.src_ids = ids;
	t2.na = na;
	t2.nb = nb;
	t2.old_a = half_a;
	t2.old_b = half_b;
	t1.src_ids = malloc(sizeof(uint32_t) * (half_a + half_b));
	memcpy((uint32_t *) t1.src_ids, ids, sizeof(uint32_t) * half_a);
	memcpy((uint32_t *) t1.src_ids + half_a, ids + na, sizeof(uint32_t) * half_b);
	t1.na = half_a;
	t1.nb = half_b;
	PbPipeConfigDefaults(&c, 2);
	p = PbPipeStart(&c);
	CHECK(p != NULL);
	CHECK(PbPipeFeed(p, &t1, NULL, NULL));
	CHECK(PbPipeFeed(p, &t2, NULL, NULL));
	CHECK(PbPipeFinish(p, NULL, NULL));
	PbPipeTotals(p, &got);
	PbCompareResultOf(&want.acc, &w);
	PbCompareResultOf(&got, &g);
	CHECK_INT(g.pairs, w.pairs);
	CHECK_DBL_EQ(g.jaccard_mean, w.jaccard_mean);
	CHECK_DBL_EQ(g.intersection_area, w.intersection_area);
	PbPipeDestroy(p);
	free((uint32_t *) t1.src_ids);
	free(ids);
	FreeSets(&s);
}

/* should_stop that says stop on its third call. */
static int
StopSoon(void *ctx)
{
	return ++*(int *) ctx >= 3;
}

/* A stop request ends a slow run promptly; destroy then frees everything. */
void
test_pipeline_stop(void)
{
	Rng			r = {5};
	Sets		s;
	PbTiling	tl;
	PbPipeConfig c;
	PbPipeline *p;
	PbPipeThrottle	th;
	int			calls = 0,
				fed = 1;

	MakeSets(&s, &r, 300, 300, 0);
	PbTileGrid(&tl, &s.b, s.in_a, 5, &PbMallocAllocator, 1);
	CHECK(tl.ntasks > 20);
	PbPipeConfigDefaults(&c, 2);
	SlowDown(&c, &th, NULL, 20000, 0);	/* 20 ms a task: far longer than the stop takes */
	c.input_tasks = 4;
	p = PbPipeStart(&c);
	for (uint32_t k = 0; k < tl.ntasks && fed; k++)
		fed = PbPipeFeed(p, &tl.tasks[k], StopSoon, &calls);
	CHECK(!fed || !PbPipeFinish(p, StopSoon, &calls));
	CHECK(calls >= 3);
	PbPipeDestroy(p);
	PbTilingFree(&tl, &PbMallocAllocator);
	FreeSets(&s);
}

/*
 * A rectilinear shape with more points than PbDeviceShape allows (a comb
 * of 8,002 points crossing the field) is never sent to the device, neither
 * its pairs nor a task holding it to filter, and every answer stays the
 * brute force's, with the device idle or congested.
 */
void
test_pipeline_huge_shapes_on_cpu(void)
{
	Rng			r = {42};
	Sets		s;
	LongShape	comb;
	Outcome		want,
				got;
	PbPipeStats st;
	FakeDevice	fd;
	PbPipeDevice dev = FakeOps(&fd);
	PbPipeConfig c;
	PbPipeThrottle	th;
	uint32_t	shape;

	MakeSets(&s, &r, 300, 300, 0);
	comb = LongComb(2000, 40, 0);
	shape = LongAdd(&s.b, &comb);
	CHECK(!PbDeviceShape(&s.b, &s.b.shapes[shape]));
	s.in_a = realloc(s.in_a, s.b.nshapes);
	s.in_a[shape] = 1;
	s.n = s.b.nshapes;
	BruteForce(&s, &want);
	CHECK(want.acc.pairs > 0);
	PbPipeConfigDefaults(&c, 3);
	for (int idle = 0; idle < 2; idle++)
	{
		pb_test_context(idle ? "device idle" : "device congested");
		SlowDown(&c, &th, &dev, idle ? 3000 : 0, idle ? 0 : 3000);
		CHECK(RunPipeline(&s, &c, 20, &got, &st));
		CheckSame(&want, &got);
		CHECK(st.device_error[0] == 0);
		CHECK(st.aggregate_device.tasks + st.filter_device.tasks > 0);
	}
	FakeFree(&fd);
	LongFree(&comb);
	FreeSets(&s);
}

/*
 * PbDeviceShape's work rule: the bitmap kernel's tiles of a shape's box
 * times its points.  Nuclei, merged blobs, long thin bars and large plain
 * outlines go to the device; a 4,000-point outline over 0.4 gigapixels,
 * which the CPU sweep does faster, does not.
 */
void
test_pipeline_device_shape_work(void)
{
	PbBatch		b;
	LongShape	blob = LongComb(300, 40, 0),	/* 1,202 points, ~600 x 40 */
				tissue = LongComb(1000, 200000, 0);	/* 4,002 points, ~2,000 x 200,000 */
	uint32_t	nucleus,
				bar,
				outline,
				s_blob,
				s_tissue;

	PbBatchInit(&b, &PbMallocAllocator);
	nucleus = DecodeWkt(&b, "POLYGON((0 0,12 0,12 9,0 9,0 0))", 0);
	bar = DecodeWkt(&b, "POLYGON((0 0,1 0,1 1000000,0 1000000,0 0))", 0);
	outline = DecodeWkt(&b, "POLYGON((0 0,40000 0,40000 40000,0 40000,0 0))", 0);
	s_blob = LongAdd(&b, &blob);
	s_tissue = LongAdd(&b, &tissue);
	CHECK(PbDeviceShape(&b, &b.shapes[nucleus]));
	CHECK(PbDeviceShape(&b, &b.shapes[bar]));
	CHECK(PbDeviceShape(&b, &b.shapes[outline]));
	CHECK(PbDeviceShape(&b, &b.shapes[s_blob]));
	CHECK(b.shapes[s_tissue].kind == PB_SHAPE_INT && PbShapePoints(&b, &b.shapes[s_tissue]) <= PB_DEVICE_SHAPE_POINTS);
	CHECK(!PbDeviceShape(&b, &b.shapes[s_tissue]));
	LongFree(&blob);
	LongFree(&tissue);
	PbBatchFree(&b);
}

/* should_stop that says stop once *ctx (a start time) is 0.1 s past. */
static int
StopAfterATenth(void *ctx)
{
	return TestSeconds() > *(double *) ctx + 0.1;
}

/*
 * A stop reaches a thread inside one huge pair: the engine's interrupt
 * hook leaves the stopped run, so the run ends in far less time than the
 * pair takes (a sheared 128K-vertex comb against itself: seconds).
 */
void
test_pipeline_stop_mid_pair(void)
{
	Sets		s;
	LongShape	comb = LongComb(32768, 2000, 0);
	PbTiling	tl;
	PbPipeConfig c;
	PbPipeline *p;
	double		t0;

	memset(&s, 0, sizeof(s));
	PbBatchInit(&s.b, &PbMallocAllocator);
	LongShear(&comb, 0.37);
	for (int set = 0; set < 2; set++)
	{
		uint32_t	shape = LongAdd(&s.b, &comb);

		s.in_a = realloc(s.in_a, s.b.nshapes);
		s.in_a[shape] = (uint8_t) (set == 0);
	}
	s.n = s.b.nshapes;
	PbTileGrid(&tl, &s.b, s.in_a, 1, &PbMallocAllocator, 1);
	PbPipeConfigDefaults(&c, 2);
	p = PbPipeStart(&c);
	t0 = TestSeconds();
	for (uint32_t k = 0; k < tl.ntasks; k++)
		CHECK(PbPipeFeed(p, &tl.tasks[k], NULL, NULL));
	CHECK(!PbPipeFinish(p, StopAfterATenth, &t0));
	PbPipeDestroy(p);
	pb_test_context("run ended %.2f s after its start", TestSeconds() - t0);
	CHECK(TestSeconds() - t0 < 0.6);
	PbTilingFree(&tl, &PbMallocAllocator);
	LongFree(&comb);
	FreeSets(&s);
}

/* The grid: every shape in the cells its box meets, windows partition the plane. */
void
test_pipeline_tiling(void)
{
	Rng			r = {11};
	Sets		s;
	PbTiling	tl;
	uint64_t	placed = 0;

	MakeSets(&s, &r, 300, 500, 1);
	PbTileGrid(&tl, &s.b, s.in_a, 30, &PbMallocAllocator, 3);
	CHECK(tl.nx * tl.ny >= 15);
	for (uint32_t k = 0; k < tl.ntasks; k++)
	{
		const PbTask *t = &tl.tasks[k];

		CHECK(t->na > 0 && t->nb > 0);
		for (uint32_t i = 0; i < t->na + t->nb; i++)
		{
			PbBox		f = PbBoxAsPostgisFloat(s.b.shapes[t->src_ids[i]].box);

			CHECK((i < t->na) == (s.in_a[t->src_ids[i]] != 0));
			CHECK(f.xmin < t->ref.xmax && f.xmax >= t->ref.xmin &&
				  f.ymin < t->ref.ymax && f.ymax >= t->ref.ymin);
			CHECK(!t->all_int || s.b.shapes[t->src_ids[i]].kind == PB_SHAPE_INT);
		}
		placed += t->na + t->nb;
	}
	CHECK(placed > 0);
	PbTilingFree(&tl, &PbMallocAllocator);

	/* one set empty: no task */
	memset(s.in_a, 1, s.n);
	PbTileGrid(&tl, &s.b, s.in_a, 30, &PbMallocAllocator, 2);
	CHECK_INT(tl.ntasks, 0);
	PbTilingFree(&tl, &PbMallocAllocator);
	FreeSets(&s);
}

/* Bytes of a task's shapes as its own batch holds them: shapes, rings, points. */
static size_t
TaskBytes(const PbTask *t)
{
	size_t		bytes = 0;

	for (uint32_t i = 0; i < t->na + t->nb; i++)
	{
		const PbShape *sh = &t->src->shapes[t->src_ids[i]];

		bytes += sizeof(PbShape) + sh->nrings * sizeof(PbRing) +
			PbShapePoints(t->src, sh) * (sh->kind == PB_SHAPE_INT ? 8 : 16);
	}
	return bytes;
}

/*
 * The pipeline's pool: with small buffers few tasks are alive at once, so
 * the blocks of accounted tasks serve the next ones (few come new from
 * malloc) and the most memory held is a small part of what all the tasks
 * need together, while hit stays readable after the run.
 */
void
test_pipeline_pool(void)
{
	Rng			r = {31};
	Sets		s;
	PbTiling	tl;
	PbPipeConfig c;
	PbPipeline *p;
	PbPipeStats st;
	size_t		total = 0;
	uint64_t	hits = 0;

	MakeSets(&s, &r, 3000, 1500, 1);
	PbTileGrid(&tl, &s.b, s.in_a, 30, &PbMallocAllocator, 2);
	CHECK(tl.ntasks > 150);
	for (uint32_t k = 0; k < tl.ntasks; k++)
		total += TaskBytes(&tl.tasks[k]);
	PbPipeConfigDefaults(&c, 2);
	c.input_tasks = 4;
	c.agg_pairs = 64;
	p = PbPipeStart(&c);
	CHECK(p != NULL);
	for (uint32_t k = 0; k < tl.ntasks; k++)
		CHECK(PbPipeFeed(p, &tl.tasks[k], NULL, NULL));
	CHECK(PbPipeFinish(p, NULL, NULL));
	PbPipeGetStats(p, &st);
	pb_test_note("pool: %llu blocks, %llu fresh, peak %zu bytes of %zu in all tasks",
				 (unsigned long long) st.mem_blocks, (unsigned long long) st.mem_fresh,
				 st.mem_peak, total);
	CHECK(st.mem_blocks > 10 * (uint64_t) tl.ntasks);
	CHECK(st.mem_fresh * 5 < st.mem_blocks);
	CHECK(st.mem_peak < total / 2);
	for (uint32_t k = 0; k < tl.ntasks; k++)
	{
		CHECK(tl.tasks[k].batch.shapes == NULL && tl.tasks[k].areas == NULL);
		for (uint32_t i = 0; i < tl.tasks[k].na + tl.tasks[k].nb; i++)
			hits += tl.tasks[k].hit[i];
	}
	CHECK(hits > 0);
	PbPipeDestroy(p);
	PbTilingFree(&tl, &PbMallocAllocator);
	FreeSets(&s);
}

/*
 * A thread out of memory (the pool's allocations made to fail from the
 * n-th on, for several n, with and without a device) stops the run: it
 * reports out of memory, everything is freed (the leak checker sees
 * nothing lost), and a whole run afterwards gives the right answer.
 */
void
test_pipeline_out_of_memory(void)
{
	static const long after[] = {1, 2, 3, 10, 40, 120, 300};
	Rng			r = {4242};
	Sets		s;
	Outcome		want,
				got;
	PbPipeStats st;
	PbPipeConfig c;

	MakeSets(&s, &r, 600, 3000, 1);
	BruteForce(&s, &want);
	for (int with_device = 0; with_device < 2; with_device++)
		for (int i = 0; i < (int) (sizeof(after) / sizeof(after[0])); i++)
		{
			FakeDevice	fd;
			PbPipeDevice dev = FakeOps(&fd);
			PbPipeFailingMem fm;
			PbTiling	tl;
			PbPipeline *p;
			int			fed = 1,
						done;

			pb_test_context("device %d, failing after %ld allocations", with_device, after[i]);
			PbPipeConfigDefaults(&c, 3);
			c.device = with_device ? &dev : NULL;
			PbPipeFailingMemInstall(&c, &fm, after[i]);
			PbTileGrid(&tl, &s.b, s.in_a, 20, &PbMallocAllocator, 1);
			p = PbPipeStart(&c);
			CHECK(p != NULL);
			if (p == NULL)
				break;
			for (uint32_t k = 0; fed && k < tl.ntasks; k++)
				fed = PbPipeFeed(p, &tl.tasks[k], NULL, NULL);
			done = fed && PbPipeFinish(p, NULL, NULL);
			CHECK(!done);
			CHECK(PbPipeOutOfMemory(p));
			PbPipeDestroy(p);
			PbTilingFree(&tl, &PbMallocAllocator);
			FakeFree(&fd);
		}
	pb_test_context("a whole run afterwards");
	PbPipeConfigDefaults(&c, 3);
	CHECK(RunPipeline(&s, &c, 20, &got, &st));
	CheckSame(&want, &got);
	FreeSets(&s);
}

/*
 * Run s through c (tiles of per_tile shapes) waiting in steps of 2 ms:
 * the progress read between steps only grows, never counts more tasks
 * than were fed, and ends at every task and every pair (the brute
 * force's, want).  Returns how many steps found the run still going.
 */
static int
RunWatchingProgress(const Sets *s, const PbPipeConfig *c, uint32_t per_tile,
					const Outcome *want)
{
	PbTiling	tl;
	PbPipeline *p;
	PbPipeProgress pr,
				last = {0, 0, 0};
	int			st,
				waits = 0;

	PbTileGrid(&tl, &s->b, s->in_a, per_tile, &PbMallocAllocator, c->threads);
	p = PbPipeStart(c);
	CHECK(p != NULL);
	if (p == NULL)
		return 0;
	for (uint32_t k = 0; k < tl.ntasks; k++)
	{
		CHECK(PbPipeFeed(p, &tl.tasks[k], NULL, NULL));
		PbPipeGetProgress(p, &pr);
		CHECK_INT(pr.fed, k + 1);
		CHECK(pr.done >= last.done && pr.pairs >= last.pairs && pr.done <= pr.fed);
		last = pr;
	}
	while ((st = PbPipeFinishWithin(p, NULL, NULL, 0.002)) < 0)
	{
		waits++;
		PbPipeGetProgress(p, &pr);
		CHECK(pr.done >= last.done && pr.pairs >= last.pairs && pr.done <= pr.fed);
		last = pr;
	}
	CHECK_INT(st, 1);
	PbPipeGetProgress(p, &pr);
	CHECK_INT(pr.fed, tl.ntasks);
	CHECK_INT(pr.done, tl.ntasks);
	CHECK_INT(pr.pairs, want->acc.pairs);
	PbPipeDestroy(p);
	PbTilingFree(&tl, &PbMallocAllocator);
	return waits;
}

/*
 * The progress of a run (PbPipeGetProgress) between the steps of
 * PbPipeFinishWithin: tasks and pairs counted once each, whichever way
 * they went (CPU, a device, migration either way).
 */
void
test_pipeline_progress(void)
{
	Rng			r = {77};
	Sets		s;
	Outcome		want;
	FakeDevice	fd;
	PbPipeDevice dev;
	PbPipeConfig c;
	PbPipeThrottle th;

	MakeSets(&s, &r, 300, 300, 1);
	BruteForce(&s, &want);

	pb_test_context("CPU, filter slowed");
	PbPipeConfigDefaults(&c, 2);
	SlowDown(&c, &th, NULL, 2000, 0);
	CHECK(RunWatchingProgress(&s, &c, 5, &want) > 0);

	dev = FakeOps(&fd);
	pb_test_context("device congested");
	PbPipeConfigDefaults(&c, 2);
	SlowDown(&c, &th, &dev, 0, 2000);
	c.agg_pairs = 32;
	c.batch_pairs = 32;
	CHECK(RunWatchingProgress(&s, &c, 20, &want) > 0);
	FakeFree(&fd);

	dev = FakeOps(&fd);
	pb_test_context("device idle");
	PbPipeConfigDefaults(&c, 2);
	SlowDown(&c, &th, &dev, 2000, 0);
	c.batch_pairs = 64;
	RunWatchingProgress(&s, &c, 20, &want);
	FakeFree(&fd);

	pb_test_context("staged, no threads slowed");
	PbPipeConfigDefaults(&c, 3);
	c.staged = 1;
	RunWatchingProgress(&s, &c, 7, &want);
	FreeSets(&s);
}
