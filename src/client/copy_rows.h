/*
 * copy_rows.h: rows written in COPY's text format (tab-separated, \N for
 * NULL, backslash escapes), buffered and handed to a sink in chunks of
 * whole rows.
 */
#ifndef PB_COPY_ROWS_H
#define PB_COPY_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "load_formats.h"

/* A buffer of rows going to a sink. */
typedef struct PbCopyRows
{
	char	   *buf;
	size_t		len,
				cap,
				row_start;		/* where the row being written starts */
	int			fields;			/* fields of that row so far */
	PbLoadSink	sink;
	void	   *sink_arg;
} PbCopyRows;

extern void PbCopyInit(PbCopyRows *r, PbLoadSink sink, void *sink_arg);
extern void PbCopyText(PbCopyRows *r, const char *s, size_t len);
extern void PbCopyInt(PbCopyRows *r, int64_t v);
extern void PbCopyFloat(PbCopyRows *r, double v);
extern void PbCopyNull(PbCopyRows *r);
extern void PbCopyHex(PbCopyRows *r, const uint8_t *data, size_t len);
extern int	PbCopyEndRow(PbCopyRows *r);
extern int	PbCopyFinish(PbCopyRows *r);
extern void PbCopyFree(PbCopyRows *r);

#endif							/* PB_COPY_ROWS_H */
