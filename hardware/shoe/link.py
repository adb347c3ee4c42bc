"""The link to a card shoe: its port opened by URL, one reader thread, a heartbeat watchdog.

`ShoeLink(url)` opens the port with `serial.serial_for_url` (a device path, `hwgrep://VID:PID`,
`socket://host:port`, `loop://`), feeds what it reads to the shoe's adapter, and hands out
`Received` items in order: decoded events, problems, and changes of the link's state.

- The link is `up` while frames arrive. No accepted frame (a heartbeat counts) for
  `heartbeat_timeout` seconds, or a port that fails, is `down`; each change is reported once.
- A failed port is closed and opened again with backoff until it comes back. The adapter
  lives as long as the link, so sequence numbers carry across the reconnect: a frame the shoe
  sends again is reported as a duplicate and dropped, frames lost meanwhile as a gap. Nothing
  already decoded is lost or handed out twice.
- With `capture`, every byte read is also written to a capture file (see `capture.py`).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import serial

from hardware.clock import utc_stamp
from hardware.shoe.adapters import ShoeAdapter, create_adapter
from hardware.shoe.capture import CaptureWriter

HEARTBEAT_TIMEOUT = 3.0
BAUDRATE = 115_200


@dataclass(frozen=True, slots=True)
class Received:
    """One item from the link. `kind`: `event` (trace form, no ts), `problem` (`error` key),
    or `link` (`{"status": "up" | "down", "reason": ...}`). `ts`: UTC time it was decoded;
    `clock`: `time.perf_counter()` then, for measuring latency."""

    kind: str
    data: dict[str, Any]
    ts: str
    clock: float


class ShoeLink:
    """See the module doc. Use as a context manager, or `start()` and `stop()`."""

    def __init__(
        self,
        url: str,
        *,
        adapter: str | ShoeAdapter = "reference",
        baudrate: int = BAUDRATE,
        heartbeat_timeout: float = HEARTBEAT_TIMEOUT,
        reconnect: tuple[float, float] = (0.1, 2.0),
        capture: str | Path | None = None,
        on_receive: Callable[[Received], None] | None = None,
        read_timeout: float = 0.05,
    ) -> None:
        self.url = url
        self.adapter = create_adapter(adapter) if isinstance(adapter, str) else adapter
        self.baudrate = baudrate
        self.heartbeat_timeout = heartbeat_timeout
        self.backoff_first, self.backoff_max = reconnect
        self.read_timeout = read_timeout
        self.capture = CaptureWriter(capture) if capture is not None else None
        self._queue: queue.SimpleQueue[Received] = queue.SimpleQueue()
        self._on_receive = on_receive or self._queue.put
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: Any = None
        self.status: str | None = None  # "up", "down" or None before the first change
        self.reconnects = 0

    # ---- control ----------------------------------------------------------------------------

    def start(self) -> ShoeLink:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"shoe-link {self.url}",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        port = self._port
        if port is not None and hasattr(port, "cancel_read"):
            with contextlib.suppress(Exception):
                port.cancel_read()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.capture is not None:
            self.capture.close()

    def __enter__(self) -> ShoeLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def get(self, timeout: float | None = None) -> Received | None:
        """The next item (without `on_receive`), or None after `timeout` seconds."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def __iter__(self) -> Iterator[Received]:
        """Items as they arrive, until the link is stopped."""
        while not (self._stop.is_set() and self._queue.empty()):
            item = self.get(0.1)
            if item is not None:
                yield item

    @property
    def up(self) -> bool:
        return self.status == "up"

    # ---- the reader thread ------------------------------------------------------------------

    def _run(self) -> None:
        backoff = self.backoff_first
        last_frame = time.monotonic()
        while not self._stop.is_set():
            if self._port is None:
                try:
                    self._port = serial.serial_for_url(
                        self.url, baudrate=self.baudrate, timeout=self.read_timeout)
                except (serial.SerialException, OSError, ValueError) as e:
                    self._set_status("down", f"cannot open {self.url}: {e}")
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.backoff_max)
                    continue
                backoff = self.backoff_first
                last_frame = time.monotonic()  # give a fresh port a heartbeat period
            try:
                data = self._port.read(1)
                if data:
                    waiting = self._port.in_waiting
                    if waiting:
                        data += self._port.read(waiting)
            except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                self._close_port(f"port failed: {e}")
                continue
            if data:
                before = self.adapter.frames
                if self.capture is not None:
                    self.capture.write(data)
                self._deliver(self.adapter.feed(data))
                if self.adapter.frames != before:
                    last_frame = time.monotonic()
                    if self.status != "up":
                        self._set_status("up", "frames arriving")
            elif self.status != "down" and time.monotonic() - last_frame > self.heartbeat_timeout:
                self._deliver(self.adapter.report_noise())
                self._set_status("down", f"no frame and no heartbeat for {self.heartbeat_timeout:g} s")
        if self._port is not None:
            with contextlib.suppress(Exception):
                self._port.close()
            self._port = None
        self._deliver(self.adapter.flush())

    def _close_port(self, reason: str) -> None:
        with contextlib.suppress(Exception):
            self._port.close()
        self._port = None
        self.reconnects += 1
        self._deliver(self.adapter.link_broke())
        self._set_status("down", reason)

    def _set_status(self, status: str, reason: str) -> None:
        if status == self.status:
            return
        self.status = status
        ts = utc_stamp()
        if self.capture is not None:
            self.capture.mark(link=status, reason=reason, ts=ts)
        self._on_receive(Received("link", {"status": status, "reason": reason}, ts,
                                  time.perf_counter()))

    def _deliver(self, items: list[dict[str, Any]]) -> None:
        if not items:
            return
        ts = utc_stamp()
        clock = time.perf_counter()
        put = self._on_receive
        for data in items:
            put(Received("problem" if "error" in data else "event", data, ts, clock))
