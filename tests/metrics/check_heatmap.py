#!/usr/bin/python3
"""pb_heatmap_png's pictures against their definition, pixel for pixel,
through SQL.

Maps are built in SQL from a few hundred random rows (setseed: random
holes, NULL values, negative tile numbers, cell sizes 1, 3 and 8, values
at the quantisation's ties), each row read back as the server holds it.
Every PNG is decoded by PIL (an independent decoder) and every pixel
compared with the definition written here: the picture spans the tiles
from the smallest to the largest x and y, tile (x, y) is the square of
cell pixels at column (x - min x) * cell, row (y - min y) * cell (y down),
of colour matplotlib.cm.viridis at index rint(value * 255), times 255 and
rounded, opaque (matplotlib's own table, independent of the one in
pixelbox's source); a NULL value mid grey (128, 128, 128, 255); a tile
without a row transparent (0, 0, 0, 0).  One map also goes through the
documented command (psql ... encode(..., 'base64') | base64 -d), and a
cancel (statement_timeout) stops a large map's drawing before it is done.

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment).  Prints one line per failed check and a summary line
"heatmap checks: N passed, M failed"; exits non-zero on failure.
"""
import io
import os
import subprocess
import sys
import time

import numpy as np
from matplotlib import cm
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "formats"))
from sqlcheck import Checks, psql, psql_rows  # noqa: E402

check = Checks()

# map: (cell pixels, x range, y range, share of tiles without a row, share of NULL values)
MAPS = {
    1: (1, (-20, 9), (-5, 14), 0.3, 0.1),
    2: (3, (100, 130), (-40, -25), 0.4, 0.15),
    3: (8, (-3, 17), (0, 11), 0.2, 0.1),
    4: (8, (-7, -7), (-9, 30), 0.5, 0.2),   # one column
    5: (3, (0, 0), (0, 0), 0.0, 0.0),       # one tile
}

# the colours of the definition: matplotlib's viridis, rounded; grey; transparent
VIRIDIS = np.round(cm.viridis(np.arange(256)) * 255).astype(np.uint8)
GREY = np.array([128, 128, 128, 255], np.uint8)
CLEAR = np.array([0, 0, 0, 0], np.uint8)


def make_rows():
    """The rows of every map, made in SQL and read back: {map: [(x, y, v)]}."""
    values = ", ".join(f"({m}, {c}, {x0}, {x1}, {y0}, {y1}, {hole}, {null})"
                       for m, (c, (x0, x1), (y0, y1), hole, null) in MAPS.items())
    psql(f"""
        DROP TABLE IF EXISTS heat_rows, heat_maps;
        CREATE TABLE heat_maps (map int, cell int, x0 int, x1 int, y0 int, y1 int,
                                hole float8, null_share float8);
        INSERT INTO heat_maps VALUES {values};
        SELECT setseed(0.22);
        CREATE TABLE heat_rows AS
        SELECT map, cell, x, y,
               CASE WHEN random() < null_share THEN NULL
                    -- a tenth at the ties of rint(value * 255), a tenth at 0 or 1
                    WHEN random() < 0.1 THEN (floor(random() * 255) + 0.5) / 255
                    WHEN random() < 0.1 THEN round(random())
                    ELSE random() END AS v
        FROM heat_maps, generate_series(x0, x1) x, generate_series(y0, y1) y
        WHERE random() >= hole
           -- the span's corners are kept, so that holes reach its border too
           OR (x = x0 AND y = y0) OR (x = x1 AND y = y1);
    """)
    rows = {}
    for m, x, y, v in psql_rows("SELECT map, x, y, v FROM heat_rows ORDER BY map, random()"):
        rows.setdefault(int(m), []).append((int(x), int(y), None if v == "" else float(v)))
    return rows


def expected_image(rows, cell):
    """The picture of the definition, (height, width, 4) uint8."""
    xs = [x for x, _, _ in rows]
    ys = [y for _, y, _ in rows]
    x0, y0 = min(xs), min(ys)
    img = np.zeros(((max(ys) - y0 + 1) * cell, (max(xs) - x0 + 1) * cell, 4), np.uint8)
    for x, y, v in rows:
        colour = GREY if v is None else VIRIDIS[int(np.rint(v * 255))]
        img[(y - y0) * cell:(y - y0 + 1) * cell, (x - x0) * cell:(x - x0 + 1) * cell] = colour
    return img, x0, y0


