"""Shapes of blobs and quads the finder and its size passes share (pure): whether a blob is a
clean card-proportioned rectangle, and how long and how far apart quads are."""

from __future__ import annotations

import cv2
import numpy as np


def simple_blob(contour: np.ndarray, lo: float, hi: float, solid: bool,
            least: float = 0.93) -> tuple | None:
    """(long side, rotated rect, fill) when a blob is a clean card-proportioned rectangle.

    With `solid` (the paper mask, which holds nothing but cards) the blob's convex hull must
    fill the rectangle (`least` of it): a bite taken out of a card's middle by a hand does
    not matter.
    """
    area = cv2.contourArea(contour)
    if area < 0.5 * lo * lo * 0.6:
        return None
    hull = cv2.convexHull(contour)
    (cx, cy), (w, h), angle = cv2.minAreaRect(hull)
    long, short = max(w, h), min(w, h)
    fill = area / max(w * h, 1.0)
    shape = cv2.contourArea(hull) / max(w * h, 1.0) if solid else fill
    if lo <= long <= hi and 0.64 <= short / long <= 0.8 and shape > least and fill > 0.6:
        return long, ((cx, cy), (w, h), angle), fill
    return None


def clean_blobs(mask: np.ndarray, lo: float, hi: float) -> list[tuple[float, np.ndarray, tuple]]:
    """The blobs of a not-felt mask that are clean card-proportioned rectangles (`simple_blob`),
    as (long side, contour, rotated rect)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [(got[0], contour, got[1]) for contour in contours
            if (got := simple_blob(contour, lo, hi, False)) is not None]


def corner_gaps(quads: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far each corner of each of `quads` (k, 4, 2) lies from the nearest corner of the
    quad `b`: (k, 4)."""
    return np.linalg.norm(quads[:, :, None] - b[None, None], axis=3).min(axis=2)


def long_side(quad: np.ndarray) -> float:
    return float(max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
