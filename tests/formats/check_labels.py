#!/usr/bin/python3
"""Label images read by pixelbox against independent truth, through SQL.

Segmentations of scikit-image's real IHC image (fixtures.ihc_segmentations)
and generated label images (touching blobs, holes, nested objects, labels of
several parts) are written with GDAL as the tools write them: uint8, uint16
and uint32 TIFF (plain, BigTIFF, tiled, compressed) and 8/16-bit PNG.  Every
label pb_read_labels returns must be ST_Equals to GDAL's Polygonize of it
(fixtures.label_polygons), valid, with numpy's pixel count, and no label may
be missing or extra; labels above 2^24 (up to 2^32 - 1) come back exact.
pb_labels_to_polygons on the same labels as a raster WKB agrees, and
pb_compare_files on two label images equals pb_compare_tables on GDAL's
polygons of them.

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment; the database needs pixelbox).  Prints one line per failed check
and "label checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import shutil
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402
from sqlcheck import Checks, psql  # noqa: E402

check = Checks()


def truth_rows(labels):
    """COPY rows (label, pixels, GDAL's WKT) of a label image."""
    counts = np.bincount(labels.ravel()) if labels.max() < 1 << 26 else None
    rows = []
    for label, wkt in fixtures.label_polygons(labels).items():
        n = counts[label] if counts is not None else int(np.count_nonzero(labels == label))
        rows.append(f"{label}\t{n}\t{wkt}")
    return "\n".join(rows)


def compare_sql(source):
    """The checks of one reader call against the truth table."""
    return f"""
SELECT count(*) FILTER (WHERE r.label IS NULL) AS missing,
       count(*) FILTER (WHERE t.label IS NULL) AS extra,
       count(*) FILTER (WHERE r.label IS NOT NULL AND t.label IS NOT NULL
                        AND NOT ST_Equals(r.geom, ST_GeomFromText(t.wkt))) AS unequal,
       count(*) FILTER (WHERE r.pixels <> t.pixels) AS bad_pixels,
       count(*) FILTER (WHERE NOT ST_IsValid(r.geom)) AS invalid,
       count(*) FILTER (WHERE r.label IS NOT NULL AND t.label IS NOT NULL) AS matched
FROM ({source}) r FULL JOIN truth t USING (label);
"""


def check_reader(what, labels, source):
    """Compare one reader call (SQL returning label, pixels, geom) with GDAL."""
    script = ("CREATE TEMP TABLE truth (label bigint, pixels bigint, wkt text);\n"
              "COPY truth FROM STDIN;\n" + truth_rows(labels) + "\n\\.\n" + compare_sql(source))
    out = psql(script)
    missing, extra, unequal, bad_pixels, invalid, matched = map(int, out.split("|"))
    n = len(np.unique(labels)) - (1 if (labels == 0).any() else 0)
    check(missing == 0 and extra == 0, f"{what}: {missing} labels missing, {extra} extra")
    check(unequal == 0, f"{what}: {unequal} of {matched} geometries differ from GDAL's")
    check(bad_pixels == 0, f"{what}: {bad_pixels} pixel counts differ from numpy's")
    check(invalid == 0, f"{what}: {invalid} invalid geometries")
    check(matched == n, f"{what}: {matched} labels matched, the image has {n}")


def raster_wkb(labels, pixtype):
    """One-band raster WKB (NDR, scale (1, -1) as GDAL loads a TIFF)."""
    code, dt = {"8BUI": (4, "u1"), "16BUI": (6, "<u2"), "32BUI": (8, "<u4")}[pixtype]
    h, w = labels.shape
    out = struct.pack("<BHH6diHH", 1, 0, 1, 1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0, w, h)
    out += struct.pack("<B", code) + np.zeros(1, dt).tobytes()
    return out + np.ascontiguousarray(labels, dtype=dt).tobytes()


def main():
    tmp = tempfile.mkdtemp(prefix="pb_check_labels_")
    os.chmod(tmp, 0o755)
    try:
        a, b = fixtures.ihc_segmentations(512)
        gen = [fixtures.generated_labels(256, seed) for seed in (1, 2, 3)]
        cases = [
            ("IHC a, uint16 TIFF", a, "tif", dict(dtype="uint16")),
            ("IHC b, uint32 BigTIFF tiled deflate", b, "tif",
             dict(dtype="uint32", bigtiff=True, tiled=True, compress="DEFLATE")),
            ("IHC a, uint16 PNG", a, "png", dict(dtype="uint16")),
            ("IHC b, uint32 LZW TIFF", b, "tif", dict(dtype="uint32", compress="LZW")),
        ]
        for k, g in enumerate(gen):
            small = np.where(g > 0, (g - 1) % 255 + 1, 0).astype(np.uint32)
            cases += [
                (f"generated {k}, uint8 TIFF (labels mod 255)", small, "tif", dict(dtype="uint8")),
                (f"generated {k}, uint8 PNG (labels mod 255)", small, "png", dict(dtype="uint8")),
                (f"generated {k}, uint16 tiled TIFF", g, "tif", dict(dtype="uint16", tiled=True)),
                (f"generated {k}, uint32 labels above 2^24, packbits TIFF",
                 np.where(g > 0, g + (1 << 24) + 1, 0).astype(np.uint32), "tif",
                 dict(dtype="uint32", compress="PACKBITS")),
            ]
        paths = []
        for i, (what, labels, ext, opts) in enumerate(cases):
            path = os.path.join(tmp, f"case{i}.{ext}")
            if ext == "tif":
                fixtures.write_tiff(path, labels, **opts)
            else:
                fixtures.write_png(path, labels, **opts)
            os.chmod(path, 0o644)
            paths.append(path)
            check_reader(what, labels, f"SELECT * FROM pb_read_labels('{path}')")
        # the raster form agrees on the same labels (pixel space: y down)
        for what, labels, pixtype in (("IHC a as a 16BUI raster", a, "16BUI"),
                                      ("generated 0 as a 32BUI raster", gen[0], "32BUI")):
            wkb = raster_wkb(labels, pixtype).hex()
            check_reader(what, labels,
                         f"SELECT * FROM pb_labels_to_polygons(decode('{wkb}', 'hex'))")
        # labels up to 2^32 - 1: exact label values and pixel counts (GDAL reads int32)
        big = np.where(gen[1] > 0, np.uint64(0xFFFFFFFF) - gen[1].astype(np.uint64), 0).astype(np.uint32)
        path = os.path.join(tmp, "big.tif")
        fixtures.write_tiff(path, big, dtype="uint32")
        os.chmod(path, 0o644)
        labels, counts = np.unique(big[big > 0], return_counts=True)
        out = psql(f"SELECT label, pixels, ST_IsValid(geom), ST_Area(geom) FROM pb_read_labels('{path}')")
        rows = [r.split("|") for r in out.splitlines()]
        got = [(int(r[0]), int(r[1])) for r in rows]
        check(got == [(int(x), int(c)) for x, c in zip(labels, counts)],
              "labels near 2^32: labels or pixel counts differ from numpy's")
        check(all(r[2] == "t" and float(r[3]) == int(r[1]) for r in rows),
              "labels near 2^32: invalid geometries or areas unlike pixel counts")
        check(int(labels.max()) == 0xFFFFFFFF - 1 and got[-1][0] == int(labels.max()),
              "labels near 2^32: the largest label is exact")
        # pb_compare_files on two label images = pb_compare_tables on GDAL's polygons
        ta, tb = truth_rows(a), truth_rows(b)
        out = psql("CREATE TEMP TABLE ta (label bigint, pixels bigint, wkt text);\n"
                   "COPY ta FROM STDIN;\n" + ta + "\n\\.\n"
                   "CREATE TEMP TABLE tb (label bigint, pixels bigint, wkt text);\n"
                   "COPY tb FROM STDIN;\n" + tb + "\n\\.\n"
                   "CREATE TEMP TABLE ga AS SELECT ST_GeomFromText(wkt) AS geom FROM ta;\n"
                   "CREATE TEMP TABLE gb AS SELECT ST_GeomFromText(wkt) AS geom FROM tb;\n"
                   f"SELECT f IS NOT DISTINCT FROM t, (f).pairs FROM "
                   f"pb_compare_files(ARRAY['{paths[0]}'], ARRAY['{paths[1]}']) f, "
                   f"pb_compare_tables('ga', 'geom', 'gb', 'geom') t;")
        same, pairs = out.split("|")
        check(same == "t" and int(pairs) > 0,
              f"pb_compare_files on label images differs from pb_compare_tables on GDAL's polygons ({pairs} pairs)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.summary("label")


if __name__ == "__main__":
    sys.exit(main())
