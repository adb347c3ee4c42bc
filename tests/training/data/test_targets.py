"""The training data's target maps read back by the runtime (`training/data/pictures.py`
through `hardware/camera/find.py` and `merge.py`)."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera.find import Finder
from hardware.camera.merge import merge
from hardware.camera.model.settings import Settings
from hardware.camera.read import Read
from training.data.pictures import DRAWN, Artwork, Card, compose

SETTINGS = Settings()


def test_the_runtime_decodes_what_training_encodes() -> None:
    """The training data's own target maps (`pictures.compose`, our drawn deck: no Debian art
    needed) through the finder's decoding and the merge, with the true codes as the
    reads: every face-up card comes back once, where it lies and as wide as it is, and the
    face-down card as a back."""
    art = Artwork.load([DRAWN], progress=False, variants=False)
    laid = [Card("QS", (120.0, 150.0), 90.0, 0.0), Card("7H", (300.0, 160.0), 110.0, 30.0),
            Card("TD", (450.0, 250.0), 70.0, -100.0), Card(None, (200.0, 300.0), 80.0, 10.0)]
    sample, _ = compose(np.random.default_rng(4), art, (576, 384), laid, [0] * len(laid),
                        np.eye(3), clutter=False, camera=False)
    spots, backs = Finder(SETTINGS).spots(sample.maps, 1.0, sample.image.shape)
    reads = []
    for spot in spots:
        card = min(laid, key=lambda c: np.hypot(c.centre[0] - spot.card_centre[0],
                                                c.centre[1] - spot.card_centre[1]))
        assert card.code is not None
        assert np.hypot(card.centre[0] - spot.card_centre[0],
                        card.centre[1] - spot.card_centre[1]) < 0.1 * card.width
        assert spot.width == pytest.approx(card.width, rel=0.05)
        turn = np.deg2rad(card.angle)
        up = (-np.sin(turn), -np.cos(turn))  # the card's up, turned counter-clockwise
        assert abs(up[0] * spot.up[0] + up[1] * spot.up[1]) > 0.97
        reads.append(Read(spot, card.code, 0.99))
    assert len(spots) >= 6  # both indices of each face-up card
    found = merge(reads, backs, sample.image.shape, SETTINGS)
    assert sorted((s.card or "", s.face) for s in found) == [
        ("", "down"), ("7H", "up"), ("QS", "up"), ("TD", "up")]
    (down,) = [s for s in found if s.face == "down"]
    assert np.hypot(down.center[0] - 200, down.center[1] - 300) < 8
