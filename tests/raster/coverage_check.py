#!/usr/bin/python3
"""The coverage functions of pixelbox against the single-value functions and
against independent truth, through SQL.

pb_coverage_reconstruct_wkb, pb_coverage_fill_holes_wkb,
pb_coverage_distance_transform_wkb and pb_coverage_watershed_wkb run an
operation over a whole slide stored as a table of raster tiles.  Their
promise: the result equals, pixel for pixel, the single-value function
(pb_reconstruct, pb_fill_holes, pb_distance_transform, pb_watershed) on the
slide's mosaic, cut back to the tiles, each tile keeping its georeference.
Slides are cut here into tiles of odd sizes (partial tiles at the right and
bottom), loaded as raster WKB rows in shuffled order, and every output is
reassembled and compared:

* the real IHC image scikit-image ships (512 x 512, tiles 97 x 61): to the
  single-value function on the whole image, bit for bit, and to scikit-image's
  reconstruction (dilation and erosion, both connectivities), its hole-filling
  recipe and SciPy's binary_fill_holes, SciPy's distance_transform_edt (with
  and without spacing; the index bands name a nearest background pixel) and
  the watershed's definition (check_watershed.ws_definition: marker-less, and
  with markers and mask, with and without lines);
* a square spiral maze (200 x 200, 1-pixel walls and corridors, tiles
  23 x 17) whose one corridor, 19800 pixels long, winds through every tile
  again and again: reconstruction, hole filling and a two-marker watershed,
  against scikit-image and the definition;
* three slides in one query (integer slide keys, different images, tile
  sizes, georeferences and SRIDs; one with nodata pixels in its tiles and its
  partial bottom-right tile missing, one with a missing interior tile): each
  slide's rows against the single-value function on that slide's mosaic (the
  missing tiles nodata there), and SciPy's distance transform, marker-less
  basins numbered 1, 2, ... per slide; with pixelbox_raster, the raster-typed
  function equals the WKB one;
* three odd slides: no background pixel at all, 32BF with NaN pixels, a
  skewed georeference of scale 0.1 with corner tiles missing.

Every coverage call runs with pixelbox.device = cpu and one and four CPU
threads, and on the GPU when the server has one (check_raster.DEVICES); all
must give the same bytes.  The tiles live in an unlogged table (each query
is its own psql session), dropped at the end.  Reuses check_raster.py's and
check_watershed.py's helpers and counters; prints one line per failed check
and a summary line "coverage checks: N passed, M failed"; exits non-zero on
failure.
"""
import os
import subprocess
import sys
import time

import numpy as np
from scipy import ndimage
from skimage import morphology

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_raster as cr  # noqa: E402
import check_watershed as cw  # noqa: E402  (also registers 32BUI with cr)

TABLE = "pb_coverage_check_tiles"
CASES = {}  # case name -> {"slides": [...], "slide_column": bool}
pending = []  # (case, slide key, layer, tile_x, tile_y, WKB) rows to load


def layer(img, pixtype, nodata=None, tile_nodata=False):
    """One raster column of a slide: its image, pixel type, the nodata value
    of its mosaic (used where a tile is missing) and whether the tiles carry
    that nodata value too (else no pixel of the image may equal it)."""
    return dict(img=img, pixtype=pixtype, nodata=nodata, tile_nodata=tile_nodata)


def make_slide(key, layers, tile, geo, srid=0, missing=()):
    """A slide: its layers (all of one shape), tile size (w, h), georeference
    of the mosaic's upper-left corner, SRID and the cells left out."""
    shape = next(iter(layers.values()))["img"].shape
    s = dict(key=key, layers=layers, tile=tile, geo=geo, srid=srid, shape=shape,
             missing=set(missing))
    for L in layers.values():
        assert L["img"].shape == shape
        if s["missing"] and not L["tile_nodata"]:
            assert L["nodata"] is not None and not (L["img"] == L["nodata"]).any()
    return s