def decode(png):
    """PIL's reading of PNG bytes: (mode, pixels as (height, width, 4))."""
    im = Image.open(io.BytesIO(png))
    im.load()
    return im.mode, np.asarray(im.convert("RGBA"))


def check_map(m, rows, png, how):
    """Every tile's square (and the squares without a row) of map m's PNG."""
    cell = MAPS[m][0]
    want, x0, y0 = expected_image(rows, cell)
    mode, got = decode(png)
    check(mode == "RGBA", f"map {m} ({how}): PIL reads mode {mode}, not RGBA")
    check(got.shape == want.shape,
          f"map {m} ({how}): size {got.shape[1]} x {got.shape[0]}, "
          f"not {want.shape[1]} x {want.shape[0]}")
    if got.shape != want.shape:
        return
    ty, tx = want.shape[0] // cell, want.shape[1] // cell
    given = {(x, y): v for x, y, v in rows}
    for j in range(ty):
        for i in range(tx):
            block = (slice(j * cell, (j + 1) * cell), slice(i * cell, (i + 1) * cell))
            tile = (x0 + i, y0 + j)
            what = ("no row" if tile not in given else
                    "NULL" if given[tile] is None else f"value {given[tile]!r}")
            ok = np.array_equal(got[block], want[block])
            check(ok, f"map {m} ({how}): tile {tile} ({what}): "
                  f"{got[block][0, 0].tolist()} where {want[block][0, 0].tolist()} was due")


def check_maps(rows):
    """Every map from one GROUP BY query, and the grey and clear tiles seen."""
    out = psql_rows("SELECT map, encode(pb_heatmap_png(x, y, v, cell), 'hex') "
                    "FROM heat_rows GROUP BY map ORDER BY map")
    check([int(m) for m, _ in out] == sorted(MAPS), f"maps {[m for m, _ in out]}")
    for m, hexpng in out:
        check_map(int(m), rows[int(m)], bytes.fromhex(hexpng), "GROUP BY")
    # the data reached every case: ties, 0 and 1, NULLs and holes
    vs = [v for r in rows.values() for _, _, v in r]
    check(any(v is None for v in vs), "some rows have NULL values")
    check(any(v is not None and v * 255 % 1 == 0.5 for v in vs), "some values are ties")
    check(0.0 in vs and 1.0 in vs, "values 0 and 1 are there")
    holes = sum((x1 - x0 + 1) * (y1 - y0 + 1) - len(rows[m])
                for m, (_, (x0, x1), (y0, y1), _, _) in MAPS.items())
    check(holes > 50, f"{holes} tiles without a row")
    check(sum(len(r) for r in rows.values()) >= 300, "a few hundred rows")


def check_command(rows):
    """The documented one-line command: psql | base64 -d > file.png."""
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"pb_heatmap_{os.getpid()}.png")
    cmd = ("psql -XAt -c \"SELECT encode(pb_heatmap_png(x, y, v, cell), 'base64') "
           "FROM heat_rows WHERE map = 3\" | base64 -d > " + path)
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)
    check(r.returncode == 0, f"the command failed: {r.stderr.strip()}")
    if r.returncode == 0:
        with open(path, "rb") as f:
            check_map(3, rows[3], f.read(), "psql | base64 -d")
        os.unlink(path)


def check_cancel():
    """A statement_timeout stops a large map (16384 x 4096) before it is done."""
    big = ("SELECT length(pb_heatmap_png(x, y, 0.5, 64)) "
           "FROM (VALUES (0, 0), (255, 63)) t(x, y)")
    t = time.monotonic()
    psql(big)
    whole = time.monotonic() - t
    t = time.monotonic()
    try:
        psql("SET statement_timeout = '100ms'; " + big)
        err = ""
    except RuntimeError as e:
        err = str(e)
    stopped = time.monotonic() - t
    check("statement timeout" in err, f"the cancel's error: {err!r}")
    check(stopped < 0.5 * whole + 0.1,
          f"cancelled after {stopped:.2f} s; the whole map takes {whole:.2f} s")


def main():
    rows = make_rows()
    check_maps(rows)
    check_command(rows)
    check_cancel()
    psql("DROP TABLE heat_rows, heat_maps")
    return check.summary("heatmap")


if __name__ == "__main__":
    sys.exit(main())
