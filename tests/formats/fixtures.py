"""Test data for the file readers and the instance metrics, written the way
the tools users have write it, and the independent truth to check against.

Segmentations come from a real pathology image (scikit-image's IHC image,
which Debian ships), segmented two ways so that they disagree as two real
algorithms do (touching nuclei, merged blobs, holes; ihc_segment.py, which
bench/realgen shares); generated label images
add shapes the real ones may lack (several parts per label, nested objects).
Files are written with GDAL (TIFF, PNG; truth polygons by GDAL's Polygonize)
and OpenCV (HoVer-Net's contours), never with pixelbox's own code.  Without
GDAL (the GPU machine) the label images can still be made, and written as
PNG with OpenCV (write_png_cv2).

Coordinates are image coordinates: x = column, y = row (y down), pixel (c, r)
is the square [c, c + 1] x [r, r + 1] (QuPath's and the label image's view).
"""
import json
import uuid

import numpy as np
from scipy import ndimage as ndi
from skimage import segmentation

from ihc_segment import ihc_segmentations  # noqa: F401  (the fixtures' real image)

try:        # GDAL writes the files and the truth; the GPU machine has none
    from osgeo import gdal, ogr
    gdal.UseExceptions()
    ogr.UseExceptions()
except ImportError:
    gdal = ogr = None

CLASSES = ("Tumor", "Stroma", "Immune cells")
CLASS_COLOURS = {"Tumor": [200, 0, 0], "Stroma": [150, 200, 150], "Immune cells": [160, 90, 160]}


