/*
 * label_batch.h: a label image file as polygons of a batch, for
 * pb_compare_files: every label one polygon (a multipolygon when it has
 * several parts), in image coordinates, in label order.
 */
#ifndef PB_LABEL_BATCH_H
#define PB_LABEL_BATCH_H

#include "../geom/parse_files.h"

/*
 * A PbFileParse parser (parse_files.h) for TIFF and PNG label images: the
 * image in fd read and traced on the calling thread, its labels decoded
 * into fp->batch; a refused image is fp's status and message (line 0).
 */
extern void PbLabelFileParse(PbFileParse *fp, int fd, const PbRun *run);

#endif							/* PB_LABEL_BATCH_H */
