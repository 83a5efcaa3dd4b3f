/*
 * test_pool.c: the block pool (pool.c): every size gets room for what was
 * asked, resizes keep contents, released blocks serve later requests, what
 * the pool holds stays within twice the peak of live bytes, and threads
 * may share it.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <string.h>

#include "../src/core/sccg/pool.h"
#include "testutil.h"

#define POOL_THREADS 4
#define POOL_ROUNDS 3000
#define POOL_SLOTS 8

/* Whether n bytes at p all equal v. */
static int
AllBytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* Sizes around the class edges: usable room, and resizes that keep contents. */
void
test_pool_sizes_and_resize(void)
{
	static const size_t sizes[] = {0, 1, 47, 48, 49, 80, 81, 112, 113, 1000, 4096,
	65536, 100000, (size_t) 3 << 19};
	PbPool	   *pool = PbPoolCreate();
	const PbAllocator *mem = PbPoolAllocator(pool);
	PbPoolStats st;

	for (int i = 0; i < (int) (sizeof(sizes) / sizeof(sizes[0])); i++)
	{
		uint8_t    *p = mem->alloc(mem->ctx, sizes[i]);
		uint8_t    *q;

		pb_test_context("size %zu", sizes[i]);
		CHECK(((uintptr_t) p & 15) == 0);
		memset(p, 0xa5, sizes[i]);
		/* grow across classes: the old bytes move along */
		q = mem->resize(mem->ctx, p, 2 * sizes[i] + 200);
		CHECK(AllBytes(q, sizes[i], 0xa5));
		memset(q, 0x5a, 2 * sizes[i] + 200);
		/* shrink: in place, contents kept */
		p = mem->resize(mem->ctx, q, sizes[i]);
		CHECK(p == q);
		CHECK(AllBytes(p, sizes[i], 0x5a));
		mem->release(mem->ctx, p);
	}
	/* resize of NULL allocates and release of NULL does nothing, as in libc */
	mem->release(mem->ctx, mem->resize(mem->ctx, NULL, 10));
	mem->release(mem->ctx, NULL);
	PbPoolGetStats(pool, &st);
	CHECK_INT(st.live, 0);
	CHECK(st.cached <= st.peak_live);
	PbPoolDestroy(pool);
}

/*
 * Rounds of the same requests reuse the first round's blocks; requests of
 * ever larger sizes cannot, and then the cache stays within the peak.
 */
void
test_pool_reuse_bounded(void)
{
	PbPool	   *pool = PbPoolCreate();
	const PbAllocator *mem = PbPoolAllocator(pool);
	PbPoolStats st;
	void	   *p[16];
	uint64_t	fresh;

	for (int round = 0; round < 50; round++)
	{
		for (int i = 0; i < 16; i++)
			p[i] = mem->alloc(mem->ctx, (size_t) 100 << (i % 8));
		for (int i = 0; i < 16; i++)
			mem->release(mem->ctx, p[i]);
	}
	PbPoolGetStats(pool, &st);
	CHECK_INT(st.fresh, 16);
	CHECK_INT(st.allocs, 50 * 16);
	fresh = st.fresh;
	/* one block at a time, each larger than the last: each is new */
	for (int i = 0; i < 12; i++)
	{
		void	   *q = mem->alloc(mem->ctx, (size_t) 20000 << i);

		mem->release(mem->ctx, q);
		PbPoolGetStats(pool, &st);
		CHECK(st.cached <= st.peak_live);
		CHECK(st.peak_held <= 2 * st.peak_live);
	}
	CHECK_INT(st.fresh, fresh + 12);
	CHECK_INT(st.live, 0);
	PbPoolDestroy(pool);
}

/* What each thread of the shared-pool test works with. */
typedef struct PoolWorker
{
	const PbAllocator *mem;
	Rng			rng;
	uint8_t		mark;
	int			bad;
} PoolWorker;

/* Allocate, fill, check and release blocks of random sizes, a few live. */
static void *
PoolWorkerMain(void *arg)
{
	PoolWorker *w = (PoolWorker *) arg;
	uint8_t    *live[POOL_SLOTS] = {0};
	size_t		size[POOL_SLOTS] = {0};

	for (int k = 0; k < POOL_ROUNDS; k++)
	{
		int			s = (int) (RngNext(&w->rng) % POOL_SLOTS);

		if (live[s])
		{
			w->bad += !AllBytes(live[s], size[s], w->mark);
			w->mem->release(w->mem->ctx, live[s]);
		}
		size[s] = (size_t) (RngNext(&w->rng) % 5000);
		live[s] = w->mem->alloc(w->mem->ctx, size[s]);
		memset(live[s], w->mark, size[s]);
	}
	for (int s = 0; s < POOL_SLOTS; s++)
		if (live[s])
		{
			w->bad += !AllBytes(live[s], size[s], w->mark);
			w->mem->release(w->mem->ctx, live[s]);
		}
	return NULL;
}

/* Threads sharing one pool never see each other's bytes. */
void
test_pool_threads(void)
{
	PbPool	   *pool = PbPoolCreate();
	PoolWorker	w[POOL_THREADS];
	pthread_t	th[POOL_THREADS];
	PbPoolStats st;

	for (int i = 0; i < POOL_THREADS; i++)
	{
		w[i] = (PoolWorker) {PbPoolAllocator(pool), {(uint64_t) i + 1}, (uint8_t) (i + 1), 0};
		CHECK(pthread_create(&th[i], NULL, PoolWorkerMain, &w[i]) == 0);
	}
	for (int i = 0; i < POOL_THREADS; i++)
	{
		pthread_join(th[i], NULL);
		CHECK_INT(w[i].bad, 0);
	}
	PbPoolGetStats(pool, &st);
	CHECK_INT(st.allocs, POOL_THREADS * POOL_ROUNDS);
	CHECK_INT(st.live, 0);
	CHECK(st.fresh < st.allocs / 10);
	CHECK(st.peak_held <= 2 * st.peak_live);
	PbPoolDestroy(pool);
}
