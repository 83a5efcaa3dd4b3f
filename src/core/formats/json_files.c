/*
 * json_files.c: GeoJSON and HoVer-Net files read into a batch for
 * pb_compare_files (see file_formats.h), on the thread parse_files.c
 * gives each file, with one thread of its own (the files are the
 * parallelism).
 */
#include <setjmp.h>
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

/*
 * Read a JSON file of the given layout, noting running out of memory.  The
 * reader is reached through its address only, so its fields are current
 * when the recovery point is jumped to.
 */
static void
ReadJson(PbFileParse *fp, int fd, PbJsonLayout want, const PbRun *run)
{
	jmp_buf		recover;
	jmp_buf    *outer = pb_oom_recover;
	PbJsonReader rd;

	memset(&rd, 0, sizeof(rd));
	if (setjmp(recover) != 0)
	{
		pb_oom_recover = outer;
		PbJsonReaderEnd(&rd);
		fp->out_of_memory = 1;
		return;
	}
	pb_oom_recover = &recover;
	ReadRecords(fp, &rd, fd, want, run);
	if (fp->status == PB_ERR_NOMEM)
		fp->out_of_memory = 1;
	PbJsonReaderEnd(&rd);
	pb_oom_recover = outer;
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
