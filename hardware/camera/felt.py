"""The felt and the masks drawn from it: frame in, half-size masks out (pure).

The felt is the one colour that fills most of an overhead frame. Its colour and brightness
are estimated as smooth fields (so uneven lighting and soft glare stay "felt"); everything
that differs from them is not felt (cards, hands, chips, printed lines), and what is white,
holds no felt and is brighter than the felt is card paper. Under a glare spot white paper
is not that much brighter, and paper there is told apart otherwise (`_paper_in_glare`).
`detect.find_cards` looks for cards in these masks.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera.ink import percentiles

WORK_SCALE = 0.5  # detection runs on a half-size frame
_FIELD_HALVINGS = 2  # felt fields are estimated on the half-size frame halved twice (1/8)
_FIELD_SIGMA = 4.0  # ... and smoothed this much (in those pixels): glare is sharper


def _felt_basis(tiny: np.ndarray) -> np.ndarray:
    """A 3x3 matrix taking a BGR pixel to (felt amount, white amount, off-plane distance).

    Lighting scales the felt colour and glare adds white, so felt pixels lie on the plane
    spanned by the felt colour and white, with a felt amount and a white amount that vary
    slowly across the frame. A white card lies on that plane too, but with no felt in it.
    `tiny` is a uint8 BGR picture of the table.
    """
    felt = np.array([percentiles(c, (50,))[0] for c in cv2.split(tiny)]) + 1.0
    white = np.ones(3) / np.sqrt(3.0)
    chroma = felt - white * (felt @ white)
    if np.linalg.norm(chroma) < 8.0:  # a grey felt: make up a chroma axis; brightness decides
        felt = felt + np.array([0.0, 8.0, -8.0])
    basis = np.stack([felt, white], axis=1)
    amount, whiteness = np.linalg.pinv(basis)
    normal = np.cross(felt, white)
    return np.array([amount, whiteness, normal / np.linalg.norm(normal)])


def _fields(planes: list[np.ndarray], weight: np.ndarray) -> list[np.ndarray]:
    """Each plane smoothed where `weight` says felt, filling the rest from around."""
    norm = cv2.GaussianBlur(weight, (0, 0), _FIELD_SIGMA) + 1e-6
    return [cv2.GaussianBlur(values * weight, (0, 0), _FIELD_SIGMA) / norm for values in planes]


def masks(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half-size uint8 masks of what is not felt (cards, hands, chips, printed lines) and of
    card paper alone (white, holding no felt, solid: lines, text and chip rims are opened
    away, pips and pictures filled in)."""
    mask, paper_mask, *_ = all_masks(frame)
    return mask, paper_mask


