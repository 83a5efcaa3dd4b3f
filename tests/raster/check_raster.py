#!/usr/bin/python3
"""Raster operations of pixelbox against independent truth, through SQL.

pb_reconstruct against scikit-image's reconstruction, pb_fill_holes against
SciPy's binary_fill_holes and scikit-image's gray-scale hole filling, and
pb_distance_transform against SciPy's distance_transform_edt, on the real IHC
image scikit-image ships and on generated images, for both connectivities and
every pixel type, bit for bit.  Every case also runs with one CPU thread and
with several, and on the GPU when the server has one (pixelbox.device = gpu):
the answers must be identical.  With postgis_raster installed, the raster-typed
functions of pixelbox_raster must equal the raster WKB ones and keep the
georeference and SRID.

Talks to the server with psql (PGHOST/PGPORT/PGUSER/PGDATABASE from the
environment).  Prints one line per failed check and a summary line
"raster checks: N passed, M failed"; exits non-zero on failure.
"""
import os
import struct
import subprocess
import sys

import numpy as np
from scipy import ndimage
from skimage import data, morphology

WKB_TYPES = {"1BB": (0, "u1"), "8BUI": (4, "u1"), "16BUI": (6, "<u2"), "32BF": (10, "<f4"),
             "32BSI": (7, "<i4")}
CODE_TO_TYPE = {code: (name, dt) for name, (code, dt) in WKB_TYPES.items()}
FOOTPRINT = {4: ndimage.generate_binary_structure(2, 1), 8: np.ones((3, 3), bool)}

passed = 0
failed = 0


def to_wkb(img, pixtype, nodata=None, geo=(1.0, -1.0, 100.0, 200.0, 0.0, 0.0), srid=0):
    """One-band raster WKB (NDR) of a 2-D array."""
    code, dt = WKB_TYPES[pixtype]
    h, w = img.shape
    out = struct.pack("<BHH6diHH", 1, 0, 1, *geo, srid, w, h)
    flags = code | (0x40 if nodata is not None else 0)
    out += struct.pack("<B", flags) + np.array([nodata or 0], dtype=dt).tobytes()
    return out + np.ascontiguousarray(img, dtype=dt).tobytes()


def from_wkb(data):
    """(header dict, list of (array, has_nodata, nodata)) of a raster WKB."""
    assert data[0] == 1, "expected NDR"
    _, _, nb, sx, sy, ux, uy, kx, ky, srid, w, h = struct.unpack_from("<BHH6diHH", data, 0)
    pos = 61
    bands = []
    for _ in range(nb):
        flags = data[pos]
        pos += 1
        name, dt = CODE_TO_TYPE[flags & 0x0F]
        size = np.dtype(dt).itemsize
        nodata = np.frombuffer(data, dt, 1, pos)[0]
        pos += size
        arr = np.frombuffer(data, dt, w * h, pos).reshape(h, w)
        pos += size * w * h
        bands.append((arr, bool(flags & 0x40), nodata))
    assert pos == len(data)
    return dict(geo=(sx, sy, ux, uy, kx, ky), srid=srid, w=w, h=h), bands


def sql(query, settings=()):
    """Run one query (after SET commands) and return its single text value."""
    text = "".join(f"SET {s};\n" for s in settings) + query + ";\n"
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
                       input=text, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return r.stdout.strip()


def hexarg(b):
    return f"decode('{b.hex()}', 'hex')"


def call(expr, settings=()):
    """Evaluate a bytea SQL expression; the raster WKB it returns."""
    return bytes.fromhex(sql(f"SELECT encode({expr}, 'hex')", settings))


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")


