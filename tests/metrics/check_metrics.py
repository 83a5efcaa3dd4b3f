#!/usr/bin/python3
"""pb_match_stats and pb_match_objects against an independent numpy
implementation of the published definitions, through SQL.

The truth is written here from the formulas, not copied code:
  - stardist.matching (Schmidt et al. 2018): the overlap of two label images,
    IoU = |t∩p| / (|t| + |p| - |t∩p|), scipy's linear_sum_assignment on
    stardist's cost -(IoU >= thr) - IoU / (2 n_matched), tp = the assigned
    pairs with IoU >= thr, and its figures with _safe_divide;
  - HoVer-Net's get_fast_aji (Kumar et al. 2017): each true object's
    prediction of largest inter / (union + 1e-6) (argmax: the first among
    equals, predictions taken in pixelbox's documented order: area, then
    box), C and U over those, unpaired areas added to U;
  - get_fast_aji_plus: linear_sum_assignment on -inter / (union + 1e-6),
    pairs of IoU 0 dropped;
  - get_dice_1: 2 |A∩B| / (|A| + |B|) of the binary masks.
Data: two segmentations of scikit-image's real IHC image
(tests/formats/fixtures.py), and generated label images (random blobs with
touching objects, holes and labels of several parts) against a perturbed
copy (shifted, some objects merged, split or dropped), against their
objects cut in halves (exact IoU ties) and shifted (matchings below 0.5
that the largest-IoU-first choice gets wrong), and against an unrelated
one; thresholds 0.1, 0.3, 0.5, 0.7, 0.9.  The polygons of the
label images (GDAL's Polygonize) go into two tables (ST_GeomFromText).
Counts must be equal, ratios equal to 1e-12 relative.  Then every case in
one pair of tables, keyed by case (each a slide at the same coordinates):
the keyed pb_match_stats(geom, in_a, thr, key) against the truth's parts
summed over the cases (counts, matched IoUs, AJI's and AJI+'s C and U, the
masks' |A∩B| and |A| + |B|), as stardist's matching_dataset pools them.

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment).  Prints one line per failed check and a summary line
"metrics checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "formats"))
import fixtures  # noqa: E402
from sqlcheck import Checks, psql_rows as psql  # noqa: E402

THRESHOLDS = (0.1, 0.3, 0.5, 0.7, 0.9)
FIELDS = ("n_true", "n_pred", "tp", "fp", "fn", "precision", "recall", "accuracy", "f1",
          "mean_true_score", "mean_matched_score", "panoptic_quality", "sq", "dq",
          "aji", "aji_plus", "dice_pixel")
COUNTS = {"n_true", "n_pred", "tp", "fp", "fn"}

check = Checks()


def close(ours, truth, rel=1e-12):
    return abs(ours - truth) <= rel * max(1.0, abs(truth))


# ---- the truth, from the definitions ---------------------------------------

class Truth:
    """Overlaps and per-object facts of two label images."""

    def __init__(self, a, b):
        self.ta = np.unique(a[a > 0])                   # true labels
        self.pb = np.unique(b[b > 0])                   # predicted labels
        ia = np.searchsorted(self.ta, a) + 1            # 1-based index; 0 background
        ib = np.searchsorted(self.pb, b) + 1
        ia[a == 0] = 0
        ib[b == 0] = 0
        nt, npr = len(self.ta), len(self.pb)
        # label_overlap: pixel counts of every (true, pred) index pair
        ov = np.zeros((nt + 1, npr + 1), np.int64)
        np.add.at(ov, (ia.ravel(), ib.ravel()), 1)
        self.inter = ov[1:, 1:].astype(np.float64)
        self.area_t = ov[1:, :].sum(axis=1).astype(np.float64)
        self.area_p = ov[:, 1:].sum(axis=0).astype(np.float64)
        self.union = self.area_t[:, None] + self.area_p[None, :] - self.inter
        with np.errstate(invalid="ignore", divide="ignore"):
            self.iou = np.where(self.union > 0, self.inter / self.union, 0.0)
        # predictions' boxes (x = column, y = row; pixel edges), for pixelbox's order
        rows, cols = np.nonzero(ib)
        k = ib[rows, cols] - 1
        self.box = np.zeros((npr, 4))
        self.box[:, 0] = np.full(npr, np.inf)
        self.box[:, 1] = np.full(npr, np.inf)
        np.minimum.at(self.box[:, 0], k, cols)
        np.minimum.at(self.box[:, 1], k, rows)
        np.maximum.at(self.box[:, 2], k, cols + 1)
        np.maximum.at(self.box[:, 3], k, rows + 1)
        self.dice_inter = float(np.count_nonzero((a > 0) & (b > 0)))
        self.dice_area = float(np.count_nonzero(a) + np.count_nonzero(b))
        self.dice = 2.0 * self.dice_inter / self.dice_area

    def stardist(self, thr):
        """stardist.matching's figures at thr (and the sum of matched IoUs,
        total), and its matched (true, pred) pairs."""
        scores = self.iou
        n_true, n_pred = scores.shape
        n_matched = min(n_true, n_pred)
        tp, total, pairs = 0, 0.0, []
        if n_matched > 0:
            costs = -(scores >= thr).astype(float) - scores / (2 * n_matched)
            ti, pi = linear_sum_assignment(costs)
            ok = scores[ti, pi] >= thr
            tp = int(np.count_nonzero(ok))
            total = float(np.sum(scores[ti, pi][ok]))
            pairs = list(zip(ti[ok], pi[ok]))

        def div(x, y):
            return x / y if abs(y) > 1e-10 else 0.0
        fp, fn = n_pred - tp, n_true - tp
        s = dict(n_true=n_true, n_pred=n_pred, tp=tp, fp=fp, fn=fn,
                 precision=div(tp, tp + fp), recall=div(tp, tp + fn), accuracy=div(tp, tp + fp + fn),
                 f1=div(2 * tp, 2 * tp + fp + fn), mean_true_score=div(total, n_true),
                 mean_matched_score=div(total, tp), panoptic_quality=div(total, tp + fp / 2 + fn / 2),
                 total=total)
        s["sq"] = s["mean_matched_score"]
        s["dq"] = div(tp, tp + fp / 2 + fn / 2)
        return s, pairs

    def aji(self):
        """get_fast_aji, argmax over predictions in pixelbox's order (area, box);
        also how many true objects had a tie left after that order."""
        c, u, unresolved = self.aji_sums()
        return c / u if u > 0 else 0.0, unresolved

    def aji_sums(self):
        """get_fast_aji's C and U, and the ties left (aji)."""
        order = np.lexsort((self.box[:, 3], self.box[:, 2], self.box[:, 1], self.box[:, 0], self.area_p))
        inter, union = self.inter[:, order], self.union[:, order]
        iou = inter / (union + 1.0e-6)
        if iou.shape[1] == 0:
            return 0.0, self.area_t.sum(), 0
        best = np.argmax(iou, axis=1)
        bestv = iou[np.arange(len(best)), best]
        paired = np.nonzero(bestv > 0.0)[0]
        c = inter[paired, best[paired]].sum()
        u = union[paired, best[paired]].sum()
        used = np.zeros(iou.shape[1], bool)
        used[best[paired]] = True
        u += self.area_t[np.setdiff1d(np.arange(len(best)), paired)].sum() + self.area_p[order][~used].sum()
        keys = np.stack([self.area_p, *self.box.T], axis=1)[order]
        unresolved = sum(1 for t in paired
                         if any((iou[t] == bestv[t]) & np.all(keys == keys[best[t]], axis=1)
                                & (np.arange(iou.shape[1]) != best[t])))
        return c, u, unresolved

    def aji_plus(self):
        """get_fast_aji_plus."""
        c, u = self.aji_plus_sums()
        return c / u if u > 0 else 0.0

    def aji_plus_sums(self):
        """get_fast_aji_plus's C and U."""
        iou = self.inter / (self.union + 1.0e-6)
        if iou.size == 0:
            return 0.0, self.area_t.sum() + self.area_p.sum()
        ti, pi = linear_sum_assignment(-iou)
        keep = iou[ti, pi] > 0.0
        ti, pi = ti[keep], pi[keep]
        c = self.inter[ti, pi].sum()
        u = self.union[ti, pi].sum()
        u += np.delete(self.area_t, ti).sum() + np.delete(self.area_p, pi).sum()
        return c, u


