/*
 * raster_par.c: the whole-image passes of raster_par.h on a run's
 * threads.  A pass cuts its items (pixels; rows for the fill-holes marker)
 * into slices, and each slice runs the serial function on a view of its
 * own items, so the result is byte for byte the serial one.  Where the
 * loop stops early (a cancel asked for), the serial function does the
 * whole pass instead, so the result never depends on it.
 */
#include <stdatomic.h>
#include <string.h>

#include "nodata.h"
#include "raster_par.h"

#define PAR_SLICE ((int64_t) 1 << 20)	/* pixels a slice */

typedef struct ParPass ParPass;

/* What one pass does to items [start, start + n). */
typedef void (*ParWork) (ParPass *p, int64_t start, int64_t n);

/* What every slice of one pass shares. */
struct ParPass
{
	ParWork		work;
	int64_t		items,			/* pixels, or rows */
				slice;			/* items a slice */
	const PbRasterBand *band;
	const PbImage *image;
	PbImage    *marker;
	void	   *out;
	uint8_t    *flags;			/* is_nodata, wall or fg */
	const uint8_t *nodata;
	const void *pixels;
	int			bytes;			/* of a pixel of out / pixels */
	int			wkb_type;
	PbReconOp	op;
	atomic_int_fast64_t count;	/* nodata pixels read */
	atomic_int_fast64_t first_bad;	/* first negative marker, INT64_MAX none */
};

/* PbParItemFn: slice k of a pass. */
static void
RunSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start = k * p->slice;

	p->work(p, start, p->items - start < p->slice ? p->items - start : p->slice);
}

/*
 * Run every slice of pass p on run's threads (PAR_SLICE pixels a slice
 * unless p says otherwise); false when the loop stopped early.
 */
static bool
RunSlices(const PbRun *run, ParPass *p)
{
	if (p->slice == 0)
		p->slice = PAR_SLICE;
	return PbParallelFor(run, (p->items + p->slice - 1) / p->slice, RunSlice, p) == PB_OK;
}

/* band, seen from its pixel start on. */
static PbRasterBand
BandFrom(const PbRasterBand *band, int64_t start)
{
	PbRasterBand b = *band;

	b.pixels += start * PbWkbPixBytes(band->wkb_type);
	return b;
}

/* The pixels of im from start on, n of them, as a one-row image. */
static PbImage
RowView(const PbImage *im, int64_t start, int64_t n)
{
	PbImage		v = *im;

	v.width = (int32_t) n;
	v.height = 1;
	v.data = (uint8_t *) im->data + start * PbPixSize(im->type);
	return v;
}

/* A slice of a band read. */
static void
ReadWork(ParPass *p, int64_t start, int64_t n)
{
	PbRasterBand b = BandFrom(p->band, start);

	atomic_fetch_add(&p->count,
					 PbRasterReadBand(&b, n, (uint8_t *) p->out + start * p->bytes,
									  p->flags ? p->flags + start : NULL));
}

int64_t
PbRasterReadBandPar(const PbRun *run, const PbRasterBand *band, int64_t npixels, void *out,
					uint8_t *is_nodata)
{
	ParPass		p = {.work = ReadWork, .items = npixels, .band = band, .out = out,
	.flags = is_nodata, .bytes = PbWkbPixBytes(band->wkb_type)};

	atomic_init(&p.count, 0);
	if (!RunSlices(run, &p))
		return PbRasterReadBand(band, npixels, out, is_nodata);
	return (int64_t) atomic_load(&p.count);
}

/* A slice of a band's pixels written. */
static void
WriteWork(ParPass *p, int64_t start, int64_t n)
{
	PbRasterWritePixels((uint8_t *) p->out + start * p->bytes, p->wkb_type,
						p->pixels ? (const uint8_t *) p->pixels + start * p->bytes : NULL, n);
}

uint8_t *
PbRasterWriteBandPar(const PbRun *run, uint8_t *out, int wkb_type, bool has_nodata,
					 double nodata, const void *pixels, int64_t npixels)
{
	ParPass		p = {.work = WriteWork, .items = npixels, .pixels = pixels,
	.wkb_type = wkb_type, .bytes = PbWkbPixBytes(wkb_type)};

	/* the band's flags and nodata value, then its pixels slice by slice */
	p.out = PbRasterWriteBand(out, wkb_type, has_nodata, nodata, pixels, 0);
	if (!RunSlices(run, &p))
		PbRasterWritePixels(p.out, wkb_type, pixels, npixels);
	return (uint8_t *) p.out + (size_t) npixels * p.bytes;
}

