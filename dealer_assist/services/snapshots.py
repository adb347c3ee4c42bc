"""Where a live table keeps its snapshots, and the thread that writes them off the deal.

The live table captures its state under its lock (cheap: the shoes that changed since the
last capture, and copies of two lists) and hands it to a `SnapshotWriter`, whose thread
encodes it and has the store write the file, so the shoe's link never waits on the disk.
A capture that comes while another is being written waits; a newer one replaces it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

from dealer_assist.services.table_state import Captured

_log = logging.getLogger("dealer_assist.services.live_table")


class Snapshots(Protocol):
    """The snapshot files beside a table's log (store.snapshot.TableSnapshots)."""

    def last_seq(self) -> int: ...

    def newest(self, key: Mapping[str, Any], decode: Callable[[bytes, int], Any]) -> Any:
        """The newest usable snapshot (`.seq`, `.state`); LookupError says why there is none."""

    def tail(self, snapshot: Any, from_seq: int) -> Iterator[tuple[int, dict[str, Any]]]: ...

    def save(self, key: Mapping[str, Any], seq: int, payload: bytes) -> Any: ...


class SnapshotWriter:
    """Writes captured states on a thread of its own, one at a time, the newest waiting."""

    def __init__(self, snapshots: Snapshots, key: Mapping[str, Any]) -> None:
        self._snapshots = snapshots
        self._key = dict(key)
        self._cond = threading.Condition()
        self._waiting: Captured | None = None
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None
        #: The seq of the last snapshot written (0: none yet).
        self.written = 0
        #: When the last snapshot was written (time.time()), None before the first.
        self.written_at: float | None = None

    def submit(self, captured: Captured) -> None:
        with self._cond:
            if self._closed:
                return
            self._waiting = captured
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="table snapshots",
                                                daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._waiting is None and not self._closed:
                    self._cond.wait()
                job, self._waiting = self._waiting, None
                if job is None:
                    return
                self._busy = True
            try:
                self._snapshots.save(self._key, job.seq, job.encode())
                self.written = job.seq
                self.written_at = time.time()
            except (OSError, ValueError) as e:  # a full disk, a log gone: the log has it all
                _log.warning("the snapshot at seq %d was not written: %s", job.seq, e)
            except Exception:  # a fault of ours: say so loudly, the table goes on
                _log.exception("the snapshot at seq %d was not written", job.seq)
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> None:
        """Wait until every capture handed over is written."""
        with self._cond:
            self._cond.wait_for(lambda: self._waiting is None and not self._busy, timeout)

    def close(self, timeout: float = 30.0) -> None:
        """Write what is waiting, then stop the thread."""
        self.flush(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
