"""A restart from a snapshot is the restart from the whole log: the same public view, review
queue, history, alerts and shoes, at every kind of moment, and the same table afterwards."""

from __future__ import annotations

import logging
import random
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.bootstrap import SideBetGuard
from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.report import shoe_view
from dealer_assist.services.live_table import LiveTable
from dealer_assist.signing_keys import ENV_SIGNING_KEY
from dealer_assist.store.log import MemoryEventLog
from dealer_assist.store.snapshot import TableSnapshots
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from tests.store.sealing import key_file, seal

PAYTABLES = load_paytables()
Action = Callable[[LiveTable], Any]


def guard() -> SideBetGuard:
    """Side-bet alerts that come and go within a shoe (a threshold near the bets' edges)."""
    return SideBetGuard(PAYTABLES, threshold=0.12)


def table_on(log: Any, snapshots: TableSnapshots | None = None, **kw: Any) -> LiveTable:
    return LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES,
                     watchers=[guard()], clock=lambda: "2026-12-01T10:00:00.000Z",
                     snapshots=snapshots, **kw)


def observe(event: dict[str, Any]) -> Action:
    return lambda table: table.observe(event)


def decide_first(action: str, shoe_id: str | None = None) -> Action:
    def act(table: LiveTable) -> None:
        queue = [q for q in table.review_queue() if shoe_id in (None, q["shoe_id"])]
        if queue:
            table.decide("S-104", queue[0]["game"], action, "seen on video",
                         shoe_id=queue[0]["shoe_id"])
    return act


def session() -> list[Action]:
    """Two shoes with dealer mistakes, decisions on each, one made after the next shoe began."""
    shoes = [deal_shoe(random.Random(seed), shoe_id=f"S{n}", reveal=True,
                       mistakes=["unneeded_draw", "missed_draw", "cards_pulled_together"])
             for n, seed in ((1, 7), (2, 8))]
    first, second = shoes
    actions = [observe(e) for e in first[:200]] + [decide_first("accept")]
    actions += [observe(e) for e in first[200:]] + [observe(e) for e in second[:200]]
    actions += [decide_first("void", "S1"), decide_first("accept", "S2")]
    return actions + [observe(e) for e in second[200:]]


def state(table: LiveTable) -> Any:
    shoes = table.machine.shoes
    return (table.seq, table.public(), table.review_queue(), table.history(),
            table.side_bet_alerts(limit=10**6), table.shoes(), table.update(),
            [shoe_view(shoe, PAYTABLES) for shoe in shoes], table.machine.phase,
            table.machine.problems, table.machine.events_applied)


def moments(actions: list[Action]) -> dict[str, int]:
    """Points to stop at: mid-game, between games, between shoes, after a decision, right
    after a side-bet alert."""
    table = table_on(MemoryEventLog())
    found: dict[str, int] = {}
    for n, act in enumerate(actions, 1):
        decisions, alerts = len(table.history()), len(table.alerts)
        act(table)
        machine = table.machine
        game = machine.shoe.current if machine.shoe else None
        if machine.phase == "dealing" and game is not None and len(game.cards) == 2:
            found.setdefault("mid-game", n)
        if machine.phase == "between" and n > 100:
            found.setdefault("mid-shoe", n)
        if machine.phase == "no_shoe":
            found.setdefault("between shoes", n)
        if len(table.history()) > decisions and n > 300:
            found.setdefault("after a late decision", n)
        if len(table.alerts) > alerts and n > 50:
            found.setdefault("after an alert", n)
    assert len(found) == 5, found
    return found


def test_a_restart_from_a_snapshot_is_a_full_replay_at_every_kind_of_moment(
        tmp_path: Path) -> None:
    actions = session()
    whole = table_on(MemoryEventLog())
    for act in actions:
        act(whole)
    assert whole.alerts and whole.history()
    for where, stop in moments(actions).items():
        db = tmp_path / where / "T1.events.db"
        db.parent.mkdir()
        log = SqliteEventLog(db)
        table = table_on(log, TableSnapshots(log, db, seal()), snapshot_every=10**9)
        for act in actions[:stop]:
            act(table)
        table.close()  # the snapshot at the very end
        log.close()

        log = SqliteEventLog(db)
        again = table_on(log, TableSnapshots(log, db, seal()))
        assert again.started == f"snapshot at seq {again.seq}, 0 events replayed", where
        assert state(again) == state(table_on(SqliteEventReader(db))), where
        for act in actions[stop:]:  # and it carries on as if it had never stopped
            act(again)
        assert state(again) == state(whole), where
        again.close()
        log.close()


def test_a_snapshot_taken_as_the_table_runs_and_its_tail_give_the_full_replay(
        tmp_path: Path) -> None:
    db = tmp_path / "T1.events.db"
    log = SqliteEventLog(db)
    table = table_on(log, TableSnapshots(log, db, seal()), snapshot_every=150)
    for act in session()[:-5]:  # snapshots before and after the late decision on shoe S1
        act(table)
    table.flush_snapshots()  # no close(): the service was killed
    log.close()

    log = SqliteEventLog(db)
    again = table_on(log, TableSnapshots(log, db, seal()))
    snapshot_seq = int(again.started.split()[3].rstrip(","))
    assert 0 < snapshot_seq < again.seq
    assert again.started == f"snapshot at seq {snapshot_seq}, {again.seq - snapshot_seq} " \
                           "events replayed"
    assert state(again) == state(table_on(SqliteEventReader(db)))
    log.close()


