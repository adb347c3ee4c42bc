"""`export` refuses to sign a log that does not verify against the checkpoints the table
signed, checked with the public half of the export key; an honest signed log exports.

The log is the export tests' day, written by a table that signs its checkpoints with the
export key; the attacks (tests/store/signing.py) are made as an outsider would.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.signing_keys import KeyPair, load_private_key
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from tests.export.conftest import day_events
from tests.store.signing import cut_back, remove_signed, rewrite


@pytest.fixture(scope="module")
def signed_master(tmp_path_factory: pytest.TempPathFactory, keys: KeyPair) -> Path:
    events, _ = day_events()
    path = tmp_path_factory.mktemp("signed") / "T1.events.db"
    log = SqliteEventLog(path, checkpoint_every=500, checkpoint_interval=None,
                         signer=load_private_key(keys.private).sign, table_id="T1")
    for at in range(0, len(events), 300):
        log.append_many(events[at:at + 300])
    log.close()
    return path


@pytest.fixture
def signed_day(signed_master: Path, tmp_path: Path) -> Path:
    path = tmp_path / "T1.events.db"
    shutil.copy(signed_master, path)
    return path


def signed_seqs(db: Path) -> list[int]:
    return [s.point.seq for s in SqliteEventReader(db).signed_checkpoints() if s.point]


def test_an_honest_signed_log_exports_and_verifies_with_the_key(signed_day, export, keys,
                                                                tmp_path, capsys):
    status, out, err = export(signed_day, tmp_path / "day.zip")
    assert status == 0, err
    assert "no signed checkpoint" not in err
    assert main(["verify-log", str(signed_day), "--pubkey", str(keys.public)]) == 0
    assert capsys.readouterr().out.endswith("; signed checkpoints verify\n")


def test_a_log_without_signed_checkpoints_exports_with_a_warning(day_log, export, tmp_path):
    status, _, err = export(day_log.path, tmp_path / "day.zip")
    assert status == 0
    assert "holds no signed checkpoint: nothing outside the file anchors its chain" in err


def cut_past_second(db: Path) -> str:
    seqs = signed_seqs(db)
    cut_back(db, seqs[1] + 1)
    return "cut back past signed checkpoint 3"


def remove_second(db: Path) -> str:
    seqs = signed_seqs(db)
    remove_signed(db, seqs[1])
    return f"signed checkpoints removed between seq {seqs[0]} and seq {seqs[2]}"


def remove_after_first(db: Path) -> str:
    seqs = signed_seqs(db)
    remove_signed(db, *seqs[1:])
    return f"signed checkpoints removed (after seq {seqs[0]})"


def rewrite_early(db: Path) -> str:
    rewrite(db, 100)
    return f"rewritten: the signature of the checkpoint at seq {signed_seqs(db)[0]}"


@pytest.mark.parametrize("tamper", [cut_past_second, remove_second, remove_after_first,
                                    rewrite_early])
def test_an_export_refuses_a_log_that_fails_its_signed_checkpoints(
        signed_day, export, keys, tmp_path, capsys, tamper: Callable[[Path], str]):
    finding = tamper(signed_day)
    out = tmp_path / "t.zip"
    status, _, err = export(signed_day, out)
    assert status == 2
    assert "refusing to sign: " in err and finding in err and "--pubkey" in err
    assert not out.exists()
    assert main(["verify-log", str(signed_day), "--pubkey", str(keys.public)]) == 1
    assert finding in capsys.readouterr().out


def test_an_export_under_another_table_id_is_refused(signed_day, export, tmp_path):
    status, _, err = export(signed_day, tmp_path / "t.zip", "2026-11-29", "2026-11-30",
                            "--table", "T9")
    assert status == 2 and "signed as table 'T1', not 'T9'" in err
