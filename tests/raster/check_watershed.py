#!/usr/bin/python3
"""pb_watershed against its definition and against scikit-image, through SQL.

The definition (src/core/raster/watershed.h) is recomputed here independently in
NumPy: the flooding level c by scikit-image's reconstruction by erosion (the
level itself marker-less), the plateau distance d by a breadth-first search,
the pointer of every pixel by the documented rule, and the labels by
following the pointers to the seeds.  Every result of pb_watershed must equal
it pixel for pixel, with and without watershed lines.  On top of that:

* marker-less: the number of basins equals the number of regional minima
  (scikit-image's local_minima, of the same connectivity);
* marker-controlled: every disagreement with scikit-image's watershed is a
  tie: both labels reach the pixel by a path whose highest level is the
  pixel's flooding level; where ties are rare (the IHC nuclei, 16- and 32-bit
  relief) at least 99.5% of the pixels agree; elsewhere (8-bit relief,
  plateaus, distance maps: ties everywhere, which scikit-image breaks by
  queue order and the definition by distance) the agreement is reported;
* watershed lines separate the basins and leave the other labels alone; on
  the IHC nuclei at least 98% of the pixels agree with scikit-image's
  watershed_line (elsewhere reported: scikit-image's lines are walls while
  it floods, so they also move its basins; ours are drawn afterwards);
* nodata image pixels are walls and nodata marker pixels seed nothing;
* every device setting gives the same bytes, and so does a repeated call.

Cases: the real IHC image scikit-image ships and generated 8BUI, 16BUI and
32BF images (smooth relief, large plateaus, NaN pixels, masks), both
connectivities.  Reuses check_raster.py's raster WKB and psql helpers and its
counters; prints one line per failed check, the agreement figures, and a
summary line "watershed checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import sys

import numpy as np
from scipy import ndimage
from skimage import data, morphology, segmentation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_raster as cr  # noqa: E402

# the labels come back as 32BUI (pixel type code 8)
cr.WKB_TYPES["32BUI"] = (8, "<u4")
cr.CODE_TO_TYPE[8] = ("32BUI", "<u4")

INF = np.uint64(0xFFFFFFFF)  # PB_WS_INF: no level, no distance
# neighbour offsets (dx, dy) in the definition's order, which breaks ties
OFFSETS = [(0, -1), (-1, 0), (1, 0), (0, 1), (-1, -1), (1, -1), (-1, 1), (1, 1)]
SKIMAGE_CONNECTIVITY = {4: 1, 8: 2}


def ws_levels(img, wall):
    """lv(u) of the definition (PbWsLevel) as uint64: the integer itself, or
    the float's bits in numeric order (-0 as +0); INF on walls and NaN."""
    if img.dtype == np.float32:
        bits = img.view(np.uint32).copy()
        bits[img == 0] = 0
        lv = np.where(bits & 0x80000000, ~bits, bits | 0x80000000).astype(np.uint64)
        wall = wall | np.isnan(img)
    else:
        lv = img.astype(np.uint64)
    lv[wall] = INF
    return lv, wall


def plateau_distances(C, LV, WALL, SEED, offs):
    """d of every pixel (flat, padded arrays): 0 on seeds and on pixels with a
    neighbour flooded below their own level, then breadth-first steps through
    neighbours of the same flooding level c; INF where never reached."""
    n = C.size
    lower = np.zeros(n, bool)
    inner = np.flatnonzero(~WALL & ~SEED & (C < INF))
    for off in offs:
        lower[inner] |= C[inner + off] < LV[inner]
    D = np.full(n, INF, np.uint64)
    frontier = np.flatnonzero(SEED | lower)
    D[frontier] = 0
    step = 0
    while frontier.size:
        step += 1
        reached = []
        for off in offs:
            nb = frontier + off
            ok = ~WALL[nb] & (D[nb] == INF) & (C[nb] == C[frontier])
            reached.append(nb[ok])
        frontier = np.unique(np.concatenate(reached))
        D[frontier] = step
    return D


