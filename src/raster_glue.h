/*
 * raster_glue.h: declarations shared by the raster glue files (raster WKB
 * arguments and results, running an operation on the GPU or the CPU).
 */
#ifndef PB_RASTER_GLUE_H
#define PB_RASTER_GLUE_H

#include "pixelbox.h"
#include "core/raster/pb_raster.h"

/* One band of a raster WKB argument, read into compute-type pixels. */
typedef struct PbRasterArg
{
	const char *what;			/* "marker", "mask", "image": for messages */
	PbRasterHeader h;
	int			band;			/* 1-based */
	int			wkb_type;
	bool		has_nodata;
	double		nodata;
	PbImage		img;			/* pixels in the compute type (palloc'd, huge) */
	uint8	   *is_nodata;		/* per pixel, or NULL when no pixel is nodata */
} PbRasterArg;

/* raster_io.c */
extern void PbOpenRasterArg(bytea *wkb, int band, const char *what,
							const char *caller, PbRasterArg *out,
							PbRasterBand *rb);
extern void PbLoadRasterArg(const PbRasterBand *rb, const char *caller,
							PbRasterArg *out);
extern void PbReadRasterArg(bytea *wkb, int band, const char *what,
							const char *caller, PbRasterArg *out);
extern void PbCheckAligned(const PbRasterArg *a, const PbRasterArg *b,
						   const char *caller);
extern void PbCheckSameGrid(const PbRasterArg *a, const PbRasterArg *b,
							const char *caller);
extern size_t PbCheckResultSize(const PbRasterHeader *h, int nbands,
								const int *wkb_types, const char *caller);
extern bytea *PbRasterResult(const PbRasterHeader *h, int nbands,
							 const int *wkb_types, const bool *has_nodata,
							 const double *nodata, const void *const *pixels,
							 const char *caller);
extern int	PbConnectivityArg(int32 c, const char *caller);

/* image_memory.c */
extern void *PbHugeAlloc(size_t size);
extern void PbHugeFree(void *p);

/* Transparent huge pages for a new allocation of 32 MB or more (advisory). */
extern void PbAdviseHugePages(void *p, size_t size);
extern const PbAllocator PbImageScratch;

/* raster_run.c */
extern void PbRunReconstruct(PbImage *marker, const PbImage *mask,
							 int connectivity, PbReconOp op, const char *caller);
extern void PbRunDistance(const uint8 *fg, int32 width, int32 height,
						  double sy, double sx, float *dist, int64 *nearest,
						  const char *caller);
extern void PbRunWatershed(const PbWatershedSpec *spec, uint32 *labels,
						   const char *caller);

/* raster_ops.c: the operations on images read, for both kinds of function */
typedef struct PbDistanceBands
{
	float	   *dist;
	int32	   *col,
			   *row;			/* NULL without the index */
} PbDistanceBands;

extern void PbReconstructImages(PbImage *marker, const uint8 *marker_nodata,
								PbImage *mask, const uint8 *mask_nodata,
								int connectivity, PbReconOp op, const char *caller);
extern void PbDistanceImages(const PbImage *mask, const uint8 *nodata, double sy,
							 double sx, bool with_index, PbDistanceBands *out,
							 const char *caller);
extern uint32 *PbWatershedImages(const PbWatershedSpec *spec, const char *caller);
extern void PbCheckMarkerType(const PbRasterBand *rb, const char *what, const char *caller);
extern uint32 *PbMarkerLabels(const PbRasterBand *rb, int32 width, int32 height,
							  const char *caller);
extern void PbRefuseNegativeMarker(double v, int64 i, int32 width, const char *prefix,
								   const char *suffix, const char *caller);
extern PbReconOp PbReconMethodArg(const char *method, const char *caller);
extern int	PbLabelTypeArg(const char *name, const char *caller);
extern const void *PbNarrowLabels(const uint32 *labels, int64 npix, int label_type,
								  const char *caller);
struct ArrayType;
extern void PbSpacingArg(struct ArrayType *a, bool isnull, double *sy, double *sx,
						 const char *caller);

/*
 * raster_report.c: the stages of the last raster call, for
 * pb_raster_report(): Begin at the call's start, Stage at the end of each
 * stage (device NULL for the host's own work), Gpu for the GPU's kernels
 * and copies within the compute stage, End when the result is built.
 */
struct PbRasterGpuStats;
extern void PbRasterReportBegin(const char *operation);
extern void PbRasterReportStage(const char *stage, const char *device);
extern void PbRasterReportGpu(const struct PbRasterGpuStats *stats);
extern void PbRasterReportTiles(const char *stage, const char *device, double seconds,
								int64 tiles);
extern void PbRasterReportEnd(void);

#endif							/* PB_RASTER_GLUE_H */
