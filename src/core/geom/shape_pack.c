/*
 * shape_pack.c: packing shapes into compact chunks and unpacking them
 * (see shape_pack.h).
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "../base/pb_base.h"
#include "shape_pack.h"

#define VARINT_MAX 10			/* bytes of the longest 64-bit varint */
#define SHAPE_FIXED (2 + VARINT_MAX + 8 + 32)	/* flags .. box, at most */

/* Append v as an unsigned LEB128 varint; return the new end. */
static inline uint8_t *
PutVarint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80)
	{
		*p++ = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t) v;
	return p;
}

/* Append a signed value zigzag-encoded (small magnitudes, few bytes). */
static inline uint8_t *
PutSigned(uint8_t *p, int64_t v)
{
	return PutVarint(p, ((uint64_t) v << 1) ^ (uint64_t) (v >> 63));
}

/* A bounded reader over a chunk body; ok drops to 0 on any overrun. */
typedef struct Reader
{
	const uint8_t *p,
			   *end;
	int			ok;
} Reader;

/* Read an unsigned varint (0 and ok = 0 when malformed or past the end). */
static inline uint64_t
GetVarint(Reader *r)
{
	uint64_t	v = 0;

	for (int shift = 0; shift < 64; shift += 7)
	{
		uint8_t		byte;

		if (r->p >= r->end)
			break;
		byte = *r->p++;
		v |= (uint64_t) (byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	r->ok = 0;
	return 0;
}

/* Read a zigzag-encoded signed varint. */
static inline int64_t
GetSigned(Reader *r)
{
	uint64_t	u = GetVarint(r);

	return (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
}

/* Copy n raw bytes out of the reader (zeros and ok = 0 past the end). */
static inline void
GetBytes(Reader *r, void *dst, size_t n)
{
	if ((size_t) (r->end - r->p) < n)
	{
		memset(dst, 0, n);
		r->ok = 0;
		r->p = r->end;
		return;
	}
	memcpy(dst, r->p, n);
	r->p += n;
}

/* Upper bound of the bytes shape s of b takes packed. */
static size_t
ShapeBound(const PbBatch *b, const PbShape *s)
{
	return SHAPE_FIXED + (size_t) s->nrings * (VARINT_MAX + VARINT_MAX) +
		PbShapePoints(b, s) * (s->kind == PB_SHAPE_INT ? VARINT_MAX : 2 * sizeof(double));
}

/* Write a chunk header at p. */
static void
PutHeader(uint8_t *p, const PbPackCounts *c)
{
	uint32_t	w[4] = {c->shapes, c->rings, c->ipts, c->dpts};

	memcpy(p, w, sizeof(w));
	memcpy(p + sizeof(w), &c->body, sizeof(c->body));
}

/*
 * Write the points of an int ring: the first as two zigzag deltas from
 * the previous point (*px, *py), each next one as one varint, the zigzag
 * delta along the axis it moves on, shifted left, with the axis (0: x,
 * 1: y) in the low bit.  The ring is rectilinear, so one axis suffices.
 */
static uint8_t *
PutIntRing(uint8_t *p, const int32_t *pt, uint32_t n, int64_t *px, int64_t *py)
{
	p = PutSigned(p, pt[0] - *px);
	p = PutSigned(p, pt[1] - *py);
	for (uint32_t k = 1; k < n; k++)
	{
		int64_t		dx = (int64_t) pt[2 * k] - pt[2 * k - 2];
		int64_t		dy = (int64_t) pt[2 * k + 1] - pt[2 * k - 1];
		int64_t		d = dx != 0 ? dx : dy;
		uint64_t	z = ((uint64_t) d << 1) ^ (uint64_t) (d >> 63);

		p = PutVarint(p, (z << 1) | (dx != 0 ? 0 : 1));
	}
	*px = pt[2 * n - 2];
	*py = pt[2 * n - 1];
	return p;
}

/* Write shape s of b tagged tag at p, adding its counts to c; return the end. */
static uint8_t *
PutShape(uint8_t *p, const PbBatch *b, const PbShape *s, int tag, PbPackCounts *c)
{
	int64_t		px = 0,
				py = 0;

	*p++ = (uint8_t) (s->kind | (tag ? 4 : 0));
	*p++ = s->geomtype;
	p = PutVarint(p, s->nrings);
	memcpy(p, &s->area, sizeof(double));
	p += sizeof(double);
	if (s->kind == PB_SHAPE_DOUBLE)
	{
		memcpy(p, &s->box, sizeof(PbBox));
		p += sizeof(PbBox);
	}
	c->shapes++;
	c->rings += s->nrings;
	for (uint32_t r = s->ring_first; r < s->ring_first + s->nrings; r++)
	{
		const PbRing *ring = &b->rings[r];

		p = PutVarint(p, ring->npoints);
		if (s->kind == PB_SHAPE_INT)
		{
			p = PutIntRing(p, b->ipts + 2 * (size_t) ring->start, ring->npoints, &px, &py);
			c->ipts += ring->npoints;
		}
		else
		{
			size_t		bytes = 2 * sizeof(double) * ring->npoints;

			memcpy(p, b->dpts + 2 * (size_t) ring->start, bytes);
			p += bytes;
			c->dpts += ring->npoints;
		}
	}
	return p;
}

void
PbPackerInit(PbPacker *pk, const PbAllocator *mem, uint32_t chunk_shapes)
{
	memset(pk, 0, sizeof(*pk));
	pk->mem = mem;
	pk->chunk_shapes = chunk_shapes > 0 ? chunk_shapes : 1;
}

void
PbPackerClose(PbPacker *pk)
{
	if (!pk->open)
		return;
	pk->counts.body = pk->len - pk->chunk_at - PB_PACK_HEADER_BYTES;
	PutHeader(pk->buf + pk->chunk_at, &pk->counts);
	pk->open = 0;
}

void
PbPackerAdd(PbPacker *pk, const PbBatch *b, uint32_t shape, int tag)
{
	const PbShape *s = &b->shapes[shape];
	size_t		need = pk->len + PB_PACK_HEADER_BYTES + ShapeBound(b, s);

	if (need > pk->cap)
	{
		size_t		cap = pk->cap ? pk->cap : 65536;

		while (cap < need)
			cap *= 2;
		pk->buf = pk->buf ? pk->mem->resize(pk->mem->ctx, pk->buf, cap)
			: pk->mem->alloc(pk->mem->ctx, cap);
		pk->cap = cap;
	}
	if (!pk->open)
	{
		memset(&pk->counts, 0, sizeof(pk->counts));
		pk->chunk_at = pk->len;
		pk->len += PB_PACK_HEADER_BYTES;
		pk->open = 1;
	}
	pk->len = (size_t) (PutShape(pk->buf + pk->len, b, s, tag, &pk->counts) - pk->buf);
	if (pk->counts.shapes == pk->chunk_shapes)
		PbPackerClose(pk);
}

void
PbPackerDrop(PbPacker *pk)
{
	if (!pk->open)
		pk->len = 0;
}

void
PbPackerFree(PbPacker *pk)
{
	if (pk->buf)
		pk->mem->release(pk->mem->ctx, pk->buf);
	pk->buf = NULL;
	pk->len = pk->cap = 0;
	pk->open = 0;
}

int
PbPackReadHeader(const uint8_t *p, size_t len, PbPackCounts *c)
{
	uint32_t	w[4];

	if (len < PB_PACK_HEADER_BYTES)
		return -1;
	memcpy(w, p, sizeof(w));
	memcpy(&c->body, p + sizeof(w), sizeof(c->body));
	c->shapes = w[0];
	c->rings = w[1];
	c->ipts = w[2];
	c->dpts = w[3];
	return c->body <= len - PB_PACK_HEADER_BYTES ? 0 : -1;
}

/*
 * Read one int ring of n points (as PutIntRing wrote it) into out,
 * checking the +-2^30 limit and that the closing edge is axis-aligned too
 * (the others are by construction); grow the box.  (*px, *py) is the
 * previous point, updated.  Returns 0 or -1.
 *
 * This is the leader's hottest loop (every vertex of every worker's rows
 * goes through it), so it is branch-light: one-byte varints (moves under
 * 32 pixels) are read inline, the axis selects the coordinate by a mask,
 * and the limit is checked once, on the ring's extremes: the coordinates
 * are summed modulo 2^64, and every value they take goes through the
 * minimum and maximum, so none out of range, wrapped or not, gets by.
 */
static int
UnpackIntRing(Reader *r, uint32_t n, int32_t *out, int64_t *px, int64_t *py,
			  int32_t box[4])
{
	const int64_t lim = (int64_t) PB_INT_LIMIT;
	uint64_t	x = (uint64_t) *px + (uint64_t) GetSigned(r);
	uint64_t	y = (uint64_t) *py + (uint64_t) GetSigned(r);
	int64_t		xmin = (int64_t) x,
				xmax = (int64_t) x,
				ymin = (int64_t) y,
				ymax = (int64_t) y;
	const uint8_t *p = r->p;

	out[0] = (int32_t) x;
	out[1] = (int32_t) y;
	for (uint32_t k = 1; k < n; k++)
	{
		uint64_t	v,
					d,
					on_y;

		if (p < r->end && *p < 0x80)
			v = *p++;
		else
		{
			r->p = p;
			v = GetVarint(r);
			p = r->p;
		}
		d = (v >> 2) ^ (0 - ((v >> 1) & 1));
		on_y = 0 - (v & 1);
		x += d & ~on_y;
		y += d & on_y;
		out[2 * k] = (int32_t) x;
		out[2 * k + 1] = (int32_t) y;
		xmin = (int64_t) x < xmin ? (int64_t) x : xmin;
		xmax = (int64_t) x > xmax ? (int64_t) x : xmax;
		ymin = (int64_t) y < ymin ? (int64_t) y : ymin;
		ymax = (int64_t) y > ymax ? (int64_t) y : ymax;
	}
	r->p = p;
	if (!r->ok || xmin < -lim || xmax > lim || ymin < -lim || ymax > lim)
		return -1;
	if (out[2 * n - 2] != out[0] && out[2 * n - 1] != out[1])
		return -1;
	box[0] = xmin < box[0] ? (int32_t) xmin : box[0];
	box[1] = ymin < box[1] ? (int32_t) ymin : box[1];
	box[2] = xmax > box[2] ? (int32_t) xmax : box[2];
	box[3] = ymax > box[3] ? (int32_t) ymax : box[3];
	*px = (int64_t) x;
	*py = (int64_t) y;
	return 0;
}

int
PbUnpackChunk(const PbUnpackJob *job, PbBatch *b, int32_t srid, uint8_t *tag)
{
	const PbPackCounts *c = &job->counts;
	Reader		r = {job->chunk + PB_PACK_HEADER_BYTES,
	job->chunk + PB_PACK_HEADER_BYTES + c->body, 1};
	uint32_t	ring = job->ring0,
				ipt = job->ipt0,
				dpt = job->dpt0;
	const uint32_t ring_end = job->ring0 + c->rings,
				ipt_end = job->ipt0 + c->ipts,
				dpt_end = job->dpt0 + c->dpts;

	for (uint32_t i = job->shape0; i < job->shape0 + c->shapes; i++)
	{
		PbShape    *s = &b->shapes[i];
		uint8_t		hdr[2];
		uint64_t	nrings;
		int32_t		box[4] = {INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN};
		int64_t		px = 0,
					py = 0;

		GetBytes(&r, hdr, 2);
		nrings = GetVarint(&r);
		memset(s, 0, sizeof(*s));
		s->kind = hdr[0] & 3;
		s->geomtype = hdr[1];
		s->srid = srid;
		s->ring_first = ring;
		GetBytes(&r, &s->area, sizeof(double));
		if (!r.ok || (hdr[0] & ~7) || s->kind > PB_SHAPE_DOUBLE ||
			nrings > ring_end - ring || (s->kind == PB_SHAPE_EMPTY) != (nrings == 0))
			return -1;
		s->nrings = (uint32_t) nrings;
		tag[i] = (hdr[0] >> 2) & 1;
		if (s->kind == PB_SHAPE_DOUBLE)
			GetBytes(&r, &s->box, sizeof(PbBox));
		for (uint32_t k = 0; k < s->nrings; k++, ring++)
		{
			uint64_t	n = GetVarint(&r);

			if (!r.ok || n == 0)
				return -1;
			b->rings[ring].npoints = (uint32_t) n;
			if (s->kind == PB_SHAPE_INT)
			{
				if (n > ipt_end - ipt ||
					UnpackIntRing(&r, (uint32_t) n, b->ipts + 2 * (size_t) ipt, &px, &py, box) != 0)
					return -1;
				b->rings[ring].start = ipt;
				ipt += (uint32_t) n;
			}
			else
			{
				double	   *out = b->dpts + 2 * (size_t) dpt;

				if (n > dpt_end - dpt)
					return -1;
				GetBytes(&r, out, 2 * sizeof(double) * n);
				for (uint64_t j = 0; j < 2 * n; j++)
					if (!isfinite(out[j]))
						return -1;
				b->rings[ring].start = dpt;
				dpt += (uint32_t) n;
			}
		}
		if (s->kind == PB_SHAPE_INT)
		{
			s->box.xmin = box[0];
			s->box.ymin = box[1];
			s->box.xmax = box[2];
			s->box.ymax = box[3];
		}
		if (!r.ok)
			return -1;
	}
	return (r.p == r.end && ring == ring_end && ipt == ipt_end && dpt == dpt_end) ? 0 : -1;
}

/* A parallel unpack: the jobs, where they go, and whether one failed. */
typedef struct UnpackAll
{
	const PbUnpackJob *jobs;
	PbBatch    *b;
	int32_t		srid;
	uint8_t    *tag;
	atomic_int	failed;
} UnpackAll;

/* Parallel loop body: unpack job i. */
static void
UnpackItem(void *arg, int64_t i)
{
	UnpackAll  *u = arg;

	if (PbUnpackChunk(&u->jobs[i], u->b, u->srid, u->tag) != 0)
		atomic_store(&u->failed, 1);
}

PbStatus
PbUnpackJobs(const PbUnpackJob *jobs, uint32_t n, PbBatch *b, int32_t srid,
			 uint8_t *tag, const PbRun *run)
{
	UnpackAll	u;
	PbStatus	st;

	u.jobs = jobs;
	u.b = b;
	u.srid = srid;
	u.tag = tag;
	atomic_init(&u.failed, 0);
	st = PbParallelFor(run, n, UnpackItem, &u);
	if (atomic_load(&u.failed))
		return PB_ERR_FORMAT;
	return st;
}
