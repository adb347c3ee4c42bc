"""Cutting the readers' upright crops, of one corner index and of a whole card: the same
functions for training and use."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.model.spec import (
    CARD_ASPECT,
    CARD_H,
    CARD_W,
    CROP_H,
    CROP_H_CARD,
    CROP_W,
    CROP_W_CARD,
)


def cut_index(frame: np.ndarray, centre: tuple[float, float], up: tuple[float, float],
              card_width: float) -> np.ndarray:
    """The CROP_H x CROP_W crop around an index centred at `centre` (frame pixels), turned so
    that the card's `up` (a unit vector in image coordinates) points up, scaled so the crop
    spans CROP_H_CARD x CROP_W_CARD card widths. Pixels outside the frame are black."""
    return cv2.warpAffine(frame, crop_to_frame(centre, up, card_width), (CROP_W, CROP_H),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def crop_to_frame(centre: tuple[float, float], up: tuple[float, float], card_width: float
                  ) -> np.ndarray:
    """The 2 x 3 affine map from `cut_index`'s crop pixels to frame pixels."""
    return _upright(centre, up, (CROP_W, CROP_H),
                    (CROP_W_CARD * card_width, CROP_H_CARD * card_width))


def _upright(centre: tuple[float, float], up: tuple[float, float], pixels: tuple[int, int],
             span: tuple[float, float]) -> np.ndarray:
    """The 2 x 3 affine map from an upright crop's pixels (`pixels` wide and tall) to frame
    pixels, the crop spanning `span` frame pixels across and along `up`, around `centre`."""
    ux, uy = up
    norm = float(np.hypot(ux, uy)) or 1.0
    ux, uy = ux / norm, uy / norm
    # crop axes in frame coordinates: its x runs along the card's right, its y along its down
    right = np.array([-uy, ux]) * (span[0] / pixels[0])
    down = np.array([-ux, -uy]) * (span[1] / pixels[1])
    origin = np.asarray(centre, np.float64) - right * (pixels[0] / 2) - down * (pixels[1] / 2)
    return np.array([[right[0], down[0], origin[0]], [right[1], down[1], origin[1]]])


def cut_card(frame: np.ndarray, centre: tuple[float, float], up: tuple[float, float],
             card_width: float) -> np.ndarray:
    """The CARD_H x CARD_W crop of a whole card centred at `centre`, turned so that `up`
    points up, one card width across and CARD_ASPECT widths tall. A card more than twice the
    crop's width is first shrunk by area averaging, only the part of the frame it covers, so
    the crop does not alias. Pixels outside the frame are black."""
    to_frame = _upright(centre, up, (CARD_W, CARD_H), (card_width, CARD_ASPECT * card_width))
    shrink = 2.0 * CARD_W / card_width
    if shrink < 1.0:
        corners = to_frame @ np.array([[0, CARD_W, 0, CARD_W], [0, 0, CARD_H, CARD_H],
                                       [1, 1, 1, 1]], np.float64)
        x0, y0 = (max(0, int(v) - 2) for v in np.floor(corners.min(axis=1)))
        x1 = min(frame.shape[1], int(np.ceil(corners[0].max())) + 3)
        y1 = min(frame.shape[0], int(np.ceil(corners[1].max())) + 3)
        if x1 - x0 < 2 or y1 - y0 < 2:  # the card lies off the frame
            return np.zeros((CARD_H, CARD_W, 3), np.uint8)
        part = frame[y0:y1, x0:x1]
        size = (max(1, round(part.shape[1] * shrink)), max(1, round(part.shape[0] * shrink)))
        small = cv2.resize(part, size, interpolation=cv2.INTER_AREA)
        fx, fy = size[0] / part.shape[1], size[1] / part.shape[0]
        centre = ((centre[0] - x0) * fx, (centre[1] - y0) * fy)
        frame, card_width = small, card_width * fx
        to_frame = _upright(centre, up, (CARD_W, CARD_H), (card_width, CARD_ASPECT * card_width))
    return cv2.warpAffine(frame, to_frame, (CARD_W, CARD_H),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
