"""Where cards lie on a generated layout: zone rectangles and card placements.

Everything here is in table-plane pixels (a 1920x1080 top view before the camera's
perspective). The layout scales with the card height, as a camera zoomed closer would see it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FRAME_SIZE = (1920, 1080)
CARD_ASPECT = 0.714  # width / height of a poker-size card


@dataclass(frozen=True)
class Placement:
    """One card on the table: which card, where its centre is, how it is turned."""

    card: str  # code such as "QS"
    face_up: bool
    zone: str
    center: tuple[float, float]  # table-plane pixels
    angle: float  # degrees, counter-clockwise, 0 = upright portrait
    height: float  # card height in table-plane pixels


def zone_rects(height: float, size: tuple[int, int] = FRAME_SIZE) -> dict[str, np.ndarray]:
    """Each zone as a 4x2 polygon (clockwise from top-left) for cards `height` px tall."""
    w = height * CARD_ASPECT
    cx, cy = size[0] / 2, size[1] / 2 - 0.15 * height
    top, mid = cy - 0.68 * height, cy + 0.62 * height
    bottom = mid + 1.35 * w
    rects: dict[str, tuple[float, float, float, float]] = {}
    for side, sign in (("player", -1), ("banker", 1)):
        a, b, c = (cx + sign * k * w for k in (0.35, 1.6, 2.85))
        rects[f"{side}1"] = (min(a, b), top, max(a, b), mid)  # nearer the middle of the table
        rects[f"{side}2"] = (min(b, c), top, max(b, c), mid)
        rects[f"{side}3"] = (min(a, c), mid, max(a, c), bottom)  # the third card, sideways
    rects["discard"] = (cx + 3.0 * w, top, cx + 3.0 * w + 1.25 * height, mid)
    return {
        name: np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
        for name, (x0, y0, x1, y1) in rects.items()
    }


def zone_slot(zone: str, height: float) -> tuple[tuple[float, float], float]:
    """The nominal centre and angle of a card laid in `zone` (third cards lie sideways)."""
    poly = zone_rects(height)[zone]
    center = (float(poly[:, 0].mean()), float(poly[:, 1].mean()))
    return center, (90.0 if zone.endswith("3") else 0.0)


def _corners(p: Placement) -> np.ndarray:
    w = p.height * CARD_ASPECT
    rad = np.deg2rad(p.angle)
    rot = np.array([[np.cos(rad), np.sin(rad)], [-np.sin(rad), np.cos(rad)]])
    local = np.array([[-w / 2, -p.height / 2], [w / 2, -p.height / 2], [w / 2, p.height / 2],
                      [-w / 2, p.height / 2]])
    return local @ rot.T + np.array(p.center)


def card_corners(p: Placement) -> np.ndarray:
    """The card's corners in table-plane pixels: its own top-left, top-right, bottom-right,
    bottom-left (a card turned 180 degrees has its top-left at the bottom right)."""
    return _corners(p)


def overlaps(a: Placement, b: Placement, margin: float = 6.0) -> bool:
    """Whether two placed cards touch (within `margin` pixels)."""
    pa, pb = _corners(a), _corners(b)
    for poly in (pa, pb):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            normal = np.array([-edge[1], edge[0]]) / np.hypot(*edge)
            sa, sb = pa @ normal, pb @ normal
            if sa.max() + margin < sb.min() or sb.max() + margin < sa.min():
                return False
    return True


def random_deal(
    rng: np.random.Generator, codes: list[str], height: float, face_down_share: float = 0.25
) -> list[Placement]:
    """A plausible moment of a game: 4 to 6 cards in game positions, sometimes one in discard.

    Cards turn a little (third cards lie sideways), may lie upside down, and never touch.
    """
    n_cards = int(rng.integers(4, 7))
    zones = ["player1", "banker1", "player2", "banker2", "player3", "banker3"][:n_cards]
    if rng.random() < 0.35:
        zones.append("discard")
    picks = rng.choice(len(codes), size=len(zones), replace=False)
    placements: list[Placement] = []
    for zone, pick in zip(zones, picks, strict=True):
        for _ in range(50):
            (x, y), angle = zone_slot(zone, height)
            h = height * float(rng.uniform(0.96, 1.04))
            w = h * CARD_ASPECT
            if zone == "discard":
                angle = float(rng.uniform(0, 360))
            else:
                angle += float(np.clip(rng.normal(0, 4), -9, 9))
                angle += 180.0 if rng.random() < 0.5 else 0.0
            x += float(rng.uniform(-0.08, 0.08)) * w
            y += float(rng.uniform(-0.08, 0.08)) * w
            face_up = bool(rng.random() >= face_down_share)
            card = Placement(codes[pick], face_up, zone, (x, y), angle % 360.0, h)
            if not any(overlaps(card, other) for other in placements):
                placements.append(card)
                break
    return placements
