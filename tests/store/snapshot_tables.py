"""A table with its SQLite log and sealed snapshot files, stopped and started again: the
helpers of the snapshot tests."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.snapshot import TableSnapshots
from dealer_assist.store.snapshot_seal import SnapshotSeal
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from tests.store.sealing import seal

PAYTABLES = load_paytables()
EVENTS = deal_shoe(random.Random(3), mistakes=["unneeded_draw", "missed_draw"], reveal=True)


@dataclass(frozen=True)
class Opened:
    log: SqliteEventLog
    table: LiveTable
    snapshots: TableSnapshots


def open_table(db: Path, table_id: str = "T1", house: HouseRules | None = None,
               sealed: SnapshotSeal | None = None, **kw: Any) -> Opened:
    """Table `table_id` on the log `db`, its snapshots sealed with `sealed` (default: the
    table's own seal)."""
    log = SqliteEventLog(db)
    snapshots = TableSnapshots(log, db, sealed or seal(table_id))
    table = LiveTable(log, table_id=table_id, house=house or HouseRules(), paytables=PAYTABLES,
                      snapshots=snapshots, **kw)
    return Opened(log, table, snapshots)


def run_table(db: Path, events: list[dict[str, Any]], **kw: Any) -> LiveTable:
    """A service that logs `events` and stops (its last snapshot written at close)."""
    opened = open_table(db, **kw)
    for event in events:
        opened.table.observe(event)
    opened.table.close()
    opened.log.close()
    return opened.table


def restart(db: Path, caplog: pytest.LogCaptureFixture, **kw: Any) -> Opened:
    """The service started again on `db` (its log lines in `caplog`), then stopped."""
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="dealer_assist"):
        opened = open_table(db, **kw)
    opened.table.close()  # the snapshot it takes after a replay, written before the test goes on
    opened.log.close()
    return opened


def full_replay(db: Path, table_id: str = "T1") -> LiveTable:
    """The table as the whole log gives it, no snapshot involved."""
    return LiveTable(SqliteEventReader(db), table_id=table_id, house=HouseRules(),
                     paytables=PAYTABLES)


def snapshot_files(db: Path) -> list[Path]:
    return sorted(db.parent.glob(db.name + ".snapshot.*"))


def assert_full_replay(table: LiveTable, caplog: pytest.LogCaptureFixture, why: str) -> None:
    assert table.started == f"{table.seq} events replayed"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(why in w for w in warnings), warnings
    assert any("no usable snapshot" in r.getMessage() and "replaying the whole log"
               in r.getMessage() for r in caplog.records)