def ws_definition(img, conn, wall=None, markers=None):
    """The labels of the definition, without and with watershed lines, and
    what the checks need (c, lv, walls, seeds, markers), computed in NumPy."""
    h, w = img.shape
    wall = np.zeros(img.shape, bool) if wall is None else wall.astype(bool)
    lv, wall = ws_levels(img, wall)
    if markers is None:
        seed = np.zeros(img.shape, bool)
        c = lv
    else:
        # c: the lowest possible highest level on a path from a seed, i.e.
        # the reconstruction by erosion of the seeds' levels above lv
        seed = (markers != 0) & ~wall
        c = morphology.reconstruction(np.where(seed, lv, INF).astype(np.float64),
                                      lv.astype(np.float64), method="erosion",
                                      footprint=cr.FOOTPRINT[conn]).astype(np.uint64)
    W = w + 2
    offs = [dy * W + dx for dx, dy in OFFSETS[:conn]]
    LV = np.pad(lv, 1, constant_values=INF).ravel()
    C = np.pad(c, 1, constant_values=INF).ravel()
    WALL = np.pad(wall, 1, constant_values=True).ravel()
    SEED = np.pad(seed, 1, constant_values=False).ravel()
    D = plateau_distances(C, LV, WALL, SEED, offs)
    K = (C << np.uint64(32)) | D  # the key (c, d); seeds have (lv, 0)
    # roots: seeds (marker labels), marker-less minima (numbered as
    # scipy.ndimage.label numbers them), unreachable pixels and walls (0)
    LAB = np.zeros(C.size, np.uint32)
    if markers is None:
        minima = ~wall & (D.reshape(h + 2, w + 2)[1:-1, 1:-1] == INF)
        numbered, _ = ndimage.label(minima, cr.FOOTPRINT[conn])
        LAB[:] = np.pad(numbered, 1).ravel()
        SEED = np.pad(minima, 1, constant_values=False).ravel()
    else:
        LAB[:] = np.pad(np.where(seed, markers, 0), 1).ravel()
    # the pointer: among the neighbours v with cand(v, u) == k(u), the least
    # (k(v), order index)
    P = np.arange(C.size)
    u = np.flatnonzero(~WALL & ~SEED & (D < INF))
    best = np.full(u.size, np.iinfo(np.uint64).max, np.uint64)
    ptr = np.full(u.size, -1)
    for off in offs:
        v = u + off
        down = (C[v] < LV[u]) & (C[u] == LV[u]) & (D[u] == 0)
        along = (C[v] >= LV[u]) & (C[v] == C[u]) & (D[v] + np.uint64(1) == D[u])
        better = ~WALL[v] & (down | along) & (K[v] < best)
        best[better] = K[v][better]
        ptr[better] = v[better]
    assert (ptr >= 0).all(), "definition: a pixel without a pointer"
    P[u] = ptr
    while True:  # pointer jumping down to the roots
        nxt = P[P]
        if np.array_equal(nxt, P):
            break
        P = nxt
    LAB = LAB[P]
    # lines: of two touching basins, the pixel flooded later (key, index) gives way
    line = np.zeros(C.size, bool)
    u = np.flatnonzero((LAB != 0) & ~SEED)
    for off in offs:
        v = u + off
        later = SEED[v] | (K[v] < K[u]) | ((K[v] == K[u]) & (v < u))
        line[u] |= ~WALL[v] & (LAB[v] != 0) & (LAB[v] != LAB[u]) & later
    LINES = np.where(line, 0, LAB)

    def unpad(a):
        return a.reshape(h + 2, w + 2)[1:-1, 1:-1]
    return dict(labels=unpad(LAB), lines=unpad(LINES), c=c, lv=lv, wall=wall,
                seed=unpad(SEED), markers=markers)


def watershed_sql(img, pixtype, conn, markers=None, mask=None, markers_type="32BUI",
                  lines=False):
    """The pb_watershed call, as SQL text, on raster WKB."""
    args = [cr.hexarg(cr.to_wkb(img, pixtype))]
    if markers is not None:
        args.append(f"markers => {cr.hexarg(cr.to_wkb(markers, markers_type))}")
    args.append(f"connectivity => {conn}")
    if mask is not None:
        args.append(f"mask => {cr.hexarg(cr.to_wkb(mask.astype(np.uint8), '8BUI'))}")
    if lines:
        args.append("watershed_line => true")
    return f"pb_watershed({', '.join(args)})"


