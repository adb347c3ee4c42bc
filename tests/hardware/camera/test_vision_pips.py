"""The body-pip reader: a number card's suit from the big pips in its body."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hardware.camera.deck import CODES, WARP, DeckModel, on_grey, upright
from hardware.camera.index import face_pictures
from hardware.camera.pips import SUITS, PipModel, body_pips
from tests.cardart import faces_or_skip

TUNING_DESIGN = "svg-standard"  # the pip reader's own check may use a tuning design
NUMBER_CARDS = [c for c in CODES if c[0] in "23456789T"]


def _small(faces: dict, code: str, rng: np.random.Generator) -> np.ndarray:
    picture = face_pictures(on_grey(upright(faces[code])), WARP)[0]  # as at 130 px high
    noisy = picture.astype(np.float64) + rng.normal(0, 6, picture.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("design", "floor"), [
    (TUNING_DESIGN, 34),
    ("svg-oxygen", 32),  # light pips on black and deep red cards; its fours' pips are big
])
def test_suit_of_number_cards_from_their_pips(design: str, floor: int) -> None:
    faces = faces_or_skip(design)
    model = DeckModel.from_faces(design, faces).pips
    assert set(model.suit_of.tolist()) == {0, 1, 2, 3}
    rng = np.random.default_rng(7)
    right = turned_alike = 0
    for code in NUMBER_CARDS:
        picture = _small(faces, code, rng)
        scores = model.suit_scores(picture)
        right += SUITS[int(np.argmax(scores))] == code[1]
        turned = model.suit_scores(np.ascontiguousarray(picture[::-1, ::-1]))
        turned_alike += int(np.argmax(turned)) == int(np.argmax(scores))
    assert right >= floor, f"suit read right on {right}/{len(NUMBER_CARDS)} number cards"
    assert turned_alike >= floor, "a card lying the other way round reads another suit"


def test_no_pips_no_say() -> None:
    blank = np.full((WARP[1], WARP[0], 3), 235, np.uint8)
    found, _, _, _ = body_pips(blank)
    assert found.shape == (0, 400)
    model = PipModel(np.ones((1, 400), np.float32) / 20.0, np.array([0]))
    assert np.array_equal(model.suit_scores(blank), np.zeros(4))
    assert np.array_equal(PipModel.empty().suit_scores(blank), np.zeros(4))


def test_pip_templates_survive_save_and_load(tmp_path: Path) -> None:
    faces = faces_or_skip(TUNING_DESIGN)
    deck = DeckModel.from_faces(TUNING_DESIGN, faces)
    deck.save(tmp_path / "deck.npz")
    again = DeckModel.load(tmp_path / "deck.npz").pips
    assert len(again.pips) == len(deck.pips.pips) > 40
    assert np.array_equal(again.suit_of, deck.pips.suit_of)
    assert np.array_equal(again.counts, deck.pips.counts)
    assert np.abs(again.pips - deck.pips.pips).max() < 1e-2


def test_enrolment_counts_each_cards_body_pips() -> None:
    """How many body pips each enrolled card shows (the corner zones kept clear): a number
    card's count grows with its rank, court cards show none."""
    model = DeckModel.from_faces(TUNING_DESIGN, faces_or_skip(TUNING_DESIGN)).pips
    counts = {code: {n for n in range(16) if model.fits(CODES.index(code), n)} for code in CODES}
    assert all(counts[c] for c in CODES)
    assert counts["KS"] == counts["QH"] == {0}
    assert max(counts["2C"]) < min(counts["7C"]) and max(counts["7C"]) < min(counts["TC"])
    merged = PipModel.merge([model, PipModel.empty()])
    assert merged.fits(CODES.index("7C"), min(counts["7C"]))


def test_pips_near_the_middle_read_either_side_of_it() -> None:
    """The middle pips of a 6, 7 or 9 lie on the card's middle line; a quad a little off puts
    them just below it, where pips are printed upside down. Their suit must not hang on which
    side they fall: shifted up or down by 3% of the card, every such card reads its suit."""
    design = "simplistic"  # a tuning design whose top and bottom pips lie in the corner zones
    faces = faces_or_skip(design)
    model = DeckModel.from_faces(design, faces).pips
    rng = np.random.default_rng(11)
    wrong = []
    for code in [c for c in NUMBER_CARDS if c[0] in "679"]:
        picture = _small(faces, code, rng)
        shift = round(0.03 * picture.shape[0])
        for moved in (picture[shift:], picture[:-shift]):  # the card's middle below / above
            scores = model.suit_scores(np.ascontiguousarray(moved))
            if SUITS[int(np.argmax(scores))] != code[1]:
                wrong.append(code)
    assert not wrong, f"suit misread on {wrong}"
