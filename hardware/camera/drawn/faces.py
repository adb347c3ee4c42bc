"""Our own card deck, drawn by code: nothing outside the package is needed to draw a card.

A standard French-suited deck with English indices: a white rounded card; in its top-left
corner the rank (A 2-10 J Q K, "10" for the code's T) in a thick antialiased Hershey font
with the suit pip under it, and the same index turned 180 degrees in the bottom-right corner;
pips in the usual places for A-10, a framed letter and pips for the courts. Hearts and
diamonds are red, spades and clubs black; the suit symbols are filled shapes built from
circles and polygons. The back is a patterned blue lattice inside a white margin.

Every shape is drawn into a large mask and shrunk with area averaging, so the edges are
antialiased at any card height. `drawn_faces(height)` gives every face and the back as BGRA
images (transparent outside the rounded corners); `index_box(code, height)` gives where the
top-left index lies on a face, for labelling training data. A `Layout` moves and sizes the
corner index and may print each card's rank in a typeface (training's typeface decks give the
function that draws one, `training/art/typefaces.py`); the default is the deck described
above. The suit symbols are `suits.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from hardware.camera.drawn.suits import suit_mask
from hardware.cards import CODES_BY_SUIT

ASPECT = 1.4  # card height / width
FONT = cv2.FONT_HERSHEY_DUPLEX

RED = (30, 20, 200)  # BGR
BLACK = (25, 25, 25)
PAPER = (246, 248, 250)
EDGE = (170, 170, 170)
BACK_INK = (125, 60, 25)
COURT_TINT = (205, 232, 246)


@dataclass(frozen=True)
class Layout:
    """Where the top-left corner index lies, in card widths (x) and card heights (y), and the
    rank glyphs' typefaces: one typeface key per card (`CODES_BY_SUIT` order), drawn by
    `typeface` (rank text, key) -> uint8 coverage mask, or none for the Hershey font.
    `pip_style` k > 0 draws the suit shapes other than the standard ones, the same for every
    card of the deck (`suits.suit_mask`)."""

    index_x: float = 0.105  # centre line of the rank glyph and the pip under it
    rank_top: float = 0.035
    rank_h: float = 0.088
    rank_w: float = 0.13  # widest a rank glyph may be
    rank_w_ten: float = 0.185  # "10" gets more room
    pip_top: float = 0.135
    pip_h: float = 0.058
    fonts: tuple[str, ...] = ()
    typeface: Callable[[str, str], np.ndarray] | None = None  # draws a rank in a `fonts` key
    pip_aspect: float = 0.86  # the corner pip's width / height
    pip_style: int = 0  # 0: the suit shapes described above; k > 0: shapes drawn from k


STANDARD = Layout()
_CORNER_RADIUS = 0.06  # in card widths

# Pip layouts for 2-10: (column, row), column -1/0/1 = left/centre/right, row 0..1 top..bottom.
_L, _C, _R = -1, 0, 1
_PIPS: dict[str, tuple[tuple[int, float], ...]] = {
    "2": ((_C, 0), (_C, 1)),
    "3": ((_C, 0), (_C, 0.5), (_C, 1)),
    "4": ((_L, 0), (_R, 0), (_L, 1), (_R, 1)),
    "5": ((_L, 0), (_R, 0), (_C, 0.5), (_L, 1), (_R, 1)),
    "6": ((_L, 0), (_R, 0), (_L, 0.5), (_R, 0.5), (_L, 1), (_R, 1)),
    "7": ((_L, 0), (_R, 0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_L, 1), (_R, 1)),
    "8": ((_L, 0), (_R, 0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_C, 0.75), (_L, 1), (_R, 1)),
    "9": ((_L, 0), (_R, 0), (_L, 1 / 3), (_R, 1 / 3), (_C, 0.5), (_L, 2 / 3), (_R, 2 / 3),
          (_L, 1), (_R, 1)),
    "T": ((_L, 0), (_R, 0), (_C, 1 / 6), (_L, 1 / 3), (_R, 1 / 3), (_L, 2 / 3), (_R, 2 / 3),
          (_C, 5 / 6), (_L, 1), (_R, 1)),
}


def rank_text(code: str) -> str:
    """What the index prints for a code's rank: "10" for T, the letter or digit otherwise."""
    return "10" if code[0] == "T" else code[0]


def suit_colour(code: str) -> tuple[int, int, int]:
    return RED if code[-1] in "HD" else BLACK


def _shrink(mask: np.ndarray, w: int, h: int) -> np.ndarray:
    """A 0/255 mask shrunk to w x h, as float coverage in [0, 1] (area-averaged: antialiased)."""
    return cv2.resize(mask, (max(1, w), max(1, h)), interpolation=cv2.INTER_AREA) / 255.0


