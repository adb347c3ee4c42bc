"""What only the SQLite log has: the file, its triggers, one writer, read-only readers."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealer_assist.logformat import GENESIS
from dealer_assist.store.chain import ChainBroken
from dealer_assist.store.sqlite_log import (
    TRIGGERS,
    LogBusy,
    NotAnEventLog,
    SqliteEventLog,
    SqliteEventReader,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "table.db"


def test_the_file_is_wal_with_the_triggers_and_the_writer_syncs_fully(db, make_event):
    with_log = SqliteEventLog(db)
    try:
        with_log.append(make_event(0))
        assert with_log._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        outside = sqlite3.connect(db)
        assert outside.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = {row[0] for row in outside.execute("SELECT name FROM sqlite_master "
                                                   "WHERE type = 'trigger'")}
        assert names == set(TRIGGERS)
        outside.close()
    finally:
        with_log.close()


@pytest.mark.parametrize(
    ("sql", "says"),
    [
        ("UPDATE events SET body = '{}' WHERE seq = 2", "UPDATE of events refused"),
        ("UPDATE events SET ts = '2027-01-01T00:00:00Z'", "UPDATE of events refused"),
        ("DELETE FROM events WHERE seq = 3", "DELETE of events refused"),
        ("DELETE FROM events", "DELETE of events refused"),
        ("INSERT OR REPLACE INTO events VALUES (2, 'a', 'b', 'c', '{}', 'x', 'y')",
         "next seq"),
        ("INSERT INTO events VALUES (2, 'a', 'b', 'c', '{}', 'x', 'y')", "next seq"),
        ("INSERT INTO events VALUES (4, 'a', 'b', 'c', '{}', 'not the last hash', 'y')",
         "chain to the last hash"),
        ("UPDATE checkpoints SET hash = 'x'", "UPDATE refused"),
        ("DELETE FROM checkpoints", "DELETE refused"),
        ("INSERT INTO checkpoints (seq, hash, at) VALUES (2, 'forged', 'now')", "hash of an event"),
    ],
)
def test_an_outside_connection_cannot_change_what_is_stored(db, make_event, sql, says):
    log = SqliteEventLog(db, checkpoint_every=1)
    log.append_many(make_event(n) for n in range(3))
    before = list(log.records()), log.checkpoints()
    outside = sqlite3.connect(db)
    with pytest.raises(sqlite3.DatabaseError, match=says):
        outside.execute(sql)
    outside.rollback()
    outside.close()
    assert (list(log.records()), log.checkpoints()) == before
    log.close()


def test_a_reopened_log_carries_on_the_same_chain(db, make_event):
    first = SqliteEventLog(db, checkpoint_every=2)
    first.append_many(make_event(n) for n in range(3))
    head, points = first.head(), first.checkpoints()
    first.close()
    again = SqliteEventLog(db, checkpoint_every=2)
    assert again.head() == head
    assert again.checkpoints() == points
    assert again.append(make_event(3)) == 4
    assert list(again.replay()) == [make_event(n) for n in range(4)]
    assert [p.seq for p in again.checkpoints()] == [3, 4]  # a batch checkpoints at its end
    again.close()


def test_there_is_one_writer(db, make_event):
    log = SqliteEventLog(db)
    with pytest.raises(LogBusy, match="another process is writing"):
        SqliteEventLog(db)
    log.append(make_event(0))
    log.close()
    second = SqliteEventLog(db)
    assert second.append(make_event(1)) == 2
    second.close()


def test_readers_use_read_only_connections_and_see_new_events(db, make_event):
    log = SqliteEventLog(db)
    log.append(make_event(0))
    reader = SqliteEventReader(db)
    conn = reader._connect()
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("INSERT INTO checkpoints (seq, hash, at) VALUES (0, ?, 'x')", (GENESIS,))
    conn.close()
    assert [seq for seq, _ in reader.read()] == [1]
    log.append(make_event(1))
    assert [seq for seq, _ in reader.read()] == [1, 2]
    assert reader.head() == log.head()
    assert reader.missing_triggers() == []
    log.close()


def test_a_reading_reader_sees_one_snapshot_while_the_writer_appends(db, make_event):
    log = SqliteEventLog(db)
    log.append_many(make_event(n) for n in range(3))
    events = SqliteEventReader(db).read()
    assert next(events)[0] == 1
    log.append_many(make_event(n) for n in range(3, 6))
    assert [seq for seq, _ in events] == [2, 3]
    log.close()


def test_files_that_are_not_event_logs_are_refused_and_left_alone(tmp_path, make_event):
    with pytest.raises(FileNotFoundError, match="no event log"):
        SqliteEventReader(tmp_path / "missing.db")
    with pytest.raises(FileNotFoundError, match="no folder"):
        SqliteEventLog(tmp_path / "nowhere" / "table.db")
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE guests (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(NotAnEventLog, match="guests"):
        SqliteEventLog(other)
    with pytest.raises(NotAnEventLog, match="user_version 0"):
        SqliteEventReader(other)
    text = tmp_path / "notes.db"
    text.write_text("not a database at all, just some words to fill a page. " * 40)
    with pytest.raises(NotAnEventLog, match="not an SQLite event log"):
        SqliteEventLog(text)
    assert text.read_text().startswith("not a database")
    conn = sqlite3.connect(other)
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("guests",)]
    conn.close()


def test_replay_stops_at_an_event_changed_behind_the_logs_back(db, make_event):
    log = SqliteEventLog(db)
    log.append_many(make_event(n) for n in range(4))
    log.close()
    outside = sqlite3.connect(db)
    outside.execute("DROP TRIGGER events_no_update")
    outside.execute("UPDATE events SET body = replace(body, '\"2C\"', '\"9C\"') WHERE seq = 2")
    outside.commit()
    outside.close()
    replayed = []
    with pytest.raises(ChainBroken, match="seq 2"):
        for event in SqliteEventReader(db).replay():
            replayed.append(event)
    assert replayed == [make_event(0)]


WRITER = """
import sys
from dealer_assist.store.sqlite_log import SqliteEventLog
log = SqliteEventLog(sys.argv[1], checkpoint_every=50)
print("open", flush=True)
n = 0
while True:
    log.append({"ts": "2026-11-29T10:00:00.000Z", "src": "shoe", "type": "card", "n": n})
    n += 1
"""


def test_a_writer_killed_mid_append_leaves_a_whole_chain(db):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "open"
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    log = SqliteEventLog(db)
    events = list(log.replay())
    assert events, "the writer appended nothing before it was killed"
    assert [event["n"] for event in events] == list(range(len(events)))
    assert log.append({"ts": "2026-11-29T10:00:01.000Z", "src": "dealer", "type": "end_shoe"}) \
        == len(events) + 1
    log.close()
