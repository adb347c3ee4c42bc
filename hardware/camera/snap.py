"""Move a card's quad onto the card by the face it was read as (a quad thrown off).

The finder's quad comes from masks and edges: glare on one end, chips along a side, a
printed line or a neighbouring card can cut it short or shift it. Once the card has been
read, its best face says what the whole card looks like; the frame around the quad, warped
upright with a margin, is searched for that face (`cv2.findTransformECC`, a homography),
and the face's outline, carried back to the frame, is the new quad. A back whose quad is off
is moved onto the enrolled back the same way.
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.deck import CANON, INSET

MARGIN = 0.25  # share of the card's width and height searched beyond each side
# a moved quad's width over its height (each the mean of two sides) outside these is no card
# (poker size 0.71, bridge 0.64; the camera's tilt moves that by a tenth at most): the search
# squashed a face onto part of one (a nine's four rows of pips onto the top three quarters of
# a six, read there as the nine)
_CARD_SHAPE = (0.56, 0.86)
_SIGMA = 1.0  # blur of the face at CANON size, as the camera blurs a card


def _side(quad: np.ndarray) -> float:
    """The length of a quad's left side (its long side, as the quads here run)."""
    return max(1.0, float(np.linalg.norm(quad[3] - quad[0])))


def _width_over_height(quad: np.ndarray) -> float:
    """A quad's top and bottom sides' mean length over its left and right sides'."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return float((sides[0] + sides[2]) / max(sides[1] + sides[3], 1.0))


def warp_source(frame: np.ndarray, to_canvas: np.ndarray, size: tuple[int, int],
                scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The part of `frame` that a warp by `to_canvas` onto a `size` canvas sees, shrunk by
    `scale` first when that is under 0.7 (so that the warp does not alias), and the matrix
    taking that part onto the canvas."""
    return _shrunk(*_seen_part(frame, to_canvas, size), scale)


def _seen_part(frame: np.ndarray, to_canvas: np.ndarray, size: tuple[int, int]
               ) -> tuple[np.ndarray, np.ndarray]:
    """The part of `frame` that a warp by `to_canvas` onto a `size` canvas sees, and the
    matrix taking that part onto the canvas."""
    outline = np.array([[[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]]], np.float32)
    seen = cv2.perspectiveTransform(outline, np.linalg.inv(to_canvas).astype(np.float32))[0]
    x0, y0 = np.maximum(np.floor(seen.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.ceil(seen.max(axis=0)).astype(int) + 3
    return frame[y0:y1, x0:x1], to_canvas @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]],
                                                    np.float64)


def _shrunk(region: np.ndarray, matrix: np.ndarray, scale: float
            ) -> tuple[np.ndarray, np.ndarray]:
    """A part of the frame and the matrix taking it onto a canvas, shrunk by `scale` when
    that is under 0.7."""
    if scale < 0.7:
        region = cv2.resize(region, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        matrix = matrix @ np.diag([1 / scale, 1 / scale, 1.0])
    return region, matrix


def _frame_grey(frame: np.ndarray, quad: np.ndarray, size: tuple[int, int]
                ) -> tuple[np.ndarray, np.ndarray]:
    """The grey plane of the frame around `quad` warped so that the quad fills the middle
    of a `size` canvas with MARGIN around it; and the homography frame -> canvas."""
    w, h = size[0] / (1 + 2 * MARGIN), size[1] / (1 + 2 * MARGIN)
    x0, y0 = MARGIN * w, MARGIN * h
    dst = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32)
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    region, from_region = _seen_part(frame, matrix, size)
    # grey first: one plane to shrink, not three
    grey = cv2.transform(region.astype(np.float32), _GREY)
    grey, from_region = _shrunk(grey, from_region, 1.5 * h / _side(quad))
    canvas = cv2.warpPerspective(grey, from_region, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    return canvas, matrix


_GREY = np.array([[0.2, 0.5, 0.3]], np.float32)  # BGR -> grey


def snap(frame: np.ndarray, quad: np.ndarray, face: np.ndarray,
         detail: np.ndarray | None = None) -> np.ndarray | None:
    """The quad (clockwise from the card's own top-left as `face` shows it) moved to where
    `face` (a grey face or back as `DeckModel.greys` and `back_greys` hold them: inset,
    CANON size) best lies in `frame`; then, given the same face at full `detail` (as
    `DeckModel.fine` holds it), moved again from there by that: a pixel at CANON is two or
    three on the felt, but the search at full detail finds the card only from nearby. None
    when the search fails or wanders off."""
    moved = _search(frame, quad, face)
    if moved is None or detail is None:
        return moved
    closer = _search(frame, moved, detail)
    return moved if closer is None else closer


def _search(frame: np.ndarray, quad: np.ndarray, face: np.ndarray) -> np.ndarray | None:
    """`snap` onto one face (of any size, in CANON's proportions)."""
    h, w = face.shape
    size = (round(w * (1 + 2 * MARGIN)), round(h * (1 + 2 * MARGIN)))
    canvas, to_canvas = _frame_grey(frame, quad, size)
    template = cv2.GaussianBlur(face.astype(np.float32), (0, 0), _SIGMA * w / CANON[0])
    cw, ch = size[0] / (1 + 2 * MARGIN), size[1] / (1 + 2 * MARGIN)
    # template pixel -> canvas: the face is the card inset by INSET on each side
    sx, sy = cw * (1 - 2 * INSET) / w, ch * (1 - 2 * INSET) / h
    warp = np.array([[sx, 0, MARGIN * cw + INSET * cw], [0, sy, MARGIN * ch + INSET * ch],
                     [0, 0, 1]], np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 1e-3)
    try:
        _, warp = cv2.findTransformECC(template, canvas, warp, cv2.MOTION_HOMOGRAPHY,
                                       criteria, None, 3)  # type: ignore[call-overload]
    except cv2.error:
        return None
    # the whole card's corners in template pixels, through the warp, back to the frame
    lo_x, hi_x = -INSET * w / (1 - 2 * INSET), (1 - INSET) * w / (1 - 2 * INSET)
    lo_y, hi_y = -INSET * h / (1 - 2 * INSET), (1 - INSET) * h / (1 - 2 * INSET)
    corners = np.array([[[lo_x, lo_y], [hi_x, lo_y], [hi_x, hi_y], [lo_x, hi_y]]], np.float32)
    to_frame = np.linalg.inv(to_canvas) @ np.asarray(warp, np.float64)
    moved = cv2.perspectiveTransform(corners, to_frame.astype(np.float32))[0]
    if (np.linalg.norm(moved - quad, axis=1).max() > 0.4 * _side(quad)
            or not cv2.isContourConvex(moved.astype(np.float32))
            or not _CARD_SHAPE[0] <= _width_over_height(moved) <= _CARD_SHAPE[1]):
        return None
    return moved.astype(np.float64)
