"""Card-proportioned rectangles in a blob's outline (pure): the straight runs of the outline,
grouped by their turn, give side positions; pairs of sides (or three sides, the fourth placed
by the card's aspect ratio) make boxes; a box counts when enough of its sides is outline.
`detect` searches blobs that hands, chips or a printed line touch this way.

The search runs several times a frame on a few hundred outline points and a few dozen boxes,
so its cost is mostly per numpy call: the steps are written to make few calls, and small
lists are handled in plain Python (whose float arithmetic is numpy's, bit for bit).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

# the side placed opposite a seen one lies below it, then above it (`_three_sided`)
_SIGNS = np.array([-1.0, 1.0]).reshape(2, 1, 1, 1)


# the corners of a box (u_lo, u_hi, v_lo, v_hi) in order round it, as columns of the box
_CORNER_U, _CORNER_V = np.array([0, 1, 1, 0]), np.array([2, 2, 3, 3])


def _rect_quads(boxes: np.ndarray, c: float, s: float) -> np.ndarray:
    """Corners (k, 4, 2) of boxes (k, 4: u_lo, u_hi, v_lo, v_hi) turned by the angle whose
    cosine and sine are `c` and `s`."""
    u, v = boxes[:, _CORNER_U], boxes[:, _CORNER_V]
    quads = np.empty((len(boxes), 4, 2))
    np.subtract(u * c, v * s, out=quads[..., 0])
    np.add(u * s, v * c, out=quads[..., 1])
    return quads


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of `values` (rows, n), what `np.unique(row, return_inverse=True)` gives, in
    few numpy calls (they are most of the cost on a few dozen values): the distinct values
    of all rows (each row's ascending, row after row), where each value is among them, and
    how many each row has."""
    rows, n = values.shape
    order = (np.argsort(values, axis=1) + np.arange(0, rows * n, n)[:, None]).ravel()
    ordered = values.ravel()[order]
    first = np.empty(rows * n, dtype=bool)  # the first of a run of equal values in a row
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    first[::n] = True
    where = np.empty(rows * n, dtype=np.intp)
    where[order] = np.cumsum(first) - 1
    return ordered[first], where.reshape(rows, n), first.reshape(rows, n).sum(axis=1)


