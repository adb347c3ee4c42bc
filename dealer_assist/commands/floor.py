"""`dealer-assist floor ...`: the central store of the pit and floor (docs/floor.md)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from dealer_assist.commands import CommandFailed, command

ENV_DSN = "DEALER_ASSIST_FLOOR_DSN"
READER_GROUPS = {"floor": "floor_reader", "regulator": "floor_regulator"}

HELP = f"""\
The central PostgreSQL store that keeps a verified copy of every table's log.

  dealer-assist floor migrate --dsn DSN            create or update the schema (idempotent)
  dealer-assist floor add-table T1 --dsn DSN       a table's database role; prints its password once
  dealer-assist floor add-reader NAME --role floor|regulator --dsn DSN
                                                   a login that only reads; prints its password once

DSN is a libpq connection string of a role that may create roles (the store's owner), or
the environment variable {ENV_DSN}. See docs/floor.md for the roles and the integrity alarm.
"""


def register(subparsers: Any) -> None:
    parser = command(subparsers, "floor", "the central store of the pit and floor",
                     HELP)
    actions = parser.add_subparsers(dest="floor_action", metavar="ACTION")

    def action(name: str, help: str, func: Callable[[argparse.Namespace], int]) -> Any:
        sub = command(actions, name, help, HELP)
        sub.add_argument("--dsn", default=os.environ.get(ENV_DSN),
                         help=f"libpq connection string (default: ${ENV_DSN})")
        sub.set_defaults(func=func)
        return sub

    action("migrate", "apply the schema's migrations the store lacks", run_migrate)
    action("add-table", "create a table's role", run_add_table).add_argument(
        "table", metavar="TABLE", help="the table's id, as in its config (T1)")
    reader = action("add-reader", "create a login that only reads", run_add_reader)
    reader.add_argument("name", metavar="NAME", help="the login's name")
    reader.add_argument("--role", required=True, choices=READER_GROUPS)

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=usage)


def _connect(args: argparse.Namespace) -> Any:
    import psycopg

    if not args.dsn:
        raise CommandFailed(f"name the central store with --dsn or ${ENV_DSN}")
    try:
        return psycopg.connect(args.dsn, connect_timeout=10)
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
        role, password = add_table(conn, args.table)
        print(f"table {args.table}: role {role}, password {password}")
        print("the password is shown once: put it in the table's shipper DSN now")
        return 0

    return _run(args, work)


def run_add_reader(args: argparse.Namespace) -> int:
    from dealer_assist.floor.roles import add_reader

    def work(conn: Any) -> int:
        password = add_reader(conn, args.name, READER_GROUPS[args.role])
        print(f"{args.role} login {args.name}: password {password} (shown once)")
        return 0

    return _run(args, work)
