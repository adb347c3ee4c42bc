"""The steps of a dealt shoe: what each trace event is at the table, when the dealer reveals,
and the pace the trace's timestamps keep. The table machine is the referee: it reads the same
events and says which phase each card came in and when a game's first cards were out.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from dealer_assist.devices.deal.dealing import DealtShoe, deal_shoe, deal_shoe_detailed
from dealer_assist.devices.deal.mistakes import MISTAKES
from dealer_assist.devices.deal.pace import (
    BETTING,
    BETWEEN_GAMES,
    BURN_CARD,
    CUT_CARD,
    EARLY_CLOSE,
    END_SHOE,
    GAME_CARD,
    NEW_SHOE,
    PACE,
    REVEAL,
)
from dealer_assist.domain.events import parse_event
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.phases import BETWEEN, BURN
from dealer_assist.domain.rules import POSITIONS
from dealer_assist.domain.table import TableMachine

START = datetime(2026, 11, 29, 23, 50, tzinfo=UTC)
HOUSES = [HouseRules(), HouseRules(variant="7up", burn_after_each_game=True),
          HouseRules(decks=1, variant="super6"), HouseRules(decks=6, ace_burns=2)]
MIXES = [(), ("unneeded_draw",), ("missed_draw",), ("short_burn",), ("cards_pulled_together",),
         ("deal_after_last_game",), MISTAKES]


def what_the_table_saw(dealt: DealtShoe) -> list[tuple[str, bool]]:
    """Each event's kind of step and whether a game's first cards (or a third card) had just
    come out into the game the table is dealing, as the table machine reads the events."""
    machine = TableMachine(record=True)
    seen = []
    for event in dealt.events:
        kind, phase = event["type"], machine.phase
        if kind == "card":
            step = BURN_CARD if phase == BURN else BETWEEN_GAMES if phase == BETWEEN else GAME_CARD
        elif kind == "bets_closed":
            step = BETTING if phase in (BURN, BETWEEN) else EARLY_CLOSE
        else:
            step = {"new_shoe": NEW_SHOE, "cut_card": CUT_CARD, "reveal": REVEAL,
                    "end_shoe": END_SHOE}[kind]
        squeeze = False
        for happened in machine.apply(parse_event(event)):
            shoe = machine.shoe
            game = shoe.current if shoe else None
            if happened.kind == "card_placed" and happened.data[0] in POSITIONS \
                    and game is not None and happened.game == game.number:
                squeeze = len(game.cards) >= (3 if dealt.house.variant == "7up" else 4)
        seen.append((step, squeeze))
    return seen


@pytest.mark.parametrize("house", HOUSES, ids=lambda h: f"{h.decks}d-{h.variant}")
@pytest.mark.parametrize("mistakes", MIXES, ids=lambda m: "+".join(m) or "clean")
def test_each_step_is_what_the_table_sees(house: HouseRules, mistakes: tuple[str, ...]) -> None:
    for seed in range(4):
        dealt = deal_shoe_detailed(random.Random(seed), house, mistakes=mistakes, start=START,
                                   reveal=seed % 2 == 1)
        assert len(dealt.steps) == len(dealt.events)
        assert [(s.kind, s.squeeze) for s in dealt.steps] == what_the_table_saw(dealt)


def test_the_dealer_reveals_the_first_four_cards_then_each_third_card() -> None:
    dealt = deal_shoe_detailed(random.Random(5), start=START)
    squeezes = sum(s.squeeze for s in dealt.steps)
    third_cards = sum(len(g.player) + len(g.banker) - 4 for g in dealt.games)
    assert squeezes == len(dealt.games) + third_cards
    first = next(i for i, s in enumerate(dealt.steps) if s.squeeze)
    close = next(i for i, e in enumerate(dealt.events) if e["type"] == "bets_closed")
    assert first == close + 4


def test_the_trace_keeps_the_pace_of_its_steps() -> None:
    dealt = deal_shoe_detailed(random.Random(8), HouseRules(burn_after_each_game=True),
                               mistakes=["missed_draw", "unneeded_draw"], start=START, reveal=True)
    ms = [datetime.fromisoformat(e["ts"]).timestamp() * 1000 for e in dealt.events]
    for i, step in enumerate(dealt.steps[1:], 1):
        gap = round(ms[i] - ms[i - 1])
        if step.kind == CUT_CARD:  # out when its card was due; the card follows as a game card
            assert gap == PACE[dealt.steps[i + 1].kind].trace_ms
        elif dealt.steps[i - 1].kind == CUT_CARD:
            assert gap == PACE[GAME_CARD].trace_ms
        else:
            assert gap == PACE[step.kind].trace_ms, (i, step)


def test_steps_leave_the_trace_as_it_was() -> None:
    dealt = deal_shoe_detailed(random.Random(13), mistakes=MISTAKES, start=START)
    assert dealt.events == deal_shoe(random.Random(13), mistakes=MISTAKES, start=START)
    assert {"kind", "squeeze"}.isdisjoint(k for e in dealt.events for k in e)
