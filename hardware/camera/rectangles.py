"""Card-proportioned rectangles in a blob's outline (pure): the straight runs of the outline,
grouped by their turn, give side positions; pairs of sides (or three sides, the fourth placed
by the card's aspect ratio) make boxes; a box counts when enough of its sides is outline.
`detect` searches blobs that hands, chips or a printed line touch this way.
"""

from __future__ import annotations

import functools

import numpy as np


def _rect_quads(boxes: np.ndarray, theta: float) -> np.ndarray:
    """Corners (k, 4, 2) of boxes (k, 4: u_lo, u_hi, v_lo, v_hi) turned by `theta`."""
    c, s = np.cos(theta), np.sin(theta)
    u = boxes[:, [0, 1, 1, 0]]
    v = boxes[:, [2, 2, 3, 3]]
    return np.stack([u * c - v * s, u * s + v * c], axis=2)


def _on_sides(u: np.ndarray, v: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(boxes,): how many outline points (u, v) lie on each box's sides: within 2.5 of a
    side's line and at most 2 beyond its ends. Boxes share side positions, so each test runs
    once per distinct position, its answers for the points packed as bits (64 to a word; the
    points padded with NaN, which passes no test) and combined per box."""
    pad = np.full(-len(u) % 64, np.nan)
    k = len(boxes)

    def tests(coords: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per box, as bits: on the side at `lo`, on that at `hi`, past `lo` less 2, short
        of `hi` plus 2 (`coords` along the axis across those sides)."""
        at, where = np.unique(np.concatenate([lo, hi]), return_inverse=True)
        points = np.concatenate([coords, pad])[None]
        at = at[:, None]
        near, after, before = (np.packbits(test, axis=1).view(np.uint64) for test in (
            np.abs(points - at) < 2.5, points > at - 2, points < at + 2))
        first, second = where[:k], where[k:]
        return near[first], near[second], after[first], before[second]

    at_left, at_right, right_of_left, left_of_right = tests(u, boxes[:, 0], boxes[:, 1])
    at_top, at_bottom, below_top, above_bottom = tests(v, boxes[:, 2], boxes[:, 3])
    along = (at_top | at_bottom) & right_of_left & left_of_right
    across = (at_left | at_right) & below_top & above_bottom
    return np.bitwise_count(along | across).sum(axis=1)


def _peaks(values: np.ndarray, weight: np.ndarray, keep: int, min_count: float) -> list[float]:
    if len(values) == 0:
        return []
    lo = np.floor(values.min()) - 2
    hist = np.bincount((values - lo).astype(int), weights=weight).astype(np.float64)
    hist = np.convolve(hist, [1.0, 1.0, 1.0], mode="same")
    order = np.argsort(hist)[::-1]
    picked: list[int] = []
    for i in order:
        if hist[i] < min_count or len(picked) == keep:
            break
        if all(abs(i - j) > 3 for j in picked):
            picked.append(int(i))
    return [p + lo + 0.5 for p in picked]


@functools.cache
def _pair_indices(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


def _pairs(values: np.ndarray) -> np.ndarray:
    i, j = _pair_indices(len(values))
    return np.sort(np.stack([values[i], values[j]], axis=1), axis=1)


def _hypotheses(us: np.ndarray, vs: np.ndarray, aspect: float,
                spans: tuple[float, float]) -> np.ndarray:
    """Boxes (u_lo, u_hi, v_lo, v_hi) from side positions: all four sides seen, or three
    (the fourth placed by the card's aspect ratio). Only pairs of sides `spans[0]` to
    `spans[1]` apart are taken (a card's short side at the least, its long side at most)."""
    out = []
    pu, pv = _pairs(us), _pairs(vs)
    pu = pu[(pu[:, 1] - pu[:, 0] >= spans[0]) & (pu[:, 1] - pu[:, 0] <= spans[1])]
    pv = pv[(pv[:, 1] - pv[:, 0] >= spans[0]) & (pv[:, 1] - pv[:, 0] <= spans[1])]
    if len(pu) and len(pv):
        a = np.repeat(pu, len(pv), axis=0)
        b = np.tile(pv, (len(pu), 1))
        out.append(np.concatenate([a, b], axis=1))
    for pairs, singles, swap in ((pu, vs, False), (pv, us, True)):
        if not len(pairs) or not len(singles):
            continue
        span = pairs[:, 1] - pairs[:, 0]
        lengths = np.stack([span / aspect, span * aspect], axis=1)  # (p, 2)
        for sign in (-1.0, 1.0):
            other = singles[None, :, None] + sign * lengths[:, None, :]  # (p, s, 2)
            start = np.broadcast_to(singles[None, :, None], other.shape)
            lo_hi = np.sort(np.stack([start, other], axis=-1), axis=-1).reshape(-1, 2)
            fixed = np.repeat(pairs, other.shape[1] * 2, axis=0)
            box = np.concatenate([lo_hi, fixed] if swap else [fixed, lo_hi], axis=1)
            out.append(box)
    return np.concatenate(out) if out else np.zeros((0, 4))


def _peak_turn(direction: np.ndarray, peak: int) -> float:
    """The outline's local directions (modulo a right angle) averaged close around the
    histogram's `peak` (degrees): leans to the peak's bin, a few degrees off for a side that
    runs in one-pixel steps."""
    near = np.abs(np.degrees(direction) - peak)
    near = np.minimum(near, 90 - near)
    if not (near < 6).any():
        return float(np.radians(peak))
    weights = np.exp(-(near[near < 6] / 6.0) ** 2)
    return float(np.radians(np.average(np.degrees(direction)[near < 6], weights=weights)))


_TURN_SPREAD = np.radians(12.0)


def _mean_turn(direction: np.ndarray, peak: float) -> float:
    """The mean of the outline's local directions (modulo a right angle) within
    `_TURN_SPREAD` of `peak`, as an angle on a circle of a quarter turn: a side a few degrees
    off the pixel grid runs in steps of two directions (flat, and one pixel up), and their
    mean is its turn."""
    near = np.abs(np.mod(direction - peak + np.pi / 4, np.pi / 2) - np.pi / 4) < _TURN_SPREAD
    if not near.any():
        return peak
    four = 4.0 * direction[near]
    return float(np.mod(np.arctan2(np.sin(four).sum(), np.cos(four).sum()) / 4.0, np.pi / 2))


def rectangles(
    contour: np.ndarray, lo: float, hi: float, aspect: float, fine_turn: bool = False
) -> list[tuple[float, np.ndarray]]:
    """Card-proportioned rectangles supported by straight runs of a blob's outline.

    With `fine_turn` (the paper mask) each candidate turn is the mean of the directions near
    a histogram peak (`_mean_turn`), not their mean close around it (`_peak_turn`). A card
    whose large index cut two opposite corners out of the paper mask is left to this search,
    and the peak's turn set its quad a few degrees askew. The not-felt mask (backs) keeps the
    old turn: on the tuning frames the finer one moved two backs' quads so that they looked
    more like a face than like the enrolled back."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    n = len(pts)
    if n < 40:
        return []
    step = 3
    delta = np.roll(pts, -step, axis=0) - np.roll(pts, step, axis=0)
    direction = np.mod(np.arctan2(delta[:, 1], delta[:, 0]), np.pi / 2)
    hist = np.bincount((np.degrees(direction)).astype(int) % 90, minlength=90).astype(np.float64)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    found: list[tuple[float, np.ndarray]] = []
    tried: list[int] = []
    for peak in np.argsort(hist)[::-1]:
        if hist[peak] < 0.2 * lo or len(tried) == 4:
            break
        if any(min(abs(peak - t), 90 - abs(peak - t)) < 4 for t in tried):
            continue
        tried.append(int(peak))
        theta = (_mean_turn(direction, np.radians(peak + 0.5)) if fine_turn
                 else _peak_turn(direction, peak))
        c, s = np.cos(theta), np.sin(theta)
        u = pts[:, 0] * c + pts[:, 1] * s
        v = -pts[:, 0] * s + pts[:, 1] * c
        raw = np.arctan2(delta[:, 1], delta[:, 0]) - theta
        horizontal = np.abs(np.sin(raw)) < 0.2  # runs along u: a top or bottom side
        vertical = np.abs(np.cos(raw)) < 0.2
        min_run = 0.25 * lo * 0.62
        us = _peaks(u[vertical], np.ones(int(vertical.sum())), 6, min_run)
        vs = _peaks(v[horizontal], np.ones(int(horizontal.sum())), 6, min_run)
        # a box is a card with long side lo..hi and short side 0.6..0.82 of it: its sides
        # lie 0.6 lo .. hi apart
        boxes = _hypotheses(np.array(us), np.array(vs), aspect, (0.6 * lo, hi))
        if len(boxes) == 0:
            continue
        width, height = boxes[:, 1] - boxes[:, 0], boxes[:, 3] - boxes[:, 2]
        long, short = np.maximum(width, height), np.minimum(width, height)
        keep = (long >= lo) & (long <= hi) & (short >= 0.6 * long) & (short <= 0.82 * long)
        boxes, width, height = boxes[keep], width[keep], height[keep]
        if len(boxes) == 0:
            continue
        support = _on_sides(u, v, boxes) / (2 * (width + height))
        chosen = np.nonzero(support >= 0.45)[0]
        for k, quad in zip(chosen, _rect_quads(boxes[chosen], theta), strict=True):
            found.append((float(support[k]), quad))
    return found
