#!/usr/bin/python3
"""pb_load, the client-side loader, against the server-side readers.

For every format (polygon text, QuPath GeoJSON, HoVer-Net JSON, label TIFF
and PNG) of the real IHC segmentation, the rows pb_load puts in a table must
equal, column for column and geometry byte for byte (ST_AsEWKB), the rows of
the server function reading the same file (pb_read_polygons, pb_read_geojson,
pb_read_hovernet, pb_read_labels).  Also: the format told by name and
content; several files in one call; a role without pg_read_server_files can
load; text with tabs, newlines and backslashes survives COPY; a bad file in
the list loads nothing (one transaction) and names the file and line; mixed
kinds of files, unknown formats and bad options are refused with messages.

Talks to the server with psql and runs pb_load (the installed one, or the
build's src/client/pb_load) with PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment.  Prints a line per failed check and "loader checks: N passed,
M failed"; exits non-zero on failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402
from sqlcheck import Checks, psql  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
check = Checks()


def loader():
    """The pb_load to test: the installed one, else the build's."""
    bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
    for p in (os.path.join(bindir, "pb_load"), os.path.join(ROOT, "src/client/pb_load")):
        if os.access(p, os.X_OK):
            return p
    raise SystemExit("pb_load not built")


def pb_load(*args, user=None):
    """Run pb_load; (exit code, stdout + stderr)."""
    env = dict(os.environ)
    if user:
        env["PGUSER"] = user
    out = subprocess.run([loader(), *args], capture_output=True, text=True, env=env)
    return out.returncode, out.stdout + out.stderr


# per format: the server function's call and the columns to compare (geom apart)
SERVER = {
    "text": ("pb_read_polygons('{f}')", "line_number, id"),
    "geojson": ("pb_read_geojson('{f}'{opt})", "feature, id, object_type, classification, measurements"),
    "hovernet": ("pb_read_hovernet('{f}'{opt})", "nucleus, type, type_prob"),
    "labels": ("pb_read_labels('{f}')", "label, pixels"),
}


def same_rows(table, fmt, path, opt=""):
    """Do table's rows from path equal the server reader's, geometry bytes
    included (as multisets)?  Returns (ok, (rows differing, loaded, server))."""
    call, cols = SERVER[fmt]
    call = call.format(f=path, opt=opt)
    mine = f"SELECT {cols}, ST_AsEWKB(geom) FROM {table} WHERE source = '{path}'"
    theirs = f"SELECT {cols}, ST_AsEWKB(geom) FROM {call}"
    differ = int(psql(f"SELECT (SELECT count(*) FROM ({mine} EXCEPT ALL {theirs}) x) + "
                      f"(SELECT count(*) FROM ({theirs} EXCEPT ALL {mine}) y)"))
    n = int(psql(f"SELECT count(*) FROM {table} WHERE source = '{path}'"))
    m = int(psql(f"SELECT count(*) FROM {call}"))
    return differ == 0 and n == m and n > 0, (differ, n, m)


def write_files(work):
    """The IHC segmentation a in every format; returns {name: (format, path)}."""
    a, _ = fixtures.ihc_segmentations()
    files = {}
    polys = fixtures.label_polygons(a)
    p = os.path.join(work, "a.txt")
    with open(p, "w") as f:
        f.write("# the IHC segmentation a, one nucleus a line\n")
        for lab, wkt in polys.items():
            f.write(f"{lab} {wkt}\n")
    files["text"] = ("text", p)
    p = os.path.join(work, "a.geojson")
    fixtures.write_qupath_geojson(p, a)
    files["geojson"] = ("geojson", p)
    p = os.path.join(work, "a_hovernet.json")
    fixtures.write_hovernet_json(p, a)
    files["hovernet"] = ("hovernet", p)
    p = os.path.join(work, "a.tif")
    fixtures.write_tiff(p, a, "uint16", compress="DEFLATE")
    files["tiff"] = ("labels", p)
    p = os.path.join(work, "a.png")
    fixtures.write_png(p, a, "uint16")
    files["png"] = ("labels", p)
    return files


