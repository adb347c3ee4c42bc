"""Frames for the glare tests: white cards, and a glare spot laid over one."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.synth.layout import random_deal
from hardware.camera.synth.scene import Frame, make_table, render


def under_glare(image: np.ndarray, quad: np.ndarray, strength: float) -> np.ndarray:
    """`image` with a soft glare spot from the table lights (as the generator draws them, a
    blurred ellipse of white added) centred on the card at `quad`, twice the card's length
    across."""
    spot = np.zeros(image.shape[:2], np.float32)
    centre = quad.mean(axis=0)
    length = float(np.linalg.norm(quad[3] - quad[0]))
    cv2.ellipse(spot, (round(centre[0]), round(centre[1])),
                (round(2.2 * length), round(1.3 * length)), 30.0, 0, 360, 1.0, -1)
    spot = cv2.GaussianBlur(spot, (0, 0), 0.2 * length)
    return np.clip(image + strength * spot[:, :, None], 0, 255).astype(np.uint8)


def white_cards(faces: dict, seed: int) -> Frame:
    """A frame of face-up number cards (white paper), all in the clear."""
    codes = sorted(c for c in faces if c != "back" and c[0] in "23456789T")
    rng = np.random.default_rng(seed)
    table = make_table(rng)
    deal = random_deal(rng, codes, table.height, face_down_share=0.0)
    return render(table, deal, faces, rng, occlusion=0.0, degrade=False)
