"""`dealer-assist floor-demo`: the whole floor on one machine, with one command (`make floor`).

A private PostgreSQL cluster in `var/floor-pg/` (floor/cluster.py: initdb once, pg_ctl), the
schema migrated, 8 tables and two demo accounts, 8 emulated tables dealing with mistakes into
their own logs in `var/floor-demo/` and shipping to the central store (each a live table
with its shipper, which also records the floor's decisions), and `dealer-assist floor serve` on
port 8100. Ctrl-C (or SIGTERM) stops everything: the service, the tables, the cluster.

As on a real floor, the floor service logs in as its own login in `floor_service` (never as the
superuser), and no password is on any process's command line: each login's password is new at
each start and lives in a libpq password file (mode 0600) in `var/floor-demo/`, one for the
floor service alone and one for the tables' roles; the DSNs name the file (`passfile=`).
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dealer_assist.commands import command, invoked_as
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.commands.floor_dsn import ENV_DSN

ENV_SIGNING_KEY = "DEALER_ASSIST_SIGNING_KEY"

HELP = """\
Start a demo of the floor, for a newcomer, on this machine:

  1. a private PostgreSQL cluster in VAR/floor-pg (Debian's postgresql package: initdb the first
     time, then pg_ctl start; no Docker), listening on a unix socket in that folder only;
  2. the central store's schema (floor migrate), tables T1..T8, and two accounts whose
     passwords are printed (new ones at each start): demo-supervisor (pit board, review
     queue, decisions) and demo-regulator (regulator pages, signed floor exports);
  3. 8 emulated tables, each a live table on its own SQLite log in VAR/floor-demo, dealing
     shoe after shoe by the rules at --speed times a real table's pace, with a dealer's mistake
     in most shoes, and shipping its log to the central store; a decision taken on the floor
     is recorded in the table's own log and shipped back;
  4. the floor service (dealer-assist floor serve) on http://127.0.0.1:PORT/, logged in as
     its own login floor_demo_service (the floor_service group: it reads the tables and the
     floor's users and stores decision requests; no superuser); its floor exports are signed
     with the key $DEALER_ASSIST_SIGNING_KEY names, else with a demo key
     made once in the user's cache folder (~/.cache/dealer-assist/floor-demo-key). Each demo
     table signs its log's checkpoints with its own key, made once beside it
     (floor-demo-tables/T1..T8), and ships them: the exports carry every table's signed heads.

No password goes on a command line: the superuser's is in VAR/floor-pg/password and
VAR/floor-pg/pgpass, the floor service's login's in VAR/floor-demo/service.pgpass, the tables'
roles' in VAR/floor-demo/tables.pgpass (libpq password files, mode 0600; new at each start).

Ctrl-C stops the service, the tables and the cluster, in that order. The logs and the cluster
stay in VAR for the next start (delete VAR/floor-pg and VAR/floor-demo to start afresh).
"""

TABLES = 8
SUPERVISOR, REGULATOR = "demo-supervisor", "demo-regulator"
#: The floor service's own login, in the group floor_service (floor add-reader --role service).
SERVICE_LOGIN = "floor_demo_service"


def register(subparsers: Any) -> None:
    parser = command(subparsers, "floor-demo",
                     "the floor demo: private PostgreSQL, 8 emulated tables, floor service", HELP)
    parser.add_argument("--var", type=Path, default=Path("var"), metavar="DIR",
                        help="where the cluster and the tables' logs live (default: var)")
    parser.add_argument("--port", type=int, default=8100, help="the floor service's port")
    parser.add_argument("--speed", type=float, default=2.0,
                        help="times a real table's pace (default 2)")
    parser.add_argument("--tables", type=int, default=TABLES, help="emulated tables (default 8)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer_assist.floor.cluster import Cluster, ClusterProblem

    if not 1 <= args.tables <= 99 or args.speed <= 0:
        raise CommandFailed("--tables is 1 to 99 and --speed positive")
    var = args.var.resolve()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        cluster = Cluster(var / "floor-pg")
        if not cluster.initialised:
            _say(f"creating the floor's PostgreSQL cluster in {cluster.root} (initdb)")
            cluster.init()
        if cluster.running():
            _say("the cluster was left running (or crashed): stopping it first")
            _quietly(cluster.stop)
        cluster.start()
    except ClusterProblem as exc:
        raise CommandFailed(str(exc)) from None
    serve: subprocess.Popen[str] | None = None
    tables: list[_Table] = []
    # a password in the environment would win over the password files libpq is given, here
    # and in the floor service; the service's DSN is on its command line (with no password)
    os.environ.pop("PGPASSWORD", None)
    environ = {k: v for k, v in os.environ.items() if k != ENV_DSN}
    try:
        folder = var / "floor-demo"
        folder.mkdir(parents=True, exist_ok=True)
        service, dsns, passwords = _prepare(cluster, args.tables, folder)
        tables = [_Table(folder, table, dsn, args.speed, stop) for table, dsn in dsns.items()]
        key = _signing_key()
        serve = subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "floor", "serve",
                                  "--dsn", service, "--port", str(args.port)],
                                 start_new_session=True, stdout=subprocess.PIPE, text=True,
                                 env={**environ, ENV_SIGNING_KEY: str(key.private)})
        for table in tables:
            table.start()
        _wait_until_serving(serve)
        _say(f"\nfloor demo: {args.tables} tables dealing at {args.speed:g}x, shipping to "
             f"the central store in {cluster.root}")
        _say(f"  pit board:       http://127.0.0.1:{args.port}/pit  "
             f"(log in as {SUPERVISOR}, password {passwords[SUPERVISOR]})")
        _say(f"  regulator pages: http://127.0.0.1:{args.port}/regulator  "
             f"(log in as {REGULATOR}, password {passwords[REGULATOR]})")
        _say(f"  central store:   PGPASSFILE={cluster.root / 'pgpass'} psql "
             f"\"host={cluster.root} port={cluster.port} dbname=floor user=postgres\"")
        _say(f"  floor service:   logged in as {SERVICE_LOGIN} (floor_service), its password "
             f"in {folder / 'service.pgpass'}")
        _say(f"  floor exports are signed with {key.private}; today's, of every table, and "
             f"its check:\n{_export_lines(service, key, var)}")
        _say("  Ctrl-C stops everything.")
        while not stop.is_set():
            if serve.poll() is not None:
                raise CommandFailed(f"the floor service stopped (exit {serve.returncode})")
            stop.wait(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        _say("stopping the floor demo ...")
        if serve is not None and serve.poll() is None:
            serve.send_signal(signal.SIGINT)
            try:
                serve.wait(15)
            except subprocess.TimeoutExpired:
                serve.kill()
        for table in tables:
            table.close()
        if cluster.running():
            _quietly(cluster.stop)
        _say("floor demo stopped")
    return 0


def _export_lines(service_dsn: str, key: Any, var: Path) -> str:
    """Ready-to-run `floor export` and `verify` lines: today's (UTC) floor export of every
    table, read as the floor service's login (a reader of every table; its password is in its
    password file), and its offline check."""
    import shlex

    day = datetime.now(UTC).date()
    out = var / f"floor-export-{day}-{datetime.now(UTC):%H%M%S}.zip"
    cli = invoked_as()
    return (f"    {cli} floor export --tables all --from {day} --to {day + timedelta(days=1)} "
            f"--dsn {shlex.quote(service_dsn)} --signing-key {shlex.quote(str(key.private))} "
            f"--out {shlex.quote(str(out))}\n"
            f"    {cli} verify {shlex.quote(str(out))} --pubkey {shlex.quote(str(key.public))}")


def _signing_key() -> Any:
    """The floor's key for the demo's exports: $DEALER_ASSIST_SIGNING_KEY's when set, else a
    demo key made once in the user's cache folder (a key never lives in the repository)."""
    from dealer_assist.signing_keys import (
        PUBLIC_NAME,
        KeyPair,
        KeyProblem,
        fingerprint,
        load_private_key,
    )

    try:
        given = os.environ.get(ENV_SIGNING_KEY, "").strip()
        if given:
            private = Path(given).expanduser()
            public = private.with_name(PUBLIC_NAME)
            return KeyPair(private, public, fingerprint(load_private_key(private).public_key()))
    except KeyProblem as exc:
        raise CommandFailed(f"the demo's signing key: {exc}") from None
    return _demo_key("floor-demo-key")


