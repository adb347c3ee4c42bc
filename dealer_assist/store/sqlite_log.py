"""The event log on SQLite: one file per table, one writer, readers on read-only connections.

The file holds three tables, `events`, `checkpoints` and `checkpoint_signatures`, and
`PRAGMA user_version` 2 (a version-1 file, which lacks the signatures, is upgraded when the
writer opens it; readers read both).
`events(seq, ts, src, type, body, prev_hash, hash)`: `seq` is the INTEGER PRIMARY KEY (unique,
so a double append fails), `body` the canonical JSON of the event exactly as appended, `ts`
`src` and `type` copies of its fields for queries, `prev_hash`/`hash` its links in the chain.
`checkpoints(id, seq, hash, at)` records the chain head with its time, and
`checkpoint_signatures` the table's signature of a checkpoint when the writer was given a
signer (see `signed_checkpoints`).

Triggers refuse UPDATE and DELETE on every table and refuse an insert that is not the next
link of the chain (which also stops INSERT OR REPLACE from overwriting an event). The writer
uses WAL with synchronous=FULL and explicit transactions (BEGIN IMMEDIATE ... COMMIT), and
holds an exclusive lock on `<file>.lock` while it is open, so a second writer fails at once.
Readers open `file:<path>?mode=ro` and cannot write. `on_commit` tells the writer's listeners
in this process (the table's shipper, which ships at once) of each commit.
"""

from __future__ import annotations

import fcntl
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

from dealer_assist.logformat import DEFAULT_CHECKPOINT_EVERY, GENESIS, ChainHead, Checkpoint
from dealer_assist.store.chain import RawRecord, check_event, link_hash, utc_now, utc_stamp
from dealer_assist.store.log import (
    DEFAULT_CHECKPOINT_INTERVAL,
    CheckpointPolicy,
    Clock,
    LogReading,
    checked_bodies,
)
from dealer_assist.store.signed_checkpoints import (
    SIGNATURE_TRIGGERS,
    SIGNATURES_TABLE,
    CheckpointSigning,
    SignedCheckpoint,
    Signer,
    read_signed,
)

SCHEMA_VERSION = 2
#: The version before checkpoints were signed: read as it is, upgraded by the writer.
UNSIGNED_VERSION = 1

_CHAIN_TRIGGERS: dict[str, str] = {
    "events_no_update": "BEFORE UPDATE ON events BEGIN "
    "SELECT RAISE(ABORT, 'the event log is append-only: UPDATE of events refused'); END",
    "events_no_delete": "BEFORE DELETE ON events BEGIN "
    "SELECT RAISE(ABORT, 'the event log is append-only: DELETE of events refused'); END",
    "events_in_order": "BEFORE INSERT ON events WHEN "
    "NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM events) "
    f"OR NEW.prev_hash IS NOT COALESCE((SELECT hash FROM events ORDER BY seq DESC LIMIT 1), "
    f"'{GENESIS}') BEGIN "
    "SELECT RAISE(ABORT, 'the event log is append-only: an event must be the next seq "
    "and chain to the last hash'); END",
    "checkpoints_no_update": "BEFORE UPDATE ON checkpoints BEGIN "
    "SELECT RAISE(ABORT, 'checkpoints are append-only: UPDATE refused'); END",
    "checkpoints_no_delete": "BEFORE DELETE ON checkpoints BEGIN "
    "SELECT RAISE(ABORT, 'checkpoints are append-only: DELETE refused'); END",
    "checkpoints_match_chain": "BEFORE INSERT ON checkpoints WHEN "
    "NEW.hash IS NOT COALESCE((SELECT hash FROM events WHERE seq = NEW.seq), "
    f"CASE WHEN NEW.seq = 0 THEN '{GENESIS}' END) BEGIN "
    "SELECT RAISE(ABORT, 'a checkpoint must record the hash of an event in the log'); END",
}
#: The triggers that keep the log append-only, by name; `verify-log` checks they are there.
TRIGGERS: dict[str, str] = {**_CHAIN_TRIGGERS, **SIGNATURE_TRIGGERS}

