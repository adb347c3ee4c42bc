"""The card size of a frame (pure): cards under one camera are all about one size, learnt from
the clean card-shaped blobs of a mask, where two cards touching, a panel inside a card's
frame, a lone paper blob or half a card would each mislead a plain median."""

from __future__ import annotations

import statistics

import cv2
import numpy as np

from hardware.camera.quads import clean_blobs, corner_gaps, long_side

SIZES = (0.84, 1.18)  # long sides of one camera's cards, as shares of the typical one
_PANEL = (1.1, 1.6)  # a card around a paper panel is this much longer than it, at least, at most


def _panels(simple: list, sizes: list[float], outer: np.ndarray, lo: float,
            hi: float) -> list[float]:
    """`sizes` of the clean paper blobs `simple`, where a blob is the light panel inside a
    card's wide printed frame (svg-dondorf: the frame's thin line opens the white border
    away from the paper mask): the clean not-felt blob holding it in its middle, and no
    other, a tenth to three fifths longer, gives the card's size (a card at one end of a
    blob is one of two cards touching). Asked only when the sizes disagree."""
    centres = [(float(rect[0][0]), float(rect[0][1])) for _long, _contour, rect, _fill in simple]
    out = list(sizes)
    for long, contour, (middle, _size, _turn) in clean_blobs(outer, lo, hi):
        held = [k for k, centre in enumerate(centres)
                if cv2.pointPolygonTest(contour, centre, False) > 0]
        if (len(held) == 1 and _PANEL[0] * sizes[held[0]] <= long <= _PANEL[1] * sizes[held[0]]
                and np.hypot(*np.subtract(centres[held[0]], middle)) < 0.1 * long):
            out[held[0]] = long
    return out


def _lone_paper(typical: float, outer: np.ndarray, lo: float, hi: float) -> float:
    """The card size `typical` learnt from a lone clean paper blob, unless two or more clean
    blobs of the not-felt mask `outer` agree on another (all within `SIZES` of their
    median, and it not): theirs. One paper blob is a poor measure (a band of a back's light
    pattern under a hand, while the face-up cards' paper was cut up by their pips and art)."""
    longs = [long for long, _contour, _rect in clean_blobs(outer, lo, hi)]
    if len(longs) < 2:
        return typical
    median = float(np.median(longs))
    agree = all(SIZES[0] * median <= long <= SIZES[1] * median for long in longs)
    return median if agree and not SIZES[0] * median <= typical <= SIZES[1] * median else typical


def _paper_typical(longs: list[float]) -> float:
    """The long side of one camera's cards, from the long sides of card-shaped paper blobs:
    their median; but when that leaves most of them out of `SIZES` (two blobs, one a card
    and one two cards side by side, whose median is neither), the long side that keeps the
    most of them in, the smallest of those tied: two cards touching make one bigger blob,
    and paper scraps are seldom card-shaped (not so in the not-felt mask: hands, shadows)."""
    sizes = sorted(float(v) for v in longs)
    median = statistics.median(sizes)

    def kept(typical: float) -> int:
        return sum(SIZES[0] * typical <= size <= SIZES[1] * typical for size in sizes)

    if 2 * kept(median) >= len(sizes):
        return median
    return max(sizes, key=lambda size: (kept(size), -size))


def ringed_longs(quads: list[np.ndarray], rings: list[tuple[np.ndarray, float]]) -> list[float]:
    """The quads' long sides, where one as long as the short side of a light-bordered card
    (`rings`, within a tenth) lies in it with two of its corners on the ring's: a half of a
    card cut across by its art (a court card's colours in the not-felt mask, a hand) gives
    the card's. (A card in a printed box, a ring too, touches none of its corners.)"""
    own = [long_side(quad) for quad in quads]
    longs = list(own)
    for ring, _share in rings:
        short = float(min(np.linalg.norm(ring[1] - ring[0]), np.linalg.norm(ring[2] - ring[1])))
        for k, quad in enumerate(quads):
            near = corner_gaps(quad[None], ring)[0]
            if (abs(own[k] - short) < 0.1 * short and (near < 0.12 * short).sum() >= 2
                    and cv2.pointPolygonTest(ring.astype(np.float32),
                                             tuple(float(v) for v in quad.mean(axis=0)),
                                             False) > 0):
                longs[k] = long_side(ring)
    return longs


def _sizes(simple: list, rings: list[tuple[np.ndarray, float]]) -> list[float]:
    """The long sides of the clean blobs `simple` (as `_from_mask` collects them), where a
    blob holding two or more light-bordered cards (`rings`, each a fifth smaller than it at
    the least) is two cards touching and gives their long sides instead of its own."""
    longs: list[float] = []
    for long, contour, _rect, _fill in simple:
        inside: list[np.ndarray] = []
        for quad, _share in rings:
            centre = quad.mean(axis=0)
            if (long_side(quad) > 0.8 * long or cv2.pointPolygonTest(
                    contour, (float(centre[0]), float(centre[1])), False) <= 0):
                continue
            # a card's border gives two rings (its hole and its outer shape): count it once
            if all(np.hypot(*(centre - other.mean(axis=0))) > 0.25 * long for other in inside):
                inside.append(quad)
        longs += [long_side(quad) for quad in inside] if len(inside) >= 2 else [long]
    return longs


_PAIR = (1.25, 1.7)  # two cards side by side: this many times as long as one, at least, at most
_ONE_FILL = 0.85  # ... one card's blob filling its rectangle this much, at least


def _side_by_side(simple: list, longs: list[float]) -> list[float]:
    """`longs`, where a clean blob as wide (within 8%) as another, whole one is long, and a
    quarter to seven tenths longer than that, is two cards lying side by side, touching: it
    gives that other's long side twice instead of its own (small cards whose paper the
    corner indices cut away leave only the not-felt mask to learn the size from, and there
    a card and two touching gave a size between). A card half covered by another is no
    measure (a blob filling its rectangle less than `_ONE_FILL`)."""
    whole = [other for (_long, _contour, _rect, fill), other in zip(simple, longs, strict=True)
             if fill >= _ONE_FILL]
    out: list[float] = []
    for (long, _contour, rect, _fill), own in zip(simple, longs, strict=True):
        short = min(rect[1])
        ones = [other for other in whole if abs(short - other) < 0.08 * other
                and _PAIR[0] * other <= long <= _PAIR[1] * other]
        out += [ones[0], ones[0]] if ones else [own]
    return out


def typical_long_side(simple: list, rings: list[tuple[np.ndarray, float]],
                      outer: np.ndarray | None, lo: float, hi: float, solid: bool) -> float:
    """The long side of one camera's cards, from the clean blobs `simple` of a mask (long
    side, contour, rotated rect, fill each) with `solid` the paper mask: see `_sizes` for
    `rings`, `_panels` and `_lone_paper` for `outer` (the not-felt mask, when given),
    `_side_by_side`, and `_paper_typical`."""
    sizes = _sizes(simple, rings)
    if outer is not None and len(sizes) == len(simple) and max(sizes) > _PANEL[0] * min(sizes):
        sizes = _panels(simple, sizes, outer, lo, hi)
    if len(sizes) == len(simple):  # (a panel is not one of two cards: `_panels` first)
        sizes = _side_by_side(simple, sizes)
    typical = _paper_typical(sizes) if solid else float(np.median(sizes))
    if outer is not None and len(simple) == 1:
        typical = _lone_paper(typical, outer, lo, hi)
    return typical
