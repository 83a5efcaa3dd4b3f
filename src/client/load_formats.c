/*
 * load_formats.c: the formats pb_load reads (see load_formats.h), each
 * through the core reader its server-side function uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../core/formats/json_reader.h"
#include "../core/formats/label_file.h"
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

/* An optional text field: NULL when s is. */
static void
CopyTextOrNull(PbCopyRows *rows, const char *s)
{
	if (s != NULL)
		PbCopyText(rows, s, strlen(s));
	else
		PbCopyNull(rows);
}

/* A geometry field: its hex EWKB, or NULL. */
static void
CopyGeometry(PbCopyRows *rows, int has, const PbEwkb *g)
{
	if (has)
		PbCopyHex(rows, g->data, g->len);
	else
		PbCopyNull(rows);
}

/* One GeoJSON feature: the columns of pb_read_geojson. */
static void
CopyFeature(PbCopyRows *rows, const PbJsonRecord *rec)
{
	PbCopyInt(rows, rec->number);
	CopyTextOrNull(rows, rec->id);
	CopyTextOrNull(rows, rec->object_type);
	CopyTextOrNull(rows, rec->classification);
	CopyTextOrNull(rows, rec->measurements);
	CopyGeometry(rows, rec->has_geom, &rec->geom);
}

/* One HoVer-Net nucleus: the columns of pb_read_hovernet. */
static void
CopyNucleus(PbCopyRows *rows, const PbJsonRecord *rec)
{
	CopyTextOrNull(rows, rec->id);
	if (rec->has_type)
		PbCopyInt(rows, rec->type);
	else
		PbCopyNull(rows);
	if (rec->has_type_prob)
		PbCopyFloat(rows, rec->type_prob);
	else
		PbCopyNull(rows);
	CopyGeometry(rows, rec->has_geom, &rec->geom);
}

/* The records of a JSON file (GeoJSON features or HoVer-Net nuclei). */
static int
LoadJson(const char *path, PbJsonLayout want, const PbLoadOptions *opt, PbLoadSink sink,
		 void *sink_arg, char *msg, size_t msg_len)
{
	PbJsonOptions jo = {0};
	PbRun		run = {PbLoadThreads(), 0, NULL, NULL};
	PbJsonReader rd;
	PbCopyRows	rows;
	PbError		err;
	PbStatus	st;
	int			fd = OpenInput(path, msg, msg_len),
				rc = 0;

	if (fd < 0)
		return -1;
	jo.nucleus_geometry = strcmp(opt->geometry_member, "nucleusGeometry") == 0;
	jo.contour_as_written = strcmp(opt->contour, "as_written") == 0;
	PbCopyInit(&rows, sink, sink_arg);
	st = PbJsonReaderBegin(&rd, fd, want, &jo, &PbMallocAllocator, &run, &err);
	if (st != PB_OK)
	{
		snprintf(msg, msg_len, "%s: %s", path,
				 rd.split.io_errno ? strerror(rd.split.io_errno) : err.message);
		close(fd);
		return -1;
	}
	for (;;)
	{
		PbJsonRecord *recs;
		uint32_t	n;

		st = PbJsonReaderNext(&rd, &recs, &n, &err);
		if (st != PB_OK || n == 0)
			break;
		for (uint32_t i = 0; i < n && rc == 0; i++)
		{
			if (want == PB_JSON_NUCLEI)
				CopyNucleus(&rows, &recs[i]);
			else
				CopyFeature(&rows, &recs[i]);
			PbCopyText(&rows, path, strlen(path));
			rc = PbCopyEndRow(&rows);
		}
	}
	if (st != PB_OK)
	{
		snprintf(msg, msg_len, "%s, line %lld: %s", path, (long long) rd.err_line,
				 rd.split.io_errno ? strerror(rd.split.io_errno) : err.message);
		rc = -1;
	}
	if (rc == 0)
		rc = PbCopyFinish(&rows);
	PbJsonReaderEnd(&rd);
	PbCopyFree(&rows);
	close(fd);
	return rc;
}

/* QuPath GeoJSON: the rows of pb_read_geojson. */
static int
LoadGeoJson(const char *path, const PbLoadOptions *opt, PbLoadSink sink, void *sink_arg,
			char *msg, size_t msg_len)
{
	return LoadJson(path, PB_JSON_FEATURES, opt, sink, sink_arg, msg, msg_len);
}

/* HoVer-Net JSON: the rows of pb_read_hovernet. */
static int
LoadHoverNet(const char *path, const PbLoadOptions *opt, PbLoadSink sink, void *sink_arg,
			 char *msg, size_t msg_len)
{
	return LoadJson(path, PB_JSON_NUCLEI, opt, sink, sink_arg, msg, msg_len);
}