def run_watershed(img, pixtype, conn, what, markers=None, mask=None, markers_type="32BUI",
                  lines=False):
    """pb_watershed on every device (identical bytes), called once more for
    determinism; the label array, checked to be one 32BUI band, nodata 0."""
    expr = watershed_sql(img, pixtype, conn, markers, mask, markers_type, lines)
    out = cr.run_all_devices(expr, what)
    cr.check(cr.call(expr, cr.DEVICES[-1]) == out, f"{what}: a repeated call differs")
    head, bands = cr.from_wkb(out)
    cr.check(len(bands) == 1 and bands[0][0].dtype == np.dtype("<u4") and bands[0][1]
             and bands[0][2] == 0 and head["w"] == img.shape[1] and head["h"] == img.shape[0],
             f"{what}: one 32BUI band with nodata 0, of the image's size")
    return bands[0][0]


def same_labels(ours, truth, what):
    """Equality with the definition's labels, counting the differing pixels."""
    cr.same(ours, truth.astype(np.uint32), what)


def basins(labels):
    """The number of distinct nonzero labels."""
    return np.unique(labels[labels != 0]).size


def check_markerless(img, pixtype, name, wall=None):
    """Marker-less: equal to the definition, one basin per regional minimum."""
    for conn in (4, 8):
        what = f"marker-less {name} {pixtype} connectivity {conn}"
        mask = None if wall is None else ~wall
        ours = run_watershed(img, pixtype, conn, what, mask=mask)
        truth = ws_definition(img, conn, wall)
        same_labels(ours, truth["labels"], f"{what}: labels of the definition")
        if wall is None and not np.isnan(img).any():
            minima = morphology.local_minima(img, connectivity=SKIMAGE_CONNECTIVITY[conn],
                                             allow_borders=True)
            # scikit-image finds no minimum in a flat image; it is one basin
            n_minima = ndimage.label(minima, cr.FOOTPRINT[conn])[1] or 1
            cr.check(basins(ours) == n_minima and ours.max() == n_minima,
                     f"{what}: {basins(ours)} basins, {n_minima} regional minima")


def tie_failures(ours, theirs, d, conn):
    """The disagreement pixels that are not ties: a label a pixel carries is
    fair when a path from a seed of that label reaches the pixel without
    climbing above the pixel's flooding level c (the connected component of
    {non-wall, lv <= c} holding the pixel holds such a seed)."""
    bad = []
    diff = np.flatnonzero((ours != theirs).ravel())
    c = d["c"].ravel()
    lv, open_ = d["lv"], ~d["wall"]
    seeds = np.flatnonzero(d["seed"].ravel())
    seed_label = d["markers"].ravel()[seeds].astype(np.int64)
    for level in np.unique(c[diff]):
        at = diff[c[diff] == level]
        if level == INF:
            bad.extend(at)
            continue
        comp, _ = ndimage.label(open_ & (lv <= level), cr.FOOTPRINT[conn])
        comp = comp.ravel().astype(np.int64)
        fair = set((comp[seeds] << 32) | seed_label)
        for i in at:
            a, b = int(ours.flat[i]), int(theirs.flat[i])
            if a == 0 or b == 0 or (int(comp[i]) << 32 | a) not in fair \
                    or (int(comp[i]) << 32 | b) not in fair:
                bad.append(i)
    return bad


