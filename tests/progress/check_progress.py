#!/usr/bin/python3
"""Progress of long comparisons, seen from a second session while they run.

A comparison runs in one psql session, slowed down with the testing
throttle (pixelbox.pipeline_throttle = filter: 5 ms a one-polygon tile, two
threads, no migration), while this script polls pb_progress from other
sessions.  Checked, against the run's own figures (pb_pipeline_report() in
the same session afterwards, and PostGIS's count of the pairs):
  - rows of the running backend, done only growing, total fixed and equal
    to the run's tasks, pairs only growing up to the run's, elapsed
    growing, an ETA once something is done; no row once the run is over;
  - the NOTICE lines with pixelbox.progress on (their format, their counts
    growing, their total the run's), and none with it off;
  - no row left after pg_cancel_backend and pg_terminate_backend mid-run,
    and a prompt end;
  - other roles' rows hidden, shown to members of pg_read_all_stats;
  - the scan phase of an aggregate (rows read, total not known);
  - every function that runs the pipeline reports under its own name:
    pb_compare_sets (both forms; the tiled one streams, total not known
    while rows come), pb_compare_tables, pb_compare_files,
    pb_intersecting_pairs, pb_match_stats, pb_match_objects.
Needs pixelbox in shared_preload_libraries (scripts/test's cluster has it).

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment).  Prints one line per check and a summary line
"progress checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

passed = 0
failed = 0

THROTTLE = ["pixelbox.pipeline_throttle = filter", "pixelbox.migration = off",
            "pixelbox.tile_shapes = 1", "pixelbox.cpu_threads = 2"]
NOTICE = re.compile(r"^NOTICE:  (\w+): ([\d,]+) of ([\d,]+) tiles, ([\d.]+[KMG]?) pairs, "
                    r"([\d.]+) s elapsed(, about [\d.]+ s left)?$")
# each grid square of set b overlaps one of set a by a quarter
GRID = 30
SMALL = 12


def check(ok, what, detail=""):
    """Count one check, printing it."""
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}" + (f": {detail}" if detail else ""))


def sql(query, role=None):
    """Run one query (as role, when given) and return its rows as lists of text."""
    text = (f"SET ROLE {role};\n" if role else "") + query + ";\n"
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return [line.split("|") for line in r.stdout.splitlines() if line]


def start(query, settings, app):
    """Start query in a session of its own (application_name app), after the
    settings; afterwards it prints the run's tasks and pairs (the report)."""
    text = "".join(f"SET {s};\n" for s in settings) + query + ";\n" + \
        "SELECT tasks, pairs FROM pb_pipeline_report() WHERE stage = 'total';\n"
    env = dict(os.environ, PGAPPNAME=app)
    proc = subprocess.Popen(["psql", "-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    proc.stdin.write(text)
    proc.stdin.close()
    for _ in range(200):
        rows = sql(f"SELECT pid FROM pg_stat_activity WHERE application_name = '{app}'")
        if rows:
            return proc, int(rows[0][0])
        if proc.poll() is not None:
            return proc, -1  # over already: the checks on its rows say so
        time.sleep(0.02)
    raise RuntimeError(f"session {app} did not start")


def progress_of(pid, role=None):
    """The pb_progress row of backend pid: (operation, phase, done, total or
    None, pairs, elapsed_s, eta_s or None), or None."""
    rows = sql("SELECT operation, phase, done, total, pairs, elapsed_s, eta_s "
               f"FROM pb_progress WHERE pid = {pid}", role)
    if not rows:
        return None
    op, phase, done, total, pairs, elapsed, eta = rows[0]
    return (op, phase, int(done), int(total) if total else None, int(pairs), float(elapsed),
            float(eta) if eta else None)


def watch(proc, pid, every=0.1, on_first=None):
    """Poll pid's progress until proc ends: the rows seen, proc's output,
    error output, and the rows left after its end."""
    seen = []
    while proc.poll() is None:
        row = progress_of(pid)
        if row is not None:
            if not seen and on_first:
                on_first()
            seen.append(row)
        time.sleep(every)
    out, err = proc.stdout.read(), proc.stderr.read()
    return seen, out, err, progress_of(pid)


def nondecreasing(xs):
    return all(a <= b for a, b in zip(xs, xs[1:]))


def report_of(out):
    """(tasks, pairs) of the report the session printed last."""
    tasks, pairs = out.strip().splitlines()[-1].split("|")
    return int(tasks), int(pairs)


def check_run(name, seen, left, operation, tasks=None, pairs=None, total_known=True):
    """The rows seen of one run against its figures."""
    cmp_rows = [r for r in seen if r[1] == "compare"]
    check(len(cmp_rows) >= 3, f"{name}: rows seen from another session while it runs",
          f"{len(seen)} rows, {len(cmp_rows)} in compare")
    check(all(r[0] == operation for r in seen), f"{name}: operation is {operation}",
          str({r[0] for r in seen}))
    done = [r[2] for r in cmp_rows]
    check(nondecreasing(done) and len(done) > 1 and done[-1] > done[0],
          f"{name}: done only grows, and grows", str(done[:3] + done[-3:]))
    check(nondecreasing([r[5] for r in seen]), f"{name}: elapsed_s grows")
    check(nondecreasing([r[4] for r in cmp_rows]), f"{name}: pairs only grow")
    if total_known:
        totals = {r[3] for r in cmp_rows}
        check(len(totals) == 1 and (tasks is None or totals == {tasks}),
              f"{name}: total fixed, the run's tasks ({tasks})", str(totals))
        check(all(r[2] <= r[3] for r in cmp_rows), f"{name}: done <= total")
        check(all(r[6] is not None for r in cmp_rows if r[2] > 0),
              f"{name}: an ETA once tiles are done")
    if pairs is not None:
        check(all(r[4] <= pairs for r in cmp_rows), f"{name}: pairs up to the run's ({pairs})")
    check(left is None, f"{name}: no row once it is over", str(left))


def setup(tmp):
    """Tables of squares (set b shifted by a quarter of a square's area) and
    the same as polygon files; roles with and without pg_read_all_stats."""
    sql("DROP TABLE IF EXISTS prog_a, prog_b, prog_small, prog_cells;"
        f"CREATE TABLE prog_a AS SELECT i * {GRID} + j AS id, "
        "ST_MakeEnvelope(20 * i, 20 * j, 20 * i + 10, 20 * j + 10) AS geom "
        f"FROM generate_series(0, {GRID - 1}) i, generate_series(0, {GRID - 1}) j;"
        "CREATE TABLE prog_b AS SELECT id, ST_Translate(geom, 5, 5) AS geom FROM prog_a;"
        "CREATE TABLE prog_cells AS SELECT id, true AS in_a, geom FROM prog_a "
        "UNION ALL SELECT id, false, geom FROM prog_b ORDER BY id, 2 DESC;"
        f"CREATE TABLE prog_small AS SELECT * FROM prog_cells WHERE id < {SMALL * SMALL};"
        "DROP ROLE IF EXISTS pb_progress_nobody; DROP ROLE IF EXISTS pb_progress_stats;"
        "CREATE ROLE pb_progress_nobody; CREATE ROLE pb_progress_stats IN ROLE pg_read_all_stats")
    files = []
    for name in ("prog_a", "prog_b"):
        path = os.path.join(tmp, name + ".txt")
        with open(path, "w") as f:
            for pid, wkt in sql(f"SELECT id, ST_AsText(geom) FROM {name} ORDER BY id"):
                f.write(f"{pid} {wkt}\n")
        os.chmod(path, 0o644)
        files.append(path)
    return files


def main():
    preload = sql("SHOW shared_preload_libraries")[0][0]
    if "pixelbox" not in preload:
        check(False, "pixelbox is in shared_preload_libraries", repr(preload))
        print(f"progress checks: {passed} passed, {failed} failed")
        return 1
    tmp = tempfile.mkdtemp(prefix="pixelbox-progress.")
    os.chmod(tmp, 0o755)
    files = setup(tmp)
    truth = int(sql("SELECT count(*) FROM prog_a a JOIN prog_b b ON a.geom && b.geom "
                    "AND ST_Area(ST_Intersection(a.geom, b.geom)) > 0")[0][0])

    # a whole run, progress NOTICEs on, watched from other sessions and roles
    roles = {}

    def as_roles():
        for role in ("pb_progress_nobody", "pb_progress_stats"):
            roles[role] = int(sql("SELECT count(*) FROM pb_progress", role)[0][0])

    proc, pid = start("SELECT (pb_compare_sets(geom, in_a)).pairs_intersecting FROM prog_cells",
                      THROTTLE + ["pixelbox.progress = on", "pixelbox.progress_interval = '200ms'"],
                      "pb_progress_a")
    seen, out, err, left = watch(proc, pid, on_first=as_roles)
    check(proc.returncode == 0, "pb_compare_sets: the run succeeds", err[-300:])
    tasks, pairs = report_of(out)
    check(int(out.splitlines()[0]) == truth, f"pb_compare_sets: PostGIS's {truth} pairs",
          out.splitlines()[0])
    check_run("pb_compare_sets", seen, left, "pb_compare_sets", tasks, pairs)
    check(any(r[2] < tasks for r in seen), "pb_compare_sets: seen before its end",
          str(seen[-1:]))
    check(roles.get("pb_progress_nobody") == 0, "another role sees no row", str(roles))
    check(roles.get("pb_progress_stats") == 1, "a member of pg_read_all_stats sees the row",
          str(roles))
    notices = [line for line in err.splitlines() if line.startswith("NOTICE:")]
    parsed = [NOTICE.match(line) for line in notices]
    check(len(notices) >= 3 and all(parsed), "NOTICE lines every 200 ms, in their format",
          "\n".join(notices[:3]))
    if notices and all(parsed):
        done = [int(m.group(2).replace(",", "")) for m in parsed]
        check(nondecreasing(done) and done[-1] > done[0], "NOTICE: done grows", str(done))
        check({int(m.group(3).replace(",", "")) for m in parsed} == {tasks},
              f"NOTICE: of the run's {tasks} tiles")
        check(all(m.group(1) == "pb_compare_sets" for m in parsed), "NOTICE: names the function")
        check(any(m.group(6) for m in parsed), "NOTICE: about so many seconds left")

    # progress off: no NOTICE, though the run lasts many intervals
    proc, pid = start("SELECT (pb_compare_sets(geom, in_a)).pairs FROM prog_small",
                      THROTTLE + ["pixelbox.progress_interval = '100ms'"], "pb_progress_off")
    t0 = time.time()
    seen, out, err, left = watch(proc, pid)
    check(proc.returncode == 0 and "NOTICE" not in err and time.time() - t0 > 0.3,
          "pixelbox.progress off: no NOTICE", err[-300:])
    check(left is None, "pixelbox.progress off: no row once it is over")

    # cancel and terminate mid-run: a prompt end, no row left behind
    for how in ("pg_cancel_backend", "pg_terminate_backend"):
        proc, pid = start("SELECT (pb_compare_sets(geom, in_a)).pairs FROM prog_cells",
                          THROTTLE, "pb_progress_" + how)
        row = None
        for _ in range(100):
            row = progress_of(pid)
            if row and row[1] == "compare" and row[2] > 0:
                break
            time.sleep(0.05)
        check(row is not None and row[2] > 0, f"{how}: the run is seen before", str(row))
        t0 = time.time()
        sql(f"SELECT {how}({pid})")
        proc.wait(timeout=30)
        took = time.time() - t0
        err = proc.stderr.read()
        want = "canceling statement due to user request" if how == "pg_cancel_backend" \
            else "terminating connection due to administrator command"
        check(proc.returncode != 0 and want in err and took < 2,
              f"{how}: the run ends at once with its error", f"{took:.2f} s, {err[-200:]}")
        left = None
        for _ in range(50):  # a terminated backend clears its slot on its way out
            left = progress_of(pid)
            if left is None:
                break
            time.sleep(0.02)
        check(left is None, f"{how}: no row left", str(left))

    # the scan phase: rows read, reported every 4,096 (14,400 rows, every
    # fifth slowed down by 1 ms), total and ETA not known; then the compare
    # phase
    proc, pid = start("SELECT (pb_compare_sets(geom, in_a)).pairs FROM (SELECT CASE WHEN "
                      "(id + k) % 5 = 0 AND pg_sleep(0.001) IS NULL THEN NULL ELSE geom END AS geom, "
                      "in_a FROM prog_cells, generate_series(1, 8) k) t",
                      [], "pb_progress_scan")
    seen, out, err, left = watch(proc, pid, every=0.05)
    scan = [r for r in seen if r[1] == "scan"]
    check(proc.returncode == 0, "scan phase: the run succeeds", err[-300:])
    check(len({r[2] for r in scan}) >= 2 and nondecreasing([r[2] for r in scan]),
          "scan phase: rows read grow", str(sorted({r[2] for r in scan})))
    check(all(r[2] == 1 or r[2] % 4096 == 0 for r in scan), "scan phase: every 4,096 rows")
    check(scan and all(r[3] is None and r[6] is None for r in scan),
          "scan phase: total and ETA not known")
    check(all(r[0] == "pb_compare_sets" for r in seen) and left is None,
          "scan phase: pb_compare_sets, no row once it is over")

    # every function running the pipeline, under its own name
    small = f"(SELECT * FROM prog_cells WHERE id < {SMALL * SMALL * 3}) c"
    runs = [
        ("pb_compare_sets with a tile key", "pb_compare_sets",
         "SELECT (pb_compare_sets(geom, in_a, id)).pairs FROM prog_cells", False),
        ("pb_compare_tables", "pb_compare_sets",
         "SELECT pairs FROM pb_compare_tables('prog_a', 'geom', 'prog_b', 'geom')", True),
        ("pb_compare_files", "pb_compare_files",
         f"SELECT (pb_compare_files(ARRAY['{files[0]}'], ARRAY['{files[1]}'])).pairs", True),
        ("pb_intersecting_pairs", "pb_intersecting_pairs",
         "SELECT count(*) FROM pb_intersecting_pairs('prog_a', 'id', 'geom', 'prog_b', 'id', 'geom')",
         True),
        ("pb_match_stats", "pb_match_stats",
         f"SELECT (pb_match_stats(geom, in_a)).tp FROM {small}", True),
        ("pb_match_objects", "pb_match_objects",
         "SELECT count(*) FROM pb_match_objects('prog_a', 'id', 'geom', 'prog_b', 'id', 'geom')",
         True),
    ]
    for name, operation, query, total_known in runs:
        proc, pid = start(query, THROTTLE, "pb_progress_f")
        seen, out, err, left = watch(proc, pid)
        check(proc.returncode == 0, f"{name}: the run succeeds", err[-300:])
        tasks, pairs = report_of(out) if proc.returncode == 0 else (None, None)
        check_run(name, seen, left, operation, tasks, pairs, total_known)
        if not total_known:
            check(any(r[3] is None for r in seen), f"{name}: total not known while rows stream")
    sql("DROP TABLE prog_a, prog_b, prog_small, prog_cells;"
        "DROP ROLE pb_progress_nobody; DROP ROLE pb_progress_stats")
    for path in files:
        os.unlink(path)
    os.rmdir(tmp)
    print(f"progress checks: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
