"""Snapshot files: a snapshot that does not match the log or the table, or is not whole, or is
hostile, is ignored with a warning and the whole log replayed; the newest usable one wins."""

from __future__ import annotations

import logging
import os
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.config import load_paytables
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.shoe_deal import deal_shoe
from dealer_assist.services.table_state import FORMAT, settings_key
from dealer_assist.store.snapshot import MAGIC, TableSnapshots
from dealer_assist.store.sqlite_log import SqliteEventLog

PAYTABLES = load_paytables()
EVENTS = deal_shoe(random.Random(3), mistakes=["unneeded_draw"], reveal=True)


def open_table(db: Path, table_id: str = "T1", house: HouseRules | None = None,
               **kw: Any) -> tuple[SqliteEventLog, LiveTable]:
    log = SqliteEventLog(db)
    table = LiveTable(log, table_id=table_id, house=house or HouseRules(), paytables=PAYTABLES,
                      snapshots=TableSnapshots(log, db), **kw)
    return log, table


def run_table(db: Path, events: list[dict[str, Any]], **kw: Any) -> LiveTable:
    """A service that logs `events` and stops (its last snapshot written at close)."""
    log, table = open_table(db, **kw)
    for event in events:
        table.observe(event)
    table.close()
    log.close()
    return table


def restart(db: Path, caplog: pytest.LogCaptureFixture, **kw: Any) -> LiveTable:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="dealer_assist"):
        log, table = open_table(db, **kw)
    table.close()  # the snapshot it takes after a replay, written before the test goes on
    log.close()
    return table


def snapshot_files(db: Path) -> list[Path]:
    return sorted(db.parent.glob(db.name + ".snapshot.*"))


def assert_full_replay(table: LiveTable, caplog: pytest.LogCaptureFixture, why: str) -> None:
    assert table.started == f"{table.seq} events replayed"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(why in w for w in warnings), warnings
    assert any("no usable snapshot" in r.getMessage() and "replaying the whole log"
               in r.getMessage() for r in caplog.records)


def test_the_service_restarts_from_its_snapshot(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    before = run_table(db, EVENTS[:300])
    (path,) = snapshot_files(db)
    assert path.name == f"T1.events.db.snapshot.{300:012d}"
    again = restart(db, caplog)
    assert again.started == "snapshot at seq 300, 0 events replayed"
    assert (again.public(), again.review_queue(), again.shoes()) == \
        (before.public(), before.review_queue(), before.shoes())
    assert "snapshot at seq 300, replaying 0 events" in caplog.text


def test_only_the_newest_snapshots_are_kept_and_no_temporary_file(tmp_path: Path) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:400], snapshot_every=50)
    names = [p.name.rsplit(".", 1)[-1] for p in snapshot_files(db)]
    assert names == [f"{350:012d}", f"{400:012d}"]
    assert not list(tmp_path.glob("*.tmp"))


def test_the_newest_usable_snapshot_wins(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:200], snapshot_every=100)
    older, newest = snapshot_files(db)
    newest.write_bytes(newest.read_bytes()[:-10])
    again = restart(db, caplog)
    assert again.started == "snapshot at seq 100, 100 events replayed"
    assert f"snapshot {newest.name} ignored: its contents are cut short or changed" \
        in caplog.text


def cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def garbage(path: Path) -> None:
    path.write_bytes(os.urandom(5000))


def old_version(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(MAGIC, b"dealer-assist table snapshot 0\n", 1))


@pytest.mark.parametrize("damage, why", [
    (cut_short, "its contents are cut short or changed"),
    (garbage, "not a table snapshot of this version"),
    (old_version, "not a table snapshot of this version"),
])
def test_a_damaged_snapshot_is_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                       damage: Any, why: str) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:150])
    (path,) = snapshot_files(db)
    damage(path)
    assert_full_replay(restart(db, caplog), caplog, why)


def test_another_tables_or_other_settings_snapshot_is_ignored(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:150], table_id="T2")
    assert_full_replay(restart(db, caplog), caplog, "it was taken with table 'T2'; the table has 'T1'")
    run_table(db, [], house=HouseRules(decks=6))  # closes with a snapshot for six decks
    assert_full_replay(restart(db, caplog), caplog, "it was taken with settings")


def test_a_snapshot_of_another_format_is_ignored(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    log, table = open_table(db)
    for event in EVENTS[:50]:
        table.observe(event)
    key = settings_key("T1", HouseRules(), PAYTABLES)
    TableSnapshots(log, db).save({**key, "format": 0}, 50, b"whatever")
    log.close()
    assert_full_replay(restart(db, caplog), caplog,
                       f"it was taken with format 0; the table has {FORMAT}")


def test_a_snapshot_past_the_end_of_a_log_put_back_from_a_copy_is_ignored(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:100])
    copy = db.read_bytes()  # a backup at seq 100
    run_table(db, EVENTS[100:200])
    snapshot = snapshot_files(db)[-1]
    for path in snapshot_files(db)[:-1]:
        path.unlink()
    db.write_bytes(copy)
    for extra in ("-wal", "-shm"):
        Path(str(db) + extra).unlink(missing_ok=True)
    assert snapshot.exists()
    assert_full_replay(restart(db, caplog), caplog, "stands at seq 200, past the log's last event (100)")
    # the snapshot the replay took replaces the one that can never match this log
    assert [p.name for p in snapshot_files(db)] == [f"T1.events.db.snapshot.{100:012d}"]


def test_a_snapshot_of_a_replaced_log_is_ignored(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:100])
    kept = snapshot_files(db)[0].read_bytes()
    for path in tmp_path.glob("T1.events.db*"):
        path.unlink()
    other = deal_shoe(random.Random(4))  # another log, as long, another chain
    run_table(db, other[:100])
    for path in snapshot_files(db):
        path.unlink()
    (tmp_path / f"T1.events.db.snapshot.{100:012d}").write_bytes(kept)
    table = restart(db, caplog)
    assert_full_replay(table, caplog, "the log's event 100 is not the one it was taken at")
    assert table.machine.shoe is not None and table.machine.shoe.burn[0] == other[1]["card"]


class Hostile:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("where", ["outside", "in a shoe"])
def test_a_hostile_pickle_runs_nothing_and_is_ignored(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, where: str) -> None:
    db, marker = tmp_path / "T1.events.db", tmp_path / "pwned"
    log, table = open_table(db)
    for event in EVENTS[:50]:
        table.observe(event)
    evil = pickle.dumps(Hostile(marker))
    if where == "in a shoe":
        evil = pickle.dumps({"seq": 50, "shoe_seq": 1, "phase": "dealing", "shoes": [evil],
                             "problems": [], "events_applied": 50, "alerts": [],
                             "decisions": []})
    key = settings_key("T1", HouseRules(), PAYTABLES)
    TableSnapshots(log, db).save(key, 50, evil)  # a valid header: whoever wrote it knew how
    log.close()
    table = restart(db, caplog)
    assert not marker.exists()
    assert_full_replay(table, caplog, "which is not part of a table's state")
    assert "system" in caplog.text
