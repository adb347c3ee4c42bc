"""Hand-made inputs for the recognizer's decision rules: a deck with no faces (the rules
need none), and a look at one card from its whole-card reading."""

from __future__ import annotations

import numpy as np

from hardware.camera.deck import DeckModel
from hardware.camera.recognize import Look, Reading

QUAD = np.array([[0, 0], [60, 0], [60, 84], [0, 84]], float)


def faceless_deck(**fields: object) -> DeckModel:
    return DeckModel("none", [], np.zeros((0, 16, 8)), np.zeros((0, 16, 8)),
                     np.zeros((0, 84, 60), np.uint8), **fields)  # type: ignore[arg-type]


def look_at(reading: Reading, fused: np.ndarray | None = None, rank: np.ndarray | None = None,
            suit: np.ndarray | None = None, colour_doubt: float = float("nan")) -> Look:
    """The look whose whole-card reading is `reading` (fused scores: its per-code scores,
    unless given; index terms and body pips: nothing, unless given)."""
    return Look(QUAD, reading, reading.per_code.copy() if fused is None else fused,
                np.zeros(52) if rank is None else rank, np.zeros(52) if suit is None else suit,
                np.zeros(4), colour_doubt)
