"""Ink colours and the suit: red or black decides half of it, unless the ink is neither."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import hardware.camera.ink as ink
from hardware.camera.deck import CODES, WARP, DeckModel, on_grey, upright
from hardware.camera.index import face_pictures
from hardware.camera.recognize import Reading, Recognizer
from hardware.camera.synth.decks import four_colour
from hardware.camera.synth.generic import GENERIC
from tests.cardart import faces_or_skip
from tests.hardware.camera.looks import faceless_deck, look_at

BUILT_IN_FROM = ("svg-standard", "svg-oxygen")  # tuning designs, standing in for the built-in


def test_the_colour_doubt_is_how_far_shape_says_the_other_colour() -> None:
    scores = np.array([0.2, 0.7, 0.5, 0.3])  # shapes: a heart, ahead of the spade by 0.5
    assert ink.mark_other_colour(scores, red=0.0) == pytest.approx(0.4)  # black ink
    assert scores == pytest.approx([0.2, 0.2, 0.0, 0.3])  # the red suits marked down
    scores = np.array([0.2, 0.7, 0.5, 0.3])
    assert ink.mark_other_colour(scores, red=0.4) == pytest.approx(-0.4)  # red ink agrees
    assert scores == pytest.approx([-0.3, 0.7, 0.5, -0.2])
    scores = np.array([0.2, 0.7, 0.5, 0.3])
    assert ink.mark_other_colour(scores, red=-1.5, cool=0.8) == np.inf  # blue: no colour
    assert scores == pytest.approx([0.2, 0.7, 0.5, 0.3])  # ... and nothing marked


def test_blue_and_green_ink_read_cool_black_and_red_do_not() -> None:
    where = np.ones((4, 4), bool)

    def cool(bgr: tuple[int, int, int]) -> float:
        return ink.ink_colour(np.full((4, 4, 3), bgr, np.uint8), where)[1]
    assert cool((200, 60, 30)) > ink.COOL_INK and cool((40, 140, 20)) > ink.COOL_INK
    assert abs(cool((30, 30, 30))) < 0.1 and cool((40, 40, 200)) < 0
    assert ink.ink_colour(np.zeros((4, 4, 3), np.uint8), ~where) == (0.0, 0.0)


def test_a_doubtful_colour_leaves_the_card_unsure() -> None:
    per_code = np.zeros(52)
    per_code[CODES.index("7S")] = 0.8
    reading = Reading("7S", 0.8, 0.5, 0.1, False, per_code, np.arange(52), np.zeros((2, 2)))
    look = look_at(reading, colour_doubt=0.3)
    deck = faceless_deck()
    assert Recognizer(deck).decide(look).card == "7S"  # an enrolled deck: no such rule
    doubted = Recognizer(deck, max_colour_doubt=0.15).decide(look)
    assert (doubted.face, doubted.why[:14]) == ("unsure", "colour doubt: ")
    assert Recognizer(deck, max_colour_doubt=0.5).decide(look).card == "7S"


@pytest.fixture(scope="module")
def built_in() -> DeckModel:
    return DeckModel.merge("built-in", [DeckModel.from_faces(name, faces_or_skip(name))
                                        for name in BUILT_IN_FROM])


def _built_in(deck: DeckModel, **changes: float) -> Recognizer:
    return Recognizer(deck, **{**GENERIC, **changes})


def _reads(recognizer: Recognizer, faces: dict, suits: str) -> Counter:
    """How `recognizer` reads each face of `suits`, from a clean picture with noise."""
    rng = np.random.default_rng(11)
    tally: Counter = Counter()
    for code in CODES:
        if code[1] not in suits:
            continue
        picture = face_pictures(on_grey(upright(faces[code])), WARP)[0]
        picture = np.clip(picture + rng.normal(0, 4, picture.shape), 0, 255).astype(np.uint8)
        h, w = picture.shape[:2]
        quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
        sighting = recognizer.decide(recognizer.look(picture, quad))
        tally["unsure" if sighting.face != "up" else
              "right" if sighting.card == code else "wrong"] += 1
    return tally


def test_a_four_colour_deck_is_not_read_by_red_or_black(built_in: DeckModel,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A four-colour deck prints diamonds blue and clubs green. The built-in model takes red
    or black for half the suit, and read blue diamonds as spades; it now leaves cards in an
    ink of neither colour unsure. The same deck's spades and hearts are still read."""
    four = four_colour(faces_or_skip("svg-standard"))
    black_and_red = _reads(_built_in(built_in), four, "SH")
    assert black_and_red["right"] >= 15 and black_and_red["wrong"] == 0  # measured: 18 of 26
    assert _reads(_built_in(built_in), four, "DC") == {"unsure": 26}
    monkeypatch.setattr(ink, "COOL_INK", np.inf)  # blue ink taken for black, as before,
    before = _built_in(built_in, max_colour_doubt=np.inf)  # ... and no colour doubt
    assert _reads(before, four, "DC")["wrong"] >= 4
    assert _reads(_built_in(built_in), four, "DC")["wrong"] == 0  # the shapes doubt them too


def test_an_enrolled_deck_learns_the_colour_of_each_suit() -> None:
    colours = ink.suit_colours([(0, 0.0, 0.02), (0, 0.02, 0.0), (1, 0.7, -3.0), (2, -2.5, 0.8)])
    assert colours[:3] == pytest.approx(np.array([[0.01, 0.01], [0.7, -1.0], [-1.0, 0.8]]))
    assert np.isnan(colours[3]).all()  # no club seen: unknown
    four = np.array([[0.0, 0.0], [0.7, -1.0], [-1.0, 0.8], [-1.0, 0.55]])
    scores = np.array([0.6, 0.5, 0.55, 0.5])
    assert np.isnan(ink.mark_by_colour(scores, red=-0.9, cool=0.5, colours=four))  # blue ink
    assert scores == pytest.approx([0.1, 0.0, 0.55, 0.5])  # not a spade, nor a heart
    scores = np.array([0.6, 0.5, 0.55, 0.5])
    ink.mark_by_colour(scores, red=-0.9, cool=0.5, colours=colours)  # a suit's colour unknown:
    assert scores == pytest.approx([0.6, 0.0, 0.05, 0.5])  # ... red or black decides


def test_an_enrolled_four_colour_deck_reads_its_own_colours() -> None:
    """Enrolled, a four-colour deck's blue and green are its diamonds' and clubs' colours, not
    "not red": every suit of it is read. (On frames, where blur pales the ink, six such
    tuning designs read 5 blue diamonds wrong before: docs/vision.md.)"""
    four = four_colour(faces_or_skip("svg-standard"))
    deck = DeckModel.from_faces("four-colour", four)
    assert [ink.colour_name(c) for c in deck.pips.colours] == [
        "black", "red", "blue or green", "blue or green"]
    assert ink.colour_name(deck.index.suit_colours[2]) == "blue or green"
    assert ink.colour_name(np.full(2, np.nan)) == "not seen"
    reads = _reads(Recognizer(deck), four, "SHDC")
    assert reads["wrong"] == 0 and reads["right"] >= 50
