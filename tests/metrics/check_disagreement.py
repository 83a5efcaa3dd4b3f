#!/usr/bin/python3
"""Where two segmentations disagree, through SQL, against independent truth.

Data: two segmentations of scikit-image's real IHC image (fixtures.py),
mirrored to 1024 x 1024, and a generated label image against a perturbed
copy, loaded as GDAL's Polygonize of each label (check_metrics.load).  At
IoU threshold 0.6 the matching is unique (each object has at most one
partner above 0.5), so the truth needs no tie rule:

  - pb_tile_agreement: per tile of 64 and of 100 px, the counts, F1, PQ and
    J' computed here with numpy from the label images (stardist's matching
    by scipy's linear_sum_assignment as in check_metrics.Truth, each object
    in the tile of its bounding box's centre, a matched prediction and every
    overlapping pair in their true object's tile);
  - pb_heatmap_png over those rows (the documented command): the PNG decoded
    by PIL, each tile's pixels matplotlib's viridis of its row's F1, the
    tiles without a row transparent;
  - pb_disagreement_geojson: the file written by psql is read back by GDAL
    (ogrinfo's feature count; OGR's features: classification, IoU and
    geometry equal to Polygonize's polygon of the label, by GEOS) and by
    pb_read_geojson (classification and measurements as written,
    geometries ST_Equals the tables').

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment).  Prints one line per failed check and a summary line
"disagreement checks: N passed, M failed"; exits non-zero on failure.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from matplotlib import cm
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "formats"))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402
from check_metrics import Truth, close, load, perturbed  # noqa: E402
from sqlcheck import Checks, psql, psql_rows  # noqa: E402

THRESHOLD = 0.6
LOW_IOU = 0.8
CLASS = {"fn": "FN", "fp": "FP", "low_iou": "Low IoU"}

check = Checks()


def boxes(labels, keys):
    """Bounding boxes (xmin, ymin, xmax, ymax; pixel edges) of labels keys."""
    rows, cols = np.nonzero(labels)
    k = np.searchsorted(keys, labels[rows, cols])
    box = np.zeros((len(keys), 4))
    box[:, 0] = box[:, 1] = np.inf
    np.minimum.at(box[:, 0], k, cols)
    np.minimum.at(box[:, 1], k, rows)
    np.maximum.at(box[:, 2], k, cols + 1)
    np.maximum.at(box[:, 3], k, rows + 1)
    return box


def tile_of(box, size):
    """(tx, ty) of each box's centre on a grid of size squares from (0, 0)."""
    return [(int(np.floor((b[0] + b[2]) / 2 / size)), int(np.floor((b[1] + b[3]) / 2 / size)))
            for b in box]


def tile_truth(truth, a, b, size):
    """{(tx, ty): [n_true, n_pred, tp, fp, fn, pairs, f1, pq, jaccard]}."""
    _, pairs = truth.stardist(THRESHOLD)
    mate = {int(t): int(p) for t, p in pairs}
    matched_p = set(mate.values())
    tt = tile_of(boxes(a, truth.ta), size)
    tp_ = tile_of(boxes(b, truth.pb), size)
    acc = {}

    def row(k):
        return acc.setdefault(k, dict(tp=0, fp=0, fn=0, iou=[], pair=[]))
    for t in range(len(truth.ta)):
        r = row(tt[t])
        if t in mate:
            r["tp"] += 1
            r["iou"].append(truth.iou[t, mate[t]])
        else:
            r["fn"] += 1
    for p in range(len(truth.pb)):
        if p not in matched_p:
            row(tp_[p])["fp"] += 1
    for t, p in zip(*np.nonzero(truth.inter > 0)):
        row(tt[t])["pair"].append(truth.iou[t, p])
    out = {}
    for k, r in acc.items():
        tp, fp, fn = r["tp"], r["fp"], r["fn"]
        out[k] = [tp + fn, tp + fp, tp, fp, fn, len(r["pair"]), 2 * tp / (2 * tp + fp + fn),
                  sum(r["iou"]) / (tp + fp / 2 + fn / 2),
                  float(np.mean(r["pair"])) if r["pair"] else None]
    return out


