/*
 * bitmap_solid.c: PbSolidFor of bitmap_solid.h.  Each scratch space keeps
 * the pixels of one shape and the two shapes of the pair it served last.
 */
#include <string.h>

#include "bitmap_fill.h"
#include "bitmap_rules.h"
#include "bitmap_solid.h"

#define NO_SHAPE UINT32_MAX

struct PbSolidCache
{
	uint64_t	serial;			/* the batch of the shapes below */
	uint32_t	last_p,			/* the pair served last */
				last_q;
	uint32_t	again,			/* a shape met in the last run pairs in a row */
				run;			/* 0: none */
	PbSolidView kept;			/* kept.shape: NO_SHAPE when none */
	uint64_t   *bits;			/* kept.bits, with room for cap words */
	size_t		cap;
};

/* The cache of sc, made empty for batch serial when it served another. */
static PbSolidCache *
CacheOf(PbScratch *sc, uint64_t serial)
{
	PbSolidCache *c = sc->solid;

	if (c == NULL)
	{
		c = sc->solid = sc->mem->alloc(sc->mem->ctx, sizeof(PbSolidCache));
		memset(c, 0, sizeof(*c));
	}
	if (c->serial != serial)
	{
		c->serial = serial;
		c->last_p = c->last_q = c->kept.shape = c->again = NO_SHAPE;
		c->run = 0;
	}
	return c;
}

/*
 * Keep the pixels of shape s (index i) of batch b over its box: its edge
 * flags, spread down each column (through a running parity row past the
 * spare one) and along each row; nw words a row, rows rows, the bits past
 * the box cleared (its right side's edges lie on the window's edge, which
 * flips nothing).
 */
static void
Keep(PbScratch *sc, PbSolidCache *c, const PbBatch *b, const PbShape *s, uint32_t i,
	 size_t nw, size_t rows)
{
	PbIWindow	w = {(int64_t) s->box.xmin, (int64_t) s->box.ymin,
	(int64_t) s->box.xmax, (int64_t) s->box.ymax};
	size_t		words = nw * (rows + 2);
	uint64_t   *bits,
			   *parity,
				lastmask = PbBitmapLastMask(w.x1 - w.x0);

	c->kept.shape = NO_SHAPE;	/* until filled: the allocation may fail */
	if (words > c->cap)
	{
		if (c->bits)
			sc->mem->release(sc->mem->ctx, c->bits);
		c->bits = NULL;
		c->cap = 0;
		c->bits = sc->mem->alloc(sc->mem->ctx, words * sizeof(uint64_t));
		c->cap = words;
	}
	bits = c->bits;
	parity = bits + (rows + 1) * nw;
	memset(bits, 0, words * sizeof(uint64_t));
	PbBitmapFillFlags(sc, bits, nw, b, s, &w);
	for (size_t row = 0; row < rows; row++)
	{
		uint64_t	carry = 0;

		for (size_t k = 0; k < nw; k++)
		{
			uint64_t	v = PbBitmapPrefixXor(parity[k] ^= bits[row * nw + k], carry);

			carry = v >> 63;
			bits[row * nw + k] = v;
		}
		bits[row * nw + nw - 1] &= lastmask;
	}
	c->kept.shape = i;
	c->kept.x0 = w.x0;
	c->kept.y0 = w.y0;
	c->kept.nw = nw;
	c->kept.bits = bits;
}

/*
 * The kept shape when the pair has it; else count the run of the shape the
 * last pairs share and keep it when the run is long enough for its size.
 */
bool
PbSolidFor(PbScratch *sc, const PbBatch *b, uint32_t ip, uint32_t iq, size_t window_words,
		   PbSolidView *out)
{
	PbSolidCache *c;
	const PbShape *s;
	size_t		nw,
				rows;

	if (!sc->keep_runs || b->serial == 0)
		return false;
	c = CacheOf(sc, b->serial);
	if (c->kept.shape == ip || c->kept.shape == iq)
	{
		*out = c->kept;
		return true;
	}
	if (c->run > 0 && (c->again == ip || c->again == iq))
		c->run++;
	else
	{
		c->again = iq == c->last_p || iq == c->last_q ? iq
			: ip == c->last_p || ip == c->last_q ? ip : NO_SHAPE;
		c->run = c->again == NO_SHAPE ? 0 : 2;
	}
	c->last_p = ip;
	c->last_q = iq;
	if (c->run < PB_SOLID_MIN_RUN)
		return false;
	s = &b->shapes[c->again];
	nw = (size_t) (((int64_t) s->box.xmax - (int64_t) s->box.xmin + 63) / 64);
	rows = (size_t) ((int64_t) s->box.ymax - (int64_t) s->box.ymin);
	if ((double) nw * rows > PB_SOLID_MAX_WORDS ||
		nw * rows > c->run * (PB_SOLID_WINDOWS * window_words + PB_SOLID_SLACK_WORDS))
		return false;
	Keep(sc, c, b, s, c->again, nw, rows);
	*out = c->kept;
	return true;
}

/* Release the kept bitmap and the cache. */
void
PbSolidCacheFree(PbScratch *sc)
{
	PbSolidCache *c = sc->solid;

	if (c == NULL)
		return;
	if (c->bits)
		sc->mem->release(sc->mem->ctx, c->bits);
	sc->mem->release(sc->mem->ctx, c);
	sc->solid = NULL;
}
