"""Error messages quote bad input as a short excerpt with its cut marked."""

from __future__ import annotations

import pytest

from dealer_assist.domain.cards import CardError, parse_card
from dealer_assist.domain.events import TraceError, parse_event
from dealer_assist.domain.excerpt import shown


def test_short_values_are_shown_whole() -> None:
    assert shown("QS") == "'QS'"
    assert shown([1, "a"]) == "[1, 'a']"
    assert shown(None) == "None"


def test_long_and_deep_values_are_cut_and_the_cut_is_marked() -> None:
    assert len(shown("x" * 50_000_000)) < 80 and "..." in shown("x" * 1000)
    assert shown(list(range(1000))) == "[0, 1, 2, 3, ...]"
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert len(shown(deep)) < 200 and "..." in shown(deep)
    assert len(shown(10 ** 5000)) < 200


def test_the_parsers_quote_excerpts() -> None:
    with pytest.raises(CardError) as card:
        parse_card("Z" * 1_000_000)
    assert len(str(card.value)) < 300
    with pytest.raises(TraceError) as trace:
        parse_event({"ts": "2026-11-29T10:00:00.000Z", "src": "shoe", "type": ["t"] * 10**6})
    assert len(str(trace.value)) < 300 and "..." in str(trace.value)
    with pytest.raises(TraceError, match="field 'type' must be a string"):
        parse_event({"ts": "2026-11-29T10:00:00.000Z", "src": "shoe", "type": {"a": 1}})
