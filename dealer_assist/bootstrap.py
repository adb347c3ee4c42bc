"""The one composition root: a table's settings in, its running service out.

    settings -> pay tables (checked: a bet the house loses on refuses to start)
             -> SqliteEventLog (one writer) and the users file
             -> LiveTable (rebuilt from the log) with the side-bet watcher
             -> the shoe: its port by URL, or the built-in emulator on a pty (devices/shoe.py)
             -> the overhead camera, when configured (devices/camera.py); with the built-in
                shoe it may be the shoe's virtual camera (devices/virtual_camera.py), whose
                frames of the cards it deals go through the same recognizer; the frames of
                its events kept beside the log (store/evidence.py)
             -> the shipper of the log to the floor's central store, when the environment
                names it, woken by each of the log's commits (shipping/shipper.py)
             -> the web app -> uvicorn

Nothing else in the package builds the devices, the one package (with the CLI's own commands)
that wires hardware in. `open_table` builds everything but the web server, `ServerThread` runs
the server in a thread (tests, benchmarks), `serve` runs it in the foreground
(`dealer-assist run`).
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import APIRouter

from dealer_assist.accounts.auth import require
from dealer_assist.accounts.login import Accounts
from dealer_assist.accounts.session import SessionKeyProblem, SignedSessions, key_file
from dealer_assist.accounts.settings import WebSettings
from dealer_assist.analysis.paytable_check import (
    PayTableRefused,
    check_paytables,
    enforce_paytables,
    format_paytable_report,
)
from dealer_assist.analysis.surveillance import SideBetWatcher
from dealer_assist.config import ConfigError, TableConfig, load_paytables
from dealer_assist.devices.camera import CameraWatch
from dealer_assist.devices.shoe import BuiltInShoe, ShoeFeed
from dealer_assist.devices.virtual_camera import VirtualCamera
from dealer_assist.domain.events import Event
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.interruptions import after_start
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.records import TableRecords
from dealer_assist.shipping.checkpoints import table_public_key_from_environment
from dealer_assist.shipping.shipper import DSN_ENV, Shipper
from dealer_assist.signing_keys import (
    ENV_SIGNING_KEY,
    KeyProblem,
    checkpoint_signer_from_environment,
    signing_key_from_environment,
)
from dealer_assist.store.durable import log_problem
from dealer_assist.store.evidence import (
    EvidencedLogSource,
    EvidenceFolder,
    EvidenceReader,
    table_evidence,
)
from dealer_assist.store.sessions import SessionEnds, table_key
from dealer_assist.store.snapshot import TableSnapshots
from dealer_assist.store.snapshot_seal import seal_from_environment
from dealer_assist.store.sqlite_log import SqliteEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from dealer_assist.web.health import health_router
from dealer_assist.web.regulator import REGULATOR_ROLES, regulator_router
from hardware.camera.zones import ZoneError, load_zones

_log = logging.getLogger("dealer_assist")
Say = Callable[[str], None]

class StartError(RuntimeError):
    """The service cannot start; the message says why and what to do."""


# ---- side-bet surveillance ----------------------------------------------------------------

class SideBetGuard:
    """Feeds every card out of the shoe to the side-bet watcher of the shoe's variant; the
    alerts it raises become `side_bet_alert` events (supervisors see them, the display never)."""

    def __init__(self, paytables: dict[str, PayTable], threshold: float = 0.0,
                 rearm: float = 0.0) -> None:
        self._paytables = paytables
        self._threshold = threshold
        self._rearm = rearm
        self._watcher: SideBetWatcher | None = None

    def __call__(self, event: Event, machine: TableMachine) -> list[dict[str, Any]]:
        kind = event.TYPE
        if kind == "new_shoe":
            house: HouseRules = event.house  # type: ignore[attr-defined]
            table = self._paytables.get(house.variant)
            self._watcher = None if table is None else SideBetWatcher(
                house.decks, house.variant, table, self._threshold, rearm=self._rearm)
        elif kind == "end_shoe":
            self._watcher = None
        elif kind == "card" and self._watcher is not None:
            try:
                return self._watcher.feed(event.card)  # type: ignore[attr-defined]
            except ValueError:  # a foreign card: flagged by the table machine already
                return []
        return []


# ---- the whole table ----------------------------------------------------------------------

@dataclass
class Table:
    """A table's running parts (but the web server); `close()` stops them in order."""

    config: TableConfig
    log: SqliteEventLog
    users: UserStore
    live: LiveTable
    app: Any
    link: ShoeFeed | None = None
    shoe: BuiltInShoe | None = None
    camera: CameraWatch | None = None
    #: The built-in shoe's overhead camera, when `camera.source` is "virtual".
    virtual_camera: VirtualCamera | None = None
    shipper: Shipper | None = None
    paytable_report: str = ""
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for close in reversed(self._closers):
            try:
                close()
            except Exception:
                _log.exception("while stopping the table")
        self._closers.clear()


