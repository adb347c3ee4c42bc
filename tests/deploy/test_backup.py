"""`dealer-assist backup`: online copies while the service writes, verified, rotated, restored."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from tests.logtamper import outside
from tests.store.test_restart import shoe_events
from tests.web.test_run import REPO, write_config


def card(n: int) -> dict[str, str]:
    return {"ts": f"2026-12-05T08:{n // 60 % 60:02d}:{n % 60:02d}.000Z", "src": "shoe",
            "type": "card", "card": "7H"}


def copies(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.db"))


def test_a_backup_taken_while_the_service_appends_is_a_verified_prefix_of_the_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, to = tmp_path / "T1.events.db", tmp_path / "backups"
    log = SqliteEventLog(db)  # the service's writer, holding the log's lock
    log.append_many(card(n) for n in range(500))
    stop = threading.Event()

    def writer() -> None:
        n = 500
        while not stop.is_set():
            log.append(card(n))
            n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(4):
            assert main(["backup", str(db), "--to", str(to), "--keep", "3"]) == 0
    finally:
        stop.set()
        thread.join()
    head = log.head().seq
    log.close()
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and all("events verified" in line for line in out)
    assert "1 older copies removed" in out[-1]
    kept = copies(to)
    assert kept == [Path(line.split(":")[0]) for line in out[1:]]  # the newest three
    original = {r.seq: r.hash for r in SqliteEventReader(db).raw_records()}
    heads = []
    for copy in kept:
        assert not copy.with_name(copy.name + "-wal").exists()  # one self-contained file
        records = list(SqliteEventReader(copy).raw_records())
        assert all(original[r.seq] == r.hash for r in records)  # a prefix of the log
        heads.append(records[-1].seq)
    assert 500 <= heads[0] <= heads[1] <= heads[2] <= head


def test_a_copy_that_does_not_verify_is_not_kept_and_the_older_ones_stay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, to = tmp_path / "T1.events.db", tmp_path / "backups"
    log = SqliteEventLog(db)
    log.append_many(card(n) for n in range(20))
    log.close()
    assert main(["backup", str(db), "--to", str(to), "--keep", "1"]) == 0
    good = copies(to)
    outside(db, "UPDATE events SET body = replace(body, '7H', '8H') WHERE seq = 7")
    assert main(["backup", str(db), "--to", str(to), "--keep", "1"]) == 1
    err = capsys.readouterr().err
    assert "does not verify, not kept: FAIL at seq 7: edited" in err
    assert copies(to) == good and not list(to.glob("*.partial"))


@pytest.mark.parametrize("case, problem", [
    ("missing", "no event log at"),
    ("not a log", "is not an SQLite event log"),
    ("to a file", "cannot use"),
])
def test_bad_input_is_refused_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          case: str, problem: str) -> None:
    db, to = tmp_path / "T1.events.db", tmp_path / "backups"
    if case != "missing":
        SqliteEventLog(db).close()
    if case == "not a log":
        db.write_text("hello")
    if case == "to a file":
        to.write_text("not a folder")
    assert main(["backup", str(db), "--to", str(to)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dealer-assist backup: ") and problem in err and "Traceback" not in err


def test_keep_must_be_one_or_more(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["backup", str(tmp_path / "T1.events.db"), "--to", str(tmp_path), "--keep", "0"])
    assert exit_.value.code == 2
    assert "--keep: must be a whole number of copies, 1 or more" in capsys.readouterr().err


def test_a_restored_backup_verifies_and_the_service_starts_on_it(tmp_path: Path) -> None:
    """deploy/README.md, "Restore": stop, verify the copy, put it in place, start."""
    db, to = tmp_path / "T1.events.db", tmp_path / "backups"
    log = SqliteEventLog(db)
    log.append_many(shoe_events())
    log.close()
    assert main(["backup", str(db), "--to", str(to)]) == 0
    (backup,) = copies(to)
    assert main(["verify-log", str(backup)]) == 0
    (tmp_path / "restored" / "var").mkdir(parents=True)  # a fresh table folder: its log lost
    config = write_config(tmp_path / "restored")
    shutil.copyfile(backup, tmp_path / "restored" / "var" / "T5.events.db")
    service = subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "run", "--config",
                                str(config)], cwd=REPO, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert service.stdout is not None
        assert service.stdout.readline().startswith("table display:")
        service.send_signal(signal.SIGTERM)
        assert service.wait(15) == 0
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    err = service.stderr.read() if service.stderr else ""
    assert f"({len(shoe_events())} events replayed)" in err and "Traceback" not in err
    assert main(["verify-log", str(tmp_path / "restored" / "var" / "T5.events.db")]) == 0
