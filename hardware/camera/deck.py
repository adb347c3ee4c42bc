"""What a card design looks like: per-card appearance templates, enrolled from clean faces.

A card found on the felt is warped to a small upright picture; its look is cut into a grid
of cells and each cell normalised (so lighting and glare cancel out). A deck model holds the
same cells for every face of a design; reading a card is finding the face whose cells agree
best, after dropping the cells that agree least (where a hand or chips lie).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from hardware.camera.align import Face
from hardware.camera.index import CODES, IndexModel, face_pictures
from hardware.camera.pips import PipModel

_CODE_INDEX = {c: i for i, c in enumerate(CODES)}
CANON = (60, 84)  # width, height of the upright card picture that is compared
GRID = (3, 4)  # cells across and down
INSET = 0.02  # share of the card trimmed at each edge before comparing
FORMAT = 7  # bump when the cells change: deck files of another format are refused
WARP = (round(CANON[0] * 2.08), round(CANON[1] * 2.08))  # a card warped upright from a frame


class DeckError(ValueError):
    """A deck folder or file cannot be used; the message says what and where."""


def upright(image: np.ndarray) -> np.ndarray:
    """A face picture turned so that its long side is vertical (landscape designs turn
    clockwise, as the generator and the camera see them)."""
    if image.shape[1] > image.shape[0]:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    return image


def on_grey(image: np.ndarray) -> np.ndarray:
    """A BGRA face flattened onto mid grey (its transparent rounded corners), as BGR."""
    if image.ndim == 3 and image.shape[2] == 4:
        alpha = image[:, :, 3:4].astype(np.float32) / 255.0
        flat = image[:, :, :3].astype(np.float32) * alpha + 110.0 * (1 - alpha)
        return flat.astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image


def _normalise(grey: np.ndarray, red: np.ndarray, out: np.ndarray) -> None:
    """Cells (k, pixels) of both planes -> zero-mean, unit-ish norm rows, written into the
    first columns of `out` (k, dims; the rest stays as it is: zeros, the padding)."""
    pixels = grey.shape[1]
    cells = out[:, : 2 * pixels]
    # each plane less its mean (np.mean's own sum and division, without its overhead)
    np.subtract(grey, np.add.reduce(grey, axis=1, keepdims=True) / pixels, out=cells[:, :pixels])
    np.subtract(red, np.add.reduce(red, axis=1, keepdims=True) / pixels, out=cells[:, pixels:])
    cells[:, pixels:] *= 0.7
    cells /= np.sqrt(np.add.reduce(cells**2, axis=1, keepdims=True) + 25.0 * cells.shape[1])


def fine_planes(picture: np.ndarray) -> np.ndarray:
    """An upright BGR card picture as two float planes (grey, redness) at twice CANON,
    with a thin margin trimmed off each edge: shape (2, 2*height, 2*width)."""
    w, h = CANON
    dx, dy = round(INSET * picture.shape[1]), round(INSET * picture.shape[0])
    inner = picture[dy : picture.shape[0] - dy, dx : picture.shape[1] - dx]
    resized = cv2.resize(inner, (2 * w, 2 * h), interpolation=cv2.INTER_AREA).astype(np.float32)
    # each plane made, then blurred: the blur is linear, and two planes cost less than three
    return np.stack([cv2.GaussianBlur(cv2.transform(resized, row), (0, 0), 1.0)
                     for row in _PLANES])


_PLANES = np.array([[[0.2, 0.5, 0.3]], [[-0.5, -0.5, 1.0]]], np.float32)  # BGR -> grey, redness


def plane_features(planes: np.ndarray) -> np.ndarray:
    """Normalised cells of `fine_planes`: shape (cells, dims).

    The first cells tile the whole card coarsely; the last four are the card's corners
    (where the indices are) at twice the detail.
    """
    w, h = CANON
    grey_f, red_f = planes[0], planes[1]
    grey = cv2.resize(grey_f, (w, h), interpolation=cv2.INTER_AREA)
    red = cv2.resize(red_f, (w, h), interpolation=cv2.INTER_AREA)
    dims = 2 * _CORNER[0] * _CORNER[1]
    cw, ch = w // GRID[0], h // GRID[1]

    def tiles(plane: np.ndarray) -> np.ndarray:
        cut = plane[: ch * GRID[1], : cw * GRID[0]].reshape(GRID[1], ch, GRID[0], cw)
        return cut.transpose(0, 2, 1, 3).reshape(GRID[0] * GRID[1], ch * cw)

    grid = GRID[0] * GRID[1]
    out = np.zeros((grid + CORNER_CELLS, dims), np.float32)
    _normalise(tiles(grey), tiles(red), out[:grid])
    kw, kh = _CORNER_REGION
    # the four corners (clockwise from top-left) of both planes, shrunk to _CORNER: as
    # cv2.resize(..., INTER_AREA) does, by its two (linear) maps at once
    patches = np.stack([
        planes[:, :kh, :kw], planes[:, :kh, 2 * w - kw:],
        planes[:, 2 * h - kh:, 2 * w - kw:], planes[:, 2 * h - kh:, :kw]], axis=1)
    shrunk = np.matmul(np.matmul(_CORNER_ROWS, patches), _CORNER_COLS)  # (2, 4, 28, 18)
    _normalise(shrunk[0].reshape(4, -1), shrunk[1].reshape(4, -1), out[grid:])
    return out


CORNER_CELLS = 4
_CORNER = (18, 28)
_CORNER_REGION = (round(0.22 * 2 * CANON[0]), round(0.3 * 2 * CANON[1]))  # width, height


def _area_map(size: int, to: int) -> np.ndarray:
    """cv2.resize's INTER_AREA along one axis from `size` to `to` pixels, as a (to, size)
    matrix (it is linear)."""
    return np.asarray(cv2.resize(np.eye(size, dtype=np.float32), (size, to),
                                 interpolation=cv2.INTER_AREA))


_CORNER_ROWS = _area_map(_CORNER_REGION[1], _CORNER[1])
_CORNER_COLS = np.ascontiguousarray(_area_map(_CORNER_REGION[0], _CORNER[0]).T)


def _turn_index() -> np.ndarray:
    """For the cells (cells, dims) of a picture turned half round: where each value comes
    from in the flattened cells of the picture itself. Grid cells and corners trade places
    (the corners clockwise from top-left: TL<->BR, TR<->BL) and within a cell each plane's
    pixels run backwards; the padding stays put."""
    w, h = CANON
    grid = GRID[0] * GRID[1]
    source = np.concatenate([np.arange(grid)[::-1], grid + np.array([2, 3, 0, 1])])
    dims = 2 * _CORNER[0] * _CORNER[1]
    index = np.empty((grid + CORNER_CELLS, dims), int)
    for cell, pixels in enumerate([(w // GRID[0]) * (h // GRID[1])] * grid
                                  + [_CORNER[0] * _CORNER[1]] * CORNER_CELLS):
        order = np.arange(dims)
        order[:pixels] = order[:pixels][::-1]
        order[pixels : 2 * pixels] = order[pixels : 2 * pixels][::-1]
        index[cell] = source[cell] * dims + order
    return index


_TURN_INDEX = _turn_index()


def turned_features(cells: np.ndarray) -> np.ndarray:
    """The `plane_features` of a picture turned half round, from those of the picture: the
    same numbers rearranged (equal up to rounding), at a fraction of the cost."""
    return cells.reshape(-1)[_TURN_INDEX]


@dataclass
class DeckModel:
    """Templates of one or more card designs: `codes[i]` looks like `cells[i]`."""

    name: str
    codes: list[str]
    cells: np.ndarray  # (n, cells, dims) float32
    backs: np.ndarray  # (m, cells, dims) float32: enrolled card backs, may be empty
    greys: np.ndarray  # (n, CANON height, CANON width) uint8: each face, for alignment
    index: IndexModel = field(default_factory=IndexModel.empty)  # corner index glyphs
    # (n, 2*CANON height, 2*CANON width) uint8: each face's grey at full detail, to tell
    # near-identical faces apart (`pairwise`); empty: that stage is skipped
    fine: np.ndarray = field(default_factory=lambda: np.zeros((0, 2 * CANON[1], 2 * CANON[0]),
                                                              np.uint8))
    pips: PipModel = field(default_factory=PipModel.empty)  # the big pips of number cards
    # (m, CANON height, CANON width) uint8: each enrolled back's grey, to move a quad that is
    # off onto a back (`snap`); empty in deck files made before they were kept
    back_greys: np.ndarray = field(default_factory=lambda: _grey([]))
    _faces: dict[int, Face] = field(default_factory=dict, init=False, repr=False,
                                    compare=False)

    def __post_init__(self) -> None:
        # kept cell-major in memory: reading compares every face's cell k with a picture's
        # cell k at once, and that runs faster on contiguous rows (the values are the same)
        self.cells = np.ascontiguousarray(self.cells.transpose(1, 0, 2)).transpose(1, 0, 2)

    def face(self, k: int, back: bool = False) -> Face:
        """What aligning a picture on face `k` (with `back`, on enrolled back `k`) needs
        (`align.Face`), worked out once."""
        key = -1 - k if back else k
        if key not in self._faces:
            self._faces[key] = Face.of(self.back_greys[k] if back else self.greys[k])
        return self._faces[key]

    @classmethod
    def from_faces(cls, name: str, faces: dict[str, np.ndarray]) -> DeckModel:
        missing = [c for c in CODES if c not in faces]
        if missing:
            raise DeckError(f"deck {name!r} lacks {len(missing)} faces: {', '.join(missing)}")
        flat = {c: on_grey(upright(faces[c])) for c in CODES}
        planes = [fine_planes(flat[c]) for c in CODES]
        pictures = {c: face_pictures(flat[c], WARP) for c in CODES}
        index = IndexModel.from_pictures(pictures)
        cells = np.stack([plane_features(p) for p in planes])
        back_planes = [fine_planes(on_grey(upright(faces["back"])))] if "back" in faces else []
        back_arr = np.stack([plane_features(p) for p in back_planes]) if back_planes else \
            np.zeros((0, *cells.shape[1:]), np.float32)
        fine = np.clip(np.stack([p[0] for p in planes]), 0, 255).astype(np.uint8)
        return cls(name, list(CODES), cells, back_arr, _grey(planes), index, fine,
                   PipModel.from_pictures(pictures), _grey(back_planes))

    def code_index(self) -> np.ndarray:
        """Where each template's code stands in CODES."""
        return np.array([_CODE_INDEX[c] for c in self.codes], int)

    @classmethod
    def merge(cls, name: str, decks: list[DeckModel]) -> DeckModel:
        return cls(
            name,
            [c for d in decks for c in d.codes],
            np.concatenate([d.cells for d in decks]),
            np.concatenate([d.backs for d in decks]),
            np.concatenate([d.greys for d in decks]),
            IndexModel.merge([d.index for d in decks]),
            np.concatenate([d.fine for d in decks]),
            PipModel.merge([d.pips for d in decks]),
            np.concatenate([d.back_greys for d in decks]),
        )

    def save(self, path: Path) -> None:
        meta = json.dumps({"name": self.name, "codes": self.codes, "canon": CANON, "grid": GRID,
                           "format": FORMAT})
        arrays: dict[str, np.ndarray] = {
            "meta": np.array(meta), "cells": self.cells.astype(np.float16),
            "backs": self.backs.astype(np.float16), "greys": self.greys,
            "fine": self.fine, "back_greys": self.back_greys,
            **{f"index_{k}": v for k, v in self.index.arrays().items()},
            **{f"pips_{k}": v for k, v in self.pips.arrays().items()},
        }
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> DeckModel:
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                cells = data["cells"].astype(np.float32)
                backs = data["backs"].astype(np.float32)
                greys = data["greys"]
                fine = data["fine"]
                back_greys = data["back_greys"] if "back_greys" in data.files else _grey([])
                index = IndexModel.from_arrays({k[6:]: data[k] for k in data.files
                                                if k.startswith("index_")})
                pips = PipModel.from_arrays({k[5:]: data[k] for k in data.files
                                             if k.startswith("pips_")})
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as err:
            raise DeckError(f"{path}: not a deck file made by `vision enroll` ({err})") from err
        if (tuple(meta.get("canon", ())) != CANON or tuple(meta.get("grid", ())) != GRID
                or meta.get("format") != FORMAT):
            raise DeckError(f"{path}: made by another version of the recognizer; enrol again")
        if len(fine) != len(cells):
            raise DeckError(f"{path}: {len(fine)} fine faces for {len(cells)} faces; enrol again")
        return cls(meta["name"], list(meta["codes"]), cells, backs, greys, index, fine, pips,
                   back_greys)


