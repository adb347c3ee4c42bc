"""The card art training draws on: faces with their corner indices found, backs, surfaces.

`Artwork.load` renders (or reads from the card cache) every Debian SVG design it is given,
finds each face's corner indices from its ink (`indices.py`), and keeps each face as a
small picture pyramid; with `variants`, a design is also printed with jumbo indices and some
in four colours, as casinos' decks are. `enrol` adds a house deck from pictures of its faces.
The project's own drawn design (`hardware/camera/drawn/`) always joins training; the typeface
decks (`typefaces.py`, the drawn deck with its ranks in free fonts) only when named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from hardware.camera.drawn.faces import STANDARD, drawn_faces, index_box
from hardware.cards import CODES_BY_SUIT
from training.art import typefaces
from training.art.decks import (
    DESIGNS,
    HELD_OUT,
    default_cache,
    four_colour,
    large_index,
    load_faces,
)
from training.art.indices import IndexBox, design_indices, find_indices
from training.art.textures import TextureBank

DRAWN = "drawn"
# designs left out: not card-shaped (svg-future), or printing the rank and the suit in
# different corners, so that no corner holds an index (svg-oxygen, svg-oxygen-white)
NOT_STANDARD = ("svg-future", "svg-oxygen", "svg-oxygen-white")
# designs also printed in four colours (diamonds blue, clubs green), as some casinos use
FOUR_COLOUR = ("anglo_modern", "paris", "svg-standard", "orell", "svg-jolly-royal")
ART_HEIGHT = 360  # face height of the largest picture kept per face
LEVELS = 4  # pictures per face, each half the height of the one before


@dataclass
class Face:
    levels: list[np.ndarray]  # BGRA portrait pictures, largest first
    indices: list[IndexBox]

    @property
    def aspect(self) -> float:
        return self.levels[0].shape[0] / self.levels[0].shape[1]


@dataclass
class Artwork:
    """The faces (with their corner indices) and backs of the training designs, in memory."""

    names: list[str]
    faces: list[dict[str, Face]] = field(repr=False)  # per design: faces with indices
    backs: list[Face] = field(repr=False)
    bank: TextureBank = field(repr=False)

    @classmethod
    def load(cls, names: list[str], cache: Path | None = None, progress: bool = True,
             variants: bool | None = None, evaluation: bool = False) -> Artwork:
        """Render (or read from the card cache) every named design, find its indices, build
        each face's picture pyramid, and draw the surface patterns. With `variants` (the
        default for training), each Debian design is also printed with jumbo indices
        (`+jumbo`, where its indices are still found on every face) and some in four colours
        (`+4colour`, `FOUR_COLOUR`). Held-out designs are refused unless `evaluation` (art
        to score a trained model on, never to train on); so are unknown names, and typeface
        decks (`typefaces.DECKS`) whose fonts are not installed, with the packages."""
        why = unknown_designs(names)
        if why:
            raise ValueError(why)
        fonts = {f for n in names if n in typefaces.DECKS for f in typefaces.deck_layout(n).fonts}
        why = typefaces.missing_typefaces(tuple(sorted(fonts))) if fonts else None
        if why:
            raise ValueError(why)
        held = [n for n in names if n in HELD_OUT]
        if held and not evaluation:
            raise ValueError(f"design {', '.join(held)} is held out of training "
                             "(training.art.decks.HELD_OUT)")
        if variants is None:
            variants = not evaluation
        cache = cache or default_cache()
        kept, faces, backs = [], [], []
        for name in tqdm(names, desc="card art", disable=not progress, unit="design"):
            for label, found, back in _load_design(name, cache, variants):
                if found:
                    kept.append(label)
                    faces.append(found)
                backs.append(back)
        if not faces:
            raise ValueError(f"none of the designs {', '.join(names)} has readable corner indices")
        return cls(kept, faces, backs + plain_backs(), TextureBank.build())

    def enrol(self, name: str, pictures: dict[str, np.ndarray]) -> int:
        """Add a house deck from pictures of its faces (BGRA or BGR, cropped to the card,
        keyed by code; `back` optional) as one more design; returns how many faces have
        corner indices found (only those are used)."""
        found: dict[str, Face] = {}
        for code, picture in pictures.items():
            if picture.ndim == 2:
                picture = cv2.cvtColor(picture, cv2.COLOR_GRAY2BGRA)
            elif picture.shape[2] == 3:
                picture = cv2.cvtColor(picture, cv2.COLOR_BGR2BGRA)
            if picture.shape[1] > picture.shape[0]:
                picture = cv2.rotate(picture, cv2.ROTATE_90_CLOCKWISE)
            levels = _pyramid(picture)
            if code == "back":
                self.backs.append(Face(levels, []))
                continue
            if code not in CODES_BY_SUIT:
                continue
            boxes = find_indices(picture)  # at the picture's own, finer, size
            if boxes:
                found[code] = Face(levels, boxes)
        if found:
            self.names.append(name)
            self.faces.append(found)
        return len(found)


def unknown_designs(names: list[str]) -> str | None:
    """What is wrong with a list of design names (None when every one is known)."""
    known = (*DESIGNS, DRAWN, *typefaces.DECKS)
    unknown = [n for n in names if n not in known]
    if not unknown:
        return None
    return f"unknown card designs: {', '.join(unknown)} (known: {', '.join(known)})"


def designs_for_training() -> list[str]:
    """The designs training uses: every listed Debian design but the held-out and the
    non-standard ones, and the drawn design."""
    return [n for n in DESIGNS if n not in HELD_OUT and n not in NOT_STANDARD] + [DRAWN]


def _pyramid(face: np.ndarray) -> list[np.ndarray]:
    if face.shape[1] > face.shape[0]:  # a landscape design: its long side is its height
        face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
    scale = ART_HEIGHT / face.shape[0]
    top = cv2.resize(face, (max(1, round(face.shape[1] * scale)), ART_HEIGHT),
                     interpolation=cv2.INTER_AREA)
    levels = [top]
    for _ in range(LEVELS - 1):
        levels.append(cv2.pyrDown(levels[-1]))
    return levels


def _load_design(name: str, cache: Path, variants: bool
                 ) -> list[tuple[str, dict[str, Face], Face]]:
    """A design's faces with their indices and its back, and with `variants` its jumbo-index
    and four-colour printings, each as (label, faces, back)."""
    if name == DRAWN or name in typefaces.DECKS:
        layout = STANDARD if name == DRAWN else typefaces.deck_layout(name)
        raw = drawn_faces(ART_HEIGHT, layout)
        boxes = {}
        for code in CODES_BY_SUIT:
            h, w = raw[code].shape[:2]
            x0, y0, x1, y1 = index_box(code, ART_HEIGHT, layout)
            box = IndexBox(x0 / w, y0 / h, x1 / w, y1 / h, 0)
            boxes[code] = [box, box.turned()]
        return [(name, _faces(raw, boxes), Face(_pyramid(raw["back"]), []))]
    raw = {c: (cv2.rotate(f, cv2.ROTATE_90_CLOCKWISE) if f.shape[1] > f.shape[0] else f)
           for c, f in load_faces(name, cache).items()}
    boxes = design_indices(name, raw, cache)
    back = Face(_pyramid(raw["back"]), [])
    out = [(name, _faces(raw, boxes), back)]
    if not variants:
        return out
    jumbo = large_index(raw)
    (cache / f"{name}+jumbo").mkdir(parents=True, exist_ok=True)
    jumbo_boxes = design_indices(f"{name}+jumbo", jumbo, cache)
    if sum(bool(b) for b in jumbo_boxes.values()) >= 48:  # its indices are still whole
        out.append((f"{name}+jumbo", _faces(jumbo, jumbo_boxes), back))
    if name in FOUR_COLOUR:
        out.append((f"{name}+4colour", _faces(four_colour(raw), boxes), back))
    return out


def _faces(raw: dict[str, np.ndarray], boxes: dict[str, list[IndexBox]]) -> dict[str, Face]:
    return {code: Face(_pyramid(raw[code]), boxes[code])
            for code in CODES_BY_SUIT if boxes.get(code)}


_BACK_COLOURS = ((40, 40, 170), (150, 60, 20), (40, 110, 30), (30, 30, 30), (120, 40, 110),
                 (20, 90, 160))


def plain_backs(seed: int = 35, count: int = 40) -> list[Face]:
    """Card backs as decks print them, drawn (the same set for the same seed): a casino
    colour or any other, flat or shaded like gloss, with a white border, a thin dark one or
    none (printed to the edge), and a lattice, stripes, dots, a checker, scattered motifs or
    nothing inside. The finder learns "a back" from these and the designs' own backs."""
    rng = np.random.default_rng(seed)
    return [Face(_pyramid(_drawn_back(rng, k)), []) for k in range(count)]