def check_tiles(name, truth, a, b, size):
    """pb_tile_agreement's rows against tile_truth."""
    want = tile_truth(truth, a, b, size)
    rows = psql_rows(f"SET client_min_messages = error; SELECT tile_x, tile_y, n_true, n_pred, tp, fp, fn, "
                     f"pairs, f1, pq, jaccard, ST_XMin(tile), ST_YMax(tile) FROM pb_tile_agreement("
                     f"'{name}_a', 'id', 'geom', '{name}_b', 'id', 'geom', {size}, {THRESHOLD})")
    got = {}
    squares = True
    for r in rows:
        k = (int(r[0]), int(r[1]))
        got[k] = [int(v) for v in r[2:8]] + [float(r[8]), float(r[9]), float(r[10]) if r[10] else None]
        squares &= float(r[11]) == k[0] * size and float(r[12]) == (k[1] + 1) * size
    check(set(got) == set(want), f"{name} tiles of {size}: tiles {sorted(set(got) ^ set(want))[:5]} "
          f"only in one of pixelbox / numpy")
    bad = [(k, got[k], want[k]) for k in set(got) & set(want)
           if got[k][:6] != want[k][:6] or not close(got[k][6], want[k][6]) or not close(got[k][7], want[k][7])
           or (got[k][8] is None) != (want[k][8] is None)
           or (got[k][8] is not None and not close(got[k][8], want[k][8]))]
    check(not bad, f"{name} tiles of {size}: {len(bad)} rows differ from numpy's, e.g. {bad[:3]}")
    check(squares, f"{name} tiles of {size}: a tile square is not where its numbers say")
    print(f"{name}: {len(got)} tiles of {size} px")
    return got


def check_heatmap(name, rows, size, tmp):
    """The documented heat-map command over pb_tile_agreement's rows: every
    tile's pixels against viridis of its F1 (rows: {(tx, ty): [..., f1, ...]})."""
    path = os.path.join(tmp, f"{name}-{size}.png")
    cmd = (f"psql -XAt -c \"SELECT encode(pb_heatmap_png(tile_x, tile_y, f1, 4), 'base64') "
           f"FROM pb_tile_agreement('{name}_a', 'id', 'geom', '{name}_b', 'id', 'geom', {size}, {THRESHOLD})\" "
           f"| base64 -d > {path}")
    subprocess.run(["bash", "-o", "pipefail", "-c", cmd], check=True, env=dict(os.environ, PGOPTIONS="-c client_min_messages=error"))
    im = np.asarray(Image.open(path).convert("RGBA"))
    x0 = min(k[0] for k in rows)
    y0 = min(k[1] for k in rows)
    w = max(k[0] for k in rows) - x0 + 1
    h = max(k[1] for k in rows) - y0 + 1
    viridis = np.round(cm.viridis(np.arange(256))[:, :3] * 255).astype(np.uint8)
    bad = 0
    for ty in range(h):
        for tx in range(w):
            cell = im[ty * 4:(ty + 1) * 4, tx * 4:(tx + 1) * 4].reshape(-1, 4)
            r = rows.get((tx + x0, ty + y0))
            want = [0, 0, 0, 0] if r is None else list(viridis[int(np.rint(r[6] * 255))]) + [255]
            bad += int(not (cell == want).all())
    check(im.shape == (4 * h, 4 * w, 4) and bad == 0,
          f"{name} heat map of {size}-px tiles: {im.shape}, {bad} tiles of {w} x {h} not the colour of their F1")


def export_truth(truth):
    """{(in_a, label): (status, iou)} of the objects the export should hold."""
    _, pairs = truth.stardist(THRESHOLD)
    mate = {int(t): int(p) for t, p in pairs}
    back = {p: t for t, p in mate.items()}
    out = {}
    for t, label in enumerate(truth.ta):
        if t in mate:
            if truth.iou[t, mate[t]] < LOW_IOU:
                out[(True, int(label))] = ("low_iou", truth.iou[t, mate[t]])
        else:
            out[(True, int(label))] = ("fn", truth.iou[t, :].max(initial=0.0))
    for p, label in enumerate(truth.pb):
        if p in back:
            if truth.iou[back[p], p] < LOW_IOU:
                out[(False, int(label))] = ("low_iou", truth.iou[back[p], p])
        else:
            out[(False, int(label))] = ("fp", truth.iou[:, p].max(initial=0.0))
    return out


