"""The corner-index reader: rank glyph and suit pip from a card's corners."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import index
from hardware.camera.deck import CODES, WARP, DeckModel, on_grey, upright
from hardware.camera.detect import find_cards
from hardware.camera.index import (
    RANKS,
    SUITS,
    IndexModel,
    corner_glyphs,
    face_pictures,
)
from hardware.camera.ink import percentiles
from hardware.camera.reading import warp_card
from hardware.camera.recognize import _clearest
from hardware.camera.synth.decks import large_index
from hardware.camera.synth.scene import frames
from tests.cardart import faces_or_skip

TUNING_DESIGN = "svg-standard"  # the index reader's own check may use a tuning design


@pytest.fixture(scope="module")
def tuning_faces() -> dict:
    return faces_or_skip(TUNING_DESIGN)


def _noisy(picture: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    noise = rng.normal(0, 6, picture.shape)
    return np.clip(picture.astype(np.float64) + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("scale", [1.0, 1.4], ids=["as printed", "large index"])
def test_index_of_each_face_is_read(tuning_faces: dict, scale: float) -> None:
    """Also on a large-index deck, whose rank is taller than most designs' and whose suit pip
    reaches further down the card than the corner searched for the rank."""
    faces = large_index(tuning_faces, scale) if scale != 1.0 else tuning_faces
    model = DeckModel.from_faces(TUNING_DESIGN, faces).index
    rng = np.random.default_rng(3)
    rank_right = suit_right = 0
    for code in CODES:
        small = face_pictures(on_grey(upright(faces[code])), WARP)[0]
        ranks, suits, _doubts = model.corner_scores(_noisy(small, rng))
        assert len(ranks), f"no index found on {code}"
        rank_right += RANKS[int(np.argmax(ranks.max(axis=0)))] == code[0]
        seen = suits[~np.isnan(suits[:, 0])]
        suit_right += bool(len(seen)) and SUITS[int(np.argmax(seen.max(axis=0)))] == code[1]
    assert rank_right >= 48, f"rank read right on {rank_right}/52 faces"
    assert suit_right >= 48, f"suit read right on {suit_right}/52 faces"


def test_a_blank_card_shows_no_index() -> None:
    blank = np.full((WARP[1], WARP[0], 3), 235, np.uint8)
    assert corner_glyphs(blank) == []
    ranks, suits, _doubts = IndexModel.empty().corner_scores(blank)
    assert ranks.shape == (0, 13) and suits.shape == (0, 4)


def test_index_templates_survive_save_and_load(faces: dict, tmp_path: Path) -> None:
    deck = DeckModel.from_faces("tango", faces)
    path = tmp_path / "tango.npz"
    deck.save(path)
    again = DeckModel.load(path).index
    assert len(again.ranks) == len(deck.index.ranks) > 52
    assert np.array_equal(again.rank_of, deck.index.rank_of)
    assert np.abs(again.ranks - deck.index.ranks).max() < 1e-2


def test_percentiles_from_histograms_are_numpys() -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        h, w = (int(x) for x in rng.integers(1, 60, 2))
        lo = int(rng.integers(0, 256))
        values = rng.integers(lo, int(rng.integers(lo, 256)) + 1, (h, w)).astype(np.uint8)
        percents = (85, 2, int(rng.integers(0, 101)))
        expected = [float(np.percentile(values.astype(np.float32), q)) for q in percents]
        assert percentiles(values, percents) == expected


def test_a_dark_card_prints_its_index_light() -> None:
    """`svg-oxygen` (a tuning design) prints white ranks on black and dark red cards: the
    reader reads the negative there, and takes the card's own colour for red or black."""
    faces = faces_or_skip("svg-oxygen")
    model = DeckModel.from_faces("svg-oxygen", faces).index
    assert set(model.rank_of.tolist()) == set(range(13)), "a rank was never read on enrolment"
    rng = np.random.default_rng(5)
    rank_right = red_right = 0
    for code in CODES:
        small = face_pictures(on_grey(upright(faces[code])), WARP)[0]
        glyphs = corner_glyphs(_noisy(small, rng))
        assert glyphs, f"no index found on {code}"
        ranks, _suits, _doubts = model.corner_scores(_noisy(small, rng))
        rank_right += RANKS[int(np.argmax(ranks[_clearest(ranks) or 0]))] == code[0]
        red_right += all((g.redness > 0.18) == (code[1] in "HD") for g in glyphs)
    assert rank_right >= 48, f"rank read right on {rank_right}/52 faces"
    assert red_right >= 48, f"red or black told right on {red_right}/52 faces"


