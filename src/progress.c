/*
 * progress.c: the progress of a long comparison (pb_compare_sets,
 * pb_compare_files, pb_intersecting_pairs, pb_match_stats, ...), seen two
 * ways:
 *  - a NOTICE every pixelbox.progress_interval when pixelbox.progress is
 *    on ("pb_compare_sets: 1,234 of 5,000 tiles, 3.1M pairs, 12.3 s
 *    elapsed, about 37 s left");
 *  - pb_progress() (and the view over it) from any session: one slot per
 *    backend in shared memory, which needs pixelbox in
 *    shared_preload_libraries (the shared memory is asked for at the
 *    postmaster's start, as pg_stat_statements does).
 *
 * An operation (the SQL function a user called) goes through phases:
 * scan (rows read by the aggregate), parse (files), unpack (parallel
 * workers' chunks), compare (the pipeline's tiles).  Only the backend's
 * own thread calls this file; the pipeline's threads just count (core
 * atomics read here).  A slot is written by its backend alone, under a
 * change count (odd while writing, as PostgreSQL's PgBackendStatus), and
 * read by anyone, who retries a read that overlapped a write.  Writing it
 * is a few stores, safe anywhere on the backend's thread, even inside the
 * core's poll with a lock held; a NOTICE is sent only where the core
 * holds nothing, with interrupts held off so that it cannot jump out.
 *
 * The slot is cleared when the operation ends, and on every other way
 * out: a callback on the memory contexts of the operation (an error, a
 * cancel), the end of the transaction, and the backend's exit.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "pixelbox.h"

#define PUBLISH_EVERY_US 100000 /* polls refresh the slot this often */
#define ROWS_PER_UPDATE 4096	/* the scan reports every so many rows */

bool		pb_progress_enabled = false;
int			pb_progress_interval_ms = 10000;

/* One backend's operation as others read it. */
typedef struct ProgressSlot
{
	uint32		changecount;	/* odd while its backend writes */
	int			pid;			/* 0: no operation */
	Oid			userid;
	char		operation[NAMEDATALEN];
	PbProgressPhase phase;
	int64		done,
				total,			/* -1: not known yet */
				pairs;
	TimestampTz start,
				phase_start;
} ProgressSlot;

/* Per phase: its name (pb_progress's phase) and the NOTICE's unit. */
static const char *const phase_names[] = {"scan", "parse", "unpack", "compare"};
static const char *const phase_units[] = {"rows read", "files parsed", "chunks unpacked", "tiles"};

static ProgressSlot *slots;		/* MaxBackends of them; NULL without preload */
static shmem_request_hook_type prev_shmem_request_hook;
static shmem_startup_hook_type prev_shmem_startup_hook;

/* This backend's operation. */
static struct
{
	bool		active;
	uint64		gen;			/* which operation: callbacks of ended ones do nothing */
	MemoryContext watched;		/* the last context given a callback for gen */
	char		operation[NAMEDATALEN];
	PbProgressPhase phase;
	int64		done,
				total,
				pairs,
				rows;
	TimestampTz start,
				phase_start,
				published,
				next_notice;
} cur;

/* The backend's own thread (set on it; threads it starts see false). */
static __thread bool on_backend_thread;
static bool hooks_registered;

/* Bytes of the slots. */
static Size
ProgressShmemSize(void)
{
	return mul_size(MaxBackends, sizeof(ProgressSlot));
}

/* shmem_request_hook: ask for the slots (MaxBackends is known here). */
static void
ProgressShmemRequest(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(ProgressShmemSize());
}

/* shmem_startup_hook: find (or make, empty) the slots. */
static void
ProgressShmemStartup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	slots = ShmemInitStruct("pixelbox progress", ProgressShmemSize(), &found);
	if (!found)
		memset(slots, 0, ProgressShmemSize());
	LWLockRelease(AddinShmemInitLock);
}

/*
 * From _PG_init: when pixelbox is being preloaded, ask for the shared
 * memory of pb_progress().  Nothing else: no CUDA, no per-backend state.
 */
void
PbProgressInit(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ProgressShmemRequest;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ProgressShmemStartup;
}

/* This backend's slot, or NULL (no preload, or not a regular backend). */
static ProgressSlot *
MySlot(void)
{
	if (slots == NULL || MyBackendId < 1 || MyBackendId > MaxBackends)
		return NULL;
	return &slots[MyBackendId - 1];
}

/* Write the operation into this backend's slot (or clear it). */
static void
Publish(TimestampTz now)
{
	volatile ProgressSlot *s = MySlot();

	cur.published = now;
	if (s == NULL)
		return;
	s->changecount++;
	pg_write_barrier();
	s->pid = cur.active ? MyProcPid : 0;
	s->userid = GetSessionUserId();
	memcpy((char *) s->operation, cur.operation, NAMEDATALEN);
	s->phase = cur.phase;
	s->done = cur.done;
	s->total = cur.total;
	s->pairs = cur.pairs;
	s->start = cur.start;
	s->phase_start = cur.phase_start;
	pg_write_barrier();
	s->changecount++;
}

