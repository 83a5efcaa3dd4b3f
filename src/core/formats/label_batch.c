/*
 * label_batch.c: a label image file into a batch of polygons (see
 * label_batch.h).
 */
#include <stdlib.h>

#include "../geom/batch.h"
#include "label_batch.h"
#include "label_file.h"

/* Read, trace and decode one label image file; errors into fp. */
void
PbLabelFileParse(PbFileParse *fp, int fd, const PbRun *run)
{
	PbLabelImage im;
	PbLabelShapes shapes;
	/* one thread: pb_compare_files parses its files on threads already */
	PbRun		one = {1, 0, run ? run->poll : NULL, run ? run->poll_arg : NULL};
	const double gt[6] = {0, 1, 0, 0, 0, 1};

	fp->line = 0;
	fp->status = PbReadLabelFile(fd, PB_LABEL_MAX_PIXELS, one.poll, one.poll_arg, &im,
								 &fp->io_errno, &fp->err);
	if (fp->status != PB_OK)
		return;
	fp->status = PbTraceLabels(&im, gt, 0, &one, &shapes, &fp->err);
	free((void *) im.data);
	if (fp->status != PB_OK)
		return;
	for (size_t i = 0; i < shapes.n && fp->status == PB_OK; i++)
	{
		uint32_t	shape;

		fp->status = PbDecodeEwkb(&fp->batch, shapes.shapes[i].ewkb, shapes.shapes[i].len,
								  &shape, &fp->err);
	}
	PbLabelShapesFree(&shapes);
}
