"""`dealer-assist backup DB --to DIR [--keep N]`: an online, verified copy of a table's log."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dealer_assist.commands import command
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.store.durable import sync_folder
from dealer_assist.store.sqlite_log import NotAnEventLog, SqliteEventReader, read_only_uri
from dealer_assist.store.verify import Verdict, verify_chain

DEFAULT_KEEP = 14

HELP = """\
Copy a table's event log into DIR while the table service may be writing to it (SQLite's
online backup API, on a read-only connection: the service is never blocked), check the copy
with the same verification as `dealer-assist verify-log`, and keep it only if it verifies.
The copy is one self-contained file, <log name>-<UTC time>.db; the oldest copies beyond
--keep are removed. A copy that does not verify is deleted and the older copies are kept.

To restore: stop the service, check the copy with `dealer-assist verify-log COPY`, put it in
place of the log, start the service (deploy/README.md, "Restore").

Exit status: 0 copied and verified, 1 the copy does not verify, 2 bad input (no such log,
not an event log, DIR not a writable folder).
"""


def _at_least_one(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of copies, 1 or more: {text!r}")
    return int(text)


def register(subparsers: Any) -> None:
    p = command(subparsers, "backup", "copy a table's event log while the service runs, verify, rotate",
                HELP)
    p.add_argument("db", metavar="DB", type=Path, help="the table's event log (SQLite file)")
    p.add_argument("--to", required=True, type=Path, metavar="DIR",
                   help="the folder of the copies (made if missing)")
    p.add_argument("--keep", type=_at_least_one, default=DEFAULT_KEEP, metavar="N",
                   help=f"how many copies to keep, newest first (default {DEFAULT_KEEP})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    source: Path = args.db
    try:
        SqliteEventReader(source)  # refuses a missing file or one that is not an event log
        args.to.mkdir(parents=True, exist_ok=True)
    except (FileNotFoundError, NotAnEventLog) as e:
        raise CommandFailed(str(e)) from None
    except OSError as e:
        raise CommandFailed(f"cannot use {args.to} for the copies: {e.strerror}") from None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    final = args.to / f"{source.stem}-{stamp}.db"
    partial = final.with_name(final.name + ".partial")
    try:
        copy_log(source, partial)
        verdict, missing = verify_copy(partial)
    except (OSError, sqlite3.Error, NotAnEventLog) as e:
        partial.unlink(missing_ok=True)
        raise CommandFailed(f"cannot copy {source} to {args.to}: {e}") from None
    if not verdict.ok:
        partial.unlink()
        problem = verdict.problem
        assert problem is not None
        raise CommandFailed(f"the copy of {source} does not verify, not kept: FAIL at seq "
                            f"{problem.seq}: {problem.kind}: {problem.detail}", status=1)
    os.replace(partial, final)
    sync_folder(args.to)
    removed = rotate(args.to, source.stem, args.keep)
    if missing:
        print(f"dealer-assist backup: warning: {source} lacks the append-only triggers "
              f"{', '.join(missing)}: someone dropped them", file=sys.stderr)
    print(f"{final}: {verdict.events} events verified, chain head seq {verdict.head.seq} "
          f"hash {verdict.head.hash}; {len(removed)} older copies removed")
    return 0


def copy_log(source: Path, target: Path) -> None:
    """Copy the log in one step of SQLite's backup API: a consistent snapshot of the log as of
    one transaction, taken while the writer goes on appending; the copy is a single file
    (journal mode DELETE, no -wal beside it)."""
    src = sqlite3.connect(read_only_uri(source), uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
    finally:
        src.close()


def verify_copy(copy: Path) -> tuple[Verdict, list[str]]:
    """`verify-log`'s check of a file: its hash chain and checkpoints; the missing triggers."""
    reader = SqliteEventReader(copy)
    return verify_chain(reader.raw_records, reader.checkpoints()), reader.missing_triggers()


def rotate(folder: Path, stem: str, keep: int) -> list[Path]:
    """Remove all but the newest `keep` copies of the log named `stem`; returns the removed."""
    copies = sorted(folder.glob(f"{stem}-*Z.db"))  # the UTC stamps sort by time
    old = copies[:-keep]
    for path in old:
        path.unlink()
    return old