/* The operation is over: clear the slot. */
void
PbProgressEnd(void)
{
	if (!cur.active)
		return;
	cur.active = false;
	cur.watched = NULL;
	Publish(GetCurrentTimestamp());
}

/* Memory context callback: the operation it watched went (an error, a cancel). */
static void
ProgressContextGone(void *arg)
{
	if (cur.active && cur.gen == *(uint64 *) arg)
		PbProgressEnd();
}

/* The transaction ended: no operation outlives it. */
static void
ProgressXactEnd(XactEvent event, void *arg)
{
	if (event != XACT_EVENT_PRE_COMMIT && event != XACT_EVENT_PARALLEL_PRE_COMMIT &&
		event != XACT_EVENT_PRE_PREPARE)
		PbProgressEnd();
}

/* The backend exits: clear its slot. */
static void
ProgressExit(int code, Datum arg)
{
	PbProgressEnd();
}

/*
 * Begin operation (its SQL function's name) in this backend, or go on
 * with it when it is the one running (a later stage of the same call);
 * cxt's reset or deletion ends it (an error, a cancel).
 */
void
PbProgressStart(const char *operation, MemoryContext cxt)
{
	TimestampTz now = GetCurrentTimestamp();

	on_backend_thread = true;
	if (!hooks_registered)
	{
		before_shmem_exit(ProgressExit, (Datum) 0);
		RegisterXactCallback(ProgressXactEnd, NULL);
		hooks_registered = true;
	}
	if (!cur.active || strncmp(cur.operation, operation, NAMEDATALEN) != 0)
	{
		cur.active = true;
		cur.gen++;
		cur.watched = NULL;
		strlcpy(cur.operation, operation, NAMEDATALEN);
		cur.phase = PB_PHASE_SCAN;
		cur.done = cur.pairs = cur.rows = 0;
		cur.total = -1;
		cur.start = cur.phase_start = now;
		cur.next_notice = TimestampTzPlusMilliseconds(now, pb_progress_interval_ms);
		Publish(now);
	}
	if (cur.watched != cxt)
	{
		MemoryContextCallback *cb = MemoryContextAlloc(cxt, sizeof(MemoryContextCallback) +
													   sizeof(uint64));

		*(uint64 *) (cb + 1) = cur.gen;
		cb->func = ProgressContextGone;
		cb->arg = cb + 1;
		MemoryContextRegisterResetCallback(cxt, cb);
		cur.watched = cxt;
	}
}

/* Whether this backend has an operation running. */
bool
PbProgressActive(void)
{
	return cur.active;
}

/* The operation enters a phase of total steps (-1: not known yet). */
void
PbProgressEnter(PbProgressPhase phase, int64 total)
{
	if (!cur.active)
		return;
	cur.phase = phase;
	cur.done = cur.pairs = 0;
	cur.total = total;
	cur.phase_start = GetCurrentTimestamp();
	Publish(cur.phase_start);
}

/*
 * The phase's steps done so far, its total (-1: not known yet) and pairs
 * computed, into the slot: a few stores, safe inside the core's poll.
 */
void
PbProgressUpdate(int64 done, int64 total, int64 pairs)
{
	if (!cur.active)
		return;
	cur.done = done;
	cur.total = total;
	cur.pairs = pairs;
	Publish(GetCurrentTimestamp());
}

/*
 * Whether a poll should refresh the slot now: on the backend's own thread,
 * an operation running, its slot last written PUBLISH_EVERY_US ago.  Safe
 * to ask on any thread (other threads get false).
 */
bool
PbProgressDue(void)
{
	return on_backend_thread && cur.active &&
		GetCurrentTimestamp() - cur.published >= PUBLISH_EVERY_US;
}

/*
 * One row read by an aggregate's scan (the scan phase; the operation
 * begins with it): counted, and reported every few thousand rows.
 */
void
PbProgressRow(const char *operation, MemoryContext cxt)
{
	if (cur.active && (cur.phase != PB_PHASE_SCAN || ++cur.rows % ROWS_PER_UPDATE != 0))
		return;
	PbProgressStart(operation, cxt);
	if (cur.rows == 0)
		cur.rows = 1;
	PbProgressUpdate(cur.rows, -1, 0);
	PbProgressNotice();
}

/* Seconds left in the phase at its pace so far, or -1 when not known. */
static double
SecondsLeft(int64 done, int64 total, TimestampTz phase_start, TimestampTz now)
{
	if (total < 0 || done <= 0)
		return -1;
	return (double) (now - phase_start) / 1e6 * (double) (total - Min(done, total)) / done;
}

