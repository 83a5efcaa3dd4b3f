#!/usr/bin/python3
"""pixelbox's aggregates on Citus-distributed tables against plain tables.

Runs on the coordinator of a running Citus cluster (scripts/citus-cluster.sh:
PGHOST/PGPORT/PGUSER/PGDATABASE name the coordinator's database,
PB_CITUS_WORKER_PORTS, PB_CITUS_DATA_worker2 and PB_CITUS_LOG_* the rest).
Loads bench/pbgen's slides (SLIDES slides, POLYGONS polygons a set) into
plain tables a_plain, b_plain and into tables a_dist, b_dist distributed by
slide and co-located, all with GiST indexes, and checks:
  - every aggregate over the distributed tables gives the plain tables'
    answer bit for bit (extra_float_digits = 3, composite rows field by
    field): jaccard_gpu and pb_cross_compare over the co-located && join,
    global and per slide; pb_compare_sets (and pb_compare_tables) keyed
    by slide, global, and unkeyed per slide; pb_match_stats keyed by slide,
    global, and unkeyed per slide;
  - aggregates that cannot push down exactly (pb_compare_sets unkeyed and
    pb_match_stats, global; pb_compare_tables) and the table functions that
    read whole tables (pb_intersecting_pairs, pb_match_objects) refuse to
    pull every polygon to the coordinator, and answer as the plain tables
    with pixelbox.allow_coordinator_pull on;
  - keyed pb_compare_sets and pb_match_stats whose key occurs in several
    shards is an error;
  - EXPLAIN shows worker_partial_agg on the workers and coord_combine_agg on
    the coordinator, and the coordinator receives at most 1 KB per shard
    (each task run on its node: Citus cannot EXPLAIN ANALYZE these);
    grouped by slide, the aggregate runs whole on the workers;
  - a worker stopped mid-query gives an error, not an answer, and the
    query answers again once the worker is back;
  - which pixelbox.device the workers compute with when the coordinator's
    session sets it (plain SET, SET LOCAL with citus.propagate_set_commands,
    ALTER DATABASE / ROLE ... SET);
  - no server process of the cluster died of a signal.
Talks to the nodes with psql.  Prints one line per check and a summary line
"citus checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "formats"))
from sqlcheck import Checks, psql as run_psql  # noqa: E402

# float8s to the last bit, so that "bit-identical" compares the text
os.environ["PGOPTIONS"] = "-c extra_float_digits=3"

SLIDES = 4
POLYGONS = 2000
SHARDS = 8
PULL_ERROR = "would pull every polygon to the Citus coordinator"
TABLE_PULL_ERROR = "would pull every polygon of Citus distributed table"
KEY_ERROR = "occurs in more than one partial aggregate"
JOIN = "FROM {a} p JOIN {b} q ON p.slide = q.slide AND p.geom && q.geom"
UNION = ("FROM (SELECT geom g, true in_a, slide, tile FROM {a} "
         "UNION ALL SELECT geom, false, slide, tile FROM {b}) u")
# Citus cannot push down this UNION ALL: it pulls both tables as
# intermediate results first (recursive planning)
UNION_NO_SLIDE = ("FROM (SELECT geom g, true in_a FROM {a} "
                  "UNION ALL SELECT geom, false FROM {b}) u")

check = Checks(verbose=True)


def psql(text, port=None):
    """Run SQL text with psql (on the node at port, default the coordinator)
    and return (rows as lists of text, error text or None)."""
    try:
        return [line.split("|") for line in run_psql(text, port=port).splitlines() if line], None
    except RuntimeError as e:
        return [], str(e) or "error"


def sql(text, port=None):
    """Run SQL text that must succeed; return its rows."""
    rows, err = psql(text, port)
    if err:
        raise RuntimeError(err)
    return rows


def query(template, dist, settings=()):
    """Run template over the distributed (dist) or plain tables after the
    settings; return (column names, rows, error)."""
    names = ("a_dist", "b_dist") if dist else ("a_plain", "b_plain")
    text = "".join(f"SET {s};\n" for s in settings) + \
        "\\pset tuples_only off\n\\pset footer off\n" + \
        template.format(a=names[0], b=names[1]) + ";\n"
    rows, err = psql(text)
    if err:
        return None, None, err
    return rows[0], rows[1:], None


def same_answer(what, template, settings=()):
    """Check that template gives the same rows, field by field, over the
    distributed tables (after settings) as over the plain ones."""
    names, want, err = query(template, False)
    if err:
        check(False, what, "plain tables: " + err)
        return
    got_names, got, err = query(template, True, settings)
    if err:
        check(False, what, "distributed tables: " + err)
        return
    diffs = [f"row {i} {n}: {w} != {g}" for i, (wr, gr) in enumerate(zip(want, got))
             for n, w, g in zip(names, wr, gr) if w != g]
    if len(want) != len(got) or names != got_names:
        diffs.insert(0, f"{len(got)} rows of {got_names}, plain {len(want)} of {names}")
    check(not diffs and bool(want), f"{what}: distributed = plain ({len(want)} rows)",
          "; ".join(diffs[:4]))


def error_like(what, template, message):
    """Check that template over the distributed tables is an error whose
    message contains message."""
    _, rows, err = query(template, True)
    check(err is not None and message in err, f"{what}: error '{message}'",
          err if err else f"answered {rows}")


def load(tmp):
    """Generate the slides and load them into the plain and the distributed
    tables; tile is a 256-px square of the slide, the same on every slide."""
    for s in range(1, SLIDES + 1):
        subprocess.run(["bench/pbgen", "--polygons", str(POLYGONS), "--seed", str(s),
                        "--out-a", f"{tmp}/a{s}.tsv", "--out-b", f"{tmp}/b{s}.tsv"], check=True)
    text = ["SET client_min_messages = warning;",
            "DROP TABLE IF EXISTS a_plain, b_plain, a_dist, b_dist, stage;",
            "CREATE TABLE stage (id bigint, geom geometry);"]
    for t in ("a", "b"):
        text.append(f"CREATE TABLE {t}_plain (slide int, id bigint, tile bigint, geom geometry);")
        for s in range(1, SLIDES + 1):
            text += ["TRUNCATE stage;", f"\\copy stage FROM '{tmp}/{t}{s}.tsv'",
                     f"INSERT INTO {t}_plain SELECT {s}, id, floor(ST_XMin(geom) / 256)::bigint "
                     "* 1000 + floor(ST_YMin(geom) / 256)::bigint, geom FROM stage;"]
        text.append(f"CREATE TABLE {t}_dist (LIKE {t}_plain);")
    text += [f"SELECT create_distributed_table('a_dist', 'slide', shard_count := {SHARDS});",
             "SELECT create_distributed_table('b_dist', 'slide', colocate_with := 'a_dist');",
             "INSERT INTO a_dist SELECT * FROM a_plain;",
             "INSERT INTO b_dist SELECT * FROM b_plain;"]
    for t in ("a_plain", "b_plain", "a_dist", "b_dist"):
        text += [f"CREATE INDEX ON {t} USING gist (geom);", f"ANALYZE {t};"]
    text.append("DROP TABLE stage;")
    sql("\n".join(text))


def check_answers():
    """Every aggregate over the distributed tables against the plain ones."""
    same_answer("global jaccard_gpu over the co-located && join",
                "SELECT jaccard_gpu(p.geom, q.geom) " + JOIN)
    same_answer("global pb_cross_compare over the co-located && join",
                "SELECT (pb_cross_compare(p.geom, q.geom)).* " + JOIN)
    same_answer("jaccard_gpu GROUP BY slide",
                "SELECT p.slide, jaccard_gpu(p.geom, q.geom) " + JOIN + " GROUP BY 1 ORDER BY 1")
    same_answer("pb_cross_compare GROUP BY slide",
                "SELECT p.slide, (pb_cross_compare(p.geom, q.geom)).* " + JOIN +
                " GROUP BY 1 ORDER BY 1")
    same_answer("global pb_compare_sets keyed by slide over the UNION ALL",
                "SELECT (pb_compare_sets(g, in_a, slide)).* " + UNION)
    same_answer("pb_compare_sets GROUP BY slide over the UNION ALL",
                "SELECT slide, (pb_compare_sets(g, in_a)).* " + UNION + " GROUP BY 1 ORDER BY 1")
    same_answer("global pb_match_stats keyed by slide over the UNION ALL",
                "SELECT (pb_match_stats(g, in_a, 0.5, slide)).* " + UNION)
    same_answer("pb_match_stats GROUP BY slide over the UNION ALL",
                "SELECT slide, (pb_match_stats(g, in_a)).* " + UNION + " GROUP BY 1 ORDER BY 1")
    same_answer("pb_compare_tables keyed by slide",
                "SELECT (pb_compare_tables('{a}', 'geom', '{b}', 'geom', 'slide')).*")


def rows_digest(function, columns):
    """A query of the count and an md5 of the sorted rows of table function
    function over tables {a} and {b} (columns: its output, as text)."""
    row = " || ',' || ".join(f"{c}::text" for c in columns)
    return (f"SELECT count(*), md5(string_agg({row}, ';' ORDER BY {row})) "
            f"FROM {function}('{{a}}', 'id', 'geom', '{{b}}', 'id', 'geom')")


def check_refusals():
    """Aggregates and table functions that cannot push down refuse the
    coordinator pull, and answer as the plain tables when it is allowed; a
    tile key met in several shards does not combine."""
    pull = ["pixelbox.allow_coordinator_pull = on"]
    for what, template, message in (
            ("global pb_compare_sets", "SELECT (pb_compare_sets(g, in_a)).* " + UNION,
             PULL_ERROR),
            ("global pb_match_stats", "SELECT (pb_match_stats(g, in_a)).* " + UNION, PULL_ERROR),
            ("global pb_compare_sets, slide not in the UNION ALL",
             "SELECT (pb_compare_sets(g, in_a)).* " + UNION_NO_SLIDE, PULL_ERROR),
            ("global pb_match_stats, slide not in the UNION ALL",
             "SELECT (pb_match_stats(g, in_a)).* " + UNION_NO_SLIDE, PULL_ERROR),
            ("pb_compare_tables", "SELECT (pb_compare_tables('{a}', 'geom', '{b}', 'geom')).*",
             PULL_ERROR),
            ("pb_intersecting_pairs",
             rows_digest("pb_intersecting_pairs",
                         ["id_a", "id_b", "area_a", "area_b", "area_intersection"]),
             TABLE_PULL_ERROR),
            ("pb_match_objects",
             rows_digest("pb_match_objects", ["in_a", "id", "match_id", "iou", "status"]),
             TABLE_PULL_ERROR)):
        error_like(what, template, message)
        same_answer(what + " with pixelbox.allow_coordinator_pull", template, pull)
    error_like("global pb_compare_sets keyed by tile (in every shard)",
               "SELECT (pb_compare_sets(g, in_a, tile)).* " + UNION, KEY_ERROR)
    error_like("global pb_match_stats keyed by tile (in every shard)",
               "SELECT (pb_match_stats(g, in_a, 0.5, tile)).* " + UNION, KEY_ERROR)


def size_bytes(number, unit):
    """Bytes of an EXPLAIN size (bytes, kB, MB)."""
    return int(number) * {"bytes": 1, "kB": 1024, "MB": 1024 * 1024}[unit]


def task_bytes(plan):
    """Run each task of an EXPLAIN (VERBOSE) plan with every task shown on
    its node; return the bytes of each one's result values as text: what
    the coordinator receives from it."""
    return [int(sql("SELECT coalesce(sum(octet_length(c::text)), 0) "
                    f"FROM ({query_text}) t(c)", port)[0][0])
            for query_text, port in
            re.findall(r"Query: (.*)\n\s*Node: host=\S+ port=(\d+)", plan)]


def check_pushed(what, template):
    """The global aggregate of template over the distributed tables: partials
    on the workers, the combine on the coordinator, at most 1 KB of tuple
    data from each shard."""
    q = template.format(a="a_dist", b="b_dist")
    plan = "\n".join(r[0] for r in sql("SET citus.explain_all_tasks = on;\n"
                                       "EXPLAIN (VERBOSE) " + q))
    queries = re.findall(r"Query: (.*)", plan)
    check(queries and all("worker_partial_agg" in t for t in queries),
          f"EXPLAIN {what}: worker_partial_agg in every task's query", plan[:600])
    check("coord_combine_agg" in plan, f"EXPLAIN {what}: coord_combine_agg on the coordinator")
    sent = task_bytes(plan)
    print(f"     {what}: the coordinator receives {sum(sent)} bytes from {len(sent)} shards "
          f"(at most {max(sent, default=0)} from one)")
    check(sent and max(sent) <= 1024, f"{what}: coordinator input <= 1 KB a shard", str(sent))
    return q, len(sent)


def check_explain():
    """The global aggregates' plans and the bytes they ship; grouped by
    slide, an aggregate runs whole on the workers.  Citus 13.2.2 cannot
    EXPLAIN ANALYZE a query with worker_partial_agg (citusdata/citus#4043:
    "column field_0 has pseudo-type cstring"), so the bytes are measured by
    running each task on its node; EXPLAIN ANALYZE's own count is checked
    too when it works."""
    q, shards = check_pushed("jaccard_gpu", "SELECT jaccard_gpu(p.geom, q.geom) " + JOIN)
    check_pushed("pb_cross_compare", "SELECT pb_cross_compare(p.geom, q.geom) " + JOIN)
    check_pushed("pb_compare_sets keyed by slide",
                 "SELECT pb_compare_sets(g, in_a, slide) " + UNION)
    check_pushed("pb_match_stats keyed by slide",
                 "SELECT pb_match_stats(g, in_a, 0.5, slide) " + UNION)
    rows, err = psql("EXPLAIN (ANALYZE, VERBOSE) " + q)
    got = re.search(r"Tuple data received from nodes: (\d+) (bytes|kB|MB)",
                    "\n".join(r[0] for r in rows))
    if got:
        check(size_bytes(*got.groups()) <= 1024 * shards,
              "EXPLAIN ANALYZE jaccard_gpu: tuple data received <= 1 KB a shard", got.group(0))
    else:
        print(f"     EXPLAIN ANALYZE: {(err or 'no tuple data line').splitlines()[0]}")
    q = "SELECT slide, pb_compare_sets(g, in_a) " + UNION.format(a="a_dist", b="b_dist") + \
        " GROUP BY 1"
    plan = "\n".join(r[0] for r in sql("EXPLAIN (VERBOSE) " + q))
    tasks = [line for line in plan.splitlines() if "Query: " in line]
    check(tasks and all("pb_compare_sets(" in t for t in tasks),
          "EXPLAIN: pb_compare_sets GROUP BY slide runs whole on the workers", plan[:600])


def worker_active(port, needle):
    """Whether the node at port runs a query containing needle."""
    rows, err = psql("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                     f"AND query LIKE '%{needle}%' AND pid <> pg_backend_pid()", port)
    return not err and int(rows[0][0]) > 0


def pg_ctl(*args):
    """Run pg_ctl as the data directory's owner."""
    owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    return subprocess.run(owner + ["pg_ctl"] + list(args), capture_output=True, text=True)


