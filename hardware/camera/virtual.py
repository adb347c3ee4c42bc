"""Overhead frames of a baccarat layout drawn from what lies where: a camera with no camera.

`OverheadRenderer(zones)` draws a green felt with the layout's printed boxes (the zones of the
calibration, scaled to the frame), and on it the cards that lie in each zone, face up (our own
drawn faces, `drawn/faces.py`) or face down (their back). A card lies near its box's centre with a
small offset and turn of its own, the same in every frame (a card on the felt does not move);
a box wider than it is tall (the third cards' boxes) holds its card sideways. Each frame gets
mild sensor noise. Frames are as large as the calibration's frame (`Zones.size`) unless asked
otherwise. Everything is reproducible from the renderer's seed and the frame number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from hardware.camera.drawn.faces import ASPECT, drawn_faces
from hardware.camera.zones import Zones

FELT = (38, 92, 28)  # BGR
PRINT = (150, 196, 150)  # the boxes' printed lines
NOISE_SIGMA = 2.5
NOISE_FIELDS = 5
CARD_FILL = 0.8  # the card's share of its box's smaller fitting dimension
JITTER_SHIFT = 0.05  # a card's offset from its box's centre, in card heights at most
JITTER_TURN = 4.0  # and its turn, degrees at most


@dataclass(frozen=True)
class Lying:
    """A card on the felt: where (`zone`), what (`code`; None for a card seen only from its
    back, like the discard pile), face up or not, and `key`, the card's own identity (its
    offset and turn in the box follow from it)."""

    zone: str
    code: str | None
    face_up: bool
    key: int


class OverheadRenderer:
    """Draws frames of a layout seen from straight above (see the module's docstring)."""

    def __init__(self, zones: Zones, size: tuple[int, int] | None = None, seed: int = 0) -> None:
        self.size = size or zones.size
        self.zones = zones.scaled_to(*self.size)
        self.seed = seed
        self.card_height = self._card_height()

    def _card_height(self) -> int:
        """The largest card (times CARD_FILL) that fits every box, upright or sideways."""
        fits = []
        for poly in self.zones.polygons.values():
            _, (w, h), _ = cv2.minAreaRect(poly)
            long, short = max(w, h), min(w, h)
            fits.append(min(long, short * ASPECT))
        return max(24, round(CARD_FILL * min(fits)))

    @cached_property
    def felt(self) -> np.ndarray:
        """The empty table: felt with a faint weave and light falloff, and the printed boxes."""
        w, h = self.size
        rng = np.random.default_rng(self.seed)
        coarse = rng.normal(0.0, 4.0, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
        weave = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        falloff = 1.0 - 0.18 * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2) * 2
        image = (np.array(FELT, np.float32) * falloff[..., None] + weave[..., None])
        image = np.clip(image, 0, 255).astype(np.uint8)
        line = max(1, round(self.card_height / 60))
        for name, poly in self.zones.polygons.items():
            inset = _inset(poly, 0.03 * self.card_height)
            cv2.polylines(image, [np.round(inset).astype(np.int32)], True, PRINT, line, cv2.LINE_AA)
            label = name.upper()
            scale = self.card_height / 260
            (tw, _), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
            (x0, _), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
            at = (round((x0 + x1) / 2 - tw / 2), round(y1 - 0.06 * self.card_height))
            cv2.putText(image, label, at, cv2.FONT_HERSHEY_SIMPLEX, scale, PRINT, 1, cv2.LINE_AA)
        image.setflags(write=False)
        return image

    def placement(self, card: Lying) -> tuple[tuple[float, float], float]:
        """Where a card lies: its centre in frame pixels and its turn in degrees."""
        poly = self.zones.polygons[card.zone]
        (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        sideways = card.zone != "discard" and (x1 - x0) > 1.15 * (y1 - y0)
        jitter = _jitter(self.seed, card.key, card.zone)
        shift = JITTER_SHIFT * self.card_height
        angle = (90.0 if sideways else 0.0) + JITTER_TURN * jitter[2]
        return (float(cx + shift * jitter[0]), float(cy + shift * jitter[1])), angle

    def quad(self, card: Lying) -> tuple[tuple[float, float], ...]:
        """A card's corners in frame pixels, clockwise from its own top-left."""
        (cx, cy), angle = self.placement(card)
        h = self.card_height
        w = round(h / ASPECT)
        turn = np.deg2rad(angle)
        c, s = np.cos(turn), np.sin(turn)
        corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
        return tuple((float(cx + x * c - y * s), float(cy + x * s + y * c)) for x, y in corners)

    def render(self, cards: Sequence[Lying], frame: int = 0) -> np.ndarray:
        """One BGR frame of the layout with `cards` on it (later cards lie on earlier ones)."""
        image = self.felt.copy()
        faces = drawn_faces(self.card_height)
        for card in cards:
            art = faces[card.code] if card.face_up and card.code else faces["back"]
            centre, angle = self.placement(card)
            _lay(image, art, centre, angle)
        noisy = image.astype(np.int16)
        noisy += self.noise[frame % len(self.noise)]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    @cached_property
    def noise(self) -> list[np.ndarray]:
        """A few fields of sensor noise, taken in turn (drawing one per frame costs too much)."""
        rng = np.random.default_rng((self.seed, 1))
        w, h = self.size
        return [np.round(rng.normal(0.0, NOISE_SIGMA, (h, w, 3))).astype(np.int16)
                for _ in range(NOISE_FIELDS)]


def _jitter(seed: int, key: int, zone: str) -> np.ndarray:
    """Three numbers in [-1, 1], fixed for a card in a zone (blake2: stable across runs)."""
    digest = hashlib.blake2b(f"{seed}:{key}:{zone}".encode(), digest_size=6).digest()
    return np.frombuffer(digest, np.uint16)[:3].astype(np.float64) / 32767.5 - 1.0


def _inset(poly: np.ndarray, by: float) -> np.ndarray:
    centre = poly.mean(axis=0)
    span = np.linalg.norm(poly - centre, axis=1, keepdims=True)
    return centre + (poly - centre) * np.maximum(0.0, 1.0 - by / np.maximum(span, 1e-6))


def _lay(image: np.ndarray, art: np.ndarray, centre: tuple[float, float], angle: float) -> None:
    """Composite a BGRA card turned by `angle` degrees with its centre at `centre`."""
    h, w = art.shape[:2]
    side = int(np.ceil(np.hypot(w, h))) + 2
    x0, y0 = round(centre[0] - side / 2), round(centre[1] - side / 2)
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, 1.0)
    matrix[:, 2] += (centre[0] - x0 - w / 2, centre[1] - y0 - h / 2)
    patch = cv2.warpAffine(art, matrix, (side, side), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    fx0, fy0 = max(0, x0), max(0, y0)
    fx1, fy1 = min(image.shape[1], x0 + side), min(image.shape[0], y0 + side)
    if fx1 <= fx0 or fy1 <= fy0:
        return
    part = patch[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0].astype(np.float32)
    alpha = part[..., 3:] / 255.0
    region = image[fy0:fy1, fx0:fx1].astype(np.float32)
    shadow = np.roll(cv2.GaussianBlur(alpha, (0, 0), 2.0), (3, 2), axis=(0, 1))
    region *= 1.0 - 0.3 * shadow.reshape(alpha.shape)
    image[fy0:fy1, fx0:fx1] = (region * (1 - alpha) + part[..., :3] * alpha + 0.5).astype(np.uint8)
