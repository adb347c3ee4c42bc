"""Where the shoe emulator sends its bytes: a pseudo-terminal, or a TCP server.

Both look to a reader like a shoe's port: the pty's path opens like a serial device, and the
TCP port opens as `socket://host:port`. `send` never blocks for long and never raises: bytes that
cannot be delivered (no reader, the reader gone) are dropped, as a real shoe's would be.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
import time
import tty
from pathlib import Path
from typing import Protocol

#: How long a new reader gets to set its port up before bytes flow (pySerial's open discards
#: bytes that arrived before it, on a tty and on socket:// alike; a real shoe is running long
#: before its reader, so this loses nothing real).
SETTLE_S = 0.2


class Transport(Protocol):
    def open(self) -> str:
        """Open the port; return where readers find it (a path or `socket://host:port`)."""

    def wait_reader(self, stop: threading.Event, timeout: float | None = None) -> bool:
        """Wait until a reader is there (True) or `stop` is set or `timeout` passes (False)."""

    def send(self, data: bytes) -> bool:
        """Send to the reader; False if the bytes were dropped."""

    def drop(self) -> None:
        """The port goes away (cable pulled)."""

    def close(self) -> None: ...


class PtyTransport:
    """A pseudo-terminal; `link`, if given, is kept as a symlink to its current path."""

    def __init__(self, link: str | Path | None = None) -> None:
        self.link = Path(link) if link is not None else None
        self.path: str | None = None
        self._master: int | None = None
        self._reader_since: float | None = None

    def open(self) -> str:
        master, slave = os.openpty()
        path = os.ttyname(slave)
        tty.setraw(slave)  # no echo, no CR/LF translation, whatever the reader does
        os.close(slave)  # the reader opens it by path; until then the master sees a hang-up
        os.set_blocking(master, False)
        self._master, self.path, self._reader_since = master, path, None
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(path)
            os.replace(tmp, self.link)
        return path

    def _reader_present(self) -> bool:
        if self._master is None:
            return False
        poller = select.poll()
        poller.register(self._master, select.POLLHUP)
        hung_up = any(ev & select.POLLHUP for _, ev in poller.poll(0))
        if hung_up:
            self._reader_since = None
            return False
        if self._reader_since is None:
            self._reader_since = time.monotonic()
        return True

    def _settled(self) -> bool:
        return self._reader_present() and time.monotonic() - self._reader_since >= SETTLE_S  # type: ignore[operator]

    def wait_reader(self, stop: threading.Event, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._settled():
            if stop.wait(0.02) or (deadline is not None and time.monotonic() > deadline):
                return False
        return True

    def send(self, data: bytes) -> bool:
        master = self._master
        if master is None or not self._reader_present():
            return False
        if not self._settled():
            time.sleep(max(0.0, SETTLE_S - (time.monotonic() - self._reader_since)))  # type: ignore[operator]
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view:
            try:
                n = os.write(master, view)
                view = view[n:]
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False  # the reader stopped reading
                select.select([], [master], [], 0.05)
            except OSError:
                return False
        return True

    def drop(self) -> None:
        if self._master is not None:
            os.close(self._master)
            self._master = None

    def close(self) -> None:
        self.drop()
        if self.link is not None and self.link.is_symlink():
            with contextlib.suppress(OSError):
                self.link.unlink()


class TcpTransport:
    """A TCP server that serves one reader at a time (port 0: any free port)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host, self.port = host, port
        self._server: socket.socket | None = None
        self._client: socket.socket | None = None

    def open(self) -> str:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind((self.host, self.port))
        server.listen(1)
        server.setblocking(False)
        self.port = server.getsockname()[1]
        self._server = server
        return f"socket://{self.host}:{self.port}"

    def _accept(self, wait: float) -> bool:
        if self._client is not None:
            return True
        if self._server is None:
            return False
        ready, _, _ = select.select([self._server], [], [], wait)
        if ready:
            with contextlib.suppress(BlockingIOError):
                client, _ = self._server.accept()
                client.setblocking(True)
                client.settimeout(1.0)
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._client = client
                time.sleep(SETTLE_S)  # the reader's open discards what arrives before it is done
        return self._client is not None

    def wait_reader(self, stop: threading.Event, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._accept(0.05):
            if stop.is_set() or (deadline is not None and time.monotonic() > deadline):
                return False
        return True

    def send(self, data: bytes) -> bool:
        if not self._accept(0):
            return False
        try:
            self._client.sendall(data)  # type: ignore[union-attr]
            return True
        except OSError:
            self._client.close()  # type: ignore[union-attr]
            self._client = None
            return False

    def drop(self) -> None:
        for sock in (self._client, self._server):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.close()
        self._client = self._server = None

    def close(self) -> None:
        self.drop()
