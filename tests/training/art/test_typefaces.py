"""Rank glyphs in free typefaces (`training.art.typefaces`) and training's typeface decks."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera.drawn.faces import STANDARD, drawn_faces, index_box
from hardware.cards import CODES_BY_SUIT
from training.art import typefaces
from training.art.artwork import Artwork

# two typefaces of Debian's DejaVu fonts, one with serifs and one without
SANS, SERIF = "dejavu-cond", "dejavu-serif-cond"


def need(*keys: str) -> None:
    why = typefaces.missing_typefaces(keys)
    if why:
        pytest.skip(f"SKIPPED LOUDLY: {why} (CI installs typefaces.FONT_PACKAGES)")


def test_every_rank_is_rendered_tight_to_its_ink() -> None:
    need(SANS)
    for rank in typefaces.RANKS:
        glyph = typefaces.glyph_mask(rank, SANS)
        assert glyph.dtype == np.uint8 and glyph.ndim == 2
        assert glyph.shape[0] > 100  # 200 px type: a capital or a digit is about 145 px tall
        for edge in (glyph[0], glyph[-1], glyph[:, 0], glyph[:, -1]):
            assert edge.max() > 0  # cropped to the ink on all four sides
    ten, nine = typefaces.glyph_mask("10", SANS), typefaces.glyph_mask("9", SANS)
    assert ten.shape[1] > 1.5 * nine.shape[1]  # two digits


def test_two_typefaces_print_a_nine_differently() -> None:
    need(SANS, SERIF)
    sans, serif = (typefaces.glyph_mask("9", k) for k in (SANS, SERIF))
    size = (60, 80)
    a, b = (cv2.resize(g, size, interpolation=cv2.INTER_AREA) > 127 for g in (sans, serif))
    overlap = (a & b).sum() / (a | b).sum()
    assert 0.3 < overlap < 0.9  # both a 9, drawn in different shapes


def test_a_missing_family_names_the_package_that_brings_it(monkeypatch) -> None:
    monkeypatch.setitem(typefaces.TYPEFACES, "nowhere",
                        ("No Such Family Thirty Five", "bold", "fonts-nowhere"))
    why = typefaces.missing_typefaces(("nowhere",))
    assert why is not None
    assert "No Such Family Thirty Five" in why and "apt-get install fonts-nowhere" in why
    with pytest.raises(RuntimeError, match="fonts-nowhere"):
        typefaces.glyph_mask("9", "nowhere")
    with pytest.raises(ValueError, match="unknown typeface"):
        typefaces.glyph_mask("9", "no-such-key")
    with pytest.raises(ValueError, match="not a rank"):
        typefaces.glyph_mask("T", SANS)


def test_typeface_decks_are_reproducible_and_differ_from_each_other() -> None:
    first = typefaces.deck_layout("drawn-t1")
    assert first == typefaces.deck_layout("drawn-t1")
    assert first != typefaces.deck_layout("drawn-t2")
    assert len(first.fonts) == len(CODES_BY_SUIT) and set(first.fonts) <= set(typefaces.TYPEFACES)
    every = {f for name in typefaces.DECKS for f in typefaces.deck_layout(name).fonts}
    assert len(every) > 0.8 * len(typefaces.TYPEFACES)  # the decks print most typefaces
    with pytest.raises(ValueError, match="drawn-t1"):
        typefaces.deck_layout("drawn-t99")


def ink(patch: np.ndarray) -> np.ndarray:
    return patch[..., :3].astype(int).min(axis=-1) < 150


@pytest.mark.parametrize("deck", ["drawn-t1", "drawn-t5"])
def test_a_typeface_decks_index_lies_in_its_box(deck: str) -> None:
    layout = typefaces.deck_layout(deck)
    need(*sorted(set(layout.fonts)))
    faces = drawn_faces(480, layout)
    for code in ("9H", "TS", "JC", "QD"):
        face = faces[code]
        x0, y0, x1, y1 = index_box(code, 480, layout)
        assert min(x0, y0) >= 0 and x1 < face.shape[1] // 3 and y1 < face.shape[0] // 3
        assert ink(face[y0:y1, x0:x1]).mean() > 0.15
        # the card's margin around the index is blank: the box holds the whole index
        assert not ink(face[y0:y1, max(0, x0 - 4):x0]).any()
        assert not ink(face[max(0, y0 - 4):y0, x0:x1]).any()
        assert not ink(face[y1 : y1 + 3, x0:x1]).any()
    standard = drawn_faces(480, STANDARD)["9H"]
    assert not np.array_equal(standard, faces["9H"])


def test_ci_installs_every_font_package_training_names() -> None:
    ci = (Path(__file__).resolve().parents[3] / ".ci" / "run").read_text(encoding="utf-8")
    listed = set(re.findall(r"fonts-[a-z0-9-]+", ci))
    assert set(typefaces.FONT_PACKAGES) <= listed


def test_training_art_takes_a_typeface_deck_by_name_and_refuses_an_unknown_one() -> None:
    need(*sorted(set(typefaces.deck_layout("drawn-t2").fonts)))
    art = Artwork.load(["drawn-t2"], progress=False, variants=False)
    assert art.names == ["drawn-t2"] and len(art.faces[0]) == len(CODES_BY_SUIT)
    assert all(len(face.indices) == 2 for face in art.faces[0].values())
    with pytest.raises(ValueError, match="unknown card designs: drawn-t0"):
        Artwork.load(["drawn-t0"], progress=False)
