"""The body-pip reader: a number card's suit from the big pips in its body."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.deck import CODES, WARP, DeckModel, on_grey, upright
from hardware.camera.index import face_pictures
from hardware.camera.pips import CLUB_NOTCHES, SUITS, PipModel, body_pips, notches
from tests.cardart import faces_or_skip

TUNING_DESIGN = "svg-standard"  # the pip reader's own check may use a tuning design
NUMBER_CARDS = [c for c in CODES if c[0] in "23456789T"]


def _small(faces: dict, code: str, rng: np.random.Generator) -> np.ndarray:
    picture = face_pictures(on_grey(upright(faces[code])), WARP)[0]  # as at 130 px high
    noisy = picture.astype(np.float64) + rng.normal(0, 6, picture.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


# 36 of 36 read right on both since a pip is told from the index by its middle (a four's
# pips reach into the index's corner: 35 and 33 before); the floors leave a card's margin
@pytest.mark.parametrize(("design", "floor"), [
    (TUNING_DESIGN, 35),
    ("svg-oxygen", 35),  # light pips on black and deep red cards; its fours' pips are big
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
    found, _, _, _, _ = body_pips(blank)
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


@pytest.mark.parametrize("design", ["paris", "svg-standard", "tango"])
def test_clubs_have_a_clubs_notches_spades_not(design: str) -> None:
    """A pip's outline tells a club from a spade whatever the design: three lobes on a stem
    leave more deep notches than two. Read on every black number card of two tuning designs
    of either family and the held-out tango, as the camera sees them (130 px high, noise),
    most of each club's body pips have a club's notches and most of each spade's do not."""
    faces = faces_or_skip(design)
    rng = np.random.default_rng(3)
    wrong, judged = [], 0
    for code in [c for c in NUMBER_CARDS if c[1] in "SC"]:
        found, _, _, _, counts = body_pips(_small(faces, code, rng), notched=True)
        assert len(counts) == len(found) and not np.isnan(counts).any()
        if len(counts):  # (a two's or three's pips may all lie in the corner zones)
            judged += 1
            if (np.mean(counts >= CLUB_NOTCHES) > 0.5) != (code[1] == "C"):
                wrong.append(code)
    assert judged >= 14 and not wrong, f"notches misjudged on {wrong} of {judged} cards"
    _, _, _, _, unasked = body_pips(_small(faces, "5C", rng))
    assert np.isnan(unasked).all()


def test_notches_of_drawn_shapes() -> None:
    """Drawn shapes, either way up: three overlapping discs on a stem (a club) have at least
    `CLUB_NOTCHES` deep notches; a triangle over a stem (a spade's two lobes and stem) two;
    a disc none."""
    club = np.zeros((60, 60), np.uint8)
    for centre in ((30, 16), (16, 34), (44, 34)):
        cv2.circle(club, centre, 12, 1, -1)
    cv2.rectangle(club, (27, 34), (33, 58), 1, -1)
    spade = np.zeros((60, 60), np.uint8)
    cv2.fillConvexPoly(spade, np.array([[30, 2], [56, 40], [4, 40]], np.int32), 1)
    cv2.rectangle(spade, (27, 30), (33, 58), 1, -1)
    disc = cv2.circle(np.zeros((60, 60), np.uint8), (30, 30), 20, 1, -1)
    for turn in (lambda a: a, lambda a: a[::-1, ::-1]):
        assert notches(turn(club).astype(bool)) >= CLUB_NOTCHES
        assert notches(turn(spade).astype(bool)) == 2
        assert notches(turn(disc).astype(bool)) == 0


def test_notch_weight_marks_down_the_suit_of_the_other_outline() -> None:
    """With a weight, a card whose pips have a club's notches loses it on spades, one whose
    pips have not on clubs; without, the scores are the templates' alone."""
    faces = faces_or_skip(TUNING_DESIGN)
    model = DeckModel.from_faces(TUNING_DESIGN, faces).pips
    rng = np.random.default_rng(5)
    for code, lose in (("8C", "S"), ("8S", "C")):
        picture = _small(faces, code, rng)
        plain, count, _ = model.read(picture)
        weighed, again, _ = model.read(picture, notch_weight=0.3)
        assert count == again >= 2
        expected = plain - 0.3 * np.array([suit in lose for suit in SUITS])
        assert np.allclose(weighed, expected)
