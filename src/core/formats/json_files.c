/*
 * json_files.c: GeoJSON and HoVer-Net files read into a batch for
 * pb_compare_files (see file_formats.h), on the thread parse_files.c
 * gives each file, with one thread of its own (the files are the
 * parallelism).
 */
#include <string.h>

#include "../geom/batch.h"
#include "file_formats.h"
#include "json_reader.h"

/* Read the file's records, decoding each geometry into fp's batch. */
static void
ReadRecords(PbFileParse *fp, PbJsonReader *rd, int fd, PbJsonLayout want,
			const PbRun *run)
{
	PbJsonOptions opt = {0, 0};
	PbRun		one = {1, 0, run ? run->poll : NULL, run ? run->poll_arg : NULL};

	fp->status = PbJsonReaderBegin(rd, fd, want, &opt, &PbMallocAllocator, &one,
								   &fp->err);
	fp->io_errno = rd->split.io_errno;
	if (fp->status != PB_OK)
		return;
	for (;;)
	{
		PbJsonRecord *recs;
		uint32_t	n;

		fp->status = PbJsonReaderNext(rd, &recs, &n, &fp->err);
		fp->line = rd->err_line;
		fp->io_errno = rd->split.io_errno;
		if (fp->status != PB_OK || n == 0)
			return;
		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	shape;

			if (!recs[i].has_geom)
				continue;
			fp->status = PbDecodeEwkb(&fp->batch, recs[i].geom.data, recs[i].geom.len,
									  &shape, &fp->err);
			if (fp->status != PB_OK)
			{
				fp->line = recs[i].line;
				return;
			}
		}
	}
}

/* One JSON file's reading, for PbRunRecoverable. */
typedef struct JsonRead
{
	PbFileParse *fp;
	PbJsonReader rd;
	int			fd;
	PbJsonLayout want;
	const PbRun *run;
} JsonRead;

/* Read the file's records into its batch. */
static void
ReadJsonBody(void *arg)
{
	JsonRead   *jr = arg;

	ReadRecords(jr->fp, &jr->rd, jr->fd, jr->want, jr->run);
	if (jr->fp->status == PB_ERR_NOMEM)
		jr->fp->out_of_memory = 1;
}

/* Read a JSON file of the given layout, noting running out of memory. */
static void
ReadJson(PbFileParse *fp, int fd, PbJsonLayout want, const PbRun *run)
{
	JsonRead	jr;

	memset(&jr, 0, sizeof(jr));
	jr.fp = fp;
	jr.fd = fd;
	jr.want = want;
	jr.run = run;
	if (!PbRunRecoverable(ReadJsonBody, &jr))
		fp->out_of_memory = 1;
	PbJsonReaderEnd(&jr.rd);
}

/* A GeoJSON file. */
void
PbReadGeoJsonFile(PbFileParse *fp, int fd, const PbRun *run)
{
	ReadJson(fp, fd, PB_JSON_FEATURES, run);
}

/* A GeoJSON or HoVer-Net file. */
void
PbReadJsonFile(PbFileParse *fp, int fd, const PbRun *run)
{
	ReadJson(fp, fd, PB_JSON_ANY, run);
}