/* n with thousands separators ("1,234,567") into buf. */
static void
FormatCount(char *buf, size_t len, int64 n)
{
	char		digits[32];
	int			nd = snprintf(digits, sizeof(digits), INT64_FORMAT, n);
	size_t		k = 0;

	for (int i = 0; i < nd && k + 2 < len; i++)
	{
		if (i > 0 && digits[i - 1] != '-' && (nd - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
}

/* n in short form ("950", "12.3K", "3.1M", "4.0G") into buf. */
static void
FormatShort(char *buf, size_t len, int64 n)
{
	if (n < 1000)
		snprintf(buf, len, INT64_FORMAT, n);
	else if (n < 1000000)
		snprintf(buf, len, "%.1fK", n / 1e3);
	else if (n < 1000000000)
		snprintf(buf, len, "%.1fM", n / 1e6);
	else
		snprintf(buf, len, "%.1fG", n / 1e9);
}

/*
 * When pixelbox.progress is on and the interval has passed, a NOTICE of
 * where the operation stands.  Call it only where the core holds nothing
 * (between feeds and waits, between slices): interrupts are held off
 * around it, so a pending cancel waits for the core to see it instead of
 * jumping out of here; nothing is allocated but the message.
 */
void
PbProgressNotice(void)
{
	TimestampTz now;
	char		done[32],
				total[32],
				pairs[32],
				line[256];
	double		left;
	int			k;

	if (!pb_progress_enabled || !cur.active || !on_backend_thread)
		return;
	now = GetCurrentTimestamp();
	if (now < cur.next_notice)
		return;
	cur.next_notice = TimestampTzPlusMilliseconds(now, pb_progress_interval_ms);
	FormatCount(done, sizeof(done), cur.done);
	FormatCount(total, sizeof(total), cur.total);
	FormatShort(pairs, sizeof(pairs), cur.pairs);
	if (cur.total >= 0)
		k = snprintf(line, sizeof(line), "%s of %s %s", done, total, phase_units[cur.phase]);
	else
		k = snprintf(line, sizeof(line), "%s %s so far", done, phase_units[cur.phase]);
	if (cur.phase == PB_PHASE_COMPARE)
		k += snprintf(line + k, sizeof(line) - k, ", %s pairs", pairs);
	k += snprintf(line + k, sizeof(line) - k, ", %.1f s elapsed",
				  (double) (now - cur.start) / 1e6);
	left = SecondsLeft(cur.done, cur.total, cur.phase_start, now);
	if (left >= 0)
		snprintf(line + k, sizeof(line) - k, ", about %.*f s left", left < 10 ? 1 : 0, left);
	HOLD_INTERRUPTS();
	ereport(NOTICE, (errmsg("%s: %s", cur.operation, line)));
	RESUME_INTERRUPTS();
}

/*
 * How long a wait may last before the next NOTICE is due (seconds), or -1
 * when none will be (pixelbox.progress off).
 */
double
PbProgressNoticeIn(void)
{
	if (!pb_progress_enabled || !cur.active)
		return -1;
	return Max(0.001, (double) (cur.next_notice - GetCurrentTimestamp()) / 1e6);
}

/* A consistent copy of slot i (retried while its backend writes it). */
static void
ReadSlot(int i, ProgressSlot *out)
{
	volatile ProgressSlot *s = &slots[i];

	for (;;)
	{
		uint32		before = s->changecount,
					after;

		pg_read_barrier();
		memcpy(out, (const ProgressSlot *) s, sizeof(ProgressSlot));
		pg_read_barrier();
		after = s->changecount;
		if (before == after && (before & 1) == 0)
			return;
		CHECK_FOR_INTERRUPTS();
	}
}

PG_FUNCTION_INFO_V1(pb_progress);
/*
 * One row per backend running a pixelbox comparison: pid, operation,
 * phase, steps done of total, pairs computed, seconds elapsed and left.
 * Other roles' rows only for members of pg_read_all_stats (and
 * superusers), as pg_stat_activity shows their queries.
 */
Datum
pb_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		all_stats;
	TimestampTz now = GetCurrentTimestamp();

	if (slots == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pb_progress: pixelbox is not in shared_preload_libraries"),
				 errhint("Add pixelbox to shared_preload_libraries in postgresql.conf and restart the server; "
						 "without it, SET pixelbox.progress = on gives a NOTICE of a comparison's progress.")));
	InitMaterializedSRF(fcinfo, 0);
	all_stats = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	for (int i = 0; i < MaxBackends; i++)
	{
		ProgressSlot s;
		Datum		values[8];
		bool		nulls[8] = {0};
		double		left;

		ReadSlot(i, &s);
		if (s.pid == 0 || !(all_stats || has_privs_of_role(GetUserId(), s.userid)))
			continue;
		s.operation[NAMEDATALEN - 1] = '\0';
		left = SecondsLeft(s.done, s.total, s.phase_start, now);
		values[0] = Int32GetDatum(s.pid);
		values[1] = CStringGetTextDatum(s.operation);
		values[2] = CStringGetTextDatum(phase_names[s.phase]);
		values[3] = Int64GetDatum(s.done);
		values[4] = Int64GetDatum(s.total);
		nulls[4] = s.total < 0;
		values[5] = Int64GetDatum(s.pairs);
		values[6] = Float8GetDatum((double) (now - s.start) / 1e6);
		values[7] = Float8GetDatum(left);
		nulls[7] = left < 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
