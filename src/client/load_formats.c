/*
 * load_formats.c: the formats pb_load reads (see load_formats.h), each
 * through the core reader its server-side function uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/geom/pb_geom.h"
#include "copy_rows.h"
#include "load_formats.h"

/* The options' defaults, as the server functions have them. */
PbLoadOptions
PbLoadDefaults(void)
{
	PbLoadOptions o;

	memset(&o, 0, sizeof(o));
	o.geometry_member = "geometry";
	o.contour = "pixel_edges";
	return o;
}

/* Open path for a reader (O_NONBLOCK: a FIFO must not block the open). */
static int
OpenInput(const char *path, char *msg, size_t msg_len)
{
	int			fd = open(path, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		snprintf(msg, msg_len, "%s: %s", path, strerror(errno));
	return fd;
}

/* Polygon text files: the rows of pb_read_polygons. */
static int
LoadText(const char *path, const PbLoadOptions *opt, PbLoadSink sink, void *sink_arg,
		 char *msg, size_t msg_len)
{
	PbTextReader rd;
	PbTextPolygon poly;
	PbBatch		batch;
	PbEwkb		wkb;
	PbCopyRows	rows;
	PbError		err;
	PbStatus	st;
	int			fd = OpenInput(path, msg, msg_len),
				rc = 0;

	if (fd < 0)
		return -1;
	PbBatchInit(&batch, &PbMallocAllocator);
	PbEwkbInit(&wkb, &PbMallocAllocator);
	PbCopyInit(&rows, sink, sink_arg);
	st = PbTextReaderBegin(&rd, fd, PB_TEXT_MAX_LINE, &PbMallocAllocator, NULL, NULL, &err);
	while (st == PB_OK && rc == 0)
	{
		st = PbTextReadPolygon(&rd, &batch, &wkb, &poly, &err);
		if (st != PB_OK || poly.shape == UINT32_MAX)
			break;
		PbCopyInt(&rows, poly.line);
		if (poly.has_id)
			PbCopyInt(&rows, poly.id);
		else
			PbCopyNull(&rows);
		PbCopyHex(&rows, wkb.data, wkb.len);
		PbCopyText(&rows, path, strlen(path));
		rc = PbCopyEndRow(&rows);
		PbBatchReset(&batch);
	}
	if (st != PB_OK)
	{
		if (rd.io_errno != 0)
			snprintf(msg, msg_len, "%s: %s", path, strerror(rd.io_errno));
		else if (rd.line > 0)
			snprintf(msg, msg_len, "%s: line %lld: %s", path, (long long) rd.line, err.message);
		else
			snprintf(msg, msg_len, "%s: %s", path, err.message);
		rc = -1;
	}
	if (rc == 0)
		rc = PbCopyFinish(&rows);
	PbTextReaderEnd(&rd);
	PbCopyFree(&rows);
	PbEwkbFree(&wkb);
	PbBatchFree(&batch);
	close(fd);
	return rc;
}

/* Every format, "auto" first. */
static const PbLoadFormat formats[] = {
	{"auto", NULL, NULL, NULL},
	{"text", "line_number bigint, id bigint, geom geometry", "line_number, id, geom", LoadText},
};

/* Check the options and find the format by name. */
int
PbLoadCheckOptions(PbLoadOptions *opt, const char *format, const PbLoadFormat **fmt)
{
	*fmt = NULL;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, format) == 0)
			*fmt = &formats[i];
	if (*fmt == NULL)
	{
		snprintf(opt->error, sizeof(opt->error), "unknown format \"%s\" (formats: %s)",
				 format, PbLoadFormatNames());
		return -1;
	}
	return 0;
}

/* The format of a file by its name: text for now. */
const PbLoadFormat *
PbLoadFormatOf(const char *path)
{
	return &formats[1];
}

/* The formats' names. */
const char *
PbLoadFormatNames(void)
{
	return "auto, text";
}
