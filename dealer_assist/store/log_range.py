"""A table's log read by seq range and by time: the `export.source.LogSource` port.

`LogQueries` asks the port's questions of an `events` table (seq, ts, type, body, prev_hash,
hash), written once: a table's own SQLite log (`SqliteLogSource`, here) and the floor's
central PostgreSQL copy of every table's log (`floor.export.PgLogSource`, one table's rows)
differ only in how a value is marked in SQL, which rows are the table's, how rows are read and
where the checkpoints are. Times are found through the index on `events.ts`; a shoe's start by
walking seqs back from a point.

`SqliteLogSource` is read-only: every read opens the file with `mode=ro` (like
`SqliteEventReader`) and closes it again, so a writer may append meanwhile; a read sees the log
as it was when it began.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from dealer_assist.logformat import GENESIS, Point, Record
from dealer_assist.store.sqlite_log import SqliteEventReader, read_only_uri

#: Rows read from SQLite at a time: enough that a fetch costs little per row, few enough that
#: memory stays flat (a row is about 300 bytes).
_FETCH = 1024


class LogQueries:
    """The `LogSource` reads of one table's rows of an `events` table; a subclass says how.

    `MARK` is the driver's parameter mark; `CONTAINS` the SQL function giving where a text is
    in the body (0 when it is not); `scope` the condition that picks the table's rows (none
    where the file is the table's own) and `scope_params` its values."""

    MARK = "?"
    CONTAINS = "instr"
    scope: tuple[str, ...] = ()
    scope_params: tuple[object, ...] = ()

    def _one(self, sql: str, params: tuple[object, ...]) -> Any:
        raise NotImplementedError

    def _all(self, sql: str, params: tuple[object, ...]) -> list[Any]:
        raise NotImplementedError

    def _batches(self, sql: str, params: tuple[object, ...]) -> Iterator[list[Any]]:
        """The rows of one read, a batch at a time (memory stays flat however many)."""
        raise NotImplementedError

    def _sql(self, head: str, *where: str, tail: str = "") -> str:
        """`head` FROM events, the table's rows meeting `where`, then `tail`; marked `?`
        as written here, in the driver's MARK as asked."""
        conditions = [*self.scope, *where]
        sql = f"{head} FROM events" + (" WHERE " + " AND ".join(conditions)
                                       if conditions else "") + tail
        return sql.replace("?", self.MARK)

    def _ask(self, head: str, *where: str, tail: str = "", params: tuple[object, ...] = ()
             ) -> Any:
        return self._one(self._sql(head, *where, tail=tail), (*self.scope_params, *params))

    def head(self) -> tuple[int, str]:
        row = self._ask("SELECT seq, hash", tail=" ORDER BY seq DESC LIMIT 1")
        return (row[0], row[1]) if row else (0, GENESIS)

    def hash_at(self, seq: int) -> str | None:
        if seq == 0:
            return GENESIS
        row = self._ask("SELECT hash", "seq = ?", params=(seq,))
        return row[0] if row else None

    def span(self, start: str, end: str) -> tuple[int, int] | None:
        row = self._ask("SELECT MIN(seq), MAX(seq)", "ts >= ?", "ts < ?", params=(start, end))
        return None if row is None or row[0] is None else (row[0], row[1])

    def shoe_start_at_or_before(self, seq: int) -> int | None:
        row = self._ask("SELECT seq", "seq <= ?", "type = 'new_shoe'",
                        tail=" ORDER BY seq DESC LIMIT 1", params=(seq,))
        return row[0] if row else None

    def next_shoe_start_after(self, seq: int) -> int | None:
        row = self._ask("SELECT seq", "seq > ?", "type = 'new_shoe'",
                        tail=" ORDER BY seq LIMIT 1", params=(seq,))
        return row[0] if row else None

    def shoe_starts(self, start: str, end: str) -> list[tuple[int, str]]:
        sql = self._sql("SELECT seq, ts", "ts >= ?", "ts < ?", "type = 'new_shoe'",
                        tail=" ORDER BY seq")
        return [(seq, ts) for seq, ts in self._all(sql, (*self.scope_params, start, end))]

    def records(self, first: int, last: int,
                containing: tuple[str, ...] = ()) -> Iterator[Record]:
        """Records first..last in seq order, streamed from one read; with `containing`, only
        those whose body holds one of these strings."""
        where = ["seq BETWEEN ? AND ?"]
        if containing:
            where.append("(" + " OR ".join(f"{self.CONTAINS}(body, ?) > 0"
                                           for _ in containing) + ")")
        sql = self._sql("SELECT seq, body, prev_hash, hash", *where, tail=" ORDER BY seq")
        make = Record._make
        for rows in self._batches(sql, (*self.scope_params, first, last, *containing)):
            yield from map(make, rows)


class SqliteLogSource(LogQueries):
    """Reads one table's log file for exports and the regulator's pages."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        SqliteEventReader(self.path)  # raises FileNotFoundError / NotAnEventLog

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(read_only_uri(self.path), uri=True, check_same_thread=False)

    def _one(self, sql: str, params: tuple[object, ...]) -> Any:
        with closing(self._connect()) as conn:
            return conn.execute(sql, params).fetchone()

    def _all(self, sql: str, params: tuple[object, ...]) -> list[Any]:
        with closing(self._connect()) as conn:
            return conn.execute(sql, params).fetchall()

    def _batches(self, sql: str, params: tuple[object, ...]) -> Iterator[list[Any]]:
        conn = self._connect()
        try:
            cursor = conn.execute(sql, params)
            while rows := cursor.fetchmany(_FETCH):
                yield rows
        finally:
            conn.close()

    def checkpoints(self, first: int, last: int) -> list[Point]:
        with closing(self._connect()) as conn:
            rows = conn.execute("SELECT seq, hash, at FROM checkpoints WHERE seq BETWEEN ? AND ? "
                                "ORDER BY id", (first, last)).fetchall()
        return [Point(*row) for row in rows]
