"""The live service writes the system's `interrupted` when it finds out (services/
interruptions.py), over a real SQLite log reopened as a restart does; the game cut short goes
to the supervisor as INTERRUPTED and counts in no dealer's figures (charts.data)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dealer_assist.charts.data import by_dealer, rates_by, shifts
from dealer_assist.config import load_paytables
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.interruptions import after_start
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.tracebuild import BURN3, Trace

PAYTABLES = load_paytables()
NAT = ("9H", "TS", "KD", "2C")


def start(db: Path) -> tuple[SqliteEventLog, LiveTable]:
    """The service's start on its log: replay, then the start-up hook (as bootstrap does)."""
    log = SqliteEventLog(db)
    table = LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES)
    after_start(table)
    return log, table


def feed(table: LiveTable, trace: Trace) -> None:
    for event in trace.events:
        table.observe({k: v for k, v in event.items() if k != "ts"})


def logged(log: SqliteEventLog) -> list[dict[str, Any]]:
    return [event for _, event in log.read()]


def test_a_restart_mid_game_is_the_systems_and_not_the_dealers(tmp_path: Path) -> None:
    db = tmp_path / "T1.db"
    log, table = start(db)
    assert logged(log) == []  # a fresh log: no shoe was open, nothing written
    table.sign_in("D-12")
    feed(table, Trace().new_shoe("S1").burn(*BURN3).game(*NAT).ev("dealer", "reveal")
         .close().cards("2H", "3S"))
    log.close()  # the service stops (a crash leaves the log as it is: it appends and commits)

    log, table = start(db)
    last = logged(log)[-1]
    assert {k: v for k, v in last.items() if k != "ts"} == {
        "src": "system", "type": "interrupted", "reason": "restart"}
    assert table.on_duty()["dealer"] == "D-12"  # the last dealer is taken to be at the table
    feed(table, Trace().new_shoe("S2").burn(*BURN3).game(*NAT))

    [queued] = table.review_queue()
    assert (queued["shoe_id"], queued["game"]) == ("S1", 2)
    assert [f["code"] for f in queued["flags"]] == ["INTERRUPTED"]
    assert "restart" in queued["flags"][0]["detail"]
    rows = table.dealt_games()
    assert [(r["shoe"], r["game"], r["dealer"], r["flags"]) for r in rows] == [
        ("S1", 1, "D-12", []), ("S1", 2, "D-12", ["INTERRUPTED"]), ("S2", 1, "D-12", [])]
    # the dealer's figures: three games dealt, none flagged, nothing waiting against them
    [total] = by_dealer(rows)
    assert (total.dealer, total.games, total.flagged, total.flags) == ("D-12", 3, 0, 0)
    [shift] = shifts(rows)
    assert (shift.games, shift.flagged, shift.pending, shift.flags) == (3, 0, 0, {})
    assert rates_by(rows, "dealer") == [("D-12", 3, 0, 0.0)]
    # what is not a dealer's figure (here by shoe; the table's rate alike) counts every flag
    assert rates_by(rows, "shoe") == [("S1", 2, 1, 0.5), ("S2", 1, 0, 0.0)]
    log.close()


def test_the_same_flag_from_the_dealer_is_still_counted(tmp_path: Path) -> None:
    """The control: without the interruption, the short game is the dealer's MISSING_DRAW."""
    log, table = start(tmp_path / "T1.db")
    table.sign_in("D-12")
    feed(table, Trace().new_shoe("S1").burn(*BURN3).close().cards("2H", "3S").new_shoe("S2"))
    rows = table.dealt_games()
    assert [r["flags"] for r in rows] == [["MISSING_DRAW"]]
    [total] = by_dealer(rows)
    assert (total.games, total.flagged, total.flags) == (1, 1, 1)
    assert shifts(rows)[0].pending == 1
    log.close()


@pytest.mark.parametrize("left", ["no shoe yet", "shoe ended"])
def test_a_start_with_no_shoe_open_writes_nothing(tmp_path: Path, left: str) -> None:
    db = tmp_path / "T1.db"
    log, table = start(db)
    if left == "shoe ended":
        feed(table, Trace().new_shoe().burn(*BURN3).game(*NAT).end())
    before = logged(log)
    log.close()
    log, table = start(db)
    assert logged(log) == before and table.seq == len(before)
    log.close()


def test_a_start_between_games_is_written_and_flags_nothing(tmp_path: Path) -> None:
    db = tmp_path / "T1.db"
    log, table = start(db)
    feed(table, Trace().new_shoe("S1").burn(*BURN3).game(*NAT))
    log.close()
    log, table = start(db)
    assert logged(log)[-1]["type"] == "interrupted"
    feed(table, Trace().game(*NAT).end())  # the same shoe deals on
    assert table.review_queue() == []
    log.close()


def test_a_lost_link_whose_shoe_deals_on_raises_nothing(tmp_path: Path) -> None:
    log, table = start(tmp_path / "T1.db")
    feed(table, Trace().new_shoe("S1").burn(*BURN3).close().cards("2H", "3S"))
    table.link_changed("shoe", "down", "no frame and no heartbeat for 3 s")
    assert table.interrupted("shoe_link_lost") == table.seq
    table.link_changed("shoe", "up", "frames arriving")
    feed(table, Trace().cards("2D", "4C", "5S").end())
    assert table.review_queue() == [] and table.dealt_games()[0]["flags"] == []
    types = [e["type"] for e in logged(log)]
    assert types[types.index("interrupted") - 1:types.index("interrupted") + 2] == [
        "link_status", "interrupted", "link_status"]
    log.close()


def test_no_interruption_is_written_with_no_shoe_open_or_for_an_unknown_reason(
        tmp_path: Path) -> None:
    log, table = start(tmp_path / "T1.db")
    assert table.interrupted("shoe_link_lost") is None and logged(log) == []
    feed(table, Trace().new_shoe("S1"))
    with pytest.raises(ValueError, match="one of restart, shoe_link_lost, shoe_replaced"):
        table.interrupted("power cut")
    assert [e["type"] for e in logged(log)] == ["new_shoe"]
    log.close()
