"""The floor service folds the read models from the stored events (floor/fold.py): its thread
folds what ingest stored as soon as it is told, catches up at start what was stored while it
was away, two folders at once fold each event once, and the pit board hears of a batch only
once it is folded."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from dealer_assist.floor.fold import Folder, fold_pending
from dealer_assist.floor_wire import FOLD_CHANNEL
from dealer_assist.shipping.ingest import Ingest
from dealer_assist.store.chain import RawRecord, link_hash
from tests.floor.test_ingest_batches import models, two_shoes


def wait_for(check, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def last_seq(floor, table: str) -> int:
    floor.owner.commit()
    row = floor.owner.execute("SELECT last_seq FROM table_status WHERE table_id = %s",
                              (table,)).fetchone()
    return row[0] if row else 0


def test_ingest_stores_events_only_and_the_folder_folds_them_when_told(floor, sample,
                                                                       table_log):
    table, dsn = floor.add_table()
    records = list(table_log(two_shoes(sample)).raw_records())
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records[:300])
    assert last_seq(floor, table) == 0  # stored, not folded: the table wrote no read model
    # a sweep far away: what it folds after the start, it folds because it was told
    folder = Folder(floor.folder_dsn(), sweep=600.0).start()
    try:
        assert folder.ready.wait(20)
        assert last_seq(floor, table) == 300  # caught up at start
        with psycopg.connect(dsn) as conn:
            Ingest(conn, table).ship(records[300:])
        wait_for(lambda: last_seq(floor, table) == len(records))
    finally:
        folder.stop()
    assert folder.folded == len(records)
    reference, dsn_ref = floor.add_table()
    with psycopg.connect(dsn_ref) as conn:
        Ingest(conn, reference).ship(records)
    floor.fold(batch=len(records))
    assert models(floor, table) == models(floor, reference)


def test_a_restarted_folder_folds_what_was_stored_while_it_was_away(floor, sample, table_log):
    table, dsn = floor.add_table()
    records = list(table_log(two_shoes(sample)).raw_records())
    with psycopg.connect(dsn) as conn:
        ingest = Ingest(conn, table)
        ingest.ship(records[:200])
        first = Folder(floor.folder_dsn(), sweep=600.0).start()
        assert first.ready.wait(20)
        first.stop()
        ingest.ship(records[200:])  # no folder running
    assert last_seq(floor, table) == 200
    second = Folder(floor.folder_dsn(), sweep=600.0).start()
    try:
        assert second.ready.wait(20)
    finally:
        second.stop()
    assert last_seq(floor, table) == len(records)
    assert (first.folded, second.folded) == (200, len(records) - 200)


def test_two_folders_at_once_fold_each_event_once(floor, sample, table_log):
    """Two folders (two floor services) on the same store, small batches, several tables:
    together they fold exactly the events stored, and the read models come out as one
    folder's."""
    records = list(table_log(two_shoes(sample)).raw_records())
    tables = [floor.add_table() for _ in range(3)]
    for table, dsn in tables:
        with psycopg.connect(dsn) as conn:
            Ingest(conn, table).ship(records)
    counts: list[int] = []
    start, dsn = threading.Barrier(2), floor.folder_dsn()

    def fold() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            start.wait()
            counts.append(fold_pending(conn, batch=7))

    threads = [threading.Thread(target=fold) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert sum(counts) == len(tables) * len(records) and len(counts) == 2
    reference, dsn_ref = floor.add_table()
    with psycopg.connect(dsn_ref) as conn:
        Ingest(conn, reference).ship(records)
    assert floor.fold() == len(records)
    for table, _ in tables:
        assert models(floor, table) == models(floor, reference)


def test_the_board_hears_of_a_batch_once_it_is_folded(floor, sample, table_log):
    table, dsn = floor.add_table()
    records = list(table_log(sample[:50]).raw_records())
    with psycopg.connect(floor.dsn(), autocommit=True) as board:
        board.execute("LISTEN floor_events")
        board.execute(f"LISTEN {FOLD_CHANNEL}")
        with psycopg.connect(dsn) as conn:
            Ingest(conn, table).ship(records)
        heard = [(n.channel, n.payload) for n in board.notifies(timeout=1.0)]
        assert heard == [(FOLD_CHANNEL, table)]  # the folder is woken; the board is not
        assert floor.fold() == 50
        [note] = list(board.notifies(timeout=5.0, stop_after=1))
        assert (note.channel, note.payload) == ("floor_events", table)
        # by the time the board hears, what it reads is there
        assert last_seq(floor, table) == 50


def test_a_folder_without_a_store_is_ready_and_keeps_trying(tmp_path):
    folder = Folder(f"host={tmp_path} port=1 dbname=none user=none", backoff=(0.05, 0.1))
    folder.start()
    try:
        assert folder.ready.wait(20)
        assert folder.folded == 0
    finally:
        folder.stop()


@pytest.mark.parametrize("batch", [1, 50])
def test_a_batch_that_is_not_the_next_link_is_never_folded(floor, sample, table_log, batch):
    """Under the store's chain trigger: were an event stored that does not chain on from the
    fold's cursor, the folder would fold nothing of that table (and say so in its log)."""
    table, dsn = floor.add_table()
    records = list(table_log(sample[:60]).raw_records())
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records[:30])
    assert floor.fold(batch=batch) == 30
    # the store's owner moves the chain's trigger aside and stores a forged link
    owner = floor.owner
    owner.execute("ALTER TABLE events DISABLE TRIGGER events_next_links")
    forged = records[30]
    owner.execute("INSERT INTO events (table_id, seq, ts, type, body, prev_hash, hash) "
                  "VALUES (%s, 31, 't', 'x', %s, %s, %s)",
                  (table, forged.body.replace("a", "b", 1), forged.prev_hash, forged.hash))
    owner.execute("UPDATE table_heads SET seq = 31 WHERE table_id = %s", (table,))
    owner.execute("ALTER TABLE events ENABLE TRIGGER events_next_links")
    owner.commit()
    assert floor.fold(batch=batch) == 0
    assert last_seq(floor, table) == 30


