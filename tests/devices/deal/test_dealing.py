"""Dealing a shoe by the rules: checked here against the rules directly, card by card.

The audit's reading of the same shoes is checked in tests/e2e/test_shoe_e2e.py.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime

import pytest

from dealer_assist.devices.deal.dealing import CUT_CARD_DEPTH, deal_shoe, deal_shoe_detailed
from dealer_assist.devices.deal.mistakes import MISTAKES, DealError, Mistake, parse_mistake
from dealer_assist.domain.cards import CARD_VALUE, burn_value
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.rules import deal_hand

START = datetime(2026, 11, 29, 23, 50, tzinfo=UTC)
HOUSES = [HouseRules(), HouseRules(variant="7up", burn_after_each_game=True),
          HouseRules(decks=1, variant="super6"), HouseRules(decks=6, ace_burns=2)]


def cards_of(events: list[dict]) -> list[str]:
    return [e["card"] for e in events if e["type"] == "card"]


@pytest.mark.parametrize("house", HOUSES, ids=lambda h: f"{h.decks}d-{h.variant}")
@pytest.mark.parametrize("seed", range(6))
def test_a_clean_shoe_follows_the_rules(house: HouseRules, seed: int) -> None:
    shoe = deal_shoe_detailed(random.Random(seed), house, "T1", start=START)
    ev = shoe.events
    assert ev[0] == {"ts": "2026-11-29T23:50:00.000Z", "src": "dealer", "type": "new_shoe",
                     "shoe_id": "T1", "decks": house.decks, "variant": house.variant,
                     "burn_after_each_game": house.burn_after_each_game}
    assert ev[-1]["type"] == "end_shoe"
    assert [e["ts"] for e in ev] == sorted(e["ts"] for e in ev)
    assert all(e["ts"].endswith("Z") and len(e["ts"]) == 24 for e in ev)
    # No card more often than the shoe holds it, and never more cards than it holds.
    dealt = cards_of(ev)
    assert max(Counter(dealt).values()) <= house.decks
    assert len(dealt) <= 52 * house.decks
    # The new-shoe burn: the face-up card, then its burn value in more cards.
    first = dealt[0]
    assert shoe.burn_required == 1 + burn_value(first, house.ace_burns)
    assert shoe.burn == dealt[:shoe.burn_required]
    closes = [i for i, e in enumerate(ev) if e["type"] == "bets_closed"]
    assert len(closes) == len(shoe.games)
    assert cards_of(ev[:closes[0]]) == shoe.burn
    # Every game: the cards between its bets_closed and the next, dealt by the rules.
    bounds = [*closes, len(ev) - 1]
    seven_up = house.variant == "7up"
    for game, start, stop in zip(shoe.games, bounds, bounds[1:], strict=False):
        out = cards_of(ev[start:stop])
        player, banker, used = deal_hand([CARD_VALUE[c] for c in out], seven_up=seven_up)
        extra = len(out) - used
        assert extra == (1 if house.burn_after_each_game and not game.last else 0)
        assert [CARD_VALUE[c] for c in game.player] == player[1 if seven_up else 0:]
        assert [CARD_VALUE[c] for c in game.banker] == banker
    # The blue cut card, 14-20 cards from the back, makes exactly one game the last.
    cuts = [i for i, e in enumerate(ev) if e["type"] == "cut_card"]
    assert len(cuts) == 1 and ev[cuts[0]]["color"] == "blue"
    behind = 52 * house.decks - len(cards_of(ev[:cuts[0]]))
    assert CUT_CARD_DEPTH[0] <= behind <= CUT_CARD_DEPTH[1]
    assert [g.game for g in shoe.games if g.last] == [len(shoe.games)]
    assert closes[-1] < cuts[0] or closes[-2] < cuts[0] < closes[-1]
    assert shoe.expected_flags == []


def test_the_same_seed_deals_the_same_shoe() -> None:
    a = deal_shoe(random.Random(42), start=START)
    assert a == deal_shoe(random.Random(42), start=START)
    assert cards_of(a) != cards_of(deal_shoe(random.Random(43), start=START))


def test_reveal_follows_each_complete_game() -> None:
    shoe = deal_shoe_detailed(random.Random(3), reveal=True, start=START)
    types = [e["type"] for e in shoe.events]
    assert types.count("reveal") == len(shoe.games)
    assert types[-2] == "reveal"


@pytest.mark.parametrize("kind", MISTAKES)
def test_each_mistake_is_made_once_where_asked(kind: str) -> None:
    clean = deal_shoe_detailed(random.Random(9), start=START)
    game = 5 if kind != "missed_draw" else next(
        g.game for g in clean.games if len(g.player) + len(g.banker) >= 5)
    shoe = deal_shoe_detailed(random.Random(9), mistakes=[Mistake(kind, game)], start=START)
    ev = shoe.events
    if kind == "short_burn":
        assert len(shoe.burn) == shoe.burn_required - 1
        assert shoe.expected_flags == [("BURN_SHORT", None)]
        return
    if kind == "deal_after_last_game":
        assert len(shoe.games) == len(clean.games) + 1
        assert shoe.expected_flags == [("DEAL_AFTER_LAST_GAME", len(clean.games) + 1)]
        return
    assert shoe.expected_flags == [({"unneeded_draw": "UNNEEDED_DRAW", "missed_draw":
                                     "MISSING_DRAW", "cards_pulled_together": "MULTI_PULL"}[kind],
                                    game)]
    closes = [i for i, e in enumerate(ev) if e["type"] == "bets_closed"]
    game_cards = cards_of(ev[closes[game - 1]:closes[game]])
    if kind == "unneeded_draw":
        assert len(game_cards) == len(clean.games[game - 1].player) + \
            len(clean.games[game - 1].banker) + 1
    elif kind == "missed_draw":  # the next bets_closed comes before the third card
        assert len(game_cards) == 4
        mine, theirs = shoe.games[game - 1], clean.games[game - 1]
        assert (mine.player, mine.banker) == (theirs.player, theirs.banker)
        assert cards_of(ev) == cards_of(clean.events)  # the same cards in the same order
    else:
        multi = [e for e in ev if e.get("multi")]
        assert len(multi) == 1 and ev.index(multi[0]) == closes[game - 1] + 2


def test_random_mistakes_land_on_games_that_allow_them() -> None:
    for seed in range(30):
        shoe = deal_shoe_detailed(random.Random(seed), mistakes=MISTAKES, start=START)
        kinds = sorted(code for code, _ in shoe.expected_flags)
        assert kinds == sorted(["UNNEEDED_DRAW", "MISSING_DRAW", "BURN_SHORT", "MULTI_PULL",
                                "DEAL_AFTER_LAST_GAME"])


@pytest.mark.parametrize("mistakes, says", [
    (["spilled_drink"], "unknown dealer mistake"),
    (["short_burn", "short_burn"], "only once"),
    ([Mistake("unneeded_draw", 500)], "had only"),
    (["missed_draw:1", "unneeded_draw:1"], "cannot share"),
])
def test_impossible_mistakes_are_refused(mistakes: list, says: str) -> None:
    with pytest.raises(DealError, match=says):
        deal_shoe(random.Random(1), mistakes=mistakes)


def test_parse_mistake() -> None:
    assert parse_mistake("missed_draw:7") == Mistake("missed_draw", 7)
    assert parse_mistake("short_burn") == Mistake("short_burn")
    with pytest.raises(DealError, match="KIND:GAME"):
        parse_mistake("missed_draw:seven")