def check_paytables_at_start(paytables: dict[str, PayTable], house: HouseRules,
                             allow_negative_edge: bool) -> str:
    """The start-up check; returns the lines to print, raises StartError when refused."""
    report = check_paytables(paytables, decks=house.decks)
    try:
        enforce_paytables(report, allow_negative=allow_negative_edge)
    except PayTableRefused as e:
        raise StartError(f"{e}\n(--allow-negative-edge overrides)") from None
    if report.errors or report.warnings:
        return format_paytable_report(report)
    edges = [float(c.house_edge) for c in report.checks]
    return (f"pay tables checked: {len(edges)} bets, house edge {min(edges):.2%} to "
            f"{max(edges):.2%} on a full {house.decks}-deck shoe")


def open_table(config: TableConfig, *, allow_negative_edge: bool = False,
               shoe_speed: float | None | str = "config", shoes: int | None = None,
               start_shoe: bool = True, say: Say | None = None) -> Table:
    """Build and start a table's parts from its settings (the web server not included).

    For tests and benchmarks: `shoe_speed` overrides the built-in shoe's pace (None: flat
    out), `shoes` stops it after that many shoes, `start_shoe=False` leaves it to
    `table.shoe.start()`.
    """
    say = say or (lambda text: None)
    try:
        paytables = load_paytables(config.paytables)
    except ConfigError as e:
        raise StartError(str(e)) from None
    report = check_paytables_at_start(paytables, config.house, allow_negative_edge)
    for path in (config.database, config.users):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:  # a file in the way, a read-only or missing mount
            why = "a file is in the way" if isinstance(e, FileExistsError) else e.strerror
            raise StartError(f"cannot make the folder {path.parent} for {path.name}: "
                             f"{why}") from None
    try:
        log = SqliteEventLog(config.database, table_id=config.table_id,
                             signer=checkpoint_signer_from_environment())
    except Exception as e:  # busy (another service), not a log, no folder
        raise StartError(f"event log {config.database}: {e}") from None
    closers: list[Callable[[], None]] = [log.close]
    try:
        users = UserStore(config.users)
        closers.append(users.close)
        watch = config.surveillance
        watchers = [SideBetGuard(paytables, watch.threshold, watch.rearm)] \
            if watch.side_bets else []
        snapshots = table_snapshots(config, log)
        live = LiveTable(log, table_id=config.table_id, house=config.house, paytables=paytables,
                         watchers=watchers, snapshots=snapshots)
        closers.append(live.close)  # a last snapshot, before the log closes
        after_start(live)  # a shoe left open was interrupted by the stop (`restart`)
        accounts, sessions = signed_sessions(config, users, closers)
        app = create_app(live, accounts, WebSettings(
            secure_cookies=config.web.secure_cookies, session_minutes=config.web.session_minutes,
            gaming_day=config.gaming_day), sessions=sessions,
            routers=[regulator_pages(config, paytables),
                     health_router(live, lambda: log_problem(config.database),
                                   lambda: shipping_lag(table),
                                   snapshots.refused if snapshots else None)])
        app.state.display = config.display  # the board's language(s) and layout
        app.state.evidence = EvidenceReader(config.database, table_evidence(config))
        table = Table(config, log, users, live, app, paytable_report=report, _closers=closers)
        url = config.shoe.url
        if config.camera.virtual and config.shoe.emulated:
            table.virtual_camera = virtual_camera(config)
        if config.shoe.emulated:
            speed = config.shoe.emulator_speed if shoe_speed == "config" else shoe_speed
            follow = table.virtual_camera.follow if table.virtual_camera else None
            table.shoe = BuiltInShoe(config.house, speed=speed,  # type: ignore[arg-type]
                                     seed=config.shoe.emulator_seed,
                                     mistakes=config.shoe.emulator_mistakes, shoes=shoes, say=say,
                                     on_shoe=follow)
            closers.append(table.shoe.stop)
            url = table.shoe.path
            if start_shoe:
                table.shoe.start()
        table.link = ShoeFeed(config.shoe, url, live)
        closers.append(table.link.stop)
        table.link.start()
        if config.camera.enabled:
            try:
                virtual = table.virtual_camera
                if virtual is not None:
                    closers.append(virtual.stop)  # after the watch has stopped
                table.camera = CameraWatch(config.camera, live, evidence=camera_evidence(config),
                                           source=virtual.frames() if virtual else None)
            except Exception as e:  # an unreadable zones file, no model
                raise StartError(f"camera: {e}") from None
            closers.append(table.camera.stop)
            table.camera.start()
        table.shipper = start_shipper(config, closers, decide=live.decide, writer=log)
    except BaseException:
        for close in reversed(closers):
            close()
        raise
    return table


