"""The dealer of every game and the dealer at the table survive a restart, from a snapshot as
from a full replay of the log (real SQLite log and snapshots)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import Refused
from dealer_assist.store.log import MemoryEventLog
from dealer_assist.store.snapshot import TableSnapshots
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from tests.store.sealing import seal

PAYTABLES = load_paytables()


def table_on(log: Any, snapshots: TableSnapshots | None = None, **kw: Any) -> LiveTable:
    return LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES,
                     clock=lambda: "2026-12-01T10:00:00.000Z", snapshots=snapshots, **kw)


def test_a_restart_from_a_snapshot_keeps_every_games_dealer(tmp_path: Path) -> None:
    db = tmp_path / "T1.events.db"
    log = SqliteEventLog(db)
    table = table_on(log, TableSnapshots(log, db, seal()), snapshot_every=100)
    first, second = (deal_shoe(random.Random(seed), shoe_id=f"S{n}")
                     for n, seed in ((1, 3), (2, 4)))
    table.sign_in("D-12")
    for event in first[:300]:
        table.observe(event)
    table.sign_in("D-07")
    for event in first[300:] + second[:150]:
        table.observe(event)
    table.flush_snapshots()  # killed: no last snapshot at close
    log.close()

    log = SqliteEventLog(db)
    again = table_on(log, TableSnapshots(log, db, seal()))
    assert again.started.startswith("snapshot at seq ")
    replayed = table_on(SqliteEventReader(db))
    assert again.dealt_games() == replayed.dealt_games() == table.dealt_games()
    assert again.on_duty() == replayed.on_duty()
    d07 = [g for g in table.dealt_games() if g["dealer"] == "D-07"]
    assert again.on_duty() == {"dealer": "D-07", "since": d07[0]["start"]}
    dealers = {g["dealer"] for g in again.dealt_games()}
    assert dealers == {"D-12", "D-07"}
    log.close()


def test_a_bets_closed_with_a_dealer_that_is_no_name_is_refused_and_not_logged() -> None:
    table = table_on(MemoryEventLog())
    table.observe({"src": "dealer", "type": "new_shoe", "shoe_id": "S1"})
    for bad in (12, "", " ", "x" * 65, ["D-12"]):
        with pytest.raises(Refused, match="field 'dealer' must be a dealer's name"):
            table.observe({"src": "dealer", "type": "bets_closed", "dealer": bad})
    assert table.seq == 1
    table.observe({"src": "dealer", "type": "bets_closed", "dealer": "D-99"})
    assert table.on_duty()["dealer"] == "D-99"  # a trace fed in with its own dealers


def test_after_a_restart_between_shoes_the_stint_started_in_the_shoe_before(
        tmp_path: Path) -> None:
    db = tmp_path / "T1.events.db"
    log = SqliteEventLog(db)
    table = table_on(log)
    first, second = (deal_shoe(random.Random(seed), shoe_id=f"S{n}")
                     for n, seed in ((1, 5), (2, 6)))
    table.sign_in("D-12")
    for event in first + second[:3]:  # the next shoe is loaded, no game of it yet
        table.observe(event)
    log.close()
    again = table_on(SqliteEventReader(db))
    assert again.machine.shoes[-1].shoe_id == "S2" and not again.machine.shoes[-1].games
    assert again.on_duty() == {"dealer": "D-12", "since": again.dealt_games()[0]["start"]}
