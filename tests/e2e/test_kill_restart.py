"""The service killed with SIGKILL while the built-in shoe deals flat out, then restarted:
no event lost or doubled, the chain verifies, and the state after the restart (from its
snapshot) equals a full replay of the log.

The short form (CI) kills it 5 times; `DEALER_ASSIST_KILLS=100` runs the full suite.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dealer_assist.config import load_paytables
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.snapshot import TableSnapshots
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from dealer_assist.store.verify import verify_chain

KILLS = int(os.environ.get("DEALER_ASSIST_KILLS", "5"))


def records(db: Path) -> list[tuple[int, str]]:
    reader = SqliteEventReader(db)
    return [(r.seq, r.hash) for r in reader.raw_records()]


def start(config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "run", "--config",
                             str(config), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def test_killed_at_random_points_the_log_loses_and_doubles_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "T3"\ndatabase = "var/T3.db"\nusers = "var/users.db"\n'
                      '[shoe]\nurl = "emulator"\nemulator_speed = 1000\n[web]\nport = 0\n',
                      encoding="utf-8")
    db = tmp_path / "var" / "T3.db"
    rng = random.Random(20261205)
    before: list[tuple[int, str]] = []
    restarts = 0
    for _ in range(KILLS):
        service = start(config)
        try:
            assert service.stdout is not None
            assert service.stdout.readline().startswith("table display:")  # up and dealing
            restarts += 1
            time.sleep(rng.uniform(0.05, 1.5))
        finally:
            service.send_signal(signal.SIGKILL)
            service.wait(15)
        after = records(db)
        assert after[:len(before)] == before, "an event written before the kill was lost"
        assert [seq for seq, _ in after] == list(range(1, len(after) + 1)), "a gap or a double"
        before = after
    verdict = verify_chain(SqliteEventReader(db).raw_records)
    assert verdict.ok, verdict.problem
    assert len(before) > KILLS  # it dealt between the kills

    paytables = load_paytables()
    log = SqliteEventLog(db)
    try:
        with caplog.at_level(logging.INFO, logger="dealer_assist"):
            from_snapshot = LiveTable(log, table_id="T3", house=HouseRules(),
                                      paytables=paytables, snapshots=TableSnapshots(log, db))
        assert any("snapshot at seq" in r.getMessage() for r in caplog.records), caplog.text
        full = LiveTable(log, table_id="T3", house=HouseRules(), paytables=paytables)
        assert from_snapshot.public() == full.public()
        assert from_snapshot.review_queue() == full.review_queue()
        assert from_snapshot.history() == full.history()
        assert from_snapshot.seq == full.seq == len(before)
    finally:
        log.close()
    print(f"\nkill suite: {KILLS} kills, {restarts} restarts, {len(before)} events, chain ok")