def test_a_sliver_of_felt_along_the_edge_is_not_ink(tuning_faces: dict) -> None:
    """A quad a pixel inside the card leaves a thin dark line of felt or shadow along its
    edge; joined to the rank it once hid the suit pip under it."""
    clean = face_pictures(on_grey(upright(tuning_faces["6C"])), WARP)[0]
    h, w = clean.shape[:2]
    assert all(g.suit is not None for g in corner_glyphs(clean))
    edged = clean.copy()
    rows = slice(round(0.06 * h), round(0.22 * h))  # beside the rank and its pip
    edged[rows, 2] = 40  # a dark line just inside the left edge...
    edged[rows, w - 3] = 40  # ... and the right one
    found = corner_glyphs(edged)
    assert len(found) == len(corner_glyphs(clean))
    assert all(g.suit is not None for g in found)


def test_a_deck_learns_the_corners_it_prints_its_index_in(tuning_faces: dict,
                                                          tmp_path: Path) -> None:
    """svg-standard prints its index top-left (and, turned, bottom-right); the same faces
    mirrored print it top-right, as svg-oxygen does. An enrolled deck reads only its own
    corners (the others show a pip now and then, read as a glyph), and still reads its index
    there; the deck file keeps the corners, and a file made before they were kept reads all
    four."""
    mirrored = {code: np.ascontiguousarray(face[:, ::-1]) for code, face in tuning_faces.items()}
    rng = np.random.default_rng(4)
    for faces, sides in ((tuning_faces, (True, False)), (mirrored, (False, True))):
        deck = DeckModel.from_faces(TUNING_DESIGN, faces)
        assert deck.index.sides == sides
        small = face_pictures(on_grey(upright(faces["7H"])), WARP)[0]
        glyphs = corner_glyphs(_noisy(small, rng), sides)
        assert glyphs and all(g.left == sides[0] for g in glyphs)
        ranks, _suits, _doubts = deck.index.corner_scores(_noisy(small, rng))
        assert RANKS[int(np.argmax(ranks.max(axis=0)))] == "7"
    deck.save(tmp_path / "deck.npz")
    assert DeckModel.load(tmp_path / "deck.npz").index.sides == (False, True)
    with np.load(tmp_path / "deck.npz") as data:  # a deck file made before sides were kept
        np.savez(tmp_path / "older.npz", **{k: data[k] for k in data.files if k != "index_sides"})
    assert DeckModel.load(tmp_path / "older.npz").index.sides == (True, True)


def test_a_pale_rank_beside_a_solid_pip_is_read_on_the_inks_own_level(monkeypatch) -> None:
    """gnomangelo prints its rank in a pale, outlined glyph right beside the first body pip.
    Blurred as a camera far off focus blurs it, the glyph lies under the threshold the solid
    pip sets nearby: its pieces join the pip into one wide blob, and no suit pip is found
    under it. Read again on the ink's own level, the glyph stands whole and apart, with its
    suit pip under it: the nine is a nine (its small pip, so blurred, is a red one, heart or
    diamond; the whole card tells them apart)."""
    faces = faces_or_skip("gnomangelo")
    model = DeckModel.from_faces("gnomangelo", faces).index
    card = cv2.resize(on_grey(upright(faces["9H"])), WARP, interpolation=cv2.INTER_AREA)
    blurred = cv2.GaussianBlur(card, (0, 0), 2.5)
    glyphs = corner_glyphs(blurred, model.sides)
    assert glyphs and all(g.suit is not None and g.rank_aspect < 1.0 for g in glyphs)
    ranks, _suits, _doubts = model.corner_scores(blurred)
    assert RANKS[int(np.argmax(ranks.max(axis=0)))] == "9" and ranks.max() > 0.5
    monkeypatch.setattr(index, "_PALE_INK", np.inf)  # the local threshold alone, as before
    assert all(g.suit is None and g.rank_aspect > 1.0 for g in corner_glyphs(blurred, model.sides))


def test_a_rank_glyph_cut_to_its_upright_is_read_on_the_inks_own_level(monkeypatch) -> None:
    """neoclassical prints hairline strokes beside thick ones. On a small, soft card the
    solid ink nearby (the first body pip, or felt beyond the card's edge where the quad takes
    some in) sets the threshold: the hairlines fall under it, and a three's or a four's thick
    stroke alone is left, narrower than any rank (0.21 wide a height here; fresh tuning
    samples: a four read as a six so, threes as fours). Such a glyph is read again on the
    ink's own level, whole (0.55)."""
    faces = faces_or_skip("neoclassical")  # a tuning design
    model = DeckModel.from_faces("neoclassical", faces).index
    frame = frames(faces, 1, 76)[0]
    three = next(t for t in frame.cards if t.card == "3H")
    quad = min((c.quad for c in find_cards(frame.image)),
               key=lambda q: float(np.linalg.norm(q.mean(axis=0) - three.quad.mean(axis=0))))
    picture = warp_card(frame.image, quad)

    def rank() -> str:
        ranks, _suits, _doubts = model.corner_scores(picture)
        return RANKS[int(np.argmax(ranks.max(axis=0)))]

    assert rank() == "3"
    monkeypatch.setattr(index, "_NARROW", 0.0)  # a narrow glyph kept as it is, as before
    assert rank() != "3"