@lru_cache(maxsize=32)
def _glyph_mask(text: str) -> np.ndarray:
    """The text in the index font, thick, cropped tight to its ink, as uint8 0/255.

    The font's zero is slashed, which no card prints: "10" is drawn as "1" and letter "O"."""
    text = text.replace("0", "O")
    scale, thick = 5.0, 16
    (tw, th), base = cv2.getTextSize(text, FONT, scale, thick)
    canvas = np.zeros((th + base + 4 * thick, tw + 4 * thick), np.uint8)
    cv2.putText(canvas, text, (2 * thick, th + 2 * thick), FONT, scale, 255, thick, cv2.LINE_8)
    ys, xs = np.nonzero(canvas)
    return canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _paint(face: np.ndarray, cover: np.ndarray, x0: int, y0: int, colour: tuple[int, ...]) -> None:
    """Blend `colour` into `face` (BGR(A)) with coverage `cover`, its top-left at (x0, y0)."""
    h, w = cover.shape
    fx0, fy0 = max(0, x0), max(0, y0)
    fx1, fy1 = min(face.shape[1], x0 + w), min(face.shape[0], y0 + h)
    if fx1 <= fx0 or fy1 <= fy0:
        return
    c = cover[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0, None]
    region = face[fy0:fy1, fx0:fx1, :3].astype(np.float32)
    ink = np.array(colour[:3], np.float32)
    face[fy0:fy1, fx0:fx1, :3] = (region * (1 - c) + ink * c + 0.5).astype(np.uint8)


def _rank_glyph(code: str, text: str, layout: Layout) -> np.ndarray:
    """`text` (a rank) as the card `code` prints it: in its typeface, or the Hershey font."""
    if not layout.fonts:
        return _glyph_mask(text)
    if layout.typeface is None:
        raise ValueError("a Layout with fonts needs the typeface that draws them")
    return layout.typeface(text, layout.fonts[CODES_BY_SUIT.index(code)])


def _glyph_box(code: str, height: int, layout: Layout) -> tuple[int, int, int, int]:
    """The rank glyph's box (x0, y0, x1, y1) in a face of this height."""
    width = round(height / ASPECT)
    mask = _rank_glyph(code, rank_text(code), layout)
    gh = max(2, round(layout.rank_h * height))
    max_w = (layout.rank_w_ten if code[0] == "T" else layout.rank_w) * width
    gw = max(1, min(round(mask.shape[1] * gh / mask.shape[0]), round(max_w)))
    x0 = round(layout.index_x * width - gw / 2)
    y0 = round(layout.rank_top * height)
    return x0, y0, x0 + gw, y0 + gh


def _pip_box(height: int, layout: Layout) -> tuple[int, int, int, int]:
    width = round(height / ASPECT)
    ph = max(2, round(layout.pip_h * height))
    pw = max(2, round(ph * layout.pip_aspect))
    x0 = round(layout.index_x * width - pw / 2)
    y0 = round(layout.pip_top * height)
    return x0, y0, x0 + pw, y0 + ph


def index_box(code: str, height: int = 480,
              layout: Layout = STANDARD) -> tuple[int, int, int, int]:
    """The top-left corner index's box (x0, y0, x1, y1), face pixels: rank glyph and suit pip.

    x1, y1 are exclusive. The bottom-right index is the same box turned 180 degrees about the
    face's centre: (w - x1, h - y1, w - x0, h - y0).
    """
    if code not in CODES_BY_SUIT:
        raise ValueError(f"not a card code: {code!r}")
    gx0, gy0, gx1, gy1 = _glyph_box(code, height, layout)
    px0, py0, px1, py1 = _pip_box(height, layout)
    return min(gx0, px0), min(gy0, py0), max(gx1, px1), max(gy1, py1)


def _draw_index(face: np.ndarray, code: str, layout: Layout) -> None:
    height = face.shape[0]
    colour = suit_colour(code)
    x0, y0, x1, y1 = _glyph_box(code, height, layout)
    _paint(face, _shrink(_rank_glyph(code, rank_text(code), layout), x1 - x0, y1 - y0), x0, y0,
           colour)
    x0, y0, x1, y1 = _pip_box(height, layout)
    _paint(face, _shrink(suit_mask(code[1], layout.pip_style), x1 - x0, y1 - y0), x0, y0,
           colour)


def _draw_pip(face: np.ndarray, suit: str, cx: float, cy: float, size: float, flip: bool,
              colour: tuple[int, int, int], layout: Layout) -> None:
    h = max(2, round(size))
    w = max(2, round(size * layout.pip_aspect))
    mask = suit_mask(suit, layout.pip_style)
    if flip:
        mask = mask[::-1]
    _paint(face, _shrink(np.ascontiguousarray(mask), w, h), round(cx - w / 2), round(cy - h / 2),
           colour)


def _draw_middle(face: np.ndarray, code: str, layout: Layout) -> None:
    height, width = face.shape[:2]
    rank, suit, colour = code[0], code[1], suit_colour(code)
    if rank == "A":
        _draw_pip(face, suit, width / 2, height / 2, 0.42 * width, False, colour, layout)
        return
    if rank in _PIPS:
        size = 0.18 * width
        top, bottom = 0.2 * height, 0.8 * height
        for col, row in _PIPS[rank]:
            cx = width / 2 + col * 0.215 * width
            cy = top + row * (bottom - top)
            _draw_pip(face, suit, cx, cy, size, row > 0.5, colour, layout)
        return
    _draw_court(face, code, layout)


