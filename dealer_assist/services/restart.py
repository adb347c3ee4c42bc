"""How a live table starts, and the snapshots it takes so that the next start is quick.

Start-up. With `snapshots` (store.snapshot.TableSnapshots) the table loads the newest
snapshot whose seal verifies under the table's key and that matches the log
(services/table_state.py says what it holds) and replays only the events after it; the
watchers, which keep state only within a shoe, see the current shoe's events again first.
With no usable snapshot (each one refused is a warning and a count on `/metrics`), or no
snapshots kept (a table without its signing key), the whole log is replayed, as before;
either way the start-up says which, with a progress bar or progress lines
(services/replay_progress.py).

Snapshots. One is taken at each shoe's end, every `every` events and at the table's
`close()`, and after a start-up that replayed events: captured under the table's lock,
written by a thread of its own (services/snapshots.py).

The live table owns one `Restart` and calls it under its lock (it is not thread-safe by
itself); the start-up restores and applies through the table's own methods, passed in.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from dealer_assist.domain.table import TableMachine
from dealer_assist.services.dealer_duty import DealerDuty
from dealer_assist.services.decisions import Decisions
from dealer_assist.services.replay_progress import ReplayProgress
from dealer_assist.services.snapshots import Snapshots, SnapshotWriter
from dealer_assist.services.table_state import Captured, ShoeBlobs, TableState, decode

_log = logging.getLogger("dealer_assist.services.live_table")

#: Applies (or shows the watchers) one event read back from the log: seq, event.
Replayed = Callable[[int, dict[str, Any]], None]


class Table(Protocol):
    """What a snapshot captures of the live table (services/live_table.LiveTable)."""

    seq: int
    machine: TableMachine
    alerts: list[dict[str, Any]]
    decisions: Decisions
    duty: DealerDuty


class Restart:
    """A live table's start-up, and when it hands its state to the snapshot writer."""

    def __init__(self, snapshots: Snapshots | None, key: Mapping[str, Any], every: int) -> None:
        self._snapshots = snapshots
        self._key = key
        #: Writes the snapshots (None: no snapshots are kept).
        self.writer = SnapshotWriter(snapshots, key) if snapshots else None
        self._blobs = ShoeBlobs()
        self._every = every
        self._since = 0
        self._due = False
        #: The seq of the current shoe's new_shoe (None between shoes).
        self._shoe_seq: int | None = None

    def start(self, table_id: str, replay: Callable[[], Iterator[dict[str, Any]]],
              restore: Callable[[TableState], None], apply: Replayed, watch: Replayed) -> str:
        """Restore the newest usable snapshot and apply the events after it (the current
        shoe's earlier ones to `watch`), or apply the whole log (`replay`); returns how it
        went: "N events replayed", or from which snapshot."""
        snapshots = self._snapshots
        loaded, why = None, "no snapshots are kept"
        if snapshots is not None:
            try:
                loaded = snapshots.newest(self._key, decode)
            except LookupError as e:
                why = str(e)
        if loaded is None:
            total = snapshots.last_seq() if snapshots is not None else 0
            _log.info("table %s: no usable snapshot: %s; replaying the whole log", table_id, why)
            seq = 0
            with ReplayProgress(total, "replaying the log") as progress:
                for seq, obj in enumerate(replay(), 1):
                    apply(seq, obj)
                    progress.step()
            return f"{seq} events replayed"
        assert snapshots is not None and self.writer is not None
        state, blobs = loaded.state
        restore(state)
        self._shoe_seq = state.shoe_seq
        self._blobs.keep(blobs)
        self.writer.written = loaded.seq
        todo = snapshots.last_seq() - loaded.seq
        _log.info("table %s: snapshot at seq %d, replaying %d events", table_id, loaded.seq,
                  todo)
        with ReplayProgress(todo, "replaying the log past the snapshot") as progress:
            for seq, obj in snapshots.tail(loaded, self._shoe_seq or loaded.seq + 1):
                if seq <= loaded.seq:  # the current shoe, for the watchers
                    watch(seq, obj)
                    continue
                apply(seq, obj)
                progress.step()
        return f"snapshot at seq {loaded.seq}, {todo} events replayed"

    def applied(self, seq: int, kind: str, shoes: list[int]) -> None:
        """Event `seq` of type `kind` changed the shoes at indexes `shoes`: they are pickled
        again at the next snapshot, which is due at a shoe's end and every `every` events."""
        for index in shoes:
            self._blobs.changed(index)
        if kind == "new_shoe":
            self._shoe_seq = seq
        elif kind == "end_shoe":
            self._shoe_seq = None
        self._since += 1
        if kind == "end_shoe" or self._since >= self._every:
            self._due = True

    def take(self, table: Table, unwritten: bool = False) -> None:
        """Under the table's lock: hand its state to the writer if a snapshot is due (with
        `unwritten`: if the table stands past the last snapshot written)."""
        if self.writer is None:
            return
        if unwritten:
            self._due = table.seq > self.writer.written
        if not self._due:
            return
        self._due, self._since = False, 0
        machine = table.machine
        dealers, dealer = table.duty.captured()
        self.writer.submit(Captured(
            seq=table.seq, shoe_seq=self._shoe_seq, phase=machine.phase,
            shoes=self._blobs.capture(machine.shoes), problems=list(machine.problems),
            events_applied=machine.events_applied, alerts=list(table.alerts),
            decisions=list(table.decisions.rows), dealers=dealers, dealer=dealer))

    def flush(self) -> None:
        """Wait until the snapshots handed to the writer are written."""
        if self.writer is not None:
            self.writer.flush()

    def close(self) -> None:
        """Stop the writer (what it was handed is written first)."""
        if self.writer is not None:
            self.writer.close()
