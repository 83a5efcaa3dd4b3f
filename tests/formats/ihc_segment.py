"""Segmentations of a real pathology image: scikit-image's IHC image (which
Debian ships), its hematoxylin channel segmented in ways that disagree as
real algorithms do (touching nuclei, merged blobs, holes).  Needs only
numpy, SciPy and scikit-image (no GDAL), so that the test fixtures
(fixtures.py) and the benchmark data generator (bench/realgen) share it,
also on the GPU machine.
"""
import numpy as np
from scipy import ndimage as ndi
from skimage import color, data, feature, filters, morphology, segmentation


def nuclei_mask(hematoxylin, sigma, threshold_scale, min_size):
    """The nuclei of a hematoxylin channel as a mask: smoothed, above Otsu's
    threshold (times threshold_scale), objects under min_size px removed."""
    smooth = filters.gaussian(hematoxylin, sigma=sigma)
    mask = smooth > filters.threshold_otsu(smooth) * threshold_scale
    return morphology.remove_small_objects(mask, min_size)


def segment(hematoxylin, sigma, threshold_scale, min_distance, min_size):
    """Label nuclei of a hematoxylin channel: smoothed Otsu mask, split by a
    watershed of its distance transform from local maxima (the classic
    pipeline, as many labs run it)."""
    mask = nuclei_mask(hematoxylin, sigma, threshold_scale, min_size)
    dist = ndi.distance_transform_edt(mask)
    peaks = feature.peak_local_max(dist, min_distance=min_distance, labels=ndi.label(mask)[0],
                                   exclude_border=False)
    markers = np.zeros(mask.shape, np.int32)
    markers[tuple(peaks.T)] = np.arange(1, len(peaks) + 1)
    labels = segmentation.watershed(-dist, markers, mask=mask)
    return labels.astype(np.uint32)


def merged_blobs(hematoxylin, sigma, threshold_scale, min_size):
    """Label nuclei without splitting touching ones: the 4-connected parts of
    the smoothed Otsu mask (threshold and "analyze particles" without a
    watershed), so clusters of nuclei come out as one blob each."""
    return ndi.label(nuclei_mask(hematoxylin, sigma, threshold_scale, min_size))[0].astype(np.uint32)


def ihc_hematoxylin():
    """The hematoxylin channel of scikit-image's IHC image (512 x 512)."""
    return color.rgb2hed(data.immunohistochemistry())[..., 0]


def mirror(labels, size):
    """Mirror a label image to size x size (as slides repeat tissue), each
    copy's labels offset so that every object keeps a label of its own."""
    h, w = labels.shape
    out = np.zeros((size, size), np.uint32)
    step = int(labels.max())
    k = 0
    for r0 in range(0, size, h):
        for c0 in range(0, size, w):
            tile = labels
            if (r0 // h) % 2:
                tile = tile[::-1, :]
            if (c0 // w) % 2:
                tile = tile[:, ::-1]
            part = tile[:min(h, size - r0), :min(w, size - c0)]
            out[r0:r0 + part.shape[0], c0:c0 + part.shape[1]] = np.where(part > 0, part + k * step, 0)
            k += 1
    return out


def ihc_segmentations(size=512):
    """Two label images (uint32, 0 = background) of scikit-image's real IHC
    image: a = a fine segmentation, b = a coarser one (more merged blobs,
    lower threshold), mirrored to size x size."""
    h = ihc_hematoxylin()
    a = segment(h, sigma=1.0, threshold_scale=1.0, min_distance=5, min_size=20)
    b = segment(h, sigma=2.0, threshold_scale=0.9, min_distance=9, min_size=30)
    if size != a.shape[0]:
        a, b = mirror(a, size), mirror(b, size)
    return a, b


def ihc_benchmark_segmentations():
    """The two segmentations of the IHC image that bench/realgen tiles: a =
    ihc_segmentations()'s fine one, b = merged_blobs of a mask a little
    smoother than a's (sigma 1.5 px), whose clusters of touching nuclei make
    the heavy tail of real sets (hundreds of vertices, boxes of tens of
    thousands of px over dozens of a's nuclei) that ihc_segmentations()'s
    coarse watershed, which still splits them, lacks."""
    h = ihc_hematoxylin()
    a = segment(h, sigma=1.0, threshold_scale=1.0, min_distance=5, min_size=20)
    return a, merged_blobs(h, sigma=1.5, threshold_scale=1.0, min_size=30)