_INSERT_EVENT = (
    "INSERT INTO events (seq, ts, src, type, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class NotAnEventLog(ValueError):
    """The file is not an event log of this version (or not SQLite at all)."""


class LogBusy(RuntimeError):
    """Another writer holds the log; there is one writer per table."""


def read_only_uri(path: Path) -> str:
    return path.resolve().as_uri() + "?mode=ro"


class SqliteEventReader(LogReading):
    """Reads a table's log on read-only connections (one per read), while a writer appends."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"no event log at {self.path}")
        conn = self._connect()
        conn.close()

    def _connect(self) -> sqlite3.Connection:
        """A read-only connection, checked to be an event log of this version."""
        try:
            conn = sqlite3.connect(read_only_uri(self.path), uri=True, check_same_thread=False)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise NotAnEventLog(f"{self.path} is not an SQLite event log: {exc}") from exc
        if version not in (SCHEMA_VERSION, UNSIGNED_VERSION):
            conn.close()
            raise NotAnEventLog(
                f"{self.path} is not an event log of version {SCHEMA_VERSION} "
                f"(user_version {version})"
            )
        return conn

    def raw_records(self, after_seq: int = 0) -> Iterator[RawRecord]:
        conn = self._connect()
        try:
            rows = conn.execute(
                "SELECT seq, body, prev_hash, hash, ts, src, type FROM events "
                "WHERE seq > ? ORDER BY seq",
                (after_seq,),
            )
            for seq, body, prev_hash, digest, ts, src, kind in rows:
                yield RawRecord(seq, body, prev_hash, digest, (ts, src, kind))
        finally:
            conn.close()

    def head(self) -> ChainHead:
        conn = self._connect()
        try:
            row = conn.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        finally:
            conn.close()
        return ChainHead(row[0], row[1]) if row else ChainHead(0, GENESIS)

    def checkpoints(self) -> list[Checkpoint]:
        conn = self._connect()
        try:
            rows = conn.execute("SELECT seq, hash, at FROM checkpoints ORDER BY id").fetchall()
        finally:
            conn.close()
        return [Checkpoint(seq, digest, at) for seq, digest, at in rows]

    def signed_checkpoints(self) -> list[SignedCheckpoint]:
        """The checkpoints the table signed, in order (none in a version-1 log)."""
        conn = self._connect()
        try:
            if _version(conn) == UNSIGNED_VERSION:
                return []
            return read_signed(conn)
        finally:
            conn.close()

    def hashes_at(self, seqs: Iterable[int]) -> dict[int, str]:
        """The hash the log holds at each of `seqs` that it has an event for."""
        conn = self._connect()
        try:
            return {seq: digest for seq in set(seqs) for (digest,) in conn.execute(
                "SELECT hash FROM events WHERE seq = ?", (seq,))}
        finally:
            conn.close()

    def missing_triggers(self) -> list[str]:
        """Names of the append-only triggers that are not in the file (someone dropped them)."""
        conn = self._connect()
        try:
            present = {name for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
            expected = _CHAIN_TRIGGERS if _version(conn) == UNSIGNED_VERSION else TRIGGERS
        finally:
            conn.close()
        return [name for name in expected if name not in present]

    def close(self) -> None:
        """Readers hold no connection between reads; nothing to close."""

    def __enter__(self) -> SqliteEventReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SqliteEventLog(SqliteEventReader):
    """The one writer of a table's log; reads go through read-only connections."""

    def __init__(
        self,
        path: str | Path,
        *,
        clock: Clock = utc_now,
        checkpoint_every: int | None = DEFAULT_CHECKPOINT_EVERY,
        checkpoint_interval: timedelta | None = DEFAULT_CHECKPOINT_INTERVAL,
        signer: Signer | None = None,
        table_id: str = "",
    ) -> None:
        """`signer` (the table key's `sign`) signs every checkpoint as table `table_id`;
        without it checkpoints are recorded unsigned, as before."""
        if signer is not None and not table_id:
            raise ValueError("a log that signs its checkpoints needs the table's id")
        self.path = Path(path)
        self._signing: CheckpointSigning | None = None
        self._policy = CheckpointPolicy(clock, checkpoint_every, checkpoint_interval)
        self._lock = threading.Lock()
        self._listeners: tuple[Callable[[], None], ...] = ()
        self._lock_file: IO[str] | None = _take_writer_lock(self.path)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            _ensure_schema(self._conn, self.path)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._head = super().head()
            cps = self.checkpoints()
            self._last_checkpoint = cps[-1] if cps else None
            if signer is not None:
                points = [entry.point for entry in read_signed(self._conn) if entry.point]
                last = ChainHead(points[-1].seq, points[-1].hash) if points \
                    else ChainHead(0, GENESIS)
                self._signing = CheckpointSigning(table_id, signer, last)
        except BaseException:
            self._release()
            raise

    def append(self, event: Mapping[str, Any]) -> int:
        body = check_event(event)
        return self._append_bodies([(body, event)]).start

    def append_many(self, events: Iterable[Mapping[str, Any]]) -> range:
        """Append `events` in one transaction, all or none; returns their seqs."""
        return self._append_bodies(checked_bodies(events))

    def on_commit(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` after each committed append or checkpoint, in the writer's
        thread (it must be quick and never raise: the shipper's `wake`); returns what stops it.
        Nobody listening costs nothing; a writer in another process is not heard."""
        self._listeners = (*self._listeners, listener)
        return lambda: setattr(self, "_listeners", tuple(
            x for x in self._listeners if x is not listener))

    def head(self) -> ChainHead:
        return self._head

    def checkpoint(self) -> Checkpoint:
        with self._lock:
            self._check_open()
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                point = self._insert_checkpoint(self._head, self._policy.clock())
                self._commit()
            except BaseException:
                self._rollback()
                raise
            self._last_checkpoint = point
            for listener in self._listeners:
                listener()
            return point

    def close(self) -> None:
        with self._lock:
            self._release()

    def _append_bodies(self, pairs: Iterable[tuple[str, Mapping[str, Any]]]) -> range:
        with self._lock:
            self._check_open()
            head = start = self._head

            def rows() -> Iterator[tuple[object, ...]]:
                nonlocal head
                for body, event in pairs:
                    digest = link_hash(head.hash, body)
                    yield (head.seq + 1, event["ts"], event["src"], event["type"], body,
                           head.hash, digest)
                    head = ChainHead(head.seq + 1, digest)

            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(_INSERT_EVENT, rows())
                point = self._due_checkpoint(head)
                self._commit()
            except BaseException:
                self._rollback()
                raise
            self._head = head
            if point is not None:
                self._last_checkpoint = point
            for listener in self._listeners:
                listener()
            return range(start.seq + 1, head.seq + 1)

    def _due_checkpoint(self, head: ChainHead) -> Checkpoint | None:
        now = self._policy.clock()
        if self._policy.due(self._last_checkpoint, head.seq, now):
            return self._insert_checkpoint(head, now)
        return None

    def _insert_checkpoint(self, head: ChainHead, now: datetime) -> Checkpoint:
        point = Checkpoint(head.seq, head.hash, utc_stamp(now))
        cursor = self._conn.execute(
            "INSERT INTO checkpoints (seq, hash, at) VALUES (?, ?, ?)",
            (point.seq, point.hash, point.at),
        )
        if self._signing is not None and cursor.lastrowid is not None:
            self._signing.sign(self._conn, cursor.lastrowid, point)
        return point

    def _commit(self) -> None:
        self._conn.execute("COMMIT")
        if self._signing is not None:
            self._signing.committed()

    def _rollback(self) -> None:
        if self._signing is not None:
            self._signing.rolled_back()
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    def _check_open(self) -> None:
        if self._lock_file is None:
            raise RuntimeError(f"the event log {self.path} is closed")

    def _release(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()
            self._conn = None  # type: ignore[assignment]
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None


def _take_writer_lock(path: Path) -> IO[str]:
    if not path.parent.is_dir():
        raise FileNotFoundError(f"no folder {path.parent} for the event log {path.name}")
    lock_path = path.with_name(path.name + ".lock")
    handle = open(lock_path, "a")  # noqa: SIM115 - held open while the writer lives
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise LogBusy(f"another process is writing to {path} (lock {lock_path})") from None
    return handle


#: The log's tables, written as they have always been (files made before stay byte-identical).
TABLES = (
    'CREATE TABLE "events" (\n   "seq" INTEGER PRIMARY KEY,\n   "ts" TEXT NOT NULL,\n'
    '   "src" TEXT NOT NULL,\n   "type" TEXT NOT NULL,\n   "body" TEXT NOT NULL,\n'
    '   "prev_hash" TEXT NOT NULL,\n   "hash" TEXT NOT NULL\n)',
    'CREATE INDEX "idx_events_ts"\n    ON "events" ("ts")',
    'CREATE TABLE "checkpoints" (\n   "id" INTEGER PRIMARY KEY,\n   "seq" INTEGER NOT NULL,\n'
    '   "hash" TEXT NOT NULL,\n   "at" TEXT NOT NULL\n)',
    SIGNATURES_TABLE,
)


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _ensure_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Create the tables and triggers in a new file; refuse a file that is something else."""
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    except sqlite3.DatabaseError as exc:
        raise NotAnEventLog(f"{path} is not an SQLite event log: {exc}") from exc
    if version == SCHEMA_VERSION:
        return
    if version == UNSIGNED_VERSION:
        _create(conn, (SIGNATURES_TABLE,), SIGNATURE_TRIGGERS)
        return
    if version != 0 or tables:
        raise NotAnEventLog(
            f"{path} is not an event log of version {SCHEMA_VERSION} "
            f"(user_version {version}, tables {', '.join(tables) or 'none'})"
        )
    _create(conn, TABLES, TRIGGERS)


def _create(conn: sqlite3.Connection, tables: Iterable[str], triggers: Mapping[str, str]) -> None:
    """Create `tables` and `triggers` and set this version, all or nothing (a version-1 log
    is upgraded by adding the checkpoint signatures; its events stay as they are)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for sql in tables:
            conn.execute(sql)
        for name, body in triggers.items():
            conn.execute(f"CREATE TRIGGER {name} {body}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