def check_export(name, truth, a, b, tmp):
    """The export written by psql, read back by GDAL and by pb_read_geojson."""
    path = os.path.join(tmp, f"{name}.geojson")
    with open(path, "w") as f:
        subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c",
                        f"SET client_min_messages = error; SELECT pb_disagreement_geojson('{name}_a', 'id', 'geom', "
                        f"'{name}_b', 'id', 'geom', {THRESHOLD}, {LOW_IOU})"], stdout=f, check=True)
    want = export_truth(truth)
    info = subprocess.run(["ogrinfo", "-ro", "-so", "-al", path], capture_output=True, text=True)
    count = [int(line.split(":")[1]) for line in info.stdout.splitlines() if line.startswith("Feature Count:")]
    check(info.returncode == 0 and count == [len(want)],
          f"{name}: ogrinfo reads {count} features ({info.stderr.strip()[:200]}), {len(want)} expected")
    from osgeo import ogr
    polys = {True: fixtures.label_polygons(a), False: fixtures.label_polygons(b)}
    ds = ogr.Open(path)
    bad, seen = [], set()
    for feat in ds.GetLayer(0):
        meas = json.loads(feat.GetField("measurements"))
        cls = json.loads(feat.GetField("classification"))["name"]
        key = (meas["In reference"] == 1, int(meas["Object id"]))
        seen.add(key)
        status, iou = want.get(key, (None, None))
        truth_geom = ogr.CreateGeometryFromWkt(polys[key[0]][key[1]])
        if (status is None or cls != CLASS[status] or not close(meas["IoU"], iou)
                or feat.GetField("objectType") != "detection"
                or not feat.GetGeometryRef().Equals(truth_geom)):
            bad.append((key, cls, meas, status, iou))
    check(not bad and seen == set(want), f"{name}: GDAL's reading of the export differs from the truth: "
          f"{bad[:3]}, missing {sorted(set(want) - seen)[:5]}")
    row = psql(f"""
        SET client_min_messages = error;
        WITH r AS (SELECT * FROM pb_read_geojson('{path}')),
             t AS (SELECT true AS in_a, id, geom FROM {name}_a UNION ALL SELECT false, id, geom FROM {name}_b)
        SELECT count(*),
               count(*) FILTER (WHERE ST_Equals(r.geom, t.geom)),
               count(*) FILTER (WHERE r.object_type = 'detection' AND r.classification IN ('FN', 'FP', 'Low IoU')),
               count(DISTINCT r.id)
        FROM r JOIN t ON t.in_a = ((r.measurements->>'In reference')::int = 1)
                     AND t.id = (r.measurements->>'Object id')::bigint""")
    n, same, classified, ids = map(int, row.split("|"))
    check(n == len(want) and same == n and classified == n and ids == n,
          f"{name}: pb_read_geojson reads {n} features back, {same} equal to the tables' geometries, "
          f"{classified} classified, {ids} distinct ids ({len(want)} expected)")
    print(f"{name}: {len(want)} objects exported "
          f"({sum(1 for s, _ in want.values() if s == 'fn')} fn, {sum(1 for s, _ in want.values() if s == 'fp')} fp)")


def main():
    a, b = fixtures.ihc_segmentations(1024)
    g = fixtures.generated_labels(256, 3)
    cases = [("pb_dis_ihc", a, b), ("pb_dis_gen", g, perturbed(g, 3))]
    psql("SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE;\n")
    try:
        with tempfile.TemporaryDirectory(prefix="pb_check_disagreement_") as tmp:
            os.chmod(tmp, 0o755)
            for name, x, y in cases:
                truth = Truth(x, y)
                load(name, x, y)
                for size in (64, 100):
                    got = check_tiles(name, truth, x, y, size)
                    check_heatmap(name, got, size, tmp)
                check_export(name, truth, x, y, tmp)
    finally:
        psql("".join(f"DROP TABLE IF EXISTS {n}_a, {n}_b;\n" for n, _, _ in cases))
    return check.summary("disagreement")


if __name__ == "__main__":
    sys.exit(main())
