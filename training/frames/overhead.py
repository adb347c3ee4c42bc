"""Render an overhead 1920x1080 frame of a baccarat layout with real card art, and its truth.

A `Table` is what stays put between frames of one camera (felt, printed layout, perspective,
lighting); `render` lays cards on it, adds hands and chips, and degrades the picture the
way a camera does (glare, blur, sensor noise, JPEG).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

import cv2
import numpy as np

from training.frames.layout import (
    FRAME_SIZE,
    Placement,
    card_corners,
    zone_rects,
)

_FELTS = ((40, 110, 20), (30, 90, 25), (95, 60, 15), (30, 30, 110), (60, 95, 35), (85, 85, 30))
_INKS = ((70, 200, 230), (235, 235, 235), (60, 170, 200))
_SKINS = ((120, 160, 225), (90, 130, 190), (60, 90, 140), (150, 185, 235))
_CHIPS = ((40, 40, 200), (200, 60, 30), (30, 30, 30), (40, 150, 40), (230, 230, 230), (30, 140, 220))


class _Centred(Protocol):
    @property
    def center(self) -> tuple[float, float]: ...


_Found = TypeVar("_Found", bound=_Centred)


@dataclass(frozen=True)
class CardTruth:
    """Ground truth for one card in a frame."""

    card: str
    face_up: bool
    zone: str
    quad: np.ndarray  # 4x2 frame pixels: the card's own TL, TR, BR, BL
    occluded: bool
    corners_clear: bool = True  # no hand or chip on any of its four index corners

    @property
    def center(self) -> tuple[float, float]:
        return float(self.quad[:, 0].mean()), float(self.quad[:, 1].mean())

    def near(self, found: Sequence[_Found]) -> list[_Found]:
        """Those of `found` (sightings) centred within a quarter of the card's height of it."""
        reach = 0.25 * float(np.linalg.norm(self.quad[3] - self.quad[0]))
        x, y = self.center
        return [f for f in found if np.hypot(f.center[0] - x, f.center[1] - y) < reach]


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR uint8
    cards: tuple[CardTruth, ...]
    zones: dict[str, np.ndarray]  # zone polygons in frame pixels


@dataclass
class Table:
    """One camera's view of one table: felt, printed layout, perspective, lighting."""

    height: float  # card height in table-plane pixels
    homography: np.ndarray  # table plane -> frame
    felt: np.ndarray  # the empty table as the camera sees it, before degradation
    light: np.ndarray  # float32 gain per pixel
    zones: dict[str, np.ndarray] = field(default_factory=dict)


