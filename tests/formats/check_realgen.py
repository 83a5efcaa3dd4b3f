#!/usr/bin/python3
"""bench/realgen's realistic benchmark sets against independent truth.

A small slide of both sets is generated and loaded into PostGIS: every
polygon must be a valid POLYGON with integer vertices and axis-parallel
edges, ids 1..n, set a exactly the polygons asked for.  Each polygon is
filled back to pixels here (even-odd over pixel centres, from its WKT) and
compared with the label images ihc_segment.py makes (not pbgen's copy of
them): a polygon lies inside one 512 px tile; each tile shows one of the
image's 8 symmetries (found by matching, the same for both sets); the
polygon covers its label's pixels and free background only, never another
label's; where the label is one 4-connected part without diagonal-only
contacts (nothing for pbgen's cleaning to do) the polygon is exactly its
pixels, so ST_Area equals the label's pixel count; no label gives two
polygons, and none of 20 px or more is missing from a complete tile.  The
polygons of a set never overlap, and the slide shows what the data is for:
holes, objects cut at tile edges, touching objects, and blobs of hundreds
of vertices meeting dozens of the other set's objects.  The same
arguments give the same bytes, --set a|b the bytes of --out-a/--out-b.

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment; the database needs postgis).  Prints one line per failed check
and "realgen checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from scipy import ndimage as ndi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
from ihc_segment import ihc_benchmark_segmentations  # noqa: E402
from sqlcheck import Checks, psql_rows  # noqa: E402

check = Checks()
POLYGONS = 2500         # set a: five full tiles of the image and part of a sixth
SEED = 7
TILE = 512


def realgen(*args):
    """Run bench/realgen with args; its stdout bytes."""
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "realgen"), *args],
                          check=True, capture_output=True).stdout


def parse(path):
    """[(id, [ring, ...])] of a generated file, each ring an (n, 2) int array;
    None for a line that is not 'id<TAB>POLYGON((x y,...),...)' with
    integer coordinates."""
    polys = []
    for line in open(path):
        m = re.fullmatch(r"(\d+)\tPOLYGON\((\(.*\))\)\n", line)
        rings = m and re.findall(r"\(([^()]*)\)", m.group(2))
        if not rings or not all(re.fullmatch(r"\d+ \d+(,\d+ \d+)*", r) for r in rings):
            polys.append(None)
            continue
        polys.append((int(m.group(1)), [np.array([p.split() for p in r.split(",")], np.int64)
                                        for r in rings]))
    return polys


def fill(rings, x0, y0, w, h):
    """The pixels (h x w bool, origin x0, y0) whose centres the rings
    enclose, by the even-odd rule over their vertical edges."""
    flips = np.zeros((h, w + 1), np.int64)
    for r in rings:
        for (xa, ya), (xb, yb) in zip(r[:-1], r[1:]):
            if xa == xb and ya != yb:
                flips[min(ya, yb) - y0:max(ya, yb) - y0, xa - x0] += 1
    return (np.cumsum(flips, axis=1)[:, :w] % 2).astype(bool)


def symmetries(labels):
    """The 8 symmetries of a square image (rotations, and their mirrors)."""
    out = []
    for k in range(4):
        r = np.rot90(labels, k)
        out += [r, r[:, ::-1]]
    return out


def clean(mask):
    """Whether a label's pixels are one 4-connected part without a 2x2
    window that holds them on exactly one diagonal."""
    if ndi.label(mask)[1] != 1:
        return False
    m = np.pad(mask, 1)
    a, b, c, d = m[:-1, :-1], m[:-1, 1:], m[1:, :-1], m[1:, 1:]
    return not ((a & d & ~b & ~c) | (b & c & ~a & ~d)).any()


def paint(polys, name, tiles):
    """Fill every polygon into its tile's canvas of polygon ids (tiles:
    {(tx, ty): canvas}); check each lies in one tile and overlaps no other
    polygon of its set.  Returns {id: (tile, filled pixel count)}."""
    where, outside, overlaps = {}, 0, 0
    for pid, rings in polys:
        x0, y0 = rings[0].min(axis=0)
        x1, y1 = rings[0].max(axis=0)
        tile = (x0 // TILE, y0 // TILE)
        if x1 > (tile[0] + 1) * TILE or y1 > (tile[1] + 1) * TILE:
            outside += 1
            continue
        canvas = tiles.setdefault(tile, np.zeros((TILE, TILE), np.int64))
        px = fill(rings, x0, y0, x1 - x0, y1 - y0)
        view = canvas[y0 - tile[1] * TILE:y1 - tile[1] * TILE, x0 - tile[0] * TILE:x1 - tile[0] * TILE]
        overlaps += int((px & (view != 0)).sum())
        view[px] = pid
        where[pid] = (tile, int(px.sum()))
    check(outside == 0, f"set {name}: {outside} polygons cross a tile edge")
    check(overlaps == 0, f"set {name}: {overlaps} pixels covered by two polygons")
    return where


def tile_symmetry(canvas_a, canvas_b, source_a, source_b):
    """The index of the symmetry both sets' polygons of a tile follow (their
    pixels on labelled pixels, hardly any on background), or None."""
    scores = []
    for ta, tb in zip(symmetries(source_a), symmetries(source_b)):
        on = ((canvas_a > 0) & (ta > 0)).sum() + ((canvas_b > 0) & (tb > 0)).sum()
        off = ((canvas_a > 0) & (ta == 0)).sum() + ((canvas_b > 0) & (tb == 0)).sum()
        scores.append((on - 10 * off, on, off))
    best = max(range(8), key=lambda k: scores[k][0])
    on, off = scores[best][1:]
    ok = off <= 0.01 * on and sorted(s[0] for s in scores)[-2] < 0.9 * scores[best][0]
    return best if ok else None


def union(s, t):
    """The smallest 2-D slice holding slices s and t."""
    return tuple(slice(min(a.start, b.start), max(a.stop, b.stop)) for a, b in zip(s, t))


def check_tile(name, tile, canvas, labels, complete, areas, stats):
    """Check a tile's polygons (canvas of ids) against its labels."""
    bad_other = mismatch = missing = 0
    seen = {}
    label_at, poly_at = ndi.find_objects(labels), ndi.find_objects(canvas)
    for pid in np.unique(canvas[canvas > 0]):
        sc = poly_at[pid - 1]
        under = labels[sc][canvas[sc] == pid]
        values = np.unique(under[under > 0])
        if len(values) != 1:
            bad_other += 1
            continue
        lab = int(values[0])
        seen[lab] = seen.get(lab, 0) + 1
        box = union(sc, label_at[lab - 1])
        mask = labels[box] == lab
        if clean(mask):
            stats["exact"] += 1
            if not np.array_equal(mask, canvas[box] == pid) or areas[pid] != mask.sum():
                mismatch += 1
        else:
            stats["cleaned"] += 1
    doubled = sum(1 for n in seen.values() if n > 1)
    if complete:
        for lab, sl in enumerate(label_at, start=1):
            if sl is None or lab in seen:
                continue
            parts, n = ndi.label(labels[sl] == lab)
            if n and np.bincount(parts.ravel())[1:].max() >= 20:
                missing += 1
    where = f"set {name}, tile {tile}"
    check(bad_other == 0, f"{where}: {bad_other} polygons cover another label's pixels")
    check(mismatch == 0, f"{where}: {mismatch} polygons of clean labels are not exactly their pixels "
          "(or ST_Area differs from the pixel count)")
    check(doubled == 0, f"{where}: {doubled} labels give two polygons")
    check(missing == 0, f"{where}: {missing} labels of 20 px or more have no polygon")


