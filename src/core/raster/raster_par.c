/*
 * raster_par.c: the whole-image passes of raster_par.h on a run's
 * threads.  The pixels are cut into slices of PAR_SLICE pixels (rows for
 * the fill-holes marker); each slice runs the serial function on a view
 * of its own pixels, so the result is byte for byte the serial one.
 */
#include <stdatomic.h>
#include <string.h>

#include "nodata.h"
#include "raster_par.h"

#define PAR_SLICE ((int64_t) 1 << 20)	/* pixels a slice */

/* What every slice of one pass shares. */
typedef struct ParPass
{
	const PbRasterBand *band;
	const PbImage *image;
	PbImage    *marker;
	int64_t		npixels;
	void	   *out;
	uint8_t    *flags;			/* is_nodata, wall or fg */
	const uint8_t *nodata;
	const void *pixels;
	int			bytes;			/* of a pixel of out / pixels */
	int			wkb_type;
	PbReconOp	op;
	atomic_int_fast64_t count;	/* nodata pixels read */
	atomic_int_fast64_t first_bad;	/* first negative marker, INT64_MAX none */
	double		bad_value;
} ParPass;

/* Pixels [start, end) of slice k. */
static void
Slice(const ParPass *p, int64_t k, int64_t *start, int64_t *n)
{
	*start = k * PAR_SLICE;
	*n = p->npixels - *start < PAR_SLICE ? p->npixels - *start : PAR_SLICE;
}

/* The number of slices of npixels. */
static int64_t
Slices(int64_t npixels)
{
	return (npixels + PAR_SLICE - 1) / PAR_SLICE;
}

/* band, seen from its pixel start on. */
static PbRasterBand
BandFrom(const PbRasterBand *band, int64_t start)
{
	PbRasterBand b = *band;

	b.pixels += start * PbWkbPixBytes(band->wkb_type);
	return b;
}

/* PbParItemFn: slice k of a band read. */
static void
ReadSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start,
				n;
	PbRasterBand b;

	Slice(p, k, &start, &n);
	b = BandFrom(p->band, start);
	atomic_fetch_add(&p->count,
					 PbRasterReadBand(&b, n, (uint8_t *) p->out + start * p->bytes,
									  p->flags ? p->flags + start : NULL));
}

int64_t
PbRasterReadBandPar(const PbRun *run, const PbRasterBand *band, int64_t npixels, void *out,
					uint8_t *is_nodata)
{
	ParPass		p = {.band = band, .npixels = npixels, .out = out, .flags = is_nodata,
	.bytes = PbWkbPixBytes(band->wkb_type)};

	atomic_init(&p.count, 0);
	if (PbParallelFor(run, Slices(npixels), ReadSlice, &p) != PB_OK)
		return PbRasterReadBand(band, npixels, out, is_nodata);
	return (int64_t) atomic_load(&p.count);
}

/* PbParItemFn: slice k of a band's pixels written. */
static void
WriteSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start,
				n;

	Slice(p, k, &start, &n);
	PbRasterWritePixels((uint8_t *) p->out + start * p->bytes, p->wkb_type,
						p->pixels ? (const uint8_t *) p->pixels + start * p->bytes : NULL, n);
}

uint8_t *
PbRasterWriteBandPar(const PbRun *run, uint8_t *out, int wkb_type, bool has_nodata,
					 double nodata, const void *pixels, int64_t npixels)
{
	ParPass		p = {.npixels = npixels, .pixels = pixels, .wkb_type = wkb_type,
	.bytes = PbWkbPixBytes(wkb_type)};

	/* the band's flags and nodata value, then its pixels slice by slice */
	p.out = PbRasterWriteBand(out, wkb_type, has_nodata, nodata, pixels, 0);
	if (PbParallelFor(run, Slices(npixels), WriteSlice, &p) != PB_OK)
		PbRasterWritePixels(p.out, wkb_type, pixels, npixels);
	return (uint8_t *) p.out + (size_t) npixels * p.bytes;
}

/* PbParItemFn: slice k of the markers' labels. */
static void
MarkerSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start,
				n,
				bad;
	double		v;
	PbRasterBand b;

	Slice(p, k, &start, &n);
	b = BandFrom(p->band, start);
	bad = PbWsMarkerLabels(&b, n, (uint32_t *) p->out + start, &v);
	if (bad >= 0)
	{
		int_fast64_t at = atomic_load(&p->first_bad);

		/* keep the first negative pixel of the image, whichever slice ends first */
		while (start + bad < at &&
			   !atomic_compare_exchange_weak(&p->first_bad, &at, start + bad))
			;
	}
}