/* A label image (TIFF, PNG): the rows of pb_read_labels, image coordinates. */
static int
LoadLabels(const char *path, const PbLoadOptions *opt, PbLoadSink sink, void *sink_arg,
		   char *msg, size_t msg_len)
{
	static const double gt[6] = {0, 1, 0, 0, 0, 1};
	PbRun		run = {PbLoadThreads(), 0, NULL, NULL};
	PbLabelImage im;
	PbLabelShapes shapes;
	PbCopyRows	rows;
	PbError		err;
	PbStatus	st;
	int			io_errno = 0,
				rc = 0,
				fd = OpenInput(path, msg, msg_len);

	if (fd < 0)
		return -1;
	st = PbReadLabelFile(fd, PB_LABEL_MAX_PIXELS, NULL, NULL, &im, &io_errno, &err);
	close(fd);
	if (st == PB_OK)
	{
		st = PbTraceLabels(&im, gt, 0, &run, &shapes, &err);
		free((void *) im.data);
	}
	if (st != PB_OK)
	{
		snprintf(msg, msg_len, "%s: %s", path, io_errno ? strerror(io_errno) : err.message);
		return -1;
	}
	PbCopyInit(&rows, sink, sink_arg);
	for (size_t i = 0; i < shapes.n && rc == 0; i++)
	{
		PbCopyInt(&rows, shapes.shapes[i].label);
		PbCopyInt(&rows, shapes.shapes[i].pixels);
		PbCopyHex(&rows, shapes.shapes[i].ewkb, shapes.shapes[i].len);
		PbCopyText(&rows, path, strlen(path));
		rc = PbCopyEndRow(&rows);
	}
	if (rc == 0)
		rc = PbCopyFinish(&rows);
	PbCopyFree(&rows);
	PbLabelShapesFree(&shapes);
	return rc;
}

/* Every format, "auto" first. */
static const PbLoadFormat formats[] = {
	{"auto", NULL, NULL, NULL},
	{"text", "line_number bigint, id bigint, geom geometry", "line_number, id, geom", LoadText},
	{"geojson", "feature bigint, id text, object_type text, classification text, measurements jsonb, geom geometry",
	"feature, id, object_type, classification, measurements, geom", LoadGeoJson},
	{"hovernet", "nucleus text, type int, type_prob float8, geom geometry",
	"nucleus, type, type_prob, geom", LoadHoverNet},
	{"labels", "label bigint, pixels bigint, geom geometry", "label, pixels, geom", LoadLabels},
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* Check the options and find the format by name. */
int
PbLoadCheckOptions(PbLoadOptions *opt, const char *format, const PbLoadFormat **fmt)
{
	*fmt = NULL;
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, format) == 0)
			*fmt = &formats[i];
	if (*fmt == NULL)
		snprintf(opt->error, sizeof(opt->error), "unknown format \"%s\" (formats: %s)",
				 format, PbLoadFormatNames());
	else if (strcmp(opt->geometry_member, "geometry") != 0 &&
			 strcmp(opt->geometry_member, "nucleusGeometry") != 0)
		snprintf(opt->error, sizeof(opt->error),
				 "--geometry-member must be geometry or nucleusGeometry, not \"%s\"",
				 opt->geometry_member);
	else if (strcmp(opt->contour, "pixel_edges") != 0 && strcmp(opt->contour, "as_written") != 0)
		snprintf(opt->error, sizeof(opt->error),
				 "--contour must be pixel_edges or as_written, not \"%s\"", opt->contour);
	else
		return 0;
	return -1;
}

/* Does path end in suffix (any case)? */
static int
EndsWith(const char *path, const char *suffix)
{
	size_t		n = strlen(path),
				k = strlen(suffix);

	return n >= k && strcasecmp(path + n - k, suffix) == 0;
}

/*
 * The format of a file, as pb_compare_files tells it: label images and
 * .geojson by name, a .json by its content (HoVer-Net's "nuc" object, or
 * GeoJSON), polygon text otherwise.  NULL when a .json cannot be read.
 */
const PbLoadFormat *
PbLoadFormatOf(const char *path)
{
	if (PbLabelFileName(path))
		return &formats[4];
	if (EndsWith(path, ".geojson"))
		return &formats[2];
	if (EndsWith(path, ".json"))
	{
		PbJsonSplit sp;
		PbJsonElement el;
		PbError		err;
		int			fd = open(path, O_RDONLY | O_NONBLOCK);
		PbJsonLayout layout = PB_JSON_ANY;

		if (fd < 0)
			return NULL;
		if (PbJsonSplitBegin(&sp, fd, PB_JSON_ANY, PB_JSON_MAX_ELEMENT, &PbMallocAllocator,
							 NULL, NULL, &err) == PB_OK)
		{
			if (PbJsonSplitNext(&sp, &el, &err) == PB_OK)
				layout = sp.layout;
			PbJsonSplitEnd(&sp);
		}
		close(fd);
		return layout == PB_JSON_NUCLEI ? &formats[3] : layout == PB_JSON_FEATURES ? &formats[2] : NULL;
	}
	return &formats[1];
}

/* The formats' names. */
const char *
PbLoadFormatNames(void)
{
	return "auto, text, geojson, hovernet, labels";
}

/* Threads for the readers: the machine's processors. */
int
PbLoadThreads(void)
{
	long		n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int) n;
}
