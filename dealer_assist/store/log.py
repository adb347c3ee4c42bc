"""The event log port, the read side both logs share, and the in-memory log.

The log keeps every event of a table forever, in the order it was appended. An event is
appended before anything acts on it; `append` returns its sequence number (1, 2, 3... with
no gaps). A stored event is the trace event exactly as given (a JSON object with `ts`,
`src`, `type` and its own fields); reads return fresh copies, so nothing a caller does to
them changes the log. Each stored event is chained to the one before it (see `chain`), and
the log records a checkpoint of the chain head every `checkpoint_every` events and at the
first append after `checkpoint_interval` has passed, or when `checkpoint()` is called.

`MemoryEventLog` and `store.sqlite_log.SqliteEventLog` implement the same `EventLog`
interface; one contract test suite runs against both.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from dealer_assist.logformat import DEFAULT_CHECKPOINT_EVERY, GENESIS, ChainHead, Checkpoint
from dealer_assist.store.chain import (
    ChainBroken,
    InvalidEvent,
    RawRecord,
    StoredEvent,
    check_event,
    link_hash,
    utc_now,
    utc_stamp,
)

Event = dict[str, Any]
Clock = Callable[[], datetime]

DEFAULT_CHECKPOINT_INTERVAL = timedelta(minutes=1)


class EventLog(Protocol):
    """What the services need from a table's event log."""

    def append(self, event: Mapping[str, Any]) -> int: ...

    def append_many(self, events: Iterable[Mapping[str, Any]]) -> range: ...

    def read(self, after_seq: int = 0) -> Iterator[tuple[int, Event]]: ...

    def records(self, after_seq: int = 0) -> Iterator[StoredEvent]: ...

    def replay(self) -> Iterator[Event]: ...

    def head(self) -> ChainHead: ...

    def checkpoint(self) -> Checkpoint: ...

    def checkpoints(self) -> list[Checkpoint]: ...

    def close(self) -> None: ...


class LogReading:
    """The reads every log offers, built on `raw_records` and `checkpoints`."""

    def raw_records(self, after_seq: int = 0) -> Iterator[RawRecord]:
        raise NotImplementedError

    def checkpoints(self) -> list[Checkpoint]:
        raise NotImplementedError

    def read(self, after_seq: int = 0) -> Iterator[tuple[int, Event]]:
        """(seq, event) for every event after `after_seq`, in order."""
        for raw in self.raw_records(after_seq):
            yield raw.seq, json.loads(raw.body)

    def records(self, after_seq: int = 0) -> Iterator[StoredEvent]:
        """Every event after `after_seq` with its place and its links in the chain."""
        for raw in self.raw_records(after_seq):
            yield StoredEvent(raw.seq, json.loads(raw.body), raw.prev_hash, raw.hash)

    def replay(self) -> Iterator[Event]:
        """Every event from the first, checking each link of the chain on the way.

        This is what a restart folds to rebuild the table. Raises `ChainBroken` at the
        first event that does not verify; nothing after it is yielded.
        """
        expected_seq, expected_prev = 1, GENESIS
        for raw in self.raw_records():
            if raw.seq != expected_seq:
                raise ChainBroken(raw.seq, f"expected seq {expected_seq}")
            if raw.prev_hash != expected_prev:
                raise ChainBroken(raw.seq, "prev_hash is not the hash of the event before")
            if link_hash(raw.prev_hash, raw.body) != raw.hash:
                raise ChainBroken(raw.seq, "the stored event does not match its hash")
            yield json.loads(raw.body)
            expected_seq, expected_prev = raw.seq + 1, raw.hash


class CheckpointPolicy:
    """When the log records a checkpoint on its own: by count and by time."""

    def __init__(self, clock: Clock, every: int | None, interval: timedelta | None) -> None:
        if every is not None and every < 1:
            raise ValueError(f"checkpoint_every must be at least 1, got {every}")
        self.clock = clock
        self.every = every
        self.interval = interval
        self.opened = clock()

    def due(self, last: Checkpoint | None, head_seq: int, now: datetime) -> bool:
        """Whether a checkpoint of the head at `head_seq` is due, `last` being the last one."""
        last_seq = last.seq if last else 0
        if head_seq <= last_seq:
            return False
        if self.every is not None and head_seq // self.every > last_seq // self.every:
            return True
        if self.interval is None:
            return False
        since = self.opened if last is None else max(datetime.fromisoformat(last.at), self.opened)
        return now - since >= self.interval


class MemoryEventLog(LogReading):
    """The event log in memory: for tests, demos and replaying a trace without a file."""

    def __init__(
        self,
        *,
        clock: Clock = utc_now,
        checkpoint_every: int | None = DEFAULT_CHECKPOINT_EVERY,
        checkpoint_interval: timedelta | None = DEFAULT_CHECKPOINT_INTERVAL,
    ) -> None:
        self._policy = CheckpointPolicy(clock, checkpoint_every, checkpoint_interval)
        self._rows: list[RawRecord] = []
        self._checkpoints: list[Checkpoint] = []
        self._lock = threading.Lock()
        self._closed = False

    def append(self, event: Mapping[str, Any]) -> int:
        return self._append_bodies([(check_event(event), event)]).start

    def append_many(self, events: Iterable[Mapping[str, Any]]) -> range:
        """Append `events` all or none; returns their seqs. A bad one rejects the batch."""
        return self._append_bodies(checked_bodies(events))

    def _append_bodies(self, pairs: Iterable[tuple[str, Mapping[str, Any]]]) -> range:
        with self._lock:
            self._check_open()
            head = self.head()
            new: list[RawRecord] = []
            for body, _event in pairs:
                digest = link_hash(head.hash, body)
                new.append(RawRecord(head.seq + 1, body, head.hash, digest))
                head = ChainHead(head.seq + 1, digest)
            first = len(self._rows) + 1
            self._rows.extend(new)
            self._auto_checkpoint()
            return range(first, first + len(new))

    def head(self) -> ChainHead:
        if not self._rows:
            return ChainHead(0, GENESIS)
        last = self._rows[-1]
        return ChainHead(last.seq, last.hash)

    def checkpoint(self) -> Checkpoint:
        with self._lock:
            self._check_open()
            return self._record_checkpoint(self._policy.clock())

    def checkpoints(self) -> list[Checkpoint]:
        return list(self._checkpoints)

    def raw_records(self, after_seq: int = 0) -> Iterator[RawRecord]:
        rows = self._rows[max(after_seq, 0):]
        yield from rows

    def close(self) -> None:
        self._closed = True

    def _auto_checkpoint(self) -> None:
        now = self._policy.clock()
        last = self._checkpoints[-1] if self._checkpoints else None
        if self._policy.due(last, self.head().seq, now):
            self._record_checkpoint(now)

    def _record_checkpoint(self, now: datetime) -> Checkpoint:
        head = self.head()
        point = Checkpoint(head.seq, head.hash, utc_stamp(now))
        self._checkpoints.append(point)
        return point

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the event log is closed")


def checked_bodies(
    events: Iterable[Mapping[str, Any]],
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(canonical JSON, event) for each event; a bad one raises, naming its place."""
    for index, event in enumerate(events):
        try:
            yield check_event(event), event
        except InvalidEvent as exc:
            raise InvalidEvent(f"event {index + 1} of the batch: {exc}") from None
