"""Tells systemd how the table service is doing: ready, alive, stopping (sd_notify, stdlib only).

Under `Type=notify` systemd passes the service NOTIFY_SOCKET (an AF_UNIX datagram socket; a
leading '@' names one in the abstract namespace) and, with `WatchdogSec=`, WATCHDOG_USEC. The
table service (`dealer-assist run`) sends:

    READY=1     once the web server listens and the table is up (log replayed, shoe link started)
    WATCHDOG=1  every half WATCHDOG_USEC, from a thread, and only while the service is healthy:
                the web server answers the table's snapshot and the event log can be written.
                When the feeding stops, systemd kills the service and starts it again
                (`Restart=on-failure` in deploy/systemd/dealer-assist@.service).
    STOPPING=1  when it stops (Ctrl-C, or SIGTERM from `systemctl stop`)

Without NOTIFY_SOCKET (a terminal, a test) nothing is sent and no thread is started.
"""

from __future__ import annotations

import http.client
import logging
import os
import socket
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from dealer_assist.store.durable import log_problem

_log = logging.getLogger("dealer_assist.systemd")


#: A check of the service's health: None when healthy, else what is wrong.
Problem = Callable[[], "str | None"]


class Notifier:
    """The service's side of systemd's notify protocol; every method is a no-op without it."""

    def __init__(self, environ: Mapping[str, str] = os.environ) -> None:
        path = environ.get("NOTIFY_SOCKET", "")
        self.address = "\0" + path[1:] if path.startswith("@") else path
        self.watchdog_every = _watchdog_interval(environ)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def send(self, message: str) -> bool:
        """Send one notification (`READY=1`, ...); False when there is no socket or it fails."""
        if not self.address:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            try:
                sock.sendto(message.encode(), self.address)
            except OSError as e:
                _log.warning("cannot notify systemd at %s: %s", self.address, e)
                return False
        return True

    def ready(self, status: str) -> None:
        """The service is up: READY=1, with a line for `systemctl status`."""
        self.send(f"READY=1\nSTATUS={status}")

    def keep_alive(self, problem: Problem) -> None:
        """Feed systemd's watchdog from a thread while `problem()` finds nothing wrong."""
        if self.watchdog_every is None or not self.address or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._feed, args=(problem,),
                                        name="systemd watchdog", daemon=True)
        self._thread.start()

    def stopping(self) -> None:
        """Stop feeding the watchdog and tell systemd the service is stopping."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        self.send("STOPPING=1")

    def _feed(self, problem: Problem) -> None:
        assert self.watchdog_every is not None
        said: str | None = None
        while not self._stop.is_set():
            found = problem()
            if found is None:
                self.send("WATCHDOG=1")
            elif found != said:  # once per new problem, not every half interval
                _log.error("not feeding systemd's watchdog: %s", found)
            said = found
            self._stop.wait(self.watchdog_every)


def _watchdog_interval(environ: Mapping[str, str]) -> float | None:
    """Half of WATCHDOG_USEC in seconds, or None when there is no watchdog for this process."""
    usec = environ.get("WATCHDOG_USEC", "")
    pid = environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2e6


def http_problem(url: str, path: str, what: str, timeout: float = 5.0) -> Problem:
    """A check that `what` (a service's name, for the message) answers `GET path` at `url`
    with 200: None when it does, else what is wrong."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80

    def problem() -> str | None:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            connection.request("GET", path)
            status = connection.getresponse().status
        except (OSError, http.client.HTTPException) as e:
            return f"{what} does not answer at {url}: {e}"
        finally:
            connection.close()
        return None if status == 200 else f"{what} answers {status} for {path}"

    return problem


def table_problem(url: str, database: Path, timeout: float = 5.0) -> Problem:
    """The table service's health check: its web server answers `GET /api/table` (so the
    server's loop and the live table respond) and its event log can be written (the file is
    writable and its disk has room)."""
    web = http_problem(url, "/api/table", "the web server", timeout)

    def problem() -> str | None:
        return web() or log_problem(database)

    return problem