# ---- pixelbox, through SQL -------------------------------------------------

def load(name, a, b):
    """Tables <name>_a, <name>_b (id = label, geom) of the label images' polygons."""
    lines = [f"DROP TABLE IF EXISTS {name}_a, {name}_b;",
             f"CREATE TABLE {name}_a (id bigint, wkt text);",
             f"CREATE TABLE {name}_b (id bigint, wkt text);"]
    for side, labels in (("a", a), ("b", b)):
        lines.append(f"COPY {name}_{side} FROM STDIN;")
        lines += [f"{k}\t{w}" for k, w in fixtures.label_polygons(labels).items()]
        lines.append("\\.")
        lines.append(f"ALTER TABLE {name}_{side} ADD COLUMN geom geometry;"
                     f"UPDATE {name}_{side} SET geom = ST_GeomFromText(wkt);"
                     f"ALTER TABLE {name}_{side} DROP COLUMN wkt;")
    psql("\n".join(lines) + "\n")


def stats(name, thr, settings=""):
    """pb_match_stats over both tables at thr: {field: value}."""
    rows = psql(f"{settings}SELECT {', '.join(FIELDS)} FROM (SELECT (pb_match_stats(geom, in_a, {thr})).* FROM ("
                f"SELECT geom, true AS in_a FROM {name}_a UNION ALL SELECT geom, false FROM {name}_b) t) s;\n")
    return {f: (int(v) if f in COUNTS else float(v)) for f, v in zip(FIELDS, rows[0])}


