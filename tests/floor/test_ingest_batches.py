"""Ingest and the fold by the batch (migration 10, floor/read_models.py, floor/fold.py): the
read models come out the same whatever the batches (one event each, or thousands); the store
checks each statement's events against the head and refuses a statement with a broken link
anywhere in it; the folder's table machine is kept across batches and connections only while
it stands after the fold's cursor, and rebuilt when a batch it folded was not committed."""

from __future__ import annotations

import psycopg
import pytest

from dealer_assist.floor.fold import fold_batch, fold_pending, fold_table
from dealer_assist.floor.read_models import FloorModels
from dealer_assist.logformat import GENESIS, ChainHead
from dealer_assist.shipping.ingest import Ingest, central_head
from dealer_assist.shipping.shipper import Shipper

SNAPSHOT = {
    "table_status": "SELECT last_seq, last_ts, shoe_id, shoe_seq, game, open_flags, variant, "
                    "last_result, shoe_link, camera_link, info_flags FROM table_status "
                    "WHERE table_id = %s",
    "games": "SELECT shoe_id, game, started_seq, started_ts, completed_seq, winner, dealer "
             "FROM games WHERE table_id = %s ORDER BY shoe_id, game",
    "flags": "SELECT seq, shoe_id, game, code, severity, detail, decided_seq FROM flags "
             "WHERE table_id = %s ORDER BY seq, code",
    "shoes": "SELECT shoe_id, variant, started_seq, started_ts, ended_seq FROM shoes "
             "WHERE table_id = %s ORDER BY started_seq",
    "decisions": "SELECT seq, ts, shoe_id, game, action, by, reason FROM decisions "
                 "WHERE table_id = %s ORDER BY seq",
}


def models(floor, table: str) -> dict[str, list[tuple[object, ...]]]:
    floor.owner.commit()
    return {name: [tuple(r) for r in floor.owner.execute(query, (table,)).fetchall()]
            for name, query in SNAPSHOT.items()}


def two_shoes(sample: list[dict[str, object]]) -> list[dict[str, object]]:
    """Two shoes of the sample with dealers, link changes and decisions between them."""
    def shoe(shoe_id: str, dealer: str) -> list[dict[str, object]]:
        return [{**e, "shoe_id": shoe_id} if e["type"] == "new_shoe" else
                {**e, "dealer": dealer} if e["type"] == "bets_closed" else e for e in sample]

    ts = "2026-11-29T21:00:00.000Z"
    return [
        {"ts": ts, "src": "shoe", "type": "link_status", "status": "up"},
        *shoe("S-A", "D-1"),
        {"ts": ts, "src": "supervisor", "type": "decision", "game": 17, "action": "accept",
         "by": "S-1", "reason": "seen on camera", "shoe_id": "S-A"},
        {"ts": ts, "src": "camera", "type": "link_status", "status": "down"},
        *shoe("S-B", "D-2"),
        {"ts": ts, "src": "supervisor", "type": "decision", "game": 16, "action": "accept",
         "by": "S-1", "reason": "replayed", "shoe_id": "S-B"},
        {"ts": ts, "src": "shoe", "type": "link_status", "status": "down"},
    ]


@pytest.mark.parametrize("size", [1, 7, 64, 5000])
def test_the_read_models_are_the_same_whatever_the_batches(floor, sample, table_log, size):
    events = two_shoes(sample)
    records = list(table_log(events, name=f"b{size}").raw_records())
    reference, dsn_ref = floor.add_table()
    with psycopg.connect(dsn_ref) as conn:  # the whole log in one batch
        Ingest(conn, reference).ship(records)
    floor.fold(batch=len(records))
    table, dsn = floor.add_table()
    with psycopg.connect(dsn) as conn, \
            psycopg.connect(floor.folder_dsn(), autocommit=True) as central:
        ingest, folder = Ingest(conn, table), FloorModels(table)
        for start in range(0, len(records), size):
            ingest.ship(records[start:start + size])
            assert fold_table(central, folder, batch=size) == len(records[start:start + size])
    got, want = models(floor, table), models(floor, reference)
    assert got == want
    status = want["table_status"][0]
    # waiting: S-A's game 16, S-B's game 17; S-B's LAST_GAME for information
    assert status[2:6] == ("S-B", 487, 80, 2) and status[8:] == ("down", "down", 1)
    assert [s[0] for s in want["shoes"]] == ["S-A", "S-B"]
    assert {g[6] for g in want["games"]} == {"D-1", "D-2"}
    decided = [(f[1], f[2], f[6] is not None) for f in want["flags"]]
    assert decided == [("S-A", 16, False), ("S-A", 17, True), ("S-A", 80, False),
                       ("S-B", 16, True), ("S-B", 17, False), ("S-B", 80, False)]
    assert [d[3] for d in want["decisions"]] == [17, 16]


def insert(conn: psycopg.Connection, table: str, rows: list) -> None:
    """One INSERT statement of `rows` (RawRecords), as Ingest sends them."""
    conn.execute("INSERT INTO events (table_id, seq, ts, type, body, prev_hash, hash) "
                 "SELECT %s, * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], "
                 "%s::text[], %s::text[])",
                 (table, [r.seq for r in rows], ["t"] * len(rows), ["x"] * len(rows),
                  [r.body for r in rows], [r.prev_hash for r in rows], [r.hash for r in rows]))


