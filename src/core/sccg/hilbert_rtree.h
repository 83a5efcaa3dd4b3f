/*
 * hilbert_rtree.h: a packed Hilbert R-tree (Kamel & Faloutsos, "On packing
 * R-trees", CIKM 1993) over boxes, for the filter stage of the SCCG
 * pipeline: find the pairs of shapes of two sets whose boxes intersect.
 *
 * The tree is bulk-loaded once and read-only afterwards.  "Intersects" is
 * closed-box intersection (touching boxes intersect), like PostGIS's &&:
 * a.xmin <= b.xmax && b.xmin <= a.xmax && a.ymin <= b.ymax && b.ymin <= a.ymax.
 * Any box is accepted; the answers are exactly those of that test applied
 * to every entry (a box with a NaN coordinate never intersects anything).
 *
 * Threads: a built tree holds no mutable state.  PbRTreeSearch and
 * PbRTreeJoin may run concurrently on the same trees; each call keeps its
 * own traversal stack, sized from the tree shape computed at build time:
 * Search on the C stack (from the tree's allocator only for fanouts above
 * 64 on large trees), Join from the allocator of its first tree, released
 * before it returns.  The allocator must therefore be thread-safe when
 * calls run concurrently (malloc is; palloc is not, but PostgreSQL runs
 * one thread per backend anyway).  Trees keep a pointer to mem, which
 * must outlive them.
 */
#ifndef PB_HILBERT_RTREE_H
#define PB_HILBERT_RTREE_H

#include <stdint.h>

#include "../geom/batch.h"

/* Fanouts are clamped to [2, PB_RTREE_MAX_FANOUT]. */
#define PB_RTREE_MAX_FANOUT 256

/* Order of the Hilbert curve used to sort entries (2^16 x 2^16 grid). */
#define PB_RTREE_HILBERT_ORDER 16

typedef struct PbRTree PbRTree;

/* One indexed box and the caller's id for it. */
typedef struct PbRTreeEntry
{
	PbBox		box;
	uint32_t	id;
} PbRTreeEntry;

/*
 * Build over n entries (n may be 0): sort by the Hilbert value of box
 * centres on a 2^16 x 2^16 grid over the entries' extent, then pack
 * fanout children per node bottom-up.  Memory from mem (never NULL).
 */
extern PbRTree *PbRTreeBuild(const PbAllocator *mem,
							 const PbRTreeEntry *entries, uint32_t n,
							 int fanout);
extern void PbRTreeFree(PbRTree *t);
extern uint32_t PbRTreeSize(const PbRTree *t);
/* Box of all entries (when empty: xmin = ymin = +inf, xmax = ymax = -inf). */
extern PbBox PbRTreeExtent(const PbRTree *t);
/* Call emit(ctx, id) for every entry whose box intersects q. */
extern void PbRTreeSearch(const PbRTree *t, const PbBox *q,
						  void (*emit) (void *ctx, uint32_t id), void *ctx);
/*
 * Call emit(ctx, id_a, id_b) for every pair (a of ta, b of tb) whose boxes
 * intersect, by a synchronized depth-first traversal of both trees; calls
 * ta's check_interrupts now and then (may longjmp).
 */
extern void PbRTreeJoin(const PbRTree *ta, const PbRTree *tb,
						void (*emit) (void *ctx, uint32_t a, uint32_t b),
						void *ctx);
/*
 * b rounded outward to float4 exactly as PostGIS stores boxes (clamped to
 * +-FLT_MAX like PostGIS's next_float_down/up), still as doubles: the
 * rounding of geom/box_float4.h, which the filter kernel applies too.
 */
extern PbBox PbBoxAsPostgisFloat(PbBox b);

/*
 * Index of cell (x, y) along the Hilbert curve of the 2^order x 2^order
 * grid (1 <= order <= 16; x, y < 2^order).  Exposed for the tests.
 */
extern uint32_t PbHilbertIndex(uint32_t x, uint32_t y, int order);

#endif							/* PB_HILBERT_RTREE_H */