def sql_checks(name, path):
    """Load a set into PostGIS; check validity, type, ids, integer
    axis-parallel edges; return {id: ST_Area} and the rows' count."""
    with open(path) as f:
        data = f.read()
    rows = psql_rows(f"""
CREATE TEMP TABLE g (id bigint, geom geometry);
COPY g FROM STDIN;
{data}\\.
CREATE TEMP TABLE pts AS
  SELECT id, (d).path[1] AS ring, (d).path[2] AS k, ST_X((d).geom) AS x, ST_Y((d).geom) AS y
  FROM (SELECT id, ST_DumpPoints(geom) AS d FROM g) q;
SELECT 'sum', count(*), count(DISTINCT id), min(id), max(id),
       count(*) FILTER (WHERE NOT ST_IsValid(geom)),
       count(*) FILTER (WHERE GeometryType(geom) <> 'POLYGON'),
       (SELECT count(*) FROM pts WHERE x <> round(x) OR y <> round(y)),
       (SELECT count(*) FROM (SELECT x, y, lag(x) OVER w AS px, lag(y) OVER w AS py FROM pts
                              WINDOW w AS (PARTITION BY id, ring ORDER BY k)) e
        WHERE px IS NOT NULL AND (x = px) = (y = py))
FROM g;
SELECT id, ST_Area(geom) FROM g;""")
    n, distinct, lo, hi, invalid, not_poly, fractional, diagonal = map(int, rows[0][1:])
    check(distinct == n and lo == 1 and hi == n, f"set {name}: ids are not 1..{n} once each")
    check(invalid == 0, f"set {name}: {invalid} polygons are not ST_IsValid")
    check(not_poly == 0, f"set {name}: {not_poly} geometries are not POLYGONs")
    check(fractional == 0, f"set {name}: {fractional} vertices are not integers")
    check(diagonal == 0, f"set {name}: {diagonal} edges are not axis-parallel (or have length 0)")
    return {int(r[0]): float(r[1]) for r in rows[1:]}, n


