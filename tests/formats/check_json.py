#!/usr/bin/python3
"""The JSON readers of pixelbox against independent truth, through SQL.

QuPath GeoJSON and HoVer-Net JSON of two segmentations of scikit-image's real
IHC image and of generated label images are written by tests/formats/
fixtures.py (GDAL's Polygonize, OpenCV's findContours), then read back:

  - pb_read_geojson (FeatureCollection and bare array; geometry and
    nucleusGeometry): every geometry ST_Equals, and has the area of, PostGIS's
    ST_GeomFromGeoJSON of the same feature read through jsonb; ids, classes,
    objectType and measurements equal the feature's;
  - pb_read_hovernet 'pixel_edges': every polygon has exactly the area of the
    pixels cv2.drawContours fills from the contour (HoVer-Net's evaluation),
    and equals GDAL's polygon of the label where the label is one 4-connected
    part without holes (HoVer-Net's outer contour then covers it all);
  - pb_read_hovernet 'as_written': ST_OrderingEquals the closed contour
    (ST_MakePolygon of its points, in order);
  - pb_compare_files over the files equals pb_compare_sets over the rows.

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment).  Prints one line per failed check and a summary line
"json checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import sys
import tempfile

import cv2
import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402
from sqlcheck import Checks, psql as sql  # noqa: E402

check = Checks()


def lit(s):
    """A SQL string literal."""
    return "'" + s.replace("'", "''") + "'"


def check_geojson(path, what):
    """Every feature's geometry and attributes against PostGIS's own reading."""
    for member in ("geometry", "nucleusGeometry"):
        row = sql(f"""
            SELECT count(*), count(r.geom),
                   count(*) FILTER (WHERE ST_Equals(r.geom, ST_SetSRID(ST_GeomFromGeoJSON(f.value->{lit(member)}), 0))
                                     AND ST_Area(r.geom) = ST_Area(ST_GeomFromGeoJSON(f.value->{lit(member)}))),
                   count(*) FILTER (WHERE r.id = f.value->>'id'
                                     AND r.object_type = f.value->'properties'->>'objectType'
                                     AND r.classification = f.value->'properties'->'classification'->>'name'
                                     AND r.measurements = f.value->'properties'->'measurements')
            FROM (SELECT pg_read_file({lit(path)})::jsonb AS d) doc
            CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(d) = 'array' THEN d ELSE d->'features' END)
                 WITH ORDINALITY f(value, n)
            JOIN pb_read_geojson({lit(path)}, {lit(member)}) r ON f.n = r.feature""")
        n, geoms, same_geom, same_attr = map(int, row.split("|"))
        check(n > 0 and geoms == n, f"{what} {member}: {geoms} of {n} features with a geometry")
        check(same_geom == n, f"{what} {member}: {same_geom} of {n} geometries equal ST_GeomFromGeoJSON's")
        check(same_attr == n, f"{what} {member}: {same_attr} of {n} features with the same attributes")


def one_part_no_holes(mask):
    """Whether a pixel mask is one 4-connected part without holes."""
    _, parts = ndimage.label(mask)
    return parts == 1 and ndimage.binary_fill_holes(mask).sum() == mask.sum()


def check_hovernet(path, labels, contours, what):
    """Pixel-edge polygons against OpenCV's fill and GDAL; as written against the contour."""
    truth = fixtures.label_polygons(labels)
    rows = []
    for lab, c in contours.items():
        filled = np.zeros(labels.shape, np.uint8)
        cv2.drawContours(filled, [c.reshape(-1, 1, 2)], -1, 1, thickness=-1)
        whole = one_part_no_holes(labels == lab)
        ring = ",".join(f"{x} {y}" for x, y in c.tolist()) + f",{c[0][0]} {c[0][1]}"
        rows.append(f"({lit(str(lab))}, {int(filled.sum())}, "
                    f"{lit(truth[lab]) if whole else 'NULL'}, {lit('LINESTRING(' + ring + ')')})")
    row = sql(f"""
        CREATE TEMP TABLE truth (nucleus text, pixels bigint, gdal text, contour text);
        INSERT INTO truth VALUES {','.join(rows)};
        SELECT count(*), count(*) FILTER (WHERE ST_Area(p.geom) = t.pixels),
               count(t.gdal), count(*) FILTER (WHERE ST_Equals(p.geom, ST_GeomFromText(t.gdal))),
               count(*) FILTER (WHERE ST_OrderingEquals(w.geom, ST_MakePolygon(ST_GeomFromText(t.contour))))
        FROM truth t
        JOIN pb_read_hovernet({lit(path)}) p USING (nucleus)
        JOIN pb_read_hovernet({lit(path)}, 'as_written') w USING (nucleus)""")
    n, same_area, whole, same_gdal, same_contour = map(int, row.split("|"))
    check(n == len(contours) and n > 0, f"{what}: {n} nuclei read of {len(contours)} written")
    check(same_area == n, f"{what}: {same_area} of {n} pixel-edge polygons with cv2's filled area")
    check(whole > 0 and same_gdal == whole,
          f"{what}: {same_gdal} of {whole} one-part labels equal to GDAL's polygon")
    check(same_contour == n, f"{what}: {same_contour} of {n} as-written polygons equal to the contour")


def check_compare_files(a, b, what):
    """pb_compare_files over two files equals pb_compare_sets over their rows."""
    read = {".geojson": "pb_read_geojson", ".json": "pb_read_hovernet"}
    ra, rb = (read[os.path.splitext(p)[1]] for p in (a, b))
    row = sql(f"""
        SELECT pb_compare_files(ARRAY[{lit(a)}], ARRAY[{lit(b)}]) IS NOT DISTINCT FROM
               (SELECT pb_compare_sets(geom, in_a) FROM
                  (SELECT geom, true AS in_a FROM {ra}({lit(a)}) UNION ALL
                   SELECT geom, false FROM {rb}({lit(b)})) s),
               (pb_compare_files(ARRAY[{lit(a)}], ARRAY[{lit(b)}])).pairs""")
    same, pairs = row.split("|")
    check(same == "t" and int(pairs) > 0, f"{what}: pb_compare_files differs from the rows ({pairs} pairs)")


def main():
    sql("CREATE EXTENSION IF NOT EXISTS pixelbox CASCADE")
    with tempfile.TemporaryDirectory(prefix="pb_check_json_") as tmp:
        os.chmod(tmp, 0o755)
        ihc_a, ihc_b = fixtures.ihc_segmentations(512)
        cases = [("IHC a", ihc_a), ("IHC b", ihc_b)]
        cases += [(f"generated seed {s}", fixtures.generated_labels(256, s)) for s in (1, 2)]
        for i, (what, labels) in enumerate(cases):
            fc = os.path.join(tmp, f"cells{i}.geojson")
            bare = os.path.join(tmp, f"bare{i}.geojson")
            hov = os.path.join(tmp, f"hovernet{i}.json")
            fixtures.write_qupath_geojson(fc, labels)
            fixtures.write_qupath_geojson(bare, labels, bare_array=True)
            contours = fixtures.write_hovernet_json(hov, labels)
            for p in (fc, bare, hov):
                os.chmod(p, 0o644)
            check_geojson(fc, f"{what} FeatureCollection")
            check_geojson(bare, f"{what} bare array")
            check_hovernet(hov, labels, contours, f"{what} HoVer-Net")
            check_compare_files(fc, hov, f"{what} QuPath against HoVer-Net")
    return check.summary("json")


if __name__ == "__main__":
    sys.exit(main())
