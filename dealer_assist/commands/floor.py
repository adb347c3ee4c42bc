"""`dealer-assist floor ...`: the central store of the pit and floor (docs/floor.md)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dealer_assist.commands import command
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.commands.floor_dsn import ENV_DSN, add_dsn_options, central_dsn

#: The environment variable naming the floor service's session key file (`serve`).
ENV_SESSION_KEY = "DEALER_ASSIST_FLOOR_SESSION_KEY_FILE"
READER_GROUPS = {"floor": "floor_reader", "regulator": "floor_regulator",
                 "service": "floor_service"}
USER_ROLES = ("supervisor", "surveillance", "regulator")

HELP = f"""\
The central PostgreSQL store that keeps a verified copy of every table's log.

  dealer-assist floor migrate --dsn DSN            create or update the schema (idempotent)
  dealer-assist floor add-table T1 --dsn DSN       a table's database role; prints its password once
  dealer-assist floor add-reader NAME --role floor|regulator|service --dsn DSN
                                                   a database login: one that only reads, or the
                                                   floor service's own; prints its password once
                                                   (both: --passfile PATH adds it to that libpq
                                                   password file, 0600, instead of printing it)
  dealer-assist floor add-user NAME --role supervisor|surveillance|regulator [--language th]
                                                   a person who logs in to the floor service
                                                   (password asked twice, or --password-stdin);
                                                   the pages' language: en (default), th,
                                                   zh-Hans or zh-Hant
  dealer-assist floor user-language NAME LANG      change a floor user's pages' language
  dealer-assist floor table-key T1 --pubkey FILE --dsn DSN
                                                   pin a table's public key (its
                                                   signing-key.pub.pem) before it first ships
  dealer-assist floor serve --dsn DSN [--host 127.0.0.1] [--port 8100]
                            [--session-key-file PATH]
                                                   the floor service: pit board, pit review
                                                   queue, floor decisions, regulator pages;
                                                   its logins outlive a restart with a key file