def generated_labels(size=256, seed=0):
    """A uint32 label image of random blobs: ellipses painted over each other
    (touching and occluded objects), some rings (holes, some with an object
    inside), some labels of two separate parts, a few big merged blobs."""
    rng = np.random.default_rng(seed)
    out = np.zeros((size, size), np.uint32)
    rr, cc = np.mgrid[0:size, 0:size]
    n = max(8, size * size // 600)
    label = 0
    for i in range(n):
        big = rng.random() < 0.05
        ry, rx = rng.uniform(3, 9, 2) * (4 if big else 1)
        cy, cx = rng.uniform(0, size, 2)
        theta = rng.uniform(0, np.pi)
        y, x = rr - cy, cc - cx
        u = (x * np.cos(theta) + y * np.sin(theta)) / rx
        v = (-x * np.sin(theta) + y * np.cos(theta)) / ry
        d = u * u + v * v
        shape = d <= 1
        if rng.random() < 0.1:
            shape &= d >= 0.3            # a ring: a hole
        if rng.random() < 0.1 and label > 0:
            out[shape] = label           # a second part of the previous label
            continue
        label += 1
        out[shape] = label
        if rng.random() < 0.05:
            out[d < 0.1] = label + 1     # an object inside the ring's hole
            label += 1
    return out


def _gdal_type(dtype):
    """The GDAL pixel type of a numpy unsigned dtype name."""
    return {"uint8": gdal.GDT_Byte, "uint16": gdal.GDT_UInt16, "uint32": gdal.GDT_UInt32}[dtype]


def _check_fits(labels, dtype):
    """Refuse to write labels that the pixel type would wrap."""
    if labels.max() > np.iinfo(dtype).max:
        raise ValueError(f"labels up to {labels.max()} do not fit {dtype}")


def write_tiff(path, labels, dtype="uint16", bigtiff=False, tiled=False, compress=None):
    """Write a single-band label TIFF (no georeference, as StarDist and
    Cellpose write them) with GDAL."""
    _check_fits(labels, dtype)
    opts = ["BIGTIFF=YES" if bigtiff else "BIGTIFF=NO"]
    if tiled:
        opts += ["TILED=YES", "BLOCKXSIZE=64", "BLOCKYSIZE=64"]
    if compress:
        opts.append("COMPRESS=" + compress)
    h, w = labels.shape
    ds = gdal.GetDriverByName("GTiff").Create(path, w, h, 1, _gdal_type(dtype), opts)
    ds.GetRasterBand(1).WriteArray(labels.astype(dtype))
    ds = None


def write_png(path, labels, dtype="uint16"):
    """Write a grayscale label PNG (8 or 16 bits) with GDAL."""
    _check_fits(labels, dtype)
    h, w = labels.shape
    mem = gdal.GetDriverByName("MEM").Create("", w, h, 1, _gdal_type(dtype))
    mem.GetRasterBand(1).WriteArray(labels.astype(dtype))
    gdal.GetDriverByName("PNG").CreateCopy(path, mem)


def write_png_cv2(path, labels):
    """Write a 16-bit grayscale label PNG with OpenCV (where GDAL is missing)."""
    import cv2

    _check_fits(labels, "uint16")
    if not cv2.imwrite(path, labels.astype(np.uint16)):
        raise OSError("OpenCV could not write " + path)


def _polygonize(labels):
    """{label: [ogr polygon, ...]}: GDAL's Polygonize of every label's
    4-connected parts along pixel edges, in image coordinates."""
    h, w = labels.shape
    mem = gdal.GetDriverByName("MEM").Create("", w, h, 1, gdal.GDT_UInt32)
    mem.SetGeoTransform((0, 1, 0, 0, 0, 1))     # x = column, y = row (y down)
    band = mem.GetRasterBand(1)
    band.WriteArray(labels.astype(np.uint32))
    mask = gdal.GetDriverByName("MEM").Create("", w, h, 1, gdal.GDT_Byte)
    mask.GetRasterBand(1).WriteArray((labels > 0).astype(np.uint8))
    source = ogr.GetDriverByName("Memory").CreateDataSource("")   # owns the layer: keep it
    layer = source.CreateLayer("p")
    layer.CreateField(ogr.FieldDefn("label", ogr.OFTInteger64))
    gdal.Polygonize(band, mask.GetRasterBand(1), layer, 0, [])
    parts = {}
    for f in layer:
        parts.setdefault(int(f.GetField(0)), []).append(f.GetGeometryRef().Clone())
    del layer, source
    return parts


def _as_one(polys):
    """One geometry of a label's parts: the polygon, or a multipolygon."""
    if len(polys) == 1:
        return polys[0]
    multi = ogr.Geometry(ogr.wkbMultiPolygon)
    for p in polys:
        multi.AddGeometry(p)
    return multi


def label_polygons(labels):
    """{label: WKT} of every label of a label image, along pixel edges in
    image coordinates (GDAL Polygonize; a label of several parts is a
    MULTIPOLYGON of them)."""
    if labels.max() > np.iinfo(np.int32).max:
        raise ValueError("GDAL's Polygonize reads labels as 32-bit integers")
    return {k: _as_one(v).ExportToWkt() for k, v in sorted(_polygonize(labels).items())}


def _feature_id(label):
    """A stable UUID per label, as QuPath gives every object one."""
    return str(uuid.uuid5(uuid.NAMESPACE_OID, "pixelbox-%d" % label))


def write_qupath_geojson(path, labels, bare_array=False, classes=None):
    """Write QuPath-style cells: a FeatureCollection (or a bare array, as
    QuPath's "export as array" does) of features with an id, geometry (the
    cell: the nucleus grown by 2 px without overlapping its neighbours),
    nucleusGeometry (the nucleus), and properties objectType, classification
    {name, color} and measurements.  classes maps label -> class name (by
    default one of CLASSES by label).  Returns the features written."""
    nuclei = _polygonize(labels)
    cells = _polygonize(segmentation.expand_labels(labels, distance=2))
    counts = np.bincount(labels.ravel())
    feats = []
    for lab in sorted(nuclei):
        cls = (classes or {}).get(lab, CLASSES[lab % len(CLASSES)])
        feats.append({
            "type": "Feature",
            "id": _feature_id(lab),
            "geometry": json.loads(_as_one(cells[lab]).ExportToJson()),
            "nucleusGeometry": json.loads(_as_one(nuclei[lab]).ExportToJson()),
            "properties": {
                "objectType": "cell",
                "classification": {"name": cls, "color": CLASS_COLOURS.get(cls, [0, 0, 0])},
                "measurements": {"Nucleus: Area px": int(counts[lab]), "Label": int(lab)},
            },
        })
    doc = feats if bare_array else {"type": "FeatureCollection", "features": feats}
    with open(path, "w") as f:
        json.dump(doc, f)
    return feats


def write_hovernet_json(path, labels, types=None):
    """Write HoVer-Net's instance json ({"mag", "nuc": {id: {bbox, centroid,
    contour, type_prob, type}}}) the way its post-processing makes it: per
    instance, the first contour OpenCV finds in the instance's box
    (RETR_TREE, CHAIN_APPROX_SIMPLE: vertices at pixel centres, x = column,
    y = row), instances whose contour has < 3 points skipped.  Returns
    {nucleus id: contour (n x 2 int array)}."""
    import cv2

    nuc, contours = {}, {}
    for lab, sl in enumerate(ndi.find_objects(labels), start=1):
        if sl is None:
            continue
        crop = (labels[sl] == lab).astype(np.uint8)
        found = cv2.findContours(crop, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)[0]
        contour = np.squeeze(found[0].astype(np.int32))
        if contour.ndim != 2 or contour.shape[0] < 3:
            continue
        contour[:, 0] += sl[1].start
        contour[:, 1] += sl[0].start
        m = cv2.moments(crop)
        centroid = [m["m10"] / m["m00"] + sl[1].start, m["m01"] / m["m00"] + sl[0].start]
        t = int((types or {}).get(lab, lab % 5 + 1))
        nuc[str(lab)] = {
            "bbox": [[sl[0].start, sl[1].start], [sl[0].stop, sl[1].stop]],
            "centroid": centroid,
            "contour": contour.tolist(),
            "type_prob": round(0.5 + (lab % 50) / 100.0, 4),
            "type": t,
        }
        contours[lab] = contour
    with open(path, "w") as f:
        json.dump({"mag": 40, "nuc": nuc}, f)
    return contours
