#!/usr/bin/python3
"""Differential SQL fuzz of pixelbox's pair functions against PostGIS.

Generates random valid polygon pairs from a fixed seed: unions of integer
boxes (rectilinear, integer vertices, holes and several parts, as traced
pixel masks are), star-shaped polygons with float or integer vertices
(diagonal edges, as smoothed contours are), stars with holes, multipolygons
of disjoint stars, integer diamonds, and the near-degenerate cases of real
data (identical polygons, one inside the other, shared edges and corners,
slide-sized coordinate offsets).  For every pair where PostGIS answers
(both valid, ST_Intersection raises nothing) it compares

  pb_intersection_area(a, b)  with  ST_Area(ST_Intersection(a, b))
  pb_jaccard(a, b)            with  that / (ST_Area(a) + ST_Area(b) - that)

within a relative tolerance of 1e-9 (of the PostGIS area, or of the smaller
polygon's area when the intersection is tiny), and jaccard_gpu over all
answered pairs with the paper's Fig. 1(b) query.

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment; the database needs postgis and pixelbox).  Prints each
mismatch with its pair and a summary line
"sql differential: N cases, M mismatches (K skipped: ...)"; exits non-zero
on a mismatch.

    sql_differential.py [--seed S] [--cases N] [--thin]
"""
import argparse
import math
import random
import subprocess
import sys

from exact_area import exact_intersection_area

REL_TOL = 1e-9


def ring_wkt(pts):
    """A closed ring's coordinate list."""
    pts = list(pts) + [pts[0]]
    return "(" + ",".join("%r %r" % (x, y) for x, y in pts) + ")"


def polygon_wkt(rings):
    """POLYGON text of a shell and holes."""
    return "POLYGON(" + ",".join(ring_wkt(r) for r in rings) + ")"


def box(x0, y0, x1, y1):
    """The ring of an axis-aligned box."""
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def star(rng, cx, cy, rmin, rmax, n, integer=False, turn=1):
    """
    A star-shaped ring around (cx, cy): one vertex in each of n equal
    sectors, so the centre is inside (integer: rounded, repeats dropped).
    """
    step = 2 * math.pi / n
    angles = [(k + rng.uniform(0.05, 0.95)) * step for k in range(n)]
    pts = []
    for a in angles[::turn]:
        r = rng.uniform(rmin, rmax)
        x, y = cx + r * math.cos(a), cy + r * math.sin(a)
        p = (float(round(x)), float(round(y))) if integer else (x, y)
        if not pts or p != pts[-1]:
            pts.append(p)
    while len(pts) > 1 and pts[-1] == pts[0]:
        pts.pop()
    return pts