def check_worker_down():
    """Stop a worker (immediate) while a slowed global query runs on it:
    the query must fail; after a restart it answers again."""
    port = os.environ["PB_CITUS_WORKER_PORTS"].split()[1]
    data = os.environ["PB_CITUS_DATA_worker2"]
    log = os.environ["PB_CITUS_LOG_worker2"]
    slow = ("SELECT jaccard_gpu(p.geom, q.geom) " + JOIN.format(a="a_dist", b="b_dist") +
            " WHERE pg_sleep(0.002) IS NOT NULL")
    proc = subprocess.Popen(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", slow],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while time.time() < deadline and proc.poll() is None and not worker_active(port, "pg_sleep"):
        time.sleep(0.1)
    running = proc.poll() is None
    time.sleep(0.5)
    start = time.time()
    stopped = pg_ctl("-D", data, "-m", "immediate", "-w", "stop").returncode == 0
    out, err = proc.communicate(timeout=120)
    print(f"     worker on port {port} stopped {'mid-query' if running else 'AFTER the query'}; "
          f"query ended {time.time() - start:.1f} s later: {err.strip()[:200] or out.strip()}")
    check(running and stopped and proc.returncode != 0 and "ERROR" in err and not out.strip(),
          "worker stopped mid-query: an error, no answer",
          f"running={running} stopped={stopped} rc={proc.returncode} out={out.strip()!r}")
    started = pg_ctl("-D", data, "-l", log, "-w", "start").returncode == 0
    check(started, "the stopped worker restarts")
    same_answer("after the worker's restart: global jaccard_gpu",
                "SELECT jaccard_gpu(p.geom, q.geom) " + JOIN)


def worker_devices(prefix=""):
    """The pixelbox.device values the workers' shard queries see, after the
    SQL prefix in the same session."""
    rows, err = psql(prefix + "SELECT DISTINCT pb_citus_device(geom) FROM a_dist;\n")
    return err if err else ",".join(sorted(r[0] for r in rows))


def check_devices():
    """Which pixelbox.device the workers compute with: the coordinator
    session's SET stays there; SET LOCAL reaches them with
    citus.propagate_set_commands = local; ALTER DATABASE / ROLE ... SET
    reaches them.
    The coordinator itself needs no GPU: pixelbox.device = gpu there changes
    nothing about the answers computed on the workers."""
    sql("CREATE OR REPLACE FUNCTION pb_citus_device(geometry) RETURNS text VOLATILE "
        "LANGUAGE sql AS $$ SELECT current_setting('pixelbox.device') $$")
    default = worker_devices()
    got = worker_devices("SET pixelbox.device = cpu;\n")
    print(f"     workers' pixelbox.device: {default}; after SET cpu on the coordinator: {got}")
    check(got == default, "SET pixelbox.device on the coordinator stays there", got)
    got = worker_devices("BEGIN;\nSET LOCAL citus.propagate_set_commands = local;\n"
                         "SET LOCAL pixelbox.device = cpu;\n")
    print(f"     after SET LOCAL cpu with citus.propagate_set_commands = local: {got}")
    check(got == "cpu", "SET LOCAL pixelbox.device reaches the workers "
          "with citus.propagate_set_commands = local", got)
    for target in ("DATABASE pb_citus", "ROLE postgres"):
        sql(f"ALTER {target} SET pixelbox.device = cpu")
        try:
            got = worker_devices()
        finally:
            sql(f"ALTER {target} RESET pixelbox.device")
        print(f"     after ALTER {target} SET pixelbox.device = cpu: {got}")
        check(got == "cpu", f"ALTER {target.split()[0]} ... SET pixelbox.device reaches "
              "the workers' next sessions", got)
    gpu = ["pixelbox.device = gpu"]
    same_answer("pixelbox.device = gpu on the coordinator: jaccard_gpu GROUP BY slide",
                "SELECT p.slide, jaccard_gpu(p.geom, q.geom) " + JOIN + " GROUP BY 1 ORDER BY 1",
                gpu)
    same_answer("pixelbox.device = gpu on the coordinator: global jaccard_gpu",
                "SELECT jaccard_gpu(p.geom, q.geom) " + JOIN, gpu)


def check_logs():
    """No server process of the cluster died of a signal."""
    bad = []
    for name in ("coord", "worker1", "worker2"):
        with open(os.environ[f"PB_CITUS_LOG_{name}"], errors="replace") as f:
            bad += [f"{name}: {line.strip()}" for line in f
                    if re.search(r"terminated by signal|exited with exit code [^01]", line)]
    check(not bad, "server logs: no process died of a signal", "; ".join(bad[:3]))


def main():
    tmp = tempfile.mkdtemp(prefix="pixelbox-citus.")
    os.chmod(tmp, 0o755)
    t0 = time.time()
    load(tmp)
    print(f"loaded {SLIDES} slides x {POLYGONS} polygons a set in {time.time() - t0:.1f} s")
    placed = sql("SELECT nodeport, string_agg(slide::text, ',' ORDER BY slide) FROM "
                 f"generate_series(1, {SLIDES}) slide JOIN citus_shards c ON c.shardid = "
                 "get_shard_id_for_distribution_column('a_dist', slide) GROUP BY 1 ORDER BY 1")
    print("     slides by worker port: " + "; ".join(f"{p}: {s}" for p, s in placed))
    for part in (check_answers, check_refusals, check_explain, check_devices,
                 check_worker_down, check_logs):
        t = time.time()
        try:
            part()
        except Exception as e:  # one part's failure must not hide the others
            check(False, part.__name__, str(e)[:400])
        print(f"     ({part.__name__}: {time.time() - t:.1f} s)")
    shutil.rmtree(tmp)
    return check.summary("citus")


if __name__ == "__main__":
    sys.exit(main())
