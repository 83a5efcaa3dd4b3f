/*
 * pool.c: the block pool behind a PbAllocator (see pool.h).
 *
 * Every block starts with a 32-byte header (its class, the size asked
 * for, and its links in the list of blocks handed out), so release needs
 * no size, payloads keep malloc's alignment, and destroying the pool frees
 * even blocks a thread lost when it ran out of memory mid-task.  A cached
 * block links to the next through its payload.  When malloc fails the
 * pool calls PbOutOfMemory.  Under AddressSanitizer the bytes nobody may
 * touch (cached blocks, the slack past the size asked for) are poisoned,
 * so a use after release is still reported although the memory does not
 * go back to malloc.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/pb_base.h"
#include "pool.h"

#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif

#ifdef POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void) 0)
#define UNPOISON(p, n) ((void) 0)
#endif

#define POOL_MIN_SHIFT 6		/* the smallest class: 64 bytes */
#define POOL_MAX_SHIFT 47		/* the largest: 128 TiB */
#define POOL_CLASSES (2 * (POOL_MAX_SHIFT - POOL_MIN_SHIFT) + 1)

/* What precedes every payload. */
typedef struct BlockHead
{
	uint64_t	cls;			/* size class */
	uint64_t	size;			/* bytes asked for */
	struct BlockHead *prev,
			   *next;			/* in the list of live blocks */
} BlockHead;

struct PbPool
{
	PbAllocator mem;			/* ctx: the pool */
	pthread_mutex_t lock;
	BlockHead  *free[POOL_CLASSES]; /* cached blocks of each class */
	BlockHead  *live;			/* blocks handed out */
	PbPoolStats st;
};

/* Bytes of class c, header included: 64, 96, 128, 192, 256, ... */
static size_t
ClassBytes(int c)
{
	return c % 2 ? (size_t) 3 << (POOL_MIN_SHIFT - 1 + c / 2)
		: (size_t) 1 << (POOL_MIN_SHIFT + c / 2);
}

/* Bytes a block for size bytes needs, header included; too big: out of memory. */
static size_t
Need(size_t size)
{
	if (size > ClassBytes(POOL_CLASSES - 1) - sizeof(BlockHead))
		PbOutOfMemory();
	return size + sizeof(BlockHead);
}

/* Put h at the head of the live list (lock held). */
static void
LinkLive(PbPool *pool, BlockHead *h)
{
	h->prev = NULL;
	h->next = pool->live;
	if (pool->live)
		pool->live->prev = h;
	pool->live = h;
}

/* Take h out of the live list (lock held). */
static void
UnlinkLive(PbPool *pool, BlockHead *h)
{
	if (h->prev)
		h->prev->next = h->next;
	else
		pool->live = h->next;
	if (h->next)
		h->next->prev = h->prev;
}

/* The smallest class of at least need bytes (need <= the largest class). */
static int
ClassOf(size_t need)
{
	int			m;

	if (need <= ((size_t) 1 << POOL_MIN_SHIFT))
		return 0;
	/* 2^(m-1) < need <= 2^m: the class 1.5 * 2^(m-1) or 2^m */
	m = 64 - __builtin_clzll((unsigned long long) need - 1);
	if (need <= (size_t) 3 << (m - 2))
		return 2 * (m - 1 - POOL_MIN_SHIFT) + 1;
	return 2 * (m - POOL_MIN_SHIFT);
}

/* The link to the next cached block, kept in a cached block's payload. */
static BlockHead **
Link(BlockHead *h)
{
	return (BlockHead **) (h + 1);
}

/* Give a block leaving the pool back to malloc. */
static void
FreeBlock(BlockHead *h)
{
	UNPOISON(h + 1, ClassBytes((int) h->cls) - sizeof(BlockHead));
	free(h);
}

/* Note bytes handed out, with the peaks (lock held). */
static void
CountOut(PbPool *pool, size_t bytes)
{
	pool->st.allocs++;
	pool->st.live += bytes;
	if (pool->st.live > pool->st.peak_live)
		pool->st.peak_live = pool->st.live;
	if (pool->st.live + pool->st.cached > pool->st.peak_held)
		pool->st.peak_held = pool->st.live + pool->st.cached;
}

/*
 * A block of class c, counted and on the live list: a cached one when
 * there is one, else from malloc (PbOutOfMemory when that fails).
 */