def box_union(rng, x0, y0, span, nboxes):
    """Union of integer boxes, computed by PostGIS (holes and parts included)."""
    boxes = []
    for _ in range(nboxes):
        w, h = rng.randint(1, span // 2), rng.randint(1, span // 2)
        bx, by = x0 + rng.randint(0, span - w), y0 + rng.randint(0, span - h)
        boxes.append(polygon_wkt([box(bx, by, bx + w, by + h)]))
    return "U", "GEOMETRYCOLLECTION(" + ",".join(boxes) + ")"


def star_polygon(rng, cx, cy, r, integer=False):
    """One star-shaped polygon (a smoothed contour)."""
    return "G", polygon_wkt([star(rng, cx, cy, 0.5 * r, r, rng.randint(5, 60), integer)])


def star_with_hole(rng, cx, cy, r):
    """A star with a star-shaped hole around the same centre."""
    shell = star(rng, cx, cy, 0.6 * r, r, rng.randint(8, 50))
    hole = star(rng, cx, cy, 0.1 * r, 0.5 * r, rng.randint(4, 20), turn=-1)
    return "G", polygon_wkt([shell, hole])


def multi_star(rng, cx, cy, r):
    """Two to four disjoint stars."""
    parts = []
    for k in range(rng.randint(2, 4)):
        px, py = cx + (k % 2) * 2.2 * r, cy + (k // 2) * 2.2 * r
        parts.append("(" + ring_wkt(star(rng, px, py, 0.4 * r, r, rng.randint(5, 30))) + ")")
    return "G", "MULTIPOLYGON(" + ",".join(parts) + ")"


def diamond(rng, cx, cy, r):
    """A square turned 45 degrees with integer vertices."""
    r = max(1, int(r))
    return "G", polygon_wkt([[(cx - r, cy), (cx, cy - r), (cx + r, cy), (cx, cy + r)]])


def contour(rng, cx, cy, r):
    """A smooth traced contour of 100 to 800 vertices (the heavy tail of real nuclei)."""
    n = rng.randint(100, 800)
    k, phase = rng.randint(2, 7), rng.uniform(0, 2 * math.pi)
    pts = []
    for i in range(n):
        a = 2 * math.pi * i / n
        rr = r * (1 + 0.25 * math.sin(k * a + phase)) * rng.uniform(0.995, 1.005)
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return "G", polygon_wkt([pts])


def sliver(rng, cx, cy, r):
    """A thin diagonal strip, 1e-4 to 1e-2 wide, across the centre (ill-conditioned)."""
    a, w, ln = rng.uniform(0, math.pi), 10 ** rng.uniform(-4, -2), r * rng.uniform(1, 3)
    ux, uy, nx, ny = math.cos(a), math.sin(a), -math.sin(a) * w / 2, math.cos(a) * w / 2
    return "G", polygon_wkt([[(cx - ux * ln + nx, cy - uy * ln + ny), (cx + ux * ln + nx, cy + uy * ln + ny),
                              (cx + ux * ln - nx, cy + uy * ln - ny), (cx - ux * ln - nx, cy - uy * ln - ny)]])


def shape(rng, kind, cx, cy, r):
    """A generated shape of a kind, as (how to build it, WKT)."""
    if kind == "boxes":
        return box_union(rng, int(cx - r), int(cy - r), max(4, int(2 * r)), rng.randint(1, 8))
    if kind == "star":
        return star_polygon(rng, cx, cy, r)
    if kind == "intstar":
        return star_polygon(rng, round(cx), round(cy), max(r, 10), integer=True)
    if kind == "holed":
        return star_with_hole(rng, cx, cy, r)
    if kind == "multi":
        return multi_star(rng, cx, cy, r)
    if kind == "contour":
        return contour(rng, cx, cy, r)
    if kind == "sliver":
        return sliver(rng, cx, cy, r)
    return diamond(rng, round(cx), round(cy), r)


KINDS = ["boxes", "star", "intstar", "holed", "multi", "diamond", "contour"]


def special_pair(rng, i):
    """The near-degenerate pairs of real data, in turn."""
    w, h = rng.randint(1, 40), rng.randint(1, 40)
    a = polygon_wkt([box(0, 0, w, h)])
    which = i % 5
    if which == 0:          # shared edge
        return ("G", a), ("G", polygon_wkt([box(w, 0, 2 * w, h)]))
    if which == 1:          # shared corner
        return ("G", a), ("G", polygon_wkt([box(w, h, 2 * w, 2 * h)]))
    if which == 2:          # identical star
        s = star_polygon(rng, 0, 0, 20)
        return s, s
    if which == 3:          # one inside the other
        return ("G", polygon_wkt([star(rng, 0, 0, 30, 40, 30)])), \
            ("G", polygon_wkt([star(rng, 0, 0, 5, 25, 20)]))
    # overlapping boxes that share a side line
    return ("G", a), ("G", polygon_wkt([box(0, rng.randint(0, h), w, h + 5)]))


def cases(seed, n, thin=False):
    """
    n pairs: rows of (id, kind, how a, wkt a, how b, wkt b, x offset,
    y offset); with thin, slivers among the kinds.
    """
    rng = random.Random(seed)
    kinds = KINDS + (["sliver"] if thin else [])
    out = []
    for i in range(n):
        if i % 10 == 9:
            (ha, wa), (hb, wb) = special_pair(rng, i // 10)
            kind = "special"
        else:
            ka, kb = rng.choice(kinds), rng.choice(kinds)
            r = rng.choice([3, 10, 30, 100])
            ha, wa = shape(rng, ka, 0.0, 0.0, r)
            hb, wb = shape(rng, kb, rng.uniform(-r, r), rng.uniform(-r, r), r * rng.uniform(0.3, 1.5))
            kind = ka + "/" + kb
        # a slide-sized offset for one case in four (whole-slide pixel coordinates)
        dx, dy = (rng.randint(0, 120000), rng.randint(0, 80000)) if rng.random() < 0.25 else (0, 0)
        out.append((i, kind, ha, wa, hb, wb, dx, dy))
    return out


SQL = r"""
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE TEMP TABLE fz_input(id int, kind text, ha text, wa text, hb text, wb text, dx int, dy int);
COPY fz_input FROM stdin;
%s
\.
CREATE FUNCTION pg_temp.fz_build(how text, wkt text, dx int, dy int) RETURNS geometry AS $$
	SELECT ST_Translate(CASE WHEN how = 'U' THEN ST_UnaryUnion(ST_GeomFromText(wkt))
							 ELSE ST_GeomFromText(wkt) END, dx, dy)
$$ LANGUAGE sql;
-- NULL where PostGIS raises (a topology exception)
CREATE FUNCTION pg_temp.fz_postgis(a geometry, b geometry) RETURNS float8 AS $$
BEGIN
	RETURN ST_Area(ST_Intersection(a, b));
EXCEPTION WHEN OTHERS THEN
	RETURN NULL;
END
$$ LANGUAGE plpgsql;
-- pixelbox's two answers, or its error message
CREATE FUNCTION pg_temp.fz_pixelbox(a geometry, b geometry, OUT area float8, OUT jac float8, OUT err text) AS $$
BEGIN
	area := pb_intersection_area(a, b);
	jac := pb_jaccard(a, b);
EXCEPTION WHEN OTHERS THEN
	err := SQLERRM;
END
$$ LANGUAGE plpgsql;
CREATE TEMP TABLE fz_pairs AS
	SELECT id, kind, a, b, ST_IsValid(a) AND ST_IsValid(b) AS valid
	FROM (SELECT id, kind, pg_temp.fz_build(ha, wa, dx, dy) AS a,
				 pg_temp.fz_build(hb, wb, dx, dy) AS b FROM fz_input) s;
CREATE TEMP TABLE fz_result AS
	SELECT id, kind, valid, ST_Area(a) AS area_a, ST_Area(b) AS area_b,
		   CASE WHEN valid THEN pg_temp.fz_postgis(a, b) END AS pg, (pg_temp.fz_pixelbox(a, b)).*
	FROM fz_pairs;
\pset format unaligned
\pset tuples_only on
\pset fieldsep '|'
\pset null 'NULL'
SELECT 'row', id, kind, valid, area_a, area_b, pg, area, jac, err FROM fz_result ORDER BY id;
SELECT 'agg', (SELECT jaccard_gpu(a, b) FROM fz_pairs JOIN fz_result USING (id) WHERE pg IS NOT NULL),
	(SELECT AVG(pg / (area_a + area_b - pg)) FROM fz_result WHERE pg > 0),
	(SELECT count(*) FROM fz_result WHERE pg > 0 AND area > 0);
SELECT 'wkt', id, ST_AsEWKT(a, 17), ST_AsEWKT(b, 17), ST_AsHEXEWKB(a), ST_AsHEXEWKB(b)
	FROM fz_pairs WHERE id IN (%s);
"""


def psql(sql):
    """Run a script with psql; its stdout lines."""
    res = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-"],
                         input=sql, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit("sql differential: psql failed")
    return res.stdout.splitlines()


def num(s):
    """A float column, None for NULL."""
    return None if s == "NULL" else float(s)


def close(got, want, scale):
    """Whether got equals want within the relative tolerance."""
    return got is not None and abs(got - want) <= REL_TOL * max(abs(want), scale)


def exact_check(hex_a, hex_b, pb, jac, area_a, area_b):
    """
    Where one side is a convex polygon: the exact area (float) and whether
    pixelbox's area and Jaccard ratio are within the tolerance of it;
    (None, False) elsewhere.
    """
    exact = exact_intersection_area(bytes.fromhex(hex_a), bytes.fromhex(hex_b))
    if exact is None:
        return None, False
    ex = float(exact)
    union = area_a + area_b - ex
    jac_ok = jac is None if union <= 0 else close(jac, ex / union, 0)
    return ex, close(pb, ex, 0) and jac_ok


def compare(rows):
    """Mismatching ids with why, and the skip counts."""
    bad, invalid, raised = {}, 0, 0
    for f in rows:
        id_, valid, area_a, area_b = int(f[1]), f[3] == "t", num(f[4]), num(f[5])
        pg, area, jac, err = num(f[6]), num(f[7]), num(f[8]), f[9]
        if not valid:
            invalid += 1
            continue
        if pg is None:
            raised += 1
            continue
        # tiny intersections: tolerance from the smaller polygon's area
        scale = 1e-9 * min(area_a, area_b)
        if err != "NULL":
            bad[id_] = "pixelbox raised: %s (PostGIS area %r)" % (err, pg)
        elif not close(area, pg, scale):
            bad[id_] = "pb_intersection_area %r, ST_Area(ST_Intersection) %r" % (area, pg)
        else:
            union = area_a + area_b - pg
            want = pg / union if union > 0 else None
            if (want is None) != (jac is None) or (want is not None and not close(jac, want, scale)):
                bad[id_] = "pb_jaccard %r, PostGIS %r" % (jac, want)
    return bad, invalid, raised


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--thin", action="store_true",
                    help="add thin slivers (ill-conditioned: not in CI's default run)")
    args = ap.parse_args()
    data = "\n".join("\t".join(str(v) for v in c) for c in cases(args.seed, args.cases, args.thin))
    lines = psql(SQL % (data, "-1"))
    rows = [ln.split("|") for ln in lines if ln.startswith("row|")]
    agg = [ln.split("|") for ln in lines if ln.startswith("agg|")][0]
    bad, invalid, raised = compare(rows)
    agg_pb, agg_pg = num(agg[1]), num(agg[2])
    agg_ok = (agg_pb is None) == (agg_pg is None) and (agg_pb is None or close(agg_pb, agg_pg, 0))
    postgis_off = 0
    if bad:
        extra = {int(f[1]): f[2:] for f in
                 (ln.split("|") for ln in psql(SQL % (data, ",".join(map(str, sorted(bad)))))
                  if ln.startswith("wkt|"))}
        info = {int(f[1]): (f[2], num(f[7]), num(f[8]), num(f[4]), num(f[5])) for f in rows}
        shown = 0
        for id_ in sorted(bad):
            kind, pb, jac, area_a, area_b = info[id_]
            exact, pb_exact = exact_check(extra[id_][2], extra[id_][3], pb, jac, area_a, area_b)
            if pb_exact:
                # PostGIS's overlay is the one off: not a pixelbox mismatch
                postgis_off += 1
                del bad[id_]
                continue
            if shown < 20:
                note = "" if exact is None else "\n  exact (rational) area %r" % exact
                print("mismatch in case %d (%s): %s%s\n  a: %s\n  b: %s"
                      % (id_, kind, bad[id_], note, extra[id_][0], extra[id_][1]))
                shown += 1
    if not agg_ok:
        print("mismatch: jaccard_gpu %r, Fig. 1(b) query over PostGIS %r" % (agg_pb, agg_pg))
    compared = len(rows) - invalid - raised
    print("sql differential: %d cases, %d mismatches (%d skipped: %d invalid, %d PostGIS raised; "
          "%d where PostGIS is off the exact area and pixelbox is not); jaccard_gpu over %s pairs %s"
          % (compared, len(bad) + (not agg_ok), invalid + raised, invalid, raised, postgis_off,
             agg[3], "agrees" if agg_ok else "DIFFERS"))
    return 1 if bad or not agg_ok else 0


if __name__ == "__main__":
    sys.exit(main())