def _draw_court(face: np.ndarray, code: str, layout: Layout) -> None:
    """A court card's picture: a tinted frame holding a large letter and pip, and the same
    turned 180 degrees in the lower half."""
    height, width = face.shape[:2]
    colour = suit_colour(code)
    x0, y0 = round(0.22 * width), round(0.13 * height)
    x1, y1 = width - x0, height - y0
    cv2.rectangle(face, (x0, y0), (x1, y1), (*COURT_TINT, 255), -1)
    line = max(1, round(0.012 * width))
    cv2.rectangle(face, (x0, y0), (x1, y1), (*colour, 255), line, cv2.LINE_AA)
    cv2.line(face, (x0, height // 2), (x1, height // 2), (*colour, 255), line, cv2.LINE_AA)
    for half in (0, 1):
        if half:
            face[:] = face[::-1, ::-1].copy()
        letter = _rank_glyph(code, code[0], layout)
        lh = round(0.15 * height)
        lw = round(letter.shape[1] * lh / letter.shape[0])
        _paint(face, _shrink(letter, lw, lh), round(width / 2 - lw / 2), round(0.18 * height),
               colour)
        _draw_pip(face, code[1], width / 2, 0.41 * height, 0.13 * width, False, colour,
                  layout)
        if half:
            face[:] = face[::-1, ::-1].copy()


def _blank(height: int) -> np.ndarray:
    """A white card with a thin grey edge, transparent outside its rounded corners."""
    width = round(height / ASPECT)
    k = 4  # the outline is drawn k times larger and shrunk: smooth corners
    big = np.zeros((height * k, width * k), np.uint8)
    r = max(1, round(_CORNER_RADIUS * width * k))
    cv2.rectangle(big, (r, 0), (width * k - 1 - r, height * k - 1), 255, -1)
    cv2.rectangle(big, (0, r), (width * k - 1, height * k - 1 - r), 255, -1)
    for cx in (r, width * k - 1 - r):
        for cy in (r, height * k - 1 - r):
            cv2.circle(big, (cx, cy), r, 255, -1)
    alpha = cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)
    inner = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=max(1, height // 400))
    face = np.zeros((height, width, 4), np.uint8)
    face[..., :3] = EDGE
    face[..., 3] = alpha
    paper = (inner.astype(np.float32) / 255.0)[..., None]
    face[..., :3] = (face[..., :3] * (1 - paper) + np.array(PAPER, np.float32) * paper).astype(
        np.uint8
    )
    return face


def _draw_face(code: str, height: int, layout: Layout) -> np.ndarray:
    face = _blank(height)
    _draw_index(face, code, layout)
    face[:] = face[::-1, ::-1].copy()
    _draw_index(face, code, layout)
    face[:] = face[::-1, ::-1].copy()
    _draw_middle(face, code, layout)
    return face


def _draw_back(height: int) -> np.ndarray:
    """A blue lattice of diamonds inside a white margin, with a double frame line."""
    face = _blank(height)
    width = face.shape[1]
    m = round(0.07 * width)
    inner = face[m : height - m, m : width - m]
    ih, iw = inner.shape[:2]
    inner[..., :3] = BACK_INK
    step = max(4, round(0.09 * width))
    light = tuple(int(c * 0.45 + 255 * 0.55) for c in BACK_INK)
    line = max(1, round(0.01 * width))
    for off in range(-ih, iw + ih, step):
        cv2.line(inner, (off, 0), (off + ih, ih), (*light, 255), line, cv2.LINE_AA)
        cv2.line(inner, (off, ih), (off + ih, 0), (*light, 255), line, cv2.LINE_AA)
    for y in range(step // 2, ih, step):
        for x in range(step // 2 if (y // step) % 2 else 0, iw, step):
            cv2.circle(inner, (x, y), max(1, step // 7), (*light, 255), -1, cv2.LINE_AA)
    f = round(0.03 * width)
    cv2.rectangle(inner, (f, f), (iw - 1 - f, ih - 1 - f), (*PAPER, 255), line * 2, cv2.LINE_AA)
    return face


@lru_cache(maxsize=4)
def _faces(height: int, layout: Layout) -> dict[str, np.ndarray]:
    faces = {code: _draw_face(code, height, layout) for code in CODES_BY_SUIT}
    faces["back"] = _draw_back(height)
    for image in faces.values():
        image.setflags(write=False)
    return faces


def drawn_faces(height: int = 480, layout: Layout = STANDARD) -> dict[str, np.ndarray]:
    """Every face (by code, `CODES_BY_SUIT` order) and "back" as BGRA images `height` tall,
    `round(height / 1.4)` wide. Deterministic; drawn once per height and cached (the images
    are read-only: copy one to change it)."""
    if height < 24:
        raise ValueError(f"card height {height} is too small to draw (at least 24 pixels)")
    return dict(_faces(height, layout))
