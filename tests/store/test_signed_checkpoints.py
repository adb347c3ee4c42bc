"""Checkpoints signed with the table's key: a log cut back, stripped of signed checkpoints or
rewritten with its hashes recomputed is caught by `verify-log --pubkey`, naming what it found.

Each attack is made as an outsider would, with Python's sqlite3 after dropping the triggers
(tests/store/signing.py); an old log without signatures still opens and verifies.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.cli import main
from dealer_assist.store.sqlite_log import TRIGGERS, SqliteEventLog, SqliteEventReader
from tests.logtamper import outside
from tests.store.conftest import trace_event
from tests.store.signing import (
    EVERY,
    SignedLog,
    cut_back,
    remove_signed,
    rewrite,
    signed_log,
    write_public,
)


@pytest.fixture
def signed(tmp_path: Path) -> SignedLog:
    return signed_log(tmp_path)


def verify(log: SignedLog, capsys, *more: str) -> tuple[int, str]:
    status = main(["verify-log", str(log.path), "--pubkey", str(log.pubkey),
                   "--unsigned-tail", str(EVERY), *more])
    return status, capsys.readouterr().out.strip()


def test_an_honest_signed_log_verifies(signed, capsys):
    status, out = verify(signed, capsys)
    assert status == 0, out
    assert out.startswith("OK: 45 events") and out.endswith("; signed checkpoints verify")
    assert [s.point.seq for s in SqliteEventReader(signed.path).signed_checkpoints()
            if s.point] == [10, 20, 30, 40]


def test_a_reopened_log_chains_its_next_signature_to_the_last(signed, capsys):
    log = SqliteEventLog(signed.path, checkpoint_every=EVERY, checkpoint_interval=None,
                         signer=signed.key.sign, table_id="T1")
    log.append_many(trace_event(n) for n in range(45, 48))
    log.checkpoint()
    log.close()
    assert verify(signed, capsys)[0] == 0
    last = SqliteEventReader(signed.path).signed_checkpoints()[-1]
    assert (last.prev.seq, last.point and last.point.seq) == (40, 48)


def test_cut_back_past_a_signed_checkpoint_is_named(signed, capsys):
    cut_back(signed.path, 25)
    assert main(["verify-log", str(signed.path)]) == 0  # the chain alone cannot tell
    capsys.readouterr()
    status, out = verify(signed, capsys)
    assert status == 1
    assert out.splitlines()[-1] == ("FAIL: signed checkpoints: cut back past signed checkpoint "
                                    "3: the checkpoint it signed (id 3, after seq 20) was deleted")


def test_events_deleted_under_a_kept_signed_checkpoint_are_named(signed, capsys):
    outside(signed.path, "DELETE FROM events WHERE seq > 25")
    status, out = verify(signed, capsys)
    assert status == 1
    assert out.splitlines()[0].startswith("FAIL at seq 26: deleted")
    assert "FAIL: signed checkpoints: cut back past signed checkpoint 3: the log ends at " \
           "seq 25" in out


def test_a_signed_checkpoint_removed_from_the_middle_is_named(signed, capsys):
    remove_signed(signed.path, 20)
    status, out = verify(signed, capsys)
    assert status == 1
    assert "signed checkpoints removed between seq 10 and seq 30" in out


def test_the_last_signed_checkpoints_removed_are_named(signed, capsys):
    remove_signed(signed.path, 30, 40)
    assert main(["verify-log", str(signed.path)]) == 0
    capsys.readouterr()
    status, out = verify(signed, capsys)
    assert status == 1
    assert "signed checkpoints removed (after seq 20): the log ends at seq 45, 25 events" in out


def test_every_signed_checkpoint_removed_is_named(signed, capsys):
    remove_signed(signed.path, 10, 20, 30, 40)
    status, out = verify(signed, capsys)
    assert status == 1 and "signed checkpoints removed (all of them)" in out


def test_a_rewrite_with_remade_checkpoints_fails_its_signatures(signed, capsys):
    rewrite(signed.path, 5)
    assert main(["verify-log", str(signed.path)]) == 0  # hashes and checkpoints agree again
    capsys.readouterr()
    status, out = verify(signed, capsys)
    assert status == 1
    assert "rewritten: the signature of the checkpoint at seq 10" in out


def test_a_rewrite_under_signed_checkpoints_is_named_at_the_first(signed, capsys):
    rewrite(signed.path, 15, remake_checkpoints=False)
    status, out = verify(signed, capsys)
    assert status == 1
    assert "FAIL: signed checkpoints: rewritten at seq 20: the log's hash there" in out


def test_checkpoints_signed_with_another_key_do_not_verify(signed, tmp_path, capsys):
    other = write_public(Ed25519PrivateKey.generate(), tmp_path / "other.pub.pem")
    status, out = verify(SignedLog(signed.path, other, signed.key), capsys)
    assert status == 1 and "rewritten: the signature of the checkpoint at seq 10" in out


def test_another_tables_signatures_are_named(signed, capsys):
    status, out = verify(signed, capsys, "--table", "T2")
    assert status == 1 and "signed as table 'T1', not 'T2'" in out


def test_a_missing_or_bad_public_key_is_a_clear_error(signed, tmp_path, capsys):
    assert main(["verify-log", str(signed.path), "--pubkey", str(tmp_path / "none.pem")]) == 2
    assert "cannot read the public key" in capsys.readouterr().err
    junk = tmp_path / "junk.pem"
    junk.write_text("not a key")
    assert main(["verify-log", str(signed.path), "--pubkey", str(junk)]) == 2
    assert "is not a PEM public key" in capsys.readouterr().err


def test_a_signed_log_names_the_signature_triggers(signed):
    conn = sqlite3.connect(signed.path)
    names = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM checkpoint_signatures")
    conn.close()
    assert names == set(TRIGGERS)


def old_log(folder: Path, events: int) -> Path:
    """A log as version 1 wrote it: no signatures table, user_version 1."""
    path = folder / "old.db"
    log = SqliteEventLog(path, checkpoint_every=EVERY, checkpoint_interval=None)
    log.append_many(trace_event(n) for n in range(events))
    log.close()
    outside(path, "DROP TABLE checkpoint_signatures", "PRAGMA user_version = 1",
            *(f"CREATE TRIGGER {name} {body}" for name, body in TRIGGERS.items()
              if not name.startswith("signatures_")))
    return path


def test_an_old_unsigned_log_still_opens_and_verifies(tmp_path, capsys):
    path = old_log(tmp_path, 25)
    assert main(["verify-log", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("OK: 25 events") and captured.err == ""
    assert SqliteEventReader(path).signed_checkpoints() == []


def test_an_old_log_is_upgraded_and_signs_from_then_on(tmp_path, capsys):
    path = old_log(tmp_path, 25)
    key = Ed25519PrivateKey.generate()
    log = SqliteEventLog(path, checkpoint_every=EVERY, checkpoint_interval=None,
                         signer=key.sign, table_id="T1")
    log.append_many(trace_event(n) for n in range(25, 32))
    log.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2
    pub = write_public(key, tmp_path / "pub.pem")
    assert main(["verify-log", str(path), "--pubkey", str(pub), "--unsigned-tail", "10"]) == 0
    assert capsys.readouterr().out.startswith("OK: 32 events")


def test_a_signer_without_a_table_id_is_refused(tmp_path):
    with pytest.raises(ValueError, match="needs the table's id"):
        SqliteEventLog(tmp_path / "t.db", signer=Ed25519PrivateKey.generate().sign)
