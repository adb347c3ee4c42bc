"""A table's SQLite log read by seq range and by time: the `export.source.LogSource` port.

Read-only: every read opens the file with `mode=ro` (like `SqliteEventReader`) and closes it
again, so a writer may append meanwhile; a read sees the log as it was when it began. Times
are found through the index on `events.ts`; a shoe's start by walking seqs back from a point.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from dealer_assist.export.source import Point, Record
from dealer_assist.store.chain import GENESIS
from dealer_assist.store.sqlite_log import SqliteEventReader, read_only_uri

#: Rows read from SQLite at a time: enough that a fetch costs little per row, few enough that
#: memory stays flat (a row is about 300 bytes).
_FETCH = 1024


class SqliteLogSource:
    """Reads one table's log file for exports and the regulator's pages."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        SqliteEventReader(self.path)  # raises FileNotFoundError / NotAnEventLog

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(read_only_uri(self.path), uri=True, check_same_thread=False)

    def _one(self, sql: str, *params: object) -> Any:
        with closing(self._connect()) as conn:
            return conn.execute(sql, params).fetchone()

    def head(self) -> tuple[int, str]:
        row = self._one("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
        return (row[0], row[1]) if row else (0, GENESIS)

    def hash_at(self, seq: int) -> str | None:
        if seq == 0:
            return GENESIS
        row = self._one("SELECT hash FROM events WHERE seq = ?", seq)
        return row[0] if row else None

    def span(self, start: str, end: str) -> tuple[int, int] | None:
        row = self._one("SELECT MIN(seq), MAX(seq) FROM events WHERE ts >= ? AND ts < ?",
                        start, end)
        return None if row is None or row[0] is None else (row[0], row[1])

    def shoe_start_at_or_before(self, seq: int) -> int | None:
        row = self._one("SELECT seq FROM events WHERE seq <= ? AND type = 'new_shoe' "
                        "ORDER BY seq DESC LIMIT 1", seq)
        return row[0] if row else None

    def next_shoe_start_after(self, seq: int) -> int | None:
        row = self._one("SELECT seq FROM events WHERE seq > ? AND type = 'new_shoe' "
                        "ORDER BY seq LIMIT 1", seq)
        return row[0] if row else None

    def shoe_starts(self, start: str, end: str) -> list[tuple[int, str]]:
        with closing(self._connect()) as conn:
            rows = conn.execute(
                "SELECT seq, ts FROM events WHERE ts >= ? AND ts < ? AND type = 'new_shoe' "
                "ORDER BY seq", (start, end)).fetchall()
        return [(seq, ts) for seq, ts in rows]

    def records(self, first: int, last: int,
                containing: tuple[str, ...] = ()) -> Iterator[Record]:
        """Records first..last in seq order, streamed from one read; with `containing`, only
        those whose body holds one of these strings."""
        sql = "SELECT seq, body, prev_hash, hash FROM events WHERE seq BETWEEN ? AND ?"
        params: list[object] = [first, last]
        if containing:
            sql += " AND (" + " OR ".join("instr(body, ?) > 0" for _ in containing) + ")"
            params.extend(containing)
        conn = self._connect()
        try:
            cursor = conn.execute(sql + " ORDER BY seq", params)
            make = Record._make
            while rows := cursor.fetchmany(_FETCH):
                yield from map(make, rows)
        finally:
            conn.close()

    def checkpoints(self, first: int, last: int) -> list[Point]:
        with closing(self._connect()) as conn:
            rows = conn.execute("SELECT seq, hash, at FROM checkpoints WHERE seq BETWEEN ? AND ? "
                                "ORDER BY id", (first, last)).fetchall()
        return [Point(*row) for row in rows]
