"""A table's own event log (the SQLite file `run` writes) as the commands read it.

`audit`, `roads` and `log` take a table's log where they take a trace: a file that starts with
SQLite's header is read as a log, on read-only connections, so the table service may go on
writing it. The log's events are the trace's events (table-trace.md) as they were appended, in
seq order: seq n is line n of the same trace. Whatever stops the reading (no file, a file that
is not a table log, a log that breaks off) is a CommandFailed naming it (exit 2).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from dealer_assist.commands.failed import CommandFailed
from dealer_assist.store.chain import RawRecord
from dealer_assist.store.sqlite_log import NotAnEventLog, SqliteEventReader

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite(path: str | Path) -> bool:
    """Whether `path` is a file that starts as an SQLite database does (False if unreadable)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def open_log(path: str | Path) -> SqliteEventReader:
    """A read-only reader of the table log at `path`, or CommandFailed saying why not."""
    where = Path(path)
    if where.is_dir():
        raise CommandFailed(f"{where}: is a folder, not a table's log (an SQLite file)")
    if not where.exists():
        raise CommandFailed(f"{where}: no such file")
    try:
        reader = SqliteEventReader(where)
        reader.head()  # a file with the right version but no events table fails here
    except NotAnEventLog:
        raise CommandFailed(f"{where}: not a table's event log (an SQLite file written by "
                            "`dealer-assist run`)") from None
    except sqlite3.DatabaseError as e:
        raise CommandFailed(f"{where}: not a table's event log ({e})") from None
    except (OSError, sqlite3.Error) as e:
        raise CommandFailed(f"{where}: cannot read it as a table's log: {e}") from None
    return reader


def records(reader: SqliteEventReader, after_seq: int = 0) -> Iterator[RawRecord]:
    """The log's events after `after_seq` in seq order, as stored; CommandFailed if the
    reading breaks off."""
    try:
        yield from reader.raw_records(after_seq)
    except (NotAnEventLog, sqlite3.Error) as e:
        raise CommandFailed(f"{reader.path}: cannot read its events: {e}") from None


def bodies(path: str | Path) -> Iterator[str]:
    """The events of the log at `path` as trace lines (their canonical JSON), in seq order."""
    return (record.body for record in records(open_log(path)))
