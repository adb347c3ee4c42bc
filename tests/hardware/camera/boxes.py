"""Hand-made quads for the finder's tests: an upright card's corners, and how much two quads
overlap."""

from __future__ import annotations

import cv2
import numpy as np


def card_box(x: float, y: float, w: float, h: float) -> np.ndarray:
    """An upright rectangle's corners, clockwise from top-left."""
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], float)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32))
    return float(inter / (union - inter))
