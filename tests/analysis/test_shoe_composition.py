"""Compositions: full shoes, `--remaining`, taking cards off; bad input says what and where."""

from __future__ import annotations

import pytest

from dealer_assist.analysis.composition import (
    CompositionError,
    as_mapping,
    check_counts,
    full_shoe,
    parse_remaining,
    take_card,
)
from dealer_assist.analysis.odds import shoe_odds
from dealer_assist.domain.cards import CardError


def test_full_shoe_and_its_limits():
    assert full_shoe(8) == (32,) * 13
    assert sum(full_shoe(1)) == 52
    for bad in (0, 17, True, 8.0):
        with pytest.raises(CompositionError, match="decks"):
            full_shoe(bad)


def test_parse_remaining_both_forms():
    counts = (31, 32, 32, 30, 32, 32, 29, 32, 32, 31, 32, 32, 28)
    assert parse_remaining(",".join(map(str, counts))) == counts
    named = ",".join(f"{r}={n}" for r, n in as_mapping(counts).items()).replace("T=", "10=")
    assert parse_remaining(named) == counts


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1,2,3", "expected 13 counts"),
        ("1,2,3,4,5,6,7,8,9,10,11,12,x", r"count 13 \(K\): 'x' is not a whole number"),
        ("1,2,3,4,5,6,7,8,9,10,11,12,-1", "cannot be negative"),
        ("A=1,B=2", "unknown rank 'B'"),
        ("A=1,A=2", "rank A given twice"),
        ("A=1,2=2", "no count for rank"),
        ("A=1,2,3", "not both"),
    ],
)
def test_parse_remaining_errors_say_what(text, message):
    with pytest.raises(CompositionError, match=message):
        parse_remaining(text)


def test_check_counts_and_short_shoes():
    with pytest.raises(CompositionError, match="count of 7 must be 0 or more"):
        check_counts([1, 1, 1, 1, 1, 1, -1, 1, 1, 1, 1, 1, 1])
    with pytest.raises(CompositionError, match="whole number"):
        check_counts([1.5] * 13)
    with pytest.raises(CompositionError, match="holds 5 card"):
        shoe_odds([1, 1, 1, 1, 1] + [0] * 8)
    assert shoe_odds([1, 1, 1, 1, 1] + [0] * 8, "7up").tie >= 0  # 7up needs only 5


def test_take_card_leaves_the_original_alone():
    counts = full_shoe(1)
    after = take_card(counts, "10D")
    assert after[9] == 3 and counts[9] == 4
    empty = (0,) * 12 + (5,)
    with pytest.raises(CompositionError, match="no Q is left"):
        take_card(empty, "QS")
    with pytest.raises(CardError):
        take_card(counts, "ZZ")
