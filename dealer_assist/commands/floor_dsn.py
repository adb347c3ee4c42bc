"""Where the floor's commands find the central store, with no password on a command line.

A process's arguments are public on its machine: every local user reads them with `ps` (or
/proc/PID/cmdline) for as long as the process runs. So `--dsn DSN` names the store only (host,
port, database, user); the password comes from libpq's password file (`PGPASSFILE`, `passfile=`
in the DSN, or ~/.pgpass; mode 0600, libpq ignores a file others may read), or the whole DSN
comes from a file named by `--dsn-file PATH` (readable by its owner only: a systemd credential,
say) or from the environment variable `DEALER_ASSIST_FLOOR_DSN` (readable by the process's own
user and root only).

A DSN with a password on the command line: `floor serve`, which runs for months, refuses it
(its password would be on show for all that time); a one-shot command (migrate, add-table,
export ...) says so on stderr and goes on, as the password was shown the moment it started.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from dealer_assist.commands.failed import CommandFailed

ENV_DSN = "DEALER_ASSIST_FLOOR_DSN"
WHERE = (f"put the password in a password file (PGPASSFILE or passfile= in the DSN, mode 0600), "
         f"or the whole DSN in --dsn-file PATH or ${ENV_DSN}")


def add_dsn_options(parser: argparse.ArgumentParser, who: str) -> None:
    """`--dsn DSN` or `--dsn-file PATH` (one of them; else $DEALER_ASSIST_FLOOR_DSN). `who`
    says whose login the DSN should be."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--dsn", metavar="DSN",
                       help=f"libpq connection string of {who}, without a password (that comes "
                            f"from a password file: PGPASSFILE, passfile=, ~/.pgpass); default: "
                            f"${ENV_DSN}")
    group.add_argument("--dsn-file", type=Path, metavar="PATH",
                       help="a file holding the connection string (it may hold the password: "
                            "then it must be readable by its owner only)")


def has_password(dsn: str) -> bool:
    """Whether the libpq connection string (key=value or URI) holds a password. A string libpq
    cannot parse holds none as far as this knows: connecting says what is wrong with it."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        return bool(conninfo_to_dict(dsn).get("password"))
    except psycopg.Error:
        return False


def central_dsn(args: argparse.Namespace, *, long_running: bool = False) -> str:
    """The DSN the command was given: `--dsn`, `--dsn-file` or $DEALER_ASSIST_FLOOR_DSN.
    CommandFailed when none, or (for `long_running`) a password on the command line."""
    if args.dsn_file is not None:
        return _from_file(args.dsn_file)
    if args.dsn:
        if has_password(args.dsn):
            said = ("the DSN on the command line holds a password, which every user of this "
                    "machine reads with ps")
            if long_running:
                raise CommandFailed(f"{said} for as long as the service runs: {WHERE}")
            print(f"warning: {said}: {WHERE}", file=sys.stderr, flush=True)
        return str(args.dsn)
    given = os.environ.get(ENV_DSN, "").strip()
    if not given:
        raise CommandFailed(f"name the central store with --dsn, --dsn-file or ${ENV_DSN}")
    return given


def _from_file(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8").strip()
        mode = path.stat().st_mode
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandFailed(f"cannot read the DSN file {path}: {exc}") from None
    if not text:
        raise CommandFailed(f"the DSN file {path} is empty")
    if has_password(text) and mode & 0o077:
        raise CommandFailed(f"the DSN file {path} holds a password and others may read it "
                            f"(mode {stat.filemode(mode)}): chmod 600 {path}")
    return text