/* A slice of the markers' labels; its first negative pixel kept if earliest. */
static void
MarkerWork(ParPass *p, int64_t start, int64_t n)
{
	PbRasterBand b = BandFrom(p->band, start);
	double		v;
	int64_t		bad = PbWsMarkerLabels(&b, n, (uint32_t *) p->out + start, &v);

	if (bad >= 0)
	{
		int_fast64_t at = atomic_load(&p->first_bad);

		while (start + bad < at &&
			   !atomic_compare_exchange_weak(&p->first_bad, &at, start + bad))
			;
	}
}

int64_t
PbWsMarkerLabelsPar(const PbRun *run, const PbRasterBand *band, int64_t npixels,
					uint32_t *labels, double *negative)
{
	ParPass		p = {.work = MarkerWork, .items = npixels, .band = band, .out = labels};
	int64_t		bad;

	atomic_init(&p.first_bad, INT64_MAX);
	if (!RunSlices(run, &p))
		return PbWsMarkerLabels(band, npixels, labels, negative);
	bad = (int64_t) atomic_load(&p.first_bad);
	if (bad == INT64_MAX)
		return -1;
	PbRasterBandValues(band, bad, 1, negative);
	return bad;
}

/* A slice of a mask's walls. */
static void
WallWork(ParPass *p, int64_t start, int64_t n)
{
	PbRasterBand b = BandFrom(p->band, start);

	PbWsMaskWalls(&b, n, p->flags + start);
}

void
PbWsMaskWallsPar(const PbRun *run, const PbRasterBand *band, int64_t npixels, uint8_t *wall)
{
	ParPass		p = {.work = WallWork, .items = npixels, .band = band, .flags = wall};

	if (!RunSlices(run, &p))
		PbWsMaskWalls(band, npixels, wall);
}

/* A slice of a distance transform's foreground (the test is per pixel). */
static void
ForegroundWork(ParPass *p, int64_t start, int64_t n)
{
	PbImage		view = RowView(p->image, start, n);

	PbDistanceForeground(&view, p->nodata ? p->nodata + start : NULL, p->flags + start);
}

void
PbDistanceForegroundPar(const PbRun *run, const PbImage *mask, const uint8_t *nodata,
						uint8_t *fg)
{
	ParPass		p = {.work = ForegroundWork, .items = (int64_t) mask->width * mask->height,
	.image = mask, .nodata = nodata, .flags = fg};

	if (!RunSlices(run, &p))
		PbDistanceForeground(mask, nodata, fg);
}

/* A slice of a marker clipped to its mask. */
static void
ClipWork(ParPass *p, int64_t start, int64_t n)
{
	PbImage		marker = RowView(p->marker, start, n),
				mask = RowView(p->image, start, n);

	(void) PbReconClip(&marker, &mask, p->op);
}

PbStatus
PbReconClipPar(const PbRun *run, PbImage *marker, const PbImage *mask, PbReconOp op)
{
	ParPass		p = {.work = ClipWork, .items = (int64_t) marker->width * marker->height,
	.image = mask, .marker = marker, .op = op};
	PbImage		none = RowView(marker, 0, 0),
				none_mask = RowView(mask, 0, 0);
	PbStatus	st = PbReconClip(&none, &none_mask, op);	/* checks the types only */

	if (st != PB_OK || p.items == 0)
		return st;
	if (!RunSlices(run, &p))
		return PbReconClip(marker, mask, op);
	return PB_OK;
}

/* A slice of a buffer set to zero. */
static void
ZeroWork(ParPass *p, int64_t start, int64_t n)
{
	memset((uint8_t *) p->out + start, 0, (size_t) n);
}

void
PbZeroPar(const PbRun *run, void *buf, size_t bytes)
{
	ParPass		p = {.work = ZeroWork, .items = (int64_t) bytes, .out = buf};

	if (!RunSlices(run, &p))
		memset(buf, 0, bytes);
}

/* Rows [start, start + n) of a fill-holes marker. */
static void
MarkerRowsWork(ParPass *p, int64_t start, int64_t n)
{
	PbFillHolesMarkerRows(p->image, p->marker, (int32_t) start, (int32_t) (start + n));
}

void
PbFillHolesMarkerPar(const PbRun *run, const PbImage *image, PbImage *marker)
{
	ParPass		p = {.work = MarkerRowsWork, .items = image->height, .image = image,
	.marker = marker, .slice = PAR_SLICE / image->width > 0 ? PAR_SLICE / image->width : 1};

	if (!RunSlices(run, &p))
		PbFillHolesMarker(image, marker);
}
