"""The streaming re-audit: shoes are written once final, in order, and then let go."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.export.reaudit import Reaudit, decision_reach
from dealer_assist.export.rows import GAME_COLUMNS
from dealer_assist.services.audit import audit_lines


class Rows:
    def __init__(self) -> None:
        self.games: list[list[str]] = []
        self.shoes: list[str] = []
        self.decisions: list[list[str]] = []

    def game(self, row: list[str]) -> None:
        self.games.append(row)

    def flag(self, row: list[str]) -> None:
        pass

    def decision(self, row: list[str]) -> None:
        self.decisions.append(row)

    def shoe(self, settings: dict[str, Any]) -> None:
        self.shoes.append(settings["shoe"])


def stream(shoes: int, late_at: int) -> list[dict[str, Any]]:
    """`shoes` one-deck shoes; while shoe `late_at` is dealt, a ruling on S1 game 1."""
    rng = random.Random(5)
    start = datetime(2026, 11, 29, 6, tzinfo=UTC)
    events: list[dict[str, Any]] = []
    for n in range(1, shoes + 1):
        dealt = deal_shoe(rng, HouseRules(decks=1), shoe_id=f"S{n}", start=start)
        if n == late_at:
            dealt.insert(20, {"ts": dealt[19]["ts"], "src": "supervisor", "type": "decision",
                              "game": 1, "action": "void", "by": "S-1", "reason": "late",
                              "shoe_id": "S1"})
        events += dealt
        start += timedelta(minutes=30)
    return events


def run(events: list[dict[str, Any]], watch: int | None = None) -> tuple[Reaudit, Rows, list]:
    reach = decision_reach(enumerate(events))
    rows = Rows()
    reaudit = Reaudit("T1", load_paytables(), reach, rows)
    held: list[int] = []
    for position, event in enumerate(events):
        reaudit.feed(position, position + 1, event)
        if watch is not None and event["type"] == "new_shoe":
            held.append(sum(1 for s in reaudit.machine.shoes if s.games))
    reaudit.finish()
    return reaudit, rows, held


def test_a_shoe_is_let_go_once_final_so_memory_does_not_grow_with_the_log():
    reaudit, rows, held = run(stream(12, late_at=0), watch=0)
    # At each new shoe, only the shoe just ended (about to be written) still has games.
    assert max(held) <= 2
    assert [s for s in reaudit.machine.shoes if s.games] == [reaudit.machine.shoe]
    assert rows.shoes == [f"S{n}" for n in range(1, 13)]


def test_a_shoe_a_later_ruling_reaches_is_kept_until_then_and_rows_stay_in_order():
    events = stream(6, late_at=4)
    reaudit, rows, held = run(events, watch=0)
    assert held[3] >= 3  # S1, S2 and S3 wait for the ruling made during S4
    shoes_in_rows = [row[1] for row in rows.games]
    assert shoes_in_rows == sorted(shoes_in_rows, key=lambda s: int(s[1:]))
    s1_game1 = dict(zip(GAME_COLUMNS, rows.games[0], strict=True))
    assert (s1_game1["status"], s1_game1["decision_by"]) == ("void", "S-1")
    assert rows.decisions[0][-1] == "true"


def test_the_rows_are_those_of_a_full_audit():
    events = stream(6, late_at=4)
    _, rows, _ = run(events)
    audit = audit_lines([json.dumps(e) for e in events])
    expected = [(s["shoe_id"], str(g["game"]), g["status"], g["winner"] or "", g["review"])
                for s in audit["shoes"] for g in s["games"]]
    got = [(r[1], r[3], r[21], r[14], r[23]) for r in rows.games]
    assert got == expected