def check_marker(img, pixtype, markers, name, wall=None, markers_type="32BUI",
                 least=None, least_lines=None):
    """Marker-controlled, without and with watershed lines: equal to the
    definition; against scikit-image: every disagreement a tie, and at least
    `least` (`least_lines` with lines) of the pixels agreeing where given
    (images with few ties; tie-rich ones only report the figure).  Markers on
    walls go to pb_watershed as they are (they seed nothing), to
    scikit-image removed."""
    mask = None if wall is None else ~wall
    sk_mask = np.ones(img.shape, bool) if wall is None else ~wall
    if img.dtype == np.float32:
        sk_mask &= ~np.isnan(img)
    sk_img = np.where(sk_mask, img, 0).astype(np.float64)
    sk_markers = np.where(sk_mask, markers, 0).astype(np.int64)
    for conn in (4, 8):
        what = f"markers {name} {pixtype} connectivity {conn}"
        truth = ws_definition(img, conn, wall, markers)
        ours = run_watershed(img, pixtype, conn, what, markers, mask, markers_type)
        same_labels(ours, truth["labels"], f"{what}: labels of the definition")
        sk = segmentation.watershed(sk_img, sk_markers, connectivity=SKIMAGE_CONNECTIVITY[conn],
                                    mask=sk_mask)
        agree = np.count_nonzero(ours == sk) / ours.size
        bad = tie_failures(ours, sk, truth, conn)
        print(f"  {what}: {100 * agree:.3f}% as scikit-image, "
              f"{np.count_nonzero(ours != sk)} pixels differ, {len(bad)} of them not ties")
        if least is not None:
            cr.check(agree >= least,
                     f"{what}: agreement with scikit-image {100 * agree:.3f}% < {100 * least}%")
        first = np.unravel_index(bad[0], img.shape) if bad else None
        cr.check(not bad, f"{what}: {len(bad)} disagreements with scikit-image are no ties, "
                          f"first at (row, col) {first}")
        what += " lines"
        lines = run_watershed(img, pixtype, conn, what, markers, mask, markers_type, lines=True)
        check_lines(lines, ours, truth, conn, what)
        sk = segmentation.watershed(sk_img, sk_markers, connectivity=SKIMAGE_CONNECTIVITY[conn],
                                    mask=sk_mask, watershed_line=True)
        agree = np.count_nonzero(lines == sk) / lines.size
        print(f"  {what}: {100 * agree:.3f}% as scikit-image's watershed_line, "
              f"{np.count_nonzero(lines == 0) - np.count_nonzero(ours == 0)} line pixels "
              f"(scikit-image {np.count_nonzero(sk == 0) - np.count_nonzero(ours == 0)})")
        if least_lines is not None:
            cr.check(agree >= least_lines, f"{what}: agreement with scikit-image's watershed_line "
                                           f"{100 * agree:.3f}% < {100 * least_lines}%")


def check_lines(lines, plain, truth, conn, what):
    """Watershed lines: the definition's; they separate the basins (except
    where markers touch markers) and keep the seeds and every other label."""
    same_labels(lines, truth["lines"], f"{what}: lines of the definition")
    kept = lines != 0
    cr.check(np.array_equal(lines[kept], plain[kept]), f"{what}: a non-line pixel changed label")
    cr.check(not (lines == 0)[truth["seed"]].any(), f"{what}: a seed became a line")
    touching = 0
    h, w = lines.shape
    for dx, dy in OFFSETS[:conn]:
        here = (slice(max(0, -dy), h - max(0, dy)), slice(max(0, -dx), w - max(0, dx)))
        there = (slice(max(0, dy), h - max(0, -dy)), slice(max(0, dx), w - max(0, -dx)))
        a, b = lines[here], lines[there]
        touching += np.count_nonzero((a != 0) & (b != 0) & (a != b)
                                     & ~(truth["seed"][here] & truth["seed"][there]))
    cr.check(touching == 0, f"{what}: {touching} neighbour pairs of different basins touch")


def check_nodata(img, pixtype, markers, name):
    """Nodata: image pixels of the nodata value are walls, marker pixels of
    the markers' nodata value seed nothing (equal to the definition with
    those walls and without those markers)."""
    img_nodata = img.max()
    marker_nodata = int(markers.max())
    for conn in (4, 8):
        what = f"nodata {name} {pixtype} connectivity {conn}"
        expr = (f"pb_watershed({cr.hexarg(cr.to_wkb(img, pixtype, nodata=img_nodata))}, "
                f"{cr.hexarg(cr.to_wkb(markers, '32BUI', nodata=marker_nodata))}, {conn})")
        _, bands = cr.from_wkb(cr.run_all_devices(expr, what))
        truth = ws_definition(img, conn, img == img_nodata,
                              np.where(markers == marker_nodata, 0, markers))
        same_labels(bands[0][0], truth["labels"], f"{what}: labels of the definition")


def h_maxima_markers(dt, h):
    """Markers as pathology pipelines make them: the h-maxima of a distance
    map (where the reconstruction of dt - h under dt stays at dt - h), one
    label per 8-connected component."""
    lowered = (dt.astype(np.float64) - h).astype(np.float32)
    rec = morphology.reconstruction(lowered, dt, method="dilation",
                                    footprint=cr.FOOTPRINT[8]).astype(np.float32)
    return ndimage.label(rec == lowered, cr.FOOTPRINT[8])[0].astype(np.uint32)


def h_minima_markers(img, h):
    """Markers of a gray-scale relief: its h-minima (where the reconstruction
    by erosion of img + h above img stays at img + h), one label per
    8-connected component."""
    raised = img.astype(np.float64) + h
    rec = morphology.reconstruction(raised, img.astype(np.float64), method="erosion",
                                    footprint=cr.FOOTPRINT[8])
    return ndimage.label(rec == raised, cr.FOOTPRINT[8])[0].astype(np.uint32)