def test_events_postgresql_cannot_hold_as_they_are_do_not_stop_the_fold(floor, sample,
                                                                          table_log):
    """A decision's reason with a NUL, a game number past any column, and (sent by a table's
    role itself: the table's log refuses it) a lone surrogate: the table's events still fold
    (the NUL read as U+FFFD; the rest as nothing), and the events after them too."""
    table, dsn = floor.add_table()
    ts = "2026-11-29T21:00:00.000Z"
    odd = [{"ts": ts, "src": "supervisor", "type": "decision", "game": 17, "action": "accept",
            "by": "S-1", "reason": "seen\x00on camera"},
           {"ts": ts, "src": "supervisor", "type": "decision", "game": 2**40,
            "action": "accept", "by": "S-1", "reason": "r"}]
    records = list(table_log([*sample, *odd]).raw_records())
    body = ('{"by":"S-\\ud800","game":16,"reason":"r","src":"supervisor","ts":"' + ts +
            '","type":"decision"}')
    last = records[-1]
    forged = RawRecord(last.seq + 1, body, last.hash, link_hash(last.hash, body), None)
    after = '{"src":"shoe","status":"down","ts":"' + ts + '","type":"link_status"}'
    records += [forged, RawRecord(forged.seq + 1, after, forged.hash,
                                  link_hash(forged.hash, after), None)]
    with psycopg.connect(dsn) as conn:
        Ingest(conn, table).ship(records)
    assert floor.fold() == len(records)
    assert last_seq(floor, table) == len(records)
    rows = floor.owner.execute("SELECT game, reason FROM decisions WHERE table_id = %s",
                               (table,)).fetchall()
    assert rows == [(17, "seen\ufffdon camera")]
    link = floor.owner.execute("SELECT shoe_link FROM table_status WHERE table_id = %s",
                               (table,)).fetchone()
    assert link == ("down",)


def test_a_void_shoe_decision_settles_the_shoes_own_flags_and_every_game_from_it(
        floor, sample, table_log):
    """A shoe dealt before its burn was complete (BURN_SHORT, severity shoe_void, on the shoe
    rather than a game) counts as a flag a person can act on; voiding the shoe from game 1
    settles it and every game's flag from there, as at the table: nothing is left open, in one
    batch or across two."""
    short = [e for i, e in enumerate(sample) if i != 2]  # one burn card fewer
    decision = {"ts": "2026-11-29T21:00:00.000Z", "src": "supervisor", "type": "decision",
                "game": 1, "action": "void_shoe", "by": "S-1", "reason": "burn short",
                "shoe_id": "SAMPLE-1"}
    records = list(table_log([*short, decision]).raw_records())
    (apart, dsn_apart), (whole, dsn_whole) = floor.add_table(), floor.add_table()
    with psycopg.connect(dsn_apart) as conn:
        Ingest(conn, apart).ship(records[:-1])
    floor.fold()
    q = floor.owner.execute
    open_before = q("SELECT open_flags FROM table_status WHERE table_id = %s",
                    (apart,)).fetchone()[0]
    shoe_flags = q("SELECT code, severity FROM flags WHERE table_id = %s AND game IS NULL",
                   (apart,)).fetchall()
    assert ("BURN_SHORT", "shoe_void") in shoe_flags and open_before > 1
    with psycopg.connect(dsn_apart) as conn:
        Ingest(conn, apart).ship(records[-1:])
    with psycopg.connect(dsn_whole) as conn:
        Ingest(conn, whole).ship(records)
    floor.fold()
    for table in (apart, whole):
        assert q("SELECT open_flags FROM table_status WHERE table_id = %s",
                 (table,)).fetchone() == (0,)
        assert q("SELECT count(*) FROM flags WHERE table_id = %s AND decided_seq IS NULL AND "
                 "severity <> 'info'", (table,)).fetchone() == (0,)
    assert models(floor, apart) == models(floor, whole)
