"""How far the start-up replay has got: a bar on a terminal, progress lines in a log file.

On a terminal (standard error is a tty) a tqdm bar; anywhere else (systemd's journal, a
file, tests) a line on the `dealer_assist` logger every `every_s` seconds, and one at the
end with the time taken.
"""

from __future__ import annotations

import logging
import sys
import time
from types import TracebackType
from typing import Any

from tqdm import tqdm

_log = logging.getLogger("dealer_assist.services.live_table")


class ReplayProgress:
    """`with ReplayProgress(total, "replaying the log") as progress: ... progress.step()`."""

    def __init__(self, total: int, what: str, every_s: float = 5.0) -> None:
        self.total = total
        self.what = what
        self.done = 0
        self._every = every_s
        self._start = self._last = time.monotonic()
        self._bar: Any = None
        if total and sys.stderr is not None and sys.stderr.isatty():
            self._bar = tqdm(total=total, desc=what, unit="event", unit_scale=True,
                             file=sys.stderr, leave=False)

    def __enter__(self) -> ReplayProgress:
        return self

    def step(self) -> None:
        self.done += 1
        if self._bar is not None:
            self._bar.update()
        elif not self.done % 1000:
            now = time.monotonic()
            if now - self._last >= self._every:
                self._last = now
                share = f" of {self.total} ({self.done / self.total:.0%})" if self.total else ""
                _log.info("%s: %d events%s", self.what, self.done, share)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.close()
        if kind is None:
            _log.info("%s: %d events in %.1f s", self.what, self.done,
                      time.monotonic() - self._start)
