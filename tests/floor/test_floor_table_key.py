"""`dealer-assist floor table-key T --pubkey FILE`: the store's owner pins a table's public key
before the table first ships (the careful way); the table's shipper then ships with that key
only, and a table offering another one is stopped with an alarm."""

from __future__ import annotations

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.cli import main
from dealer_assist.floor_wire import public_pem, registered_key
from dealer_assist.shipping.checkpoints import CheckpointShipper
from dealer_assist.shipping.ingest import IntegrityAlarm
from dealer_assist.signing_keys import fingerprint
from tests.pg import ship
from tests.shipping.test_checkpoints import alarms, central, signing_log


def pem_file(tmp_path, name: str, key: Ed25519PrivateKey):
    path = tmp_path / f"{name}.pub.pem"
    path.write_text(public_pem(key.public_key()))
    return path


def table_key(capsys, floor, table: str, pubkey) -> tuple[int, str, str]:
    status = main(["floor", "table-key", table, "--pubkey", str(pubkey), "--dsn", floor.dsn()])
    said = capsys.readouterr()
    return status, said.out, said.err


def test_a_pinned_key_is_the_only_one_a_table_ships_with(floor, sample, tmp_path, capsys):
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    table, dsn = floor.add_table()
    status, out, _ = table_key(capsys, floor, table, pem_file(tmp_path, "t", key))
    assert status == 0
    assert out == (f"table {table}: key {fingerprint(key.public_key())} registered; its "
                   "shipper may ship signed checkpoints with this key only\n")
    floor.owner.commit()
    known = registered_key(floor.owner, table)
    assert known is not None and known["fingerprint"] == fingerprint(key.public_key())
    assert known["by"] == "postgres"  # the owner, not the table's role (trust on first use)
    floor.owner.commit()
    # Again with the same key: harmless.
    status, out, _ = table_key(capsys, floor, table, pem_file(tmp_path, "t", key))
    assert status == 0 and "was already registered (by postgres, " in out
    assert "nothing changed" in out
    # Another key: refused, the pinned one stays.
    status, out, err = table_key(capsys, floor, table, pem_file(tmp_path, "o", other))
    assert status == 2 and out == ""
    assert f"table {table} has the key {fingerprint(key.public_key())} registered" in err
    assert "Traceback" not in err
    floor.owner.commit()
    assert registered_key(floor.owner, table)["fingerprint"] == fingerprint(key.public_key())
    floor.owner.commit()
    # The table ships its events; a shipper offering another key is stopped with an alarm
    # and stores nothing; the pinned key ships.
    log = signing_log(tmp_path, table, key, sample)
    ship(dsn, table, log)
    with psycopg.connect(dsn) as conn, pytest.raises(IntegrityAlarm, match="another public key"):
        CheckpointShipper(log.path, table, other.public_key()).ship(conn)
    assert central(floor, table) == [] and "never replaced silently" in alarms(floor, table)[0]
    log.close()


def test_the_pinned_key_ships(floor, sample, tmp_path, capsys):
    key = Ed25519PrivateKey.generate()
    table, dsn = floor.add_table()
    assert table_key(capsys, floor, table, pem_file(tmp_path, "t", key))[0] == 0
    log = signing_log(tmp_path, table, key, sample)
    ship(dsn, table, log)
    with psycopg.connect(dsn) as conn:
        assert CheckpointShipper(log.path, table, key.public_key()).ship(conn) == 4
    assert [seq for _, seq, _, _ in central(floor, table)] == [100, 200, 300, 400]
    log.close()


def test_table_key_says_what_is_wrong(floor, tmp_path, capsys):
    key = Ed25519PrivateKey.generate()
    status, out, err = table_key(capsys, floor, "NOPE", pem_file(tmp_path, "k", key))
    assert status == 2 and "no table NOPE in the central store: add it first with " \
        "dealer-assist floor add-table NOPE" in err
    table, _ = floor.add_table()
    for text in ("", "not a key\n"):
        bad = tmp_path / "bad.pem"
        bad.write_text(text)
        status, out, err = table_key(capsys, floor, table, bad)
        assert status == 2 and out == "" and "Traceback" not in err and err.strip()
    status, out, err = table_key(capsys, floor, table, tmp_path / "missing.pem")
    assert status == 2 and "missing.pem" in err
    floor.owner.commit()
    assert registered_key(floor.owner, table) is None