def _on_sides(u: np.ndarray, v: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(boxes,): how many outline points (u, v) lie on each box's sides: within 2.5 of a
    side's line and at most 2 beyond its ends. Boxes share side positions, so each test runs
    once per distinct position (along u, then along v, in one array), its answers for the
    points packed as bits (64 to a word; the points padded with NaN, which passes no test)
    and combined per box."""
    n = len(u)
    points = np.full((2, (n + 63) // 64 * 64), np.nan)
    points[0, :n], points[1, :n] = u, v
    # per axis, the boxes' lower sides, then their upper ones
    at, rows, per_axis = _distinct(boxes.T.reshape(2, -1))
    coords = np.repeat(points, per_axis, axis=0)  # each position's row: u's or v's
    tests = np.empty((3, *coords.shape), dtype=bool)
    np.greater(coords, (at - 2)[:, None], out=tests[1])  # past the position less 2
    np.less(coords, (at + 2)[:, None], out=tests[2])  # short of it plus 2
    offset = np.subtract(coords, at[:, None], out=coords)
    np.less(np.abs(offset, out=offset), 2.5, out=tests[0])  # within 2.5 of it
    # (test, axis, lower or upper side, box, word): one gather for all
    near, after, before = np.packbits(tests, axis=2).view(np.uint64)[:, rows.reshape(2, 2, -1)]
    along = (near[1, 0] | near[1, 1]) & after[0, 0] & before[0, 1]
    across = (near[0, 0] | near[0, 1]) & after[1, 0] & before[1, 1]
    return np.bitwise_count(along | across).sum(axis=1)


def _peaks(values: np.ndarray, keep: int, min_count: float) -> list[float]:
    """Up to `keep` positions where `values` crowd (a histogram of unit bins, summed over
    three), strongest first, each more than 3 bins from a stronger one."""
    if len(values) == 0:
        return []
    lo = math.floor(values.min()) - 2.0
    hist = np.bincount((values - lo).astype(int)).astype(np.float64)
    hist = np.convolve(hist, [1.0, 1.0, 1.0], mode="same")
    order = np.argsort(hist)[::-1]  # its order among equal counts picks between them
    strong = order[:np.count_nonzero(hist >= min_count)].tolist()
    picked: list[int] = []
    taken: set[int] = set()  # bins within 3 of a picked one
    for i in strong:
        if len(picked) == keep:
            break
        if i not in taken:
            picked.append(i)
            taken.update(range(i - 3, i + 4))
    return [p + lo + 0.5 for p in picked]


def _pairs(values: list[float], spans: tuple[float, float]) -> list[tuple[float, float]]:
    """The pairs (lower, upper) of `values` `spans[0]` to `spans[1]` apart, in the order of
    `np.triu_indices`."""
    pairs = [(a, b) if a <= b else (b, a) for a, b in itertools.combinations(values, 2)]
    return [(a, b) for a, b in pairs if spans[0] <= b - a <= spans[1]]


def _three_sided(out: np.ndarray, pairs: list[tuple[float, float]], singles: list[float],
                 aspect: float, fixed: slice, placed: tuple[int, int]) -> None:
    """Fills `out` (2 * p * s * 2, 4: whole rows of an array, so that its reshape is a
    view) with boxes of three seen sides: a pair (its positions in the columns `fixed`) and a
    single side, the side opposite it placed a card's other side away: below it, then above
    it; per pair, per single, the pair's span over `aspect`, then times it. The single side
    and the placed one go in the columns `placed` (lower, upper)."""
    boxes = out.reshape(2, len(pairs), len(singles), 2, 4)
    boxes[..., fixed] = np.array(pairs)[:, None, None, :]
    lengths = np.array([((b - a) / aspect, (b - a) * aspect) for a, b in pairs])  # (p, 2)
    start = np.array(singles)[:, None]  # (s, 1)
    other = start + _SIGNS * lengths[:, None, :]  # (2, p, s, 2)
    np.minimum(start, other, out=boxes[..., placed[0]])
    np.maximum(start, other, out=boxes[..., placed[1]])


def _hypotheses(us: list[float], vs: list[float], aspect: float,
                spans: tuple[float, float]) -> np.ndarray:
    """Boxes (u_lo, u_hi, v_lo, v_hi) from side positions: all four sides seen, or three
    (the fourth placed by the card's aspect ratio). Only pairs of sides `spans[0]` to
    `spans[1]` apart are taken (a card's short side at the least, its long side at most).
    The boxes are written into one array, block by block, to keep the numpy calls few."""
    pu, pv = _pairs(us, spans), _pairs(vs, spans)
    four = len(pu) * len(pv)
    across_u, across_v = 4 * len(pu) * len(vs), 4 * len(pv) * len(us)
    out = np.empty((four + across_u + across_v, 4))
    if four:
        out[:four] = [(*a, *b) for a in pu for b in pv]
    if across_u:
        _three_sided(out[four:four + across_u], pu, vs, aspect, slice(0, 2), (2, 3))
    if across_v:
        _three_sided(out[four + across_u:], pv, us, aspect, slice(2, 4), (0, 1))
    return out


def _peak_turn(degrees: np.ndarray, peak: int) -> float:
    """The outline's local directions (modulo a right angle, in degrees) averaged close
    around the histogram's `peak` (degrees): leans to the peak's bin, a few degrees off
    for a side that runs in one-pixel steps."""
    near = np.abs(degrees - peak)
    near = np.minimum(near, 90 - near)
    close = near < 6
    if not close.any():
        return float(np.radians(peak))
    weights = np.exp(-(near[close] / 6.0) ** 2)
    # np.average's own sums, without its checks
    return float(np.radians((degrees[close] * weights).sum() / weights.sum()))


_TURN_SPREAD = np.radians(12.0)
_TURN_APART = np.radians(1.5)  # a turn this far from the mean of its side's steps is off


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


def _turn_histogram(degrees: np.ndarray) -> np.ndarray:
    """(90,): how many of the outline's local directions fall in each degree (modulo a right
    angle), summed with the bins either side (round the circle)."""
    counts = np.bincount(degrees.astype(int) % 90, minlength=90)
    ring = np.concatenate([counts[-1:], counts, counts[:1]])
    return (ring[:-2] + ring[1:-1] + ring[2:]).astype(np.float64)


def rectangles(
    contour: np.ndarray, lo: float, hi: float, aspect: float, fine_turn: bool = False,
    sized: bool = False
) -> list[tuple[float, np.ndarray]]:
    """Card-proportioned rectangles supported by straight runs of a blob's outline.

    With `fine_turn` (the paper mask) each candidate turn is the mean of the directions near
    a histogram peak (`_mean_turn`), not their mean close around it (`_peak_turn`). A card
    whose large index cut two opposite corners out of the paper mask is left to this search,
    and the peak's turn set its quad a few degrees askew. The not-felt mask (backs) keeps the
    old turn: on the tuning frames the finer one moved two backs' quads so that they looked
    more like a face than like the enrolled back. There, where `sized` (`lo`..`hi` is the
    size of the frame's cards, learnt), a turn that gives no rectangle is tried again at the
    finer one (`_TURN_APART`); at any size, weak outlines of backs of the felt's colour gave
    rectangles off the cards so, and the card size learnt from them was wrong."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    n = len(pts)
    if n < 40:
        return []
    step = 3
    ring = np.concatenate([pts[-step:], pts, pts[:step]])  # the outline is closed
    delta = ring[2 * step:] - ring[:-2 * step]  # from `step` points back to `step` on
    heading = np.arctan2(delta[:, 1], delta[:, 0])
    direction = np.mod(heading, np.pi / 2)
    degrees = np.degrees(direction)
    hist = _turn_histogram(degrees)
    strength = hist.tolist()
    found: list[tuple[float, np.ndarray]] = []
    tried: list[int] = []
    for peak in np.argsort(hist)[::-1].tolist():
        if strength[peak] < 0.2 * lo or len(tried) == 4:
            break
        if any(min(abs(peak - t), 90 - abs(peak - t)) < 4 for t in tried):
            continue
        tried.append(peak)
        theta = (_mean_turn(direction, np.radians(peak + 0.5)) if fine_turn
                 else _peak_turn(degrees, peak))
        at_turn = _at_turn(pts, heading, theta, lo, hi, aspect)
        if not at_turn and sized and not fine_turn:
            # the not-felt mask's turn, between the two directions of a side's steps (a card
            # turned 42 degrees: 39 and 45), spread its sides too thin: by their mean, then
            mean = _mean_turn(direction, np.radians(peak + 0.5))
            apart = abs(mean - theta) % (np.pi / 2)
            if min(apart, np.pi / 2 - apart) > _TURN_APART:
                at_turn = _at_turn(pts, heading, mean, lo, hi, aspect)
        found.extend(at_turn)
    return found


def _at_turn(pts: np.ndarray, heading: np.ndarray, theta: float, lo: float, hi: float,
             aspect: float) -> list[tuple[float, np.ndarray]]:
    """`rectangles` turned by `theta` (radians): the outline points `pts` (n, 2), with their
    local headings `heading` (n,)."""
    c, s = np.cos(theta), np.sin(theta)
    # u = x c + y s and v = y c - x s, from the products of the points with c and with s
    times_c, times_s = pts * c, pts * s
    u = times_c[:, 0] + times_s[:, 1]
    v = times_c[:, 1] - times_s[:, 0]
    raw = heading - theta
    horizontal = np.abs(np.sin(raw)) < 0.2  # runs along u: a top or bottom side
    vertical = np.abs(np.cos(raw)) < 0.2
    min_run = 0.25 * lo * 0.62
    us = _peaks(u[vertical], 6, min_run)
    vs = _peaks(v[horizontal], 6, min_run)
    # a box is a card with long side lo..hi and short side 0.6..0.82 of it: its sides lie
    # 0.6 lo .. hi apart
    boxes = _hypotheses(us, vs, aspect, (0.6 * lo, hi))
    if len(boxes) == 0:
        return []
    width, height = boxes[:, 1] - boxes[:, 0], boxes[:, 3] - boxes[:, 2]
    long, short = np.maximum(width, height), np.minimum(width, height)
    keep = (long >= lo) & (long <= hi) & (short >= 0.6 * long) & (short <= 0.82 * long)
    boxes, width, height = boxes[keep], width[keep], height[keep]
    if len(boxes) == 0:
        return []
    support = _on_sides(u, v, boxes) / (2 * (width + height))
    chosen = np.nonzero(support >= 0.45)[0]
    return list(zip(support[chosen].tolist(), _rect_quads(boxes[chosen], c, s), strict=True))
