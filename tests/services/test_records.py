"""The regulator's days are read models: a closed day kept once built, the open day brought up
to date as the log grows. Each equals one full re-audit of the day's range, as an export of
that day holds it. Real parts: the table's SQLite log, written and read as in service."""

from __future__ import annotations

import json
import random
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.export.reaudit import NEEDLES, Reaudit, decision_reach
from dealer_assist.export.rows import DECISION_COLUMNS, FLAG_COLUMNS, GAME_COLUMNS, Row
from dealer_assist.export.source import LogSource, day_range, plan_range
from dealer_assist.services.records import DayView, ShoeView, TableRecords, UnknownTable
from dealer_assist.store.log_range import SqliteLogSource
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.export.conftest import day_events

PAYTABLES = load_paytables()
DAY, NEXT_DAY = date(2026, 11, 29), date(2026, 11, 30)


class Rows:
    """Collects a re-audit's rows into a DayView, shoe by shoe (the reference)."""

    def __init__(self, view: DayView) -> None:
        self.view = view

    def shoe(self, settings: dict[str, Any]) -> None:
        self.view.shoes.append(ShoeView(settings))

    def _of(self, row: Row) -> ShoeView:
        return next(s for s in self.view.shoes if str(s.settings["shoe_seq"]) == row[2])

    def game(self, row: Row) -> None:
        self._of(row).games.append(dict(zip(GAME_COLUMNS, row, strict=True)))

    def flag(self, row: Row) -> None:
        self._of(row).flags.append(dict(zip(FLAG_COLUMNS, row, strict=True)))

    def decision(self, row: Row) -> None:
        self.view.decisions.append(dict(zip(DECISION_COLUMNS, row, strict=True)))


def refold(source: LogSource, day: date) -> DayView:
    """The day re-audited from the log in one pass, as an export of it is written."""
    span = plan_range(source, *day_range(day))
    view = DayView("T1", day, span.first_seq, span.last_seq)
    first = span.first_seq
    reach = decision_reach((r.seq - first, json.loads(r.body))
                           for r in source.records(first, span.last_seq, NEEDLES))
    reaudit = Reaudit("T1", PAYTABLES, reach, Rows(view))
    for position, record in enumerate(source.records(first, span.last_seq)):
        reaudit.feed(position, record.seq, json.loads(record.body))
    reaudit.finish()
    return view


@pytest.fixture
def log(tmp_path: Path) -> Any:
    log = SqliteEventLog(tmp_path / "T1.events.db", checkpoint_interval=None)
    yield log
    log.close()


def next_day_shoe() -> list[dict[str, Any]]:
    return deal_shoe(random.Random(30), shoe_id="S5", start=datetime(2026, 11, 30, 6, tzinfo=UTC))


def test_the_open_day_equals_a_full_refold_after_each_append(log: Any) -> None:
    events, _ = day_events()  # four shoes, a late ruling on the first, one reaching no game
    log.append_many(events[:1])
    records = TableRecords({"T1": SqliteLogSource(log.path)}, PAYTABLES)
    source = records.source("T1")
    for at in range(1, len(events), 150):
        log.append_many(events[at:at + 150])
        assert records.day("T1", DAY) == refold(source, DAY), at
    view = records.day("T1", DAY)
    assert len(view.shoes) == 4 and len(view.decisions) == 5
    assert any(d["shoe"] == "S1" and d["by"] == "S-007" for d in view.decisions)
    restarted = TableRecords({"T1": SqliteLogSource(log.path)}, PAYTABLES)
    assert restarted.day("T1", DAY) == view


def test_a_day_that_closes_keeps_its_view_and_the_next_day_opens(log: Any) -> None:
    events, _ = day_events()
    log.append_many(events)
    records = TableRecords({"T1": SqliteLogSource(log.path)}, PAYTABLES)
    source = records.source("T1")
    open_day = records.day("T1", DAY)
    assert open_day.last_seq == len(events)
    assert records.day("T1", NEXT_DAY) == DayView("T1", NEXT_DAY)

    shoe = next_day_shoe()
    log.append_many(shoe[:40])  # a newer shoe: the day's range is final
    closed = records.day("T1", DAY)
    assert closed == refold(source, DAY) == open_day
    log.append_many(shoe[40:])
    assert records.day("T1", DAY) is closed
    assert records.day("T1", NEXT_DAY) == refold(source, NEXT_DAY)
    assert [s.settings["shoe"] for s in records.day("T1", NEXT_DAY).shoes] == ["S5"]


def test_an_unknown_table_says_which_tables_there_are(log: Any) -> None:
    log.append_many(next_day_shoe()[:5])
    records = TableRecords({"T1": SqliteLogSource(log.path)}, PAYTABLES)
    with pytest.raises(UnknownTable, match="no table 'T9' here; tables: T1"):
        records.day("T9", DAY)
