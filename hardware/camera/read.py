"""The reader stage: the finder's index spots in, one Sighting per card out.

Each spot's upright crop is cut from the full-resolution frame with `model.crop.cut_index`
(from a halved copy of the frame, as often as needed, when the card is larger than the
reader was trained on: halving blurs first, so the crop does not alias), all crops go through
`index.onnx` in one batch, and a softmax gives each its class. Reads of one card (its two
indices, or each index a fan leaves in view) are merged by code and predicted card centre;
the card's quad follows from its centre, up, width and `spec.CARD_ASPECT`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import cv2
import numpy as np

from hardware.camera.find import BackSpot, IndexSpot, load_session
from hardware.camera.model.crop import cut_index
from hardware.camera.model.settings import Settings
from hardware.camera.model.spec import CARD_ASPECT, CLASSES, INDEX_FILE, NOT_A_CARD


@dataclass(frozen=True)
class Sighting:
    """One card in a frame. `card` is set only when `face` is "up"; for a card not read,
    `why` says why ("like a card back" when face down; when unsure, the code it leaned to and
    why it is not sure of it)."""

    card: str | None
    face: str  # "up", "down" or "unsure"
    center: tuple[float, float]
    quad: tuple[tuple[float, float], ...]  # corners, clockwise from the card's own top-left
    confidence: float
    why: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True)
class Read:
    """One index spot and what the reader makes of it: the best class and its probability."""

    spot: IndexSpot
    code: str  # a card code, or NOT_A_CARD
    prob: float


class _Pyramid:
    """The frame, and copies of it halved as often as asked (each blurred, then subsampled)."""

    def __init__(self, frame: np.ndarray) -> None:
        self.levels = [frame]

    def level(self, k: int) -> np.ndarray:
        while len(self.levels) <= k:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[k]


def crops(frame: np.ndarray, spots: list[IndexSpot], settings: Settings) -> np.ndarray:
    """The reader's input [N, 3, CROP_H, CROP_W] float32 BGR in [0, 1] for `spots`."""
    pyramid = _Pyramid(frame)
    out = []
    for spot in spots:
        k = 0
        while spot.width / 2 ** k > settings.crop_card_width and min(
                pyramid.level(k).shape[:2]) >= 4:
            k += 1
        f = 0.5 ** k
        # pyrDown's pixel (i, j) sits over the frame's (2i, 2j): centres scale as they are
        out.append(cut_index(pyramid.level(k), (spot.at[0] * f, spot.at[1] * f), spot.up,
                             spot.width * f))
    batch = np.stack(out).astype(np.float32) * (1.0 / 255.0)
    return batch.transpose(0, 3, 1, 2)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class Reader:
    """`index.onnx` on the finder's spots: `Reader()(frame, spots) -> reads`."""

    settings: Settings = Settings()

    @cached_property
    def session(self) -> Any:
        return load_session(INDEX_FILE, self.settings)

    def __call__(self, frame: np.ndarray, spots: list[IndexSpot]) -> list[Read]:
        spots = [s for s in spots if s.width >= self.settings.min_card_width]
        if not spots:
            return []
        (logits,) = self.session.run(["logits"], {"crop": crops(frame, spots, self.settings)})
        probs = softmax(logits.astype(np.float64))
        best = probs.argmax(axis=1)
        return [Read(spot, CLASSES[int(b)], float(p[b]))
                for spot, b, p in zip(spots, best, probs, strict=True)]


def card_quad(centre: tuple[float, float], up: tuple[float, float], width: float
              ) -> tuple[tuple[float, float], ...]:
    """The card's corners, clockwise from its own top-left (image coordinates, y down)."""
    c, u = np.asarray(centre, np.float64), np.asarray(up, np.float64)
    right = np.array([-u[1], u[0]])
    half_h, half_w = u * (CARD_ASPECT * width / 2), right * (width / 2)
    corners = (c + half_h - half_w, c + half_h + half_w, c - half_h + half_w, c - half_h - half_w)
    return tuple((float(x), float(y)) for x, y in corners)


@dataclass
class _Card:
    code: str
    reads: list[Read]

    @property
    def best(self) -> Read:
        return max(self.reads, key=lambda r: r.prob)

    @property
    def centre(self) -> tuple[float, float]:
        xs = [r.spot.card_centre[0] for r in self.reads]
        ys = [r.spot.card_centre[1] for r in self.reads]
        return float(np.mean(xs)), float(np.mean(ys))

    @property
    def width(self) -> float:
        return float(np.mean([r.spot.width for r in self.reads]))

    def near(self, point: tuple[float, float], reach: float) -> bool:
        x, y = self.centre
        return float(np.hypot(point[0] - x, point[1] - y)) <= reach * self.width


def merge(reads: list[Read], backs: list[BackSpot], frame_shape: tuple[int, ...],
          settings: Settings) -> list[Sighting]:
    """One Sighting per card: reads of one code near one card centre are one card; a card
    whose best read is not sure, or whose centre another code's card shares, is "unsure";
    back spots not on a face are face-down cards."""
    cards: list[_Card] = []
    for read in sorted((r for r in reads if r.code != NOT_A_CARD), key=lambda r: -r.prob):
        home = next((c for c in cards if c.code == read.code
                     and c.near(read.spot.card_centre, settings.same_card)), None)
        if home is None:
            cards.append(_Card(read.code, [read]))
        else:
            home.reads.append(read)
    sightings = []
    for card in cards:
        best = card.best
        rivals = sorted({o.code for o in cards if o is not card and o.code != card.code
                         and o.near(card.centre, settings.clash)})
        quad = card_quad(card.centre, best.spot.up, card.width)
        if rivals:
            why = f"indices disagree: {card.code} or {' or '.join(rivals)}"
            sightings.append(Sighting(None, "unsure", card.centre, quad, best.prob, why))
        elif best.prob < settings.sure:
            why = f"not sure: {card.code} at {best.prob:.2f}"
            sightings.append(Sighting(None, "unsure", card.centre, quad, best.prob, why))
        else:
            sightings.append(Sighting(card.code, "up", card.centre, quad, best.prob))
    widths = [c.width for c in cards]
    back_width = (float(np.median(widths)) if widths
                  else settings.back_width_share * max(frame_shape[:2]))
    for back in backs:
        if any(c.near(back.at, settings.back_near_face) for c in cards):
            continue
        quad = card_quad(back.at, (0.0, -1.0), back_width)
        sightings.append(Sighting(None, "down", back.at, quad, back.heat, "like a card back"))
    return sightings