def check_bytes(tmp, a, b):
    """The same arguments give the same bytes; --set a|b writes what --out-a
    and --out-b write; another seed gives another slide."""
    args = ["--polygons", str(POLYGONS), "--seed", str(SEED)]
    realgen(*args, "--out-a", a + "2", "--out-b", b + "2")
    same = all(open(x, "rb").read() == open(x + "2", "rb").read() for x in (a, b))
    check(same, "the same arguments gave different bytes")
    check(realgen(*args, "--set", "a") == open(a, "rb").read(), "--set a differs from --out-a")
    check(realgen(*args, "--set", "b") == open(b, "rb").read(), "--set b differs from --out-b")
    other = realgen("--polygons", str(POLYGONS), "--seed", str(SEED + 1), "--set", "a")
    check(other != open(a, "rb").read(), "another seed gave the same slide")


def features(polys_a, polys_b, tiles):
    """Check the slide has holes, touching objects, objects cut at tile
    edges, and b blobs of hundreds of vertices over dozens of a's boxes."""
    holes = sum(len(r) - 1 for _, r in polys_a + polys_b)
    verts = max(sum(len(x) for x in r) for _, r in polys_b)
    boxes_a = np.array([np.r_[r[0].min(axis=0), r[0].max(axis=0)] for _, r in polys_a])
    most = max(int(((boxes_a[:, 0] <= x1) & (boxes_a[:, 2] >= x0) & (boxes_a[:, 1] <= y1)
                    & (boxes_a[:, 3] >= y0)).sum())
               for (x0, y0), (x1, y1) in ((r[0].min(axis=0), r[0].max(axis=0)) for _, r in polys_b))
    cut = sum(1 for _, r in polys_a if (r[0] % TILE == 0).any())
    touching = sum(int(((c[:, 1:] > 0) & (c[:, :-1] > 0) & (c[:, 1:] != c[:, :-1])).sum())
                   for c in tiles.values())
    check(holes > 0, "no polygon has a hole")
    check(touching > 0, "no two polygons of set a touch")
    check(cut > 0, "no polygon of set a ends at a tile edge")
    check(verts >= 500, f"set b's largest polygon has {verts} vertices (a blob has hundreds)")
    check(most >= 24, f"one b box meets at most {most} a boxes (a blob covers dozens)")


def main():
    tmp = tempfile.mkdtemp(prefix="pb_check_realgen_")
    try:
        pg_config = os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config")
        subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, "PG_CONFIG=" + pg_config,
                        "bench/pbgen"], check=True)
        a, b = os.path.join(tmp, "a.txt"), os.path.join(tmp, "b.txt")
        realgen("--polygons", str(POLYGONS), "--seed", str(SEED), "--out-a", a, "--out-b", b)
        check_bytes(tmp, a, b)
        areas_a, n_a = sql_checks("a", a)
        areas_b, _ = sql_checks("b", b)
        check(n_a == POLYGONS, f"set a has {n_a} polygons, not {POLYGONS}")
        polys_a, polys_b = parse(a), parse(b)
        check(None not in polys_a + polys_b, "a line is not 'id<TAB>POLYGON(...)' of integers")
        polys_a = [p for p in polys_a if p]
        polys_b = [p for p in polys_b if p]
        tiles_a, tiles_b = {}, {}
        where_a, where_b = paint(polys_a, "a", tiles_a), paint(polys_b, "b", tiles_b)
        check(all(areas_a[i] == n for i, (_, n) in where_a.items()) and
              all(areas_b[i] == n for i, (_, n) in where_b.items()),
              "a polygon's ST_Area differs from the pixels it encloses")
        source_a, source_b = ihc_benchmark_segmentations()
        last = max(tiles_a, key=lambda t: (t[1], t[0]))
        stats = {"exact": 0, "cleaned": 0}
        for tile in sorted(tiles_a):
            canvas_b = tiles_b.get(tile, np.zeros((TILE, TILE), np.int64))
            k = tile_symmetry(tiles_a[tile], canvas_b, source_a, source_b)
            check(k is not None, f"tile {tile}: no symmetry of the image matches its polygons")
            if k is None:
                continue
            check_tile("a", tile, tiles_a[tile], symmetries(source_a)[k], tile != last, areas_a, stats)
            check_tile("b", tile, canvas_b, symmetries(source_b)[k], tile != last, areas_b, stats)
        check(set(tiles_b) <= set(tiles_a), "set b has polygons in tiles set a lacks")
        check(stats["exact"] > 4 * stats["cleaned"],
              f"only {stats['exact']} polygons exactly their label, {stats['cleaned']} cleaned")
        features(polys_a, polys_b, tiles_a)
        print(f"{len(tiles_a)} tiles, {len(polys_a)} + {len(polys_b)} polygons: {stats['exact']} exactly "
              f"their label's pixels, {stats['cleaned']} of labels pbgen had to clean")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary("realgen")


if __name__ == "__main__":
    sys.exit(main())
