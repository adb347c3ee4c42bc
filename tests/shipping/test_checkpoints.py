"""The tables' signed checkpoints shipped to a real PostgreSQL with the table's public key:
stored once, only past stored events, verified at ingest; a forged, re-keyed, removed or
rewritten one is refused with an integrity alarm; a table's role touches only its own."""

from __future__ import annotations

from dataclasses import replace

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.floor_wire import KeyAlreadyRegistered, register_key
from dealer_assist.logformat import GENESIS, ChainHead, Checkpoint, signed_bytes
from dealer_assist.shipping.checkpoints import (
    CheckpointShipper,
    store_signed,
    table_public_key_from_environment,
)
from dealer_assist.shipping.ingest import IntegrityAlarm
from dealer_assist.signing_keys import fingerprint, generate_keys
from dealer_assist.store.signed_checkpoints import SignedCheckpoint
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.pg import ship


@pytest.fixture
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def signing_log(tmp_path, table, key, events, every=100):
    """A table's log that signs a checkpoint every `every` events, as the service's does."""
    log = SqliteEventLog(tmp_path / f"{table}.db", signer=key.sign, table_id=table,
                         checkpoint_every=every, checkpoint_interval=None)
    for at in range(0, len(events), every):  # one transaction per `every` events
        log.append_many(events[at:at + every])
    return log


def central(floor, table):
    floor.owner.commit()
    rows = floor.owner.execute("SELECT n, seq, hash, prev_seq FROM signed_checkpoints "
                               "WHERE table_id = %s ORDER BY n", (table,)).fetchall()
    floor.owner.commit()
    return rows


def alarms(floor, table):
    floor.owner.commit()
    found = [r[0] for r in floor.owner.execute(
        "SELECT found FROM integrity_alarms WHERE table_id = %s ORDER BY id", (table,))]
    floor.owner.commit()
    return found


def test_signed_checkpoints_ship_once_with_the_tables_key(floor, sample, tmp_path, key):
    table, dsn = floor.add_table()
    log = signing_log(tmp_path, table, key, sample)
    signed = log.signed_checkpoints()
    assert [s.point.seq for s in signed] == [100, 200, 300, 400]
    ship(dsn, table, log)
    shipper = CheckpointShipper(log.path, table, key.public_key())
    with psycopg.connect(dsn) as conn:
        assert shipper.ship(conn) == 4
        assert shipper.ship(conn) == 0
    with psycopg.connect(dsn) as conn:  # a new connection reads where the store stands
        assert CheckpointShipper(log.path, table, key.public_key()).ship(conn) == 0
    rows = central(floor, table)
    assert [(n, seq) for n, seq, _, _ in rows] == [(1, 100), (2, 200), (3, 300), (4, 400)]
    assert [h for _, _, h, _ in rows] == [s.point.hash for s in signed]
    assert [p for *_, p in rows] == [0, 100, 200, 300]
    row = floor.owner.execute("SELECT fingerprint, registered_by FROM table_keys "
                              "WHERE table_id = %s", (table,)).fetchone()
    floor.owner.commit()
    assert row[0] == fingerprint(key.public_key())
    assert row[1].startswith("table_")  # registered on first use, by the table's own role
    assert alarms(floor, table) == []


def test_only_checkpoints_whose_event_is_stored_centrally_ship(floor, sample, tmp_path, key):
    table, dsn = floor.add_table()
    log = signing_log(tmp_path, table, key, sample)
    ship(dsn, table, log, upto=250)
    shipper = CheckpointShipper(log.path, table, key.public_key())
    with psycopg.connect(dsn) as conn:
        assert shipper.ship(conn) == 2
        ship(dsn, table, log)
        assert shipper.ship(conn) == 2
        log.append({"ts": "2026-12-05T10:00:00.000Z", "src": "test", "type": "note"})
        log.checkpoint()
        assert shipper.ship(conn) == 0  # its event is not stored yet
        ship(dsn, table, log)
        assert shipper.ship(conn) == 1
    assert [seq for _, seq, _, _ in central(floor, table)] == [100, 200, 300, 400, 484]


def test_a_key_registered_ahead_is_kept_and_another_key_is_an_alarm(floor, sample, tmp_path,
                                                                     key):
    table, dsn = floor.add_table()
    pinned = Ed25519PrivateKey.generate()
    assert register_key(floor.owner, table, pinned.public_key()) == \
        fingerprint(pinned.public_key())
    assert register_key(floor.owner, table, pinned.public_key())  # the same again: harmless
    with pytest.raises(KeyAlreadyRegistered, match="is not registered in its place"):
        register_key(floor.owner, table, key.public_key())
    log = signing_log(tmp_path, table, key, sample)
    ship(dsn, table, log)
    with psycopg.connect(dsn) as conn, pytest.raises(IntegrityAlarm, match="another public key"):
        CheckpointShipper(log.path, table, key.public_key()).ship(conn)
    assert central(floor, table) == []
    assert "never replaced silently" in alarms(floor, table)[0]


def test_checkpoints_signed_with_another_key_are_refused(floor, sample, tmp_path, key):
    """The table's log signs with a new key while its shipper offers the registered one."""
    table, dsn = floor.add_table()
    log = signing_log(tmp_path, table, Ed25519PrivateKey.generate(), sample)
    ship(dsn, table, log)
    with psycopg.connect(dsn) as conn, \
            pytest.raises(IntegrityAlarm, match="does not verify with the table's registered"):
        CheckpointShipper(log.path, table, key.public_key()).ship(conn)
    assert central(floor, table) == []
    assert "seq 100" in alarms(floor, table)[0]


