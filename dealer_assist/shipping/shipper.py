"""The shipper: copies a table's log to the central store, in order, in its own thread.

The table only ever appends to its own SQLite log; the shipper reads that log on read-only
connections after the central head, sends batches, and never makes the table wait. It ships
as soon as the table appends: given the log's `writer` (the table service's, in the same
process), its thread is woken after each of the writer's commits (`on_commit`) and sends
whatever is there by then, so what the table appended while a batch was on its way goes in
the next one. It also looks every `idle` seconds, a safety net (a writer in another process
wakes nobody). It asks the central store for its head when it starts and after every error,
so restarting it or re-sending never duplicates an event. On an outage it retries with
growing pauses (`backoff`; appends do not cut them short) and catches up by itself, in
batches of up to `catch_up` events while it is more than a batch behind (docs/floor.md, "How
ingest works"). It ships events only: the pit's read models are folded from them by the
floor service (floor/fold.py). `lag()` says how far behind the local log's head the central
copy is. Given the table's public key, it ships the signed checkpoints too
(shipping/checkpoints.py).

Given `decide` (the live table's `decide`), the shipper also takes the floor's decision
requests for its own table (shipping/requests.py): after each round of shipping, each waiting
request is recorded in the table's log through the live table, or answered (refused, already
decided at the table), and the decision event ships back with the next round.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from itertools import islice

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dealer_assist.logformat import ChainHead
from dealer_assist.shipping.checkpoints import CheckpointShipper
from dealer_assist.shipping.ingest import Ingest, IntegrityAlarm, central_head, raise_alarm
from dealer_assist.shipping.requests import Decide, take_requests
from dealer_assist.store.chain import RawRecord
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from dealer_assist.worker import Worker

log = logging.getLogger(__name__)

#: The environment variable with the central store's DSN, as this table's own role (it holds
#: the role's password, so it never lives in the config file). Unset: the table ships nothing.
DSN_ENV = "DEALER_ASSIST_CENTRAL_DSN"


@dataclass(frozen=True)
class Lag:
    """How far the central copy is behind the local log: events, and seconds between the
    local head's event time and the last shipped one's (0 when caught up)."""

    events: int
    seconds: float
    shipped_seq: int
    alarm: str | None = None


class Shipper(Worker):
    """Ships one table's log at `log_path` to the central store at `dsn` (the table's role),
    woken by each commit of `writer` (the log's writer in this process) and every `idle` s."""

    def __init__(self, log_path: str, table: str, dsn: str, *, batch: int = 500,
                 catch_up: int = 5000, idle: float = 0.5, backoff: tuple[float, float] = (0.5, 5.0),
                 decide: Decide | None = None, public_key: Ed25519PublicKey | None = None,
                 writer: SqliteEventLog | None = None) -> None:
        super().__init__(f"shipper-{table}")
        self.reader = SqliteEventReader(log_path)
        self.checkpoints = CheckpointShipper(log_path, table, public_key) if public_key else None
        self.decide, self.writer = decide, writer
        self.table, self.dsn, self.batch, self.idle = table, dsn, batch, idle
        self.catch_up = max(catch_up, batch)
        self.backoff = backoff
        self._down = False
        self._conn: psycopg.Connection | None = None
        self._ingest: Ingest | None = None
        self._shipped = ChainHead(0, "")
        self._resend_head = True
        self._alarm: str | None = None

    def stop(self, timeout: float | None = None) -> None:
        """Stop the thread (if it was started) and close the connection."""
        super().stop(timeout)
        self._close()

    @property
    def shipped_seq(self) -> int:
        """The last seq the central store holds, as this shipper last stored or read it."""
        return self._shipped.seq

    def lag(self) -> Lag:
        """The lag behind the local log's head (read from the log, not from the table)."""
        local, shipped = self.reader.head(), self._shipped
        if local.seq <= shipped.seq:
            return Lag(0, 0.0, shipped.seq, self._alarm)
        seconds = _seconds_between(self._ts_of(max(shipped.seq, 1)), self._ts_of(local.seq))
        return Lag(local.seq - shipped.seq, seconds, shipped.seq, self._alarm)

    def ship_once(self) -> int:
        """Send what the central store lacks, in batches; return the events newly stored.
        The thread calls it in a loop; a caller without the thread may call it itself."""
        ingest = self._ingest or self._open()
        head = self._shipped
        sent, read = 0, 0
        # The first batch after connecting re-sends the central head itself: a log re-grown to
        # the same length is caught there (later ones chain to it, or are caught by the next
        # event, whose prev_hash is not the stored head's hash).
        after = max(head.seq - 1, 0) if self._resend_head else head.seq
        with _records_after(self.reader, after) as records:
            size = self.batch
            while chunk := list(islice(records, size)):
                read += len(chunk)
                done = ingest.ship(chunk, self._shipped)
                self._shipped, sent = done.head, sent + done.stored
                self._resend_head = False
                size = self.catch_up  # more than a batch was waiting: behind, catching up
        if not read:  # nothing after the head: is the log shorter than the central copy?
            local = self.reader.head()
            if local.seq < head.seq:
                raise raise_alarm(ingest.conn, self.table, local.seq + 1, "the table's log "
                                  f"ends at seq {local.seq}, before the central head "
                                  f"{head.seq} (it was cut back)")
        return sent

    def take_requests(self) -> int:
        """Record the floor's waiting decision requests for this table (with `decide`); the
        number recorded. The thread calls it after each round of shipping."""
        if self.decide is None:
            return 0
        ingest = self._ingest or self._open()
        return take_requests(ingest.conn, self.table, self.decide)

    def ship_checkpoints(self) -> int:
        """Ship the table's signed checkpoints the central store lacks, with its public key
        (floor/checkpoints.py); the number stored. The thread calls it after each round."""
        if self.checkpoints is None:
            return 0
        ingest = self._ingest or self._open()
        return self.checkpoints.ship(ingest.conn, self._shipped)

    def _open(self) -> Ingest:
        self._conn = psycopg.connect(self.dsn, connect_timeout=5)
        self._ingest = Ingest(self._conn, self.table)
        self._shipped = central_head(self._conn, self.table)
        self._resend_head = True
        return self._ingest

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = self._ingest = None

    def _ts_of(self, seq: int) -> str | None:
        with _records_after(self.reader, seq - 1) as records:
            record = next(records, None)
        return record.columns[0] if record and record.columns else None

    def _run(self) -> None:
        stop_hearing = self.writer.on_commit(self.wake) if self.writer is not None else None
        try:
            self._ship_rounds()
        finally:
            if stop_hearing is not None:
                stop_hearing()

    def _ship_rounds(self) -> None:
        pause = self.backoff[0]
        while not self._stop.is_set():
            try:
                self.ship_once()
                if self.take_requests():
                    self.ship_once()  # the decisions just recorded go back at once
                self.ship_checkpoints()
                if self._down:
                    log.info("central store reachable again; shipping up to seq %d",
                             self._shipped.seq)
                self._down, pause = False, self.backoff[0]
                self._rest(self.idle)  # until the log's next commit (or the safety net)
            except IntegrityAlarm as alarm:
                # Shipping past a broken chain would hide it: stop and let the floor act.
                self._alarm = str(alarm)
                log.error("%s; shipping stopped", alarm)
                self._close()
                return
            except (psycopg.Error, OSError) as exc:
                if not self._down:
                    log.warning("central store unreachable (%s); retrying with backoff", exc)
                self._down = True
                self._close()
                self._stop.wait(pause)
                pause = min(pause * 2, self.backoff[1])


def _seconds_between(earlier: str | None, later: str | None) -> float:
    if not earlier or not later:
        return 0.0
    delta = datetime.fromisoformat(later) - datetime.fromisoformat(earlier)
    return max(delta.total_seconds(), 0.0)


@contextmanager
def _records_after(reader: SqliteEventReader, seq: int) -> Iterator[Iterator[RawRecord]]:
    """The log's records after `seq`, its read connection closed however the reading ends."""
    records = reader.raw_records(seq)
    try:
        yield records
    finally:
        getattr(records, "close", lambda: None)()
