/*
 * coverage_glue.h: the coverage functions' reading of a tiles query, slide
 * by slide, and their tiles out (coverage_read.c, coverage_write.c).
 *
 * A tiles query returns one row per tile.  Its columns are found by name:
 * the operation's raster columns (rast, or marker and mask, ...: each a
 * PostGIS raster or its WKB as bytea) and, optionally, slide, the key of
 * the slide a tile belongs to (any type with equality and order).  Other
 * columns are ignored.  Each slide's tiles must form one grid
 * (src/core/raster/coverage.h); the operation runs on the slide as one
 * image, pixels no tile covers being nodata, and each input tile gives one
 * output tile with the same georeference.
 */
#ifndef PB_COVERAGE_GLUE_H
#define PB_COVERAGE_GLUE_H

#include "fmgr.h"
#include "executor/spi.h"

#include "core/raster/coverage.h"
#include "raster_glue.h"

#define PB_COVERAGE_MAX_ROLES 3

/* One raster column an operation reads from the tiles query. */
typedef struct PbCoverageRole
{
	const char *column;			/* its name in the tiles query */
	bool		required;		/* an error when the query lacks it */
	bool		same_type;		/* must have the first column's pixel type */
} PbCoverageRole;

/* A coverage function's call: its query, its slides and its output. */
typedef struct PbCoverageCall
{
	const char *caller;
	FunctionCallInfo fcinfo;
	int			nroles;
	const PbCoverageRole *roles;
	int			band[PB_COVERAGE_MAX_ROLES];	/* 1-based, per role */
	bool		present[PB_COVERAGE_MAX_ROLES];
	bool		has_slide;
	int64		nslides;
	Datum	   *slide_keys;		/* the distinct slide keys, in order */
	bool	   *slide_null;
	char	  **slide_text;		/* their text form, NULL for no slide */
	SPIPlanPtr	tiles_plan;		/* the tiles of slide $1 (or all) */
	SPIPlanPtr	null_plan;		/* the tiles whose slide is NULL */
	FmgrInfo	to_raster;		/* ST_RastFromWKB, when the output is a raster */
	bool		out_raster;
	MemoryContext slide_cxt;	/* reset after each slide */
} PbCoverageCall;

/* One slide's tiles as read, placed on their grid. */
typedef struct PbCoverageSlide
{
	int64		index;			/* in call->slide_keys */
	int64		n;				/* tiles */
	bytea	  **wkb[PB_COVERAGE_MAX_ROLES];		/* [role][tile], NULL once read */
	bool	   *has_nodata[PB_COVERAGE_MAX_ROLES];	/* [role][tile], of its band */
	double	   *nodata[PB_COVERAGE_MAX_ROLES];
	PbRasterBand *band[PB_COVERAGE_MAX_ROLES];	/* [role][tile]: the band read */
	PbCoverageTile *tiles;		/* the first role's headers */
	PbCoveragePlace *place;
	PbCoverageGrid grid;
	bool		gaps;			/* some pixel of the grid has no tile */
} PbCoverageSlide;

/* coverage_read.c */
extern void PbCoverageBegin(PbCoverageCall *call, FunctionCallInfo fcinfo,
							const char *caller, text *query, int nroles,
							const PbCoverageRole *roles, const int *bands);
extern bool PbCoverageReadSlide(PbCoverageCall *call, int64 k, PbCoverageSlide *s);
extern void PbCoverageCheckSize(const PbCoverageCall *call, const PbCoverageSlide *s,
								int64 max_side, int64 max_pixels, const char *operation);
extern void PbCoverageLoadImage(const PbCoverageCall *call, PbCoverageSlide *s, int role,
								PbImage *img, uint8 **nodata);
extern uint32 *PbCoverageLoadMarkers(const PbCoverageCall *call, PbCoverageSlide *s,
									 int role);
extern void PbCoverageLoadWalls(const PbCoverageCall *call, PbCoverageSlide *s, int role,
								uint8 *wall);
extern void PbCoverageSlideDone(PbCoverageCall *call);
extern void PbCoverageEnd(PbCoverageCall *call);

/* coverage_write.c: one output row per tile of the slide */
extern void PbCoverageWrite(PbCoverageCall *call, const PbCoverageSlide *s,
							const PbCoverageBands *bands);

#endif							/* PB_COVERAGE_GLUE_H */
