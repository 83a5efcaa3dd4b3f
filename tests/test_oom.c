/*
 * test_oom.c: PbRunRecoverable, the recovery point the core's worker
 * bodies run under: a body that runs out of memory comes back as false
 * with its state as it left it, one that returns as true, and the
 * thread's previous recovery point is restored either way, nested too.
 */
#include <stdlib.h>

#include "harness.h"
#include "testutil.h"

/* Count up to the limit, running out of memory there (limit 0: never). */
typedef struct Counting
{
	int			steps,
				limit;
	bool		inner_ok;		/* a nested run's answer */
} Counting;

static void
CountBody(void *arg)
{
	Counting   *c = arg;

	for (c->steps = 0; c->steps < 10; c->steps++)
		if (c->limit != 0 && c->steps == c->limit)
			PbOutOfMemory();
}

/* A body that runs a failing body inside, then finishes itself. */
static void
NestedBody(void *arg)
{
	Counting   *c = arg;
	Counting	inner = {0, 3, false};

	c->inner_ok = PbRunRecoverable(CountBody, &inner);
	c->steps = inner.steps;
}

void
test_oom_recoverable(void)
{
	jmp_buf    *before = pb_oom_recover;
	Counting	ok = {0, 0, false},
				fails = {0, 4, false},
				nested = {0, 0, true};

	CHECK(PbRunRecoverable(CountBody, &ok));
	CHECK_INT(ok.steps, 10);
	CHECK(pb_oom_recover == before);
	CHECK(!PbRunRecoverable(CountBody, &fails));
	CHECK_INT(fails.steps, 4);
	CHECK(pb_oom_recover == before);
	CHECK(PbRunRecoverable(NestedBody, &nested));
	CHECK(!nested.inner_ok);
	CHECK_INT(nested.steps, 3);
	CHECK(pb_oom_recover == before);
}