static BlockHead *
TakeBlock(PbPool *pool, int c)
{
	size_t		bytes = ClassBytes(c);
	BlockHead  *h;

	pthread_mutex_lock(&pool->lock);
	h = pool->free[c];
	if (h != NULL)
	{
		UNPOISON(Link(h), sizeof(BlockHead *));
		pool->free[c] = *Link(h);
		pool->st.cached -= bytes;
		CountOut(pool, bytes);
		LinkLive(pool, h);
		pthread_mutex_unlock(&pool->lock);
		return h;
	}
	pthread_mutex_unlock(&pool->lock);
	if ((h = malloc(bytes)) == NULL)
		PbOutOfMemory();
	h->cls = (uint64_t) c;
	pthread_mutex_lock(&pool->lock);
	pool->st.fresh++;
	CountOut(pool, bytes);
	LinkLive(pool, h);
	pthread_mutex_unlock(&pool->lock);
	return h;
}

/* Hand out a block's first size bytes; the rest of it is off limits. */
static void *
Open(BlockHead *h, size_t size)
{
	h->size = size;
	POISON(h + 1, ClassBytes((int) h->cls) - sizeof(BlockHead));
	UNPOISON(h + 1, size);
	return h + 1;
}

/* alloc: a block of the class that fits size. */
static void *
PoolAlloc(void *ctx, size_t size)
{
	return Open(TakeBlock((PbPool *) ctx, ClassOf(Need(size))), size);
}

/*
 * release: cache the block while the cache stays within the peak of live
 * bytes, else give it back to malloc.  NULL is ignored, as free does.
 */
static void
PoolRelease(void *ctx, void *ptr)
{
	PbPool	   *pool = (PbPool *) ctx;
	BlockHead  *h;
	size_t		bytes;
	int			keep;

	if (ptr == NULL)
		return;
	h = (BlockHead *) ptr - 1;
	bytes = ClassBytes((int) h->cls);
	pthread_mutex_lock(&pool->lock);
	UnlinkLive(pool, h);
	pool->st.live -= bytes;
	keep = pool->st.cached + bytes <= pool->st.peak_live;
	if (keep)
	{
		UNPOISON(Link(h), sizeof(BlockHead *));
		*Link(h) = pool->free[h->cls];
		POISON(h + 1, bytes - sizeof(BlockHead));
		pool->free[h->cls] = h;
		pool->st.cached += bytes;
	}
	pthread_mutex_unlock(&pool->lock);
	if (!keep)
		FreeBlock(h);
}

/* resize: in place while the class fits, else move to a block that does. */
static void *
PoolResize(void *ctx, void *ptr, size_t size)
{
	BlockHead  *h;
	void	   *moved;

	if (ptr == NULL)
		return PoolAlloc(ctx, size);
	h = (BlockHead *) ptr - 1;
	if (Need(size) <= ClassBytes((int) h->cls))
		return Open(h, size);
	moved = PoolAlloc(ctx, size);
	memcpy(moved, ptr, h->size < size ? h->size : size);
	PoolRelease(ctx, ptr);
	return moved;
}

PbPool *
PbPoolCreate(void)
{
	PbPool	   *pool = malloc(sizeof(PbPool));

	if (pool == NULL)
		return NULL;
	memset(pool, 0, sizeof(*pool));
	pool->mem.alloc = PoolAlloc;
	pool->mem.resize = PoolResize;
	pool->mem.release = PoolRelease;
	pool->mem.ctx = pool;
	pthread_mutex_init(&pool->lock, NULL);
	return pool;
}

void
PbPoolDestroy(PbPool *pool)
{
	if (pool == NULL)
		return;
	for (int c = 0; c < POOL_CLASSES; c++)
		while (pool->free[c] != NULL)
		{
			BlockHead  *h = pool->free[c];

			UNPOISON(Link(h), sizeof(BlockHead *));
			pool->free[c] = *Link(h);
			FreeBlock(h);
		}
	while (pool->live != NULL)
	{
		BlockHead  *h = pool->live;

		pool->live = h->next;
		FreeBlock(h);
	}
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

const PbAllocator *
PbPoolAllocator(PbPool *pool)
{
	return &pool->mem;
}

void
PbPoolGetStats(PbPool *pool, PbPoolStats *stats)
{
	pthread_mutex_lock(&pool->lock);
	*stats = pool->st;
	pthread_mutex_unlock(&pool->lock);
}