def _grey(planes: list[np.ndarray]) -> np.ndarray:
    """The grey planes of `fine_planes` at CANON size, as uint8 (k, height, width)."""
    w, h = CANON
    greys = [cv2.resize(p[0], CANON, interpolation=cv2.INTER_AREA) for p in planes]
    return np.clip(np.stack(greys), 0, 255).astype(np.uint8) if greys else \
        np.zeros((0, h, w), np.uint8)


def enrol_folder(folder: Path, name: str | None = None) -> DeckModel:
    """Learn a design from `folder` holding the 52 faces named by code (`QS.png`, `TD.jpg`...)
    and optionally `back.png`."""
    if not folder.is_dir():
        raise DeckError(f"{folder}: not a folder")
    found: dict[str, np.ndarray] = {}
    for path in sorted(folder.iterdir()):
        key = path.stem.upper() if path.stem.lower() != "back" else "back"
        if key not in CODES and key != "back":
            continue
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if image is None:
            raise DeckError(f"{path}: not a readable image")
        if key in found:
            raise DeckError(f"{path}: a second picture of {key}")
        found[key] = _crop_card(image)
    return DeckModel.from_faces(name or folder.name, found)


def _crop_card(image: np.ndarray) -> np.ndarray:
    """Trim a transparent margin around a face picture, if it has one."""
    if image.ndim == 3 and image.shape[2] == 4:
        ys, xs = np.nonzero(image[:, :, 3] > 24)
        if len(ys):
            return image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return image
