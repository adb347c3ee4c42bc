"""Fixtures of the export tests: a day's log of a table (real SQLite), a key pair, exports.

The day: four shoes dealt by the rules (`deal_shoe`), each with a dealer mistake, and the
supervisor's decisions on them, one of them made about an earlier shoe after the next had
started (so the export must keep that shoe open until then) and one that reaches no game.
"""

from __future__ import annotations

import random
import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.cli import main
from dealer_assist.devices.deal.dealing import deal_shoe_detailed
from dealer_assist.domain.house import HouseRules
from dealer_assist.signing_keys import KeyPair, generate_keys
from dealer_assist.store.sqlite_log import SqliteEventLog

DAY = "2026-11-29"
NEXT_DAY = "2026-11-30"
SHOES = (
    (HouseRules(), "unneeded_draw"),
    (HouseRules(variant="super6", burn_after_each_game=True), "missed_draw"),
    (HouseRules(variant="7up"), "cards_pulled_together"),
    (HouseRules(decks=6), "deal_after_last_game"),
)


@dataclass(frozen=True)
class DayLog:
    path: Path
    events: list[dict[str, Any]]
    #: (shoe id, game) of the games a decision was applied to.
    decided: list[tuple[str, int]]


def decision(ts: str, game: int, action: str, by: str, reason: str,
             **more: Any) -> dict[str, Any]:
    return {"ts": ts, "src": "supervisor", "type": "decision", "game": game, "action": action,
            "by": by, "reason": reason, **more}


def day_events() -> tuple[list[dict[str, Any]], list[tuple[str, int]]]:
    rng = random.Random(29)
    start = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)
    events: list[dict[str, Any]] = []
    decided: list[tuple[str, int]] = []
    for n, (house, mistake) in enumerate(SHOES, 1):
        dealt = deal_shoe_detailed(rng, house, shoe_id=f"S{n}", mistakes=[mistake], start=start)
        events += dealt.events
        last_ts = dealt.events[-1]["ts"]
        flagged = [g for code, g in dealt.expected_flags if g is not None and code != "MULTI_PULL"]
        if flagged:
            events.append(decision(last_ts, flagged[0], "accept", "S-104", "seen on video"))
            decided.append((f"S{n}", flagged[0]))
        if n == 3:  # a late ruling on shoe S1, made while S3 is on the table
            events.insert(len(events) - 40, decision(
                dealt.events[-41]["ts"], 2, "void", "S-007", "late: wrong shoe, see report 7",
                shoe_id="S1"))
            decided.append(("S1", 2))
        start += timedelta(hours=1, minutes=20)
    events.append(decision(events[-1]["ts"], 999, "accept", "S-104", "no such game"))
    return events, decided


@pytest.fixture(scope="session")
def day_log_master(tmp_path_factory: pytest.TempPathFactory) -> DayLog:
    events, decided = day_events()
    path = tmp_path_factory.mktemp("day") / "T1.events.db"
    log = SqliteEventLog(path, checkpoint_every=500, checkpoint_interval=None)
    for at in range(0, len(events), 700):
        log.append_many(events[at:at + 700])
    log.close()
    return DayLog(path, events, decided)


@pytest.fixture
def day_log(day_log_master: DayLog, tmp_path: Path) -> DayLog:
    """A copy of the day's log that a test may tamper with."""
    path = tmp_path / "T1.events.db"
    shutil.copy(day_log_master.path, path)
    return DayLog(path, day_log_master.events, day_log_master.decided)


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> KeyPair:
    return generate_keys(tmp_path_factory.mktemp("keys") / "keys")


@pytest.fixture(scope="session")
def other_keys(tmp_path_factory: pytest.TempPathFactory) -> KeyPair:
    return generate_keys(tmp_path_factory.mktemp("other") / "keys")


Export = Callable[..., tuple[int, str, str]]


@pytest.fixture
def export(keys: KeyPair, capsys: pytest.CaptureFixture[str]) -> Export:
    """Run `dealer-assist export`; (status, stdout, stderr)."""

    def run(db: Path, out: Path, start: str = DAY, end: str = NEXT_DAY,
            *more: str) -> tuple[int, str, str]:
        status = main(["export", "--from", start, "--to", end, "--db", str(db), "--out", str(out),
                       "--signing-key", str(keys.private), *more])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


@pytest.fixture(scope="session")
def day_zip(day_log_master: DayLog, keys: KeyPair,
            tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The signed export of the whole day (made once; tests copy it before changing it)."""
    out = tmp_path_factory.mktemp("zip") / "T1-day.zip"
    status = main(["export", "--from", DAY, "--to", NEXT_DAY, "--db", str(day_log_master.path),
                   "--out", str(out), "--signing-key", str(keys.private)])
    assert status == 0
    return out


Verify = Callable[..., tuple[int, str]]


@pytest.fixture
def verify(keys: KeyPair, capsys: pytest.CaptureFixture[str]) -> Verify:
    """Run `dealer-assist verify`; (status, stdout)."""

    def run(path: Path, pubkey: Path | None = None) -> tuple[int, str]:
        status = main(["verify", str(path), "--pubkey", str(pubkey or keys.public)])
        return status, capsys.readouterr().out

    return run


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def rezip(files: dict[str, bytes], out: Path) -> Path:
    """A zip holding `files` in this order (what someone rewriting an export would make)."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out
