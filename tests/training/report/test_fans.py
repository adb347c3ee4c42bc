"""The dense-fan choice set (`training/report/fans.py`), on real card art: a card counts
as readable by its most visible index, the pictures repeat from their seed with one deck's
cards, and reported codes are tallied as the real photographs' scorer tallies them."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tests.cardart import TRAINING_DESIGN
from training.art.artwork import Artwork
from training.data.pictures import Card, compose
from training.report.fans import FanPicture, FanTally, fan_pictures


def test_a_card_is_as_readable_as_its_most_visible_index(art: Artwork) -> None:
    # the 5 of hearts has its top-left index under the king of spades, its bottom-right in
    # view; the 9 of diamonds lies wholly under the larger queen of clubs
    cards = [Card("5H", (150.0, 190.0), 110.0, 0.0), Card("KS", (110.0, 120.0), 110.0, 0.0),
             Card("9D", (290.0, 280.0), 60.0, 10.0), Card("QC", (290.0, 280.0), 90.0, 0.0)]
    _, laid = compose(np.random.default_rng(7), art, (384, 384), cards, [0] * 4, np.eye(3),
                      clutter=False, camera=False)
    shown = {c.code: c.shown for c in laid}
    assert shown["5H"] == pytest.approx(1.0, abs=0.02)
    assert shown["KS"] == pytest.approx(1.0, abs=0.02)
    assert shown["QC"] == pytest.approx(1.0, abs=0.02)
    assert shown["9D"] == 0.0


def test_fan_pictures_repeat_from_their_seed_with_one_decks_cards(art: Artwork) -> None:
    first, again = fan_pictures(art, 2, 11), fan_pictures(art, 2, 11)
    other = fan_pictures(art, 1, 12)[0]
    assert not np.array_equal(first[0].image, other.image)
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a.image, b.image)
        assert (a.required, a.optional) == (b.required, b.optional)
        assert a.design == TRAINING_DESIGN and a.image.shape == (960, 1280, 3)
        everything = a.required + a.optional
        assert 16 <= sum(everything.values()) <= 52  # two to four fans of 8 to 13 cards
        assert max(everything.values()) == 1  # one shuffled deck: each code once
        assert 0 < sum(a.required.values()) < sum(everything.values())  # fans hide some


def test_a_fan_tally_scores_codes_as_multisets() -> None:
    picture = FanPicture("anglo", np.zeros((1, 1, 3), np.uint8), Counter({"AS": 1, "KH": 1}),
                         Counter({"2C": 1}))
    tally = FanTally()
    # the ace once right and once too many, the optional 2C no error, the 3D wrong
    assert tally.add(picture, ["AS", "2C", "3D", "AS"]) == ["3D", "AS"]
    assert (tally.required, tally.matched, tally.reported, tally.wrong) == (2, 1, 4, 2)
    assert tally.found == 50.0 and tally.right == 50.0
    assert tally.add(picture, ["KH", "AS"]) == []
    assert tally.found == 75.0 and tally.right == pytest.approx(100 * (1 - 2 / 6))
    assert FanTally().right == 100.0 and FanTally().found == 0.0