def signed_sessions(config: TableConfig, users: UserStore,
                    closers: list[Callable[[], None]]) -> tuple[Accounts, SignedSessions]:
    """The console's accounts over `users`, and its sessions, signed (they outlive a restart;
    accounts/session.py, store/sessions.py): the key derived from the table's signing key,
    else kept in `<log>.session.key` (0600); logouts kept in `<log>.sessions.db`."""
    try:
        if os.environ.get(ENV_SIGNING_KEY, "").strip():
            key = table_key(signing_key_from_environment(), config.table_id)
        else:
            key = key_file(config.database.with_suffix(".session.key"))
        ends = SessionEnds(config.database.with_suffix(".sessions.db"))
    except (KeyProblem, SessionKeyProblem, OSError, sqlite3.Error) as e:
        raise StartError(f"sessions: {e}") from None
    closers.append(ends.close)
    accounts = Accounts(TableUsers(users, ends))
    return accounts, SignedSessions(key, accounts, config.web.session_minutes * 60.0)


def table_snapshots(config: TableConfig, log: SqliteEventLog) -> TableSnapshots | None:
    """The table's snapshot files, sealed with a key derived from its signing key; None
    (every start replays the whole log) when DEALER_ASSIST_SIGNING_KEY is not set."""
    try:
        seal = seal_from_environment(config.table_id)
    except KeyProblem as e:
        raise StartError(f"snapshots: {e}") from None
    return TableSnapshots(log, config.database, seal) if seal else None


def virtual_camera(config: TableConfig) -> VirtualCamera:
    """The built-in shoe's overhead camera, drawing frames for the configured layout."""
    try:
        zones = load_zones(config.camera.zones)  # type: ignore[arg-type]
    except ZoneError as e:
        raise StartError(f"camera: {e}") from None
    return VirtualCamera(zones, fps=config.camera.fps, seed=config.shoe.emulator_seed or 0)


def shipping_lag(table: Table) -> tuple[int, float] | None:
    """The shipper's lag (events, seconds) for the metrics; None with no floor."""
    if table.shipper is None:
        return None
    lag = table.shipper.lag()
    return lag.events, lag.seconds


def start_shipper(config: TableConfig, closers: list[Callable[[], None]],
                  decide: Callable[..., int] | None = None,
                  writer: SqliteEventLog | None = None) -> Shipper | None:
    """The shipper of this table's log to the floor's central store, when the environment
    names it (`DEALER_ASSIST_CENTRAL_DSN`, as the table's own role), woken by each commit of
    `writer` (the table's log); else None. It never makes the table wait (docs/floor.md)."""
    dsn = os.environ.get(DSN_ENV)
    if not dsn:
        return None
    shipper = Shipper(str(config.database), config.table_id, dsn, decide=decide,
                      public_key=table_public_key_from_environment(), writer=writer)
    closers.append(shipper.stop)
    return shipper.start()


def camera_evidence(config: TableConfig) -> EvidenceFolder | None:
    """The folder beside the log for the camera's evidence frames (retention applied at
    start), None when `[camera] evidence = false`."""
    return table_evidence(config).open() if config.camera.evidence else None


def regulator_pages(config: TableConfig, paytables: dict[str, PayTable]) -> APIRouter:
    """The regulator's pages over this table's log (exports signed with the key named by
    DEALER_ASSIST_SIGNING_KEY; without it the pages work and downloads say what is missing)."""
    source = EvidencedLogSource(config.database, table_evidence(config))  # with its frames
    records = TableRecords({config.table_id: source}, paytables,
                           signing_key_from_environment, gaming_day=config.gaming_day)
    return regulator_router(records, require(*REGULATOR_ROLES, page=True))


# ---- the web server -----------------------------------------------------------------------

class _Server(uvicorn.Server):
    """uvicorn, ending the display's streams first when asked to stop."""

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.config.app.state.hub.close()  # type: ignore[union-attr]
        super().handle_exit(sig, frame)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket (port 0: any free port), bound before the server starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise StartError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    return sock


def address(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _server(app: Any) -> _Server:
    return _Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                  timeout_graceful_shutdown=2, access_log=False))


def serve(table: Table, sock: socket.socket, on_ready: Callable[[], None]) -> None:
    """Run the web server in the foreground until Ctrl-C; `on_ready` once it listens."""
    server = _server(table.app)

    def wait_ready() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.02)
        if server.started:
            on_ready()

    threading.Thread(target=wait_ready, daemon=True).start()
    server.run(sockets=[sock])


class ServerThread:
    """A web app (`Table.app`) served on a thread (tests, benchmarks): `start()`, `.url`,
    `stop()`."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.sock = bind(host, port)
        self.url = address(self.sock)
        self.server = _server(app)
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                        name="web server", daemon=True)

    def start(self, timeout: float = 10.0) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise StartError("the web server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.app.state.hub.close()
        self.server.should_exit = True
        self._thread.join(5.0)
        self.sock.close()
