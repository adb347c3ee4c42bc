"""The audit's hot path (issue 66): the short cuts taken for speed give what the long way gives.

`parse_event`'s fast path for cards and closes of bets, `Game.place`'s table of the opening
deal, the games' shared empty `revealed`, and `shoe_view(share=True)` (the audit's views,
which take the let-go games' lists instead of copies).
"""

import json
import random
from datetime import UTC, datetime

import pytest

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.devices.deal.mistakes import MISTAKES
from dealer_assist.domain.cards import CARD_CODES, CARD_VALUE
from dealer_assist.domain.events import BetsClosed, CardDealt, TraceError, parse_event
from dealer_assist.domain.flags import Flag
from dealer_assist.domain.game import UNREADABLE, Game
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.report import shoe_view
from dealer_assist.domain.rules import next_position
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.trace import read_events

PAYTABLES = load_paytables()
TS = "2026-11-01T10:00:00.000Z"


@pytest.mark.parametrize("code", [*CARD_CODES, "10S", "10D"])
def test_a_card_parses_to_its_canonical_code_object(code):
    event = parse_event({"ts": TS, "src": "shoe", "type": "card", "card": code})
    canonical = "T" + code[2] if code.startswith("10") else code
    assert event == CardDealt(TS, "shoe", canonical, False)
    # the one copy of the code, whichever path read it
    assert event.card is next(c for c in CARD_VALUE if c == canonical)


def test_the_fast_path_reads_multi_and_ignores_unknown_fields_as_the_full_one_does():
    assert parse_event({"ts": TS, "src": "s", "type": "card", "card": "AS", "multi": True,
                        "note": 1}) == CardDealt(TS, "s", "AS", True)
    assert parse_event({"type": "bets_closed", "src": "s", "ts": TS, "x": [1]}) == BetsClosed(TS, "s")
    assert type(parse_event({"ts": TS, "src": "s", "type": "bets_closed"})) is BetsClosed


@pytest.mark.parametrize("obj, message", [
    ({"ts": "noon", "src": "s", "type": "card", "card": "AS"}, "not an ISO 8601 time"),
    ({"ts": TS, "src": "", "type": "card", "card": "AS"}, "field 'src'"),
    ({"ts": TS, "src": "s", "type": "card", "card": "as"}, "bad card code"),
    ({"ts": TS, "src": "s", "type": "card", "card": 7}, "must be a string"),
    ({"ts": TS, "src": "s", "type": "card", "card": "AS", "multi": 1}, "field 'multi'"),
    ({"ts": TS, "src": "s", "type": "card"}, "missing field 'card'"),
    ({"ts": 5, "src": "s", "type": "bets_closed"}, "field 'ts' must be a string"),
    ({"src": "s", "type": "bets_closed"}, "missing field 'ts'"),
    ({"ts": TS, "src": ["s"], "type": "bets_closed"}, "field 'src'"),
    ({"ts": TS, "src": "s", "type": ["card"]}, "field 'type' must be a string"),
])
def test_what_the_fast_path_refuses_the_full_validation_names(obj, message):
    with pytest.raises(TraceError, match=message):
        parse_event(obj)


@pytest.mark.parametrize("seed", range(40))
def test_placing_cards_follows_next_position_at_every_card(seed):
    rng = random.Random(seed)
    seven_up = seed % 3 == 0
    game = Game(1, seven_up)
    if seed % 4 == 1:  # a supervisor's correction to an unfinished hand, then the shoe goes on
        player = tuple(rng.choice(CARD_CODES) for _ in range(rng.randint(1, 3)))
        banker = tuple(rng.choice(CARD_CODES) for _ in range(rng.randint(1, 3)))
        game.replace_cards(player, banker)
    placed = 0
    while game.expect is not None and placed < 8:
        pos, code = game.expect, rng.choice(CARD_CODES)
        assert game.place(code) == pos and game.cards[-1] == (pos, code)
        placed += 1
        assert game.expect == next_position(game.player_values, game.banker_values)
    assert placed >= 1 or seed % 4 == 1  # a fresh hand always takes cards


def test_an_unreadable_card_still_takes_the_cautious_way():
    game = Game(1, False)
    for code in ("AS", UNREADABLE, "2S", "3S"):
        game.place(code)
    assert game.unknowns == 1 and game.expect == "P3" and not game.expect_sure


def test_games_do_not_share_what_they_revealed():
    first, second = Game(1, False), Game(2, False)
    assert first.revealed == set() and second.revealed == set()
    first.reveal(["P1", "B1"])
    first.reveal(("P1",))
    assert first.revealed == {"P1", "B1"} and second.revealed == set()
    second.replace_cards(("AS", "2S"), ("3S", "4S"))
    assert second.revealed == {"P1", "P2", "B1", "B2"} and first.revealed == {"P1", "B1"}


def test_a_flag_raised_once_is_kept_once_and_other_flags_still_come():
    game = Game(1, False)
    flag = Flag.of("UNNEEDED_DRAW", "AS came out")
    assert game.flag(flag, once=True) and not game.flag(flag, once=True)
    assert game.flag(flag)  # without `once`, always
    assert game.flag(Flag.of("UNNEEDED_DRAW", "2S came out"), once=True)
    assert [f.detail for f in game.flags] == ["AS came out", "AS came out", "2S came out"]


def _messy_machine() -> TableMachine:
    """Shoes of every variant with every dealer mistake, reveals and unreadable cards."""
    rng = random.Random(66)
    lines = []
    for i in range(9):
        house = HouseRules(variant=("standard", "super6", "7up")[i % 3],
                           burn_after_each_game=i % 2 == 1)
        events = deal_shoe(rng, house, shoe_id=f"S{i}", mistakes=rng.sample(MISTAKES, 2),
                           start=datetime(2026, 11, 1, tzinfo=UTC), reveal=i % 2 == 0)
        for event in events:
            if event["type"] == "card" and rng.random() < 0.02:
                event = {"ts": event["ts"], "src": event["src"], "type": "unreadable"}
            lines.append(event)
    machine = TableMachine(record=False)
    for _, event in read_events(json.dumps(e) for e in lines):
        machine.apply(event)
    return machine


def test_the_shared_view_is_the_copied_view():
    machine = _messy_machine()
    flagged = 0
    for shoe in machine.shoes:
        copied = shoe_view(shoe, PAYTABLES)
        shared = shoe_view(shoe, PAYTABLES, share=True)
        assert shared == copied
        flagged += sum(1 for g in copied["games"] if g["flags"])
        for game, view in zip(shoe.games, copied["games"], strict=True):
            assert view["player"] is not game.player and view["set_aside"] is not game.set_aside
        for game, view in zip(shoe.games, shared["games"], strict=True):
            assert view["player"] is game.player and view["banker"] is game.banker
    assert flagged >= 9  # the mistakes were made: the views compared hold flags


def test_a_copied_view_changed_leaves_the_game_and_the_next_view_alone():
    shoe = next(s for s in _messy_machine().shoes if s.status == "finished")
    view = shoe_view(shoe, PAYTABLES)
    won = next(g for g in view["games"] if g["winning_bets"])
    won["winning_bets"].append({"bet": "x", "pays": "1:1"})
    won["player"].append("AS")
    again = shoe_view(shoe, PAYTABLES)["games"][won["game"] - 1]
    assert {"bet": "x", "pays": "1:1"} not in again["winning_bets"]
    assert again["player"] == shoe.games[won["game"] - 1].player != won["player"]