def gpu_present():
    try:
        subprocess.run(["nvidia-smi", "-L"], capture_output=True, check=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False


DEVICES = [("pixelbox.device = cpu", "pixelbox.cpu_threads = 1"),
           ("pixelbox.device = cpu", "pixelbox.cpu_threads = 4")]
if gpu_present():
    DEVICES.append(("pixelbox.device = gpu", "pixelbox.gpu_memory = '4GB'"))


def run_all_devices(expr, what):
    """The result of expr on every device setting; checks they are identical."""
    results = [call(expr, s) for s in DEVICES]
    for s, r in zip(DEVICES[1:], results[1:]):
        check(r == results[0], f"{what}: {', '.join(s)} differs from {', '.join(DEVICES[0])}")
    return results[0]


def same(ours, truth, what):
    """Bit-for-bit equality (NaN-free arrays), with a count of the differences."""
    ok = ours.shape == truth.shape and np.array_equal(ours, truth)
    if not ok and ours.shape == truth.shape:
        what += f" ({np.count_nonzero(ours != truth)} pixels differ)"
    check(ok, what)


def ihc_gray():
    """The IHC image's hematoxylin-ish channel (blue minus red stretched) as uint8."""
    rgb = data.immunohistochemistry()[..., :3].astype(np.int32)
    return np.clip(255 - rgb[..., 0], 0, 255).astype(np.uint8)


def smooth_image(rng, shape, dtype):
    """Smooth random relief with peaks and pits, in the value range of dtype."""
    f = ndimage.gaussian_filter(rng.random(shape), 3)
    f = (f - f.min()) / (np.ptp(f) or 1)
    if dtype == np.float32:
        return (f * 1000 - 300).astype(np.float32)
    return (f * np.iinfo(dtype).max).astype(dtype)


def h_markers(mask, h):
    """Markers at distance h below (dilation) and above (erosion) the mask."""
    wide = mask.astype(np.float64)
    if mask.dtype == np.float32:
        low, top = -np.inf, np.inf
    else:
        low, top = 0, np.iinfo(mask.dtype).max
    return {"dilation": np.clip(wide - h, low, None).astype(mask.dtype),
            "erosion": np.clip(wide + h, None, top).astype(mask.dtype)}


def check_reconstruct(mask, pixtype, markers, name):
    """Reconstruction by dilation and by erosion, both connectivities."""
    for method, marker in markers.items():
        for conn in (4, 8):
            truth = morphology.reconstruction(marker, mask, method=method,
                                              footprint=FOOTPRINT[conn]).astype(mask.dtype)
            expr = (f"pb_reconstruct({hexarg(to_wkb(marker, pixtype))}, "
                    f"{hexarg(to_wkb(mask, pixtype))}, {conn}, '{method}')")
            _, bands = from_wkb(run_all_devices(expr, f"{name} {method} {conn}"))
            same(bands[0][0], truth, f"pb_reconstruct {name} {pixtype} {method} connectivity {conn}")


def check_fill_holes(img, pixtype, name):
    """Gray-scale hole filling (skimage recipe) and, for binary images, SciPy's."""
    for conn in (4, 8):
        seed = img.copy()
        top = 1 if pixtype == "1BB" else (np.inf if img.dtype == np.float32 else np.iinfo(img.dtype).max)
        seed[1:-1, 1:-1] = top
        truth = morphology.reconstruction(seed, img, method="erosion",
                                          footprint=FOOTPRINT[conn]).astype(img.dtype)
        _, bands = from_wkb(run_all_devices(
            f"pb_fill_holes({hexarg(to_wkb(img, pixtype))}, {conn})", f"fill {name}"))
        same(bands[0][0], truth, f"pb_fill_holes {name} {pixtype} connectivity {conn}")
        if pixtype == "1BB":
            # binary_fill_holes floods the background with the dual structure
            structure = FOOTPRINT[conn]
            sc = ndimage.binary_fill_holes(img.astype(bool), structure=structure)
            same(bands[0][0].astype(bool), sc, f"pb_fill_holes {name} vs binary_fill_holes {conn}")


def check_distance(fg, pixtype, name, sampling=None):
    """pb_distance_transform against distance_transform_edt, with the index bands."""
    spacing = "NULL" if sampling is None else f"ARRAY[{sampling[0]}, {sampling[1]}]::float8[]"
    expr = f"pb_distance_transform({hexarg(to_wkb(fg, pixtype))}, 1, {spacing}, true)"
    _, bands = from_wkb(run_all_devices(expr, f"edt {name}"))
    dist, cols, rows = bands[0][0], bands[1][0], bands[2][0]
    truth = ndimage.distance_transform_edt(fg != 0, sampling=sampling).astype(np.float32)
    same(dist, truth, f"pb_distance_transform {name} {pixtype} sampling {sampling}")
    if (fg == 0).any():
        yy, xx = np.indices(fg.shape)
        sy, sx = sampling or (1.0, 1.0)
        dy = (rows.astype(np.float64) - 1 - yy) * sy
        dx = (cols.astype(np.float64) - 1 - xx) * sx
        via_index = np.sqrt(dy * dy + dx * dx).astype(np.float32)
        check(np.array_equal(via_index, truth) and (fg[rows - 1, cols - 1] == 0).all(),
              f"pb_distance_transform {name}: the index bands name a nearest background pixel")


def check_raster_types():
    """pixelbox_raster's raster functions: same pixels, georeference and SRID kept."""
    if sql("SELECT count(*) FROM pg_extension WHERE extname = 'pixelbox_raster'") != "1":
        print("raster-typed functions: skipped (pixelbox_raster is not installed here)")
        return
    rng = np.random.default_rng(7)
    mask = smooth_image(rng, (37, 53), np.uint8)
    marker = (mask // 2).astype(np.uint8)
    geo = (0.5, -0.25, 1000.0, 2000.0, 0.0, 0.0)
    m, k = to_wkb(marker, "8BUI", geo=geo, srid=3857), to_wkb(mask, "8BUI", geo=geo, srid=3857)
    for fn_raster, fn_wkb in (
            (f"pb_reconstruct(ST_RastFromWKB({hexarg(m)}), ST_RastFromWKB({hexarg(k)}))",
             f"pb_reconstruct({hexarg(m)}, {hexarg(k)})"),
            (f"pb_fill_holes(ST_RastFromWKB({hexarg(k)}))", f"pb_fill_holes({hexarg(k)})"),
            (f"pb_distance_transform(ST_RastFromWKB({hexarg(k)}))",
             f"pb_distance_transform({hexarg(k)})")):
        via_raster = call(f"ST_AsWKB({fn_raster})")
        via_wkb = call(fn_wkb)
        check(via_raster == via_wkb, f"raster form equals WKB form: {fn_wkb[:30]}")
        head, _ = from_wkb(via_raster)
        check(head["geo"] == geo and head["srid"] == 3857,
              f"raster form keeps georeference and SRID: {fn_wkb[:30]}")


def main():
    rng = np.random.default_rng(20261121)
    gray = ihc_gray()
    # the real image: h-maxima style (near marker) and a flood from the border
    check_reconstruct(gray, "8BUI", h_markers(gray, 40), "ihc")
    check_fill_holes(gray, "8BUI", "ihc")
    nuclei = (ndimage.gaussian_filter(gray, 2) > 150).astype(np.uint8)
    check_fill_holes(nuclei, "1BB", "ihc nuclei mask")
    check_distance(nuclei, "1BB", "ihc nuclei mask")
    check_distance(nuclei, "8BUI", "ihc nuclei mask", (2.5, 0.5))
    # generated images of every type, odd sizes
    for pixtype, dt, h in (("8BUI", np.uint8, 30), ("16BUI", np.uint16, 9000),
                           ("32BF", np.float32, 125.5)):
        img = smooth_image(rng, (301, 257), dt)
        check_reconstruct(img, pixtype, h_markers(img, h), "generated")
        check_fill_holes(img, pixtype, "generated")
        check_distance((img > np.percentile(img, 40)).astype(dt), pixtype, "generated")
    blobs = (rng.random((199, 233)) < 0.55).astype(np.uint8)
    blobs = ndimage.binary_opening(blobs, iterations=1).astype(np.uint8)
    seeds = rng.random(blobs.shape) < 0.002
    check_reconstruct(blobs, "1BB", {"dilation": (blobs & seeds).astype(np.uint8),
                                     "erosion": (blobs | seeds).astype(np.uint8)},
                      "generated binary")
    check_fill_holes(blobs, "1BB", "generated binary")
    check_distance(blobs, "1BB", "sparse background", (0.3, 1.7))
    check_raster_types()
    print(f"raster checks: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