def main():
    work = tempfile.mkdtemp(prefix="pb_load_check.")
    os.chmod(work, 0o755)
    try:
        files = write_files(work)
        for f in os.listdir(work):
            os.chmod(os.path.join(work, f), 0o644)
        psql("DROP TABLE IF EXISTS ld_text, ld_geojson, ld_hovernet, ld_labels, ld_auto, ld_nucleus, "
             "ld_centres, ld_special, ld_bad, ld_role")

        # every format, given and told apart by name and content
        for name, (fmt, path) in files.items():
            table = "ld_" + fmt
            rc, out = pb_load("-t", table, "-f", fmt, path)
            check(rc == 0 and "rows into" in out, f"{name}: pb_load -f {fmt} ran: {out}")
            ok, detail = same_rows(table, fmt, path)
            check(ok, f"{name}: rows equal {SERVER[fmt][0]} (unmatched, loaded, server) = {detail}")
            rc, out = pb_load("-t", f"ld_auto_{fmt}", path)
            check(rc == 0, f"{name}: auto format ran: {out}")
            ok, detail = same_rows(f"ld_auto_{fmt}", fmt, path)
            check(ok, f"{name}: auto format gives the same rows {detail}")
            psql(f"DROP TABLE ld_auto_{fmt}")

        # the options: nucleusGeometry, and HoVer-Net's contour as written
        rc, out = pb_load("-t", "ld_nucleus", "--geometry-member", "nucleusGeometry", files["geojson"][1])
        ok, detail = same_rows("ld_nucleus", "geojson", files["geojson"][1], ", 'nucleusGeometry'")
        check(rc == 0 and ok, f"--geometry-member nucleusGeometry equals the server's {detail} {out}")
        rc, out = pb_load("-t", "ld_centres", "--contour", "as_written", files["hovernet"][1])
        ok, detail = same_rows("ld_centres", "hovernet", files["hovernet"][1], ", 'as_written'")
        check(rc == 0 and ok, f"--contour as_written equals the server's {detail} {out}")

        # several files at once, into the table that has the TIFF's and the PNG's rows
        rc, out = pb_load("-t", "ld_labels", files["png"][1], files["tiff"][1])
        n = psql("SELECT count(*), count(DISTINCT source) FROM ld_labels")
        per = psql(f"SELECT count(*) FROM pb_read_labels('{files['png'][1]}')")
        check(rc == 0 and n == f"{4 * int(per)}|2", f"two label files twice in ld_labels: {n} (each {per}) {out}")

        # text that COPY must escape: tabs, newlines, backslashes, quotes
        special = os.path.join(work, "special.geojson")
        feats = [{"type": "Feature", "id": 'a"b\\c', "geometry": {"type": "Polygon", "coordinates": [
            [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]]},
            "properties": {"objectType": "detection", "classification": {"name": "tab\there\nnewline\\back"},
                           "measurements": {"x\ty": 1.5, "\\N": None}}}]
        with open(special, "w") as f:
            json.dump({"type": "FeatureCollection", "features": feats}, f)
        os.chmod(special, 0o644)
        rc, out = pb_load("-t", "ld_special", special)
        ok, detail = same_rows("ld_special", "geojson", special)
        check(rc == 0 and ok, f"escaped text round-trips {detail} {out}")
        got = psql("SELECT classification = E'tab\\there\\nnewline\\\\back' AND id = 'a\"b\\c' FROM ld_special")
        check(got == "t", f"classification and id kept exactly: {got}")

        # a bad file in the list: nothing loaded, the file and line named
        bad = os.path.join(work, "bad.txt")
        with open(bad, "w") as f:
            f.write("1 POLYGON((0 0,1 0,1 1,0 1,0 0))\n2 POLYGON((0 0,1 0,1 1,0 1))\n")
        before = psql("SELECT count(*) FROM ld_text")
        rc, out = pb_load("-t", "ld_text", files["text"][1], bad)
        after = psql("SELECT count(*) FROM ld_text")
        check(rc == 1 and f"{bad}: line 2: polygon ring is not closed" in out and before == after,
              f"a bad file loads nothing: rc {rc}, rows {before} -> {after}: {out}")
        rc, out = pb_load("-t", "ld_bad", bad)
        exists = psql("SELECT to_regclass('ld_bad') IS NULL")
        check(rc == 1 and exists == "t", f"a failed first load leaves no table: {exists} {out}")
        broken = os.path.join(work, "broken.geojson")
        with open(broken, "w") as f:
            f.write('{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": 7}]}')
        rc, out = pb_load("-t", "ld_bad", broken)
        check(rc == 1 and broken in out and "line 1" in out and "feature 1" in out,
              f"a malformed GeoJSON names file, line and feature: {out}")
        tif_bad = os.path.join(work, "notimage.tif")
        with open(tif_bad, "wb") as f:
            f.write(b"II*\x00garbage")
        rc, out = pb_load("-t", "ld_bad", tif_bad)
        check(rc == 1 and tif_bad in out, f"a damaged TIFF is refused with its name: {out}")

        # refusals: mixed kinds in one table, unknown format, bad options, no file
        rc, out = pb_load("-t", "ld_bad", files["text"][1], files["png"][1])
        check(rc == 1 and "one kind per table" in out, f"mixed kinds refused: {out}")
        rc, out = pb_load("-t", "ld_bad", "-f", "shapefile", files["text"][1])
        check(rc == 1 and 'unknown format "shapefile" (formats: auto, text, geojson, hovernet, labels)' in out,
              f"unknown format: {out}")
        rc, out = pb_load("-t", "ld_bad", "--contour", "centres", files["hovernet"][1])
        check(rc == 1 and "--contour must be pixel_edges or as_written" in out, f"bad contour: {out}")
        rc, out = pb_load("-t", "ld_bad", "--geometry-member", "cell", files["geojson"][1])
        check(rc == 1 and "--geometry-member must be geometry or nucleusGeometry" in out,
              f"bad geometry member: {out}")
        rc, out = pb_load("-t", "ld_bad", os.path.join(work, "missing.txt"))
        check(rc == 1 and "missing.txt: No such file or directory" in out, f"missing file: {out}")
        rc, out = pb_load(files["text"][1])
        check(rc == 2 and "Usage: pb_load" in out, f"no table: usage, exit 2: rc {rc}")
        rc, out = pb_load("--help")
        check(rc == 0 and "COPY FROM STDIN" in out, "--help")

        # the point of a client loader: a role that may not read server files
        psql("DROP ROLE IF EXISTS pb_loader_role")
        psql("CREATE ROLE pb_loader_role LOGIN; GRANT CREATE ON SCHEMA public TO pb_loader_role")
        try:
            denied = subprocess.run(["psql", "-X", "-q", "-c", f"SELECT count(*) FROM pb_read_labels('{files['png'][1]}')"],
                                    capture_output=True, text=True, env=dict(os.environ, PGUSER="pb_loader_role"))
            check("permission denied to read server files" in denied.stderr,
                  f"the role may not read server files: {denied.stderr}")
            rc, out = pb_load("-t", "ld_role", files["png"][1], user="pb_loader_role")
            ok, detail = same_rows("ld_role", "labels", files["png"][1])
            check(rc == 0 and ok, f"the role loads through pb_load {detail} {out}")
        finally:
            psql("DROP TABLE IF EXISTS ld_role; REVOKE CREATE ON SCHEMA public FROM pb_loader_role; "
                 "DROP ROLE pb_loader_role")
        psql("DROP TABLE IF EXISTS ld_text, ld_geojson, ld_hovernet, ld_labels, ld_nucleus, ld_centres, "
             "ld_special, ld_bad")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return check.summary("loader")


if __name__ == "__main__":
    sys.exit(main())
