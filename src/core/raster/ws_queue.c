/*
 * ws_queue.c: the radix heap of ws_queue.h, its slow paths: growing a
 * bucket and refilling bucket 0 from the lowest non-empty bucket.
 */
#include <stdlib.h>
#include <string.h>

#include "ws_queue.h"

#define WS_QUEUE_FIRST_CAP 256	/* entries of a bucket's first array */

/* Empty the queue's fields (no memory held yet). */
void
WsQueueInit(WsQueue *q)
{
	memset(q, 0, sizeof(*q));
}

/* Free every bucket's array and start over empty. */
void
WsQueueFree(WsQueue *q)
{
	for (int i = 0; i < WS_QUEUE_BUCKETS; i++)
		free(q->b[i].a);
	WsQueueInit(q);
}

/* Double bucket b's array (or give it its first one). */
bool
WsQueueGrow(WsQueueBucket *b)
{
	size_t		cap = b->cap ? b->cap * 2 : WS_QUEUE_FIRST_CAP;
	WsQueueItem *a = realloc(b->a, cap * sizeof(WsQueueItem));

	if (a == NULL)
		return false;
	b->a = a;
	b->cap = cap;
	return true;
}

/*
 * Bucket 0 is empty: make the least key of the lowest non-empty bucket
 * the last popped and move that bucket's entries to the buckets of their
 * keys relative to it, all lower (the keys agree with the new last above
 * the bucket's bit).  The emptied bucket keeps its array for later pushes.
 */
bool
WsQueueRefill(WsQueue *q)
{
	WsQueueBucket *src;
	uint64_t	min = UINT64_MAX;
	int			i = 1;

	while (q->b[i].n == 0)
		i++;
	src = &q->b[i];
	for (size_t k = 0; k < src->n; k++)
		if (src->a[k].key < min)
			min = src->a[k].key;
	q->last = min;
	while (src->n > 0)
	{
		WsQueueItem it = src->a[src->n - 1];
		WsQueueBucket *dst = &q->b[WsQueueBucketOf(min, it.key)];

		if (dst->n == dst->cap && !WsQueueGrow(dst))
			return false;
		dst->a[dst->n++] = it;
		src->n--;
	}
	return true;
}
