/*
 * load_formats.h: the file formats pb_load reads, each as the columns of
 * its server-side reader and a function streaming a file's rows as COPY
 * text, read by the core's own readers.
 */
#ifndef PB_LOAD_FORMATS_H
#define PB_LOAD_FORMATS_H

#include <stddef.h>

/* What the formats' options say (the server functions' arguments). */
typedef struct PbLoadOptions
{
	const char *geometry_member;	/* GeoJSON: geometry or nucleusGeometry */
	const char *contour;		/* HoVer-Net: pixel_edges or as_written */
	char		error[256];		/* why PbLoadCheckOptions refused them */
} PbLoadOptions;

/* Where COPY text goes: a chunk of whole rows at a time. */
typedef int (*PbLoadSink) (void *arg, const char *data, size_t len);

/* One format. */
typedef struct PbLoadFormat
{
	const char *name;
	const char *columns_ddl;	/* its columns, as in CREATE TABLE */
	const char *columns;		/* their names, as in COPY */
	/*
	 * Stream the rows of file path (each ending in a source column holding
	 * path) to sink; nonzero on error, with the message in msg.  NULL for
	 * "auto".
	 */
	int			(*load) (const char *path, const PbLoadOptions *opt, PbLoadSink sink,
						 void *sink_arg, char *msg, size_t msg_len);
} PbLoadFormat;

/* The options' defaults (the server functions' defaults). */
extern PbLoadOptions PbLoadDefaults(void);

/*
 * Check the options and find format by name (*fmt: its record; "auto" has
 * load NULL); nonzero with opt->error set when something is unknown.
 */
extern int	PbLoadCheckOptions(PbLoadOptions *opt, const char *format, const PbLoadFormat **fmt);

/* The format of a file, by its name and first bytes; NULL when unknown. */
extern const PbLoadFormat *PbLoadFormatOf(const char *path);

/* Threads the readers use (the machine's processors). */
extern int	PbLoadThreads(void);

/* The formats' names, for the usage text. */
extern const char *PbLoadFormatNames(void);

#endif							/* PB_LOAD_FORMATS_H */
