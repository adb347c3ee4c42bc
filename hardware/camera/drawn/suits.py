"""The suit symbols of our drawn deck: diamond, heart, spade and club as filled masks.

`suit_mask(suit, style)` draws one symbol into a `MASK`-pixel square (uint8 0/255, upright),
built from circles and polygons; `style` 0 gives the standard shapes, k > 0 shapes drawn from
k (fatter or leaner diamonds with straight, hollow or bulging sides, hearts and spades of
other lobes and tips, other stems, clubs of other balls), as `faces.Layout.pip_style` asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

MASK = 256  # side of the square a suit symbol is drawn in before it is shrunk


@dataclass(frozen=True)
class _Shapes:
    """How the suit symbols are drawn, in parts of the square they fill (the defaults are the
    standard shapes)."""

    diamond_half: float = 0.36  # half the diamond's width
    diamond_bulge: float = 0.0  # its sides bow out (> 0) or in (< 0), in parts of a side
    lobe_r: float = 0.255  # a heart's (and spade's) two lobes
    lobe_x: float = 0.27  # the left lobe's centre (the right one mirrors it)
    lobe_y: float = 0.3
    wing_x: float = 0.025  # the point's triangle: its wide side, from (wing_x, wing_y) ...
    wing_y: float = 0.38
    tip: float = 0.97  # ... to its tip
    bar: tuple[float, float] = (0.2, 0.45)  # the block filling in between the lobes
    spade_body: float = 0.8  # the spade's heart shape, in parts of the square's height
    ball_r: float = 0.2  # a club's three balls
    ball_x: float = 0.24  # the left ball's centre (the right one mirrors it)
    ball_y: float = 0.55
    top_ball_y: float = 0.22
    wedge: tuple[float, float, float] = (0.3, 0.3, 0.6)  # the club's middle: top y, side x, y
    stem: tuple[float, float] = (0.5, 0.3)  # the stem's top y, its foot's left x


@lru_cache(maxsize=16)
def _shapes(style: int) -> _Shapes:
    if style == 0:
        return _Shapes()
    rng = np.random.default_rng([36, style])
    draws = rng.uniform(0, 1, 12)
    lobe_r, lobe_x, lobe_y = 0.21 + 0.07 * draws[0], 0.02 + 0.03 * draws[1], 0.27 + 0.07 * draws[2]
    lobe_x += lobe_r
    wing_y = lobe_y + 0.3 * lobe_r
    ball_r = 0.16 + 0.07 * draws[3]
    ball_x, ball_y = ball_r + 0.05 * draws[4], 0.5 + 0.12 * draws[5]
    top_ball_y = ball_r + 0.04 * draws[6]
    return _Shapes(
        diamond_half=0.27 + 0.17 * draws[7], diamond_bulge=-0.12 + 0.22 * draws[8],
        lobe_r=lobe_r, lobe_x=lobe_x, lobe_y=lobe_y, wing_x=max(0.0, lobe_x - 0.97 * lobe_r),
        wing_y=wing_y, tip=0.88 + 0.11 * draws[9], bar=(lobe_y - 0.4 * lobe_r, wing_y + 0.07),
        spade_body=0.72 + 0.13 * draws[10], ball_r=ball_r, ball_x=ball_x, ball_y=ball_y,
        top_ball_y=top_ball_y, wedge=(top_ball_y + 0.08, ball_x + 0.06, ball_y + 0.05),
        # the stem's foot widens with the lobes: the same draw as lobe_r
        stem=(0.45 + 0.15 * draws[11], 0.5 - (0.1 + 0.14 * draws[0])),
    )


def _diamond(s: int, half: float, bulge: float) -> np.ndarray:
    """The diamond's outline: straight sides, or each a quadratic curve bowed out by `bulge`
    of its length (in, when negative)."""
    if bulge == 0:
        return np.array([(s // 2, 0), (int(s * (0.5 + half)), s // 2), (s // 2, s - 1),
                         (int(s * (0.5 - half)), s // 2)], np.int32)
    corners = np.array([(0.5, 0.0), (0.5 + half, 0.5), (0.5, 1.0), (0.5 - half, 0.5)])
    points = []
    for a, b in zip(corners, np.roll(corners, -1, axis=0), strict=True):
        mid = (a + b) / 2
        out = (mid - 0.5) / np.linalg.norm(mid - 0.5)
        control = mid + 2 * bulge * np.linalg.norm(b - a) * out
        for t in np.linspace(0, 1, 16, endpoint=False):
            points.append((1 - t) ** 2 * a + 2 * t * (1 - t) * control + t * t * b)
    return np.round(np.clip(np.array(points), 0, 1) * (s - 1)).astype(np.int32)


@lru_cache(maxsize=64)
def suit_mask(suit: str, style: int) -> np.ndarray:
    """A suit symbol filling a `MASK` square, as uint8 0/255, upright, in the shapes of
    `Layout.pip_style` `style`."""
    s, k = MASK, _shapes(style)
    m = np.zeros((s, s), np.uint8)
    if suit == "D":
        cv2.fillPoly(m, [_diamond(s, k.diamond_half, k.diamond_bulge)], 255, cv2.LINE_8)
    elif suit in "HS":
        r, cy = int(s * k.lobe_r), int(s * k.lobe_y)
        cv2.circle(m, (int(s * k.lobe_x), cy), r, 255, -1)
        cv2.circle(m, (int(s * (1 - k.lobe_x)), cy), r, 255, -1)
        cv2.fillPoly(m, [np.array([(int(s * k.wing_x), int(s * k.wing_y)),
                                   (int(s * (1 - k.wing_x)), int(s * k.wing_y)),
                                   (s // 2, int(s * k.tip))], np.int32)], 255)
        cv2.rectangle(m, (int(s * k.lobe_x), int(s * k.bar[0])),
                      (int(s * (1 - k.lobe_x)), int(s * k.bar[1])), 255, -1)
        if suit == "S":  # an upside-down heart, shifted up to leave room for the stem
            top = cv2.resize(np.ascontiguousarray(m[::-1]), (s, int(s * k.spade_body)),
                             interpolation=cv2.INTER_AREA)
            m = np.zeros((s, s), np.uint8)
            m[: top.shape[0]] = top
            _stem(m, k)
    else:  # club: three balls and a stem
        r = int(s * k.ball_r)
        cv2.circle(m, (s // 2, int(s * k.top_ball_y)), r, 255, -1)
        cv2.circle(m, (int(s * k.ball_x), int(s * k.ball_y)), r, 255, -1)
        cv2.circle(m, (int(s * (1 - k.ball_x)), int(s * k.ball_y)), r, 255, -1)
        peak, side, low = k.wedge
        cv2.fillPoly(m, [np.array([(s // 2, int(s * peak)), (int(s * side), int(s * low)),
                                   (int(s * (1 - side)), int(s * low))], np.int32)], 255)
        _stem(m, k)
    return m


def _stem(m: np.ndarray, k: _Shapes) -> None:
    s = m.shape[0]
    top, foot = k.stem
    cv2.fillPoly(m, [np.array([(s // 2, int(s * top)), (int(s * foot), s - 1),
                               (int(s * (1 - foot)), s - 1)], np.int32)], 255)