def tile_cells(s):
    """The tiles of slide s, row-major: (tile_x, tile_y, x0, y0, w, h, geo)."""
    H, W = s["shape"]
    tw, th = s["tile"]
    sx, sy, ux, uy, kx, ky = s["geo"]
    out = []
    for ty in range(-(-H // th)):
        for tx in range(-(-W // tw)):
            if (tx, ty) in s["missing"]:
                continue
            x0, y0 = tx * tw, ty * th
            geo = (sx, sy, ux + x0 * sx + y0 * kx, uy + x0 * ky + y0 * sy, kx, ky)
            out.append((tx, ty, x0, y0, min(tw, W - x0), min(th, H - y0), geo))
    return out


def covered(s):
    """The pixels of slide s that some tile covers."""
    cov = np.ones(s["shape"], bool)
    tw, th = s["tile"]
    for tx, ty in s["missing"]:
        cov[ty * th:(ty + 1) * th, tx * tw:(tx + 1) * tw] = False
    return cov


def add_case(name, slides, slide_column):
    """Register a case and queue its tiles (every layer of every slide) for loading."""
    CASES[name] = dict(slides=slides, slide_column=slide_column)
    for s in slides:
        for lname, L in s["layers"].items():
            for tx, ty, x0, y0, w, h, geo in tile_cells(s):
                wkb = cr.to_wkb(L["img"][y0:y0 + h, x0:x0 + w], L["pixtype"],
                                L["nodata"] if L["tile_nodata"] else None, geo, s["srid"])
                pending.append((name, s["key"], lname, tx, ty, wkb))


def psql_script(text):
    """Run a psql script (COPY data inline); raise with its error."""
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"], input=text,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())


def load(rng):
    """Load the queued tiles into the table in shuffled order (shuf: the
    row order the tiles queries use), by COPY with hex bytea."""
    order = rng.permutation(len(pending))
    lines = []
    for shuf, j in enumerate(order):
        case, key, lname, tx, ty, wkb = pending[j]
        lines.append(f"{case}\t{key}\t{lname}\t{tx}\t{ty}\t{shuf}\t\\\\x{wkb.hex()}")
    psql_script(f"SET client_min_messages = warning;\nDROP TABLE IF EXISTS {TABLE};\n"
                f"CREATE UNLOGGED TABLE {TABLE} (kase text, slide int, layer text, tx int, "
                f"ty int, shuf int, w bytea);\nCOPY {TABLE} FROM STDIN;\n"
                + "\n".join(lines) + "\n\\.\nANALYZE " + TABLE + ";\n")


def tiles_query(case, roles, raster=False):
    """The tiles query of a case: one column per (column name, layer) role,
    joined on the tile, the slide key when the case has one, an extra
    column the function must ignore, in shuffled order."""
    def col(i):
        return f"ST_RastFromWKB(t{i}.w)" if raster else f"t{i}.w"
    cols = [f"{col(0)} AS {roles[0][0]}"]
    joins = ""
    for i, (name, lname) in enumerate(roles[1:], 1):
        cols.append(f"{col(i)} AS {name}")
        joins += (f" JOIN {TABLE} t{i} ON t{i}.kase = t0.kase AND t{i}.slide = t0.slide"
                  f" AND t{i}.tx = t0.tx AND t{i}.ty = t0.ty AND t{i}.layer = '{lname}'")
    if CASES[case]["slide_column"]:
        cols.append("t0.slide AS slide")
    cols.append("t0.shuf AS ignored")
    return (f"SELECT {', '.join(cols)} FROM {TABLE} t0{joins} WHERE t0.kase = '{case}'"
            f" AND t0.layer = '{roles[0][1]}' ORDER BY t0.shuf")


def mosaic(s, lname):
    """The raster WKB of a layer's whole mosaic: missing tiles set to its
    nodata value, which the mosaic carries when the tiles do or one is missing."""
    L = s["layers"][lname]
    img = L["img"].copy()
    nodata = L["nodata"] if (L["tile_nodata"] or s["missing"]) else None
    if s["missing"]:
        img[~covered(s)] = nodata
    return cr.to_wkb(img, L["pixtype"], nodata, s["geo"], s["srid"])


def nodata_pixels(s, lname):
    """Where a layer's mosaic is nodata: missing tiles and nodata values."""
    L = s["layers"][lname]
    out = ~covered(s)
    if L["tile_nodata"]:
        out |= L["img"] == L["nodata"]
    return out


def coverage_sql(fn, query, args, raster=False):
    """The SQL of a coverage call, its rows as text lines slide|x|y|hex."""
    rast = "ST_AsWKB(rast)" if raster else "rast"
    return (f"SELECT coalesce(slide, ''), tile_x, tile_y, encode({rast}, 'hex') "
            f"FROM {fn}($tiles${query}$tiles${args})")


def parse_rows(text):
    """{slide text: [(tile_x, tile_y, WKB)]} of a coverage call's output."""
    rows = {}
    for line in text.splitlines():
        slide, tx, ty, hx = line.split("|")
        rows.setdefault(slide, []).append((int(tx), int(ty), bytes.fromhex(hx)))
    return rows


def bits(a):
    """An array's bits as unsigned integers (bit-for-bit comparison, NaN too)."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def check_slide(rows, s, ref, what, nodata_layer=None):
    """One slide's output rows against ref (the single-value result on its
    mosaic): one row per tile at its cell, with the tile's georeference, SRID
    and size; ref's band types; band 1's nodata that of nodata_layer's tile
    (when given) else ref's, as the other bands'; ref's pixels bit for bit.
    Returns the output bands reassembled on the mosaic (0 where no tile)."""
    _, ref_bands = cr.from_wkb(ref)
    cells = {(t[0], t[1]): t for t in tile_cells(s)}
    got = {}
    for tx, ty, wkb in rows:
        got.setdefault((tx, ty), []).append(wkb)
    cr.check(sorted(got) == sorted(cells) and all(len(v) == 1 for v in got.values()),
             f"{what}: one row per tile at its cell ({len(rows)} rows, {len(got)} cells, "
             f"{len(cells)} tiles)")
    out = [np.zeros(s["shape"], b[0].dtype) for b in ref_bands]
    head_ok = types_ok = flags_ok = True
    for key, (tx, ty, x0, y0, w, h, geo) in cells.items():
        if key not in got:
            continue
        head, bands = cr.from_wkb(got[key][0])
        head_ok &= head["geo"] == geo and head["srid"] == s["srid"] and \
            (head["w"], head["h"]) == (w, h)
        if len(bands) != len(ref_bands) or \
                any(b[0].dtype != r[0].dtype for b, r in zip(bands, ref_bands)) or \
                (head["w"], head["h"]) != (w, h):
            types_ok = False
            continue
        for i, (arr, has, nd) in enumerate(bands):
            out[i][y0:y0 + h, x0:x0 + w] = arr
            if i == 0 and nodata_layer is not None:
                L = s["layers"][nodata_layer]
                expect = (True, L["nodata"]) if L["tile_nodata"] else (False, None)
            else:
                expect = (ref_bands[i][1], ref_bands[i][2] if ref_bands[i][1] else None)
            flags_ok &= (has, nd if has else None) == expect
    cr.check(head_ok, f"{what}: every tile keeps its georeference, SRID and size")
    cr.check(types_ok, f"{what}: the bands and pixel types of the single-value result")
    cr.check(flags_ok, f"{what}: the nodata of every band as promised")
    cov = covered(s)
    for i, (r, _, _) in enumerate(ref_bands):
        diff = (bits(out[i]) != bits(r)) & cov if r.shape == out[i].shape else cov
        first = tuple(int(v) for v in np.argwhere(diff)[0]) if diff.any() else None
        cr.check(not diff.any(), f"{what}: band {i + 1} equals the single-value function on "
                                 f"the mosaic ({np.count_nonzero(diff)} pixels differ, first at "
                                 f"(row, col) {first})")
    return out


def run_op(case, fn, roles, args, single, what, nodata_layer=None):
    """A coverage function over a case's tiles on every device setting (the
    same bytes), each slide checked against the single-value expression
    single(slide) on its mosaic.  {slide key: reassembled bands}, or None
    when a call failed (counted as a failure)."""
    try:
        text = coverage_sql(fn, tiles_query(case, roles), args)
        outs = [cr.sql(text, d) for d in cr.DEVICES]
        for d, o in zip(cr.DEVICES[1:], outs[1:]):
            cr.check(o == outs[0], f"{what}: {', '.join(d)} differs from "
                                   f"{', '.join(cr.DEVICES[0])}")
        rows = parse_rows(outs[0])
        result = {}
        slides = CASES[case]["slides"]
        want = sorted(str(s["key"]) if CASES[case]["slide_column"] else "" for s in slides)
        cr.check(sorted(rows) == want, f"{what}: the slides {sorted(rows)}, not {want}")
        for s in slides:
            label = str(s["key"]) if CASES[case]["slide_column"] else ""
            ref = cr.call(single(s), cr.DEVICES[0])
            sw = what + (f" slide {s['key']}" if CASES[case]["slide_column"] else "")
            result[s["key"]] = check_slide(rows.get(label, []), s, ref, sw, nodata_layer)
        return result
    except (RuntimeError, AssertionError, ValueError) as e:
        # a failed call, or rows that are no raster WKB
        cr.check(False, f"{what}: {type(e).__name__}: {e}")
        return None


def hx(s, lname):
    """A layer's mosaic as an SQL bytea literal."""
    return cr.hexarg(mosaic(s, lname))


def reconstruct(case, marker, mask, method, conn, truth=True):
    """pb_coverage_reconstruct_wkb; with truth, against scikit-image's reconstruction."""
    what = f"{case} reconstruct {method} connectivity {conn}"
    out = run_op(case, "pb_coverage_reconstruct_wkb", [("marker", marker), ("mask", mask)],
                 f", {conn}, '{method}'",
                 lambda s: f"pb_reconstruct({hx(s, marker)}, {hx(s, mask)}, {conn}, '{method}')",
                 what, nodata_layer=mask)
    if out is None or not truth:
        return out
    for s in CASES[case]["slides"]:
        m, k = s["layers"][marker]["img"], s["layers"][mask]["img"]
        t = morphology.reconstruction(m, k, method=method,
                                      footprint=cr.FOOTPRINT[conn]).astype(k.dtype)
        cr.same(out[s["key"]][0], t, f"{what}: scikit-image's reconstruction")
    return out


def fill_holes(case, lname, conn, truth=True):
    """pb_coverage_fill_holes_wkb; with truth, against the scikit-image recipe
    (reconstruction by erosion from the border) and, on 1BB, binary_fill_holes."""
    what = f"{case} fill_holes {lname} connectivity {conn}"
    out = run_op(case, "pb_coverage_fill_holes_wkb", [("rast", lname)], f", {conn}",
                 lambda s: f"pb_fill_holes({hx(s, lname)}, {conn})", what, nodata_layer=lname)
    if out is None or not truth:
        return out
    for s in CASES[case]["slides"]:
        L = s["layers"][lname]
        img = L["img"]
        seed = img.copy()
        seed[1:-1, 1:-1] = 1 if L["pixtype"] == "1BB" else (
            np.inf if img.dtype == np.float32 else np.iinfo(img.dtype).max)
        t = morphology.reconstruction(seed, img, method="erosion",
                                      footprint=cr.FOOTPRINT[conn]).astype(img.dtype)
        cr.same(out[s["key"]][0], t, f"{what}: scikit-image's hole filling")
        if L["pixtype"] == "1BB":
            sc = ndimage.binary_fill_holes(img.astype(bool), structure=cr.FOOTPRINT[conn])
            cr.same(out[s["key"]][0].astype(bool), sc, f"{what}: SciPy's binary_fill_holes")
    return out


def distance(case, lname, spacing=None, truth=True):
    """pb_coverage_distance_transform_wkb with the index bands; with truth,
    against distance_transform_edt, and the index bands name a background
    pixel at that distance."""
    what = f"{case} distance_transform {lname} spacing {spacing}"
    sp = "NULL" if spacing is None else f"ARRAY[{spacing[0]}, {spacing[1]}]::float8[]"
    out = run_op(case, "pb_coverage_distance_transform_wkb", [("rast", lname)],
                 f", 1, {sp}, true",
                 lambda s: f"pb_distance_transform({hx(s, lname)}, 1, {sp}, true)", what)
    if out is None or not truth:
        return out
    for s in CASES[case]["slides"]:
        fg = (s["layers"][lname]["img"] != 0) & ~nodata_pixels(s, lname)
        cov = covered(s)
        dist, cols, rows = out[s["key"]]
        t = ndimage.distance_transform_edt(fg, sampling=spacing).astype(np.float32)
        sw = what + (f" slide {s['key']}" if CASES[case]["slide_column"] else "")
        cr.same(np.where(cov, dist, 0), t, f"{sw}: SciPy's distance_transform_edt")
        yy, xx = np.indices(fg.shape)
        sy, sx = spacing or (1.0, 1.0)
        dy = (rows.astype(np.float64) - 1 - yy) * sy
        dx = (cols.astype(np.float64) - 1 - xx) * sx
        via = np.sqrt(dy * dy + dx * dx).astype(np.float32)
        inside = (rows >= 1) & (rows <= fg.shape[0]) & (cols >= 1) & (cols <= fg.shape[1])
        ok = inside[cov].all() and np.array_equal(via[cov], t[cov])
        if ok:
            ok = not fg[rows[cov] - 1, cols[cov] - 1].any()
        cr.check(ok, f"{sw}: the index bands name a nearest background pixel")
    return out


def watershed(case, rast, conn, markers=None, mask=None, lines=False, label_type="32BUI",
              truth=True):
    """pb_coverage_watershed_wkb; with truth, against the definition's labels
    (lines) with mask's zeros as walls."""
    what = (f"{case} watershed {rast}{' markers ' + markers if markers else ''}"
            f"{' mask ' + mask if mask else ''} connectivity {conn}"
            f"{' lines' if lines else ''} {label_type}")
    roles = [("rast", rast)] + ([("markers", markers)] if markers else []) + \
        ([("mask", mask)] if mask else [])

    def single(s):
        args = [hx(s, rast)]
        if markers:
            args.append(f"markers => {hx(s, markers)}")
        args.append(f"connectivity => {conn}")
        if mask:
            args.append(f"mask => {hx(s, mask)}")
        args.append(f"watershed_line => {str(lines).lower()}, label_type => '{label_type}'")
        return f"pb_watershed({', '.join(args)})"
    out = run_op(case, "pb_coverage_watershed_wkb", roles,
                 f", {conn}, {str(lines).lower()}, 1, '{label_type}'", single, what)
    if out is None or not truth:
        return out
    for s in CASES[case]["slides"]:
        wall = nodata_pixels(s, rast)
        if mask:
            wall |= (s["layers"][mask]["img"] == 0) | nodata_pixels(s, mask)
        m = None
        if markers:
            m = np.where(nodata_pixels(s, markers), 0, s["layers"][markers]["img"])
        d = cw.ws_definition(s["layers"][rast]["img"], conn, wall, m)
        cw.same_labels(out[s["key"]][0], d["lines" if lines else "labels"],
                       f"{what}{' slide ' + str(s['key']) if CASES[case]['slide_column'] else ''}"
                       f": the definition's labels")
    return out


def spiral_maze(n):
    """A square spiral: concentric 1-pixel wall rings (even distance to the
    border) and corridor rings (odd), each wall ring open at (w, w + 1) and
    each corridor ring blocked at (c, c + 1), so the one corridor, entered at
    (0, 1), runs round every ring in turn to the centre (either connectivity).
    The corridor mask and each pixel's ring."""
    yy, xx = np.indices((n, n))
    ring = np.minimum(np.minimum(yy, xx), np.minimum(n - 1 - yy, n - 1 - xx))
    corridor = ring % 2 == 1
    for w in range(2, n // 2, 2):
        corridor[w, w + 1] = True
    for c in range(1, n // 2, 2):
        corridor[c, c + 1] = False
    corridor[0, 1] = True
    return corridor, ring


def ihc_case(rng):
    """The IHC image as one slide of 97 x 61 tiles (no slide column), with
    a 16-bit relief of its size and its nuclei's 32BF distance map."""
    gray = cr.ihc_gray()
    hm = cr.h_markers(gray, 40)
    g16 = cr.smooth_image(rng, gray.shape, np.uint16)
    # blobs: 30% foreground with holes, some across tile borders; sparse:
    # background only at the nuclei, so distances run across tiles
    blobs = (ndimage.gaussian_filter(gray, 1) > 100).astype(np.uint8)
    sparse = (ndimage.gaussian_filter(gray, 2) <= 150).astype(np.uint8)
    ws_nuclei = cw.ihc_nuclei()
    dist = ndimage.distance_transform_edt(ws_nuclei).astype(np.float32)
    layers = dict(gray=layer(gray, "8BUI"), hdil=layer(hm["dilation"], "8BUI"),
                  hero=layer(hm["erosion"], "8BUI"), blobs=layer(blobs, "1BB"),
                  sparse=layer(sparse, "8BUI"), relief=layer(-dist, "32BF"),
                  marks=layer(cw.h_maxima_markers(dist, 2.0), "32BUI"),
                  wsmask=layer(ws_nuclei.astype(np.uint8), "8BUI"),
                  g16=layer(g16, "16BUI"),
                  h16=layer(cr.h_markers(g16, 9000)["dilation"], "16BUI"),
                  hrelief=layer(cr.h_markers(-dist, 1.5)["dilation"], "32BF"))
    add_case("ihc", [make_slide(0, layers, (97, 61), (0.5, -0.5, 1000.0, 2000.0, 0.0, 0.0))],
             False)


def spiral_case(rng):
    """The spiral maze (200 x 200) as one slide of 23 x 17 tiles: a bright
    corridor darkening inwards (reconstruction from the entrance), its
    inverse (hole filling from the entrance), and for the watershed a ridge
    halfway along the corridor between two markers (entrance and centre)."""
    n = 200
    corridor, ring = spiral_maze(n)
    bright = np.clip(255 - 2 * ring - rng.integers(0, 21, ring.shape), 1, 255)
    mask = np.where(corridor, bright, 0).astype(np.uint8)
    marker = np.zeros_like(mask)
    marker[0, 1] = mask[0, 1]
    dark = np.where(corridor, 255 - bright, 255).astype(np.uint8)
    ridge = np.clip(60 + 3 * (50 - np.abs(ring - 50)) + rng.integers(0, 21, ring.shape), 0, 255)
    relief = np.where(corridor, ridge, 255).astype(np.uint8)
    marks = np.zeros((n, n), np.uint32)
    marks[0, 1], marks[n // 2, n // 2] = 1, 2
    layers = dict(mask=layer(mask, "8BUI"), marker=layer(marker, "8BUI"),
                  dark=layer(dark, "8BUI"), relief=layer(relief, "8BUI"),
                  marks=layer(marks, "32BUI"),
                  corridor=layer(corridor.astype(np.uint8), "1BB"))
    add_case("spiral", [make_slide(0, layers, (23, 17), (1.0, -1.0, 0.0, 0.0, 0.0, 0.0))],
             False)


def multi_case(rng):
    """Three slides in one table, integer keys: an IHC crop (41 x 37 tiles);
    smooth relief whose tiles carry nodata 0 with some nodata pixels (53 x 29
    tiles, SRID 3857, the partial bottom-right tile missing); another IHC
    crop with tile (2, 2) missing (31 x 31 tiles, SRID 4326).  Missing tiles
    are the mosaic's nodata value."""
    gray = cr.ihc_gray()
    a = gray[100:300, 50:279].copy()
    b = cr.smooth_image(rng, (150, 170), np.uint8)
    b[rng.random(b.shape) < 0.01] = 0
    c = np.clip(gray[250:420, 300:480], 1, 255).astype(np.uint8)

    def layers(img, nodata, tile_nodata):
        hm = cr.h_markers(img, 30)["dilation"]
        return dict(gray=layer(img, "8BUI", nodata, tile_nodata),
                    hmark=layer(hm, "8BUI", 255),
                    fg=layer((img > 120).astype(np.uint8), "8BUI", 255),
                    marks=layer(cw.h_minima_markers(img, 20), "32BUI", 0, True))
    slides = [make_slide(3, layers(a, 0, False), (41, 37), (1.0, -1.0, 0.0, 0.0, 0.0, 0.0)),
              make_slide(17, layers(b, 0, True), (53, 29),
                         (0.25, -0.25, 5000.0, 6000.0, 0.0, 0.0), srid=3857,
                         missing={(3, 5)}),
              make_slide(250, layers(c, 0, False), (31, 31),
                         (2.0, -2.0, -100.0, 100.0, 0.0, 0.0), srid=4326, missing={(2, 2)})]
    add_case("multi", slides, True)


def edge_case(rng):
    """Odd slides, three in one table: no background at all (the distance
    transform's virtual background above the first row; 17 x 13 tiles),
    32BF relief with NaN pixels (19 x 23 tiles), and a skewed georeference
    of non-binary scale (0.1) with the upper-left tile and two bottom-left
    ones missing (21 x 16 tiles, SRID 26918)."""
    full = rng.integers(1, 5, (60, 50)).astype(np.uint8)
    rel = cr.smooth_image(rng, (70, 61), np.float32)
    rel[rng.random(rel.shape) < 0.02] = np.nan
    g = np.clip(cr.smooth_image(rng, (90, 80), np.uint8), 1, 255).astype(np.uint8)
    slides = [make_slide(1, dict(a=layer(full, "8BUI"),
                                 m=layer(cr.h_markers(full, 2)["dilation"], "8BUI")),
                         (17, 13), (1.0, -1.0, 0.0, 0.0, 0.0, 0.0)),
              make_slide(2, dict(a=layer(rel, "32BF"),
                                 m=layer(cr.h_markers(rel, 100.0)["dilation"], "32BF")),
                         (19, 23), (1.0, -1.0, 0.0, 0.0, 0.0, 0.0)),
              make_slide(4, dict(a=layer(g, "8BUI", 0),
                                 m=layer(cr.h_markers(g, 25)["dilation"], "8BUI", 255)),
                         (21, 16), (0.1, -0.1, 12.3, 45.6, 0.02, -0.03), srid=26918,
                         missing={(0, 0), (0, 5), (1, 5)})]
    add_case("edge", slides, True)


def check_numbering(out, case, what):
    """Marker-less labels of each slide are 1, 2, ..., n (n > 1) on its own."""
    for s in CASES[case]["slides"]:
        labels = out[s["key"]][0][covered(s)]
        u = np.unique(labels[labels != 0])
        cr.check(u.size > 1 and np.array_equal(u, np.arange(1, u.size + 1)),
                 f"{what} slide {s['key']}: labels numbered 1..n per slide "
                 f"({u.size} labels, from {u[:1]} to {u[-1:]})")


def check_raster_typed():
    """The raster-typed pb_coverage_reconstruct (raster columns in, rasters
    out) gives the WKB function's rows, when pixelbox_raster is installed."""
    if cr.sql("SELECT count(*) FROM pg_extension WHERE extname = 'pixelbox_raster'") != "1":
        print("raster-typed coverage functions: skipped (pixelbox_raster is not installed here)")
        return
    roles = [("marker", "hmark"), ("mask", "gray")]
    try:
        via_raster = cr.sql(coverage_sql("pb_coverage_reconstruct",
                                         tiles_query("multi", roles, raster=True), ", 8",
                                         raster=True), cr.DEVICES[0])
        via_wkb = cr.sql(coverage_sql("pb_coverage_reconstruct_wkb",
                                      tiles_query("multi", roles), ", 8"), cr.DEVICES[0])
        cr.check(via_raster == via_wkb and via_wkb != "",
                 "multi: pb_coverage_reconstruct on rasters equals pb_coverage_reconstruct_wkb")
    except RuntimeError as e:
        cr.check(False, f"multi: raster-typed pb_coverage_reconstruct: {e}")


def main():
    start = time.time()
    rng = np.random.default_rng(20261212)
    ihc_case(rng)
    spiral_case(rng)
    multi_case(rng)
    edge_case(rng)
    try:
        load(rng)
        # 1. the real image against the single-value functions and the truth
        for conn in (4, 8):
            reconstruct("ihc", "hdil", "gray", "dilation", conn)
            reconstruct("ihc", "hero", "gray", "erosion", conn)
            fill_holes("ihc", "gray", conn)
            fill_holes("ihc", "blobs", conn)
            watershed("ihc", "gray", conn)
            for lines in (False, True):
                watershed("ihc", "relief", conn, markers="marks", mask="wsmask", lines=lines)
        reconstruct("ihc", "h16", "g16", "dilation", 8)
        reconstruct("ihc", "hrelief", "relief", "dilation", 8)
        fill_holes("ihc", "g16", 4)
        fill_holes("ihc", "relief", 8)
        distance("ihc", "blobs")
        distance("ihc", "sparse", (2.5, 0.5))
        # 2. a flood through the whole spiral, many times across every tile
        for conn in (4, 8):
            reconstruct("spiral", "marker", "mask", "dilation", conn)
            fill_holes("spiral", "dark", conn)
            watershed("spiral", "relief", conn, markers="marks", mask="corridor",
                      lines=conn == 8)
        # 3. three slides in one query, one with a missing tile
        for conn in (4, 8):
            reconstruct("multi", "hmark", "gray", "dilation", conn, truth=False)
            fill_holes("multi", "gray", conn, truth=False)
            out = watershed("multi", "gray", conn, label_type="32BUI" if conn == 8 else "16BUI")
            if out is not None:
                check_numbering(out, "multi", f"multi watershed connectivity {conn}")
        distance("multi", "fg", (1.5, 0.75))
        watershed("multi", "gray", 8, markers="marks", mask="fg", lines=True)
        check_raster_typed()
        # 4. no background, NaN, skew and missing corner tiles
        distance("edge", "a", (0.7, 1.3), truth=False)
        watershed("edge", "a", 8)
        fill_holes("edge", "a", 8, truth=False)
        reconstruct("edge", "m", "a", "dilation", 4, truth=False)
    except RuntimeError as e:  # the tiles could not be loaded
        cr.check(False, f"loading the tiles: {e}")
    finally:
        try:
            psql_script(f"DROP TABLE IF EXISTS {TABLE};\n")
        except RuntimeError:
            pass
    print(f"coverage checks: {cr.passed} passed, {cr.failed} failed "
          f"({time.time() - start:.0f} s; devices: "
          f"{'; '.join(', '.join(d) for d in cr.DEVICES)})")
    return 1 if cr.failed else 0


if __name__ == "__main__":
    sys.exit(main())
