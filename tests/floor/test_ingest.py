"""Ingest keeps each table's chain: re-sends are harmless, anything that does not chain is an
integrity alarm (a row and a NOTIFY), never stored; the read models, folded by the floor
service, follow the events."""

from __future__ import annotations

import json
from dataclasses import replace

import psycopg
import pytest

from dealer_assist.floor_wire import ALARM_CHANNEL
from dealer_assist.logformat import ChainHead
from dealer_assist.shipping.ingest import Ingest, IntegrityAlarm, central_head
from dealer_assist.store.chain import RawRecord


def records(log) -> list[RawRecord]:
    return list(log.raw_records())


def stored(floor, table: str) -> list[tuple[int, str]]:
    return floor.owner.execute("SELECT seq, hash FROM events WHERE table_id = %s ORDER BY seq",
                               (table,)).fetchall()


def alarms(floor, table: str) -> list[tuple[int, str]]:
    floor.owner.commit()
    return floor.owner.execute("SELECT seq, found FROM integrity_alarms WHERE table_id = %s "
                               "ORDER BY id", (table,)).fetchall()


@pytest.fixture
def ingest(floor):
    table, dsn = floor.add_table()
    with psycopg.connect(dsn) as conn:
        yield Ingest(conn, table)


def test_a_batch_is_stored_and_a_resend_changes_nothing(floor, ingest, sample, table_log):
    recs = records(table_log(sample[:100]))
    first = ingest.ship(recs[:60])
    again = ingest.ship(recs[:60])
    rest = ingest.ship(recs[40:])  # overlaps what is stored
    assert (first.stored, again.stored, again.already) == (60, 0, 60)
    assert (rest.stored, rest.already) == (40, 20)
    assert stored(floor, ingest.table) == [(r.seq, r.hash) for r in recs]
    assert central_head(ingest.conn, ingest.table) == ChainHead(recs[-1].seq, recs[-1].hash)
    assert alarms(floor, ingest.table) == []


def test_a_gap_is_refused_with_an_alarm_and_a_notify(floor, ingest, sample, table_log):
    recs = records(table_log(sample[:20]))
    listener = psycopg.connect(floor.add_reader("floor_reader"), autocommit=True)
    listener.execute(f"LISTEN {ALARM_CHANNEL}")
    ingest.ship(recs[:5])
    with pytest.raises(IntegrityAlarm, match="seq 8 where 6 was due"):
        ingest.ship(recs[7:])
    assert [seq for seq, _ in stored(floor, ingest.table)] == [1, 2, 3, 4, 5]
    assert alarms(floor, ingest.table) == [(8, "seq 8 where 6 was due (events missing or "
                                                "out of order)")]
    note = next(listener.notifies(timeout=5))
    assert json.loads(note.payload)["table"] == ingest.table
    assert json.loads(note.payload)["seq"] == 8
    listener.close()


def test_an_edited_event_is_refused(floor, ingest, sample, table_log):
    recs = records(table_log(sample[:20]))
    ingest.ship(recs[:10])
    edited = replace(recs[10], body=recs[10].body.replace('"shoe"', '"dealer"'))
    assert edited.body != recs[10].body
    with pytest.raises(IntegrityAlarm, match="does not match its hash"):
        ingest.ship([edited, *recs[11:]])
    assert len(stored(floor, ingest.table)) == 10
    assert alarms(floor, ingest.table)[0][0] == 11


def test_a_different_event_at_a_stored_seq_is_an_alarm(floor, ingest, sample, table_log):
    recs = records(table_log(sample[:20]))
    other = records(table_log(sample[1:21], name="other"))
    ingest.ship(recs)
    with pytest.raises(IntegrityAlarm, match="differs from the one stored"):
        ingest.ship(other[:3])
    assert stored(floor, ingest.table) == [(r.seq, r.hash) for r in recs]
    assert [seq for seq, _ in alarms(floor, ingest.table)] == [1]


def test_a_log_cut_back_and_regrown_does_not_chain(floor, ingest, sample, table_log):
    recs = records(table_log(sample[:20]))
    regrown = records(table_log(sample[:15] + sample[30:40], name="regrown"))
    ingest.ship(recs)
    with pytest.raises(IntegrityAlarm, match="does not chain to the stored head"):
        ingest.ship(regrown[20:])
    assert len(stored(floor, ingest.table)) == 20


def test_the_central_store_itself_refuses_a_broken_link(floor, ingest, sample, table_log):
    """Under the shipper's checks: a table role writing straight into `events` cannot store
    an event that is not the next link (the anchor's trigger)."""
    recs = records(table_log(sample[:3]))
    r = recs[2]
    with pytest.raises(psycopg.errors.RaiseException, match="not the next link"):
        ingest.conn.execute(
            "INSERT INTO events (table_id, seq, ts, type, body, prev_hash, hash) "
            "VALUES (%s, %s, 'x', 'x', %s, %s, %s)",
            (ingest.table, r.seq, r.body, r.prev_hash, r.hash))
    ingest.conn.rollback()


def test_read_models_follow_the_events(floor, ingest, sample, table_log):
    flagged_game = 17
    decision = {"ts": "2026-11-29T21:00:00.000Z", "src": "supervisor", "type": "decision",
                "game": flagged_game, "action": "accept", "by": "S-1", "reason": "seen on camera"}
    recs = records(table_log([*sample, decision]))
    for start in range(0, len(recs), 100):  # in batches: the fold goes on across them
        ingest.ship(recs[start:start + 100])
        floor.fold()
    q = floor.owner.execute
    status = q("SELECT last_seq, last_ts, shoe_id, game, open_flags, info_flags FROM "
               "table_status WHERE table_id = %s", (ingest.table,)).fetchone()
    # game 16 waits for a decision; game 80's LAST_GAME is for information
    assert status == (len(recs), decision["ts"], "SAMPLE-1", 80, 1, 1)
    assert q("SELECT count(*) FROM games WHERE table_id = %s", (ingest.table,)).fetchone() == (80,)
    flags = q("SELECT game, code, decided_seq FROM flags WHERE table_id = %s ORDER BY game",
              (ingest.table,)).fetchall()
    assert flags == [(16, "UNNEEDED_DRAW", None), (17, "MISSING_DRAW", len(recs)),
                     (80, "LAST_GAME", None)]
