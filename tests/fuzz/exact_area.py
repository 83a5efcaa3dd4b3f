"""The exact area of the intersection of two polygonal geometries when one
of them is a single convex polygon, in rational arithmetic (fractions), from
their EWKB: an arbiter for the pairs where pixelbox and PostGIS disagree.

Each ring of the other geometry is clipped by the convex polygon
(Sutherland-Hodgman, exact) and its clipped shoelace area counted with the
ring's role: + for shells, - for holes (valid polygons).
"""
import struct
from fractions import Fraction


def _rings(wkb, pos=0):
    """The polygons of an EWKB value as lists of rings of (x, y) doubles; and the end."""
    order = "<" if wkb[pos] == 1 else ">"
    (typ,) = struct.unpack_from(order + "I", wkb, pos + 1)
    pos += 5
    if typ & 0x20000000:
        pos += 4
    dims = 2 + bool(typ & 0x80000000) + bool(typ & 0x40000000)
    typ &= 0x0FFFFFFF
    (count,) = struct.unpack_from(order + "I", wkb, pos)
    pos += 4
    if typ == 3:
        rings = []
        for _ in range(count):
            (n,) = struct.unpack_from(order + "I", wkb, pos)
            pos += 4
            pts = [struct.unpack_from(order + "dd", wkb, pos + 8 * dims * i) for i in range(n)]
            pos += 8 * dims * n
            rings.append(pts)
        return [rings], pos
    if typ in (6, 7):
        polys = []
        for _ in range(count):
            sub, pos = _rings(wkb, pos)
            polys += sub
        return polys, pos
    raise ValueError("not polygonal: type %d" % typ)


def _area2(pts):
    """Twice the signed shoelace area of a ring."""
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]))


def _exact(ring):
    """A ring as exact rationals, without its closing point."""
    pts = [(Fraction(x), Fraction(y)) for x, y in ring]
    return pts[:-1] if len(pts) > 1 and pts[0] == pts[-1] else pts


def _convex_ccw(ring):
    """The ring counter-clockwise when it is strictly convex, else None."""
    pts = _exact(ring)
    if _area2(pts) < 0:
        pts = pts[::-1]
    n = len(pts)
    for i in range(n):
        (ax, ay), (bx, by), (cx, cy) = pts[i], pts[(i + 1) % n], pts[(i + 2) % n]
        if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) <= 0:
            return None
    return pts


def _clip(pts, clip):
    """Sutherland-Hodgman: the ring pts clipped by the convex ccw ring clip."""
    for (ax, ay), (bx, by) in zip(clip, clip[1:] + clip[:1]):
        side = [(bx - ax) * (y - ay) - (by - ay) * (x - ax) for x, y in pts]
        out = []
        for i, p in enumerate(pts):
            j = (i + 1) % len(pts)
            if side[i] >= 0:
                out.append(p)
            if (side[i] >= 0) != (side[j] >= 0):
                t = side[i] / (side[i] - side[j])
                q = pts[j]
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
        pts = out
        if not pts:
            break
    return pts


def exact_intersection_area(ewkb_a, ewkb_b):
    """The exact area of a ∩ b (a Fraction), or None when neither is one convex ring."""
    pa, _ = _rings(ewkb_a)
    pb, _ = _rings(ewkb_b)
    for convex, other in ((pa, pb), (pb, pa)):
        if len(convex) == 1 and len(convex[0]) == 1:
            clip = _convex_ccw(convex[0][0])
            if clip is not None:
                total = Fraction(0)
                for rings in other:
                    for k, ring in enumerate(rings):
                        part = abs(_area2(_clip(_exact(ring), clip))) / 2
                        total += part if k == 0 else -part
                return total
    return None