def test_snapshots_written_while_events_arrive_are_each_consistent(tmp_path: Path) -> None:
    db = tmp_path / "T1.events.db"
    log = SqliteEventLog(db)
    keeper = TableSnapshots(log, db, seal(), keep=10**6)
    table = table_on(log, keeper, snapshot_every=3)
    stop = threading.Event()

    def dealer() -> None:
        for act in session()[:400]:
            act(table)
        stop.set()

    thread = threading.Thread(target=dealer)
    thread.start()
    while not stop.is_set():  # a reader asks for pages while the dealer deals
        table.public()
        table.review_queue()
    thread.join()
    table.flush_snapshots()
    log.close()
    files = keeper.files()
    assert len(files) > 10
    for n, path in enumerate(files[:: max(1, len(files) // 6)]):
        folder = tmp_path / f"check{n}"
        folder.mkdir()
        shutil.copy(db, folder / db.name)
        shutil.copy(path, folder / path.name)
        log = SqliteEventLog(folder / db.name)
        again = table_on(log, TableSnapshots(log, folder / db.name, seal()))
        assert again.started.startswith(f"snapshot at seq {int(path.name.split('.')[-1])},")
        assert state(again) == state(table_on(SqliteEventReader(folder / db.name))), path.name
        log.close()


def service_config(tmp_path: Path) -> Any:
    from dealer_assist.config import load_table_config
    from tests.web.test_run import write_config

    return load_table_config(write_config(tmp_path))


def deal_and_stop(config: Any, events: int = 120) -> None:
    from dealer_assist.bootstrap import open_table

    table = open_table(config, start_shoe=False)
    for event in deal_shoe(random.Random(5), mistakes=["unneeded_draw"])[:events]:
        table.live.observe(event)
    table.close()  # the last snapshot, then the log


def metrics(table: Any) -> list[str]:
    from fastapi.testclient import TestClient

    with TestClient(table.app, client=("127.0.0.1", 40000)) as local:
        response = local.get("/metrics")
    assert response.status_code == 200
    return response.text.splitlines()


def test_the_service_keeps_its_snapshots_beside_its_log_and_starts_from_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dealer_assist.bootstrap import open_table

    pair, _ = key_file(tmp_path / "keys")
    monkeypatch.setenv(ENV_SIGNING_KEY, str(pair.private))
    config = service_config(tmp_path)
    deal_and_stop(config)
    assert list((tmp_path / "var").glob("T5.events.db.snapshot.*"))
    again = open_table(config, start_shoe=False)
    try:
        assert again.live.started.startswith("snapshot at seq ")
        assert again.live.machine.shoe is not None and again.live.seq >= 120
        lines = metrics(again)
        assert "dealer_assist_snapshots_sealed 1" in lines
        assert 'dealer_assist_snapshots_refused_total{reason="seal"} 0' in lines
    finally:
        again.close()


def test_the_service_refuses_a_forged_snapshot_replays_its_log_and_says_so_on_metrics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """The issue's attack on the running service: every flag removed, the variant made super6,
    the header recomputed; the service started with the table's key refuses it."""
    from dealer_assist.bootstrap import open_table
    from tests.store.test_snapshot_seal import forged_header_recomputed

    pair, _ = key_file(tmp_path / "keys")
    monkeypatch.setenv(ENV_SIGNING_KEY, str(pair.private))
    config = service_config(tmp_path)
    deal_and_stop(config, 300)
    (path,) = (tmp_path / "var").glob("T5.events.db.snapshot.*")
    forged_header_recomputed(path)
    logged = SqliteEventReader(config.database).head().seq
    with caplog.at_level(logging.INFO, logger="dealer_assist"):
        again = open_table(config, start_shoe=False)
    try:
        whole = LiveTable(SqliteEventReader(config.database), table_id="T5", house=config.house,
                          paytables=load_paytables(config.paytables))
        assert again.live.started == f"{logged} events replayed"
        assert f"snapshot {path.name} refused: its seal does not verify" in caplog.text
        assert again.live.review_queue() == whole.review_queue() != []
        lines = metrics(again)
        assert 'dealer_assist_snapshots_refused_total{reason="seal"} 1' in lines
        assert 'dealer_assist_snapshots_refused_total{reason="log"} 0' in lines
    finally:
        again.close()


def test_without_a_signing_key_no_snapshot_is_kept_or_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """No key, no seal: the service writes no snapshot, reads none that lies in its folder
    (whoever wrote it), replays the whole log, and says so in its log and on /metrics."""
    from dealer_assist.bootstrap import open_table

    monkeypatch.delenv(ENV_SIGNING_KEY, raising=False)
    config = service_config(tmp_path)
    deal_and_stop(config)
    assert not list((tmp_path / "var").glob("T5.events.db.snapshot.*"))
    pair, _ = key_file(tmp_path / "keys")  # a snapshot left by a run with a key...
    monkeypatch.setenv(ENV_SIGNING_KEY, str(pair.private))
    deal_and_stop(config, 0)
    left = sorted(p.name for p in (tmp_path / "var").glob("T5.events.db.snapshot.*"))
    assert left
    monkeypatch.delenv(ENV_SIGNING_KEY)
    logged = SqliteEventReader(config.database).head().seq
    with caplog.at_level(logging.INFO, logger="dealer_assist"):
        again = open_table(config, start_shoe=False)  # ...is not read without one
    try:
        assert again.live.started == f"{logged} events replayed"
        assert "is not set: no snapshots are kept or read" in caplog.text
        assert "dealer_assist_snapshots_sealed 0" in metrics(again)
        assert not any("snapshots_refused" in line for line in metrics(again))
    finally:
        again.close()
    assert sorted(p.name for p in (tmp_path / "var").glob("T5.events.db.snapshot.*")) == left
