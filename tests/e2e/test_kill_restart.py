"""The service killed with SIGKILL while the built-in shoe deals flat out, then restarted:
no event lost or doubled, the chain verifies, and the state after the restart (from its
snapshot) equals a full replay of the log. Killed mid-game, the game it cut short is the
system's: INTERRUPTED (restart), not the dealer's MISSING_DRAW, and in none of their figures.

The short form (CI) kills it 5 times; `DEALER_ASSIST_KILLS=100` runs the full suite.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from functools import partial
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from dealer_assist.charts.data import by_dealer, shifts
from dealer_assist.config import load_paytables
from dealer_assist.domain.events import parse_event
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.phases import DEALING
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.live_table import LiveTable
from dealer_assist.signing_keys import ENV_SIGNING_KEY
from dealer_assist.store.snapshot import TableSnapshots
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from dealer_assist.store.verify import verify_chain
from tests.store.sealing import key_file, seal

KILLS = int(os.environ.get("DEALER_ASSIST_KILLS", "5"))


def records(db: Path) -> list[tuple[int, str]]:
    reader = SqliteEventReader(db)
    return [(r.seq, r.hash) for r in reader.raw_records()]


def start(config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "run", "--config",
                             str(config), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def test_killed_at_random_points_the_log_loses_and_doubles_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    pair, key = key_file(tmp_path / "keys")  # the snapshots are sealed with the table's key
    monkeypatch.setenv(ENV_SIGNING_KEY, str(pair.private))
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
                                      paytables=paytables, snapshots=TableSnapshots(log, db, seal("T3", key)))
        assert any("snapshot at seq" in r.getMessage() for r in caplog.records), caplog.text
        full = LiveTable(log, table_id="T3", house=HouseRules(), paytables=paytables)
        assert from_snapshot.public() == full.public()
        assert from_snapshot.review_queue() == full.review_queue()
        assert from_snapshot.history() == full.history()
        assert from_snapshot.seq == full.seq == len(before)
    finally:
        log.close()
    print(f"\nkill suite: {KILLS} kills, {restarts} restarts, {len(before)} events, chain ok")


# ---- the game the kill cut short is the system's ---------------------------------------------

DEALER, PASSWORD = "D-12", "a dealer's password 12"


def logged_events(db: Path) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in SqliteEventReader(db).raw_records()]


def being_dealt(events: list[dict[str, Any]]) -> tuple[str, int] | None:
    """(shoe, game) of the game being dealt at the end of `events`, by the table machine;
    None between games, in a burn, or with no shoe."""
    machine = TableMachine(record=False)
    for event in events:
        machine.apply(parse_event(event))
    shoe = machine.shoe
    if machine.phase != DEALING or shoe is None or shoe.current is None:
        return None
    return shoe.shoe_id, shoe.current.number


def sign_in_dealer(url: str) -> None:
    """The dealer logs in on the table's own pages and takes the table, as at a real table."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

    def csrf(path: str) -> str:
        page = opener.open(url + path, timeout=10).read().decode()
        found = re.search(r'name="csrf" value="([^"]+)"', page)
        assert found, page
        return found.group(1)

    form = {"name": DEALER, "password": PASSWORD, "csrf": csrf("login")}
    opener.open(url + "login", urlencode(form).encode(), timeout=10)
    opener.open(url + "dealer/sign-in", urlencode({"csrf": csrf("dealer")}).encode(), timeout=10)


def dealing_signed_in(db: Path, signed: int) -> bool:
    """A game is being dealt, and a game whose bets closed after event `signed` names the
    dealer."""
    events = logged_events(db)
    return any(e.get("dealer") == DEALER for e in events[signed:]) \
        and being_dealt(events) is not None


def wait_for(what: Callable[[], Any], seconds: float, why: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(why)


def test_a_game_the_kill_cut_short_is_interrupted_and_not_the_dealers(tmp_path: Path) -> None:
    """SIGKILL while the built-in shoe deals a game, start again: the service writes
    `interrupted` (restart), the built-in shoe starts a fresh shoe, and the game it cut short
    is INTERRUPTED, never MISSING_DRAW, and counts in no figure of the dealer who dealt it."""
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "T5"\ndatabase = "var/T5.db"\nusers = "var/users.db"\n'
                      '[shoe]\nurl = "emulator"\nemulator_speed = 20\n[web]\nport = 0\n',
                      encoding="utf-8")
    db = tmp_path / "var" / "T5.db"
    db.parent.mkdir()
    subprocess.run([sys.executable, "-m", "dealer_assist.cli", "user", "add", DEALER, "--role",
                    "dealer", "--db", str(tmp_path / "var" / "users.db"), "--password-stdin"],
                   input=PASSWORD + "\n", text=True, check=True, capture_output=True, timeout=60)
    cut: tuple[str, int] | None = None
    for _attempt in range(5):  # the kill races the deal: until it lands mid-game
        service = start(config)
        try:
            assert service.stdout is not None
            url = service.stdout.readline().split("table display:", 1)[1].strip()
            sign_in_dealer(url)
            wait_for(partial(dealing_signed_in, db, len(logged_events(db))), 60,
                     "no game was dealt with the dealer signed in")
        finally:
            service.send_signal(signal.SIGKILL)
            service.wait(15)
        cut = being_dealt(logged_events(db))
        if cut is not None:
            break
    assert cut is not None, "no kill landed mid-game in 5 tries"
    killed_at = len(logged_events(db))

    service = start(config)
    try:
        assert service.stdout is not None
        assert service.stdout.readline().startswith("table display:")
        wait_for(lambda: any(e["type"] == "new_shoe" for e in logged_events(db)[killed_at:]),
                 60, "the built-in shoe started no new shoe after the restart")
    finally:
        service.send_signal(signal.SIGKILL)
        service.wait(15)
    after = logged_events(db)[killed_at:]
    assert {k: v for k, v in after[0].items() if k != "ts"} == {
        "src": "system", "type": "interrupted", "reason": "restart"}, after[:3]

    log = SqliteEventLog(db)
    try:
        table = LiveTable(log, table_id="T5", house=HouseRules(), paytables=load_paytables())
        rows = table.dealt_games()
        queue = table.review_queue()
    finally:
        log.close()
    [row] = [r for r in rows if (r["shoe"], r["game"]) == cut]
    assert row["flags"] == ["INTERRUPTED"] and row["dealer"] == DEALER
    assert row["review"] == "pending"
    assert not any("MISSING_DRAW" in r["flags"] for r in rows)
    [queued] = [q for q in queue if (q["shoe_id"], q["game"]) == cut]
    assert [f["detail"] for f in queued["flags"]] == [
        f"game {cut[1]} was interrupted (restart) and did not continue"]
    # the dealer's figures hold every game they dealt, and none of the system's flags
    mine = [r for r in rows if r["dealer"] == DEALER]
    [total] = [t for t in by_dealer(rows) if t.dealer == DEALER]
    assert total.games == len(mine)
    assert total.flags == sum(len(r["flags"]) for r in mine) - 1
    assert all("INTERRUPTED" not in s.flags for s in shifts(rows))
