"""A worker thread: one daemon thread that runs a loop until it is told to stop.

The shipper on a table PC (shipping/shipper.py), the floor service's fold (floor/fold.py) and its
listener (floor/web/listen.py) each run one: `start()` starts the thread and returns the worker,
`stop()` sets `_stop` and waits up to `timeout` seconds for the thread to end (a worker never
started stops at once). The loop, `_run`, checks `_stop` and waits on it between rounds, so a
stop is heard within one pause. A loop that rests with `_rest(seconds)` is also cut short by
`wake()`, which any thread may call (the table's log calls the shipper's after each append).
"""

from __future__ import annotations

import threading
from typing import Self


class Worker:
    """Runs `_run` (a subclass's loop) in a daemon thread named `name`."""

    #: How long `stop()` waits for the thread by default, in seconds.
    stop_timeout = 10.0

    def __init__(self, name: str) -> None:
        self._stop = threading.Event()
        self._woken = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Ask the loop to end and wait for the thread (if it was started)."""
        self._stop.set()
        self._woken.set()
        if self._thread.is_alive():
            self._thread.join(self.stop_timeout if timeout is None else timeout)

    def wake(self) -> None:
        """Cut the loop's rest short: it starts its next round at once (cheap, any thread)."""
        self._woken.set()

    def _rest(self, seconds: float) -> None:
        """Wait until woken, stopped or `seconds` have passed, then forget the wake-up: what
        woke it happened before this returns, so the next round sees it."""
        self._woken.wait(seconds)
        self._woken.clear()

    def _run(self) -> None:
        raise NotImplementedError
