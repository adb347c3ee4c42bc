"""Table surfaces drawn procedurally: felt, wood, cloth, paper, carpet, cork, stone, a plain desk.

`TextureBank.build` draws a fixed set of grey patterns once (the same set for the same seed);
`background` cuts a piece of one at a random scale and turn, colours it with a palette of its
kind, and may print a casino layout on it (lines, arcs, boxes, words) or lay a second surface
beside it (a felt on a desk, the room beyond the table).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

BANK_SIDE = 512
KINDS = ("felt", "wood", "cloth", "paper", "carpet", "cork", "stone", "desk")

# per kind, pairs of (dark, light) BGR colours a surface of that kind may have
_PALETTES: dict[str, tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...]] = {
    "felt": (((20, 70, 10), (50, 130, 35)), ((90, 45, 10), (170, 100, 40)),
             ((20, 20, 90), (50, 50, 160)), ((60, 60, 60), (120, 120, 120)),
             ((25, 55, 20), (60, 110, 70)), ((60, 30, 40), (120, 70, 90))),
    "wood": (((20, 45, 90), (70, 120, 180)), ((30, 60, 110), (110, 170, 215)),
             ((15, 25, 45), (45, 75, 110)), ((60, 90, 130), (150, 190, 225))),
    "cloth": (((90, 40, 10), (200, 120, 50)), ((40, 40, 40), (200, 200, 200)),
              ((30, 30, 110), (100, 110, 210)), ((60, 90, 60), (160, 200, 170)),
              ((110, 70, 30), (230, 190, 140))),
    "paper": (((170, 180, 185), (235, 240, 245)), ((150, 170, 190), (215, 230, 240))),
    "carpet": (((30, 30, 60), (80, 90, 140)), ((50, 50, 50), (130, 130, 130)),
               ((60, 40, 20), (140, 110, 80)), ((20, 50, 30), (70, 120, 90))),
    "cork": (((40, 80, 120), (110, 160, 200)),),
    "stone": (((90, 90, 90), (220, 220, 220)), ((60, 70, 80), (170, 180, 190))),
    "desk": (((180, 180, 180), (235, 235, 235)), ((40, 40, 40), (80, 80, 80)),
             ((120, 150, 170), (180, 205, 225)), ((170, 160, 150), (225, 220, 215))),
}
INKS = ((70, 200, 230), (235, 235, 235), (60, 170, 200), (40, 40, 40), (40, 40, 180))
_WORDS = ("PLAYER", "BANKER", "TIE", "PAYS 8 TO 1", "BANKER PAYS 0.95 TO 1", "DRAGON", "PAIR",
          "11 TO 1", "PLAYER PAIR", "MIN 25 MAX 5000", "BACCARAT", "PUNTO", "BANCO", "1 2 3 4 5 6")


def _noise(rng: np.random.Generator, side: int, scale: float) -> np.ndarray:
    """Smooth random field in [0, 1]: white noise at `side / scale` cells, enlarged."""
    cells = max(2, round(side / scale))
    small = rng.random((cells, cells), dtype=np.float32)
    return cv2.resize(small, (side, side), interpolation=cv2.INTER_CUBIC)


def _fbm(rng: np.random.Generator, side: int, scales: tuple[float, ...]) -> np.ndarray:
    out = np.zeros((side, side), np.float32)
    weight = 1.0
    for scale in scales:
        out += weight * _noise(rng, side, scale)
        weight *= 0.55
    out -= out.min()
    return out / max(float(out.max()), 1e-6)


def _pattern(kind: str, rng: np.random.Generator, side: int) -> np.ndarray:
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    if kind == "felt":
        fine = cv2.GaussianBlur(rng.random((side, side), dtype=np.float32), (0, 0), 0.7)
        return 0.55 * _fbm(rng, side, (160, 60)) + 0.45 * fine
    if kind == "wood":
        warp = _fbm(rng, side, (200, 80, 30)) * rng.uniform(20, 60)
        rings = np.sin((yy + warp) * rng.uniform(0.08, 0.3))
        streaks = cv2.resize(rng.random((side, 8), dtype=np.float32), (side, side))
        return 0.5 + 0.25 * rings + 0.25 * (streaks.T - 0.5) + 0.1 * (_noise(rng, side, 4) - 0.5)
    if kind == "cloth":
        period = rng.uniform(3, 9)
        weave = np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)
        stripes = (np.sin(xx * 2 * np.pi / rng.uniform(20, 120)) > rng.uniform(-0.2, 0.9))
        mix = rng.uniform(0, 0.5) * stripes
        return 0.5 + 0.25 * weave + mix + 0.15 * (_noise(rng, side, 2) - 0.5)
    if kind == "paper":
        fibres = cv2.GaussianBlur(rng.random((side, side), dtype=np.float32), (0, 0), 1.2)
        return 0.85 + 0.5 * (fibres - 0.5) + 0.1 * _fbm(rng, side, (200, 50))
    if kind == "carpet":
        grains = rng.random((side, side), dtype=np.float32)
        loops = cv2.GaussianBlur(grains, (0, 0), 0.9)
        return 0.35 * _fbm(rng, side, (90, 25)) + 0.65 * (loops - loops.min()) * 2.5
    if kind == "cork":
        blobs = _noise(rng, side, 3) > 0.6
        speck = cv2.GaussianBlur(blobs.astype(np.float32), (0, 0), 0.8)
        return 0.6 - 0.5 * speck + 0.3 * _fbm(rng, side, (60, 12))
    if kind == "stone":
        veins = np.abs(np.sin((xx + yy) * 0.02 + _fbm(rng, side, (150, 50, 15)) * 8))
        return 0.6 + 0.4 * veins ** 0.3 * 0.5 + 0.2 * _noise(rng, side, 2)
    flat = 0.5 + 0.15 * _fbm(rng, side, (300,))  # a plain desk
    return flat + 0.04 * (_noise(rng, side, 1.5) - 0.5)


@dataclass
class TextureBank:
    """Grey surface patterns (float32, about 0..1) and the kind of each."""

    patterns: list[np.ndarray]
    kinds: list[str]

    @classmethod
    def build(cls, seed: int = 35, per_kind: int = 6, side: int = BANK_SIDE) -> TextureBank:
        rng = np.random.default_rng(seed)
        patterns, kinds = [], []
        for kind in KINDS:
            for _ in range(per_kind):
                patterns.append(np.clip(_pattern(kind, rng, side), 0, 1.2).astype(np.float32))
                kinds.append(kind)
        return cls(patterns, kinds)


def _surface(rng: np.random.Generator, bank: TextureBank, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    pick = int(rng.integers(len(bank.patterns)))
    pattern, kind = bank.patterns[pick], bank.kinds[pick]
    side = pattern.shape[0]
    scale = float(np.exp(rng.uniform(np.log(0.5), np.log(2.5))))
    angle = float(rng.uniform(0, 360))
    turn = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale), np.float64)
    turn[:, 2] += np.array([side / 2 - w / 2, side / 2 - h / 2]) + rng.uniform(-100, 100, 2)
    grey = cv2.warpAffine(pattern, turn, (w, h), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)
    palettes = _PALETTES[kind]
    dark, light = (np.array(c, np.float32) for c in palettes[int(rng.integers(len(palettes)))])
    jitter = rng.uniform(0.75, 1.25, 3).astype(np.float32)
    dark, light = dark * jitter, light * jitter
    contrast = float(rng.uniform(0.4, 1.0))
    mid = (dark + light) / 2
    low = (mid + (dark - mid) * contrast).astype(np.float32)
    high = (mid + (light - mid) * contrast).astype(np.float32)
    return low + grey[:, :, None] * (high - low)


def _print_layout(canvas: np.ndarray, rng: np.random.Generator) -> None:
    """Lines, arcs, boxes and words of a printed casino layout, in one ink."""
    h, w = canvas.shape[:2]
    colour = np.array(INKS[int(rng.integers(len(INKS)))], np.float32) * rng.uniform(0.8, 1.1)
    mask = np.zeros((h, w), np.uint8)
    ink = 255
    thick = int(rng.integers(1, 4))
    for _ in range(int(rng.integers(1, 6))):
        shape = rng.random()
        if shape < 0.3:
            centre = (int(rng.integers(-w, 2 * w)), int(rng.integers(-h, 2 * h)))
            radius = int(rng.integers(w // 3 + 1, 2 * w + 2))
            cv2.circle(mask, centre, radius, ink, thick, cv2.LINE_AA)
        elif shape < 0.6:
            x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
            bw, bh = int(rng.integers(8, max(9, w // 2))), int(rng.integers(8, max(9, h // 2)))
            cv2.rectangle(mask, (x0, y0), (x0 + bw, y0 + bh), ink, thick, cv2.LINE_AA)
        elif shape < 0.75:
            p = rng.integers(0, max(w, h), 4)
            cv2.line(mask, (int(p[0]), int(p[1])), (int(p[2]), int(p[3])), ink, thick, cv2.LINE_AA)
        else:
            word = _WORDS[int(rng.integers(len(_WORDS)))]
            at = (int(rng.integers(-w // 4, w)), int(rng.integers(0, h)) + 10)
            size = float(rng.uniform(0.4, 2.0))
            font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                                   cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX]))
            cv2.putText(mask, word, at, font, size, ink, max(1, round(size * 1.5)), cv2.LINE_AA)
    share = mask.astype(np.float32) * (rng.uniform(0.6, 1.0) / 255.0)
    canvas += (colour - canvas) * share[:, :, None]


def background(rng: np.random.Generator, bank: TextureBank, shape: tuple[int, int],
               layout: float = 0.35, second: float = 0.25) -> np.ndarray:
    """A float32 BGR table surface of `shape` (h, w), 0..255."""
    canvas = _surface(rng, bank, shape)
    if rng.random() < second:  # a second surface beyond a straight edge
        other = _surface(rng, bank, shape)
        h, w = shape
        a, b = rng.uniform(0, 2 * np.pi), rng.uniform(-0.45, 0.45)
        yy, xx = np.ogrid[0:h, 0:w]
        side = (np.cos(a) * (xx / w - 0.5) + np.sin(a) * (yy / h - 0.5)) > b
        canvas = np.where(side[:, :, None], other, canvas)
    if rng.random() < layout:
        _print_layout(canvas, rng)
    return canvas
