/*
 * nodata.c: the per-pixel nodata passes of the raster operations (see
 * nodata.h).  Nodata pixels of a reconstruction's mask are walls that
 * keep their value in the result, nodata marker pixels seed nothing;
 * nodata pixels are background for the distance transform, walls for the
 * watershed (its markers' nodata pixels mark nothing).
 */
#include <math.h>
#include <string.h>

#include "nodata.h"

#define ND_CHUNK 4096			/* band pixels converted to doubles at a time */

/*
 * The value that never propagates under op: the lowest of the type for
 * dilation, the highest for erosion.
 */
static double
WallValue(PbPixType type, PbReconOp op)
{
	bool		high = op == PB_RECON_ERODE;

	switch (type)
	{
		case PB_PIX_1BB:
			return high ? 1 : 0;
		case PB_PIX_8BUI:
			return high ? 255 : 0;
		case PB_PIX_16BUI:
			return high ? 65535 : 0;
		case PB_PIX_32BF:
			return high ? INFINITY : -INFINITY;
	}
	return 0;
}

/* Walls at the nodata pixels of a reconstruction's inputs (see nodata.h). */
void
PbReconNodataWalls(PbImage *marker, const uint8_t *marker_nodata, PbImage *mask,
				   const uint8_t *mask_nodata, PbReconOp op, float *saved)
{
	int64_t		npix = (int64_t) mask->width * mask->height;
	double		wall = WallValue(mask->type, op);

	if (marker_nodata)
		for (int64_t i = 0; i < npix; i++)
			if (marker_nodata[i])
				PbPixSet(marker, i, wall);
	if (mask_nodata)
		for (int64_t i = 0; i < npix; i++)
			if (mask_nodata[i])
			{
				saved[i] = (float) PbPixGet(mask, i);
				PbPixSet(mask, i, wall);
			}
}

/* The mask's values back at its nodata pixels of the result (see nodata.h). */
void
PbReconRestoreNodata(PbImage *result, const uint8_t *mask_nodata, const float *saved)
{
	int64_t		npix = (int64_t) result->width * result->height;

	for (int64_t i = 0; i < npix; i++)
		if (mask_nodata[i])
			PbPixSet(result, i, saved[i]);
}

/* The fill-holes marker of image: its border, the top value inside. */
void
PbFillHolesMarker(const PbImage *image, PbImage *marker)
{
	PbFillHolesMarkerRows(image, marker, 0, image->height);
}

/*
 * Rows [y0, y1) of the fill-holes marker: the image's own values on its
 * border, the top value elsewhere (one loop per pixel size, not a
 * conversion per pixel).
 */
void
PbFillHolesMarkerRows(const PbImage *image, PbImage *marker, int32_t y0, int32_t y1)
{
	int32_t		w = image->width,
				h = image->height;
	size_t		ps = PbPixSize(image->type);
	double		top = WallValue(image->type, PB_RECON_ERODE);
	PbImage		one = {1, 1, image->type, NULL};
	uint8_t		pix[8];

	/* the top value's bytes, as the image stores it */
	one.data = pix;
	PbPixSet(&one, 0, top);
	memcpy((uint8_t *) marker->data + (size_t) y0 * w * ps,
		   (const uint8_t *) image->data + (size_t) y0 * w * ps, (size_t) (y1 - y0) * w * ps);
	for (int32_t y = y0 > 1 ? y0 : 1; y < y1 && y < h - 1; y++)
	{
		uint8_t    *row = (uint8_t *) marker->data + ((size_t) y * w + 1) * ps;

		if (ps == 1)
			memset(row, pix[0], (size_t) (w > 2 ? w - 2 : 0));
		else
			for (int32_t x = 1; x < w - 1; x++)
				memcpy(row + (size_t) (x - 1) * ps, pix, ps);
	}
}

/*
 * The distance transform's foreground: nonzero pixels that are not
 * nodata (one loop per pixel type: this runs on every pixel).
 */
void
PbDistanceForeground(const PbImage *mask, const uint8_t *nodata, uint8_t *fg)
{
	int64_t		npix = (int64_t) mask->width * mask->height;

	switch (mask->type)
	{
		case PB_PIX_16BUI:
			for (int64_t i = 0; i < npix; i++)
				fg[i] = ((const uint16_t *) mask->data)[i] != 0;
			break;
		case PB_PIX_32BF:
			for (int64_t i = 0; i < npix; i++)
				fg[i] = ((const float *) mask->data)[i] != 0;
			break;
		default:
			for (int64_t i = 0; i < npix; i++)
				fg[i] = ((const uint8_t *) mask->data)[i] != 0;
			break;
	}
	if (nodata)
		for (int64_t i = 0; i < npix; i++)
			fg[i] &= !nodata[i];
}

/* The nearest pixels as 1-based column and row bands, 0 for none. */
void
PbDistanceNearestBands(const int64_t *nearest, int64_t npixels, int32_t width,
					   int32_t *col, int32_t *row)
{
	for (int64_t i = 0; i < npixels; i++)
	{
		col[i] = nearest[i] < 0 ? 0 : (int32_t) (nearest[i] % width) + 1;
		row[i] = nearest[i] < 0 ? 0 : (int32_t) (nearest[i] / width) + 1;
	}
}

/* Is pixel value v of a band nodata?  (NaN is, for the float types.) */
static inline bool
IsNodata(const PbRasterBand *b, double v)
{
	return b->all_nodata || isnan(v) || (b->has_nodata && v == b->nodata);
}

/* The watershed's labels from a markers band (see nodata.h). */
int64_t
PbWsMarkerLabels(const PbRasterBand *band, int64_t npixels, uint32_t *labels,
				 double *negative)
{
	double		v[ND_CHUNK];

	for (int64_t start = 0; start < npixels; start += ND_CHUNK)
	{
		int64_t		n = npixels - start < ND_CHUNK ? npixels - start : ND_CHUNK;

		PbRasterBandValues(band, start, n, v);
		for (int64_t i = 0; i < n; i++)
		{
			if (IsNodata(band, v[i]))
				labels[start + i] = 0;
			else if (v[i] < 0)
			{
				*negative = v[i];
				return start + i;
			}
			else
				labels[start + i] = (uint32_t) v[i];
		}
	}
	return -1;
}

/* The pixels outside the watershed's mask band, added to wall. */
void
PbWsMaskWalls(const PbRasterBand *band, int64_t npixels, uint8_t *wall)
{
	double		v[ND_CHUNK];

	for (int64_t start = 0; start < npixels; start += ND_CHUNK)
	{
		int64_t		n = npixels - start < ND_CHUNK ? npixels - start : ND_CHUNK;

		PbRasterBandValues(band, start, n, v);
		for (int64_t i = 0; i < n; i++)
			wall[start + i] |= v[i] == 0 || IsNodata(band, v[i]);
	}
}
