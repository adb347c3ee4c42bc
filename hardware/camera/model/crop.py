"""Cutting the reader's upright crop of one corner index: the same function for training and use."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.model.spec import CROP_H, CROP_H_CARD, CROP_W, CROP_W_CARD


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
    ux, uy = up
    norm = float(np.hypot(ux, uy)) or 1.0
    ux, uy = ux / norm, uy / norm
    # crop axes in frame coordinates: its x runs along the card's right, its y along its down
    right = np.array([-uy, ux]) * (CROP_W_CARD * card_width / CROP_W)
    down = np.array([-ux, -uy]) * (CROP_H_CARD * card_width / CROP_H)
    origin = np.asarray(centre, np.float64) - right * (CROP_W / 2) - down * (CROP_H / 2)
    return np.array([[right[0], down[0], origin[0]], [right[1], down[1], origin[1]]])
