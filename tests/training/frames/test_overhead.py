"""The frame generator's truth: which cards have a hand or chips over an index corner (the
issue's targets count only cards whose index corners are clear), and the design groups that
keep the held-out designs out of tuning."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from training.art.decks import DESIGNS, HELD_OUT, LISTED, TUNING, UNLISTED, design_names
from training.frames.overhead import _corners_clear, frames

QUAD = np.array([[100.0, 100.0], [200.0, 110.0], [186.0, 250.0], [86.0, 240.0]])


def _cover_at(point: tuple[float, float], radius: int) -> np.ndarray:
    cover = np.zeros((400, 400), np.uint8)
    cv2.circle(cover, (round(point[0]), round(point[1])), radius, 255, -1)
    return cover


def test_a_cover_over_the_middle_leaves_the_corners_clear() -> None:
    assert _corners_clear(QUAD, _cover_at(tuple(QUAD.mean(axis=0)), 35))


def test_a_cover_on_any_corner_hides_it() -> None:
    for corner in QUAD:
        inward = corner + 0.12 * (QUAD.mean(axis=0) - corner)
        assert not _corners_clear(QUAD, _cover_at(tuple(inward), 8))


def test_without_hands_or_chips_on_the_cards_every_corner_is_clear(faces: dict) -> None:
    for frame in frames(faces, 3, seed=3, occlusion=0.0):  # betting chips lie off the cards
        assert frame.cards and all(t.corners_clear for t in frame.cards)


def test_hands_and_chips_on_cards_hide_some_corners(faces: dict) -> None:
    cards = [t for frame in frames(faces, 3, seed=3, occlusion=1.0) for t in frame.cards]
    assert any(not t.corners_clear for t in cards)


def test_design_groups_keep_the_held_out_designs_apart() -> None:
    # the built-in model and the tuning runs use TUNING only: no held-out design in it
    assert not set(TUNING) & (set(HELD_OUT) | set(UNLISTED))
    assert set(TUNING) | set(HELD_OUT) == set(LISTED) and len(LISTED) == 16
    # the listed designs come first: a design's place in DESIGNS seeds its frames
    assert list(DESIGNS)[: len(LISTED)] == list(LISTED)
    assert design_names("held-out,tango,svg-gm-paris") == [*HELD_OUT, "svg-gm-paris"]
    assert design_names("unlisted") == list(UNLISTED)


def test_an_unknown_design_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown design 'tangoo'.*the groups listed, held-out"):
        design_names("tango,tangoo")
