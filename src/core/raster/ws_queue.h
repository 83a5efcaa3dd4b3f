/*
 * ws_queue.h: the monotone priority queue of the CPU watershed's tile
 * floods (watershed_cpu.c): a radix heap over the 64-bit keys of
 * watershed_rules.h.  Dijkstra's algorithm pops keys in non-decreasing
 * order and only pushes keys at least the last one popped, which is all a
 * radix heap needs: an entry sits in the bucket of the highest bit where
 * its key differs from the last popped key (bucket 0: equal to it), so a
 * push is an append and a pop takes bucket 0, or, when that is empty,
 * empties the lowest non-empty bucket into lower ones after making its
 * least key the last popped.  An entry moves down at most 64 times,
 * usually a few, against the binary heap's log2(n) swaps per push and pop.
 * Entries of equal keys come out in no particular order; Dijkstra's final
 * keys do not depend on it.  Internal to the raster core.
 */
#ifndef PB_WS_QUEUE_H
#define PB_WS_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WS_QUEUE_BUCKETS 65		/* bucket 0 (equal keys) and one per bit */

/* One entry: a key and the pixel it was offered to. */
typedef struct WsQueueItem
{
	uint64_t	key;
	uint32_t	pix;
} WsQueueItem;

/* One bucket: a growable array of entries. */
typedef struct WsQueueBucket
{
	WsQueueItem *a;
	size_t		n,
				cap;
} WsQueueBucket;

/* The queue; zero it (or WsQueueInit) before use, WsQueueFree after. */
typedef struct WsQueue
{
	uint64_t	last;			/* the last key popped (0 before any) */
	size_t		n;				/* entries in all buckets */
	WsQueueBucket b[WS_QUEUE_BUCKETS];
} WsQueue;

/* An empty queue. */
void		WsQueueInit(WsQueue *q);

/* Release the queue's memory (it is then empty, ready for reuse). */
void		WsQueueFree(WsQueue *q);

/* Grow bucket b for one more entry; false when memory ran out. */
bool		WsQueueGrow(WsQueueBucket *b);

/*
 * Move the lowest non-empty bucket into lower ones (bucket 0 is empty);
 * false when memory ran out.
 */
bool		WsQueueRefill(WsQueue *q);

/* The bucket of key: the highest bit where it differs from last, plus one. */
static inline int
WsQueueBucketOf(uint64_t last, uint64_t key)
{
	return key == last ? 0 : 64 - __builtin_clzll(key ^ last);
}

/* Push (key, pix), key >= the last key popped; false when memory ran out. */
static inline bool
WsQueuePush(WsQueue *q, uint64_t key, uint32_t pix)
{
	WsQueueBucket *b = &q->b[WsQueueBucketOf(q->last, key)];

	if (b->n == b->cap && !WsQueueGrow(b))
		return false;
	b->a[b->n].key = key;
	b->a[b->n].pix = pix;
	b->n++;
	q->n++;
	return true;
}

/*
 * Pop an entry of the least key into *it (the queue must not be empty);
 * false when memory ran out (moving entries may grow a bucket).
 */
static inline bool
WsQueuePop(WsQueue *q, WsQueueItem *it)
{
	if (q->b[0].n == 0 && !WsQueueRefill(q))
		return false;
	q->n--;
	*it = q->b[0].a[--q->b[0].n];
	return true;
}

#endif							/* PB_WS_QUEUE_H */