def signed(key, table, seq, digest, prev, checkpoint_id=1, at="2026-12-05T10:00:00.000Z"):
    point = Checkpoint(seq, digest, at)
    return SignedCheckpoint(checkpoint_id, table, point, prev,
                            key.sign(signed_bytes(table, point, prev)))


def test_a_forged_rewritten_or_unlinked_checkpoint_is_refused(floor, sample, tmp_path, key):
    table, dsn = floor.add_table()
    log = signing_log(tmp_path, table, key, sample, every=10_000)
    ship(dsn, table, log)
    register_key(floor.owner, table, key.public_key())
    hash_at = dict((r.seq, r.hash) for r in log.raw_records())
    start = ChainHead(0, GENESIS)
    good = signed(key, table, 50, hash_at[50], start)
    cases = {
        "forged": (replace(good, point=Checkpoint(50, hash_at[51], good.point.at)),
                   "does not verify with the table's registered key"),
        "rewritten": (signed(key, table, 50, "ab" * 32, start), "the log was rewritten"),
        "unlinked": (signed(key, table, 60, hash_at[60], ChainHead(55, hash_at[55])),
                     "signed checkpoints removed"),
        "another table": (signed(key, "OTHER", 50, hash_at[50], start), "another table's log"),
    }
    with psycopg.connect(dsn) as conn:
        for name, (entry, why) in cases.items():
            with pytest.raises(IntegrityAlarm, match=why):
                store_signed(conn, table, key.public_key(), [good, entry] if name == "unlinked"
                             else [entry], 0, start)
            assert central(floor, table) == [], name
        assert store_signed(conn, table, key.public_key(), [good], 0, start)[0] == 1
    assert len(alarms(floor, table)) == len(cases)


def test_a_tables_role_writes_only_its_own_and_never_changes_its_key(floor, sample, tmp_path,
                                                                     key):
    table, dsn = floor.add_table()
    other, other_dsn = floor.add_table()
    log = signing_log(tmp_path, table, key, sample)
    ship(dsn, table, log)
    with psycopg.connect(dsn) as conn:
        CheckpointShipper(log.path, table, key.public_key()).ship(conn)
    hash_at = dict((r.seq, r.hash) for r in log.raw_records())
    with psycopg.connect(dsn) as conn:
        for sql in ("UPDATE table_keys SET fingerprint = fingerprint",
                    "DELETE FROM table_keys",
                    "UPDATE signed_checkpoints SET at = at",
                    "DELETE FROM signed_checkpoints"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql)
            conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # row-level security
            register_key(conn, other, key.public_key())
        conn.rollback()
        # By hand, past the shipper's checks: the trigger refuses what does not link or chain.
        insert = ("INSERT INTO signed_checkpoints (table_id, n, seq, hash, at, prev_seq, "
                  "prev_hash, sig) VALUES (%s, %s, %s, %s, 'x', %s, %s, %s)")
        for values in ((table, 5, 450, "ab" * 32, 400, hash_at[400], "00" * 64),
                       (table, 5, 450, hash_at[450], 300, hash_at[300], "00" * 64)):
            with pytest.raises(psycopg.errors.RaiseException):
                conn.execute(insert, values)
            conn.rollback()
    with psycopg.connect(other_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM signed_checkpoints").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM table_keys").fetchone()[0] == 0
    with psycopg.connect(floor.add_reader("floor_regulator")) as conn:
        assert conn.execute("SELECT count(*) FROM signed_checkpoints").fetchone()[0] == 4
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO table_keys (table_id, public_key, fingerprint) "
                         "VALUES ('x', 'y', 'z')")


def test_the_public_key_comes_from_the_tables_signing_key(tmp_path_factory, monkeypatch):
    assert table_public_key_from_environment({}) is None
    pair = generate_keys(tmp_path_factory.mktemp("keys") / "table")
    got = table_public_key_from_environment({"DEALER_ASSIST_SIGNING_KEY": str(pair.private)})
    assert got is not None and fingerprint(got) == pair.fingerprint


def test_a_log_with_fewer_or_other_signed_checkpoints_than_stored_is_an_alarm(
        floor, sample, tmp_path, key):
    """The table's log swapped for an older copy, or for another one signed with the same key."""
    table, dsn = floor.add_table()
    log = signing_log(tmp_path, table, key, sample)
    ship(dsn, table, log)
    with psycopg.connect(dsn) as conn:
        assert CheckpointShipper(log.path, table, key.public_key()).ship(conn) == 4
    (tmp_path / "old").mkdir()
    (tmp_path / "other").mkdir()
    older = signing_log(tmp_path / "old", table, key, sample[:250])
    other = signing_log(tmp_path / "other", table, key, sample, every=90)
    for copy, why in ((older, "fewer signed checkpoints than the 4 stored"),
                      (other, "is not the one stored centrally at seq 400")):
        with psycopg.connect(dsn) as conn, pytest.raises(IntegrityAlarm, match=why):
            CheckpointShipper(copy.path, table, key.public_key()).ship(conn)
    assert len(central(floor, table)) == 4 and len(alarms(floor, table)) == 2
