/*
 * label_polys.c: a label image to one geometry per label, the labels'
 * groups walked on threads (see label_polys.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "label_polys.h"

/* The most groups (threads) one image is split into. */
#define MAX_GROUPS 64

/* What one group's thread made. */
typedef struct PbLabelGroupOut
{
	PbWalker	w;
	PbEwkb		ewkb;
	PbWalkLabel *labels;
	size_t		nlabels;
	PbStatus	status;
	int			out_of_memory;
} PbLabelGroupOut;

/* One PbTraceLabels call, shared by its threads. */
typedef struct TraceJob
{
	const PbLabelImage *im;
	const double *gt;
	int32_t		srid;
	uint8_t    *marks;
	PbLabelGroupOut *groups;
	uint32_t	ngroups;
	const PbRun *run;
	pthread_t	caller;
	atomic_int	stop;
	atomic_uint_fast64_t points;	/* turning points kept by all groups */
	uint64_t	max_points;
} TraceJob;

/* One group's walk, for PbRunRecoverable. */
typedef struct GroupWalk
{
	TraceJob   *job;
	int64_t		g;
} GroupWalk;

/* Walk group g and write its labels' geometries. */
static void
TraceGroupBody(void *arg)
{
	GroupWalk  *gw = arg;
	TraceJob   *job = gw->job;
	PbLabelGroupOut *go = &job->groups[gw->g];

	go->w.im = job->im;
	go->w.mem = &PbMallocAllocator;
	go->w.marks = job->marks;
	go->w.group = (uint32_t) gw->g;
	go->w.ngroups = job->ngroups;
	go->w.stop = &job->stop;
	go->w.points = &job->points;
	go->w.max_points = job->max_points;
	if (job->run != NULL && pthread_equal(pthread_self(), job->caller))
	{
		go->w.poll = job->run->poll;
		go->w.poll_arg = job->run->poll_arg;
	}
	PbEwkbInit(&go->ewkb, &PbMallocAllocator);
	go->status = PbWalkImage(&go->w);
	if (go->status == PB_OK)
		PbWalkerGeometries(&go->w, job->gt, job->srid, &go->ewkb, &go->labels,
						   &go->nlabels);
	PbWalkerFree(&go->w);
}

/*
 * Parallel loop body: walk group g; out of memory, the group says so and
 * everyone stops.  The group's state lives in the job, so it is current
 * when the walk is abandoned.
 */
static void
TraceGroup(void *arg, int64_t g)
{
	GroupWalk	gw = {arg, g};
	TraceJob   *job = arg;

	if (!PbRunRecoverable(TraceGroupBody, &gw))
	{
		job->groups[g].out_of_memory = 1;
		job->groups[g].status = PB_ERR_NOMEM;
		atomic_store(&job->stop, 1);
	}
}

/* qsort comparator: shapes by label. */
static int
CmpShapes(const void *a, const void *b)
{
	uint32_t	x = ((const PbLabelShape *) a)->label,
				y = ((const PbLabelShape *) b)->label;

	return x < y ? -1 : x > y;
}

/* Walk the groups on threads, then list every label's geometry in order. */
PbStatus
PbTraceLabels(const PbLabelImage *im, const double gt[6], int32_t srid,
			  const PbRun *run, PbLabelShapes *out, PbError *err)
{
	TraceJob	job;
	PbStatus	st = PB_OK;
	uint64_t	npix = (uint64_t) im->width * im->height;
	size_t		n = 0;

	memset(out, 0, sizeof(*out));
	err->code = PB_OK;
	err->message[0] = '\0';
	if (im->width == 0 || im->height == 0 || im->width > PB_TRACE_MAX_SIDE ||
		im->height > PB_TRACE_MAX_SIDE || npix > PB_LABEL_MAX_PIXELS)
		return PbFail(err, PB_ERR_BADARG,
						 "image of %u x %u pixels (sides from 1 to %u, at most %llu pixels)",
						 im->width, im->height, (unsigned) PB_TRACE_MAX_SIDE,
						 (unsigned long long) PB_LABEL_MAX_PIXELS);
	if (im->bytes != 1 && im->bytes != 2 && im->bytes != 4)
		return PbFail(err, PB_ERR_BADARG, "labels of %d bytes (1, 2 or 4)", im->bytes);
	memset(&job, 0, sizeof(job));
	job.im = im;
	job.gt = gt;
	job.srid = srid;
	job.run = run;
	job.caller = pthread_self();
	atomic_init(&job.stop, 0);
	atomic_init(&job.points, 0);
	job.max_points = PbLabelMaxPoints(npix);
	job.ngroups = run != NULL && run->threads > 1 ? (uint32_t) run->threads : 1;
	if (job.ngroups > MAX_GROUPS)
		job.ngroups = MAX_GROUPS;
	job.marks = calloc(npix, 1);
	job.groups = calloc(job.ngroups, sizeof(PbLabelGroupOut));
	if (job.marks == NULL || job.groups == NULL)
		st = PB_ERR_NOMEM;
	else
		st = PbParallelFor(run, job.ngroups, TraceGroup, &job);
	free(job.marks);
	out->groups = job.groups;
	out->ngroups = job.groups != NULL ? job.ngroups : 0;
	for (uint32_t g = 0; g < out->ngroups && st == PB_OK; g++)
	{
		st = out->groups[g].status;
		n += out->groups[g].nlabels;
	}
	/* out of memory, or too many points, wins over the stop it caused */
	for (uint32_t g = 0; g < out->ngroups; g++)
		if (out->groups[g].w.over_budget)
			st = PB_ERR_BADARG;
	for (uint32_t g = 0; g < out->ngroups; g++)
		if (out->groups[g].out_of_memory)
			st = PB_ERR_NOMEM;
	if (st == PB_OK)
	{
		out->shapes = malloc(sizeof(PbLabelShape) * (n + 1));
		if (out->shapes == NULL)
			st = PB_ERR_NOMEM;
	}
	if (st != PB_OK)
	{
		PbLabelShapesFree(out);
		if (st == PB_ERR_NOMEM)
			return PbFail(err, st, "out of memory tracing a %u x %u image",
							 im->width, im->height);
		if (st == PB_ERR_BADARG)
			return PbFail(err, st,
						  "the outlines of a %u x %u image's labels have more than %llu corners "
						  "(at most one per %d pixels: objects of single pixels everywhere, not a segmentation)",
						  im->width, im->height, (unsigned long long) job.max_points,
						  PB_LABEL_PIXELS_PER_CORNER);
		return PbFail(err, st, "stopped");
	}
	for (uint32_t g = 0; g < out->ngroups; g++)
	{
		PbLabelGroupOut *go = &out->groups[g];

		for (size_t i = 0; i < go->nlabels; i++)
		{
			PbLabelShape *s = &out->shapes[out->n++];

			s->label = go->labels[i].label;
			s->pixels = go->labels[i].pixels;
			s->ewkb = go->ewkb.data + go->labels[i].offset;
			s->len = go->labels[i].len;
		}
	}
	if (out->ngroups > 1)
		qsort(out->shapes, out->n, sizeof(PbLabelShape), CmpShapes);
	return PB_OK;
}

/* Free the groups' geometries and the list. */
void
PbLabelShapesFree(PbLabelShapes *s)
{
	for (uint32_t g = 0; g < s->ngroups; g++)
	{
		PbLabelGroupOut *go = &s->groups[g];

		PbWalkerFree(&go->w);
		PbEwkbFree(&go->ewkb);
		free(go->labels);
	}
	free(s->groups);
	free(s->shapes);
	memset(s, 0, sizeof(*s));
}