def all_masks(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Glare | None]:
    """`masks`, a mask of grey lines (paper at any brightness, nothing opened away: card
    borders, printed lines, text), and where the frame holds glare, the paper mask around it
    with what is paper under glare added (`_paper_in_glare`)."""
    small = cv2.resize(frame, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    # thin bright printing (layout lines, text) is eroded away first, so that it does not
    # pass for glare on the felt
    tiny = cv2.erode(small, _SQUARE5)
    for _ in range(_FIELD_HALVINGS):  # OpenCV's area resize by two is 4x as quick as by four
        tiny = cv2.resize(tiny, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    tiny_f = tiny.astype(np.float32)
    matrix = _felt_basis(tiny).astype(np.float32)
    t = cv2.transform(tiny_f, matrix)
    typical = float(np.median(t[:, :, 0]))
    felt = (np.abs(t[:, :, 2]) < 18) & (t[:, :, 0] > 0.5 * typical) & (t[:, :, 0] < 1.6 * typical)
    weight = felt.astype(np.float32)
    channels = cv2.split(tiny_f)
    brightest = cv2.max(cv2.max(channels[0], channels[1]), channels[2])
    fields = _fields([t[:, :, 0], t[:, :, 1], brightest], weight)
    box = _glare_box(fields[2], small.shape[0] // tiny.shape[0])
    not_felt, grey, paper, glared = _classified(small, matrix, fields, box is not None)
    mask: np.ndarray = not_felt.view(np.uint8) * np.uint8(255)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    _fill(mask)
    light = grey.view(np.uint8) * np.uint8(255)
    paper_mask = _solid(paper)
    if box is None:
        return mask, paper_mask, light, None
    # the cards under the glare may reach out of it by a card's length
    x0, y0 = max(box[0] - _REACH, 0), max(box[1] - _REACH, 0)
    around = np.s_[y0 : box[3] + _REACH, x0 : box[2] + _REACH]
    more = glared[around] & ~paper[around]
    if np.count_nonzero(more) < _GLARE_PAPER:  # most glare spots hold no card
        return mask, paper_mask, light, None
    return mask, paper_mask, light, Glare(_solid(paper[around] | more), (x0, y0))


_TILE = 20  # half-size pixels: the side of the tiles, each worked out in full only when busy
_CHUNK = 160  # tiles worked out at a time: the float copies stay small


def _classified(small: np.ndarray, matrix: np.ndarray, fields: list[np.ndarray],
                glare: bool) -> list[np.ndarray]:
    """`_classify` over the half-size frame, given the felt basis `matrix` (`_felt_basis`)
    and the felt fields (small): tile by tile, and only in the tiles that may hold anything
    not felt (`_busy`; a third of them on the tuning frames, a fifth of the time saved); the
    others hold felt alone."""
    size = (small.shape[1], small.shape[0])
    fields = [_padded(cv2.resize(field, size, interpolation=cv2.INTER_LINEAR))
              for field in fields]
    padded = _padded(small)
    rows_of_matrix = [matrix[k : k + 1] for k in range(3)]  # one plane each: no split
    busy = np.nonzero(_busy(padded, rows_of_matrix, [
        np.ascontiguousarray(field[::2, ::2]) for field in fields[:2]]))
    planes = [np.zeros(padded.shape[:2], bool) for _ in range(4)]
    tiled = [_tiled(plane) for plane in planes]
    for first in range(0, len(busy[0]), _CHUNK):
        at = (busy[0][first : first + _CHUNK], busy[1][first : first + _CHUNK])
        got = _classify(_tiled(padded)[at], rows_of_matrix,
                        [_tiled(field)[at] for field in fields], glare)
        for plane, values in zip(tiled, got, strict=True):
            plane[at] = values
    return [plane[: small.shape[0], : small.shape[1]] for plane in planes]


def _padded(plane: np.ndarray) -> np.ndarray:
    """A half-size plane grown (its edge repeated) to whole tiles (a 1080p frame's needs
    none)."""
    bottom, right = -plane.shape[0] % _TILE, -plane.shape[1] % _TILE
    if not bottom and not right:
        return plane
    return cv2.copyMakeBorder(plane, 0, bottom, 0, right, cv2.BORDER_REPLICATE)


def _tiled(plane: np.ndarray) -> np.ndarray:
    """A view of a plane (height, width, ...) as (rows, columns, _TILE, _TILE, ...) tiles."""
    height, width = plane.shape[:2]
    shaped = plane.reshape(height // _TILE, _TILE, width // _TILE, _TILE, *plane.shape[2:])
    return shaped.swapaxes(1, 2)


def _busy(small: np.ndarray, rows_of_matrix: list[np.ndarray], fields: list[np.ndarray]
          ) -> np.ndarray:
    """Which tiles (rows, columns) of the half-size frame may hold anything not felt: at
    quarter size, where four pixels are one, a pixel of the tile fails the not-felt tests
    (`_classify`; `fields`: the felt and white amounts' fields there). Anything three pixels
    across fails them there as it does at half size; what is thinner is opened away from the
    masks, but for lines of grey paper (card borders, printed lines), which the grey mask
    keeps: they hold under half the felt's amount, and a line a pixel wide, half of a
    quarter-size pixel, still has under three quarters of it there, which the felt amount's
    test here asks (half its margin at half size)."""
    quarter = cv2.resize(small, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    floats = quarter.astype(np.float32)
    g, w, r = (cv2.transform(floats, row) for row in rows_of_matrix)
    g_field, w_field = fields
    out = np.abs(r) > 24
    out |= g < 0.775 * g_field
    out |= g > 1.175 * g_field
    out |= cv2.absdiff(w, w_field) > 45
    side = _TILE // 2
    tiles = (out.shape[1] // side, out.shape[0] // side)
    # grown by a pixel: a rim of it at a tile's edge (shadow, blur) falls in the next tile
    grown = cv2.dilate(out.view(np.uint8) * np.uint8(255), _SQUARE3)
    # a tile's mean, where one pixel in its 100 at 255 still counts
    busy = cv2.resize(grown, tiles, interpolation=cv2.INTER_AREA)
    return busy > 0


def _classify(tiles: np.ndarray, rows_of_matrix: list[np.ndarray], fields: list[np.ndarray],
              glare: bool) -> list[np.ndarray]:
    """Of some tiles (k, _TILE, _TILE, 3) and the felt fields there (the felt amount, white
    amount and brightest channel, (k, _TILE, _TILE) each): which pixels are not felt; grey;
    card paper (grey, and brighter than the felt); and, with `glare`, paper under glare
    (`_paper_in_glare`; else none)."""
    shape = tiles.shape[:3]
    part = tiles.reshape(-1, _TILE, 3)  # as one picture: OpenCV takes no more axes
    g_field, w_field, v_field = (field.reshape(-1, _TILE) for field in fields)
    floats = part.astype(np.float32)
    g, w, r = (cv2.transform(floats, row) for row in rows_of_matrix)
    low_felt = g < 0.55 * g_field
    not_felt = np.abs(r) > 24
    not_felt |= low_felt
    not_felt |= g > 1.35 * g_field
    not_felt |= cv2.absdiff(w, w_field) > 45
    b, gr, rd = cv2.split(part)
    value = cv2.max(cv2.max(b, gr), rd)
    chroma = cv2.subtract(value, cv2.min(cv2.min(b, gr), rd))
    grey = np.less(chroma, cv2.LUT(value, _CHROMA_LIMIT))
    grey &= low_felt
    grey &= value > 60
    glared = (grey & _paper_in_glare(value, g, chroma, v_field, g_field) if glare
              else np.zeros_like(grey))
    paper = grey & (value.astype(np.float32) > 1.4 * v_field)
    return [plane.reshape(shape) for plane in (not_felt, grey, paper, glared)]


@dataclass(frozen=True)
class Glare:
    """The paper mask around the frame's glare spots, with what is paper under glare added;
    `at` is where its top-left pixel lies in the half-size frame."""

    paper: np.ndarray
    at: tuple[int, int]


# felt whose brightest channel is above this is under a glare spot: paper 40% brighter than
# it is at 224 or more, and white paper under glare (220-255) may fall short of that
_GLARE = 160.0
_GLARE_PAPER = 400  # half-size pixels of paper under glare worth a look (a card: 1,900 or more)
_REACH = 150  # half-size pixels: the longest card looked for


def _glare_box(felt_value: np.ndarray, scale: int) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) in the half-size frame around where the felt's brightest channel
    (`felt_value`, a field at 1/`scale` of it) reaches `_GLARE`; None where it nowhere does."""
    spots = (felt_value > _GLARE).view(np.uint8)
    if not spots.any():
        return None
    x, y, w, h = cv2.boundingRect(spots)
    # a field pixel's value reaches a scale's width into its neighbours once upsized
    return (max(scale * (x - 1), 0), max(scale * (y - 1), 0), scale * (x + w + 1),
            scale * (y + h + 1))


def _solid(paper: np.ndarray) -> np.ndarray:
    """A uint8 mask of paper pixels (bool) opened (lines, text, chip rims go) and
    hole-filled (pips, pictures)."""
    mask = cv2.morphologyEx(paper.view(np.uint8) * np.uint8(255), cv2.MORPH_OPEN, _DISC)
    _fill(mask)
    return mask


def _paper_in_glare(value: np.ndarray, felt_amount: np.ndarray, chroma: np.ndarray,
                    felt_value: np.ndarray, felt_field: np.ndarray) -> np.ndarray:
    """Which pixels of a strip, grey and holding no felt, are paper under glare. Paper is 40%
    brighter than the felt's brightest channel (`felt_value`); under a glare spot that
    reaches 170-190, and white paper, at 250, is not. There paper need only be halfway from
    the felt to pure white, when it is also nearly colourless and holds almost no felt: glare
    clipped at white keeps the felt's colour (chroma 60-80 on red felt, where a card's white
    has under 35) and a third of its felt amount or more (a card's white, less; the grey test
    allows up to 0.55)."""
    return ((chroma < 40) & (felt_amount < 0.3 * felt_field)
            & (value > 0.5 * felt_value + 127.5) & (felt_value > _GLARE))


_DISC = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_SQUARE5 = np.ones((5, 5), np.uint8)
_SQUARE3 = np.ones((3, 3), np.uint8)


def _chroma_limit() -> np.ndarray:
    """Paper is grey-ish: chroma < 0.28 * value + 8 (in float32), as a table over the uint8
    value of the least chroma that is too much."""
    value = np.arange(256, dtype=np.float32)
    return np.minimum(np.ceil(0.28 * value + 8.0), 255).astype(np.uint8)


_CHROMA_LIMIT = _chroma_limit()


def _fill(mask: np.ndarray) -> None:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, cv2.FILLED)


def foreground(frame: np.ndarray) -> np.ndarray:
    """A half-size uint8 mask of what is not felt (cards, hands, chips)."""
    return masks(frame)[0]