def objects(name, thr):
    """pb_match_objects' rows: (in_a, id, match_id or None, iou, status)."""
    rows = psql(f"SELECT in_a, id, match_id, iou, status FROM pb_match_objects("
                f"'{name}_a', 'id', 'geom', '{name}_b', 'id', 'geom', {thr});\n")
    return [(r[0] == "t", int(r[1]), int(r[2]) if r[2] else None, float(r[3]), r[4]) for r in rows]


PARALLEL = ("SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; "
            "SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; "
            "SET parallel_leader_participation = off;\n")


def compare(name, a, b):
    """Every figure of pb_match_stats and pb_match_objects against the truth."""
    truth = Truth(a, b)
    load(name, a, b)
    aji, unresolved = truth.aji()
    aji_plus = truth.aji_plus()
    print(f"{name}: {len(truth.ta)} true, {len(truth.pb)} predicted objects, "
          f"{np.count_nonzero(truth.inter)} overlapping pairs, AJI ties beyond (area, box): {unresolved}")
    for thr in THRESHOLDS:
        want, pairs = truth.stardist(thr)
        want.update(aji=aji, aji_plus=aji_plus, dice_pixel=truth.dice)
        got = stats(name, thr)
        for f in FIELDS:
            ok = got[f] == want[f] if f in COUNTS else close(got[f], want[f])
            check(ok, f"{name} at {thr}: {f} = {got[f]!r}, numpy says {want[f]!r}")
        if thr in (0.3, 0.7):
            par = stats(name, thr, PARALLEL)
            check(par == got, f"{name} at {thr}: the parallel plan differs: {par} vs {got}")
        rows = objects(name, thr)
        check(sum(1 for r in rows if r[4] == "tp" and r[0]) == want["tp"]
              and sum(1 for r in rows if r[4] == "fp") == want["fp"]
              and sum(1 for r in rows if r[4] == "fn") == want["fn"],
              f"{name} at {thr}: pb_match_objects' tp/fp/fn differ from numpy's {want['tp']}/{want['fp']}/{want['fn']}")
        ti = {int(k): i for i, k in enumerate(truth.ta)}
        pi = {int(k): j for j, k in enumerate(truth.pb)}
        bad = []
        for in_a, ident, mate, iou, status in rows:
            if status == "tp":
                t, p = (ti[ident], pi[mate]) if in_a else (ti[mate], pi[ident])
                if not (truth.iou[t, p] >= thr and close(iou, truth.iou[t, p])):
                    bad.append((in_a, ident, mate, iou))
            else:
                best = truth.iou[ti[ident], :].max(initial=0.0) if in_a else truth.iou[:, pi[ident]].max(initial=0.0)
                if not close(iou, best):
                    bad.append((in_a, ident, status, iou, best))
        check(not bad, f"{name} at {thr}: pb_match_objects rows against numpy's IoUs: {bad[:5]}")
        if thr > 0.5:
            ours = {(ti[r[1]], pi[r[2]]) for r in rows if r[4] == "tp" and r[0]}
            check(ours == {(int(t), int(p)) for t, p in pairs},
                  f"{name} at {thr}: matched pairs differ from numpy's (unique above 0.5)")


