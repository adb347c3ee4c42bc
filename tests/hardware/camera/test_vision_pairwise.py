"""Near-identical faces (same rank, other suit of the same colour) are told apart.

On a tuning design whose spades and clubs differ only in their pips' shape (`svg-oxygen`),
clean renders of such pairs used to read "unsure": the whole-card match leads by about the
noise. The full-detail look at where the two faces differ (`pairwise`) settles them.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera import pairwise
from hardware.camera.deck import DeckModel, fine_planes, on_grey, upright
from hardware.camera.pairwise import contrast, discriminate, foreign_colour
from hardware.camera.recognize import Recognizer
from hardware.camera.synth.decks import DESIGNS
from hardware.camera.synth.layout import Placement, zone_slot
from hardware.camera.synth.scene import frames, make_table, render
from tests.cardart import faces_or_skip

DESIGN = "svg-oxygen"  # a tuning design: its black (and red) suits differ only in pip shape
PAIRS = ("AS", "AC", "2S", "2C", "4S", "4C", "QD", "QH", "2D", "2H", "9S", "9C")
ZONES = ("player1", "banker1", "player2", "banker2", "player3", "banker3")


@pytest.fixture(scope="module")
def oxygen() -> dict:
    return faces_or_skip(DESIGN)


def _grey(faces: dict, code: str) -> np.ndarray:
    return fine_planes(on_grey(upright(faces[code])))[0]


def test_discriminate_points_at_the_face_it_sees(oxygen: dict) -> None:
    spade, club = _grey(oxygen, "4S"), _grey(oxygen, "4C")
    assert discriminate(spade, spade, club) > 0.8
    assert discriminate(club, spade, club) < -0.8
    rng = np.random.default_rng(1)  # a hand over the whole card: it says nothing
    hand = cv2.GaussianBlur((120 + rng.normal(0, 12, spade.shape)).astype(np.float32), (0, 0), 1.5)
    assert abs(discriminate(np.asarray(hand), spade, club)) < 0.1


def test_same_rank_other_suit_reads_on_clean_frames(oxygen: dict) -> None:
    recognizer = Recognizer(DeckModel.from_faces(DESIGN, oxygen))
    rng = np.random.default_rng(3)
    read: dict[str, str] = {}
    for start in range(0, len(PAIRS), len(ZONES)):
        table = make_table(rng, 180.0)
        placements = []
        for k, (code, zone) in enumerate(zip(PAIRS[start:], ZONES, strict=False)):
            (x, y), angle = zone_slot(zone, 180.0)
            placements.append(Placement(code, True, zone, (x, y), angle + 180.0 * (k % 2), 180.0))
        frame = render(table, placements, oxygen, rng, occlusion=0.0)
        sightings = recognizer(frame.image)
        for truth in frame.cards:
            near = [s for s in sightings if np.hypot(s.center[0] - truth.center[0],
                                                     s.center[1] - truth.center[1]) < 40]
            read[truth.card] = (near[0].card or near[0].face) if near else "missed"
    # finding the card is not the subject here (two red cards lie on a felt they hide in)
    found = {code: got for code, got in read.items() if got != "missed"}
    wrong = {code: got for code, got in found.items() if got != code}
    assert len(found) >= len(PAIRS) - 2, f"found only {sorted(found)}"
    assert not wrong, f"misread: {wrong}"


def test_a_picture_a_pixel_off_still_points_at_its_face(oxygen: dict) -> None:
    """The whole-card alignment can leave the picture a pixel off where two faces differ in
    small places (the shape of a pip): the look moves it to the nearest fit first."""
    spade, club = _grey(oxygen, "4S"), _grey(oxygen, "4C")
    for dy, dx in ((1, 0), (0, -1), (1, 1)):
        moved = np.roll(spade, (dy, dx), axis=(0, 1))
        assert discriminate(moved, spade, club) > 0.8, (dy, dx)
        assert discriminate(np.roll(club, (dy, dx), axis=(0, 1)), spade, club) < -0.8, (dy, dx)


def test_a_chip_of_a_colour_the_card_does_not_print_says_nothing() -> None:
    """A green chip over the middle pip of a nine of spades: in grey it is a flat patch, as
    the paper of an eight is where the nine prints that pip. Its colour, which no spade card
    prints, hides that place, and the nine's other pips still speak for it."""
    faces = faces_or_skip("svg-standard")  # a tuning design
    nine, eight = (fine_planes(on_grey(upright(faces[c]))) for c in ("9S", "8S"))
    bgr = cv2.resize(on_grey(upright(faces["9S"])), (nine.shape[2], nine.shape[1]),
                     interpolation=cv2.INTER_AREA)
    centre = (bgr.shape[1] // 2, bgr.shape[0] // 2)
    cv2.circle(bgr, centre, 16, (60, 150, 40), -1)  # BGR: a green chip
    chipped = fine_planes(bgr)
    hidden = foreign_colour(chipped[1], red_ink=False)
    assert hidden[centre[1], centre[0]] and hidden.mean() < 0.1
    blind = discriminate(chipped[0], nine[0], eight[0])
    seeing = discriminate(chipped[0], nine[0], eight[0], hidden)
    assert seeing > 0.3 and seeing > blind + 0.2, (blind, seeing)
    assert not foreign_colour(nine[1], red_ink=False).any()
    red = fine_planes(on_grey(upright(faces["9H"])))[1]
    assert not foreign_colour(red, red_ink=True).any() and foreign_colour(red, False).any()


def test_a_blurred_picture_is_told_apart_on_blurred_faces(oxygen: dict) -> None:
    """A small card's pips, blurred, fit neither sharp face, and the say shrinks with the fit:
    the faces blurred as the picture is (`softer`) fit it, and the say is taken from them."""
    spade, club = _grey(oxygen, "4S"), _grey(oxygen, "4C")
    soft = tuple(contrast(cv2.GaussianBlur(face, (0, 0), 2.0)) for face in (spade, club))
    blurred = np.asarray(cv2.GaussianBlur(spade, (0, 0), 2.5))
    sharp_only = discriminate(blurred, spade, club)
    assert sharp_only < 0.3
    assert discriminate(blurred, spade, club, softer=(soft[0], soft[1])) > sharp_only + 0.4
    assert discriminate(np.asarray(cv2.GaussianBlur(club, (0, 0), 2.5)), spade, club,
                        softer=(soft[0], soft[1])) < -0.4
    assert discriminate(spade, spade, club, softer=(soft[0], soft[1])) > 0.8  # sharp: as before


def test_a_blurred_five_of_clubs_is_not_read_as_the_five_of_spades() -> None:
    """simplistic, seed 22 (tuning frames): a small, blurred five of clubs. The whole-card
    look is right, but the corner pip and the body pips lean to the spade, and the
    full-detail look at sharp faces said nothing (fit 0.18); at faces blurred by
    `pair_blur` it fits 0.85 and points at the club. (With `pair_blur` 0 this test fails:
    the five was read as the spade; since the picture's contrast is matched to the faces'
    (`pairwise._gain`), the sharp faces leave it a close call.)"""
    faces = faces_or_skip("simplistic")  # a tuning design
    frame = frames(faces, 5, 22 + list(DESIGNS).index("simplistic"))[4]
    five = next(t for t in frame.cards if t.card == "5C")
    deck = DeckModel.from_faces("simplistic", faces)

    def told(blur: float) -> str:
        near = five.near(Recognizer(deck, pair_blur=blur)(frame.image))
        return near[0].card or near[0].why if near else "missed"

    assert told(Recognizer.pair_blur) == "5C"
    assert told(0.0) != "5C"


def test_a_washed_out_picture_is_told_apart_at_its_own_contrast(monkeypatch) -> None:
    """simplistic, a fresh tuning sample: a king of spades whose ink the lamp washed out to
    grey. At the faces' contrast it fitted neither face where they differ (the say was 0,
    and the corner's small pip read the club); matched to the picture's own contrast over
    the whole card (`pairwise._gain`) it points at its face, and at its ink faded by half
    still does."""
    faces = faces_or_skip("simplistic")  # a tuning design
    spade, club = (fine_planes(on_grey(upright(faces[c])))[0] for c in ("KS", "KC"))
    paper = float(np.percentile(spade, 90))

    def washed(face: np.ndarray, fade: float) -> np.ndarray:
        return (face * (1.0 - fade) + paper * fade).astype(np.float32)

    for fade in (0.3, 0.5):
        assert discriminate(washed(spade, fade), spade, club) > 0.8, fade
        assert discriminate(washed(club, fade), spade, club) < -0.8, fade
    monkeypatch.setattr(pairwise, "_GAIN", (1.0, 1.0))  # the faces' contrast, as before
    assert abs(discriminate(washed(spade, 0.5), spade, club)) < 0.1
