"""Cards the colour masks miss, found by their light border (pure).

A card whose face or back has about the felt's colour (a green back on green felt) is a
poor blob in the not-felt mask, but its white or silver border still shows as a thin ring in
the mask of grey lines (white or grey things, thick or thin, at any brightness). What that
ring encloses is a clean rectangle a little smaller than a card; grown outwards across the
ring it is the card. When the face's own light art touches the border (a court card in the
felt's green with white in its picture), the ring encloses no clean rectangle; the ring and
the art joined to it are then one light shape whose outline is the card's, with holes where
the face shows felt-like colour. (A court card under a glare spot, which neither paper
mask holds, is such a shape too: its paper lit, its art's dark the holes.) Printed betting
boxes are rings too, so a rectangle counts only when it has the size of the cards and its
inside is not felt (an empty box holds felt).
A border broken open (a hand across it) leaves a thin outline with no hole along the sides
of the card: that too is a card when it holds light art of its own.
The light shape round a clean paper blob also tells a card from a band of paper across one
(`around_band`): pips at the sides of a panel can cut its paper into a sideways rectangle.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

_HOLE_FILL = 0.62  # share of its rectangle a ring's hole fills, at the least: light art joined
# to the border bites into it (a court card of the felt's colour: guyenne-classic's queen of
# clubs on blue felt, 0.67), and a printed line the card lies on joins the ring to the line, so
# that the light shape's own outline is no card's (0.7 until the eleventh session)
_MAX_BORDER = 9  # half-size pixels: a ring wider than this is no card border
_NOT_FELT = 0.15  # share of a card's inside that is not felt, at the least (empty boxes: 0)
_SAMPLES = np.linspace(0.15, 0.85, 24)  # where along each side the ring is probed
_GAP = np.ones((3, 3), np.uint8)  # a border broken by a pixel (blur, a worn edge) is closed
_CLEAN = 0.9  # share of its rectangle the hole of a card of the felt's colour fills, at the least
_ART = 0.03  # ... and share of its inside its light art (pips, a picture) covers
_HOLES = 0.05  # share of its rectangle a light shape's holes cover, at the least (not a solid
# ... white card, which the paper mask finds; a court card under glare, its art dark: 13%)


def _ring_width(light: np.ndarray, rect: tuple) -> int:
    """How far the ring around a rectangle reaches outwards (0: not at all, or at most a
    pixel; `_MAX_BORDER`: too far for a card's border)."""
    (cx, cy), (w, h), angle = rect
    for d in range(1, _MAX_BORDER + 1):
        if _lit(light, ((cx, cy), (w + 2 * d, h + 2 * d), angle)) < 0.5:
            return d - 1
    return _MAX_BORDER


def _lit(light: np.ndarray, rect: tuple) -> float:
    """The share of the points along a rectangle's sides (`_SAMPLES` of each) that are light."""
    height, width = light.shape
    box = cv2.boxPoints(rect)
    sides = np.roll(box, -1, axis=0) - box
    pts = (box[:, None, :] + _SAMPLES[None, :, None] * sides[:, None, :]).reshape(-1, 2)
    x = np.clip(np.round(pts[:, 0]).astype(int), 0, width - 1)
    y = np.clip(np.round(pts[:, 1]).astype(int), 0, height - 1)
    return np.count_nonzero(light[y, x]) / len(pts)


def _share(mask: np.ndarray, box: np.ndarray) -> float:
    """The share of a box's inside (off its edges by two pixels) that `mask` holds."""
    x0, y0 = np.maximum(np.floor(box.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 1
    patch = mask[y0:y1, x0:x1]
    poly = np.zeros(patch.shape[:2], np.uint8)
    cv2.fillConvexPoly(poly, np.round(box - [x0, y0]).astype(np.int32), 255)
    inner = cv2.erode(poly, np.ones((5, 5), np.uint8))
    return np.count_nonzero(patch & inner) / max(int(np.count_nonzero(inner)), 1)


def _measures(contours: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each contour's point count, area (as `cv2.contourArea` gives it: the shoelace formula)
    and the diagonal of its bounding box, all at once."""
    lengths = np.array([len(c) for c in contours], int)
    if not contours:
        return lengths, np.zeros(0), np.zeros(0)
    points = np.concatenate(contours).reshape(-1, 2).astype(np.float64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    following = np.arange(1, len(points) + 1)
    following[starts + lengths - 1] = starts  # each outline closes on its first point
    cross = points[:, 0] * points[following, 1] - points[following, 0] * points[:, 1]
    areas = np.abs(np.add.reduceat(cross, starts)) / 2
    low = np.minimum.reduceat(points, starts)
    high = np.maximum.reduceat(points, starts)
    return lengths, areas, np.hypot(*(high - low).T)


def bordered_cards(light: np.ndarray, not_felt: np.ndarray,
                   lo: float, hi: float) -> list[tuple[np.ndarray, float]]:
    """Card quads (half-size pixels, with the share of their inside that is not felt) of
    bordered cards: `light` is the half-size mask of grey lines, `not_felt` the foreground
    mask; cards have long sides between `lo` and `hi`."""
    light = cv2.morphologyEx(light, cv2.MORPH_CLOSE, _GAP)
    contours, hierarchy = cv2.findContours(light, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    links = hierarchy[0] if hierarchy is not None else np.zeros((0, 4), int)
    lengths, areas, spans = _measures(contours)
    parents = links[:, 3] if len(links) else np.zeros(0, int)
    holes = np.zeros(len(contours))  # area of the holes of each outer boundary
    np.add.at(holes, parents[parents >= 0], areas[parents >= 0])
    # an outline spans at least its rectangle's long side: a hole shorter than the smallest
    # card's inner ring, or an outer boundary with too few holes for the smallest card (most),
    # is no card
    worth = (lengths >= 4) & np.where(parents >= 0, spans >= 0.8 * lo,
                                      (spans >= lo) & (holes >= _HOLES * 0.64 * lo * lo))
    rings: list[tuple[np.ndarray, float]] = []
    shapes: list[tuple[np.ndarray, float]] = []  # after the rings: their outline is rougher
    for k in np.nonzero(worth)[0].tolist():
        contour, parent = contours[k], int(parents[k])
        shape = _enclosed(light, contour, lo, hi) if parent >= 0 else _outer(contour, holes[k],
                                                                             lo, hi)
        if shape is None:
            continue
        card, within = shape
        share = _share(not_felt, within)
        if share < _NOT_FELT and not (parent >= 0 and _art_on_felt(light, contour)):
            continue  # felt inside: an empty printed box
        (rings if parent >= 0 else shapes).append((card, share))
    # last, the roughest: thin outlines with no hole, borders broken open (`_open_ring`)
    for k in np.nonzero((lengths >= 4) & (parents < 0) & (spans >= lo) & ~worth)[0].tolist():
        shape = _open_ring(light, contours[k], lo, hi)
        if shape is None:
            continue
        card, within = shape
        share = _share(not_felt, within)
        if share < _NOT_FELT and _share(light, within) < _ART:
            continue  # felt inside, and no light art of its own: a printed box's lines
        shapes.append((card, share))
    return rings + shapes


def _card_shaped(rect: tuple, lo: float, hi: float) -> bool:
    """Whether a rotated rectangle has a card's proportions and a long side `lo` to `hi`."""
    long, short = max(rect[1]), min(rect[1])
    return bool(lo <= long <= hi and 0.64 <= short / long <= 0.8)


def _with_inside(rect: tuple) -> tuple[np.ndarray, np.ndarray]:
    """A card's rectangle as corners, and the rectangle a tenth smaller inside its border."""
    (cx, cy), (w, h), angle = rect
    return (cv2.boxPoints(rect).astype(np.float64),
            cv2.boxPoints(((cx, cy), (0.9 * w, 0.9 * h), angle)).astype(np.float64))


def _open_ring(light: np.ndarray, outline: np.ndarray, lo: float,
               hi: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The card a thin light outline with no hole is the broken border of (a hand or a gap
    of a few pixels opened the ring), and the rectangle a tenth smaller inside it; None
    when it is no such thing: a card-sized, card-proportioned rectangle whose sides the
    outline runs along, and nowhere else."""
    rect = cv2.minAreaRect(outline)
    if not _card_shaped(rect, lo, hi):
        return None
    (cx, cy), (w, h), angle = rect
    if cv2.contourArea(outline) > 0.3 * w * h:
        return None  # not thin: a light shape, not a line
    box = cv2.boxPoints(rect)
    corners = outline.reshape(-1, 2).astype(np.float32)
    if any(abs(cv2.pointPolygonTest(box, (float(x), float(y)), True)) > 6.0
           for x, y in corners):
        return None  # something leads off the rectangle's sides
    if _lit(light, ((cx, cy), (w - 2, h - 2), angle)) < 0.6:
        return None  # too little of the ring is there
    return _with_inside(rect)


def _art_on_felt(light: np.ndarray, hole: np.ndarray) -> bool:
    """Whether a ring whose inside looks like felt is a card of the felt's colour all the same
    (red cards on red felt): its hole is a clean rectangle (`_CLEAN`; where printed lines
    cross, a box cut by the layout's arc is not) holding light art of its own (`_ART`: pips
    or a picture apart from the ring; an empty box holds none, and light joined to a ring
    lies outside its hole)."""
    long, short = cv2.minAreaRect(hole)[1]
    if cv2.contourArea(hole) < _CLEAN * long * short:
        return False
    x, y, w, h = cv2.boundingRect(hole)
    filled = np.zeros((h, w), np.uint8)
    cv2.drawContours(filled, [hole - np.array([x, y], np.int32)], -1, 255, cv2.FILLED)
    inside = cv2.erode(filled, np.ones((5, 5), np.uint8), borderType=cv2.BORDER_CONSTANT,
                       borderValue=0)  # off the ring's own pixels, at the patch's edges too
    art = np.count_nonzero(light[y:y + h, x:x + w] & inside)
    return bool(art >= _ART * max(int(np.count_nonzero(inside)), 1))


def _enclosed(light: np.ndarray, hole: np.ndarray, lo: float,
              hi: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The card around a hole of the light mask (a clean rectangle a little smaller than a
    card, grown across the ring around it), and the hole's rectangle, inside the ring; None
    when it is no such thing."""
    rect = cv2.minAreaRect(hole)
    long, short = max(rect[1]), min(rect[1])
    if not (0.8 * lo <= long <= hi and 0.62 <= short / long <= 0.8):
        return None
    if cv2.contourArea(hole) < _HOLE_FILL * long * short:
        return None
    d = _ring_width(light, rect)
    if d == _MAX_BORDER:
        return None
    (cx, cy), (w, h), angle = rect
    card = ((cx, cy), (w + 2 * d, h + 2 * d), angle)
    if not _card_shaped(card, lo, hi):
        return None
    return cv2.boxPoints(card).astype(np.float64), cv2.boxPoints(rect).astype(np.float64)


def _outer(outline: np.ndarray, holes: float, lo: float,
           hi: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The card a light shape is (a card-sized rectangle, with holes: see `_HOLES`), and the
    rectangle a tenth smaller, inside its border; None when it is no such thing."""
    rect = cv2.minAreaRect(outline)
    if not _card_shaped(rect, lo, hi):
        return None
    area = rect[1][0] * rect[1][1]
    if cv2.contourArea(outline) < 0.9 * area or holes < _HOLES * area:
        return None
    return _with_inside(rect)


_TURNED = 0.5  # |cos| of the angle between two long sides under this: turned a quarter
_CLEAN_LIGHT = 0.9  # share of its rectangle a light shape fills, at the least, to be a card
_AS_WIDE = 0.1  # a band across a card is as long as the card is wide, within this share


def around_band(rect: tuple, light: np.ndarray, lo: float,
                hi: float) -> tuple[tuple, float] | None:
    """The card a card-proportioned paper blob (`rect`, a `cv2.minAreaRect`) is a band across,
    with its fill; None when it is no such band. svg-dondorf's ten of clubs: the pips at the
    sides of its panel cut the paper between them into a sideways rectangle of card
    proportions. The light shape holding it (`light`, the mask of grey lines) is then a clean
    card (card-proportioned, `lo` to `hi` long, filling its rectangle: nothing touching it),
    turned a quarter from the blob and as wide as the blob is long. (Two cards side by side
    also make a turned card-proportioned light shape, wider than either card is long, and
    seldom a clean one.)"""
    (cx, cy), (w, h), angle = rect
    if not _light_beyond(light, rect):
        return None  # felt past its long sides (most cards): no card around it
    reach = int(1.3 * max(w, h))
    x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
    patch = np.ascontiguousarray(light[y0:int(cy) + reach, x0:int(cx) + reach])
    contours, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    holding = [c for c in contours if cv2.pointPolygonTest(c, (cx - x0, cy - y0), False) >= 0]
    if not holding:
        return None
    (sx, sy), (sw, sh), turn = shape = cv2.minAreaRect(holding[0])
    fill = cv2.contourArea(holding[0]) / max(sw * sh, 1.0)
    (ux, uy), (vx, vy) = _long_axis(w, h, angle), _long_axis(sw, sh, turn)
    if (_card_shaped(shape, lo, hi) and fill >= _CLEAN_LIGHT
            and abs(min(sw, sh) / max(w, h) - 1.0) < _AS_WIDE
            and abs(ux * vx + uy * vy) < _TURNED):
        return ((sx + x0, sy + y0), (sw, sh), turn), fill
    return None


def _light_beyond(light: np.ndarray, rect: tuple) -> bool:
    """Whether the light mask goes on past both long sides of a rectangle: two of three
    points a tenth of its long side outside each of them are light. (In plain floats: a
    frame asks this of every clean paper blob, and array set-up would be most of it.)"""
    (cx, cy), (w, h), angle = rect
    ux, uy = _long_axis(w, h, angle)
    long, short = max(w, h), min(w, h)
    out = short / 2 + 0.1 * long
    height, width = light.shape
    for side in (-out, out):
        lit = 0
        for t in (-0.25 * long, 0.0, 0.25 * long):
            x = min(max(round(cx + t * ux - side * uy), 0), width - 1)
            y = min(max(round(cy + t * uy + side * ux), 0), height - 1)
            lit += bool(light[y, x])
        if lit < 2:
            return False
    return True


def _long_axis(w: float, h: float, angle: float) -> tuple[float, float]:
    """The unit direction of a rotated rectangle's long side (`cv2.minAreaRect`'s terms)."""
    a = math.radians(angle)
    return (math.cos(a), math.sin(a)) if w >= h else (-math.sin(a), math.cos(a))