def compare_keyed(cases):
    """The keyed pb_match_stats over every case at once, keyed by case,
    against the truth's parts summed over the cases."""
    truths = [Truth(x, y) for _, x, y in cases]
    psql("DROP TABLE IF EXISTS pb_metrics_keyed;\n"
         "CREATE TABLE pb_metrics_keyed (k bigint, in_a boolean, geom geometry);\n" +
         "".join(f"INSERT INTO pb_metrics_keyed SELECT {k}, true, geom FROM {n}_a "
                 f"UNION ALL SELECT {k}, false, geom FROM {n}_b;\n"
                 for k, (n, _, _) in enumerate(cases)))
    aji = [t.aji_sums()[:2] for t in truths]
    aji_plus = [t.aji_plus_sums() for t in truths]
    for thr in (0.3, 0.5):
        per = [t.stardist(thr)[0] for t in truths]
        tp, fp, fn = (sum(s[f] for s in per) for f in ("tp", "fp", "fn"))
        total = sum(s["total"] for s in per)
        want = dict(n_true=sum(s["n_true"] for s in per), n_pred=sum(s["n_pred"] for s in per),
                    tp=tp, fp=fp, fn=fn, f1=2 * tp / (2 * tp + fp + fn),
                    mean_matched_score=total / tp, panoptic_quality=total / (tp + fp / 2 + fn / 2),
                    aji=sum(c for c, _ in aji) / sum(u for _, u in aji),
                    aji_plus=sum(c for c, _ in aji_plus) / sum(u for _, u in aji_plus),
                    dice_pixel=2 * sum(t.dice_inter for t in truths) / sum(t.dice_area for t in truths))
        rows = psql(f"SELECT {', '.join(want)} FROM (SELECT (pb_match_stats(geom, in_a, {thr}, k)).* "
                    "FROM pb_metrics_keyed) s;\n")
        for f, v in zip(want, rows[0]):
            got = int(v) if f in COUNTS else float(v)
            ok = got == want[f] if f in COUNTS else close(got, want[f])
            check(ok, f"keyed over {len(cases)} cases at {thr}: {f} = {got!r}, numpy's sums say {want[f]!r}")
    print(f"keyed: {len(cases)} cases in one table, at 0.3 and 0.5")


def perturbed(labels, seed):
    """A second segmentation of the same objects: shifted by a pixel, every
    7th object merged into the previous, every 5th split in two (left and
    right of its centre), every 11th dropped."""
    rng = np.random.default_rng(seed)
    out = np.roll(labels, (1, 1), axis=(0, 1)).astype(np.uint32)
    out[0, :] = 0
    out[:, 0] = 0
    top = int(out.max())
    for k in np.unique(out[out > 0]):
        where = out == k
        if k % 11 == 0:
            out[where] = 0
        elif k % 7 == 0 and k > 1:
            out[where] = k - 1
        elif k % 5 == 0:
            cols = np.nonzero(where)[1]
            top += 1
            out[where & (np.arange(out.shape[1])[None, :] > cols.mean() + rng.uniform(-1, 1))] = top
    return out


def halves(labels, shift):
    """Every object cut in two halves of (nearly) equal pixel counts, left and
    right, then shifted by shift (rows, columns): exact halves tie in IoU
    (AJI's argmax, stardist's choice at 0.5), and a shift makes matchings
    below 0.5 where taking the largest IoU first falls short."""
    out = np.zeros_like(labels)
    top = int(labels.max())
    for k in np.unique(labels[labels > 0]):
        r, c = np.nonzero(labels == k)
        order = np.lexsort((r, c))
        h = len(order) // 2
        top += 1
        out[r[order[:h]], c[order[:h]]] = k
        out[r[order[h:]], c[order[h:]]] = top
    out = np.roll(out, shift, axis=(0, 1))
    out[:shift[0], :] = 0
    out[:, :shift[1]] = 0
    return out


def main():
    a, b = fixtures.ihc_segmentations(512)
    cases = [("pb_metrics_ihc", a, b)]
    for seed in (3, 8):
        g = fixtures.generated_labels(256, seed)
        cases.append((f"pb_metrics_gen{seed}", g, perturbed(g, seed)))
    g = fixtures.generated_labels(256, 11)
    cases.append(("pb_metrics_halves", g, halves(g, (0, 0))))
    cases.append(("pb_metrics_halves_shifted", g, halves(g, (1, 2))))
    cases.append(("pb_metrics_unrelated", fixtures.generated_labels(256, 4), fixtures.generated_labels(256, 5)))
    psql("SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE;\n")
    try:
        for name, x, y in cases:
            compare(name, x, y)
        compare_keyed(cases)
    finally:
        psql("".join(f"DROP TABLE IF EXISTS {n}_a, {n}_b;\n" for n, _, _ in cases) +
             "DROP TABLE IF EXISTS pb_metrics_keyed;\n")
    return check.summary("metrics")


if __name__ == "__main__":
    sys.exit(main())