int64_t
PbWsMarkerLabelsPar(const PbRun *run, const PbRasterBand *band, int64_t npixels,
					uint32_t *labels, double *negative)
{
	ParPass		p = {.band = band, .npixels = npixels, .out = labels};
	int64_t		bad;

	atomic_init(&p.first_bad, INT64_MAX);
	if (PbParallelFor(run, Slices(npixels), MarkerSlice, &p) != PB_OK)
		return PbWsMarkerLabels(band, npixels, labels, negative);
	bad = (int64_t) atomic_load(&p.first_bad);
	if (bad == INT64_MAX)
		return -1;
	PbRasterBandValues(band, bad, 1, negative);
	return bad;
}

/* PbParItemFn: slice k of a mask's walls. */
static void
WallSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start,
				n;
	PbRasterBand b;

	Slice(p, k, &start, &n);
	b = BandFrom(p->band, start);
	PbWsMaskWalls(&b, n, p->flags + start);
}

void
PbWsMaskWallsPar(const PbRun *run, const PbRasterBand *band, int64_t npixels, uint8_t *wall)
{
	ParPass		p = {.band = band, .npixels = npixels, .flags = wall};

	if (PbParallelFor(run, Slices(npixels), WallSlice, &p) != PB_OK)
		PbWsMaskWalls(band, npixels, wall);
}

/* PbParItemFn: slice k of a distance transform's foreground. */
static void
ForegroundSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start,
				n;
	PbImage		view = *p->image;

	Slice(p, k, &start, &n);
	/* the slice as an image of one row: the test is per pixel */
	view.width = (int32_t) n;
	view.height = 1;
	view.data = (uint8_t *) p->image->data + start * PbPixSize(p->image->type);
	PbDistanceForeground(&view, p->nodata ? p->nodata + start : NULL, p->flags + start);
}

void
PbDistanceForegroundPar(const PbRun *run, const PbImage *mask, const uint8_t *nodata,
						uint8_t *fg)
{
	ParPass		p = {.image = mask, .npixels = (int64_t) mask->width * mask->height,
	.nodata = nodata, .flags = fg};

	if (PbParallelFor(run, Slices(p.npixels), ForegroundSlice, &p) != PB_OK)
		PbDistanceForeground(mask, nodata, fg);
}

/* The slice of image im from pixel start on, n pixels, as a one-row image. */
static PbImage
RowView(const PbImage *im, int64_t start, int64_t n)
{
	PbImage		v = *im;

	v.width = (int32_t) n;
	v.height = 1;
	v.data = (uint8_t *) im->data + start * PbPixSize(im->type);
	return v;
}

/* PbParItemFn: slice k of a marker clipped to its mask. */
static void
ClipSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start,
				n;
	PbImage		marker,
				mask;

	Slice(p, k, &start, &n);
	marker = RowView(p->marker, start, n);
	mask = RowView(p->image, start, n);
	(void) PbReconClip(&marker, &mask, p->op);
}

PbStatus
PbReconClipPar(const PbRun *run, PbImage *marker, const PbImage *mask, PbReconOp op)
{
	ParPass		p = {.image = mask, .marker = marker, .op = op,
	.npixels = (int64_t) marker->width * marker->height};
	PbImage		none = RowView(marker, 0, 0),
				none_mask = RowView(mask, 0, 0);
	PbStatus	st = PbReconClip(&none, &none_mask, op);	/* checks the types only */

	if (st != PB_OK || p.npixels == 0)
		return st;
	if (PbParallelFor(run, Slices(p.npixels), ClipSlice, &p) != PB_OK)
		return PbReconClip(marker, mask, op);
	return PB_OK;
}

/* PbParItemFn: slice k of a buffer set to zero. */
static void
ZeroSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		start,
				n;

	Slice(p, k, &start, &n);
	memset((uint8_t *) p->out + start, 0, (size_t) n);
}

void
PbZeroPar(const PbRun *run, void *buf, size_t bytes)
{
	ParPass		p = {.out = buf, .npixels = (int64_t) bytes};

	if (PbParallelFor(run, Slices(p.npixels), ZeroSlice, &p) != PB_OK)
		memset(buf, 0, bytes);
}

/* PbParItemFn: the rows of slice k of a fill-holes marker. */
static void
MarkerRowsSlice(void *arg, int64_t k)
{
	ParPass    *p = arg;
	int64_t		rows = PAR_SLICE / p->image->width > 0 ? PAR_SLICE / p->image->width : 1,
				y0 = k * rows,
				y1 = y0 + rows < p->image->height ? y0 + rows : p->image->height;

	PbFillHolesMarkerRows(p->image, p->marker, (int32_t) y0, (int32_t) y1);
}

void
PbFillHolesMarkerPar(const PbRun *run, const PbImage *image, PbImage *marker)
{
	ParPass		p = {.image = image, .marker = marker};
	int64_t		rows = PAR_SLICE / image->width > 0 ? PAR_SLICE / image->width : 1;

	if (PbParallelFor(run, (image->height + rows - 1) / rows, MarkerRowsSlice, &p) != PB_OK)
		PbFillHolesMarker(image, marker);
}
