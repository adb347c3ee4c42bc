"""The dealer on duty on its own (services/dealer_duty.py), over a real table machine: who dealt
each game, rotation, and after a restart since when the last dealer is at the table."""

from __future__ import annotations

from typing import Any

from dealer_assist.domain.events import parse_event
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.dealer_duty import DealerDuty
from tests.tracebuild import BURN3, Trace

NAT = ("9H", "TS", "KD", "2C")


def deal(machine: TableMachine, duty: DealerDuty, events: list[dict[str, Any]]) -> None:
    """What the live table does with each event: stamp, apply, note the game's dealer."""
    for event in events:
        event = dict(event)
        if event["type"] == "bets_closed":
            duty.stamp(event)
        machine.apply(parse_event(event))
        if event["type"] == "bets_closed":
            duty.dealt(machine, event.get("dealer"), event["ts"])


def test_each_game_names_the_dealer_at_the_table_when_its_bets_closed() -> None:
    machine, duty = TableMachine(record=True), DealerDuty()
    trace = Trace().new_shoe().burn(*BURN3)
    deal(machine, duty, trace.events)
    assert duty.sign_in("D-12", "T0") is None and duty.on_duty() == {"dealer": "D-12",
                                                                      "since": "T0"}
    deal(machine, duty, Trace().game(*NAT).ev("dealer", "reveal").events)
    assert duty.sign_in("D-12", "T1") is None and duty.since == "T0"  # the same: no change
    assert duty.sign_in("D-07", "T2") == "D-12"
    deal(machine, duty, Trace().game(*NAT).ev("dealer", "reveal").events)
    assert duty.sign_out() == "D-07" and duty.on_duty() == {"dealer": None, "since": None}
    deal(machine, duty, Trace().game(*NAT).events)
    assert [(g["game"], g["dealer"]) for g in duty.games(machine)] == [
        (1, "D-12"), (2, "D-07"), (3, None)]


def test_a_bets_closed_with_no_shoe_starts_no_game_and_names_no_one() -> None:
    machine, duty = TableMachine(record=True), DealerDuty()
    duty.sign_in("D-12", "T0")
    deal(machine, duty, Trace().close().events)
    assert duty.dealers == [] and duty.games(machine) == []


def test_after_a_restart_the_last_dealer_is_on_since_their_stints_first_game() -> None:
    machine, duty = TableMachine(record=True), DealerDuty()
    events = (Trace().new_shoe().burn(*BURN3).game(*NAT).ev("dealer", "reveal")
              .ev("dealer", "bets_closed", dealer="D-07").cards(*NAT).ev("dealer", "reveal")
              .ev("dealer", "bets_closed", dealer="D-12").cards(*NAT).ev("dealer", "reveal")
              .ev("dealer", "bets_closed", dealer="D-12").cards(*NAT).events)
    deal(machine, duty, events)
    dealers, dealer = duty.captured()
    again = DealerDuty()
    again.restore(dealers, dealer)
    again.resume(machine)
    third = machine.shoes[0].games[2]
    assert again.on_duty() == {"dealer": "D-12", "since": third.started_ts}
    assert again.games(machine) == duty.games(machine)
    assert dealers == [[None, "D-07", "D-12", "D-12"]]