@pytest.mark.parametrize("broken", ["gap", "edit", "order", "fork"])
def test_the_store_refuses_a_statement_with_a_broken_link_anywhere(floor, sample, table_log,
                                                                   broken):
    table, dsn = floor.add_table()
    records = list(table_log(sample[:40]).raw_records())
    with psycopg.connect(dsn) as conn:
        insert(conn, table, records[:10])
        conn.commit()
        rows = records[10:40]
        if broken == "gap":
            rows = rows[:12] + rows[13:]
        elif broken == "edit":
            rows[20] = rows[20].__class__(rows[20].seq, rows[20].body.replace("a", "b", 1),
                                          rows[20].prev_hash, rows[20].hash, rows[20].columns)
        elif broken == "order":
            rows[5], rows[6] = rows[6], rows[5]  # the same rows: the check sorts them by seq
        else:  # the statement starts after the head, not at it
            rows = rows[1:]
        if broken == "order":
            insert(conn, table, rows)
            conn.commit()
            assert central_head(conn, table).seq == 40
            return
        with pytest.raises(psycopg.errors.RaiseException, match="not the next link"):
            insert(conn, table, rows)
        conn.rollback()
        assert central_head(conn, table) == ChainHead(10, records[9].hash)
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (10,)


def test_one_statement_of_two_tables_moves_both_heads(floor, sample, table_log):
    a, _ = floor.add_table()
    b, _ = floor.add_table()
    records = list(table_log(sample[:20]).raw_records())
    owner = floor.owner
    owner.execute("INSERT INTO events (table_id, seq, ts, type, body, prev_hash, hash) "
                  "SELECT * FROM unnest(%s::text[], %s::bigint[], %s::text[], %s::text[], "
                  "%s::text[], %s::text[], %s::text[])",
                  ([a, b] * 20, [r.seq for r in records for _ in "ab"], ["t"] * 40,
                   ["x"] * 40, [r.body for r in records for _ in "ab"],
                   [r.prev_hash for r in records for _ in "ab"],
                   [r.hash for r in records for _ in "ab"]))
    owner.commit()
    assert central_head(owner, a) == central_head(owner, b) == ChainHead(20, records[-1].hash)
    assert central_head(owner, "nobody") == ChainHead(0, GENESIS)


def test_the_machine_is_rebuilt_when_its_batch_was_not_committed(floor, two_tables_logs):
    (table, dsn), _, records, reference = two_tables_logs
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records)
    models_ = FloorModels(table)
    with psycopg.connect(floor.folder_dsn(), autocommit=True) as central:
        assert fold_batch(central, models_, batch=200) == 200
        machine = models_._machine
        # the next batch is folded, then refused: a table's own role may not write it
        with psycopg.connect(dsn, autocommit=True) as table_role, \
                pytest.raises(psycopg.errors.InsufficientPrivilege):
            fold_batch(table_role, models_, batch=100)
        assert fold_batch(central, models_, batch=100) == 100  # folded once, not twice
        assert models_._machine is not machine  # rebuilt from the central store
        kept = models_._machine
        fold_table(central, models_, batch=100)
        assert models_._machine is kept  # it stood after the fold's cursor: kept
    assert models(floor, table) == models(floor, reference)


@pytest.fixture
def two_tables_logs(floor, sample, table_log):
    records = list(table_log(two_shoes(sample)).raw_records())
    reference, dsn_ref = floor.add_table()
    with psycopg.connect(dsn_ref) as conn:
        Ingest(conn, reference).ship(records)
    floor.fold()
    return floor.add_table(), floor.add_table(), records, reference


def test_the_folder_keeps_its_machine_across_an_outage(floor, cluster, sample, table_log):
    events = two_shoes(sample)
    log = table_log(events[:300])
    table, dsn = floor.add_table()
    shipper = Shipper(str(log.path), table, dsn, batch=50, catch_up=400)
    assert shipper.ship_once() == 300
    kept: dict[str, FloorModels] = {}
    with psycopg.connect(floor.folder_dsn(), autocommit=True) as central:
        assert fold_pending(central, kept, batch=50) == 300
    machine = kept[table]._machine
    cluster.stop()
    try:
        log.append_many(events[300:])
        with pytest.raises(psycopg.OperationalError):
            shipper.ship_once()
        shipper.stop()
    finally:
        cluster.start()
    floor.reconnect()
    assert shipper.ship_once() == len(events) - 300  # > 50 behind: batches of up to 400
    shipper.stop()
    with psycopg.connect(floor.folder_dsn(), autocommit=True) as central:
        assert fold_pending(central, kept) == len(events) - 300
    assert kept[table]._machine is machine  # it stood after the fold's cursor: kept
    reference, dsn_ref = floor.add_table()
    with psycopg.connect(dsn_ref) as conn:
        Ingest(conn, reference).ship(list(log.raw_records()))
    floor.fold()
    assert models(floor, table) == models(floor, reference)