def _demo_key(name: str) -> Any:
    """A demo key pair made once in the user's cache folder under `name` and kept there, so a
    demo table's log and the central store's record of its key agree from run to run."""
    import platformdirs

    from dealer_assist.signing_keys import (
        PRIVATE_NAME,
        PUBLIC_NAME,
        KeyPair,
        KeyProblem,
        fingerprint,
        generate_keys,
        load_private_key,
    )

    folder = Path(platformdirs.user_cache_dir("dealer-assist")) / name
    try:
        if (folder / PRIVATE_NAME).exists():
            private = folder / PRIVATE_NAME
            return KeyPair(private, folder / PUBLIC_NAME,
                           fingerprint(load_private_key(private).public_key()))
        return generate_keys(folder)
    except KeyProblem as exc:
        raise CommandFailed(f"the demo's key {name}: {exc}") from None


def _wait_until_serving(serve: subprocess.Popen[str], timeout: float = 60.0) -> None:
    """Wait for the service's `floor service: URL` line; pass on whatever else it prints."""
    ready = threading.Event()

    def relay() -> None:
        assert serve.stdout is not None
        for line in serve.stdout:
            if line.startswith("floor service:"):
                ready.set()
            else:
                _say(line.rstrip("\n"))

    threading.Thread(target=relay, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not ready.wait(0.1):
        if serve.poll() is not None:
            raise CommandFailed(f"the floor service did not start (exit {serve.returncode})")
        if time.monotonic() > deadline:
            raise CommandFailed(f"the floor service did not answer in {timeout:.0f} s")


def _say(text: str) -> None:
    print(text, flush=True)


def _quietly(action: Any) -> None:
    from dealer_assist.floor.cluster import ClusterProblem

    try:
        action()
    except ClusterProblem as exc:
        _say(f"  ({exc})")


def _prepare(cluster: Any, count: int,
             folder: Path) -> tuple[str, dict[str, str], dict[str, str]]:
    """The store migrated, the tables' roles, the floor service's login and the demo accounts,
    all with fresh passwords: (the floor service's DSN, {table: its role's DSN}, {account:
    password}). The logins' passwords go to password files, never into a DSN: the superuser's
    to VAR/floor-pg/pgpass, the service's alone to service.pgpass, the tables' to tables.pgpass."""
    import psycopg
    from argon2 import PasswordHasher

    from dealer_assist.floor.cluster import SUPERUSER
    from dealer_assist.floor.migrations import migrate
    from dealer_assist.floor.passfile import write as write_passfile
    from dealer_assist.floor.roles import add_table, new_password, role_of
    from dealer_assist.floor.users import add_user

    write_passfile(cluster.root / "pgpass", [cluster.passfile_line(SUPERUSER, cluster.password)])
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'floor'").fetchone():
            conn.execute("CREATE DATABASE floor")
    dsns, passwords, lines = {}, {}, []
    with psycopg.connect(cluster.dsn(dbname="floor")) as conn:
        ran = migrate(conn)
        _say(f"central store: migrations {ran or 'up to date'}")
        known = {row[0] for row in conn.execute("SELECT table_id FROM floor_tables")}
        conn.commit()
        tables = folder / "tables.pgpass"
        for n in range(1, count + 1):
            table, role = f"T{n}", role_of(f"T{n}")
            # a new password at each start: the old one was never kept
            password = new_password(conn, role) if table in known else add_table(conn, table)[1]
            lines.append(cluster.passfile_line(role, password, "floor"))
            dsns[table] = cluster.login_dsn(role, tables, "floor")
        write_passfile(tables, lines)
        service = _service_login(conn, cluster, folder / "service.pgpass")
        hasher = PasswordHasher()
        for name, role in ((SUPERVISOR, "supervisor"), (REGULATOR, "regulator")):
            password = secrets.token_urlsafe(9)
            conn.execute("DELETE FROM floor_users WHERE name = %s", (name,))
            conn.commit()
            add_user(conn, name, role, password, hasher=hasher)
            conn.commit()
            passwords[name] = password
    return service, dsns, passwords


def _service_login(conn: Any, cluster: Any, passfile: Path) -> str:
    """The floor service's own login (SERVICE_LOGIN, in floor_service and nothing else), with a
    fresh password in `passfile` (its alone); return its DSN, which names the file."""
    from psycopg import sql

    from dealer_assist.floor.passfile import write as write_passfile
    from dealer_assist.floor.roles import add_reader, new_password

    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (SERVICE_LOGIN,)).fetchone():
        password = new_password(conn, SERVICE_LOGIN)
        conn.execute(sql.SQL("GRANT floor_service TO {}").format(sql.Identifier(SERVICE_LOGIN)))
        conn.commit()
    else:
        password = add_reader(conn, SERVICE_LOGIN, "floor_service")
    write_passfile(passfile, [cluster.passfile_line(SERVICE_LOGIN, password, "floor")])
    return str(cluster.login_dsn(SERVICE_LOGIN, passfile, "floor"))


