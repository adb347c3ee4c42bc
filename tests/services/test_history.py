"""The supervisor's history is a read model kept as the live table appends: it equals a full
re-fold of the log after many appends, and after a restart that rebuilds it from the log.
(The log's JSON round trip is the same in memory as on SQLite: tests/store's contract.)"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe_detailed
from dealer_assist.domain.events import parse_event
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.public_view import find_game
from dealer_assist.store.log import MemoryEventLog

PAYTABLES = load_paytables()
MISTAKES = ("unneeded_draw", "missed_draw", "deal_after_last_game", "short_burn")
FILTERS = [(None, None), ("S1", None), ("S3", None), (None, "UNNEEDED_DRAW"),
           ("S2", "MISSING_DRAW"), ("S9", None), (None, "NO_SUCH_FLAG")]


def table_on(log: MemoryEventLog) -> LiveTable:
    return LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES)


def play_shoes(table: LiveTable) -> None:
    """Shoes dealt by the rules, each with a mistake; rulings on flagged games as play goes
    on, a late one on the first shoe and a correction."""
    rng = random.Random(38)
    start = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)
    for n, mistake in enumerate(MISTAKES, 1):
        dealt = deal_shoe_detailed(rng, shoe_id=f"S{n}", mistakes=[mistake], start=start)
        for i, event in enumerate(dealt.events):
            table.observe(event)
            if n > 1 and i % 150 == 149:
                table.decide("S-007", 1, "accept", "late: seen on video", shoe_id="S1")
        for code, game in dealt.expected_flags:
            if game is not None:
                table.decide("S-104", game, "accept", f"{code} seen", shoe_id=f"S{n}")
        start += timedelta(hours=1)
    table.decide("S-104", 1, "correct", "wrong hand keyed", shoe_id="S2",
                 **corrected_hand(table, "S2", 1))


def corrected_hand(table: LiveTable, shoe_id: str, number: int) -> dict[str, Any]:
    found = find_game(table.machine, shoe_id, number)
    assert found is not None
    game = found[1]
    return {"player": list(game.player), "banker": list(game.banker)}


def refold(log: MemoryEventLog, shoe_id: str | None, flag: str | None) -> list[dict[str, Any]]:
    """The history as a full fold of the log gives it (what `history` read before)."""
    machine = TableMachine(record=True)
    found: list[tuple[int, dict[str, Any], str | None]] = []
    for seq, obj in log.read():
        machine.apply(parse_event(obj))
        if obj["type"] == "decision":
            found.append((seq, obj, obj.get("shoe_id") or (
                machine.shoe.shoe_id if machine.shoe else None)))
    out = []
    for seq, obj, sid in reversed(found):
        game = find_game(machine, sid, obj["game"]) if sid else None
        codes = sorted({f.code for f in game[1].flags}) if game else []
        if (shoe_id and sid != shoe_id) or (flag and flag not in codes):
            continue
        out.append({"seq": seq, "ts": obj["ts"], "shoe_id": sid, "game": obj["game"],
                    "action": obj["action"], "by": obj["by"], "reason": obj["reason"],
                    "player": obj.get("player"), "banker": obj.get("banker"), "flags": codes})
    return out


def test_the_history_equals_a_full_refold_after_many_appends_and_a_restart() -> None:
    log = MemoryEventLog()
    table = table_on(log)
    play_shoes(table)
    everything = table.history()
    assert len(everything) > 8
    assert any(row["player"] for row in everything)
    assert {row["shoe_id"] for row in table.history(flag="UNNEEDED_DRAW")} == {"S1"}
    for shoe_id, flag in FILTERS:
        assert table.history(shoe_id, flag) == refold(log, shoe_id, flag), (shoe_id, flag)

    again = table_on(log)  # a restart: the history rebuilt from the log at start
    for shoe_id, flag in FILTERS:
        assert again.history(shoe_id, flag) == refold(log, shoe_id, flag), (shoe_id, flag)
    assert again.history() == everything


def test_a_returned_history_is_a_copy() -> None:
    log = MemoryEventLog()
    table = table_on(log)
    play_shoes(table)
    first = table.history()
    first[0]["flags"].append("SCRIBBLED")
    first[0]["player"].append("KH")
    first.clear()
    assert table.history() == refold(log, None, None)
