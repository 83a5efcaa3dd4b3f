#!/usr/bin/python3
"""Write what users' tools write, from a real image, for scripts/demo --real.

scikit-image's IHC image (Debian ships it), mirrored to SIZE x SIZE pixels,
segmented two ways (tests/formats/fixtures.py: a finer and a coarser
hematoxylin watershed, as two algorithms disagree), written as:
  reference.geojson  segmentation a as QuPath exports cells (GeoJSON);
  hovernet.json      segmentation b as HoVer-Net's instance json;
  labels.tif         segmentation b as StarDist / Cellpose save labels (TIFF).

  scripts/demo_files.py OUTDIR [SIZE]      (default SIZE 2048)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "formats"))
import fixtures  # noqa: E402


def main():
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
    os.makedirs(out, exist_ok=True)
    a, b = fixtures.ihc_segmentations(size)
    n = len(fixtures.write_qupath_geojson(os.path.join(out, "reference.geojson"), a))
    m = len(fixtures.write_hovernet_json(os.path.join(out, "hovernet.json"), b))
    fixtures.write_tiff(os.path.join(out, "labels.tif"), b, dtype="uint32", compress="DEFLATE")
    print(f"{size}x{size} px: {n} reference cells (QuPath GeoJSON), {m} nuclei (HoVer-Net json), "
          f"{len(set(b[b > 0].ravel()))} labels (TIFF)")


if __name__ == "__main__":
    main()
