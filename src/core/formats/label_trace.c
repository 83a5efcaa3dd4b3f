/*
 * label_trace.c: a 0/1 mask to its polygon along pixel edges (see
 * label_trace.h), by the walk every label-image reader uses
 * (label_walk.h) with the mask as an image of one label.
 */
#include <stdio.h>
#include <string.h>

#include "label_trace.h"
#include "label_walk.h"

/* Walk the mask as label 1 and write its one geometry to out. */
PbStatus
PbTraceMask(const uint8_t *mask, uint32_t width, uint32_t height,
			double x0, double y0, PbEwkb *out, PbError *err)
{
	const PbAllocator *m = out->mem;
	PbLabelImage im = {mask, width, height, 0};
	PbWalker	w;
	atomic_int	stop;
	double		gt[6] = {x0, 1, 0, y0, 0, 1};
	PbWalkLabel *labels;
	size_t		nlabels;
	PbStatus	st;

	err->code = PB_OK;
	err->message[0] = '\0';
	if (width == 0 || height == 0 || width > PB_TRACE_MAX_SIDE || height > PB_TRACE_MAX_SIDE)
		return PbFail(err, PB_ERR_BADARG, "mask of %u x %u pixels (sides from 1 to %u)",
						 width, height, (unsigned) PB_TRACE_MAX_SIDE);
	memset(&w, 0, sizeof(w));
	atomic_init(&stop, 0);
	w.im = &im;
	w.mem = m;
	w.ngroups = 1;
	w.stop = &stop;
	w.marks = m->alloc(m->ctx, (size_t) width * height);
	memset(w.marks, 0, (size_t) width * height);
	st = PbWalkImage(&w);
	if (st == PB_OK && w.nrings == 0)
		st = PbFail(err, PB_ERR_BADARG, "the mask has no pixel set");
	if (st == PB_OK)
	{
		PbWalkerGeometries(&w, gt, 0, out, &labels, &nlabels);
		m->release(m->ctx, labels);
	}
	m->release(m->ctx, w.marks);
	PbWalkerFree(&w);
	return st;
}