DSN is a libpq connection string of a role that may create roles (the store's owner): --dsn
DSN, --dsn-file PATH (a file holding it) or the environment variable {ENV_DSN}. A password
never goes on the command line, where every user of the machine reads it (ps): it comes from
libpq's password file (PGPASSFILE, or passfile=PATH in the DSN; mode 0600), or the DSN holding
it comes from --dsn-file or {ENV_DSN}. `serve` refuses a password in --dsn; the other
actions warn. `serve` needs no owner, and must not run as one: a login made with
`add-reader NAME --role service` (it reads every table and the floor's users, and stores
decision requests). `table-key` pins a table's public key before the table first ships
(otherwise its shipper registers the key it offers, on first use); a registered key is never
replaced, and a table offering another one raises the integrity alarm. See docs/floor.md for
the roles, the pit, the tables' keys and the integrity alarm.
"""


def register(subparsers: Any) -> None:
    parser = command(subparsers, "floor", "the central store of the pit and floor",
                     HELP)
    actions = parser.add_subparsers(dest="floor_action", metavar="ACTION")

    def action(name: str, help: str, func: Callable[[argparse.Namespace], int]) -> Any:
        sub = command(actions, name, help, HELP)
        add_dsn_options(sub, "the floor service's login" if name == "serve"
                        else "the store's owner")
        sub.set_defaults(func=func)
        return sub

    action("migrate", "apply the schema's migrations the store lacks", run_migrate)
    table = action("add-table", "create a table's role", run_add_table)
    table.add_argument("table", metavar="TABLE", help="the table's id, as in its config (T1)")
    reader = action("add-reader", "create a login that only reads", run_add_reader)
    reader.add_argument("name", metavar="NAME", help="the login's name")
    reader.add_argument("--role", required=True, choices=READER_GROUPS)
    for login in (table, reader):
        login.add_argument("--passfile", type=Path, metavar="PATH",
                           help="add the new password to this libpq password file (made 0600; "
                                "refused if others may read it) instead of printing it")
    user = action("add-user", "add a person who logs in to the floor service", run_add_user)
    user.add_argument("name", metavar="NAME", help="the user's name")
    user.add_argument("--role", required=True, choices=USER_ROLES,
                      help="supervisor: pit board, queue, decisions; surveillance: pit board "
                           "and queue, no decisions; regulator: the regulator's pages")
    user.add_argument("--password-stdin", action="store_true",
                      help="read the password from the first line of standard input")
    user.add_argument("--language", default="en", metavar="LANG",
                      help="the language of the user's pages: en, th, zh-Hans or zh-Hant "
                           "(default en; the pages' header has a chooser, ?lang= previews one)")
    lang = action("user-language", "change the language of a floor user's pages",
                  run_user_language)
    lang.add_argument("name", metavar="NAME", help="the user's name")
    lang.add_argument("language", metavar="LANG", help="en, th, zh-Hans or zh-Hant")
    pin = action("table-key", "register a table's public key before it first ships",
                 run_table_key)
    pin.add_argument("table", metavar="TABLE", help="the table's id, as in its config (T1)")
    pin.add_argument("--pubkey", required=True, type=Path, metavar="FILE",
                     help="the table's public key (PEM: the signing-key.pub.pem next to the "
                          "key the table signs its checkpoints with)")
    serve = action("serve", "run the floor service (pit board, queue, floor decisions)",
                   run_serve)
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1; put a TLS proxy in front)")
    serve.add_argument("--port", type=int, default=8100, help="port (default 8100)")
    serve.add_argument("--secure-cookies", action="store_true",
                       help="mark the session cookie Secure (behind HTTPS)")
    serve.add_argument("--session-key-file", type=Path, metavar="PATH",
                       help="the key that signs the logins' sessions, so that they outlive a "
                            f"restart (made 0600 if missing; or ${ENV_SESSION_KEY})")

    try:  # `floor export` (helper module, when present)
        from dealer_assist.commands.floor_export import register_floor_export
    except ImportError:
        pass
    else:
        register_floor_export(actions)

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=usage)


def _connect(args: argparse.Namespace, dsn: str | None = None) -> Any:
    import psycopg

    try:
        return psycopg.connect(dsn or central_dsn(args), connect_timeout=10)
    except psycopg.Error as exc:
        raise CommandFailed(f"cannot connect to the central store: {exc}") from None


def _run(args: argparse.Namespace, work: Callable[[Any], int]) -> int:
    import psycopg

    with _connect(args) as conn:
        try:
            return work(conn)
        except (psycopg.Error, ValueError) as exc:
            raise CommandFailed(str(exc).strip()) from None


def run_migrate(args: argparse.Namespace) -> int:
    from dealer_assist.floor.migrations import MIGRATIONS, migrate

    def work(conn: Any) -> int:
        ran = migrate(conn)
        print(f"applied migrations {', '.join(map(str, ran))}" if ran
              else f"up to date (migration {MIGRATIONS[-1][0]})")
        return 0

    return _run(args, work)


def run_add_table(args: argparse.Namespace) -> int:
    from dealer_assist.floor.roles import add_table

    def work(conn: Any) -> int:
        with _keeping(args) as keep:
            role, password = add_table(conn, args.table)
            if keep(conn, role, password):
                print(f"table {args.table}: role {role}, its password added to {args.passfile}")
                return 0
        print(f"table {args.table}: role {role}, password {password}")
        print("the password is shown once: put it in the table's password file now")
        return 0

    return _run(args, work)


def run_add_reader(args: argparse.Namespace) -> int:
    from dealer_assist.floor.roles import add_reader

    def work(conn: Any) -> int:
        with _keeping(args) as keep:
            password = add_reader(conn, args.name, READER_GROUPS[args.role])
            if keep(conn, args.name, password):
                print(f"{args.role} login {args.name}: its password added to {args.passfile}")
                return 0
        print(f"{args.role} login {args.name}: password {password} (shown once)")
        return 0

    return _run(args, work)


@contextlib.contextmanager
def _keeping(args: argparse.Namespace) -> Iterator[Callable[[Any, str, str], bool]]:
    """With --passfile: the file opened (or refused) before the login is made, and a function
    that adds the login's line (`*:*:DBNAME:ROLE:PASSWORD`) and says True; without, one that
    says False (the password is printed)."""
    from dealer_assist.floor import passfile

    if args.passfile is None:
        yield lambda conn, role, password: False
        return
    try:
        with passfile.appending(args.passfile) as add:
            def keep(conn: Any, role: str, password: str) -> bool:
                add(passfile.line("*", "*", conn.info.dbname, role, password))
                return True

            yield keep
    except passfile.PassfileProblem as exc:
        raise CommandFailed(str(exc)) from None


def run_add_user(args: argparse.Namespace) -> int:
    from dealer_assist.accounts.users import UserError
    from dealer_assist.commands.user import PasswordNotGiven, _password
    from dealer_assist.config import languages
    from dealer_assist.floor.users import add_user

    try:
        languages.language(args.language)  # before asking for a password
    except languages.UnknownLanguage as e:
        raise CommandFailed(str(e)) from None
    try:
        password = _password(args.name, args.password_stdin)
    except PasswordNotGiven as e:
        raise CommandFailed(str(e)) from None

    def work(conn: Any) -> int:
        try:
            add_user(conn, args.name, args.role, password, language=args.language)
        except UserError as e:
            raise CommandFailed(str(e)) from None
        print(f"floor user {args.name} ({args.role}) added")
        return 0

    return _run(args, work)


def run_user_language(args: argparse.Namespace) -> int:
    from dealer_assist.accounts.users import UserError
    from dealer_assist.floor.users import set_language

    def work(conn: Any) -> int:
        try:
            lang = set_language(conn, args.name, args.language)
        except UserError as e:
            raise CommandFailed(str(e)) from None
        print(f"floor user {args.name}: pages in {lang}")
        return 0

    return _run(args, work)


def run_table_key(args: argparse.Namespace) -> int:
    """Pin the table's key ahead of its shipper: the careful way (floor_wire.register_key).
    Registered once; the same key again is harmless, another one is refused."""
    from dealer_assist.floor_wire import register_key, registered_key
    from dealer_assist.signing_keys import KeyProblem, load_public_key

    try:
        key = load_public_key(args.pubkey)
    except KeyProblem as exc:
        raise CommandFailed(str(exc)) from None

    def work(conn: Any) -> int:
        known = conn.execute("SELECT 1 FROM floor_tables WHERE table_id = %s",
                             (args.table,)).fetchone()
        if known is None:
            raise CommandFailed(f"no table {args.table} in the central store: add it first "
                                f"with dealer-assist floor add-table {args.table}")
        before = registered_key(conn, args.table)
        got = register_key(conn, args.table, key)
        if before is None:
            print(f"table {args.table}: key {got} registered; its shipper may ship "
                  "signed checkpoints with this key only")
        else:
            print(f"table {args.table}: key {got} was already registered (by "
                  f"{before['by']}, {before['at']:%Y-%m-%d %H:%M:%S %Z}); nothing changed")
        return 0

    return _run(args, work)


def run_serve(args: argparse.Namespace) -> int:
    import signal
    import sys
    import threading
    import time

    import uvicorn

    from dealer_assist import bootstrap, logs
    from dealer_assist.accounts.settings import WebSettings
    from dealer_assist.floor.migrations import MIGRATIONS
    from dealer_assist.floor.roles import service_overreach
    from dealer_assist.floor.web.app import create_floor_app
    from dealer_assist.systemd_notify import Notifier

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    dsn = central_dsn(args, long_running=True)
    with _connect(args, dsn) as conn:  # fail early and clearly: no store, or not migrated
        try:
            found = conn.execute("SELECT to_regclass('decision_requests'), "
                                 "to_regclass('shoes')").fetchone()
        except Exception as exc:
            raise CommandFailed(f"cannot read the central store's schema: {exc}") from None
        if found is None or None in found:
            raise CommandFailed(f"the central store lacks the floor's schema (migration "
                                f"{MIGRATIONS[-1][0]}): run dealer-assist floor migrate as the "
                                "store's owner first")
        overreach = service_overreach(conn)
    if overreach:  # the service faces the web: it runs with only the rights it needs
        raise CommandFailed(f"{overreach}: the floor service must not; give it its own login "
                            "with dealer-assist floor add-reader NAME --role service")
    logs.setup()  # logins (info) and outages, timed, or with journald's priorities
    try:
        sock = bootstrap.bind(args.host, args.port)
    except bootstrap.StartError as e:
        raise CommandFailed(str(e)) from None
    app = create_floor_app(dsn, settings=WebSettings(secure_cookies=args.secure_cookies),
                           session_key=_session_key(args))
    url = bootstrap.address(sock)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                           timeout_graceful_shutdown=2, access_log=False))
    systemd = Notifier()  # READY, the watchdog and STOPPING under systemd; else nothing

    def wait_ready() -> None:
        while not server.started and not server.should_exit:
            time.sleep(0.02)
        if server.started:
            print(f"floor service: {url}pit", flush=True)
            systemd.ready(f"floor service at {url}")
            systemd.keep_alive(_web_problem(url))

    threading.Thread(target=wait_ready, daemon=True).start()
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        app.state.hub.close()
        systemd.stopping()
        sock.close()
    say("floor service stopped")
    return 0


def _session_key(args: argparse.Namespace) -> bytes | None:
    """The key in --session-key-file or the file ${ENV_SESSION_KEY} names (made 0600 when
    missing); None without either (the sessions end when the service stops)."""
    import os

    from dealer_assist.accounts.session import SessionKeyProblem, key_file

    path = args.session_key_file or os.environ.get(ENV_SESSION_KEY, "").strip()
    if not path:
        return None
    try:
        return key_file(Path(path).expanduser())
    except (SessionKeyProblem, OSError) as e:
        raise CommandFailed(f"session key: {e}") from None


def _web_problem(url: str) -> Callable[[], str | None]:
    """The watchdog's check: the web server answers `/healthz` (the central store may be
    down: the service stays up and says so on its pages)."""
    from dealer_assist.systemd_notify import http_problem

    return http_problem(url, "/healthz", "the floor service")