def random_markers(rng, shape, n):
    """n small disks at random places with labels 1..n in random order; two
    of them share a label (one basin seeded in two places)."""
    markers = np.zeros(shape, np.uint32)
    labels = rng.permutation(n) + 1
    labels[-1] = labels[0]
    yy, xx = np.indices(shape)
    for lab, (y, x), r in zip(labels, rng.integers(0, shape, (n, 2)), rng.integers(0, 3, n)):
        markers[(yy - y) ** 2 + (xx - x) ** 2 <= r * r] = lab
    return markers


def ihc_nuclei():
    """The worked example's nuclei mask: hematoxylin-blue pixels of the IHC
    image (blue - red > 15), holes filled."""
    rgb = data.immunohistochemistry()[..., :3].astype(np.int32)
    return ndimage.binary_fill_holes(rgb[..., 2] - rgb[..., 0] > 15)


def main():
    rng = np.random.default_rng(20261206)
    gray = cr.ihc_gray()
    # marker-less: the real image, smooth relief of every type, plateaus,
    # a constant image, walls, NaN and -0
    check_markerless(gray, "8BUI", "ihc")
    for pixtype, dt in (("8BUI", np.uint8), ("16BUI", np.uint16), ("32BF", np.float32)):
        check_markerless(cr.smooth_image(rng, (211, 157), dt), pixtype, "generated")
    plateaus = (cr.smooth_image(rng, (173, 229), np.uint8) // 40 * 40).astype(np.uint8)
    check_markerless(plateaus, "8BUI", "plateaus")
    check_markerless(np.full((37, 41), 7, np.uint8), "8BUI", "constant")
    relief = cr.smooth_image(rng, (131, 149), np.float32)
    relief[rng.random(relief.shape) < 0.01] = np.nan
    relief[40:60, 30:35] = -0.0
    walls = rng.random(relief.shape) < 0.05
    check_markerless(relief, "32BF", "NaN and -0", wall=walls)
    # marker-controlled, where ties are rare (agreement gated): the nuclei
    # of the real image split on the inverted distance map from h-maxima
    # markers, as in the README's worked example; smooth 16- and 32-bit
    # relief from random markers and from h-minima, with NaN and walls
    nuclei = ihc_nuclei()
    dist = ndimage.distance_transform_edt(nuclei).astype(np.float32)
    check_marker(-dist, "32BF", h_maxima_markers(dist, 2.0), "ihc nuclei", wall=~nuclei,
                 least=0.995, least_lines=0.98)
    for pixtype, dt, h in (("16BUI", np.uint16, 3000), ("32BF", np.float32, 40)):
        img = cr.smooth_image(rng, (241, 199), dt)
        check_marker(img, pixtype, random_markers(rng, img.shape, 40), "generated random",
                     least=0.995)
        check_marker(img, pixtype, h_minima_markers(img, h), "generated h-minima", least=0.995)
    check_marker(relief, "32BF", random_markers(rng, relief.shape, 30), "NaN and -0",
                 wall=walls, markers_type="16BUI", least=0.995)
    # tie-rich (8-bit relief, plateaus, distance maps): every disagreement
    # must be a tie; the agreement is reported
    check_marker(gray, "8BUI", h_minima_markers(gray, 20), "ihc h-minima")
    check_marker(gray, "8BUI", random_markers(rng, gray.shape, 60), "ihc random")
    img = cr.smooth_image(rng, (241, 199), np.uint8)
    check_marker(img, "8BUI", random_markers(rng, img.shape, 40), "generated random")
    check_marker(plateaus, "8BUI", random_markers(rng, plateaus.shape, 25), "plateaus random",
                 markers_type="8BUI")
    check_nodata(plateaus, "8BUI", random_markers(rng, plateaus.shape, 25), "plateaus random")
    blobs = ndimage.gaussian_filter(rng.random((223, 251)), 4) > 0.5
    bdist = ndimage.distance_transform_edt(blobs).astype(np.float32)
    check_marker(-bdist, "32BF", h_maxima_markers(bdist, 1.0), "generated blobs", wall=~blobs)
    print(f"watershed checks: {cr.passed} passed, {cr.failed} failed")
    return 1 if cr.failed else 0


if __name__ == "__main__":
    sys.exit(main())
