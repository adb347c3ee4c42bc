"""A restart mid-shoe: the table rebuilt from the SQLite log is the table that was running."""

from __future__ import annotations

import json
from pathlib import Path

from dealer_assist.services.audit import audit_lines
from dealer_assist.store.sqlite_log import SqliteEventLog


def shoe_events() -> list[dict]:
    """A standard shoe: a six-card burn, then three games of four cards (naturals)."""
    kinds = [("dealer", "new_shoe", {"shoe_id": "S1", "decks": 8, "variant": "standard"})]
    kinds += [("shoe", "card", {"card": c}) for c in ("5C", "2D", "3D", "4D", "6D", "7D")]
    for hand in (("2H", "9H", "3H", "TH"), ("9D", "2D", "TD", "3D"), ("9C", "9S", "TC", "KC")):
        kinds.append(("dealer", "bets_closed", {}))
        kinds += [("shoe", "card", {"card": card}) for card in hand]
    kinds.append(("dealer", "end_shoe", {}))
    return [{"ts": f"2026-11-29T10:00:{n:02d}.000Z", "src": src, "type": kind, **fields}
            for n, (src, kind, fields) in enumerate(kinds)]


def audit(events) -> dict:
    return audit_lines(json.dumps(event) for event in events)


def test_a_restart_mid_game_rebuilds_the_table_and_carries_on(tmp_path: Path):
    events = shoe_events()
    crash_at = 14  # game 2 has two of its four cards
    log = SqliteEventLog(tmp_path / "table.db")
    for event in events[:crash_at]:
        log.append(event)
    log.close()  # the service stops here

    restarted = SqliteEventLog(tmp_path / "table.db")
    rebuilt = audit(restarted.replay())
    assert rebuilt == audit(events[:crash_at])
    assert [g["status"] for g in rebuilt["shoes"][0]["games"]] == ["complete", "incomplete"]
    for event in events[crash_at:]:
        restarted.append(event)
    final = audit(restarted.replay())
    restarted.close()
    assert final == audit(events)
    assert [g["winner"] for g in final["shoes"][0]["games"]] == ["banker", "player", "tie"]