def _back_colour(rng: np.random.Generator, k: int) -> np.ndarray:
    if k % 2 == 0:
        return np.array(_BACK_COLOURS[(k // 2) % len(_BACK_COLOURS)], np.float64) \
            * rng.uniform(0.8, 1.2)
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(100, 255), rng.uniform(60, 210)]]], np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float64)


def _drawn_back(rng: np.random.Generator, k: int) -> np.ndarray:
    h, w = ART_HEIGHT, round(ART_HEIGHT / rng.uniform(1.4, 1.56))
    colour = _back_colour(rng, k)
    edge = rng.choice(["white", "none", "dark"], p=[0.5, 0.35, 0.15])
    paper = (250, 250, 250) if edge == "white" else tuple(int(c) for c in colour * 0.4)
    art = np.zeros((h, w, 4), np.uint8)
    radius = round(rng.uniform(0.03, 0.08) * w)
    cv2.rectangle(art, (radius, 0), (w - 1 - radius, h - 1), (*paper, 255), -1)
    cv2.rectangle(art, (0, radius), (w - 1, h - 1 - radius), (*paper, 255), -1)
    for cx, cy in ((radius, radius), (w - 1 - radius, radius), (radius, h - 1 - radius),
                   (w - 1 - radius, h - 1 - radius)):
        cv2.circle(art, (cx, cy), radius, (*paper, 255), -1, cv2.LINE_AA)
    border = {"white": round(w * rng.uniform(0.04, 0.1)), "dark": max(2, round(0.015 * w)),
              "none": 0}[edge]
    inner = art[border : h - border, border : w - border]
    ih, iw = inner.shape[:2]
    if rng.random() < 0.35:  # shaded, as a glossy print
        along = np.linspace(0, 1, ih)[:, None] * rng.uniform(-0.5, 0.5) \
            + np.linspace(0, 1, iw)[None, :] * rng.uniform(-0.5, 0.5)
        shade = (1.0 + along - along.mean())[:, :, None]
    else:
        shade = np.ones((1, 1, 1))
    fill = np.clip(colour * shade, 0, 255)
    fill = np.broadcast_to(fill, (ih, iw, 3)) if fill.ndim == 3 else fill
    opaque = inner[:, :, 3] > 0
    inner[:, :, :3][opaque] = fill.astype(np.uint8)[opaque]
    tone = rng.uniform(0.3, 0.6) if rng.random() < 0.5 else rng.uniform(1.3, 1.8)
    ink = (*(int(c) for c in np.clip(colour * tone + rng.uniform(0, 60), 0, 255)), 255)
    step = int(rng.integers(8, 24))
    pattern = int(rng.integers(7 if edge != "none" else 6))  # a back printed to its edge
    # is never one flat colour: on a cloth of that colour it would be no card at all
    if pattern == 5:  # a picture: a few figures in their own colours, outlined
        for _ in range(int(rng.integers(2, 7))):
            at = (int(rng.integers(0, iw)), int(rng.integers(0, ih)))
            axes = (int(rng.integers(iw // 10, iw // 2)), int(rng.integers(ih // 12, ih // 3)))
            turn, fill_colour = float(rng.uniform(0, 180)), _back_colour(rng, 1)
            cv2.ellipse(inner, at, axes, turn, 0, 360, (*fill_colour, 255), -1, cv2.LINE_AA)
            cv2.ellipse(inner, at, axes, turn, 0, 360, (20, 20, 20, 255), 2, cv2.LINE_AA)
    elif pattern == 3:  # a checker
        for y in range(0, ih, step):
            for x in range((y // step % 2) * step, iw, 2 * step):
                cv2.rectangle(inner, (x, y), (x + step - 1, y + step - 1), ink, -1)
    elif pattern == 4:  # motifs scattered: rings, discs, diamonds
        for _ in range(int(rng.integers(3, 12))):
            at = (int(rng.integers(0, iw)), int(rng.integers(0, ih)))
            size = int(rng.integers(6, max(8, iw // 3)))
            cv2.circle(inner, at, size, ink, int(rng.choice([-1, 2, 4])), cv2.LINE_AA)
    for i in range(-ih, ih + iw, step):
        if pattern == 0:  # a diamond lattice
            cv2.line(inner, (i, 0), (i + ih, ih), ink, 2, cv2.LINE_AA)
            cv2.line(inner, (i + ih, 0), (i, ih), ink, 2, cv2.LINE_AA)
        elif pattern == 1:  # stripes
            cv2.line(inner, (i, 0), (i + ih, ih), ink, 3, cv2.LINE_AA)
        elif pattern == 2 and 0 <= i < iw:  # dots
            for j in range(step // 2, ih, step):
                cv2.circle(inner, (i + step // 2, j), step // 4, ink, -1, cv2.LINE_AA)
    inner[:, :, 3][~opaque] = 0
    return art