def make_table(rng: np.random.Generator, height: float | None = None) -> Table:
    """A random felt with the layout printed on it, seen with mild perspective."""
    w, h = FRAME_SIZE
    height = float(height if height is not None else rng.uniform(120, 260))
    base = np.array(_FELTS[int(rng.integers(len(_FELTS)))], np.float32)
    base *= rng.uniform(0.8, 1.2)
    coarse = cv2.resize(rng.normal(0, 6, (h // 16, w // 16)).astype(np.float32), (w, h))
    fine = rng.normal(0, 5, (h, w)).astype(np.float32)
    felt = base[None, None, :] + (coarse + fine)[:, :, None]
    table = np.clip(felt, 0, 255).astype(np.uint8)
    zones = zone_rects(height)
    ink = tuple(int(c) for c in _INKS[int(rng.integers(len(_INKS)))])
    thick = max(2, round(height / 70))
    for name, poly in zones.items():
        pad = height * 0.04
        x0, y0 = poly.min(axis=0) + pad
        x1, y1 = poly.max(axis=0) - pad
        cv2.rectangle(table, (round(x0), round(y0)), (round(x1), round(y1)), ink, thick, cv2.LINE_AA)
        if name.endswith("1"):
            label = name[:-1].upper()
            cv2.putText(table, label, (round(x0), round(y0 - height * 0.08)),
                        cv2.FONT_HERSHEY_DUPLEX, height / 150, ink, thick, cv2.LINE_AA)
    cv2.putText(table, "BANKER PAYS 19 TO 20", (round(w * 0.3), round(h * 0.95)),
                cv2.FONT_HERSHEY_SIMPLEX, 1.1, ink, 2, cv2.LINE_AA)
    cv2.ellipse(table, (w // 2, -h // 3), (int(w * 0.62), int(h * 1.15)), 0, 0, 180, ink, thick,
                cv2.LINE_AA)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + rng.uniform(-1, 1, (4, 2)).astype(np.float32) * np.array([w, h], np.float32) * 0.035
    homography = cv2.getPerspectiveTransform(src, dst)
    view = cv2.warpPerspective(table, homography, (w, h), borderMode=cv2.BORDER_REFLECT)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-0.35, 0.35, 2)
    light = 1.0 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    light -= rng.uniform(0.0, 0.35) * (((xx - cx) / w) ** 2 + ((yy - cy) / h) ** 2)
    light *= rng.uniform(0.75, 1.15)
    mapped = {
        name: cv2.perspectiveTransform(poly[None].astype(np.float32), homography)[0].astype(
            np.float64
        )
        for name, poly in zones.items()
    }
    return Table(height, homography, view, light.astype(np.float32), mapped)


def _paste(canvas: np.ndarray, art: np.ndarray, quad: np.ndarray, blur_shadow: bool) -> None:
    """Warp a BGRA picture onto `canvas` so that its corners land on `quad` (TL, TR, BR, BL)."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 12
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 12
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    side = float(np.linalg.norm(quad[3] - quad[0]))
    scale = min(1.0, 1.3 * side / art.shape[0])
    if scale < 1.0:
        art = cv2.resize(art, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    ah, aw = art.shape[:2]
    src = np.array([[0, 0], [aw, 0], [aw, ah], [0, ah]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(art, matrix, size, flags=cv2.INTER_LINEAR)
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    region = canvas[y0:y1, x0:x1].astype(np.float32)
    if blur_shadow:
        shadow = cv2.GaussianBlur(alpha, (0, 0), max(2.0, side / 60))[:, :, None]
        shadow = np.roll(shadow, (3, 3), axis=(0, 1))
        region *= 1.0 - 0.35 * shadow
    region = region * (1 - alpha) + warped[:, :, :3].astype(np.float32) * alpha
    canvas[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)


def _draw_hand(canvas: np.ndarray, rng: np.random.Generator, at: np.ndarray, size: float,
               cover: np.ndarray) -> None:
    skin = np.array(_SKINS[int(rng.integers(len(_SKINS)))], np.float64)
    layer = np.zeros(canvas.shape[:2], np.uint8)
    angle = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(angle), np.sin(angle)])
    normal = np.array([-direction[1], direction[0]])
    palm = at - direction * size * 0.55
    axes = (round(size * 0.45), round(size * 0.36))
    cv2.ellipse(layer, tuple(np.round(palm).astype(int)), axes, float(np.degrees(angle)), 0, 360,
                255, -1, cv2.LINE_AA)
    for k in range(4):
        base = palm + direction * size * 0.3 + normal * size * (k - 1.5) * 0.2
        tip = base + direction * size * rng.uniform(0.45, 0.65)
        cv2.line(layer, tuple(np.round(base).astype(int)), tuple(np.round(tip).astype(int)), 255,
                 max(3, round(size * 0.15)), cv2.LINE_AA)
    cover |= layer
    mask = cv2.GaussianBlur(layer, (0, 0), 1.2).astype(np.float32)[:, :, None] / 255.0
    shade = 0.85 + 0.25 * cv2.GaussianBlur(layer, (0, 0), size * 0.2).astype(np.float32) / 255.0
    hand = skin[None, None, :] * shade[:, :, None]
    canvas[:] = np.clip(canvas * (1 - mask) + hand * mask, 0, 255).astype(np.uint8)


def _draw_chips(canvas: np.ndarray, rng: np.random.Generator, at: np.ndarray, size: float,
                cover: np.ndarray) -> None:
    for _ in range(int(rng.integers(1, 4))):
        color = tuple(int(c) for c in _CHIPS[int(rng.integers(len(_CHIPS)))])
        centre = tuple(np.round(at + rng.normal(0, size * 0.25, 2)).astype(int))
        radius = round(size * rng.uniform(0.22, 0.3))
        cv2.circle(canvas, centre, radius, color, -1, cv2.LINE_AA)
        cv2.circle(cover, centre, radius, 255, -1)
        cv2.circle(canvas, centre, radius, (255, 255, 255), max(2, radius // 7), cv2.LINE_AA)
        cv2.circle(canvas, centre, round(radius * 0.6), (240, 240, 240), 1, cv2.LINE_AA)


CORNER_BOX = (0.2, 0.28)  # share of a card's width and height holding a corner index


def _corners_clear(quad: np.ndarray, cover: np.ndarray) -> bool:
    """Whether `cover` (a mask of hands and chips) leaves all four index corners of the card
    at `quad` (its own TL, TR, BR, BL) clear: the issue's occlusions lie away from them."""
    bw, bh = CORNER_BOX
    box = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], np.float32)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_frame = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    for corner in np.array([[0, 0], [1 - bw, 0], [1 - bw, 1 - bh], [0, 1 - bh]], np.float32):
        poly = cv2.perspectiveTransform((box + corner)[None], to_frame)[0]
        x0, y0 = np.maximum(np.floor(poly.min(axis=0)).astype(int), 0)
        x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 1
        part = cover[y0:y1, x0:x1]
        inside = np.zeros_like(part)
        cv2.fillConvexPoly(inside, np.round(poly - [x0, y0]).astype(np.int32), 255)
        if np.count_nonzero(inside & part) > 0.03 * np.count_nonzero(inside):
            return False
    return True


def render(
    table: Table,
    placements: list[Placement],
    faces: dict[str, np.ndarray],
    rng: np.random.Generator,
    occlusion: float = 0.25,
    degrade: bool = True,
) -> Frame:
    """Lay `placements` on `table` with the card art in `faces`; returns the frame and its truth.

    `occlusion` is the chance that a card gets a hand or chips over its middle (never over its
    corners, where the indices are).
    """
    canvas = table.felt.copy()
    truths = []
    covers = []
    for p in placements:
        corners = card_corners(p)
        quad = cv2.perspectiveTransform(corners[None].astype(np.float32), table.homography)[0]
        art = faces[p.card] if p.face_up else faces["back"]
        if art.shape[1] > art.shape[0]:  # a landscape design: its long side is its height
            art = cv2.rotate(art, cv2.ROTATE_90_CLOCKWISE)
        _paste(canvas, art, quad.astype(np.float64), True)
        hidden = bool(rng.random() < occlusion)
        if hidden:
            along = rng.uniform(0.38, 0.62)
            across = rng.choice([-0.2, 0.5, 1.2])
            top = quad[0] + (quad[1] - quad[0]) * across
            bottom = quad[3] + (quad[2] - quad[3]) * across
            covers.append((top + (bottom - top) * along, float(np.linalg.norm(quad[3] - quad[0]))))
        truths.append(CardTruth(p.card, p.face_up, p.zone, quad.astype(np.float64), hidden))
    cover = np.zeros(canvas.shape[:2], np.uint8)
    for at, size in covers:
        if rng.random() < 0.5:
            _draw_hand(canvas, rng, at, size * 0.7, cover)
        else:
            _draw_chips(canvas, rng, at, size * 0.5, cover)
    for _ in range(int(rng.integers(0, 3))):  # chips on the betting areas, away from the cards
        at = np.array([rng.uniform(100, 1820), rng.uniform(850, 1040)])
        _draw_chips(canvas, rng, at, table.height * 0.5, cover)
    truths = [replace(t, corners_clear=_corners_clear(t.quad, cover)) for t in truths]
    image = canvas.astype(np.float32) * table.light[:, :, None]
    if degrade:
        image = _degrade(image, rng)
    return Frame(np.clip(image, 0, 255).astype(np.uint8), tuple(truths), table.zones)


def _degrade(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = image.shape[:2]
    for _ in range(int(rng.integers(0, 3))):  # glare from the table lights
        glare = np.zeros((h // 8, w // 8), np.float32)
        centre = (int(rng.integers(0, w // 8)), int(rng.integers(0, h // 8)))
        axes = (int(rng.integers(8, 40)), int(rng.integers(5, 25)))
        cv2.ellipse(glare, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        glare = cv2.GaussianBlur(cv2.resize(glare, (w, h)), (0, 0), rng.uniform(8, 30))
        image += glare[:, :, None] * rng.uniform(50, 120)
    image = np.clip(image, 0, 255)
    kind = rng.random()
    if kind < 0.45:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.5, 1.6))
    elif kind < 0.6:
        length = int(rng.integers(3, 8))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        turned = np.asarray(cv2.warpAffine(kernel, rot, (length, length)), np.float32)
        image = np.asarray(cv2.filter2D(image, -1, turned / max(float(turned.sum()), 1e-6)))
    image += rng.normal(0, rng.uniform(1.5, 7), image.shape).astype(np.float32)
    quality = int(rng.integers(45, 92))
    ok, jpeg = cv2.imencode(".jpg", np.clip(image, 0, 255).astype(np.uint8),
                            [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    if decoded is None:
        raise RuntimeError("JPEG round trip failed")
    return decoded.astype(np.float32)


def frames(
    faces: dict[str, np.ndarray], count: int, seed: int, occlusion: float = 0.25
) -> list[Frame]:
    """`count` independent frames (each its own table and deal) from one design, reproducibly."""
    from training.frames.layout import random_deal

    rng = np.random.default_rng(seed)
    codes = sorted(c for c in faces if c != "back")
    out = []
    for _ in range(count):
        table = make_table(rng)
        out.append(render(table, random_deal(rng, codes, table.height), faces, rng, occlusion))
    return out
