"""Snapshot files: a snapshot that does not match the log or the table, or is not whole, or is
hostile, is refused with a warning and the whole log replayed; the newest usable one wins.
(Forged and foreign snapshots, the seal's own attacks: test_snapshot_seal.py.)"""

from __future__ import annotations

import os
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.table_state import FORMAT, settings_key
from dealer_assist.store.snapshot import MAGIC, TableSnapshots
from tests.store.sealing import seal
from tests.store.snapshot_tables import (
    EVENTS,
    PAYTABLES,
    assert_full_replay,
    open_table,
    restart,
    run_table,
    snapshot_files,
)


def test_the_service_restarts_from_its_snapshot(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    before = run_table(db, EVENTS[:300])
    (path,) = snapshot_files(db)
    assert path.name == f"T1.events.db.snapshot.{300:012d}"
    again = restart(db, caplog).table
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
    again = restart(db, caplog).table
    assert again.started == "snapshot at seq 100, 100 events replayed"
    assert f"snapshot {newest.name} refused: its contents are cut short or grown" \
        in caplog.text


def cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def garbage(path: Path) -> None:
    path.write_bytes(os.urandom(5000))


def old_version(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(MAGIC, b"dealer-assist table snapshot 0\n", 1))


@pytest.mark.parametrize("damage, why", [
    (cut_short, "its contents are cut short or grown"),
    (garbage, "not a table snapshot of this version"),
    (old_version, "not a table snapshot of this version"),
])
def test_a_damaged_snapshot_is_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                       damage: Any, why: str) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:150])
    (path,) = snapshot_files(db)
    damage(path)
    assert_full_replay(restart(db, caplog).table, caplog, why)


def test_another_tables_or_other_settings_snapshot_is_ignored(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    run_table(db, EVENTS[:150], table_id="T2")
    assert_full_replay(restart(db, caplog).table, caplog, "it was taken with table 'T2'; the table has 'T1'")
    run_table(db, [], house=HouseRules(decks=6))  # closes with a snapshot for six decks
    assert_full_replay(restart(db, caplog).table, caplog, "it was taken with settings")


def test_a_snapshot_of_another_format_is_ignored(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "T1.events.db"
    opened = open_table(db)
    for event in EVENTS[:50]:
        opened.table.observe(event)
    key = settings_key("T1", HouseRules(), PAYTABLES)
    TableSnapshots(opened.log, db, seal()).save({**key, "format": 0}, 50, b"whatever")
    opened.log.close()
    assert_full_replay(restart(db, caplog).table, caplog,
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
    assert_full_replay(restart(db, caplog).table, caplog, "stands at seq 200, past the log's last event (100)")
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
    table = restart(db, caplog).table
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
    opened = open_table(db)
    for event in EVENTS[:50]:
        opened.table.observe(event)
    evil = pickle.dumps(Hostile(marker))
    if where == "in a shoe":
        evil = pickle.dumps({"seq": 50, "shoe_seq": 1, "phase": "dealing", "shoes": [evil],
                             "problems": [], "events_applied": 50, "alerts": [],
                             "decisions": []})
    key = settings_key("T1", HouseRules(), PAYTABLES)
    # sealed with the table's own key: were the key ever stolen, the unpickler still refuses
    TableSnapshots(opened.log, db, seal()).save(key, 50, evil)
    opened.log.close()
    table = restart(db, caplog).table
    assert not marker.exists()
    assert_full_replay(table, caplog, "which is not part of a table's state")
    assert "system" in caplog.text