class _Table:
    """One emulated table: a live table on its own log, dealing in a thread, and its shipper."""

    def __init__(self, folder: Path, table: str, dsn: str, speed: float,
                 stop: threading.Event, seed: str | None = None) -> None:
        from dealer_assist.config import load_paytables
        from dealer_assist.domain.house import HouseRules
        from dealer_assist.services import interruptions
        from dealer_assist.services.live_table import LiveTable
        from dealer_assist.shipping.shipper import Shipper
        from dealer_assist.signing_keys import load_private_key
        from dealer_assist.store.sqlite_log import SqliteEventLog

        self.table, self.speed, self.stop = table, speed, stop
        #: the deal's random seed: the table and the time unless given (a test's repeatable deal)
        self.seed = seed if seed is not None else f"{table}-{time.time()}"
        # each demo table signs its checkpoints with its own key, as a table PC does, so the
        # floor's exports carry every table's signed chain heads
        key = load_private_key(_demo_key(f"floor-demo-tables/{table}").private)
        self.log = SqliteEventLog(folder / f"{table}.events.db", table_id=table, signer=key.sign)
        self.live = LiveTable(self.log, table_id=table, house=HouseRules(),
                              paytables=load_paytables())
        interruptions.after_start(self.live)  # a shoe the demo's stop left open: `restart`
        self.shipper = Shipper(str(self.log.path), table, dsn, idle=0.25, backoff=(0.5, 5.0),
                               decide=self.live.decide, public_key=key.public_key(),
                               writer=self.log)  # ships as the table appends
        self.thread = threading.Thread(target=self._deal, name=f"deal-{table}", daemon=True)

    def start(self) -> None:
        self.live.link_changed("shoe", "up", "the built-in shoe emulator")
        if self.table == "T8":  # one table with a health problem, for the pit board to show
            self.live.link_changed("camera", "down", "demo: the overhead camera is unplugged")
        else:
            self.live.link_changed("camera", "up", "demo: an emulated camera")
        self.shipper.start()
        self.thread.start()

    def _deal(self) -> None:
        from dealer_assist.devices.deal.dealing import deal_shoe_detailed
        from dealer_assist.devices.deal.mistakes import MISTAKES
        from dealer_assist.devices.shoe import step_times
        from dealer_assist.domain.events import trace_time

        rng = random.Random(self.seed)
        shoe = 0
        while not self.stop.is_set():
            shoe += 1
            mistakes = [rng.choice(MISTAKES)] if rng.random() < 0.8 else []
            try:
                dealt = deal_shoe_detailed(rng, shoe_id=f"{self.table}-{os.getpid()}-{shoe}",
                                           mistakes=mistakes)
            except ValueError:
                continue
            before = 0.0
            for event, (at, reveal) in zip(dealt.events, step_times(dealt), strict=True):
                if self.stop.wait((at - before) / self.speed):
                    return
                before = reveal if reveal is not None else at
                try:
                    self.live.observe({**event, "ts": trace_time(datetime.now(UTC))})
                    if reveal is not None and not self.stop.wait((reveal - at) / self.speed):
                        self.live.reveal()  # the dealer's REVEAL, as the built-in shoe sends
                except Exception as exc:  # the demo goes on; the table says why
                    _say(f"table {self.table}: {exc}")

    def close(self) -> None:
        self.thread.join(5)
        self.shipper.stop()
        self.live.close()
        self.log.close()
