"""The rectangle search's helpers, written for few numpy calls, give bit for bit what their
plain formulations give (a box's sides and support must not move by a rounding)."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.rectangles import _distinct, _hypotheses, _on_sides, rectangles


def _plain_hypotheses(us: list[float], vs: list[float], aspect: float,
                      spans: tuple[float, float]) -> np.ndarray:
    """The boxes as first written: every combination built, sorted and stacked."""
    def pairs(values: np.ndarray) -> np.ndarray:
        i, j = np.triu_indices(len(values), 1)
        found = np.sort(np.stack([values[i], values[j]], axis=1), axis=1)
        span = found[:, 1] - found[:, 0]
        return found[(span >= spans[0]) & (span <= spans[1])]

    out = []
    pu, pv = pairs(np.array(us)), pairs(np.array(vs))
    if len(pu) and len(pv):
        out.append(np.concatenate([np.repeat(pu, len(pv), axis=0), np.tile(pv, (len(pu), 1))],
                                  axis=1))
    for fixed_pairs, singles, swap in ((pu, np.array(vs), False), (pv, np.array(us), True)):
        if not len(fixed_pairs) or not len(singles):
            continue
        span = fixed_pairs[:, 1] - fixed_pairs[:, 0]
        lengths = np.stack([span / aspect, span * aspect], axis=1)
        for sign in (-1.0, 1.0):
            other = singles[None, :, None] + sign * lengths[:, None, :]
            start = np.broadcast_to(singles[None, :, None], other.shape)
            lo_hi = np.sort(np.stack([start, other], axis=-1), axis=-1).reshape(-1, 2)
            fixed = np.repeat(fixed_pairs, other.shape[1] * 2, axis=0)
            out.append(np.concatenate([lo_hi, fixed] if swap else [fixed, lo_hi], axis=1))
    return np.concatenate(out) if out else np.zeros((0, 4))


def test_box_hypotheses_are_those_of_the_plain_formulation() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        us = np.round(rng.uniform(-40, 160, rng.integers(0, 7)), 1).tolist()
        vs = np.round(rng.uniform(-40, 160, rng.integers(0, 7)), 1).tolist()
        if us:
            vs.append(us[0])  # a position seen along both axes, and ties within one
            us.append(us[-1])
        aspect, spans = float(rng.uniform(0.6, 0.8)), (30.0, 120.0)
        fast, plain = _hypotheses(us, vs, aspect, spans), _plain_hypotheses(us, vs, aspect, spans)
        assert fast.shape == plain.shape and np.array_equal(fast, plain)


def test_distinct_values_per_row_are_those_of_unique() -> None:
    rng = np.random.default_rng(4)
    for n in (2, 5, 40):
        values = np.round(rng.uniform(-3, 3, (2, n)), 0)  # many repeats
        at, where, per_row = _distinct(values)
        assert per_row.sum() == len(at)
        start = 0
        for row, found, count in zip(values, where, per_row.tolist(), strict=True):
            unique, inverse = np.unique(row, return_inverse=True)
            assert np.array_equal(at[start:start + count], unique)
            assert np.array_equal(found - start, inverse)
            start += count


def _plain_on_sides(u: np.ndarray, v: np.ndarray, boxes: np.ndarray) -> list[int]:
    """How many points lie on each box's sides, tested point by point."""
    plain = []
    for u_lo, u_hi, v_lo, v_hi in boxes:
        along = ((abs(v - v_lo) < 2.5) | (abs(v - v_hi) < 2.5)) & (u > u_lo - 2) & (u < u_hi + 2)
        across = ((abs(u - u_lo) < 2.5) | (abs(u - u_hi) < 2.5)) & (v > v_lo - 2) & (v < v_hi + 2)
        plain.append(int((along | across).sum()))
    return plain


def test_side_support_counts_each_outline_point_once_as_a_plain_count_would() -> None:
    """`_on_sides` packs the points' answers as bits, 64 to a word: its counts are those of
    the plain test, past a word's end and where a corner point lies on two sides."""
    rng = np.random.default_rng(5)
    for n in (3, 64, 65, 200):
        u, v = rng.uniform(0, 60, n), rng.uniform(0, 60, n)
        u[:3], v[:3] = (10.0, 40.0, 25.0), (10.0, 10.0, 50.0)  # two corners and a bottom point
        boxes = np.array([[10.0, 40.0, 10.0, 50.0], [5.0, 45.0, 8.0, 30.0], [10.0, 40.0, 10.0, 50.0]])
        plain = _plain_on_sides(u, v, boxes)
        assert _on_sides(u, v, boxes).tolist() == plain
        assert plain[0] >= 3


def test_side_support_of_points_near_zero_and_below() -> None:
    """Positions and points on both sides of zero (the v axis of a turned outline runs
    negative) are counted as the plain test counts them."""
    rng = np.random.default_rng(6)
    u, v = rng.uniform(-30, 30, 130), rng.uniform(-30, 30, 130)
    boxes = np.array([[-20.0, 10.0, -25.0, 0.0], [-2.0, 28.0, -1.5, 20.0], [0.0, 0.5, -0.5, 0.0]])
    assert _on_sides(u, v, boxes).tolist() == _plain_on_sides(u, v, boxes)


def test_a_turned_card_outline_gives_its_rectangle() -> None:
    """A card-shaped outline turned 20 degrees: the best supported rectangle lies on it, with
    either turn estimate."""
    mask = np.zeros((300, 300), np.uint8)
    truth = cv2.boxPoints(((150.0, 150.0), (70.0, 100.0), 20.0))
    cv2.fillConvexPoly(mask, np.round(truth).astype(np.int32), 255)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    for fine_turn in (False, True):
        found = sorted(rectangles(contours[0], 80, 120, 0.7, fine_turn), key=lambda r: -r[0])
        assert found and found[0][0] > 0.8
        quad = found[0][1]
        error = min(np.abs(np.roll(quad, k, axis=0) - truth).max() for k in range(4))
        assert error < 2.5
